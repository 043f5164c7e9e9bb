/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report-format.c - format values in their units for people. */
#include "compare/compare.h"
#include "core/util.h"
#include "explain/explain.h"
#include "report/report-internal.h"
#include "report/report.h"
#include "result/metrics.h"
#include "symbols/names.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/*
 * A count with its thousands grouped, as "708,175,219" or, not whole (a mean, the median of an even number
 * of runs), "3,524.60": in the columns of a table, beside whole counts, a "7.082e+08" or a "234315.67"
 * read as another kind of number. From a million on the fraction of a count says nothing and is rounded.
 */
static char *format_count(char *buf, size_t n, double v)
{
	char digits[64], *out = buf;
	size_t len, whole, lead;
	double a = fabs(v);

	if (a >= 1e18) {
		snprintf(buf, n, "%.4g", v);
		return buf;
	}
	snprintf(digits, sizeof(digits), "%.*f", a != floor(a) && a < 1e6 ? 2 : 0, a);
	len = strlen(digits);
	whole = strcspn(digits, ".");
	lead = whole % 3 ? whole % 3 : 3;
	if (v < 0 && n > 1) {
		*out++ = '-';
		n--;
	}
	for (size_t i = 0; i < len && n > 1; i++) {
		if (i && i < whole && (i - lead) % 3 == 0 && i >= lead && n > 2) {
			*out++ = ',';
			n--;
		}
		*out++ = digits[i];
		n--;
	}
	*out = '\0';
	return buf;
}

static char *format_seconds(char *buf, size_t n, double s)
{
	double a = fabs(s);

	if (a >= 100)
		snprintf(buf, n, "%.1f s", s);
	else if (a >= 1)
		snprintf(buf, n, "%.3f s", s);
	else if (a >= 1e-3)
		snprintf(buf, n, "%.3f ms", s * 1e3);
	else if (a >= 1e-6)
		snprintf(buf, n, "%.3f us", s * 1e6);
	else
		snprintf(buf, n, "%.0f ns", s * 1e9);
	return buf;
}

static char *format_bytes(char *buf, size_t n, double b)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (fabs(b) >= 1024 && u < 4) {
		b /= 1024;
		u++;
	}
	snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", b, units[u]);
	return buf;
}

char *ws_format_value(char *buf, size_t n, const char *metric, double v)
{
	if (!isfinite(v)) {
		snprintf(buf, n, "-");
		return buf;
	}
	switch (ws_metric_unit(metric)) {
	case WS_UNIT_SECONDS:
		return format_seconds(buf, n, v);
	case WS_UNIT_NS:
		return format_seconds(buf, n, v * 1e-9);
	case WS_UNIT_BYTES:
		return format_bytes(buf, n, v);
	case WS_UNIT_RATIO:
		snprintf(buf, n, "%.3f", v);
		return buf;
	case WS_UNIT_PKI:
		snprintf(buf, n, "%.2f", v);
		return buf;
	case WS_UNIT_COUNT:
		break;
	}
	return format_count(buf, n, v);
}

/* The text of one variant cell: "+9.8% [+8.9, +10.6]", "~ +0.3% [...]", "≈ ...", "+12.1% exact". */
char *ws_report_cell_text(const struct ws_comparison *c)
{
	double pct;

	if (!c || c->verdict == WS_VERDICT_NONE) {
		if (c && isfinite(c->ratio))
			return xasprintf("%+.1f%% (too few runs)", 100 * (c->ratio - 1));
		return xstrdup("-");
	}
	if (!isfinite(c->ratio))
		return xstrdup(c->verdict == WS_VERDICT_SAME ? "~ (baseline 0)" : "new (baseline 0)");
	pct = 100 * (c->ratio - 1);
	if (c->exact && c->layout_sensitive)
		return xasprintf("%s%+.2f%% layout?", c->verdict == WS_VERDICT_SAME ? "~ " : "", pct);
	if (c->exact)
		return c->verdict == WS_VERDICT_SAME ? xstrdup("= exact") : xasprintf("%+.2f%% exact", pct);
	if (!isfinite(c->ci_lo))
		return xasprintf("%s%+.1f%%", c->verdict == WS_VERDICT_SAME ? "~ " : "", pct);
	/* An upper bound that is not finite was infinite (a bootstrap median of 0): null in the file, NAN here. */
	return xasprintf("%s%+.1f%% [%+.1f, %+.1f]", c->verdict == WS_VERDICT_SAME    ? "~ "
						     : c->verdict == WS_VERDICT_NOISE ? "≈ "
										       : "",
			 pct, 100 * (c->ci_lo - 1), isfinite(c->ci_hi) ? 100 * (c->ci_hi - 1) : INFINITY);
}

const char *ws_report_estimate_legend(const struct ws_result *r)
{
	/* One report at a time: the legend is printed, never kept. */
	static char buf[384];
	bool hl = false, med = false, mean = false;
	double level = 100 * (1 - (r->settings.alpha > 0 && r->settings.alpha < 1 ? r->settings.alpha : 0.05));

	for (size_t i = 0; i < r->ncomparisons; i++) {
		const struct ws_comparison *c = &r->comparisons[i];

		hl |= !c->exact && c->estimate == WS_ESTIMATE_HL;
		med |= !c->exact && c->estimate == WS_ESTIMATE_MEDIAN_RATIO;
		mean |= !c->exact && c->estimate == WS_ESTIMATE_MEAN_RATIO;
	}
	/* The CI's level is 1 - alpha, so that an interval clear of 1 and a significant test agree. */
	if (hl && med && mean)
		snprintf(buf, sizeof(buf), "ratio to the baseline (Hodges-Lehmann; the ratio of medians where a value "
			 "is 0, of means where both medians are) with its %g%% CI", level);
	else if (hl && med)
		snprintf(buf, sizeof(buf), "ratio to the baseline (Hodges-Lehmann; the ratio of medians where a value "
			 "is 0) with its %g%% CI", level);
	else if (hl && mean)
		snprintf(buf, sizeof(buf), "ratio to the baseline (Hodges-Lehmann; the ratio of means where both "
			 "medians are 0) with its %g%% CI", level);
	else if (med && mean)
		snprintf(buf, sizeof(buf), "median ratio to the baseline with its %g%% bootstrap CI (the ratio of "
			 "means where both medians are 0)", level);
	else if (med)
		snprintf(buf, sizeof(buf), "median ratio to the baseline with its %g%% bootstrap CI", level);
	else if (mean)
		snprintf(buf, sizeof(buf), "ratio of means to the baseline (both medians are 0)");
	else
		snprintf(buf, sizeof(buf), "ratio to the baseline (Hodges-Lehmann) with its %g%% CI", level);
	/* --runs auto judged each primary at every look's level, the report being the last look. */
	if (r->settings.looks > 1 && (hl || med) && r->settings.primary)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ", %s's at %.3g%% (--runs auto: alpha / %zu looks)",
			 r->settings.primary, 100 * (1 - (1 - level / 100) / (double)r->settings.looks),
			 r->settings.looks);
	/* Where the session stopped was chosen on the primary: every other comparison is at that level too. */
	if (r->settings.schedule_looks > 1 && (hl || med) && r->settings.looks > 1 && r->settings.primary)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ", the others' too");
	else if (r->settings.schedule_looks > 1 && (hl || med))
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ", %s at %.3g%% (--runs auto: alpha / %zu looks)",
			 r->settings.primary ? "all but the primary's" : "all",
			 100 * (1 - (1 - level / 100) / (double)r->settings.schedule_looks), r->settings.schedule_looks);
	return buf;
}

size_t ws_report_one_sided(const struct ws_variant *base, const struct ws_variant *var, struct ws_one_sided *out)
{
	size_t n = 0;

	if (!base->functions.n || !var->functions.n)
		return 0;
	for (int side = 0; side < 2; side++) {
		const struct ws_variant *has = side ? var : base, *lacks = side ? base : var;

		for (size_t j = 0; j < has->functions.n; j++) {
			const struct ws_group *g = &has->functions.v[j];
			double sh = ws_function_share(has, g);

			if (ws_group_list_find(&lacks->functions, g->name) || !(sh > 0))
				continue;
			out[n++] = (struct ws_one_sided){ g->name,
							  ws_metric_set_find(&g->metrics, "share") ? "share" : "estimated-cycles",
							  side ? 0 : sh, side ? sh : 0 };
		}
	}
	return n;
}

/* Runs per program: the recorded runs, or for samples from elsewhere the most samples of any metric. */
size_t ws_report_runs(const struct ws_variant *v)
{
	size_t n = v->nruns;

	for (size_t i = 0; !n && i < v->metrics.n; i++)
		if (v->metrics.v[i].n > n && !(v->metrics.v[i].flags & WS_M_SIMULATED))
			n = v->metrics.v[i].n;
	for (size_t i = 0; !n && i < v->metrics.n; i++)
		if (v->metrics.v[i].n > n)
			n = v->metrics.v[i].n;
	return n;
}

/*
 * "3 programs, 5 runs each", or "3 programs, 5 to 19 runs" where they differ: results of different lengths
 * put side by side (diff), or a session stopped by a failed hook after some programs' runs. A new string.
 */
char *ws_report_programs_runs(const struct ws_result *r)
{
	size_t lo = SIZE_MAX, hi = 0;

	for (size_t i = 0; i < r->nvariants; i++) {
		size_t n = ws_report_runs(&r->variants[i]);

		lo = n < lo ? n : lo;
		hi = n > hi ? n : hi;
	}
	if (!r->nvariants)
		lo = 0;
	if (lo == hi)
		return xasprintf("%zu programs, %zu run%s each", r->nvariants, lo, lo == 1 ? "" : "s");
	return xasprintf("%zu programs, %zu to %zu runs", r->nvariants, lo, hi);
}

const struct ws_comparison *ws_report_headline(const struct ws_result *r, const char *variant)
{
	const struct ws_comparison *h = ws_explain_headline(r, variant);
	const struct ws_variant *b = ws_result_baseline((struct ws_result *)r);

	/* Samples from elsewhere may have none of the explanation's metrics: then the first one they have. */
	for (size_t i = 0; !h && b && i < b->metrics.n; i++) {
		const struct ws_comparison *c = ws_comparison_find(r, variant, b->metrics.v[i].name, NULL, NULL);

		if (c && isfinite(c->ratio))
			h = c;
	}
	return h;
}

void ws_report_pad(FILE *f, const char *s, size_t width, bool right)
{
	size_t n = ws_text_width(s);

	if (right)
		for (; n < width; n++)
			fputc(' ', f);
	fputs(s, f);
	if (!right)
		for (; n < width; n++)
			fputc(' ', f);
}

struct ws_report_names {
	bool full;    /* -v: names whole */
	char **names; /* each once */
	char **shown; /* as the table shows them, once one is asked for (NULL before) */
	size_t n, alloc;
	size_t *slot; /* open addressing: index + 1 of a name, 0 free; a table of 20,000 rows was searched linearly */
	size_t nslot;
	size_t *bylen; /* the names' indices, longer first (sentences only) */
};

static size_t name_hash(const char *s)
{
	size_t h = 14695981039346656037ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* Where `name` is in `t->slot`, or the free slot it would take. */
static size_t *name_slot(struct ws_report_names *t, const char *name)
{
	size_t i = name_hash(name) & (t->nslot - 1);

	while (t->slot[i] && strcmp(t->names[t->slot[i] - 1], name))
		i = (i + 1) & (t->nslot - 1);
	return &t->slot[i];
}

/* The index of `name` in `t`, or SIZE_MAX. */
static size_t name_index(struct ws_report_names *t, const char *name)
{
	size_t *s = t->nslot ? name_slot(t, name) : NULL;

	return s && *s ? *s - 1 : SIZE_MAX;
}

struct ws_report_names *ws_report_names_new(const struct ws_report_opts *o)
{
	struct ws_report_names *t = xcalloc(1, sizeof(*t));

	t->full = o->full_names;
	return t;
}

/* Forget the shown forms: a name joins, and may read like one of them. */
static void names_unshow(struct ws_report_names *t)
{
	for (size_t i = 0; t->shown && i < t->n; i++)
		free(t->shown[i]);
	free(t->shown);
	t->shown = NULL;
}

void ws_report_names_add(struct ws_report_names *t, const char *name)
{
	if (name_index(t, name) != SIZE_MAX)
		return;
	names_unshow(t);
	if (2 * (t->n + 1) > t->nslot) {
		free(t->slot);
		t->nslot = t->nslot ? 2 * t->nslot : 64;
		t->slot = xcalloc(t->nslot, sizeof(*t->slot));
		for (size_t i = 0; i < t->n; i++)
			*name_slot(t, t->names[i]) = i + 1;
	}
	WS_ALLOC_GROW(t->names, t->n + 1, t->alloc);
	t->names[t->n] = xstrdup(name);
	*name_slot(t, name) = ++t->n;
}

/* `name` as `t` shows it; one not added joins first. */
static const char *names_shown(struct ws_report_names *t, const char *name)
{
	size_t i;

	ws_report_names_add(t, name);
	if (!t->shown && t->full) {
		t->shown = xcalloc(t->n + 1, sizeof(*t->shown));
		for (size_t k = 0; k < t->n; k++)
			t->shown[k] = xstrdup(t->names[k]);
	} else if (!t->shown) {
		t->shown = ws_sym_display_apart((const char *const *)t->names, t->n, WS_SYM_DISPLAY_WIDTH);
	}
	i = name_index(t, name);
	return t->shown[i];
}

char *ws_report_names_get(struct ws_report_names *t, const char *name, size_t pad)
{
	const char *d = names_shown(t, name);
	size_t w = ws_text_width(d);

	/* printf's %-Ns counts bytes, and an elided name holds a three-byte "…". */
	return w >= pad ? xstrdup(d) : xasprintf("%s%*s", d, (int)(pad - w), "");
}

size_t ws_report_names_column(struct ws_report_names *t, const char *name, size_t at_least)
{
	/*
	 * A shortened name is wider than WS_SYM_DISPLAY_WIDTH only where it was widened to tell it from a
	 * look-alike: the column holds it, since one capped below it pushed that row's cells out of line with the
	 * others'. -v's full names stay capped: a column as wide as the widest would push every row.
	 */
	size_t w = ws_text_width(names_shown(t, name));

	if (t->full && w > WS_SYM_DISPLAY_WIDTH)
		w = WS_SYM_DISPLAY_WIDTH;
	return w > at_least ? w : at_least;
}

void ws_report_names_free(struct ws_report_names *t)
{
	if (!t)
		return;
	names_unshow(t);
	for (size_t i = 0; i < t->n; i++)
		free(t->names[i]);
	free(t->names);
	free(t->slot);
	free(t->bylen);
	free(t);
}

/* A program's name cut to `width` columns, for ws_text_width_apart(). */
static char *program_name(size_t i, size_t width, const void *arg)
{
	const struct ws_result *r = arg;

	return ws_text_elide_middle(r->variants[i].name, width);
}

size_t ws_report_name_width(const struct ws_report_opts *o, const struct ws_result *r)
{
	const char **names;
	size_t w;

	if (o->full_names)
		return 0;
	names = xcalloc(r->nvariants + 1, sizeof(*names));
	for (size_t i = 0; i < r->nvariants; i++)
		names[i] = r->variants[i].name;
	/* Columns that read alike would hide which program is which: wider, until they differ. */
	w = ws_text_width_apart(names, r->nvariants, WS_REPORT_NAME_WIDTH, program_name, r);
	free(names);
	return w;
}

/* `text` with every occurrence of `name` replaced by `shown`. A new string. */
static char *replace_all(const char *text, const char *name, const char *shown)
{
	size_t nl = strlen(name), sl = strlen(shown), n = 0;
	const char *p;
	char *out, *o;

	for (p = text; (p = strstr(p, name)); p += nl)
		n++;
	out = o = xmalloc(strlen(text) + n * sl + 1);
	for (p = text; *p;) {
		if (!strncmp(p, name, nl)) {
			memcpy(o, shown, sl);
			o += sl;
			p += nl;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

static int longer_first(const void *a, const void *b, void *arg)
{
	char *const *names = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b, x = strlen(names[i]), y = strlen(names[j]);

	return x != y ? (x < y) - (x > y) : (i > j) - (i < j);
}

struct ws_report_names *ws_report_sentence_names(const struct ws_report_opts *o, const struct ws_result *r)
{
	struct ws_report_names *t = ws_report_names_new(o);

	if (o->full_names)
		return t;
	for (size_t v = 0; v < r->nvariants; v++)
		for (size_t i = 0; i < r->variants[v].functions.n; i++) {
			const char *name = r->variants[v].functions.v[i].name;
			size_t len;
			/* A clone's row, and its function's name, which a move is said of ("f(int) is inlined in a"). */
			bool clone = ws_sym_clone_row(name, &len);

			for (int k = 0; k < 1 + clone; k++) {
				char *form = xstrndup(name, k ? len : strlen(name));

				if (ws_text_width(form) > WS_SYM_DISPLAY_WIDTH)
					ws_report_names_add(t, form);
				free(form);
			}
		}
	return t;
}

char *ws_report_names_sentence(struct ws_report_names *t, const char *text)
{
	const char *cmd = strstr(text, "whyslow asm-diff");
	char *head, *out;

	if (t->full || !t->n)
		return xstrdup(text);
	head = cmd ? xstrndup(text, (size_t)(cmd - text)) : xstrdup(text);
	/*
	 * Shown once for all the sentences of a report (names_shown()): each name told apart from every function
	 * of the result that reads like it, as the sentence names one function among all of them. Longer names
	 * first, so that one inside another (a clone's function in its row) is not replaced within it.
	 */
	names_shown(t, t->names[0]);
	if (!t->bylen) {
		t->bylen = xcalloc(t->n + 1, sizeof(*t->bylen));
		for (size_t i = 0; i < t->n; i++)
			t->bylen[i] = i;
		qsort_r(t->bylen, t->n, sizeof(*t->bylen), longer_first, t->names);
	}
	for (size_t k = 0; k < t->n; k++) {
		size_t i = t->bylen[k];
		char *next;

		if (!strstr(head, t->names[i]))
			continue;
		next = replace_all(head, t->names[i], t->shown[i]);
		free(head);
		head = next;
	}
	/* The command stays as it is: it must run when pasted. */
	out = xasprintf("%s%s", head, cmd ? cmd : "");
	free(head);
	return out;
}

char *ws_report_shorten_names(const struct ws_report_opts *o, const struct ws_result *r, const char *text)
{
	struct ws_report_names *t = ws_report_sentence_names(o, r);
	char *out = ws_report_names_sentence(t, text);

	ws_report_names_free(t);
	return out;
}
