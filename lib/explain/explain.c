/* SPDX-License-Identifier: GPL-2.0-or-later */
/* explain.c - decompose a variant's cycle delta into counter deltas, localise them, suggest a next step. */
#include "explain/explain.h"
#include "asm/asm.h"
#include "compare/compare.h"
#include "explain/own.h"
#include "core/log.h"
#include "core/util.h"
#include "result/metrics.h"
#include "stats/stats.h"
#include "symbols/names.h"

#include <errno.h>
#include <jansson.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Cycles each event adds, beyond the cycle its instruction already costs. Defaults for real hardware from
 * the vendors' optimisation manuals and public latency measurements, rounded: an L1 miss costs an L2 hit,
 * a last-level miss the trip to DRAM (about 80 ns at 4.5 GHz) beyond that. Hardware counters have no
 * generic L2-miss event, so misses that hit L3 stay in "unexplained" there.
 */
static const struct ws_cost zen4[] = {
	{ "branch-misses", 13 },         { "L1-dcache-load-misses", 14 }, { "L1-icache-load-misses", 14 },
	{ "LLC-load-misses", 350 },
};
static const struct ws_cost golden_cove[] = {
	{ "branch-misses", 17 },         { "L1-dcache-load-misses", 15 }, { "L1-icache-load-misses", 15 },
	{ "LLC-load-misses", 400 },
};
static const struct ws_cost generic[] = {
	{ "branch-misses", 15 },         { "L1-dcache-load-misses", 12 }, { "L1-icache-load-misses", 12 },
	{ "LLC-load-misses", 250 },
};

const struct ws_cost *ws_cost_defaults(const char *cpu, size_t *n, const char **family)
{
	if (cpu && strstr(cpu, "AMD")) {
		*family = "defaults for AMD Zen 4";
		*n = ARRAY_SIZE(zen4);
		return zen4;
	}
	if (cpu && strstr(cpu, "Intel")) {
		*family = "defaults for Intel Golden Cove";
		*n = ARRAY_SIZE(golden_cove);
		return golden_cove;
	}
	*family = "generic defaults";
	*n = ARRAY_SIZE(generic);
	return generic;
}

/* What the explanation prices in cycles: the simulator's sim_costs keys (docs/result-schema.md). */
#define COST_KEYS                                                                                              \
	"branch-misses, L1-dcache-load-misses, L1-icache-load-misses, L2-load-misses, L2-icache-misses, "      \
	"LLC-load-misses, LLC-icache-misses, coherence-misses"

int ws_cost_load(const char *path, struct ws_cost **out, size_t *n)
{
	json_error_t err;
	json_t *root, *v;
	const char *k;

	*out = NULL;
	*n = 0;
	/* A FIFO without a writer would block for ever. */
	if (ws_not_regular(path))
		return ws_error("cannot read cost table '%s': it is %s, not a file", path, ws_not_regular(path)),
		       -EINVAL;
	root = json_load_file(path, 0, &err);
	if (!root) {
		/* jansson quotes the file ("near '...'"): its control bytes must not reach the terminal. */
		char *esc = ws_escape_ctl(err.text);

		ws_error("cannot read cost table '%s': %s", path, esc);
		free(esc);
		return -EINVAL;
	}
	if (!json_is_object(root)) {
		json_decref(root);
		return ws_error("%s: a cost table is a JSON object {\"metric\": cycles, ...}", path), -EINVAL;
	}
	*out = xcalloc(json_object_size(root) + 1, sizeof(**out));
	json_object_foreach(root, k, v) {
		/*
		 * A key is one of COST_KEYS or another metric whyslow knows (a -e event counted by a PMU), all in
		 * the metrics' registry: a typo ("branch-misess") would be a cost of nothing, silently.
		 */
		if (!ws_metric_info(k)) {
			char *esc = ws_escape_ctl(k);

			ws_error("%s: '%s' is no metric whyslow knows: a cost table prices %s (or another metric "
				 "'whyslow list' names)", path, esc, COST_KEYS);
			free(esc);
			goto fail;
		}
		if (!json_is_number(v) || json_number_value(v) < 0) {
			ws_error("%s: the cost of '%s' must be a number of cycles >= 0", path, k);
			goto fail;
		}
		(*out)[*n].metric = xstrdup(k);
		(*out)[(*n)++].cycles = json_number_value(v);
	}
	json_decref(root);
	return 0;
fail:
	ws_cost_free(*out, *n);
	*out = NULL;
	*n = 0;
	json_decref(root);
	return -EINVAL;
}

void ws_cost_free(struct ws_cost *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(c[i].metric);
	free(c);
}

static double median_of(const struct ws_metric_set *s, const char *name)
{
	const struct ws_metric *m = ws_metric_set_find(s, name);

	return m && m->sum.n ? m->sum.median : NAN;
}

static bool significant(const struct ws_comparison *c)
{
	return c && (c->verdict == WS_VERDICT_SLOWER || c->verdict == WS_VERDICT_FASTER ||
		     c->verdict == WS_VERDICT_CHANGED);
}

/*
 * Exact counts that differ, but by less than the noise threshold, ranges and all: a real difference, and
 * one the user said is too small to matter (--noise). Two threads that interleave differently in each
 * run make an A/A comparison's counts differ by a few thousandths of a percent: that is "the same within
 * the noise threshold", as a CI inside the band is.
 */
static bool exact_inside_noise(const struct ws_comparison *c, double noise)
{
	/* Strictly inside: an exact +1.0% against a 1% threshold is at it, not within it. */
	return c && c->exact && c->verdict == WS_VERDICT_CHANGED && noise > 0 && c->ci_lo > 1.0 - noise &&
	       c->ci_hi < 1.0 + noise;
}

/* One term of the decomposition. */
struct term {
	const char *metric;
	double cost;      /* cycles per event (instructions: the base CPI) */
	bool blamed;      /* its delta is significant */
	double part;      /* delta x cost, in cycles */
};

/* Median of run-indexed samples picked by `idx`, skipping NANs. */
static double resampled_median(const struct ws_metric *m, const size_t *idx, size_t n, double *buf)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (idx[i] < m->n && isfinite(m->samples[idx[i]]))
			buf[k++] = m->samples[idx[i]];
	return k ? ws_median(buf, k) : NAN;
}

struct side {
	const struct ws_metric_set *set;
	size_t n;     /* runs */
};

/* The base CPI: cycles per instruction net of the modelled stalls (at least 0.1, at most the CPI). */
static double base_cpi(double cycles, double instr, const struct ws_metric_set *s, const struct term *t, size_t nt,
		       bool simulated)
{
	double stalls = 0, cpi;

	if (simulated)
		return 1.0; /* the simulator's estimate charges one cycle per instruction */
	if (!(instr > 0) || !(cycles > 0))
		return NAN;
	for (size_t i = 0; i < nt; i++) {
		double v = median_of(s, t[i].metric);

		if (isfinite(v))
			stalls += v * t[i].cost;
	}
	cpi = (cycles - stalls) / instr;
	if (cpi < 0.1)
		cpi = 0.1;
	if (cpi > cycles / instr)
		cpi = cycles / instr;
	return cpi;
}

/* Shares of each term (and unexplained, last) from medians of both sides. Returns false without a delta. */
static bool shares_from(const double *bmed, const double *vmed, size_t nt, const struct term *t, double dcyc,
			double *share)
{
	double sum = 0;

	if (!isfinite(dcyc) || dcyc == 0)
		return false;
	for (size_t i = 0; i < nt; i++) {
		double part = t[i].blamed && isfinite(vmed[i]) && isfinite(bmed[i]) ? (vmed[i] - bmed[i]) * t[i].cost : 0;

		share[i] = part / dcyc;
		sum += share[i];
	}
	share[nt] = 1 - sum;
	return true;
}

static int double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The CI of each share: resample each side's runs (keeping a run's metrics together), recompute the
 * medians, the cycle delta and the shares. Exact simulated counts give a zero-width CI. Always 95%, not
 * 1 - alpha: a share is a description that no verdict or gate reads, and --alpha is the tests' level.
 */
static void share_cis(const struct side *b, const struct side *v, const char *cyc_metric, const struct term *t,
		      size_t nt, uint64_t seed, size_t B, double *lo, double *hi)
{
	struct ws_rng rng;
	size_t nb = b->n, nv = v->n;
	size_t *ib = xmalloc((nb + 1) * sizeof(*ib)), *iv = xmalloc((nv + 1) * sizeof(*iv));
	double *buf = xmalloc((nb + nv + 1) * sizeof(*buf));
	double *draws = xmalloc((nt + 1) * B * sizeof(*draws));
	double *bmed = xmalloc((nt + 1) * sizeof(*bmed)), *vmed = xmalloc((nt + 1) * sizeof(*vmed));
	double *share = xmalloc((nt + 1) * sizeof(*share)), *col = xmalloc((B + 1) * sizeof(*col));
	const struct ws_metric *bc = ws_metric_set_find(b->set, cyc_metric), *vc = ws_metric_set_find(v->set, cyc_metric);
	size_t got = 0;

	ws_rng_seed(&rng, seed);
	for (size_t k = 0; k < B; k++) {
		for (size_t i = 0; i < nb; i++)
			ib[i] = (size_t)ws_rng_below(&rng, nb);
		for (size_t i = 0; i < nv; i++)
			iv[i] = (size_t)ws_rng_below(&rng, nv);
		for (size_t i = 0; i < nt; i++) {
			const struct ws_metric *bm = ws_metric_set_find(b->set, t[i].metric);
			const struct ws_metric *vm = ws_metric_set_find(v->set, t[i].metric);

			bmed[i] = bm ? resampled_median(bm, ib, nb, buf) : NAN;
			vmed[i] = vm ? resampled_median(vm, iv, nv, buf) : NAN;
		}
		if (!shares_from(bmed, vmed, nt, t,
				 resampled_median(vc, iv, nv, buf) - resampled_median(bc, ib, nb, buf), share))
			continue;
		for (size_t i = 0; i <= nt; i++)
			draws[i * B + got] = share[i];
		got++;
	}
	for (size_t i = 0; i <= nt; i++) {
		if (got < 20) {
			lo[i] = hi[i] = NAN;
			continue;
		}
		memcpy(col, draws + i * B, got * sizeof(*col));
		qsort(col, got, sizeof(*col), double_cmp);
		lo[i] = col[(size_t)floor(0.025 * (double)got)];
		hi[i] = col[(size_t)ceil(0.975 * (double)got) - 1];
	}
	free(ib);
	free(iv);
	free(buf);
	free(draws);
	free(bmed);
	free(vmed);
	free(share);
	free(col);
}

static size_t runs_of(const struct ws_metric_set *s, const char *metric)
{
	const struct ws_metric *m = ws_metric_set_find(s, metric);

	return m ? m->n : 0;
}

struct place {
	char *name;
	const char *object; /* functions: their object; NULL for regions */
	bool inlined;       /* functions: a row of code inlined from it, not a function asm-diff can show */
	/*
	 * Functions: the place is `name`'s inclusive count standing for `moved`, a function inlined in one
	 * build and called in the other (out_of_line: called in the variant). Its own row says little: all of
	 * its code looks new (or gone), while its callers lost (or gained) the same code.
	 */
	const char *moved;
	size_t moved_len; /* where the place is its host's: of `moved`, the function's name (no clone notes) */
	bool out_of_line;
	double delta;
	double size;        /* regions: the variant's value of the metric, to prefer inner regions */
};

static int place_cmp(const void *a, const void *b)
{
	double x = fabs(((const struct place *)a)->delta), y = fabs(((const struct place *)b)->delta);

	return (x < y) - (x > y);
}

/* What localisation found, for the next step. Borrowed strings, valid while the variant lives. */
struct located {
	const char *fn;         /* the function with the largest delta, or NULL */
	const char *fn_object;
	const char *own_fn;     /* the one with the largest delta in the program's own code, or NULL */
	/* When `fn` is not the program's own: the first own function up its callers, by growth. */
	const char *via;
	double via_share;       /* the part of fn's delta reached through `via` */
	double via_base;        /* fn's inclusive delta, which via_share is a part of: the count through `via` */
	const char *via_from;   /* via's own caller with the largest delta, or NULL */
	char *through;          /* library functions between fn and via, comma-separated, or NULL (owned) */
};

static bool same_file(const char *a, const char *b)
{
	char *ra, *rb;
	bool same;

	if (!a || !b)
		return false;
	if (!strcmp(a, b))
		return true;
	ra = realpath(a, NULL);
	rb = realpath(b, NULL);
	same = ra && rb && !strcmp(ra, rb);
	free(ra);
	free(rb);
	return same;
}

/*
 * The delta of `metric` between two metric sets of one function or call (bs may be NULL: none in the
 * baseline). A sampled profile has only shares, which place cycles alone: share x the variant's cycles.
 */
static double set_delta(const struct ws_metric_set *bs, const struct ws_metric_set *vs, const char *metric,
			const char *cyc_metric, double bcyc, double vcyc)
{
	double bv = bs ? median_of(bs, metric) : 0, vv = median_of(vs, metric);

	if (!isfinite(vv) && !strcmp(metric, cyc_metric) && ws_metric_set_find(vs, "share")) {
		double bs_share = bs ? median_of(bs, "share") : 0;

		vv = median_of(vs, "share") * vcyc;
		bv = (isfinite(bs_share) ? bs_share : 0) * bcyc;
	}
	return vv - (isfinite(bv) ? bv : 0);
}

/* The caller of `vg` (baseline `bg`, may be NULL) with the largest delta in the direction of `total`. */
static const struct ws_group *top_caller(const struct ws_group *bg, const struct ws_group *vg, const char *metric,
					 double total, const char *cyc_metric, double bcyc, double vcyc, double *delta)
{
	const struct ws_group *best = NULL;

	*delta = 0;
	for (size_t i = 0; i < vg->callers.n; i++) {
		const struct ws_group *c = &vg->callers.v[i], *bc = bg ? ws_group_list_find(&bg->callers, c->name) : NULL;
		double d = set_delta(bc ? &bc->metrics : NULL, &c->metrics, metric, cyc_metric, bcyc, vcyc);

		if (isfinite(d) && d != 0 && (d > 0) == (total > 0) && fabs(d) > fabs(*delta)) {
			best = c;
			*delta = d;
		}
	}
	return best;
}

/*
 * Up the callers of `fn`, a function outside the program's own code, to the first one inside it: at each
 * step the caller that accounts for most of the growth of the function's inclusive count, and the part of
 * the first function's delta that goes that way (the product of the steps' parts; exact for one step).
 */
static void follow_callers(const struct ws_variant *b, const struct ws_variant *v, const char *fn,
			   const char *metric, const char *cyc_metric, double bcyc, double vcyc, struct ws_own *own,
			   struct located *loc)
{
	const char *cur = fn;
	double part = 1;
	char *through = NULL;

	for (int depth = 0; depth < 8; depth++) {
		const struct ws_group *vg = ws_group_list_find(&v->functions, cur);
		const struct ws_group *bg = ws_group_list_find(&b->functions, cur), *c, *from;
		double total, d;

		if (!vg || !vg->callers.n)
			break;
		total = set_delta(bg ? &bg->inclusive : NULL, &vg->inclusive, metric, cyc_metric, bcyc, vcyc);
		if (!isfinite(total) || total == 0 || !(c = top_caller(bg, vg, metric, total, cyc_metric, bcyc, vcyc, &d)))
			break;
		/* The parts multiply up from fn's change with its callees: what the count through `via` is of. */
		if (depth == 0)
			loc->via_base = total;
		part *= d / total;
		if (ws_own_object(own, c->object)) {
			const struct ws_group *vo = ws_group_list_find(&v->functions, c->name);
			const struct ws_group *bo = ws_group_list_find(&b->functions, c->name);
			double od = vo ? set_delta(bo ? &bo->inclusive : NULL, &vo->inclusive, metric, cyc_metric, bcyc, vcyc)
				       : NAN;

			loc->via = c->name;
			loc->via_share = part;
			from = vo && isfinite(od) && od != 0 ? top_caller(bo, vo, metric, od, cyc_metric, bcyc, vcyc, &d) : NULL;
			loc->via_from = from ? from->name : NULL;
			loc->through = through;
			return;
		}
		if (through) {
			char *t = xasprintf("%s, %s", through, c->name);

			free(through);
			through = t;
		} else {
			through = xstrdup(c->name);
		}
		cur = c->name;
	}
	free(through);
}

/*
 * A count for a sentence: "+140 M", "-32 k", "+1160", "+12". The unit is picked on the count rounded to
 * the three digits it is written with: 999,960 is "+1 M", not "+1e+03 k"; below 10 k a count is written
 * whole, as "%.3g" writes 1160 "+1.16e+03".
 */
static char *count_text(double x)
{
	char digits[32];
	double a;

	snprintf(digits, sizeof(digits), "%.3g", x);
	a = fabs(strtod(digits, NULL));

	if (a >= 1e9)
		return xasprintf("%+.3g G", x / 1e9);
	if (a >= 1e6)
		return xasprintf("%+.3g M", x / 1e6);
	if (a >= 1e4)
		return xasprintf("%+.3g k", x / 1e3);
	return xasprintf(fabs(x) >= 100 ? "%+.0f" : "%+.3g", x);
}

/* Whether a place's `delta` is more than the whole difference `total`, as a share is written: 101% and up. */
static bool past_whole(double delta, double total)
{
	return delta / total >= 1.005;
}

/*
 * The part of loc->fn's change with its callees that comes through loc->via, for "N% called from VIA"
 * (`from`) or "come N% from calls by VIA": one caller's part is past the whole where others' went the other
 * way, and is then said as its count and the other callers': "+160 M instructions called from r1cs_apply,
 * more than its whole change: other callers -20 M". A new string.
 */
static char *via_text(const struct located *loc, const char *metric, bool from)
{
	double through = loc->via_share * loc->via_base;
	char *d, *rest, *s;

	if (!past_whole(loc->via_share, 1))
		return from ? xasprintf("%.0f%% called from %s", 100 * loc->via_share, loc->via)
			    : xasprintf("come %.0f%% from calls by %s", 100 * loc->via_share, loc->via);
	d = count_text(through);
	rest = count_text(loc->via_base - through);
	s = from ? xasprintf("%s %s called from %s, more than its whole change: other callers %s", d, metric,
			     loc->via, rest)
		 : xasprintf("come from calls by %s (%s %s, more than its whole change: other callers %s)", loc->via,
			     d, metric, rest);
	free(d);
	free(rest);
	return s;
}

/*
 * A place's part of the difference `total` in `metric`, for its parentheses: its share, "62%", where it
 * is one (at most 100%, as rounded). A place can hold more than the whole difference where code elsewhere
 * moved the other way (a function inlined away from the other build left its callers' code behind; a
 * library call got cheaper): "118%" would read as if the shares were parts of a whole, so it gets its
 * count and the rest of the program's instead: "+1.2 M instructions, more than the whole difference:
 * other code -1 M". True of any place, as its count is a part of the program's: a function's own, its
 * count with callees, an "(inlined)" row's (part of its host's), a region's. Said once per cause
 * (*said): the places after the first past the whole have their count alone, "+960 k instructions",
 * where three in a row each repeated the sentence. A new string.
 */
static char *share_text(double delta, double total, const char *metric, bool *said)
{
	char *d, *rest, *s;

	if (!past_whole(delta, total))
		return xasprintf("%.0f%%", 100 * delta / total);
	d = count_text(delta);
	if (*said) {
		s = xasprintf("%s %s", d, metric);
		free(d);
		return s;
	}
	*said = true;
	rest = count_text(total - delta);
	s = xasprintf("%s %s, more than the whole difference: other code %s", d, metric, rest);
	free(d);
	free(rest);
	return s;
}

/*
 * Whether a function row has a name that asm-diff can find in a binary: not the bucket of code without
 * symbols ("[unknown] prog+0x1139": a stripped build, whose addresses another build does not share).
 */
static bool named(const char *row)
{
	return strncmp(row, "[unknown]", 9) != 0;
}

/* Whether list `l` has the row of code inlined from the function fn[0..len): "FN (inlined)". */
static bool has_inlined_row(const struct ws_group_list *l, const char *fn, size_t len)
{
	char *row = xasprintf("%.*s (inlined)", (int)len, fn);
	bool has = ws_group_list_find(l, row) != NULL;

	free(row);
	return has;
}

/*
 * The one row in `l` of the function fn[0..len) called out of line: of that name, or a clone's ("FN [clone
 * .constprop.0]", a C clone's "fn.constprop.0": ws_sym_clone_row()), whose inlined code DWARF names by the
 * function; split-off cold parts aside. NULL where none is, or several are: which clone moved is not known,
 * and the pairing (pair.h) leaves such rows apart too.
 */
static const struct ws_group *own_row(const struct ws_group_list *l, const char *fn, size_t len)
{
	const struct ws_group *found = NULL;

	for (size_t i = 0; i < l->n; i++) {
		const struct ws_group *g = &l->v[i];
		size_t n;

		if (g->inlined || strncmp(g->name, fn, len) || (g->nsymbols && strstr(g->symbols[0], ".cold")))
			continue;
		ws_sym_clone_row(g->name, &n);
		if (n != len)
			continue;
		if (found)
			return NULL;
		found = g;
	}
	return found;
}

/*
 * A function `g` that one build inlines and the other calls (its own row on one side only, its "(inlined)"
 * row on the other only): its own delta counts code that only moved out of (or into) its callers. With
 * the callers known, the place is the caller that calls it most where it is called, by that caller's
 * inclusive count, which holds the code on both sides: the delta is what the inlining change cost.
 * Returns MOVED_HOST with *p filled so; MOVED_OWN for such a function whose callers do not say (no
 * --callers, or a sampled profile's shares), whose own row then stands as any row does, said to be a move;
 * MOVED_NOT for any other function.
 */
enum moved { MOVED_NOT, MOVED_OWN, MOVED_HOST };

static enum moved moved_place(const struct ws_group_list *bl, const struct ws_group_list *vl,
			      const struct ws_group *g, bool out_of_line, const char *metric, struct place *p)
{
	const struct ws_group_list *called = out_of_line ? vl : bl, *other = out_of_line ? bl : vl;
	const struct ws_group *host = NULL, *hb, *hv;
	double best = 0, d;
	size_t len;

	/* A clone's row ("step(long) [clone .constprop.0]") is its function's, whose inlined row has no note. */
	ws_sym_clone_row(g->name, &len);
	if (g->inlined || !has_inlined_row(other, g->name, len) || has_inlined_row(called, g->name, len) ||
	    own_row(called, g->name, len) != g || own_row(other, g->name, len))
		return MOVED_NOT;
	for (size_t i = 0; i < g->callers.n; i++) {
		double x = median_of(&g->callers.v[i].metrics, metric);

		if (isfinite(x) && x > best) {
			best = x;
			host = &g->callers.v[i];
		}
	}
	hb = host ? ws_group_list_find(bl, host->name) : NULL;
	hv = host ? ws_group_list_find(vl, host->name) : NULL;
	if (!hb || !hv || !ws_metric_set_find(&hb->inclusive, metric) || !ws_metric_set_find(&hv->inclusive, metric))
		return MOVED_OWN;
	d = median_of(&hv->inclusive, metric) - median_of(&hb->inclusive, metric);
	if (!isfinite(d))
		return MOVED_OWN;
	p->moved = g->name;
	p->moved_len = len;
	p->out_of_line = out_of_line;
	p->name = hv->name;
	p->object = hv->object;
	p->delta = d;
	return MOVED_HOST;
}

/*
 * Where a metric's delta concentrates: first the functions with the largest delta in the direction of
 * the total (at least 5% of it each, three at most), then one region: the innermost one holding most of
 * the delta (regions count inclusively, so the outermost always holds it all and says little).
 * Functions with only a sampled share are placed by their share of the cycle delta. When the largest is
 * not the program's own code (a library's), its entry goes on up its callers to the program's code:
 * "memcpy (97%): +140 M instructions, 92% called from r1cs_lc_add (from r1cs_apply)".
 */
static void localise(const struct ws_variant *b, const struct ws_variant *v, const char *metric, double total,
		     const char *cyc_metric, struct ws_own *own, struct ws_cause *cause, struct located *loc)
{
	struct place *fns = NULL, *regs = NULL;
	size_t nf = 0, nr = 0, af = 0, ar = 0;
	/* The hosts of moved functions (below), whichever way their counts with callees went. */
	const char **hosts = NULL;
	size_t nh = 0, ah = 0;
	double bcyc = median_of(&b->metrics, cyc_metric), vcyc = median_of(&v->metrics, cyc_metric);
	const struct place *region = NULL;
	bool said_whole = false; /* share_text's "more than the whole difference", once per cause */

	memset(loc, 0, sizeof(*loc));
	cause->where = xcalloc(5, sizeof(char *));
	if (total == 0 || !isfinite(total))
		return;
	for (int kind = 0; kind < 2; kind++) {
		const struct ws_group_list *bl = kind ? &b->functions : &b->regions;
		const struct ws_group_list *vl = kind ? &v->functions : &v->regions;

		/*
		 * The variant's groups, then the baseline's that the variant does not have: code that went away
		 * (a function inlined, a template no longer instantiated) can hold most of a drop.
		 */
		for (size_t i = 0; i < vl->n + bl->n; i++) {
			const struct ws_group *vg = i < vl->n ? &vl->v[i] : NULL;
			const struct ws_group *bg = vg ? ws_group_list_find(bl, vg->name) : &bl->v[i - vl->n];
			const struct ws_group *g = vg ? vg : bg;
			double bv, vv;
			struct place *p;
			enum moved moved;
			double d;

			if (!vg && ws_group_list_find(vl, bg->name))
				continue;
			moved = MOVED_NOT;
			if (kind && !(vg && bg) && g->inlined) {
				/*
				 * The other half of a moved function (below), which its caller's place stands for
				 * where the callers say; else this half is a row as any other.
				 */
				size_t len = strlen(g->name) - strlen(" (inlined)");
				const struct ws_group *own_g = own_row(vg ? bl : vl, g->name, len);
				struct place mp = { 0 };

				if (own_g && !ws_group_list_find(vg ? vl : bl, own_g->name) &&
				    moved_place(bl, vl, own_g, vg == NULL, metric, &mp) == MOVED_HOST)
					continue;
			}
			if (kind && !(vg && bg)) {
				struct place mp = { 0 };

				moved = moved_place(bl, vl, g, vg != NULL, metric, &mp);
				if (moved == MOVED_HOST) {
					WS_ALLOC_GROW(hosts, nh + 1, ah);
					hosts[nh++] = mp.name;
					if (mp.delta != 0 && (mp.delta > 0) == (total > 0)) {
						WS_ALLOC_GROW(fns, nf + 1, af);
						fns[nf++] = mp;
					}
					continue;
				}
			}
			bv = bg ? median_of(&bg->metrics, metric) : 0;
			vv = vg ? median_of(&vg->metrics, metric) : 0;
			if (!isfinite(vg ? vv : bv) && kind && !strcmp(metric, cyc_metric) &&
			    ws_metric_set_find(&g->metrics, "share")) {
				/*
				 * A sampled profile: the function's cycles are its share of the total. Only cycles
				 * can be placed so: a share says nothing of where misses happened.
				 */
				double bs = bg ? median_of(&bg->metrics, "share") : 0;
				double vs = vg ? median_of(&vg->metrics, "share") : 0;

				vv = (isfinite(vs) ? vs : 0) * vcyc;
				bv = (isfinite(bs) ? bs : 0) * bcyc;
			}
			d = vv - (isfinite(bv) ? bv : 0);
			if (!isfinite(d) || d == 0 || (d > 0) != (total > 0))
				continue;
			if (kind) {
				WS_ALLOC_GROW(fns, nf + 1, af);
				p = &fns[nf++];
			} else {
				WS_ALLOC_GROW(regs, nr + 1, ar);
				p = &regs[nr++];
			}
			p->name = g->name;
			p->object = g->object;
			p->inlined = g->inlined;
			/* A moved function whose callers do not say: its own row, said to be a move. */
			p->moved = moved == MOVED_OWN ? g->name : NULL;
			p->moved_len = p->moved ? strlen(p->moved) : 0;
			p->out_of_line = vg != NULL;
			p->delta = d;
			p->size = fabs(vg ? vv : bv);
		}
	}
	/*
	 * A moved function's host stands by its count with callees, said to be a move, not by its own row: that
	 * holds the moved code too, gained (or lost) with the inlining, as the moved function's own row is all
	 * new (or gone). Named by its own row, the host took the place of the move sentence where its own delta
	 * was the larger (run (600%) for run with its callees (100%): step is inlined in b), and where its
	 * count with callees went the other way it was named for code that only moved into it.
	 */
	{
		size_t k = 0;

		for (size_t j = 0; j < nf; j++) {
			bool host = false;

			for (size_t i = 0; i < nh && !fns[j].moved && !fns[j].inlined; i++)
				host |= !strcmp(fns[j].name, hosts[i]);
			if (!host)
				fns[k++] = fns[j];
		}
		nf = k;
	}
	free(hosts);
	if (nf)
		qsort(fns, nf, sizeof(*fns), place_cmp);
	/* A function is named where it holds a part of the delta worth reading; else "the hot code". */
	if (nf && fabs(fns[0].delta / total) >= 0.05) {
		loc->fn = fns[0].name;
		loc->fn_object = fns[0].object;
		if (!ws_own_object(own, fns[0].object))
			follow_callers(b, v, fns[0].name, metric, cyc_metric, bcyc, vcyc, own, loc);
	}
	for (size_t i = 0; i < nf; i++) {
		bool dup = false;

		/*
		 * Two functions moved into (or out of) one host: the host is named once, for the first. And an
		 * "(inlined)" row is code of a function already named, where their deltas agree (within 1%): a
		 * chain of them (LZ4_compress_fast_extState, LZ4_compress_generic_validated (inlined),
		 * LZ4_compress_generic (inlined), each 118%) reads as three places, and as if the shares added up.
		 */
		for (size_t j = 0; j < i; j++)
			dup |= !strcmp(fns[j].name, fns[i].name) ||
			       (fns[i].inlined && fabs(fns[j].delta / total) >= 0.05 &&
				fabs(fns[i].delta - fns[j].delta) <= 0.01 * fabs(fns[j].delta));
		if (dup)
			continue;
		if (cause->nwhere < 3 && fabs(fns[i].delta / total) >= 0.05) {
			char *sh = share_text(fns[i].delta, total, metric, &said_whole);

			if (fns[i].moved && strcmp(fns[i].moved, fns[i].name)) {
				cause->where[cause->nwhere++] = xasprintf(
					"%s with its callees (%s): %.*s is inlined in %s, called in %s", fns[i].name, sh,
					(int)fns[i].moved_len, fns[i].moved, fns[i].out_of_line ? b->name : v->name,
					fns[i].out_of_line ? v->name : b->name);
			} else if (fns[i].moved) {
				cause->where[cause->nwhere++] = xasprintf("%s (%s): inlined in %s, called in %s",
									  fns[i].name, sh,
									  fns[i].out_of_line ? b->name : v->name,
									  fns[i].out_of_line ? v->name : b->name);
			} else if (i == 0 && loc->via) {
				char *d = count_text(fns[i].delta), *up, *count, *via;

				if (loc->through && loc->via_from)
					up = xasprintf(" (through %s; from %s)", loc->through, loc->via_from);
				else if (loc->through || loc->via_from)
					up = xasprintf(" (%s %s)", loc->through ? "through" : "from",
						       loc->through ? loc->through : loc->via_from);
				else
					up = xstrdup("");
				/* Past the whole difference, the parentheses say the count already. */
				count = past_whole(fns[i].delta, total) ? xasprintf(" (%s)", sh)
									: xasprintf(" (%s): %s %s", sh, d, metric);
				via = via_text(loc, metric, true);
				cause->where[cause->nwhere++] = xasprintf("%s%s, %s%s", fns[i].name, count, via, up);
				free(via);
				free(count);
				free(d);
				free(up);
			} else {
				cause->where[cause->nwhere++] = xasprintf("%s (%s)", fns[i].name, sh);
			}
			free(sh);
		}
		/* A function of the program's own, that asm-diff can show: not an "(inlined)" row. */
		/* A PLT stub (memcmp@plt) is the program's object, but one jump: no code of its own to compare. */
		if (!loc->own_fn && !fns[i].inlined && ws_own_object(own, fns[i].object) && !ws_sym_plt_callee(fns[i].name) &&
		    named(fns[i].name))
			loc->own_fn = fns[i].name;
	}
	for (size_t i = 0; i < nr; i++) {
		double sh = regs[i].delta / total;

		if (sh >= 0.5 && (!region || region->delta / total < 0.5 || regs[i].size < region->size))
			region = &regs[i];
		else if (!region && sh >= 0.05)
			region = &regs[i];
		else if (region && region->delta / total < 0.5 && sh > region->delta / total)
			region = &regs[i];
	}
	if (region) {
		char *sh = share_text(region->delta, total, metric, &said_whole);

		cause->where[cause->nwhere++] = xasprintf("region %s (%s)", region->name, sh);
		free(sh);
	}
	free(fns);
	free(regs);
}

/* Whether any of v's functions has its callers recorded (--callers). */
static bool has_callers(const struct ws_variant *v)
{
	for (size_t i = 0; i < v->functions.n; i++)
		if (v->functions.v[i].callers.n)
			return true;
	return false;
}

/*
 * What to look at next for cause `c`. `hint` (or NULL) names an option that would tell more; it goes before
 * an asm-diff command, which stays last so that the line ends with what to run.
 */
static char *next_step(const struct ws_cause *c, const struct located *loc, const char *bin_a, const char *bin_b,
		       struct ws_own *own, bool grew, const char *hint)
{
	const char *where = loc->fn ? loc->fn : "the hot code";
	bool library = loc->fn && loc->fn_object && !ws_own_object(own, loc->fn_object);
	const char *lib = library && strrchr(loc->fn_object, '/') ? strrchr(loc->fn_object, '/') + 1 : loc->fn_object;
	/* "[unknown] liblzma.so.5" names its object already. */
	const char *in_lib = library && strncmp(loc->fn, "[unknown] ", 10) ? lib : NULL;
	/* The program's function to read: where a library function's extra work comes from, else the hottest own. */
	const char *target = loc->via ? loc->via : loc->own_fn;
	bool two_builds = target && named(target) && bin_a && bin_b && !same_file(bin_a, bin_b);
	/* Quoted for a shell: demangled names hold spaces, parentheses, '<', '*' and '&'. */
	char *cmd = two_builds ? ws_asm_command(bin_a, bin_b, target, NULL) : NULL;
	char *s, *asm_cmd = cmd ? xasprintf("compare %s's code between the builds: %s", target, cmd) : NULL;
	char *h = hint ? xasprintf("; %s", hint) : xstrdup("");
	bool placed = false;

	if (library && loc->via) {
		/* Whatever the event, the question is the same: what makes the program call it more (or less). */
		const char *what = !strcmp(c->metric, "unexplained") ? "cycles" : c->metric;
		char *via = via_text(loc, what, false);

		s = xasprintf("%s %s in %s%s%s%s %s%s%s: look at what it passes or how often it calls%s%s%s",
			      grew ? "the extra" : "the fewer", what, loc->fn, in_lib ? " (" : "", in_lib ? in_lib : "",
			      in_lib ? ")" : "", via, loc->via_from ? ", called from " : "",
			      loc->via_from ? loc->via_from : "", h, asm_cmd ? "; " : "", asm_cmd ? asm_cmd : "");
		free(via);
		placed = true;
	} else if (!strcmp(c->metric, "instructions")) {
		if (library)
			s = xasprintf("%s instructions run in %s%s%s%s: find which of the program's functions call it %s "
				      "(larger copies? more allocations?)%s%s%s",
				      grew ? "extra" : "fewer", loc->fn, in_lib ? " (" : "", in_lib ? in_lib : "",
				      in_lib ? ")" : "", grew ? "more" : "less", h, asm_cmd ? "; then " : "",
				      asm_cmd ? asm_cmd : "");
		else if (asm_cmd)
			s = xasprintf("%s instructions are concentrated in %s%s: %s", grew ? "extra" : "fewer", where, h,
				      asm_cmd);
		else if (grew)
			s = xasprintf("extra instructions are concentrated in %s: look at what it executes more often "
				      "(a new branch, a copy, a check on every access) and compare its code between "
				      "the variants",
				      where);
		else
			s = xasprintf("fewer instructions are concentrated in %s: look at what it no longer executes "
				      "or executes less often (a check dropped, a copy avoided, a shorter path) and "
				      "compare its code between the variants",
				      where);
		placed = asm_cmd || library;
	} else if (strstr(c->metric, "branch")) {
		/* A speed-up's advice says what changed for the better, which is what the user wants to keep. */
		s = grew ? xasprintf("mispredictions grew in %s: look for a data-dependent branch (a new check per "
				     "access, an inline-or-heap test) and make it predictable or branchless", where)
			 : xasprintf("mispredictions fell in %s: a data-dependent branch became predictable or went "
				     "away; compare its code between the variants", where);
	} else if (!strcmp(c->metric, "L1-dcache-load-misses")) {
		s = grew ? xasprintf("L1d misses grew in %s: check the size of the values it moves or keeps hot (a "
				     "larger struct pushes other data out of L1)", where)
			 : xasprintf("L1d misses fell in %s: the data it keeps hot got smaller or closer together "
				     "(smaller values, a better layout, fewer copies)", where);
	} else if (strstr(c->metric, "icache")) {
		s = grew ? xasprintf("instruction-cache misses grew in %s: the hot code grew or spread over more "
				     "functions (inlining, duplicated templates): compare code sizes", where)
			 : xasprintf("instruction-cache misses fell in %s: the hot code shrank or gathered into fewer "
				     "functions: compare code sizes", where);
	} else if (strstr(c->metric, "L2") || strstr(c->metric, "LLC")) {
		s = xasprintf("the working set of %s %s the %s: check the data it touches per iteration and its "
			      "layout",
			      where, grew ? "outgrew" : "now fits", strstr(c->metric, "L2") ? "L2" : "last-level cache");
	} else if (!strcmp(c->metric, "unexplained")) {
		s = xstrdup("part of the cycle delta is not accounted for by the counted events: stalls the model "
			    "does not see (dependency chains, ports, TLB, memory ordering); on real hardware, "
			    "count top-down events to split it");
	} else {
		s = xasprintf("%s changed in %s", c->metric, where);
	}
	if (!placed && hint) {
		char *t = xasprintf("%s%s", s, h);

		free(s);
		s = t;
	}
	free(h);
	free(asm_cmd);
	free(cmd);
	return s;
}

/*
 * The headline comparison: the primary metric's (the one tested first, at the full alpha: what the verdict
 * is about), else wall time, else cycles, else CPU time, else instructions.
 */
static const struct ws_comparison *headline(const struct ws_result *r, const struct ws_variant *v,
					    const char *cyc_metric)
{
	const char *order[] = { r->settings.primary, "wall-time", cyc_metric, "task-clock", "instructions" };

	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		const struct ws_comparison *c = order[i] ? ws_comparison_find(r, v->name, order[i], NULL, NULL) : NULL;

		if (c && isfinite(c->ratio))
			return c;
	}
	return NULL;
}

/* The cycles to decompose: measured cycles first; else the simulator's estimate; NULL without either. */
static const char *cycle_metric(const struct ws_variant *b, const struct ws_variant *v)
{
	if (isfinite(median_of(&b->metrics, "cycles")) && isfinite(median_of(&v->metrics, "cycles")))
		return "cycles";
	if (isfinite(median_of(&b->metrics, "estimated-cycles")) && isfinite(median_of(&v->metrics, "estimated-cycles")))
		return "estimated-cycles";
	return NULL;
}

const struct ws_comparison *ws_explain_headline(const struct ws_result *r, const char *variant)
{
	const struct ws_variant *b = ws_result_baseline((struct ws_result *)r);
	const struct ws_variant *v = ws_result_find_variant((struct ws_result *)r, variant);

	return b && v ? headline(r, v, cycle_metric(b, v)) : NULL;
}

/*
 * |pct| for "slower by ...%": one decimal, but as many as a small exact difference needs to show (a
 * deterministic +0.013% read "slower by 0.0%"), at most four. A new string.
 */
static char *pct_text(double pct)
{
	double a = fabs(pct);
	int digits = 1;

	if (a > 0 && a < 0.00005)
		return xstrdup("less than 0.0001");
	while (digits < 4 && a > 0 && a < 0.95 * pow(10, -digits))
		digits++;
	return xasprintf("%.*f", digits, a);
}

/* pct_text with its sign: "+0.013", "-2.5", or "less than 0.0001" where it has no digits to sign. */
static char *signed_pct_text(double pct)
{
	char *by = pct_text(pct), *s;

	if (!isdigit((unsigned char)by[0]))
		return by;
	s = xasprintf("%s%s", pct < 0 ? "-" : "+", by);
	free(by);
	return s;
}

/*
 * What the variant is, as the rest of "'NAME' is ...": a phrase for every verdict, so that the summary
 * reads as a sentence whatever the verdict and the backend (unit-explain reads them all).
 */
/* Past this many runs per program, more runs are no practical advice. */
#define WS_RUNS_PRACTICAL 10000

/*
 * A variant's secondaries are gatekept as closed both when its primary was tested and did not differ, and
 * when its primary has no test at all (not measured for it, or too few runs): the primary's name in the
 * second case, so that the why line does not claim a test that never ran; NULL in the first.
 */
static const char *primary_untested(const struct ws_result *r, const struct ws_variant *v)
{
	const char *primary = r->settings.primary ? r->settings.primary : "wall-time";
	const struct ws_comparison *p = ws_comparison_find(r, v->name, primary, NULL, NULL);

	return !p || p->verdict == WS_VERDICT_NONE ? primary : NULL;
}

static char *verdict_text(const struct ws_comparison *h, size_t runs, double noise, const char *untested)
{
	double pct;

	if (!h)
		return xstrdup("not compared in any time, cycle or instruction metric");
	if (h->verdict == WS_VERDICT_NONE)
		return xasprintf("not compared in %s: too few runs to test (-r: 4 per program at least for a "
				 "difference to be significant)", h->metric);
	pct = 100 * (h->ratio - 1);
	if (exact_inside_noise(h, noise)) {
		char *by = signed_pct_text(pct), *s;

		s = xasprintf("the same within the noise threshold: %s%% in %s (exact), inside ±%g%%", by, h->metric,
			      100 * noise);
		free(by);
		return s;
	}
	if (h->verdict == WS_VERDICT_SLOWER || h->verdict == WS_VERDICT_FASTER || h->verdict == WS_VERDICT_CHANGED) {
		if (h->exact) {
			char *by = pct_text(pct), *s;

			s = xasprintf("%s by %s%% in %s (exact%s)", h->ratio > 1 ? "slower" : "faster", by, h->metric,
				      h->layout_sensitive ? ", but layout-sensitive: less than the spread across "
							    "environment sizes" : "");
			free(by);
			return s;
		}
		return xasprintf("%s by %.1f%% [%+.1f, %+.1f] in %s", h->ratio > 1 ? "slower" : "faster", fabs(pct),
				 100 * (h->ci_lo - 1), 100 * (h->ci_hi - 1), h->metric);
	}
	/*
	 * Significant, the CI reaching into the noise band. Where the estimate itself is inside the band that is
	 * "the same within it"; where it is well past it (+5.6% [+0.8, +10.3] against 1%), calling it the same
	 * would hide a likely slowdown.
	 */
	if (h->verdict == WS_VERDICT_NOISE && !(noise > 0 && fabs(pct) > 100 * noise))
		return xasprintf("the same within the noise threshold (%+.1f%% [%+.1f, %+.1f] in %s)", pct,
				 100 * (h->ci_lo - 1), 100 * (h->ci_hi - 1), h->metric);
	if (h->verdict == WS_VERDICT_NOISE)
		return xasprintf("probably %s by %.1f%% [%+.1f, %+.1f] in %s: significant, but the CI reaches into the "
				 "noise band (±%g%%)",
				 h->ratio > 1 ? "slower" : "faster", fabs(pct), 100 * (h->ci_lo - 1), 100 * (h->ci_hi - 1),
				 h->metric, 100 * noise);
	if (h->exact)
		return xasprintf("unchanged in %s (exact)", h->metric);
	if (h->gate_closed && untested)
		return xasprintf("not tested in %s: its primary metric %s was not compared (not measured for it, or "
				 "too few runs)", h->metric, untested);
	if (h->gate_closed)
		return xasprintf("not tested in %s: its primary metric does not differ significantly", h->metric);
	/*
	 * Not significant, and the whole CI inside the noise band: any difference is smaller than the threshold.
	 * That is an answer (--runs auto stops on it), not a call for more runs.
	 */
	if (noise > 0 && ws_ci_inside_band(h->ci_lo, h->ci_hi, noise))
		return xasprintf("the same within the noise threshold: %+.1f%% [%+.1f, %+.1f] in %s, all of it "
				 "inside ±%g%%", pct, 100 * (h->ci_lo - 1), 100 * (h->ci_hi - 1), h->metric, 100 * noise);
	/*
	 * The interval shown is the test's own, at 1 - alpha; the verdict is after the correction over the report's
	 * tests. An interval clear of 1 is then not a call for "about 11 runs" when 10 ran.
	 */
	if (isfinite(h->ci_lo) && isfinite(h->ci_hi) && (h->ci_lo > 1 || h->ci_hi < 1))
		return xasprintf("inconclusive: %+.1f%% [%+.1f, %+.1f] in %s is significant by its own test, not after "
				 "the correction for the report's other tests (adjusted p %.2g); more runs per program "
				 "could tell",
				 pct, 100 * (h->ci_lo - 1), 100 * (h->ci_hi - 1), h->metric, h->p_adjusted);
	if (isfinite(h->ci_lo) && isfinite(h->ci_hi) && runs) {
		/*
		 * What more runs could settle: a CI clear of the noise band (a difference this size), or, for an
		 * estimate inside the band, a CI inside it (the same within it). The half-width shrinks as
		 * 1/sqrt(n); it must shrink to the estimate's distance from the band's edge, and by (1.96 + 0.84)
		 * / 1.96 more for the CI to end there 4 times in 5 were the estimate the truth (80% power),
		 * rather than half the time.
		 */
		double half = 50 * (h->ci_hi - h->ci_lo), band = 100 * noise, gap = fabs(fabs(pct) - band);
		double need = gap > 0 ? (double)runs * pow(half / gap, 2) * pow((1.96 + 0.84) / 1.96, 2) : INFINITY;
		const char *what = fabs(pct) > band ? "tell a difference this size"
						    : "tell whether it is within the noise threshold";

		if (need > WS_RUNS_PRACTICAL)
			return xasprintf("inconclusive: %+.1f%% [%+.1f, %+.1f] in %s is not significant; no practical "
					 "number of runs could %s (over %d per program)",
					 pct, 100 * (h->ci_lo - 1), 100 * (h->ci_hi - 1), h->metric, what, WS_RUNS_PRACTICAL);
		return xasprintf("inconclusive: %+.1f%% [%+.1f, %+.1f] in %s is not significant; about %.0f runs "
				 "per program would likely %s",
				 pct, 100 * (h->ci_lo - 1), 100 * (h->ci_hi - 1), h->metric,
				 ceil(need > runs ? need : runs + 1), what);
	}
	return xasprintf("not significantly different in %s", h->metric);
}

/* The median of `metric` in the variant over the baseline's, less 1; NAN where either is missing or 0. */
static double rel_of(const struct ws_variant *b, const struct ws_variant *v, const char *metric)
{
	double x = median_of(&b->metrics, metric), y = median_of(&v->metrics, metric);

	return isfinite(x) && isfinite(y) && x != 0 ? y / x - 1 : NAN;
}

static bool is_simulated(const struct ws_variant *b, const char *metric)
{
	const struct ws_metric *m = ws_metric_set_find(&b->metrics, metric);

	return m && (m->flags & WS_M_SIMULATED);
}

/* A native time, the kind of difference a cycle estimate stands for. */
static bool is_time(const char *metric)
{
	return !strcmp(metric, "wall-time") || !strcmp(metric, "task-clock") || !strcmp(metric, "user-time");
}

/* CPUs busy on average: CPU time (task-clock, ns) over elapsed time (wall-time, s). */
static double busy_cpus(const struct ws_variant *x)
{
	double tc = median_of(&x->metrics, "task-clock"), wall = median_of(&x->metrics, "wall-time");

	return isfinite(tc) && isfinite(wall) && wall > 0 ? tc / (wall * 1e9) : NAN;
}

static void add_outside(struct ws_explanation *e, const char *cause, char *evidence)
{
	e->outside = xrealloc(e->outside, (e->noutside + 1) * sizeof(*e->outside));
	e->outside[e->noutside].cause = xstrdup(cause);
	e->outside[e->noutside].evidence = evidence;
	e->noutside++;
}

/* Kernel work is listed where system time grew by at least this part of the wall-time difference. */
#define KERNEL_PART 0.2

/*
 * What the cache and branch model cannot see, with the native evidence for each: time off the CPU
 * (waiting), CPUs no longer busy (parallelism), the kernel's work (system time: page faults and system
 * calls, which the simulator, running user code only, never sees), CPU time the simulator does not charge
 * (coherence traffic between cores where threads run, else bandwidth or frequency), and the machine itself
 * (its noise and outlier warnings). Only candidates whose evidence is there are listed; the order is the
 * order of how directly the evidence points at them.
 */
static void outside_the_model(const struct ws_result *r, const struct ws_variant *b, const struct ws_variant *v,
			      struct ws_explanation *e)
{
	const struct ws_comparison *wc = ws_comparison_find(r, v->name, "wall-time", NULL, NULL);
	const struct ws_comparison *tcc = ws_comparison_find(r, v->name, "task-clock", NULL, NULL);
	const struct ws_comparison *csc = ws_comparison_find(r, v->name, "context-switches", NULL, NULL);
	const struct ws_comparison *coh = ws_comparison_find(r, v->name, "coherence-misses", NULL, NULL);
	double wall = rel_of(b, v, "wall-time"), tc = rel_of(b, v, "task-clock");
	double pb = busy_cpus(b), pv = busy_cpus(v);
	double wb = median_of(&b->metrics, "wall-time"), wv = median_of(&v->metrics, "wall-time");
	double sb = median_of(&b->metrics, "system-time"), sv = median_of(&v->metrics, "system-time");
	bool wall_moved = significant(wc) && isfinite(wall);
	/*
	 * CPU time that moved with the wall time, by at least half as much, says the time was spent on the
	 * CPU, not off it, even where its own test cannot be significant: at 5 runs, a secondary metric's
	 * smallest p is above what Holm asks of it, and task-clock +47% beside wall-time +44% was said to be
	 * waiting. Such evidence is listed with that said.
	 */
	bool tc_along = isfinite(tc) && isfinite(wall) && tc * wall > 0 && fabs(tc) >= 0.5 * fabs(wall);
	bool tc_moved = tc_along && tcc && tcc->verdict != WS_VERDICT_NONE;
	bool threads = (isfinite(pb) && pb > 1.1) || (isfinite(pv) && pv > 1.1);

	if (wall_moved && !tc_along && isfinite(tc)) {
		char *cs = NULL;

		if (significant(csc))
			cs = xasprintf("; context-switches %.0f -> %.0f per run", median_of(&b->metrics, "context-switches"),
				       median_of(&v->metrics, "context-switches"));
		add_outside(e, "waiting",
			    xasprintf("wall-time %+.0f%% but task-clock %+.0f%%: the difference is time off the CPU "
				      "(sleep, locks, I/O)%s",
				      100 * wall, 100 * tc, cs ? cs : ""));
		free(cs);
	} else if (wall_moved && significant(csc) && rel_of(b, v, "context-switches") * wall > 0) {
		add_outside(e, "waiting", xasprintf("context-switches %+.0f%% with wall-time %+.0f%%",
						    100 * rel_of(b, v, "context-switches"), 100 * wall));
	}
	if (isfinite(pb) && isfinite(pv) && (pb > 1.1 || pv > 1.1) && fabs(pv / pb - 1) >= 0.1)
		add_outside(e, "parallelism",
			    xasprintf("CPUs busy (task-clock over wall-time) %.2f -> %.2f", pb, pv));
	if (wall_moved && isfinite(sb) && isfinite(sv) && isfinite(wb) && isfinite(wv) && wv != wb &&
	    (sv - sb) / (wv - wb) >= KERNEL_PART) {
		double fb = median_of(&b->metrics, "page-faults"), fv = median_of(&v->metrics, "page-faults");
		char *pf = isfinite(fb) && isfinite(fv) && fb != fv
				   ? xasprintf(", page-faults %.0f -> %.0f per run", fb, fv)
				   : xstrdup("");

		add_outside(e, "kernel work",
			    xasprintf("system-time %.3g -> %.3g ms per run%s, with wall-time %.3g -> %.3g ms: the "
				      "kernel's work for the program (page faults, system calls) is not simulated",
				      1e3 * sb, 1e3 * sv, pf, 1e3 * wb, 1e3 * wv));
		free(pf);
	}
	if (tc_moved) {
		const char *own = "";
		char *coh_text = NULL;

		if (tcc->verdict == WS_VERDICT_NOISE)
			own = " (within the noise threshold by its own test)";
		else if (!significant(tcc))
			own = " (its own test not significant)";
		if (significant(coh))
			coh_text = xasprintf("; coherence-misses %.4g -> %.4g (simulated, per-thread cores)",
					     median_of(&b->metrics, "coherence-misses"),
					     median_of(&v->metrics, "coherence-misses"));
		add_outside(e, "unmodelled CPU work",
			    xasprintf("task-clock %+.0f%%%s: the extra time is spent on the CPU, in work the simulator "
				      "does not charge: %s%s",
				      100 * tc, own,
				      threads ? "with threads on several CPUs, coherence traffic (false or true sharing of "
						"cache lines) comes first, then memory bandwidth and frequency"
					      : "memory bandwidth, frequency, or instruction costs the preset does not time",
				      coh_text ? coh_text : ""));
		free(coh_text);
	}
	for (size_t i = 0; i < r->nwarnings; i++)
		if (strstr(r->warnings[i], "noisy machine") || strstr(r->warnings[i], "noisy runs") ||
		    strstr(r->warnings[i], "frequency") ||
		    strstr(r->warnings[i], "outlier")) {
			add_outside(e, "machine", xstrdup(r->warnings[i]));
			break;
		}
}

/*
 * The reach of the model: in a result with native and simulated runs, the share of the measured
 * difference (the headline, when measured natively and significant) that the simulated estimate
 * reproduces. NAN where it does not apply.
 */
static void model_reach(const struct ws_result *r, const struct ws_variant *b, const struct ws_variant *v,
			const struct ws_comparison *h, const char *cyc_metric, struct ws_explanation *e)
{
	double est = rel_of(b, v, cyc_metric);

	/* Only a time is a difference the cycle estimate can reproduce (a --primary may name a count). */
	if (!h || !significant(h) || is_simulated(b, h->metric) || !is_simulated(b, cyc_metric) ||
	    !isfinite(h->ratio) || h->ratio == 1 || !isfinite(est) ||
	    !is_time(h->metric))
		return;
	e->reach_metric = xstrdup(h->metric);
	e->measured_rel = h->ratio - 1;
	e->estimated_rel = est;
	e->reproduced = est / e->measured_rel;
	if (e->reproduced < WS_REACH)
		outside_the_model(r, b, v, e);
}

/* "the simulator reproduces ~3% of this slowdown (estimated-cycles +2.9%); outside its model: waiting (...)" */
static char *reach_text(const struct ws_explanation *e, const char *cyc_metric)
{
	char *out, *list = xstrdup("");

	for (size_t i = 0; i < e->noutside && i < 2; i++) {
		char *next = xasprintf("%s%s%s (%s)", list, i ? "; " : "", e->outside[i].cause, e->outside[i].evidence);

		free(list);
		list = next;
	}
	out = xasprintf("the simulator reproduces ~%.0f%% of this %s (%s %+.1f%%), so the cause lies outside its "
			"cache and branch model: %s",
			fmax(0, 100 * e->reproduced), e->measured_rel > 0 ? "slowdown" : "speed-up", cyc_metric,
			100 * e->estimated_rel,
			e->noutside ? list : "nothing measured natively points at one (look at frequency, memory "
					     "bandwidth, I/O)");
	free(list);
	return out;
}

static bool spans_overlap(int alo, int ahi, int blo, int bhi)
{
	return alo != WS_NO_SPAN && blo != WS_NO_SPAN && alo <= bhi && blo <= ahi;
}

/*
 * The simulator's hottest contended line, as a sentence: "false sharing on `shared` (bytes 0-7 written by
 * thread 2, bytes 8-15 written by thread 3) in w". The threads shown are the ones that bear the verdict out:
 * for true sharing two whose writes overlap, for a writer and its readers the writer and a thread reading
 * its bytes, otherwise the first two writers. NULL without a contention report.
 */
static char *contention_text(const struct ws_variant *v)
{
	const struct ws_contention *c = v->ncontention ? &v->contention[0] : NULL;
	const struct ws_contention_thread *a = NULL, *b = NULL;
	const char *what;
	char *who, *out;

	if (!c)
		return NULL;
	for (size_t i = 0; i < c->nthreads && !b; i++) {
		const struct ws_contention_thread *x = &c->threads[i];

		for (size_t j = 0; j < c->nthreads && !b; j++) {
			const struct ws_contention_thread *y = &c->threads[j];

			if (c->verdict == WS_SHARING_TRUE && j > i &&
			    spans_overlap(x->write_lo, x->write_hi, y->write_lo, y->write_hi))
				a = x, b = y;
			else if (c->verdict == WS_SHARING_ONE_WRITER && j != i &&
				 spans_overlap(x->write_lo, x->write_hi, y->read_lo, y->read_hi))
				a = x, b = y;
		}
	}
	if (c->verdict == WS_SHARING_ONE_WRITER && b) {
		char *s = ws_span_text(a->write_lo, a->write_hi);

		who = xasprintf(" (%s written by thread %u, read by thread %u)", s, a->thread, b->thread);
		free(s);
	} else if (b) {
		char *sa = ws_span_text(a->write_lo, a->write_hi), *sb = ws_span_text(b->write_lo, b->write_hi);

		who = xasprintf(" (%s written by thread %u, %s written by thread %u)", sa, a->thread, sb, b->thread);
		free(sa);
		free(sb);
	} else {
		char *list = xstrdup("");
		size_t shown = 0;

		for (size_t i = 0; i < c->nthreads && shown < 2; i++) {
			const struct ws_contention_thread *t = &c->threads[i];
			char *next, *s;

			if (t->write_lo == WS_NO_SPAN)
				continue;
			s = ws_span_text(t->write_lo, t->write_hi);
			next = xasprintf("%s%s%s written by thread %u", list, shown ? ", " : "", s, t->thread);
			free(s);
			free(list);
			list = next;
			shown++;
		}
		who = shown ? xasprintf(" (%s)", list) : xstrdup("");
		free(list);
	}
	switch (c->verdict) {
	case WS_SHARING_FALSE: what = "false sharing on "; break;
	case WS_SHARING_TRUE: what = "true sharing on "; break;
	case WS_SHARING_ONE_WRITER: what = "one writer and its readers on "; break;
	default: what = "contention on "; break;
	}
	out = xasprintf("%s%s%s%s%s%s%s", what, c->variable ? "`" : "",
			c->variable ? c->variable : c->address ? c->address : "a cache line", c->variable ? "`" : "", who,
			c->nfunctions ? " in " : "", c->nfunctions ? c->functions[0] : "");
	free(who);
	return out;
}

/*
 * Coherence misses the variant no longer has: the baseline's hottest contended line, "the baseline's false
 * sharing on `counters` (...) in work, gone here" (or "contended less here" where the variant still has a
 * contended line). NULL without the baseline's report.
 */
static char *gone_contention_text(const struct ws_variant *b, const struct ws_variant *v)
{
	char *what = contention_text(b), *out;

	if (!what)
		return NULL;
	out = xasprintf("the baseline's %s, %s here", what, v->ncontention ? "contended less" : "gone");
	free(what);
	return out;
}

/* What to do about it: the fix differs with the verdict. */
static char *contention_step(const struct ws_variant *v)
{
	char *what = contention_text(v), *out;
	const char *fix;

	if (!what)
		return NULL;
	switch (v->contention[0].verdict) {
	case WS_SHARING_FALSE:
		fix = "the threads write different bytes of one cache line: pad or align the fields so that each "
		      "thread's lie on a line of their own";
		break;
	case WS_SHARING_TRUE:
		fix = "the threads write the same bytes: give each thread its own copy and combine them at the end, "
		      "or write less often";
		break;
	case WS_SHARING_ONE_WRITER:
		fix = "one thread writes bytes that the others read: the data itself is shared, so padding does not "
		      "help; read it less often, or have the writer publish in batches";
		break;
	default:
		fix = "more threads or cores used the line than the simulator keeps apart, so it cannot tell false "
		      "from true sharing there";
		break;
	}
	out = xasprintf("%s: %s", what, fix);
	free(what);
	return out;
}

/* Largest share first; "unexplained" last whatever its size: it is what the model could not name. */
static int cause_cmp(const void *a, const void *b)
{
	const struct ws_cause *x = a, *y = b;
	int ux = !strcmp(x->metric, "unexplained"), uy = !strcmp(y->metric, "unexplained");

	if (ux != uy)
		return ux - uy;
	return (x->share < y->share) - (x->share > y->share);
}

static const char *bin_of(const struct ws_result *r, const struct ws_variant *v, const struct ws_explain_opts *o)
{
	return o->binaries ? o->binaries[v - r->variants] : NULL;
}

static void explain_variant(struct ws_result *r, const struct ws_variant *b, const struct ws_variant *v,
			    const struct ws_explain_opts *o)
{
	struct ws_explanation *e;
	const struct ws_comparison *h, *cc;
	const char *cyc_metric, *family = NULL, *untested;
	const struct ws_cost *costs = o->costs;
	size_t ncosts = o->ncosts, nt = 0;
	struct term t[16];
	double dcyc, mdiff, bmed[16], vmed[16], share[17], lo[17], hi[17];
	bool simulated = false, cc_sig;
	unsigned cyc_flags;
	struct ws_own *own;
	char *head;
	/* The name as the summaries quote it: once, where it holds shell quotes of its own (ws_quote_name). */
	char *qn = ws_quote_name(v->name);

	WS_ALLOC_GROW(r->explain, r->nexplain + 1, r->alloc_explain);
	e = &r->explain[r->nexplain++];
	memset(e, 0, sizeof(*e));
	e->variant = xstrdup(v->name);
	e->measured_rel = e->estimated_rel = e->reproduced = NAN;
	/* Where the PMU counted top-down, its level 1 says which part of the pipeline the cycles went to. */
	e->has_topdown = true;
	for (int k = 0; k < 4; k++) {
		e->topdown_base[k] = median_of(&b->metrics, ws_topdown_metrics[k]);
		e->topdown_var[k] = median_of(&v->metrics, ws_topdown_metrics[k]);
		if (!isfinite(e->topdown_base[k]) || !isfinite(e->topdown_var[k]))
			e->has_topdown = false;
	}

	/* Measured cycles with a CPU family's costs; else the simulator's estimate with the preset's own. */
	cyc_metric = cycle_metric(b, v);
	if (cyc_metric && !strcmp(cyc_metric, "cycles")) {
		if (!costs)
			costs = ws_cost_defaults(r->machine.cpu, &ncosts, &family);
	} else if (cyc_metric) {
		simulated = true;
		if (!costs) {
			costs = r->machine.costs;
			ncosts = r->machine.ncosts;
			family = "the simulator preset's latencies";
		}
	}
	h = headline(r, v, cyc_metric);
	untested = primary_untested(r, v);
	/* No headline because no test could run (one run each): say that, of the primary, not "not compared". */
	if (!h) {
		const struct ws_comparison *p = untested ? ws_comparison_find(r, v->name, untested, NULL, NULL) : NULL;

		head = verdict_text(p, runs_of(&b->metrics, "wall-time"), r->settings.noise, NULL);
	} else {
		head = verdict_text(h, runs_of(&b->metrics, h->metric), r->settings.noise, untested);
	}
	if (cyc_metric)
		model_reach(r, b, v, h, cyc_metric, e);
	if (!cyc_metric) {
		/*
		 * The simulator was in the plan but the session stopped first: say that, not to ask for it. Not
		 * "before the simulated runs": under --backend sim it is one of them that failed.
		 */
		if (r->partial && r->machine.backend && strstr(r->machine.backend, "sim"))
			e->summary = xasprintf("%s is %s; no cycle counts to explain it with (the session stopped "
					       "before its simulated runs were done: %s)",
					       qn, head, r->partial_reason ? r->partial_reason : "stopped early");
		/* The simulator ran, scoped to regions: what is missing is a region, not a backend. */
		else if (r->settings.sim_scope && r->machine.backend && strstr(r->machine.backend, "sim"))
			e->summary = xasprintf("%s is %s; no cycle counts to explain it with (--sim-scope %s "
					       "simulates only inside regions, and a program opened none: mark its "
					       "regions with include/whyslow.h, or drop --sim-scope)",
					       qn, head, r->settings.sim_scope);
		else
			e->summary = xasprintf("%s is %s; no cycle counts to explain it with (a PMU, or the "
					       "simulator: --backend auto)",
					       qn, head);
		free(head);
		free(qn);
		return;
	}
	cc = ws_comparison_find(r, v->name, cyc_metric, NULL, NULL);
	cc_sig = significant(cc) && !exact_inside_noise(cc, r->settings.noise);
	if (!cc_sig && e->reproduced < WS_REACH) {
		char *reach = reach_text(e, cyc_metric);

		e->summary = xasprintf("%s is %s; %s", qn, head, reach);
		free(reach);
		free(head);
		free(qn);
		return;
	}
	if (!cc_sig) {
		if (exact_inside_noise(cc, r->settings.noise)) {
			char *by = signed_pct_text(100 * (cc->ratio - 1));

			/* Said once: when the headline is the cycles themselves, the verdict has said it already. */
			if (h && !strcmp(h->metric, cyc_metric))
				e->summary = xasprintf("%s is %s: nothing to blame (--noise 0 decomposes any difference)",
						       qn, head);
			else
				e->summary = xasprintf("%s is %s; %s differs by %s%% (exact), inside the noise threshold: "
						       "nothing to blame (--noise 0 decomposes any difference)",
						       qn, head, cyc_metric, by);
			free(by);
			free(head);
			free(qn);
			return;
		}
		/*
		 * Significant, but too close to the noise band to be decomposed: more runs would tell. Else there
		 * is nothing to blame.
		 */
		bool past = cc && cc->verdict == WS_VERDICT_NOISE && r->settings.noise > 0 &&
			    fabs(cc->ratio - 1) > r->settings.noise;
		const char *none = past ? "not decomposed while its CI reaches into the noise band (more runs, -r)"
				        : "nothing to blame";

		/* Said once: when the headline is the cycles themselves, the verdict has said it already. */
		if (h && !strcmp(h->metric, cyc_metric))
			e->summary = xasprintf("%s is %s%s%s", qn, head, past ? "; " : ": ", none);
		else if (cc && cc->gate_closed && isfinite(cc->ratio) && untested)
			/* Gatekept as the primary had no test at all: not "does not differ", which never ran. */
			e->summary = xasprintf("%s is %s; %s %+.1f%% was not tested, as the primary metric %s was not "
					       "compared: --primary %s would test it",
					       qn, head, cyc_metric, 100 * (cc->ratio - 1), untested,
					       cyc_metric);
		else if (cc && cc->gate_closed && isfinite(cc->ratio))
			/* Gatekept, not found equal: say what it would take to test it. */
			e->summary = xasprintf("%s is %s; %s %+.1f%% was not tested, as the primary metric %s does "
					       "not differ significantly: more runs (-r) or --primary %s would test it",
					       qn, head, cyc_metric, 100 * (cc->ratio - 1),
					       h ? h->metric : "", cyc_metric);
		else if (past)
			e->summary = xasprintf("%s is %s; %s is %+.1f%%, %s", qn, head, cyc_metric,
					       100 * (cc->ratio - 1), none);
		else
			e->summary = xasprintf("%s is %s; %s does not differ significantly: nothing to blame",
					       qn, head, cyc_metric);
		free(head);
		free(qn);
		return;
	}
	dcyc = median_of(&v->metrics, cyc_metric) - median_of(&b->metrics, cyc_metric);
	cyc_flags = ws_metric_set_find(&b->metrics, cyc_metric)->flags;

	/* The terms: instructions at the base CPI, then each costed event. */
	for (size_t i = 0; i < ncosts && nt < 15; i++) {
		const struct ws_comparison *c = ws_comparison_find(r, v->name, costs[i].metric, NULL, NULL);
		const struct ws_metric *m = ws_metric_set_find(&b->metrics, costs[i].metric);

		/* A simulated count says nothing of measured cycles, and a measured one nothing of an estimate. */
		if (!m || ((m->flags ^ cyc_flags) & WS_M_SIMULATED))
			continue;
		t[nt + 1].metric = costs[i].metric;
		t[nt + 1].cost = costs[i].cycles;
		t[nt + 1].blamed = significant(c);
		nt++;
	}
	t[0].metric = "instructions";
	t[0].cost = base_cpi(median_of(&b->metrics, cyc_metric), median_of(&b->metrics, "instructions"), &b->metrics,
			     t + 1, nt, simulated);
	t[0].blamed = significant(ws_comparison_find(r, v->name, "instructions", NULL, NULL)) && isfinite(t[0].cost) &&
		      ws_metric_set_find(&b->metrics, "instructions") &&
		      !((ws_metric_set_find(&b->metrics, "instructions")->flags ^ cyc_flags) & WS_M_SIMULATED);
	nt++;
	for (size_t i = 0; i < nt; i++) {
		bmed[i] = median_of(&b->metrics, t[i].metric);
		vmed[i] = median_of(&v->metrics, t[i].metric);
	}
	if (!shares_from(bmed, vmed, nt, t, dcyc, share)) {
		/* Significant, yet no cycle delta between the medians: there is no share to give. */
		e->summary = xasprintf("%s is %s; the medians of %s are equal: nothing to blame", qn, head,
				       cyc_metric);
		free(head);
		free(qn);
		return;
	}
	{
		struct side sb = { &b->metrics, runs_of(&b->metrics, cyc_metric) };
		struct side sv = { &v->metrics, runs_of(&v->metrics, cyc_metric) };

		share_cis(&sb, &sv, cyc_metric, t, nt, o->seed ^ 0x5eedULL, o->resamples ? o->resamples : 1000, lo, hi);
	}
	e->causes = xcalloc(nt + 2, sizeof(*e->causes));
	/*
	 * The difference a cause must be material against: where the estimate stands in for a native
	 * measurement, the larger of the measured one (in the estimate's cycles, significant or not: an
	 * inconclusive +5% still says the difference is not a few hundred cycles) and the estimate's; else the
	 * cycle delta itself.
	 */
	mdiff = fabs(dcyc);
	if (h && isfinite(h->ratio) && !is_simulated(b, h->metric) && is_simulated(b, cyc_metric) &&
	    is_time(h->metric))
		mdiff = fmax(mdiff, fabs(h->ratio - 1) * median_of(&b->metrics, cyc_metric));
	own = ws_own_new(v, bin_of(r, v, o), o->own);
	for (size_t i = 0; i <= nt; i++) {
		struct ws_cause *c;
		bool unexplained = i == nt;

		if (!unexplained && (!t[i].blamed || share[i] == 0))
			continue;
		c = &e->causes[e->ncauses++];
		c->metric = xstrdup(unexplained ? "unexplained" : t[i].metric);
		c->share = share[i];
		c->share_lo = lo[i];
		c->share_hi = hi[i];
		c->delta_cycles = share[i] * dcyc;
		c->material = fabs(c->delta_cycles) >= WS_MATERIAL * fabs(mdiff);
		{
			struct located loc;

			if (!unexplained)
				localise(b, v, t[i].metric, vmed[i] - bmed[i], cyc_metric, own, c, &loc);
			else
				localise(b, v, cyc_metric, dcyc, cyc_metric, own, c, &loc);
			/*
			 * With no breakdown at all, "the hot code" is all it can say; with no callers, a library
			 * function's callers are what to find: say which option shows them.
			 */
			const char *hint = NULL;

			if (!unexplained && !loc.fn && !b->functions.n && !v->functions.n && !b->regions.n &&
			    !v->regions.n)
				hint = "measured with --functions, it shows where";
			else if (!unexplained && loc.fn && !loc.via && loc.fn_object && !ws_own_object(own, loc.fn_object) &&
				 !has_callers(v))
				hint = "--callers names its callers";
			c->next_step = next_step(c, &loc, bin_of(r, b, o), bin_of(r, v, o), own,
						 unexplained ? dcyc > 0 : (vmed[i] - bmed[i]) > 0, hint);
			/* Coherence misses have a place more telling than a function: the line, its variable, its bytes. */
			if (!unexplained && !strcmp(t[i].metric, "coherence-misses") && vmed[i] > bmed[i] &&
			    v->ncontention) {
				free(c->next_step);
				c->next_step = contention_step(v);
			} else if (!unexplained && !strcmp(t[i].metric, "coherence-misses") && vmed[i] < bmed[i] &&
				   b->ncontention) {
				/* Fewer: the place is the baseline's, where the misses were. */
				free(c->next_step);
				c->next_step = gone_contention_text(b, v);
			}
			free(loc.through);
		}
	}
	ws_own_free(own);
	e->alloc = nt + 2;
	qsort(e->causes, e->ncauses, sizeof(*e->causes), cause_cmp);
	{
		const struct ws_cause *top = NULL;
		const struct ws_comparison *tc;
		char *reach = e->reproduced < WS_REACH ? reach_text(e, cyc_metric) : NULL, *shared = NULL;

		/* The main cause is the largest material one: a significant but immaterial delta is never blamed. */
		for (size_t i = 0; i < e->ncauses && !top; i++)
			if (e->causes[i].material && strcmp(e->causes[i].metric, "unexplained"))
				top = &e->causes[i];
		tc = top ? ws_comparison_find(r, v->name, top->metric, NULL, NULL) : NULL;
		if (top && !strcmp(top->metric, "coherence-misses") && top->delta_cycles > 0)
			shared = contention_text(v);
		else if (top && !strcmp(top->metric, "coherence-misses") && top->delta_cycles < 0)
			shared = gone_contention_text(b, v);
		if (reach && top)
			e->summary = xasprintf("%s is %s; %s. Of what it does reproduce (%s %+.3g), the main part is "
					       "%s: %.0f%%%s%s",
					       qn, head, reach, cyc_metric, dcyc, top->metric, 100 * top->share,
					       shared ? ", " : top->nwhere ? ", mostly in " : "",
					       shared ? shared : top->nwhere ? top->where[0] : "");
		else if (reach)
			e->summary = xasprintf("%s is %s; %s", qn, head, reach);
		else if (top)
			e->summary = xasprintf("%s is %s; %s %+.3g (%s); the main cause is %s: %.0f%% of the "
					       "difference%s%s%s",
					       qn, head, cyc_metric, dcyc, family ? family : "costs from --cost",
					       top->metric, 100 * top->share,
					       shared ? ", " : top->nwhere ? ", mostly in " : "",
					       shared ? shared : top->nwhere ? top->where[0] : "",
					       tc && tc->layout_sensitive ? " (layout-sensitive: its change is less than its "
									    "spread across environment sizes)"
									  : "");
		else if (e->ncauses && strcmp(e->causes[0].metric, "unexplained"))
			e->summary = xasprintf("%s is %s; %s %+.3g: no counted event's delta is material against the "
					       "measured difference (%s)", qn, head, cyc_metric, dcyc,
					       h ? h->metric : cyc_metric);
		else
			e->summary = xasprintf("%s is %s; %s %+.3g, not accounted for by the counted events", qn,
					       head, cyc_metric, dcyc);
		free(reach);
		free(shared);
	}
	free(head);
	free(qn);
}

/*
 * The model's reach the other way: a simulated estimate far outside the measured difference's CI, and on
 * its side of it (more than WS_OVERSTATED points past the bound, and over twice it). The simulator runs
 * each thread as if on a core of its own, so threads that take turns (a lock, an interpreter's global
 * lock) read as costly, coherence misses and all, where the machine ran them one at a time: Python in
 * two threads against one measured +1.3% [-11.9, +15.3] and was estimated +168%. A sentence for the
 * summary, or NULL.
 */
#define WS_OVERSTATED 0.10
static char *overstated_text(const struct ws_result *r, const struct ws_variant *b, const struct ws_variant *v)
{
	const char *cyc_metric = cycle_metric(b, v);
	const struct ws_comparison *h = cyc_metric ? headline(r, v, cyc_metric) : NULL;
	double est = cyc_metric ? rel_of(b, v, cyc_metric) : NAN, lo, hi;
	bool threads = false;

	if (!h || is_simulated(b, h->metric) || !is_simulated(b, cyc_metric) || !is_time(h->metric) ||
	    !isfinite(est) || !isfinite(h->ci_lo) || !isfinite(h->ci_hi))
		return NULL;
	lo = h->ci_lo - 1;
	hi = h->ci_hi - 1;
	if (!((est > hi + WS_OVERSTATED && est > 2 * fmax(hi, 0.01)) ||
	      (est < lo - WS_OVERSTATED && est < 2 * fmin(lo, -0.01))))
		return NULL;
	for (size_t i = 0; i < v->ncores; i++)
		threads |= v->cores[i].threads > 1 || (i > 0 && v->cores[i].instructions > 0);
	for (size_t i = 0; i < b->ncores; i++)
		threads |= b->cores[i].threads > 1 || (i > 0 && b->cores[i].instructions > 0);
	return xasprintf("the simulator's %s %+.1f%% lies far outside what was measured (%s %+.1f%% [%+.1f, %+.1f]), "
			 "so read its causes as the model's, not the machine's%s",
			 cyc_metric, 100 * est, h->metric, 100 * (h->ratio - 1), 100 * lo, 100 * hi,
			 threads ? ": it runs each thread as if on a core of its own, so threads that take turns (a "
				   "lock, an interpreter's global lock) read as costly where the machine ran them one "
				   "at a time"
				 : "");
}

int ws_explain(struct ws_result *r, const struct ws_explain_opts *o)
{
	const struct ws_variant *b = ws_result_baseline(r);

	for (size_t i = 0; i < r->nexplain; i++)
		ws_explanation_release(&r->explain[i]);
	r->nexplain = 0;
	if (!b)
		return 0;
	for (size_t i = 0; i < r->nvariants; i++) {
		char *over;

		if (&r->variants[i] == b)
			continue;
		explain_variant(r, b, &r->variants[i], o);
		if ((over = overstated_text(r, b, &r->variants[i]))) {
			struct ws_explanation *e = &r->explain[r->nexplain - 1];
			char *s = xasprintf("%s. Note: %s", e->summary, over);

			free(e->summary);
			e->summary = s;
			free(over);
		}
	}
	return 0;
}
