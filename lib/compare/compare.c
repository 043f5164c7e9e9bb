/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare.c - every variant against the baseline, per metric, region and function, in gatekept families. */
#include "compare/compare.h"
#include "core/log.h"
#include "core/util.h"
#include "result/metrics.h"
#include "stats/stats.h"
#include "symbols/names.h"
#include "symbols/pair.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ws_variant *ws_result_baseline(struct ws_result *r)
{
	for (size_t i = 0; i < r->nvariants; i++)
		if (r->variants[i].baseline)
			return &r->variants[i];
	return r->nvariants ? &r->variants[0] : NULL;
}

const struct ws_comparison *ws_comparison_find(const struct ws_result *r, const char *variant, const char *metric,
					       const char *region, const char *function)
{
	for (size_t i = 0; i < r->ncomparisons; i++) {
		const struct ws_comparison *c = &r->comparisons[i];

		if (strcmp(c->variant, variant) || strcmp(c->metric, metric))
			continue;
		if (!!region != !!c->region || (region && strcmp(region, c->region)))
			continue;
		if (!!function != !!c->function || (function && strcmp(function, c->function)))
			continue;
		if (c->caller || c->inclusive)
			continue;
		return c;
	}
	return NULL;
}

const struct ws_comparison *ws_comparison_find_call(const struct ws_result *r, const char *variant,
						    const char *metric, const char *function, const char *caller)
{
	for (size_t i = 0; i < r->ncomparisons; i++) {
		const struct ws_comparison *c = &r->comparisons[i];

		if (!c->function || strcmp(c->variant, variant) || strcmp(c->metric, metric) ||
		    strcmp(c->function, function))
			continue;
		if (caller ? c->caller && !strcmp(c->caller, caller) : c->inclusive)
			return c;
	}
	return NULL;
}

/*
 * The smallest two-sided p the exact test can give with n runs a side: 2 / C(2n, n) for Mann-Whitney,
 * 2 / 2^n for the signed-rank test of --paired (all n differences of one sign).
 */
static double min_p(size_t n, bool paired)
{
	return paired ? 2.0 / pow(2.0, (double)n) : ws_mwu_min_p(n, n);
}

static size_t runs_needed(double alpha, size_t m, bool paired)
{
	for (size_t n = 2; n <= 200; n++)
		if (min_p(n, paired) < alpha / (double)(m ? m : 1))
			return n;
	return 201;
}

/* Finite samples of a metric, into a new array; *n receives the count. */
static double *finite_samples(const struct ws_metric *m, size_t *n)
{
	double *x = xmalloc((m->n + 1) * sizeof(*x));

	*n = 0;
	for (size_t i = 0; i < m->n; i++)
		if (isfinite(m->samples[i]))
			x[(*n)++] = m->samples[i];
	return x;
}

/*
 * --runs auto: the looks whose level a comparison is judged at, the primary's (o->looks) or the others'
 * (o->secondary_looks), or 1 for the full alpha (ws_compare_opts).
 */
static double look_factor(const struct ws_compare_opts *o, bool primary)
{
	size_t looks = primary ? o->looks : o->secondary_looks;

	return looks > 1 ? (double)looks : 1.0;
}

/* Per-round pairs for --paired: rounds where both were counted, in round order. */
static size_t paired_samples(const struct ws_metric *bm, const struct ws_metric *vm, double *x, double *y)
{
	size_t n = 0, k = bm->n < vm->n ? bm->n : vm->n;

	for (size_t i = 0; i < k; i++) {
		if (isfinite(bm->samples[i]) && isfinite(vm->samples[i])) {
			x[n] = bm->samples[i];
			y[n] = vm->samples[i];
			n++;
		}
	}
	return n;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	/* FNV-1a: each cell's bootstrap gets its own reproducible stream. */
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* Where a cell's metric lives: the whole process, a region, a function, or a function's calls. */
struct cell_at {
	const char *region, *function, *caller;
	bool inclusive;
};


/*
 * Simulated counts of a program that is not deterministic (threads interleave differently in each run, so
 * their counts wobble by more than WS_EXACT_SPREAD) are still not noisy in the way timings are: the
 * simulator adds no noise of its own. Three runs cannot make a rank test significant (p >= 0.1), so such
 * counts are compared by their ranges, as exact ones are, when the ranges lie far apart: the gap between
 * them at least WS_SIM_APART times the wider range, 1 (docs/statistics.md, 3).
 */
static bool sim_far_apart(const struct ws_metric *bm, const struct ws_metric *vm)
{
	double wide, gap;

	if (!(bm->flags & vm->flags & WS_M_SIMULATED) || !bm->sum.n || !vm->sum.n)
		return false;
	wide = fmax(bm->sum.max - bm->sum.min, vm->sum.max - vm->sum.min);
	gap = fmax(vm->sum.min - bm->sum.max, bm->sum.min - vm->sum.max);
	return gap > 0 && gap >= WS_SIM_APART * wide;
}
static void add_cell(struct ws_result *r, const struct ws_compare_opts *o, const struct ws_variant *base,
		     const struct ws_variant *v, const struct ws_metric *bm, const struct ws_metric *vm,
		     const struct cell_at *at)
{
	const char *region = at->region, *function = at->function;
	struct ws_comparison c = { 0 };
	size_t nx, ny;
	double *x, *y;

	if ((bm->flags | vm->flags) & WS_M_UNSUPPORTED)
		return;
	x = finite_samples(bm, &nx);
	y = finite_samples(vm, &ny);
	c.variant = xstrdup(v->name);
	c.baseline = xstrdup(base->name);
	c.metric = xstrdup(bm->name);
	c.region = region ? xstrdup(region) : NULL;
	c.function = function ? xstrdup(function) : NULL;
	c.caller = at->caller ? xstrdup(at->caller) : NULL;
	c.inclusive = at->inclusive;
	c.p = c.p_adjusted = c.ratio = c.ci_lo = c.ci_hi = NAN;
	c.verdict = WS_VERDICT_NONE;
	if (nx && ny && ((bm->flags & vm->flags & WS_M_EXACT) || sim_far_apart(bm, vm))) {
		/*
		 * Deterministic counts: the values are the answer, there is nothing to test (docs/statistics.md, 3). For
		 * counts that wobble within WS_EXACT_SPREAD, the medians are compared, the "CI" spans the
		 * ranges, and a change needs every variant run to differ from every baseline run.
		 */
		double b = bm->sum.median, val = vm->sum.median;
		bool apart = vm->sum.min > bm->sum.max || vm->sum.max < bm->sum.min;

		c.exact = true;
		c.estimate = WS_ESTIMATE_EXACT;
		c.ratio = b != 0 ? val / b : (val == 0 ? 1.0 : INFINITY);
		c.ci_lo = bm->sum.max != 0 ? vm->sum.min / bm->sum.max : c.ratio;
		c.ci_hi = bm->sum.min != 0 ? vm->sum.max / bm->sum.min : c.ratio;
		c.verdict = apart ? WS_VERDICT_CHANGED : WS_VERDICT_SAME;
		/* --layouts: a difference inside the spread across environment sizes may be the layout's. */
		if (r->settings.layouts > 1) {
			double spread = fmax(bm->sum.max - bm->sum.min, vm->sum.max - vm->sum.min);

			c.layout_sensitive = spread > 0 && fabs(val - b) < spread;
		}
	} else if (nx >= 2 && ny >= 2) {
		/*
		 * --runs auto: the primary of a session stopped at its budget, and everything else of a session that
		 * looked, have the per-look level (ws_compare_opts).
		 */
		bool is_primary = !region && !function && r->settings.primary && !strcmp(bm->name, r->settings.primary);
		double alpha = o->alpha / look_factor(o, is_primary);
		struct ws_cell cell;
		uint64_t seed = hash_str(hash_str(hash_str(o->seed ^ 0xcbf29ce484222325ULL, v->name), bm->name),
					 region ? region : function);

		/* A function's own cells keep the streams they always had; its calls' cells get their own. */
		if (at->caller)
			seed = hash_str(hash_str(seed, " called from "), at->caller);
		else if (at->inclusive)
			seed = hash_str(seed, " inclusive");
		int ret;

		if (o->paired) {
			double *px = xmalloc((bm->n + 1) * sizeof(*px)), *py = xmalloc((vm->n + 1) * sizeof(*py));
			size_t np = paired_samples(bm, vm, px, py);

			ret = np >= 2 ? ws_compare_cell_effect(px, np, py, np, true, o->effect, alpha, seed, &cell) : -1;
			free(px);
			free(py);
		} else {
			ret = ws_compare_cell_effect(x, nx, y, ny, false, o->effect, alpha, seed, &cell);
		}
		c.estimate = WS_ESTIMATE_MEDIAN_RATIO;
		if (ret == 0) {
			c.estimate = cell.effect == WS_EFFECT_HL ? WS_ESTIMATE_HL : WS_ESTIMATE_MEDIAN_RATIO;
			c.ratio = cell.ratio;
			c.ci_lo = cell.lo;
			c.ci_hi = cell.hi;
			/* An unbounded interval (too few runs for the test to reject anything) is no CI. */
			if (cell.effect == WS_EFFECT_HL && !isfinite(cell.hi))
				c.ci_lo = c.ci_hi = NAN;
			c.p = cell.p;
		} else {
			/*
			 * A zero baseline median has no ratio of medians; the test still says whether they
			 * differ, and the means say which way (both medians 0: more zeros in one of them).
			 */
			struct ws_mwu mwu;
			double mb = ws_median(x, nx), mv = ws_median(y, ny);

			if (ws_mann_whitney(x, nx, y, ny, true, &mwu) == 0)
				c.p = mwu.p;
			if (mb == 0 && mv == 0) {
				double sb = 0, sv = 0;

				for (size_t i = 0; i < nx; i++)
					sb += x[i];
				for (size_t i = 0; i < ny; i++)
					sv += y[i];
				sb /= (double)nx;
				sv /= (double)ny;
				c.ratio = sb > 0 ? sv / sb : (sv > 0 ? INFINITY : 1.0);
				c.estimate = WS_ESTIMATE_MEAN_RATIO;
			} else {
				c.ratio = mb != 0 ? mv / mb : INFINITY;
			}
		}
	}
	free(x);
	free(y);
	WS_ALLOC_GROW(r->comparisons, r->ncomparisons + 1, r->alloc_comparisons);
	r->comparisons[r->ncomparisons++] = c;
}

static void compare_sets(struct ws_result *r, const struct ws_compare_opts *o, const struct ws_variant *base,
			 const struct ws_variant *v, const struct ws_metric_set *bs, const struct ws_metric_set *vs,
			 const struct cell_at *at)
{
	for (size_t i = 0; i < bs->n; i++) {
		const struct ws_metric *vm = ws_metric_set_find(vs, bs->v[i].name);

		if (vm)
			add_cell(r, o, base, v, &bs->v[i], vm, at);
	}
}

/* A function's cells: its own metrics, its inclusive ones, and each caller's it has on both sides. */
static void compare_function(struct ws_result *r, const struct ws_compare_opts *o, const struct ws_variant *base,
			     const struct ws_variant *v, const struct ws_group *bg, const struct ws_group *vg)
{
	struct cell_at at = { .function = bg->name };

	compare_sets(r, o, base, v, &bg->metrics, &vg->metrics, &at);
	at.inclusive = true;
	compare_sets(r, o, base, v, &bg->inclusive, &vg->inclusive, &at);
	at.inclusive = false;
	for (size_t i = 0; i < bg->callers.n; i++) {
		const struct ws_group *vc = ws_group_list_find(&vg->callers, bg->callers.v[i].name);

		at.caller = bg->callers.v[i].name;
		if (vc)
			compare_sets(r, o, base, v, &bg->callers.v[i].metrics, &vc->metrics, &at);
	}
}

/* In the family of tests: exact counts are compared as they are, and a cell with too few runs has no p. */
static bool tested(const struct ws_comparison *c)
{
	return !c->exact && isfinite(c->p);
}

/* The metric a comparison read in variant `v`: the whole process's, or a region's or function's. */
static const struct ws_metric *compared_metric(const struct ws_variant *v, const struct ws_comparison *c)
{
	const struct ws_group *g = c->region	 ? ws_group_list_find(&v->regions, c->region)
				   : c->function ? ws_group_list_find(&v->functions, c->function)
						 : NULL;

	if ((c->region || c->function) && !g)
		return NULL;
	if (g && c->caller) {
		g = ws_group_list_find(&g->callers, c->caller);
		return g ? ws_metric_set_find(&g->metrics, c->metric) : NULL;
	}
	if (g && c->inclusive)
		return ws_metric_set_find(&g->inclusive, c->metric);
	return ws_metric_set_find(g ? &g->metrics : &v->metrics, c->metric);
}

/* The variants in the gatekept procedure, and the tested secondaries of c's variant. */
static void family_sizes(const struct ws_result *r, const struct ws_comparison *c, size_t *variants,
			 size_t *secondaries)
{
	*variants = *secondaries = 0;
	for (size_t i = 0; i < r->ncomparisons; i++) {
		const struct ws_comparison *o = &r->comparisons[i];

		/* A variant is in the procedure when its gate can open: a tested or an exact, changed primary. */
		if (o->family == WS_FAMILY_PRIMARY || (o->exact && o->verdict == WS_VERDICT_CHANGED && !o->region &&
						       !o->function && r->settings.primary &&
						       !strcmp(o->metric, r->settings.primary)))
			(*variants)++;
		if (o->family == WS_FAMILY_SECONDARY && !strcmp(o->variant, c->variant))
			(*secondaries)++;
	}
}

bool ws_comparison_reachable(struct ws_result *r, const struct ws_comparison *c, const struct ws_compare_opts *o)
{
	const struct ws_variant *b = ws_result_baseline(r), *v = ws_result_find_variant(r, c->variant);
	const struct ws_metric *mb = b ? compared_metric(b, c) : NULL, *mv = v ? compared_metric(v, c) : NULL;
	size_t nv, ns, n;
	double need;

	if (c->exact)
		return true;
	if (!mb || !mv || c->family == WS_FAMILY_NONE)
		return false;
	family_sizes(r, c, &nv, &ns);
	if (o->fdr)
		need = o->alpha;
	else if (c->family == WS_FAMILY_PRIMARY)
		need = o->alpha / (double)(nv ? nv : 1);
	else
		need = o->alpha / ((double)(nv ? nv : 1) * (double)(ns ? ns : 1));
	/* A comparison judged at the per-look level of --runs auto enters the procedure as L p. */
	if (c->family != WS_FAMILY_NONE)
		need /= look_factor(o, c->family == WS_FAMILY_PRIMARY);
	n = mb->sum.n < mv->sum.n ? mb->sum.n : mv->sum.n;
	return n >= 2 && min_p(n, o->paired) < need;
}

static enum ws_verdict decide(const struct ws_comparison *c, const struct ws_compare_opts *o)
{
	bool higher = ws_metric_better(c->metric) == WS_HIGHER_BETTER;

	if (c->exact)
		return c->verdict;
	if (!isfinite(c->p_adjusted))
		return WS_VERDICT_NONE;
	/* Not tested: its variant's primary was not significant (its p_adjusted is >= alpha anyway). */
	if (c->gate_closed)
		return WS_VERDICT_SAME;
	if (!isfinite(c->ci_lo) || !isfinite(c->ci_hi)) {
		/* No CI (a zero baseline, or too few runs for the bootstrap's): significance and direction only. */
		if (c->p_adjusted >= o->alpha)
			return WS_VERDICT_SAME;
		return (c->ratio > 1) != higher ? WS_VERDICT_SLOWER : WS_VERDICT_FASTER;
	}
	switch (ws_decide(c->p_adjusted, o->alpha, c->ci_lo, c->ci_hi, o->noise, higher)) {
	case WS_SV_SAME:
		return WS_VERDICT_SAME;
	case WS_SV_NOISE:
		return WS_VERDICT_NOISE;
	case WS_SV_WORSE:
		return WS_VERDICT_SLOWER;
	case WS_SV_BETTER:
		return WS_VERDICT_FASTER;
	}
	return WS_VERDICT_NONE;
}

/*
 * A region no run both began and ended is a marker mistake (a misspelt end, a return past the end), and its
 * row of dashes alone does not say so. stat says it too (src/cmd-stat.c): the mistake is the program's, not
 * the comparison's.
 */
void ws_warn_unclosed_regions(struct ws_result *r, const struct ws_variant *v)
{
	char *qn = NULL;

	for (size_t i = 0; i < v->regions.n; i++) {
		const struct ws_metric *e = ws_metric_set_find(&v->regions.v[i].metrics, "entries");

		if (!e || !e->sum.n || e->sum.max != 0)
			continue;
		/* Quoted once: a command line joined from its words carries shell quotes of its own. */
		if (!qn)
			qn = ws_quote_name(v->name);
		ws_result_warn(r, "region '%s' was never closed in %s: each of its markers was unmatched (an end "
			       "without a begin, or a begin whose thread or program ended first), so nothing is "
			       "counted for it; check that its WS_REGION_BEGIN and WS_REGION_END name the same region",
			       v->regions.v[i].name, qn);
	}
	free(qn);
}

/* A robust spread of wall-time runs above this share of their median is worth a warning (warn_variant). */
#define WS_NOISY_SPREAD 0.10

static void warn_variant(struct ws_result *r, const struct ws_variant *v)
{
	const struct ws_metric *wall = ws_metric_set_find(&v->metrics, "wall-time");
	const struct ws_metric *user = ws_metric_set_find(&v->metrics, "user-time");
	const struct ws_metric *sys = ws_metric_set_find(&v->metrics, "system-time");
	/* Quoted once: a command line joined from its words carries shell quotes of its own. */
	char *qn = ws_quote_name(v->name);

	if (v->failed_runs)
		ws_result_warn(r, "%s exited non-zero or was killed in %zu of %zu runs (kept with --ignore-failure)",
			       qn, v->failed_runs, v->nruns);
	if (wall && wall->sum.n >= 5) {
		/* Robust spread: 1.4826 x MAD estimates the standard deviation of normal runs, outliers aside. */
		double spread = wall->sum.median > 0 ? 1.4826 * wall->sum.mad / wall->sum.median : NAN;

		if ((double)wall->sum.outliers > 0.1 * (double)wall->sum.n)
			ws_result_warn(r, "noisy machine: %zu of %zu wall-time runs of %s are outliers; see "
				       "'whyslow doctor'",
				       wall->sum.outliers, wall->sum.n, qn);
		/*
		 * Runs spread evenly (12 to 40 ms for a 10 ms sleep on a busy machine) have no outliers, and
		 * hide a difference of that size just as well.
		 */
		else if (spread > WS_NOISY_SPREAD)
			ws_result_warn(r, "noisy runs: the wall-time of %s varies by about %.0f%% from run to run "
				       "(1.4826 x MAD over the median), so a smaller difference needs many runs; see "
				       "'whyslow doctor'",
				       qn, 100 * spread);
		if (wall->sum.first_outlier)
			ws_result_warn(r, "the first measured run of %s is an outlier: more warm-up may help (-w)",
				       qn);
	}
	if (wall && user && sys && wall->sum.n && user->sum.n && sys->sum.n &&
	    wall->sum.median > 2 * (user->sum.median + sys->sum.median) && wall->sum.median > 0.001) {
		double cpu = user->sum.median + sys->sum.median, off = wall->sum.median - cpu;
		double waited = v->cpu_wait_runs ? v->cpu_wait / (double)v->cpu_wait_runs : NAN;

		/*
		 * Off the CPU is waiting of its own (sleep, I/O, locks) or waiting for a CPU, which the kernel's
		 * pressure stall accounting times per cgroup. A CPU-bound program on a busy machine is the second,
		 * and blaming I/O there sends the user looking in the wrong place; where that time is not known,
		 * neither is named. The wait counts its own threads queueing for the CPUs it may use as well as
		 * other work: both are said.
		 */
		if (waited >= 0.5 * off)
			ws_result_warn(r, "%s is mostly off-CPU (wall %.3g s, CPU %.3g s), and waited %.3g s a run for a "
				       "CPU: other work held them, or it ran more threads than it had CPUs; stop the other "
				       "work or give it CPUs of its own (--cpu), and see 'whyslow doctor'",
				       qn, wall->sum.median, cpu, waited);
		else if (isfinite(waited))
			ws_result_warn(r, "%s is mostly off-CPU (wall %.3g s, CPU %.3g s): waiting on I/O, sleep or "
				       "locks is invisible to the counters",
				       qn, wall->sum.median, cpu);
		else
			ws_result_warn(r, "%s is mostly off-CPU (wall %.3g s, CPU %.3g s): waiting on I/O, sleep, locks "
				       "or for a CPU is invisible to the counters",
				       qn, wall->sum.median, cpu);
	}
	ws_warn_unclosed_regions(r, v);
	for (size_t i = 0; i < v->metrics.n; i++) {
		const struct ws_metric *m = &v->metrics.v[i];

		if (isfinite(m->sum.running) && m->sum.running < 0.99)
			ws_result_warn(r, "'%s' was counted only %.0f%% of the time (multiplexed) and scaled; count "
				       "fewer events with -e for exact figures",
				       m->name, 100 * m->sum.running);
	}
	free(qn);
}

/*
 * Words only the warnings of this file hold (warn_variant, warn_regions, warn_impls, ws_compare's
 * too-few-runs and gate ones): keep them in step with the messages.
 */
static const char *const made_warnings[] = {
	/* Without the quotes around a program's name: ws_quote_name() picks single or double ones. */
	" exited non-zero or was killed in ",
	"noisy machine: ",
	"noisy runs: the wall-time of ",
	" is an outlier: more warm-up may help",
	" is mostly off-CPU (wall ",
	"' was counted only ",
	": one function, two implementations ",
	" exactly, so its other ",
	" has no test of the primary metric ",
	" runs per program the smallest possible p is ",
};

bool ws_compare_made_warning(const char *w)
{
	/* warn_regions()'s two and ws_warn_unclosed_regions()'s begin so; no other warning does. */
	if (!strncmp(w, "region '", 8))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(made_warnings); i++)
		if (strstr(w, made_warnings[i]))
			return true;
	return false;
}

/* A region entered a different number of times by baseline and variant is a different workload there. */
static void warn_regions(struct ws_result *r, const struct ws_variant *base, const struct ws_variant *v)
{
	char *qb = ws_quote_name(base->name), *qv = ws_quote_name(v->name);

	for (size_t i = 0; i < base->regions.n; i++) {
		const struct ws_group *bg = &base->regions.v[i], *vg = ws_group_list_find(&v->regions, bg->name);
		const struct ws_metric *be = ws_metric_set_find(&bg->metrics, "entries"), *ve;

		if (!vg) {
			ws_result_warn(r, "region '%s' is in %s but never entered in %s", bg->name, qb, qv);
			continue;
		}
		ve = ws_metric_set_find(&vg->metrics, "entries");
		if (be && ve && be->sum.n && ve->sum.n && be->sum.median != ve->sum.median)
			ws_result_warn(r, "region '%s' is entered %.0f times by %s but %.0f times by %s: compare "
				       "per entry, or check that both do the same work",
				       bg->name, be->sum.median, qb, ve->sum.median, qv);
	}
	free(qb);
	free(qv);
}

/*
 * A C library function that ran as one implementation in the baseline and another in the variant (glibc
 * picks memcpy, strlen... by CPU features; natively and under the simulator the CPU differs): two rows
 * that are one function. Said once per pair, with the implementation on each side.
 */
static void warn_impls(struct ws_result *r, const struct ws_variant *base, const struct ws_variant *v)
{
	char *qb = ws_quote_name(base->name), *qv = ws_quote_name(v->name);

	for (size_t i = 0; i < base->functions.n; i++) {
		const struct ws_group *bg = &base->functions.v[i];
		char *fam;

		if (ws_group_list_find(&v->functions, bg->name) || !(fam = ws_sym_libc_impl_family(bg->name)))
			continue;
		for (size_t j = 0; j < v->functions.n; j++) {
			const struct ws_group *vg = &v->functions.v[j];
			char *vfam;

			if (ws_group_list_find(&base->functions, vg->name) ||
			    !(vfam = ws_sym_libc_impl_family(vg->name)))
				continue;
			if (!strcmp(fam, vfam))
				ws_result_warn(r, "%s ran as %s in %s and as %s in %s: one function, two implementations "
					       "(the C library picks one by CPU features), so compare their rows as one",
					       fam, bg->name, qb, vg->name, qv);
			free(vfam);
		}
		free(fam);
	}
	free(qb);
	free(qv);
}

static bool measured(const struct ws_metric_set *set, const char *name)
{
	const struct ws_metric *m = ws_metric_set_find(set, name);

	return m && !(m->flags & WS_M_UNSUPPORTED) && m->sum.n;
}

const char *ws_compare_primary(struct ws_result *r, const struct ws_compare_opts *o)
{
	const struct ws_variant *base = ws_result_baseline(r);
	static const char *const order[] = { "wall-time", "estimated-cycles", "instructions" };
	const struct ws_metric *cyc;

	if (!base)
		return NULL;
	if (o->primary)
		return measured(&base->metrics, o->primary) ? ws_metric_set_find(&base->metrics, o->primary)->name
							     : NULL;
	/* Cycles where a PMU counted them: what the time costs, without the noise the clock adds. */
	cyc = ws_metric_set_find(&base->metrics, "cycles");
	if (measured(&base->metrics, "cycles") && !(cyc->flags & WS_M_SIMULATED))
		return cyc->name;
	/*
	 * Then time; under the simulator alone its estimate of the cycles, as a PMU's cycles come first: the
	 * instructions can be the same while the cycles are not (false sharing), and an equal primary closes the
	 * gate on everything else.
	 */
	for (size_t i = 0; i < ARRAY_SIZE(order); i++)
		if (measured(&base->metrics, order[i]))
			return ws_metric_set_find(&base->metrics, order[i])->name;
	for (size_t i = 0; i < base->metrics.n; i++)
		if (measured(&base->metrics, base->metrics.v[i].name))
			return base->metrics.v[i].name;
	return NULL;
}

/*
 * The inputs of ws_gatekeep() for this report: each variant's family number, and which comparison is its
 * primary (an exact, changed primary as p 0: it opens the gate at no cost in error). Sets each comparison's
 * family. Returns the tested comparisons' indices in r->comparisons (caller frees); *m their count.
 */
static size_t *gather_families(struct ws_result *r, const struct ws_variant *base, const char *primary,
			       const struct ws_compare_opts *o, double **p, size_t **fam, bool **is_primary, size_t *m,
			       size_t *nfam)
{
	size_t *idx = xmalloc((r->ncomparisons + 1) * sizeof(*idx)), f = 0;

	*p = xmalloc((r->ncomparisons + 1) * sizeof(**p));
	*fam = xmalloc((r->ncomparisons + 1) * sizeof(**fam));
	*is_primary = xmalloc((r->ncomparisons + 1) * sizeof(**is_primary));
	*m = 0;
	for (size_t vi = 0; vi < r->nvariants; vi++) {
		const struct ws_variant *v = &r->variants[vi];

		if (v == base)
			continue;
		for (size_t i = 0; i < r->ncomparisons; i++) {
			struct ws_comparison *c = &r->comparisons[i];
			bool is_p = !c->region && !c->function && !strcmp(c->metric, primary);

			if (strcmp(c->variant, v->name))
				continue;
			c->family = !tested(c) ? WS_FAMILY_NONE : is_p ? WS_FAMILY_PRIMARY : WS_FAMILY_SECONDARY;
			if (!tested(c) && !(is_p && c->exact && c->verdict == WS_VERDICT_CHANGED))
				continue;
			idx[*m] = i;
			(*p)[*m] = !tested(c) ? 0.0 : fmin(1.0, look_factor(o, is_p) * c->p);
			(*fam)[*m] = f;
			(*is_primary)[*m] = is_p;
			(*m)++;
		}
		f++;
	}
	*nfam = f;
	return idx;
}

/* The variants in play (a primary in the procedure) and the most secondaries one of them has. */
static void gatekeep_sizes(const size_t *fam, const bool *is_primary, size_t m, size_t nfam, size_t *in_play,
			   size_t *max_sec)
{
	size_t *nsec = xcalloc(nfam + 1, sizeof(*nsec));
	bool *play = xcalloc(nfam + 1, sizeof(*play));

	*in_play = *max_sec = 0;
	for (size_t i = 0; i < m; i++) {
		if (is_primary[i])
			play[fam[i]] = true;
		else
			nsec[fam[i]]++;
	}
	for (size_t f = 0; f < nfam; f++) {
		*in_play += play[f];
		if (play[f] && nsec[f] > *max_sec)
			*max_sec = nsec[f];
	}
	free(play);
	free(nsec);
}

/* A variant whose primary has no test keeps its gate closed: say so, or its secondaries' `same` misleads. */
static void warn_out_of_play(struct ws_result *r, const struct ws_variant *base, const char *primary)
{
	for (size_t vi = 0; vi < r->nvariants; vi++) {
		const struct ws_variant *v = &r->variants[vi];
		const struct ws_comparison *pc;
		size_t secondaries = 0;
		char *qv, *qb;

		if (v == base)
			continue;
		pc = primary ? ws_comparison_find(r, v->name, primary, NULL, NULL) : NULL;
		if (pc && (pc->family == WS_FAMILY_PRIMARY || (pc->exact && pc->verdict == WS_VERDICT_CHANGED)))
			continue;
		for (size_t i = 0; i < r->ncomparisons; i++)
			secondaries += r->comparisons[i].family == WS_FAMILY_SECONDARY &&
				       !strcmp(r->comparisons[i].variant, v->name);
		if (!secondaries)
			continue;
		qv = ws_quote_name(v->name);
		qb = ws_quote_name(base->name);
		if (pc && pc->exact)
			ws_result_warn(r, "%s has the same %s as %s exactly, so its other %zu comparisons were not "
				       "tested (the primary gates them; choose another primary to test them)",
				       qv, primary, qb, secondaries);
		else
			ws_result_warn(r, "%s has no test of the primary metric %s (not measured, or too few runs), so "
				       "its other %zu comparisons were not tested",
				       qv, primary ? primary : "(none)", secondaries);
		free(qv);
		free(qb);
	}
}

/* The smallest run count among the baseline's and every variant's samples of the comparisons in `family`. */
static size_t family_min_runs(struct ws_result *r, enum ws_family family, bool *simulated)
{
	const struct ws_variant *base = ws_result_baseline(r);
	size_t min_n = SIZE_MAX;

	*simulated = false;
	for (size_t i = 0; i < r->ncomparisons; i++) {
		const struct ws_comparison *c = &r->comparisons[i];
		const struct ws_variant *v = ws_result_find_variant(r, c->variant);
		const struct ws_metric *m[2];

		if (c->family != family || !v)
			continue;
		m[0] = compared_metric(base, c);
		m[1] = compared_metric(v, c);
		for (int k = 0; k < 2; k++)
			if (m[k] && m[k]->sum.n <= min_n) {
				/* The fewest runs may be the simulated ones, which -r does not set. */
				*simulated = (m[k]->sum.n < min_n ? false : *simulated) || (m[k]->flags & WS_M_SIMULATED);
				min_n = m[k]->sum.n;
			}
	}
	return min_n;
}

/* A function row as the pairing sees it; *identity is allocated (free it). */
static struct ws_sym_pairable row_pairable(const struct ws_group *g, size_t i, char **identity)
{
	/*
	 * The identity comes from the symbol (its clone suffixes stripped, then demangled); a row without one
	 * ([unknown] code) or of inlined code is only ever itself.
	 */
	*identity = !g->inlined && g->nsymbols ? ws_sym_identity(g->symbols[0]) : xstrdup(g->name);
	return (struct ws_sym_pairable){ .key = g->name, .identity = *identity,
					 .cold = !g->inlined && g->nsymbols && strstr(g->symbols[0], ".cold"),
					 .addr = i, .size = 0 /* no size: several of one identity stay apart */ };
}

/* Rename, in `v`, every caller row and stack frame named `from` to `to`. */
static void rename_references(struct ws_variant *v, const char *from, const char *to)
{
	for (size_t i = 0; i < v->functions.n; i++) {
		struct ws_group *c = ws_group_list_find(&v->functions.v[i].callers, from);

		if (c)
			ws_group_list_rename(&v->functions.v[i].callers, c, to);
	}
	for (size_t i = 0; i < v->nstacks; i++)
		for (size_t k = 0; k < v->stacks[i].nframes; k++)
			if (!strcmp(v->stacks[i].frames[k], from)) {
				free(v->stacks[i].frames[k]);
				v->stacks[i].frames[k] = xstrdup(to);
			}
}

static void pair_variant(const struct ws_variant *base, struct ws_variant *v)
{
	const struct ws_group_list *bl = &base->functions;
	struct ws_group_list *vl = &v->functions;
	struct ws_sym_pairable *pb = xmalloc((bl->n + 1) * sizeof(*pb)), *pv = xmalloc((vl->n + 1) * sizeof(*pv));
	char **ib = xmalloc((bl->n + 1) * sizeof(*ib)), **iv = xmalloc((vl->n + 1) * sizeof(*iv));
	size_t *mate = xmalloc((bl->n + 1) * sizeof(*mate));
	enum ws_sym_how *how_b = xmalloc((bl->n + 1) * sizeof(*how_b)), *how_v = xmalloc((vl->n + 1) * sizeof(*how_v));

	for (size_t i = 0; i < bl->n; i++)
		pb[i] = row_pairable(&bl->v[i], i, &ib[i]);
	for (size_t j = 0; j < vl->n; j++)
		pv[j] = row_pairable(&vl->v[j], j, &iv[j]);
	ws_sym_pair(pb, bl->n, pv, vl->n, mate, how_b, how_v);
	for (size_t i = 0; i < bl->n; i++) {
		const struct ws_group *bg = &bl->v[i];
		bool moved = how_b[i] == WS_SYM_LAMBDA_INLINED || how_b[i] == WS_SYM_CLONE_INLINED;
		struct ws_group *g;
		char *old, *name;
		size_t len;

		/* Paired under another name: the variant's row takes the baseline's, and keeps its own. */
		if (how_b[i] != WS_SYM_BY_CLONE && how_b[i] != WS_SYM_BY_LAMBDA && how_b[i] != WS_SYM_BY_TEMPLATE &&
		    !moved)
			continue;
		g = &vl->v[mate[i]];
		/*
		 * A function called in one build and inlined in the other (a lambda numbered in one spelling
		 * only, a clone) stays two rows, as a plain function does: the variant's takes the baseline's
		 * spelling with its own " (inlined)" or without, so that the explanation sees the move as it sees
		 * "f" and "f (inlined)". Inlined code is the function's, never a clone's: its row does not take
		 * the baseline's clone notes ("f(int) (inlined)" for "f(int) [clone .constprop.0]").
		 */
		if (!moved) {
			name = xstrdup(bg->name);
		} else if (g->inlined) {
			ws_sym_clone_row(bg->name, &len);
			name = xasprintf("%.*s (inlined)", (int)len, bg->name);
		} else {
			ws_sym_inlined_row(bg->name, &len);
			name = xstrndup(bg->name, len);
		}
		/* The names say the move already: "f(int) (inlined)" for "f(int) [clone .constprop.0]". */
		if (!strcmp(name, g->name)) {
			free(name);
			continue;
		}
		/* The pairing's keys point at the names: the old one is freed once nothing reads it. */
		old = g->name;
		g->name = NULL;
		if (!g->own_name)
			g->own_name = xstrdup(old);
		ws_group_list_rename(vl, g, name);
		rename_references(v, old, name);
		free(old);
		free(name);
	}
	for (size_t i = 0; i < bl->n; i++)
		free(ib[i]);
	for (size_t j = 0; j < vl->n; j++)
		free(iv[j]);
	free(ib);
	free(iv);
	free(pb);
	free(pv);
	free(mate);
	free(how_b);
	free(how_v);
}

void ws_compare_pair_functions(struct ws_result *r)
{
	struct ws_variant *base = ws_result_baseline(r);

	for (size_t i = 0; base && i < r->nvariants; i++)
		if (&r->variants[i] != base)
			pair_variant(base, &r->variants[i]);
}

int ws_compare(struct ws_result *r, const struct ws_compare_opts *o)
{
	struct ws_variant *base = ws_result_baseline(r);
	const char *primary;
	size_t *idx, *fam, m, nfam, in_play, max_sec, min_n, m1, m2;
	double *p, *adj;
	bool *is_primary, *closed, sim_n;

	for (size_t i = 0; i < r->ncomparisons; i++)
		ws_comparison_release(&r->comparisons[i]);
	r->ncomparisons = 0;
	if (!base || r->nvariants < 2)
		return ws_error("nothing to compare: give a baseline and at least one variant"), -EINVAL;
	primary = ws_compare_primary(r, o);
	if (o->primary && !primary)
		return ws_error("the primary metric '%s' was not measured", o->primary), -EINVAL;
	r->settings.noise = o->noise;
	r->settings.alpha = o->alpha;
	r->settings.paired = o->paired;
	r->settings.fdr = o->fdr;
	free(r->settings.primary);
	r->settings.primary = primary ? xstrdup(primary) : NULL;
	for (size_t i = 0; i < r->nvariants; i++) {
		struct ws_variant *v = &r->variants[i];

		warn_variant(r, v);
		if (v == base)
			continue;
		compare_sets(r, o, base, v, &base->metrics, &v->metrics, &(struct cell_at){ 0 });
		for (size_t j = 0; j < base->regions.n; j++) {
			const struct ws_group *vg = ws_group_list_find(&v->regions, base->regions.v[j].name);

			if (vg)
				compare_sets(r, o, base, v, &base->regions.v[j].metrics, &vg->metrics,
					     &(struct cell_at){ .region = base->regions.v[j].name });
		}
		for (size_t j = 0; j < base->functions.n; j++) {
			const struct ws_group *vg = ws_group_list_find(&v->functions, base->functions.v[j].name);

			if (vg)
				compare_function(r, o, base, v, &base->functions.v[j], vg);
		}
		warn_regions(r, base, v);
		warn_impls(r, base, v);
	}
	/* Two families: the primary metric across the variants, and behind each variant's primary, the rest. */
	idx = gather_families(r, base, primary ? primary : "", o, &p, &fam, &is_primary, &m, &nfam);
	adj = xmalloc((m + 1) * sizeof(*adj));
	closed = xmalloc((m + 1) * sizeof(*closed));
	ws_gatekeep(p, fam, is_primary, m, nfam, o->fdr, o->alpha, adj, closed);
	for (size_t j = 0; j < m; j++) {
		struct ws_comparison *c = &r->comparisons[idx[j]];

		if (!tested(c))
			continue;
		c->p_adjusted = adj[j];
		c->gate_closed = closed[j];
	}
	gatekeep_sizes(fam, is_primary, m, nfam, &in_play, &max_sec);
	free(closed);
	free(adj);
	free(is_primary);
	free(fam);
	free(p);
	free(idx);
	for (size_t i = 0; i < r->ncomparisons; i++)
		r->comparisons[i].verdict = decide(&r->comparisons[i], o);
	warn_out_of_play(r, base, primary);
	/*
	 * Can this many runs ever reach significance, in either family? Holm's smallest threshold is alpha/m;
	 * Benjamini-Hochberg's largest is alpha itself (every p at or below alpha passes when all are), so
	 * with --fdr only a smallest p not below alpha rules everything out (ws_comparison_reachable()).
	 */
	min_n = family_min_runs(r, WS_FAMILY_PRIMARY, &sim_n);
	m1 = o->fdr ? 1 : in_play;
	m2 = o->fdr ? 1 : in_play * max_sec;
	if (in_play && min_n != SIZE_MAX && min_p(min_n, o->paired) >= o->alpha / (double)m1) {
		/* One test needs no correction: alpha itself, and "test" in the singular. */
		char *tests = in_play == 1 ? xasprintf("alpha = %.2g for the primary test", o->alpha)
			      : o->fdr ? xasprintf("alpha = %.2g for any of the %zu primary tests (--fdr)", o->alpha,
						   in_play)
				       : xasprintf("alpha/m = %.2g for the %zu primary tests", o->alpha / (double)in_play,
						   in_play);

		ws_result_warn(r, "with %zu runs per program the smallest possible p is %.2g, not below %s (%s) of this "
			       "report: nothing can be significant; use at least %zu runs (%s)",
			       min_n, min_p(min_n, o->paired), tests, primary, runs_needed(o->alpha, m1, o->paired),
			       sim_n ? "--sim-runs" : "-r");
		free(tests);
	} else if (max_sec && (min_n = family_min_runs(r, WS_FAMILY_SECONDARY, &sim_n)) != SIZE_MAX &&
		   min_p(min_n, o->paired) >= o->alpha / (double)m2) {
		ws_result_warn(r, "with %zu runs per program the smallest possible p is %.2g, not below %s = %.2g "
			       "for a variant's %zu secondary test%s (all but the primary %s): none of them can be "
			       "significant; use at least %zu runs (%s)",
			       min_n, min_p(min_n, o->paired), o->fdr ? "alpha (--fdr)" : "alpha/m",
			       o->alpha / (double)m2, max_sec, max_sec == 1 ? "" : "s", primary,
			       runs_needed(o->alpha, m2, o->paired),
			       sim_n ? "--sim-runs, for the simulated counts that are not exact" : "-r");
	}
	return 0;
}
