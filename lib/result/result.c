/* SPDX-License-Identifier: GPL-2.0-or-later */
/* result.c - the result model's lifecycle, derivation of ratio metrics, and per-metric summaries. */
#include "result/result.h"
#include "core/util.h"
#include "result/metrics.h"
#include "stats/stats.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[] = {
	[WS_VERDICT_SAME] = "same",     [WS_VERDICT_NOISE] = "noise",     [WS_VERDICT_FASTER] = "faster",
	[WS_VERDICT_SLOWER] = "slower", [WS_VERDICT_CHANGED] = "changed", [WS_VERDICT_NONE] = "none",
};

const char *ws_verdict_name(enum ws_verdict v)
{
	return verdict_names[v];
}

enum ws_verdict ws_verdict_parse(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(verdict_names); i++)
		if (!strcmp(s, verdict_names[i]))
			return (enum ws_verdict)i;
	return WS_VERDICT_NONE;
}

static const char *const family_names[] = {
	[WS_FAMILY_NONE] = "none",
	[WS_FAMILY_PRIMARY] = "primary",
	[WS_FAMILY_SECONDARY] = "secondary",
};

const char *ws_family_name(enum ws_family f)
{
	return family_names[f];
}

enum ws_family ws_family_parse(const char *s)
{
	for (size_t i = 0; s && i < ARRAY_SIZE(family_names); i++)
		if (!strcmp(s, family_names[i]))
			return (enum ws_family)i;
	return WS_FAMILY_NONE;
}

static const char *const estimate_names[] = {
	[WS_ESTIMATE_HL] = "hodges-lehmann",
	[WS_ESTIMATE_MEDIAN_RATIO] = "median-ratio",
	[WS_ESTIMATE_EXACT] = "exact",
	[WS_ESTIMATE_MEAN_RATIO] = "mean-ratio",
};

const char *ws_estimate_name(enum ws_estimate e)
{
	return estimate_names[e];
}

enum ws_estimate ws_estimate_parse(const char *s)
{
	for (size_t i = 0; s && i < ARRAY_SIZE(estimate_names); i++)
		if (!strcmp(s, estimate_names[i]))
			return (enum ws_estimate)i;
	/* Results written before the field existed had the ratio of medians. */
	return WS_ESTIMATE_MEDIAN_RATIO;
}

void ws_result_init(struct ws_result *r)
{
	memset(r, 0, sizeof(*r));
	r->settings.noise = 0.01;
	r->settings.alpha = 0.05;
	r->settings.input_bytes = NAN;
}

static void strings_free(char **v)
{
	if (!v)
		return;
	for (char **e = v; *e; e++)
		free(*e);
	free(v);
}

void ws_settings_release(struct ws_settings *s)
{
	free(s->order);
	free(s->primary);
	free(s->created);
	strings_free(s->events);
	strings_free(s->setup);
	strings_free(s->prepare);
	strings_free(s->conclude);
	strings_free(s->cleanup);
	strings_free(s->output);
	free(s->input);
	free(s->sim_scope);
	for (size_t i = 0; i < s->nparameters; i++) {
		free(s->parameters[i].name);
		strings_free(s->parameters[i].values);
		free(s->parameters[i].min);
		free(s->parameters[i].max);
		free(s->parameters[i].step);
	}
	free(s->parameters);
	strings_free(s->command_line);
	free(s->cwd);
	memset(s, 0, sizeof(*s));
	s->input_bytes = NAN;
}

static void metric_release(struct ws_metric *m)
{
	free(m->name);
	free(m->reason);
	free(m->samples);
	free(m->running);
}

void ws_metric_set_release(struct ws_metric_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		metric_release(&s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static void group_list_release(struct ws_group_list *l);

static void group_release(struct ws_group *g)
{
	free(g->name);
	free(g->own_name);
	free(g->object);
	for (size_t i = 0; i < g->nsymbols; i++)
		free(g->symbols[i]);
	free(g->symbols);
	ws_metric_set_release(&g->metrics);
	for (size_t i = 0; i < g->nlines; i++) {
		free(g->lines[i].file);
		for (size_t k = 0; k < g->lines[i].ninlined; k++) {
			free(g->lines[i].inlined[k].function);
			free(g->lines[i].inlined[k].call_file);
		}
		free(g->lines[i].inlined);
	}
	free(g->lines);
	ws_metric_set_release(&g->inclusive);
	group_list_release(&g->callers);
}

void ws_group_add_symbol(struct ws_group *g, const char *symbol)
{
	if (!symbol)
		return;
	for (size_t i = 0; i < g->nsymbols; i++)
		if (!strcmp(g->symbols[i], symbol))
			return;
	g->symbols = xrealloc(g->symbols, (g->nsymbols + 1) * sizeof(*g->symbols));
	g->symbols[g->nsymbols++] = xstrdup(symbol);
}

struct ws_line *ws_group_add_line(struct ws_group *g, const char *file, unsigned line, double samples,
				  const struct ws_inline_frame *inl, size_t n)
{
	size_t i;

	for (i = 0; i < g->nlines; i++)
		if (g->lines[i].line == line && !strcmp(g->lines[i].file, file))
			break;
	if (i == g->nlines) {
		WS_ALLOC_GROW(g->lines, g->nlines + 1, g->alloc_lines);
		memset(&g->lines[i], 0, sizeof(g->lines[i]));
		g->lines[i].file = xstrdup(file);
		g->lines[i].line = line;
		if (n) {
			g->lines[i].inlined = xcalloc(n, sizeof(*inl));
			for (size_t k = 0; k < n; k++) {
				g->lines[i].inlined[k].function = xstrdup(inl[k].function);
				g->lines[i].inlined[k].call_file = xstrdup(inl[k].call_file ? inl[k].call_file : "??");
				g->lines[i].inlined[k].call_line = inl[k].call_line;
			}
			g->lines[i].ninlined = n;
		}
		g->nlines++;
	}
	g->lines[i].samples += samples;
	/* Keep the order by samples: one step of insertion sort towards the front. */
	while (i > 0 && g->lines[i].samples > g->lines[i - 1].samples) {
		struct ws_line t = g->lines[i];

		g->lines[i] = g->lines[i - 1];
		g->lines[i - 1] = t;
		i--;
	}
	return &g->lines[i];
}

static void group_list_unindex(struct ws_group_list *l)
{
	free(l->index);
	l->index = NULL;
	l->index_cap = l->indexed = 0;
}

static void group_list_release(struct ws_group_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		group_release(&l->v[i]);
	free(l->v);
	group_list_unindex(l);
	memset(l, 0, sizeof(*l));
}

void ws_comparison_release(struct ws_comparison *c)
{
	free(c->variant);
	free(c->baseline);
	free(c->metric);
	free(c->region);
	free(c->function);
	free(c->caller);
}

void ws_explanation_release(struct ws_explanation *e)
{
	free(e->variant);
	free(e->summary);
	for (size_t i = 0; i < e->ncauses; i++) {
		struct ws_cause *c = &e->causes[i];

		free(c->metric);
		for (size_t j = 0; j < c->nwhere; j++)
			free(c->where[j]);
		free(c->where);
		free(c->next_step);
	}
	free(e->causes);
	free(e->reach_metric);
	for (size_t i = 0; i < e->noutside; i++) {
		free(e->outside[i].cause);
		free(e->outside[i].evidence);
	}
	free(e->outside);
}

void ws_result_release(struct ws_result *r)
{
	free(r->machine.cpu);
	free(r->machine.kernel);
	free(r->machine.hostname);
	for (size_t k = 0; r->machine.cpu_features_host && r->machine.cpu_features_host[k]; k++)
		free(r->machine.cpu_features_host[k]);
	free(r->machine.cpu_features_host);
	for (size_t k = 0; r->machine.cpu_features_sim && r->machine.cpu_features_sim[k]; k++)
		free(r->machine.cpu_features_sim[k]);
	free(r->machine.cpu_features_sim);
	for (size_t i = 0; i < r->machine.ntoolchains; i++) {
		struct ws_toolchain *t = &r->machine.toolchains[i];

		for (size_t k = 0; t->compilers && t->compilers[k]; k++)
			free(t->compilers[k]);
		free(t->compilers);
		free(t->program);
	}
	free(r->machine.toolchains);
	free(r->machine.backend);
	free(r->machine.sim_preset);
	for (size_t i = 0; i < r->machine.ncosts; i++)
		free(r->machine.costs[i].metric);
	free(r->machine.costs);
	ws_settings_release(&r->settings);
	for (size_t i = 0; i < r->nvariants; i++) {
		struct ws_variant *v = &r->variants[i];

		free(v->name);
		free(v->command);
		for (size_t j = 0; j < v->nparams; j++) {
			free(v->params[j].name);
			free(v->params[j].value);
		}
		free(v->params);
		ws_metric_set_release(&v->metrics);
		group_list_release(&v->regions);
		group_list_release(&v->functions);
		free(v->runs);
		for (size_t j = 0; j < v->nhot; j++) {
			free(v->hot[j].function);
			free(v->hot[j].object);
			free(v->hot[j].insns);
		}
		free(v->hot);
		for (size_t j = 0; j < v->nstacks; j++) {
			for (size_t k = 0; k < v->stacks[j].nframes; k++)
				free(v->stacks[j].frames[k]);
			free(v->stacks[j].frames);
		}
		free(v->stacks);
		free(v->stacks_metric);
		ws_variant_contention_release(v);
	}
	free(r->variants);
	for (size_t i = 0; i < r->ncomparisons; i++)
		ws_comparison_release(&r->comparisons[i]);
	free(r->comparisons);
	for (size_t i = 0; i < r->nexplain; i++)
		ws_explanation_release(&r->explain[i]);
	free(r->explain);
	free(r->partial_reason);
	for (size_t i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	ws_result_init(r);
}

struct ws_variant *ws_result_add_variant(struct ws_result *r, const char *name, const char *command)
{
	struct ws_variant *v;

	WS_ALLOC_GROW(r->variants, r->nvariants + 1, r->alloc_variants);
	v = &r->variants[r->nvariants++];
	memset(v, 0, sizeof(*v));
	v->name = xstrdup(name);
	v->command = command ? xstrdup(command) : NULL;
	return v;
}

void ws_variant_add_param(struct ws_variant *v, const char *name, const char *value)
{
	v->params = xrealloc(v->params, (v->nparams + 1) * sizeof(*v->params));
	v->params[v->nparams].name = xstrdup(name);
	v->params[v->nparams++].value = xstrdup(value);
}

struct ws_variant *ws_result_find_variant(struct ws_result *r, const char *name)
{
	for (size_t i = 0; i < r->nvariants; i++)
		if (!strcmp(r->variants[i].name, name))
			return &r->variants[i];
	return NULL;
}

void ws_result_warn(struct ws_result *r, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	/* The same warning from every variant or round is said once. */
	for (size_t i = 0; i < r->nwarnings; i++) {
		if (!strcmp(r->warnings[i], s)) {
			free(s);
			return;
		}
	}
	WS_ALLOC_GROW(r->warnings, r->nwarnings + 1, r->alloc_warnings);
	r->warnings[r->nwarnings++] = s;
}

struct ws_metric *ws_metric_set_find(const struct ws_metric_set *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name))
			return &s->v[i];
	return NULL;
}

struct ws_metric *ws_metric_set_get(struct ws_metric_set *s, const char *name, unsigned flags)
{
	struct ws_metric *m = ws_metric_set_find(s, name);

	if (m)
		return m;
	WS_ALLOC_GROW(s->v, s->n + 1, s->alloc);
	m = &s->v[s->n++];
	memset(m, 0, sizeof(*m));
	m->name = xstrdup(name);
	m->flags = flags;
	m->sum.ci_lo = m->sum.ci_hi = m->sum.running = NAN;
	return m;
}

void ws_metric_set_unsupported(struct ws_metric_set *s, const char *name, const char *reason)
{
	struct ws_metric *m = ws_metric_set_get(s, name, 0);

	m->flags |= WS_M_UNSUPPORTED;
	free(m->reason);
	m->reason = xstrdup(reason ? reason : "not supported");
	free(m->samples);
	free(m->running);
	m->samples = m->running = NULL;
	m->n = m->alloc = 0;
}

static int metric_cmp(const void *a, const void *b)
{
	const struct ws_metric *x = a, *y = b;
	int rx = ws_metric_rank(x->name), ry = ws_metric_rank(y->name);

	if (rx != ry)
		return rx - ry;
	return strcmp(x->name, y->name);
}

void ws_metric_set_sort(struct ws_metric_set *s)
{
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), metric_cmp);
}

void ws_metric_push(struct ws_metric *m, double value, double running)
{
	size_t old_alloc = m->alloc;

	WS_ALLOC_GROW(m->samples, m->n + 1, m->alloc);
	if (running >= 0 || m->running) {
		if (!m->running) {
			/* First multiplexed sample: earlier runs were counted the whole time. */
			m->running = xmalloc(m->alloc * sizeof(*m->running));
			for (size_t i = 0; i < m->n; i++)
				m->running[i] = 1.0;
		} else if (m->alloc != old_alloc) {
			m->running = xrealloc(m->running, m->alloc * sizeof(*m->running));
		}
		m->running[m->n] = running >= 0 ? running : 1.0;
	}
	m->samples[m->n++] = value;
}

static size_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return (size_t)(h ^ (h >> 29));
}

/* Bring the index up to v[0..n), growing it to keep it at most half full. */
static void group_list_index(struct ws_group_list *l)
{
	if ((l->n + 1) * 2 > l->index_cap) {
		group_list_unindex(l);
		for (l->index_cap = 64; l->index_cap < (l->n + 1) * 4; l->index_cap *= 2)
			;
		l->index = xcalloc(l->index_cap, sizeof(*l->index));
	}
	for (; l->indexed < l->n; l->indexed++) {
		size_t i = name_hash(l->v[l->indexed].name) & (l->index_cap - 1);

		while (l->index[i])
			i = (i + 1) & (l->index_cap - 1);
		l->index[i] = l->indexed + 1;
	}
}

struct ws_group *ws_group_list_find(const struct ws_group_list *l, const char *name)
{
	struct ws_group_list *cache = (struct ws_group_list *)l; /* the index only: the entries stay as they are */

	if (l->n < 32) {
		for (size_t i = 0; i < l->n; i++)
			if (!strcmp(l->v[i].name, name))
				return &l->v[i];
		return NULL;
	}
	group_list_index(cache);
	for (size_t i = name_hash(name) & (l->index_cap - 1); l->index[i]; i = (i + 1) & (l->index_cap - 1))
		if (!strcmp(l->v[l->index[i] - 1].name, name))
			return &l->v[l->index[i] - 1];
	return NULL;
}

void ws_group_list_rename(struct ws_group_list *l, struct ws_group *g, const char *name)
{
	free(g->name);
	g->name = xstrdup(name);
	/* The index is by name: the entry's slot is now wrong. */
	group_list_unindex(l);
}

struct ws_group *ws_group_list_get(struct ws_group_list *l, const char *name, const char *object)
{
	struct ws_group *g = ws_group_list_find(l, name);

	if (g)
		return g;
	WS_ALLOC_GROW(l->v, l->n + 1, l->alloc);
	g = &l->v[l->n++];
	memset(g, 0, sizeof(*g));
	g->name = xstrdup(name);
	g->object = object ? xstrdup(object) : NULL;
	return g;
}

void ws_variant_add_stack(struct ws_variant *v, const char *const *frames, size_t nframes, double count)
{
	struct ws_stack *st;

	WS_ALLOC_GROW(v->stacks, v->nstacks + 1, v->alloc_stacks);
	st = &v->stacks[v->nstacks++];
	st->frames = xcalloc(nframes + 1, sizeof(*st->frames));
	for (size_t i = 0; i < nframes; i++)
		st->frames[i] = xstrdup(frames[i]);
	st->nframes = nframes;
	st->count = count;
}

void ws_variant_push_run(struct ws_variant *v, const struct ws_run_status *st)
{
	WS_ALLOC_GROW(v->runs, v->nruns + 1, v->alloc_runs);
	v->runs[v->nruns++] = *st;
	if (st->exit_code != 0 || st->signal || st->timed_out)
		v->failed_runs++;
}

void ws_metric_summarize(struct ws_metric *m)
{
	struct ws_summary *s = &m->sum;
	struct ws_welford w = { 0 };
	double *x, run_sum = 0;
	size_t n = 0, nrun = 0;

	memset(s, 0, sizeof(*s));
	s->ci_lo = s->ci_hi = s->running = NAN;
	s->mean = s->median = s->stddev = s->mad = s->min = s->max = NAN;
	if (m->flags & WS_M_UNSUPPORTED || !m->n)
		return;
	x = xmalloc(m->n * sizeof(*x));
	for (size_t i = 0; i < m->n; i++) {
		if (isnan(m->samples[i]))
			continue;
		x[n++] = m->samples[i];
		ws_welford_add(&w, m->samples[i]);
		if (m->running) {
			run_sum += m->running[i];
			nrun++;
		}
	}
	s->n = n;
	if (n) {
		s->mean = w.mean;
		/* One sample has no spread to measure: null, not 0. */
		s->stddev = n >= 2 ? ws_welford_stddev(&w) : NAN;
		/* Sorted once for every order statistic: a sort per statistic made 10^6 runs take seconds. */
		ws_sort_doubles(x, n);
		s->median = ws_median_sorted(x, n);
		s->mad = ws_mad_sorted(x, n);
		s->min = x[0];
		s->max = x[n - 1];
		ws_median_ci_sorted(x, n, 0.95, &s->ci_lo, &s->ci_hi);
		s->running = nrun ? run_sum / (double)nrun : NAN;
		if (n >= 3) {
			/* As ws_outliers(), with the median and MAD above. */
			for (size_t i = 0; i < n; i++)
				s->outliers += fabs(ws_modified_z(x[i], s->median, s->mad)) > 3.5;
			/* Only the first run's flag says anything about warm-up. */
			s->first_outlier = !isnan(m->samples[0]) &&
					   fabs(ws_modified_z(m->samples[0], s->median, s->mad)) > 3.5;
		}
		/*
		 * Every run gave the same count: deterministic, compared exactly (docs/statistics.md, 2). A real
		 * program under the simulator is deterministic only nearly: code that formats the time or
		 * reads the clock executes a few instructions more or fewer per run (seen: 50 in 10^8), and
		 * cache counts move with them. Runs that agree within WS_EXACT_SPREAD count as exact too.
		 */
		if ((m->flags & WS_M_SIMULATED) && s->max - s->min <= WS_EXACT_SPREAD * fabs(s->median))
			m->flags |= WS_M_EXACT;
		else
			m->flags &= ~WS_M_EXACT;
	}
	free(x);
}

static void summarize_set(struct ws_metric_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		ws_metric_summarize(&s->v[i]);
	ws_metric_set_sort(s);
}

/*
 * With --layouts the simulated runs of a program differ on purpose, one environment size each: they are
 * still deterministic, each the count of one layout, so compared exactly, their range the layout's spread.
 */
static void layouts_exact(struct ws_metric_set *s, const struct ws_result *r)
{
	for (size_t i = 0; r->settings.layouts > 1 && i < s->n; i++)
		if ((s->v[i].flags & WS_M_SIMULATED) && s->v[i].sum.n)
			s->v[i].flags |= WS_M_EXACT;
}

static int group_name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ws_group *)a)->name, ((const struct ws_group *)b)->name);
}

/*
 * Regions by name: the perf backend meets them in the order each process registered them, its files read
 * in pid order, the simulator lists them by name, and a region a later run opened first comes last. By
 * name, both backends, every run and every saved result list them alike (README, Regions).
 */
static void sort_regions(struct ws_group_list *l)
{
	if (l->n < 2)
		return;
	qsort(l->v, l->n, sizeof(*l->v), group_name_cmp);
	/* The index holds positions: they moved. */
	group_list_unindex(l);
}

void ws_result_summarize(struct ws_result *r)
{
	for (size_t i = 0; i < r->nvariants; i++) {
		struct ws_variant *v = &r->variants[i];

		summarize_set(&v->metrics);
		layouts_exact(&v->metrics, r);
		sort_regions(&v->regions);
		for (size_t j = 0; j < v->regions.n; j++) {
			summarize_set(&v->regions.v[j].metrics);
			layouts_exact(&v->regions.v[j].metrics, r);
		}
		for (size_t j = 0; j < v->functions.n; j++) {
			struct ws_group *fn = &v->functions.v[j];

			summarize_set(&fn->metrics);
			summarize_set(&fn->inclusive);
			for (size_t k = 0; k < fn->callers.n; k++)
				summarize_set(&fn->callers.v[k].metrics);
			layouts_exact(&fn->metrics, r);
			layouts_exact(&fn->inclusive, r);
		}
	}
}

bool ws_result_has_samples(const struct ws_result *r)
{
	for (size_t i = 0; i < r->nvariants; i++)
		for (size_t j = 0; j < r->variants[i].metrics.n; j++)
			if (r->variants[i].metrics.v[j].n)
				return true;
	return false;
}

static double share_of_set(const struct ws_variant *v, const struct ws_metric_set *set)
{
	static const char *const totals[] = { "estimated-cycles", "instructions" };
	const struct ws_metric *m = ws_metric_set_find(set, "share");

	if (m && m->sum.n)
		return m->sum.median;
	for (size_t i = 0; i < ARRAY_SIZE(totals); i++) {
		const struct ws_metric *part = ws_metric_set_find(set, totals[i]);
		const struct ws_metric *whole = ws_metric_set_find(&v->metrics, totals[i]);

		if (part && whole && part->sum.n && whole->sum.n && whole->sum.median > 0)
			return part->sum.median / whole->sum.median;
	}
	return NAN;
}

double ws_function_share(const struct ws_variant *v, const struct ws_group *fn)
{
	return share_of_set(v, &fn->metrics);
}

double ws_function_inclusive_share(const struct ws_variant *v, const struct ws_group *fn)
{
	return share_of_set(v, &fn->inclusive);
}

double ws_caller_share(const struct ws_group *fn, const struct ws_group *caller)
{
	static const char *const totals[] = { "share", "estimated-cycles", "instructions" };

	for (size_t i = 0; i < ARRAY_SIZE(totals); i++) {
		const struct ws_metric *part = ws_metric_set_find(&caller->metrics, totals[i]);
		const struct ws_metric *whole = ws_metric_set_find(&fn->inclusive, totals[i]);

		if (part && whole && part->sum.n && whole->sum.n && whole->sum.median > 0)
			return part->sum.median / whole->sum.median;
	}
	return NAN;
}

/* Drop the callers of `name` that take under `min_share` of it in every variant. */
static void prune_callers(struct ws_result *r, const char *name, double min_share)
{
	for (size_t i = 0; i < r->nvariants; i++) {
		struct ws_group *fn = ws_group_list_find(&r->variants[i].functions, name);

		for (size_t j = 0; fn && j < fn->callers.n;) {
			const char *caller = fn->callers.v[j].name;
			bool keep = false;

			for (size_t k = 0; k < r->nvariants && !keep; k++) {
				const struct ws_group *f = ws_group_list_find(&r->variants[k].functions, name);
				const struct ws_group *c = f ? ws_group_list_find(&f->callers, caller) : NULL;
				double sh = c ? ws_caller_share(f, c) : NAN;

				/* A caller without a share to judge by (no inclusive metric) is kept. */
				keep = c && (!isfinite(sh) || sh >= min_share);
			}
			if (keep) {
				j++;
				continue;
			}
			char *victim = xstrdup(caller);

			for (size_t k = 0; k < r->nvariants; k++) {
				struct ws_group *f = ws_group_list_find(&r->variants[k].functions, name);
				struct ws_group *c = f ? ws_group_list_find(&f->callers, victim) : NULL;
				size_t x;

				if (!c)
					continue;
				x = (size_t)(c - f->callers.v);
				group_release(c);
				memmove(c, c + 1, (f->callers.n - x - 1) * sizeof(*c));
				f->callers.n--;
				group_list_unindex(&f->callers);
			}
			free(victim);
		}
	}
}

/* A function's name (a copy), once for all variants, and whether it stays. */
struct kept {
	char *name;
	bool keep;
};

/* The functions of all variants by name: slot -> entry + 1, at most half full. */
struct kept_set {
	struct kept *v;
	size_t n, alloc;
	size_t *slot;
	size_t cap;
};

static struct kept *kept_find(const struct kept_set *k, const char *name)
{
	for (size_t i = name_hash(name) & (k->cap - 1); k->cap && k->slot[i]; i = (i + 1) & (k->cap - 1))
		if (!strcmp(k->v[k->slot[i] - 1].name, name))
			return &k->v[k->slot[i] - 1];
	return NULL;
}

static struct kept *kept_add(struct kept_set *k, const char *name)
{
	size_t i;

	if ((k->n + 1) * 2 > k->cap) {
		free(k->slot);
		k->cap = k->cap ? k->cap * 2 : 64;
		k->slot = xcalloc(k->cap, sizeof(*k->slot));
		for (size_t j = 0; j < k->n; j++) {
			for (i = name_hash(k->v[j].name) & (k->cap - 1); k->slot[i]; i = (i + 1) & (k->cap - 1))
				;
			k->slot[i] = j + 1;
		}
	}
	WS_ALLOC_GROW(k->v, k->n + 1, k->alloc);
	k->v[k->n] = (struct kept){ xstrdup(name), false };
	for (i = name_hash(name) & (k->cap - 1); k->slot[i]; i = (i + 1) & (k->cap - 1))
		;
	k->slot[i] = ++k->n;
	return &k->v[k->n - 1];
}

void ws_result_prune_functions(struct ws_result *r, double min_share)
{
	struct kept_set ks = { 0 };
	bool more = true;

	for (size_t i = 0; i < r->nvariants; i++) {
		for (size_t j = 0; j < r->variants[i].functions.n; j++) {
			const struct ws_group *g = &r->variants[i].functions.v[j];
			struct kept *e = kept_find(&ks, g->name);
			double sh = ws_function_share(&r->variants[i], g);

			if (!e)
				e = kept_add(&ks, g->name);
			e->keep |= isfinite(sh) && sh >= min_share;
		}
	}
	/*
	 * A kept function's callers stay too when they make at least the threshold of it and take it of their
	 * variant with what they call: so the chain from a hot library function up to the program's own code
	 * survives, whatever little each function on it does itself.
	 */
	while (more) {
		more = false;
		for (size_t x = 0; x < ks.n; x++) {
			if (!ks.v[x].keep)
				continue;
			for (size_t i = 0; i < r->nvariants; i++) {
				const struct ws_variant *v = &r->variants[i];
				const struct ws_group *g = ws_group_list_find(&v->functions, ks.v[x].name);

				for (size_t c = 0; g && c < g->callers.n; c++) {
					const struct ws_group *cg = ws_group_list_find(&v->functions, g->callers.v[c].name);
					struct kept *e = kept_find(&ks, g->callers.v[c].name);
					double sh = ws_caller_share(g, &g->callers.v[c]);

					if (!e || e->keep || !cg || !(sh >= min_share) || !(ws_function_inclusive_share(v, cg) >= min_share))
						continue;
					e->keep = more = true;
				}
			}
		}
	}
	for (size_t i = 0; i < r->nvariants; i++) {
		struct ws_group_list *l = &r->variants[i].functions;
		size_t w = 0;

		/* The kept ones moved up in order, in one pass. */
		for (size_t j = 0; j < l->n; j++) {
			if (kept_find(&ks, l->v[j].name)->keep)
				l->v[w++] = l->v[j];
			else
				group_release(&l->v[j]);
		}
		l->n = w;
		group_list_unindex(l);
	}
	for (size_t x = 0; x < ks.n; x++)
		free(ks.v[x].name);
	free(ks.v);
	free(ks.slot);
	for (size_t i = 0; i < r->nvariants; i++)
		for (size_t j = 0; j < r->variants[i].functions.n; j++)
			prune_callers(r, r->variants[i].functions.v[j].name, min_share);
}

static const char *const sharing_names[] = {
	[WS_SHARING_FALSE] = "false-sharing",
	[WS_SHARING_TRUE] = "true-sharing",
	[WS_SHARING_ONE_WRITER] = "one-writer",
	[WS_SHARING_UNKNOWN] = "unknown",
};

const char *ws_sharing_name(enum ws_sharing s)
{
	return (size_t)s < sizeof(sharing_names) / sizeof(*sharing_names) ? sharing_names[s] : "unknown";
}

char *ws_span_text(int lo, int hi)
{
	if (lo == hi)
		return xasprintf("byte %d", lo);
	return lo < 0 ? xasprintf("bytes %d to %d", lo, hi) : xasprintf("bytes %d-%d", lo, hi);
}

enum ws_sharing ws_sharing_from_name(const char *name)
{
	for (size_t i = 0; name && i < sizeof(sharing_names) / sizeof(*sharing_names); i++)
		if (!strcmp(name, sharing_names[i]))
			return (enum ws_sharing)i;
	return WS_SHARING_UNKNOWN;
}

void ws_variant_contention_release(struct ws_variant *v)
{
	for (size_t i = 0; i < v->ncontention; i++) {
		struct ws_contention *c = &v->contention[i];

		free(c->address);
		free(c->variable);
		for (size_t k = 0; k < c->nfunctions; k++)
			free(c->functions[k]);
		free(c->functions);
		free(c->threads);
	}
	free(v->contention);
	v->contention = NULL;
	v->ncontention = 0;
	free(v->cores);
	v->cores = NULL;
	v->ncores = 0;
}
