/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report-compare.c - the comparison as a terminal table, Markdown (for pull requests) and CSV. */
#include "compare/compare.h"
#include "core/util.h"
#include "explain/explain.h"
#include "explain/own.h"
#include "report/report-internal.h"
#include "report/report.h"
#include "result/metrics.h"
#include "symbols/names.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


static const char *verdict_color(const struct ws_comparison *c)
{
	if (!c)
		return "";
	switch (c->verdict) {
	case WS_VERDICT_SLOWER:
		return C_RED;
	case WS_VERDICT_FASTER:
		return C_GREEN;
	case WS_VERDICT_CHANGED:
		return C_YELLOW;
	case WS_VERDICT_SAME:
	case WS_VERDICT_NOISE:
		return C_DIM;
	case WS_VERDICT_NONE:
		break;
	}
	return "";
}


struct table {
	size_t rows, cols;
	char **cell;            /* rows x cols */
	const char **color;     /* rows x cols */
};

static void table_init(struct table *t, size_t rows, size_t cols)
{
	t->rows = rows;
	t->cols = cols;
	t->cell = xcalloc(rows * cols + 1, sizeof(*t->cell));
	t->color = xcalloc(rows * cols + 1, sizeof(*t->color));
}

static void table_set(struct table *t, size_t r, size_t c, char *text, const char *color)
{
	t->cell[r * t->cols + c] = text;
	t->color[r * t->cols + c] = color;
}

static void table_print(FILE *f, const struct table *t, bool color, int indent)
{
	size_t *w = xcalloc(t->cols, sizeof(*w));

	for (size_t r = 0; r < t->rows; r++)
		for (size_t c = 0; c < t->cols; c++)
			if (t->cell[r * t->cols + c] && ws_text_width(t->cell[r * t->cols + c]) > w[c])
				w[c] = ws_text_width(t->cell[r * t->cols + c]);
	for (size_t r = 0; r < t->rows; r++) {
		fprintf(f, "%*s", indent, "");
		for (size_t c = 0; c < t->cols; c++) {
			const char *s = t->cell[r * t->cols + c] ? t->cell[r * t->cols + c] : "";
			const char *col = color ? t->color[r * t->cols + c] : NULL;

			if (c)
				fputs("   ", f);
			if (col && *col)
				fputs(col, f);
			ws_report_pad(f, s, w[c], c > 0);
			if (col && *col)
				fputs(C_RESET, f);
		}
		fputc('\n', f);
	}
	free(w);
}

static void table_release(struct table *t)
{
	for (size_t i = 0; i < t->rows * t->cols; i++)
		free(t->cell[i]);
	free(t->cell);
	free(t->color);
}

static bool shown(const struct ws_metric *m)
{
	return !(m->flags & WS_M_UNSUPPORTED);
}

/*
 * A cell; one against a baseline of 0 shows the variant's own median, which no ratio can: coherence
 * misses that appear only in the variant read "new: 95,096 (baseline 0)", not a bare "new".
 */
static char *new_or_cell(const struct ws_variant *v, const struct ws_comparison *c, const char *region)
{
	const struct ws_group *g = region ? ws_group_list_find(&v->regions, region) : NULL;
	const struct ws_metric *m;
	char val[64];

	if (!c || c->verdict == WS_VERDICT_NONE || isfinite(c->ratio) || c->function || (region && !g) ||
	    !(m = ws_metric_set_find(g ? &g->metrics : &v->metrics, c->metric)) || !isfinite(m->sum.median) ||
	    m->sum.median == 0)
		return ws_report_cell_text(c);
	return xasprintf("%s: %s%s (baseline 0)", c->verdict == WS_VERDICT_SAME ? "~ new" : "new",
			 ws_format_value(val, sizeof(val), m->name, m->sum.median), c->exact ? " exact" : "");
}

/* One table: the baseline's metrics in `bs` against each variant's comparisons in that scope. */
static void compare_table(FILE *f, const struct ws_result *r, const struct ws_variant *base,
			  const struct ws_metric_set *bs, const char *region, const char *function,
			  const struct ws_report_opts *o, int indent)
{
	struct table t;
	size_t rows = 1, row = 1, col, name_w = ws_report_name_width(o, r);
	char *base_name = ws_text_elide_middle(base->name, name_w);

	for (size_t i = 0; i < bs->n; i++)
		rows += shown(&bs->v[i]);
	table_init(&t, rows, r->nvariants + 1);
	table_set(&t, 0, 0, xstrdup("metric"), C_DIM);
	table_set(&t, 0, 1, xasprintf("%s (baseline)", base_name), C_BOLD);
	free(base_name);
	col = 2;
	for (size_t v = 0; v < r->nvariants; v++)
		if (&r->variants[v] != base)
			table_set(&t, 0, col++, ws_text_elide_middle(r->variants[v].name, name_w), C_BOLD);
	for (size_t i = 0; i < bs->n; i++) {
		const struct ws_metric *m = &bs->v[i];
		char val[64];

		if (!shown(m))
			continue;
		table_set(&t, row, 0, xasprintf("%s%s", m->name, m->flags & WS_M_SIMULATED ? " [sim]" : ""), NULL);
		table_set(&t, row, 1, xstrdup(ws_format_value(val, sizeof(val), m->name, m->sum.median)), NULL);
		col = 2;
		for (size_t v = 0; v < r->nvariants; v++) {
			const struct ws_comparison *c;

			if (&r->variants[v] == base)
				continue;
			c = ws_comparison_find(r, r->variants[v].name, m->name, region, function);
			table_set(&t, row, col++, new_or_cell(&r->variants[v], c, region), verdict_color(c));
		}
		row++;
	}
	table_print(f, &t, o->color, indent);
	table_release(&t);
}

/* The metrics nobody could measure, grouped by reason: one line each. */
static void unsupported_footer(FILE *f, const struct ws_variant *base, const struct ws_report_opts *o)
{
	bool *done = xcalloc(base->metrics.n + 1, sizeof(*done));

	for (size_t i = 0; i < base->metrics.n; i++) {
		const struct ws_metric *m = &base->metrics.v[i];

		if (!(m->flags & WS_M_UNSUPPORTED) || done[i])
			continue;
		fprintf(f, " %snot measured:%s %s", o->color ? C_DIM : "", o->color ? C_RESET : "", m->name);
		for (size_t j = i + 1; j < base->metrics.n; j++) {
			const struct ws_metric *n = &base->metrics.v[j];

			if ((n->flags & WS_M_UNSUPPORTED) && !done[j] && !strcmp(n->reason, m->reason)) {
				fprintf(f, ", %s", n->name);
				done[j] = true;
			}
		}
		fprintf(f, " (%s)\n", m->reason);
	}
	free(done);
}

/* Per-function: the functions whose share moved most, with their CIs, like a differential profile. */
struct fn_row {
	const char *name;
	const struct ws_comparison *c; /* NULL: one side has no such function (ws_report_one_sided) */
	double base, var;              /* median shares */
};

static int fn_row_cmp(const void *a, const void *b)
{
	const struct fn_row *x = a, *y = b;
	double dx = fabs(x->var - x->base), dy = fabs(y->var - y->base);

	if (!isfinite(dx))
		dx = -1;
	if (!isfinite(dy))
		dy = -1;
	return (dx < dy) - (dx > dy);
}

static double share_of(const struct ws_variant *v, const char *fn)
{
	const struct ws_group *g = ws_group_list_find(&v->functions, fn);

	return g ? ws_function_share(v, g) : 0.0;
}

static double median_in(const struct ws_metric_set *s, const char *metric)
{
	const struct ws_metric *m = s ? ws_metric_set_find(s, metric) : NULL;

	return m && m->sum.n ? m->sum.median : NAN;
}

/*
 * What the "grew in" cell of a library function's row says ("fell in" when it fell): its caller that
 * accounts for most of the change in its inclusive `metric` (the row's), with that caller's part of the
 * change (above 100% when other callers changed the other way). No caller for the program's own functions,
 * where no call chains were recorded, and where the best caller holds under 5% of the change: the change then
 * has no caller to name (a recursive function, or stacks cut at the tool's depth limit), and "(0%)" read as
 * one. None too where the inclusive change goes the other way from the row's own (`dir`: +1 the row grew, -1 it
 * fell, 0 neither): a function whose own cycles fell while its callees' grew read "-42% grew in".
 */
struct grew_in {
	const char *caller; /* NULL: no cell */
	double part;        /* of the change */
	bool grew;
};

static struct grew_in grew_in(const struct ws_variant *base, const struct ws_variant *var, const char *fn,
			      const char *metric, struct ws_own *own, int dir)
{
	const struct ws_group *vg = ws_group_list_find(&var->functions, fn), *bg = ws_group_list_find(&base->functions, fn);
	const struct ws_group *best = NULL;
	double total, bi, best_d = 0;
	struct grew_in none = { NULL, 0, false };

	if (!vg || !vg->callers.n || ws_own_object(own, vg->object))
		return none;
	bi = bg ? median_in(&bg->inclusive, metric) : 0;
	total = median_in(&vg->inclusive, metric) - (isfinite(bi) ? bi : 0);
	if (!isfinite(total) || total == 0 || (total > 0 ? 1 : -1) != dir)
		return none;
	for (size_t i = 0; i < vg->callers.n; i++) {
		const struct ws_group *c = &vg->callers.v[i], *bc = bg ? ws_group_list_find(&bg->callers, c->name) : NULL;
		double b = bc ? median_in(&bc->metrics, metric) : 0, d = median_in(&c->metrics, metric) - (isfinite(b) ? b : 0);

		if (isfinite(d) && d != 0 && (d > 0) == (total > 0) && fabs(d) > fabs(best_d)) {
			best = c;
			best_d = d;
		}
	}
	if (!best || best_d / total < 0.05)
		return none;
	return (struct grew_in){ best->name, best_d / total, total > 0 };
}

/* The rows of functions only one side has ("new", "gone"), after `n` rows; *metric is set if still unknown. */
static size_t add_one_sided(struct fn_row *rows, size_t n, const struct ws_variant *base, const struct ws_variant *var,
			    const char **metric)
{
	struct ws_one_sided *one = xcalloc(base->functions.n + var->functions.n + 1, sizeof(*one));
	size_t k = ws_report_one_sided(base, var, one);

	for (size_t i = 0; i < k; i++) {
		rows[n++] = (struct fn_row){ one[i].name, NULL, one[i].base, one[i].var };
		if (!*metric)
			*metric = one[i].metric;
	}
	free(one);
	return n;
}

static void functions_table(FILE *f, const struct ws_result *r, const struct ws_variant *base,
			    const struct ws_report_opts *o)
{
	size_t top = o->top ? o->top : 10;

	for (size_t v = 0; v < r->nvariants; v++) {
		const struct ws_variant *var = &r->variants[v];
		struct fn_row *rows;
		size_t n = 0, wide = 0, name_w = 36;
		const char *metric = NULL;
		struct ws_own *own;
		struct ws_report_names *names;
		struct grew_in *in;
		char **cells, **grew;

		if (var == base)
			continue;
		rows = xcalloc(r->ncomparisons + base->functions.n + var->functions.n + 1, sizeof(*rows));
		for (size_t i = 0; i < r->ncomparisons; i++) {
			const struct ws_comparison *c = &r->comparisons[i];

			/* One row per function: its sampled share, else its simulated estimated cycles. */
			if (!c->function || c->caller || c->inclusive || strcmp(c->variant, var->name))
				continue;
			if (strcmp(c->metric, "share") && strcmp(c->metric, "estimated-cycles"))
				continue;
			metric = c->metric;
			rows[n].name = c->function;
			rows[n].c = c;
			rows[n].base = share_of(base, c->function);
			rows[n].var = share_of(var, c->function);
			n++;
		}
		n = add_one_sided(rows, n, base, var, &metric);
		qsort(rows, n, sizeof(*rows), fn_row_cmp);
		if (n > top)
			n = top;
		/* A library function's row names the caller that made it grow: the program's code to look at. */
		own = ws_own_new(var, NULL, o->own);
		names = ws_report_names_new(o);
		in = xcalloc(n + 1, sizeof(*in));
		for (size_t i = 0; i < n; i++) {
			in[i] = grew_in(base, var, rows[i].name, metric, own,
					rows[i].c ? (rows[i].c->ratio > 1) - (rows[i].c->ratio < 1) : rows[i].var > 0 ? 1 : -1);
			ws_report_names_add(names, rows[i].name);
			if (in[i].caller)
				ws_report_names_add(names, in[i].caller);
		}
		cells = xcalloc(n + 1, sizeof(*cells));
		grew = xcalloc(n + 1, sizeof(*grew));
		for (size_t i = 0; i < n; i++) {
			cells[i] = rows[i].c ? ws_report_cell_text(rows[i].c) : xstrdup(rows[i].var > 0 ? "new" : "gone");
			/* The caller as the rows show names: elided the same way, told apart from them (-v: whole). */
			if (in[i].caller) {
				char *shown = ws_report_names_get(names, in[i].caller, 0);

				grew[i] = xasprintf("%s %s (%.0f%%)", in[i].grew ? "grew in" : "fell in", shown, 100 * in[i].part);
				free(shown);
				if (ws_text_width(cells[i]) > wide)
					wide = ws_text_width(cells[i]);
			}
			name_w = ws_report_names_column(names, rows[i].name, name_w);
		}
		if (n)
			fprintf(f, "\n %sfunctions: %s, %s against %s%s\n", o->color ? C_BOLD : "",
				!strcmp(metric, "share") ? "share of samples" : "share of estimated cycles (change in the function's own cycles)",
				var->name, base->name, o->color ? C_RESET : "");
		for (size_t i = 0; i < n; i++) {
			char *shown = ws_report_names_get(names, rows[i].name, name_w);

			fprintf(f, "   %s %6.2f%% -> %6.2f%%   %s", shown, 100 * rows[i].base, 100 * rows[i].var,
				o->color ? (rows[i].c ? verdict_color(rows[i].c) : C_BOLD) : "");
			ws_report_pad(f, cells[i], grew[i] ? wide : 0, false);
			fprintf(f, "%s", o->color ? C_RESET : "");
			if (grew[i])
				fprintf(f, "   %s", grew[i]);
			fputc('\n', f);
			free(cells[i]);
			free(grew[i]);
			free(shown);
		}
		free(cells);
		free(grew);
		free(in);
		ws_report_names_free(names);
		ws_own_free(own);
		free(rows);
	}
}

/* ", backend perf+sim (preset zen4), native runs with ...": the runs' backend, for the text and Markdown heads. */
static void backend_note(FILE *f, const struct ws_result *r)
{
	if (r->machine.backend)
		fprintf(f, ", backend %s", r->machine.backend);
	if (r->machine.sim_preset)
		fprintf(f, " (preset %s)", r->machine.sim_preset);
	if (r->settings.sim_cpu_native)
		fprintf(f, ", native runs with the simulated CPU's features");
	fputs(scope_note(r), f);
}

/*
 * The explanation, after the tables: a verdict line per variant, what lies outside the model when the
 * simulator does not reproduce the measured difference, then the material causes by share. Immaterial
 * causes (under WS_MATERIAL of the measured difference) stay in the result file, since the shares sum to 1,
 * and are counted on one line here.
 */
static void explain_section(FILE *f, const struct ws_result *r, const struct ws_report_opts *o)
{
	/* The result's names shortened once for every sentence: per sentence, a report of 5,000 functions took 30 s. */
	struct ws_report_names *names = ws_report_sentence_names(o, r);

	for (size_t i = 0; i < r->nexplain; i++) {
		const struct ws_explanation *e = &r->explain[i];
		size_t minor = 0;

		/* A result file may hold an explanation without its summary (the reader is lenient): no line then. */
		char *summary = e->summary ? ws_report_names_sentence(names, e->summary) : NULL;

		if (summary)
			fprintf(f, "\n %swhy:%s %s\n", o->color ? C_BOLD : "", o->color ? C_RESET : "", summary);
		free(summary);
		if (e->has_topdown) {
			static const char *const what[4] = { "frontend", "bad speculation", "backend", "retiring" };

			fprintf(f, "   top-down (level 1, share of slots):");
			for (int k = 0; k < 4; k++)
				fprintf(f, "%s %s %.0f%% -> %.0f%%", k ? "," : "", what[k], 100 * e->topdown_base[k],
					100 * e->topdown_var[k]);
			fputc('\n', f);
		}
		for (size_t j = 0; j < e->noutside; j++)
			fprintf(f, "   outside the model: %s: %s\n", e->outside[j].cause, e->outside[j].evidence);
		for (size_t j = 0; j < e->ncauses; j++) {
			const struct ws_cause *c = &e->causes[j];
			char ci[48] = "";

			if (!c->material) {
				minor++;
				continue;
			}
			if (isfinite(c->share_lo) && c->share_hi - c->share_lo > 0.005)
				snprintf(ci, sizeof(ci), " [%.0f, %.0f]", 100 * c->share_lo, 100 * c->share_hi);
			fprintf(f, "   %5.0f%%%-12s %-26s %+10.3g cycles", 100 * c->share, ci, c->metric, c->delta_cycles);
			for (size_t k = 0; k < c->nwhere; k++) {
				char *where = ws_report_names_sentence(names, c->where[k]);

				fprintf(f, "%s%s", k ? ", " : "   in ", where);
				free(where);
			}
			fputc('\n', f);
			if (c->next_step) {
				char *next = ws_report_names_sentence(names, c->next_step);

				fprintf(f, "   %19s %snext: %s%s\n", "", o->color ? C_DIM : "", next, o->color ? C_RESET : "");
				free(next);
			}
		}
		if (minor)
			fprintf(f, "   %s(%zu more, immaterial: each under %.0f%% of the measured difference)%s\n",
				o->color ? C_DIM : "", minor, 100 * WS_MATERIAL, o->color ? C_RESET : "");
	}
	ws_report_names_free(names);
}


/* The primary metric gates the rest: say so when some comparison was held back by it. */
static const char *gate_legend(const struct ws_result *r)
{
	for (size_t i = 0; i < r->ncomparisons; i++)
		if (r->comparisons[i].gate_closed)
			return ", or not tested as the primary metric is not significant";
	return "";
}

void ws_report_compare(FILE *f, const struct ws_result *r, const struct ws_report_opts *o)
{
	const struct ws_variant *base = ws_result_baseline((struct ws_result *)r);
	char *runs;

	if (!base)
		return;
	runs = ws_report_programs_runs(r);
	/* A result with no run order was made from saved ones, by diff. */
	fprintf(f, "\n %swhyslow %s:%s %s", o->color ? C_BOLD : "", r->settings.order ? "compare" : "diff",
		o->color ? C_RESET : "", runs);
	free(runs);
	if (r->settings.order)
		fprintf(f, ", %s (seed %llu)", r->settings.order, (unsigned long long)r->settings.seed);
	else
		fprintf(f, ", from saved results");
	if (r->settings.paired)
		fprintf(f, ", paired");
	backend_note(f, r);
	fprintf(f, "\n\n");
	compare_table(f, r, base, &base->metrics, NULL, NULL, o, 1);
	if (o->regions) {
		bool any = false;

		for (size_t i = 0; i < r->nvariants; i++)
			any |= r->variants[i].regions.n > 0;
		if (!any)
			fprintf(f, "\n %s%s%s\n", o->color ? C_DIM : "", WS_NO_REGIONS, o->color ? C_RESET : "");
		for (size_t i = 0; i < base->regions.n; i++) {
			fprintf(f, "\n %sregion %s%s\n", o->color ? C_BOLD : "", base->regions.v[i].name,
				o->color ? C_RESET : "");
			compare_table(f, r, base, &base->regions.v[i].metrics, base->regions.v[i].name, NULL, o, 1);
		}
	}
	if (o->functions)
		functions_table(f, r, base, o);
	/* The simulator's threads: the variants' contended lines, the baseline's only when it has some. */
	for (size_t i = 0; i < r->nvariants; i++)
		ws_report_threads(f, &r->variants[i], r->variants[i].name, o, 1);
	explain_section(f, r, o);
	fputc('\n', f);
	unsupported_footer(f, base, o);
	fprintf(f, " %slegend: %s; ~ not significant (%s-adjusted p >= %g%s); ≈ within the noise threshold (±%g%%); "
		"exact: simulated counts, deterministic or far apart%s\n",
		o->color ? C_DIM : "", ws_report_estimate_legend(r), r->settings.fdr ? "BH" : "Holm", r->settings.alpha,
		gate_legend(r), 100 * r->settings.noise, o->color ? C_RESET : "");
	if (r->partial)
		fprintf(f, " %sPartial result: %s.%s\n", o->color ? C_YELLOW : "",
			r->partial_reason ? r->partial_reason : "stopped early", o->color ? C_RESET : "");
	for (size_t i = 0; i < r->nwarnings; i++)
		fprintf(f, " %swarning:%s %s\n", o->color ? C_YELLOW : "", o->color ? C_RESET : "", r->warnings[i]);
}

/* --- Markdown --- */

/*
 * A program's or region's name as Markdown text: its characters shown as they are, not read as a table's
 * column ('|'), HTML ('<', '&': GitHub renders both) or emphasis ('*', '_', '`').
 */
static void md_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '|': case '*': case '_': case '`': case '\\': case '[': case ']':
			fputc('\\', f);
			fputc(*s, f);
			break;
		default: fputc(*s, f);
		}
	}
}

static void md_table(FILE *f, const struct ws_result *r, const struct ws_variant *base, const struct ws_metric_set *bs,
		     const char *region)
{
	fputs("| metric | ", f);
	md_text(f, base->name);
	fputs(" (baseline) |", f);
	for (size_t v = 0; v < r->nvariants; v++)
		if (&r->variants[v] != base) {
			fputc(' ', f);
			md_text(f, r->variants[v].name);
			fputs(" |", f);
		}
	fprintf(f, "\n|---|---:|");
	for (size_t v = 1; v < r->nvariants; v++)
		fprintf(f, "---:|");
	fputc('\n', f);
	for (size_t i = 0; i < bs->n; i++) {
		const struct ws_metric *m = &bs->v[i];
		char val[64];

		if (!shown(m))
			continue;
		fprintf(f, "| %s%s | %s |", m->name, m->flags & WS_M_SIMULATED ? " (sim)" : "",
			ws_format_value(val, sizeof(val), m->name, m->sum.median));
		for (size_t v = 0; v < r->nvariants; v++) {
			const struct ws_comparison *c;
			char *cell;

			if (&r->variants[v] == base)
				continue;
			c = ws_comparison_find(r, r->variants[v].name, m->name, region, NULL);
			cell = ws_report_cell_text(c);
			if (c && (c->verdict == WS_VERDICT_SLOWER || c->verdict == WS_VERDICT_FASTER ||
				  c->verdict == WS_VERDICT_CHANGED))
				fprintf(f, " **%s** %s |", cell, ws_verdict_name(c->verdict));
			else
				fprintf(f, " %s |", cell);
			free(cell);
		}
		fputc('\n', f);
	}
}

/* Tables longer than this go in <details>, so that a pull-request comment stays short to read. */
#define MD_SHORT_TABLE 12

static void md_folded_table(FILE *f, const struct ws_result *r, const struct ws_variant *base,
			    const struct ws_metric_set *bs, const char *region)
{
	size_t rows = 0;

	for (size_t i = 0; i < bs->n; i++)
		rows += shown(&bs->v[i]);
	if (rows > MD_SHORT_TABLE) {
		fprintf(f, "\n<details><summary>%s", region ? "region " : "the whole process");
		if (region)
			md_text(f, region);
		fprintf(f, ": %zu metrics</summary>\n\n", rows);
	} else if (region) {
		fputs("\n**region ", f);
		md_text(f, region);
		fputs("**\n\n", f);
	} else
		fputc('\n', f);
	md_table(f, r, base, bs, region);
	if (rows > MD_SHORT_TABLE)
		fputs("\n</details>\n", f);
}

/* The first line: each variant's verdict on the comparison its explanation is about. */
static void md_summary_line(FILE *f, const struct ws_result *r, const struct ws_variant *base)
{
	const char *metric = NULL;
	bool one_metric = true;

	for (size_t v = 0; v < r->nvariants; v++) {
		const struct ws_comparison *h = &r->variants[v] != base ? ws_report_headline(r, r->variants[v].name) : NULL;

		if (h && metric && strcmp(metric, h->metric))
			one_metric = false;
		if (h && !metric)
			metric = h->metric;
	}
	fputs("**whyslow** against ", f);
	md_text(f, base->name);
	fprintf(f, "%s%s%s:", metric && one_metric ? " (" : "", metric && one_metric ? metric : "",
		metric && one_metric ? ")" : "");
	for (size_t v = 0, k = 0; v < r->nvariants; v++) {
		const struct ws_variant *var = &r->variants[v];
		const struct ws_comparison *h;
		char *cell;

		if (var == base)
			continue;
		h = ws_report_headline(r, var->name);
		fprintf(f, "%s ", k++ ? ";" : "");
		md_text(f, var->name);
		fputc(' ', f);
		if (!h) {
			fputs("not compared", f);
			continue;
		}
		cell = ws_report_cell_text(h);
		if (h->verdict == WS_VERDICT_SLOWER || h->verdict == WS_VERDICT_FASTER || h->verdict == WS_VERDICT_CHANGED)
			fprintf(f, "**%s %s**", cell, ws_verdict_name(h->verdict));
		else
			fprintf(f, "%s %s", cell, ws_verdict_name(h->verdict));
		if (!one_metric)
			fprintf(f, " in %s", h->metric);
		free(cell);
	}
	fputc('\n', f);
}

void ws_report_markdown(FILE *f, const struct ws_result *r)
{
	const struct ws_variant *base = ws_result_baseline((struct ws_result *)r);
	char *runs;

	if (!base)
		return;
	md_summary_line(f, r, base);
	runs = ws_report_programs_runs(r);
	fprintf(f, "\n%s", runs);
	free(runs);
	backend_note(f, r);
	fprintf(f, ".\n");
	/*
	 * The bullets quote names too ('NAME' is slower ...), and a pull-request comment renders HTML: each
	 * part as text, as the headline and the table have it, or a name </script><img onerror=...> runs.
	 */
	for (size_t i = 0; i < r->nexplain; i++) {
		if (r->explain[i].summary) {
			fprintf(f, "%s- **", i ? "" : "\n");
			md_text(f, r->explain[i].variant);
			fputs("**: ", f);
			md_text(f, r->explain[i].summary);
			fputc('\n', f);
		}
		for (size_t j = 0; j < r->explain[i].noutside; j++) {
			fputs("  - outside the model, ", f);
			md_text(f, r->explain[i].outside[j].cause);
			fputs(": ", f);
			md_text(f, r->explain[i].outside[j].evidence);
			fputc('\n', f);
		}
	}
	md_folded_table(f, r, base, &base->metrics, NULL);
	for (size_t i = 0; i < base->regions.n; i++)
		md_folded_table(f, r, base, &base->regions.v[i].metrics, base->regions.v[i].name);
	fprintf(f, "\n%c%s; ~ not significant (%s-adjusted p >= %g%s); ≈ within ±%g%%; exact: simulated "
		"counts, deterministic or far apart.\n",
		toupper((unsigned char)ws_report_estimate_legend(r)[0]), ws_report_estimate_legend(r) + 1, r->settings.fdr ? "BH" : "Holm",
		r->settings.alpha, gate_legend(r), 100 * r->settings.noise);
	if (r->partial) {
		fputs("\n**Partial result**: ", f);
		md_text(f, r->partial_reason ? r->partial_reason : "stopped early");
		fputs(".\n", f);
	}
	if (r->nwarnings > 3)
		fprintf(f, "\n<details><summary>%zu warnings</summary>\n", r->nwarnings);
	for (size_t i = 0; i < r->nwarnings; i++) {
		/* Warnings name programs too ('NAME' has no test of ...). */
		fputs("\n> warning: ", f);
		md_text(f, r->warnings[i]);
		fputc('\n', f);
	}
	if (r->nwarnings > 3)
		fputs("\n</details>\n", f);
}

/* --- CSV: one row per comparison, long format, for spreadsheets and scripts --- */

/* One CSV field: quoted when it holds a comma, a quote or a newline (RFC 4180). */
static void csv_field(FILE *f, const char *s)
{
	if (!s[strcspn(s, ",\"\n")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* A number as a field, exactly (17 digits); empty when not measured. Into a buffer of 32 bytes. */
static const char *csv_num(char *buf, double x)
{
	if (!isfinite(x))
		return "";
	snprintf(buf, 32, "%.17g", x);
	return buf;
}

/*
 * The metric set a comparison is about in variant `v`: the whole process's, a region's, a function's own,
 * its inclusive one, or its calls from one caller. NULL when the variant has no such group.
 */
static const struct ws_metric_set *cmp_set(const struct ws_variant *v, const struct ws_comparison *c)
{
	const struct ws_group *g;

	if (!v)
		return NULL;
	if (c->region)
		return (g = ws_group_list_find(&v->regions, c->region)) ? &g->metrics : NULL;
	if (!c->function)
		return &v->metrics;
	if (!(g = ws_group_list_find(&v->functions, c->function)))
		return NULL;
	if (c->inclusive)
		return &g->inclusive;
	if (c->caller)
		return (g = ws_group_list_find(&g->callers, c->caller)) ? &g->metrics : NULL;
	return &g->metrics;
}

void ws_report_csv(FILE *f, const struct ws_result *r)
{
	static const char *const header[] = {
		"variant", "baseline", "metric", "region", "function", "caller", "inclusive", "baseline_median",
		"variant_median", "ratio", "ci_lo", "ci_hi", "p", "p_adjusted", "verdict", "exact", "simulated",
		"unit", "partial",
	};
	const size_t nf = ARRAY_SIZE(header);

	for (size_t k = 0; k < nf; k++)
		fprintf(f, "%s%s", k ? "," : "", header[k]);
	fputc('\n', f);
	for (size_t i = 0; i < r->ncomparisons; i++) {
		const struct ws_comparison *c = &r->comparisons[i];
		const struct ws_metric_set *bs = cmp_set(ws_result_find_variant((struct ws_result *)r, c->baseline), c);
		const struct ws_metric_set *vs = cmp_set(ws_result_find_variant((struct ws_result *)r, c->variant), c);
		const struct ws_metric *bm = bs ? ws_metric_set_find(bs, c->metric) : NULL;
		const struct ws_metric *vm = vs ? ws_metric_set_find(vs, c->metric) : NULL;
		char nums[7][32];
		const char *row[19];

		row[0] = c->variant;
		row[1] = c->baseline;
		row[2] = c->metric;
		row[3] = c->region ? c->region : "";
		row[4] = c->function ? c->function : "";
		row[5] = c->caller ? c->caller : "";
		row[6] = c->inclusive ? "true" : "false";
		row[7] = csv_num(nums[0], bm ? bm->sum.median : NAN);
		row[8] = csv_num(nums[1], vm ? vm->sum.median : NAN);
		row[9] = csv_num(nums[2], c->ratio);
		row[10] = csv_num(nums[3], c->ci_lo);
		row[11] = csv_num(nums[4], c->ci_hi);
		row[12] = csv_num(nums[5], c->p);
		row[13] = csv_num(nums[6], c->p_adjusted);
		row[14] = ws_verdict_name(c->verdict);
		row[15] = c->exact ? "true" : "false";
		row[16] = bm && (bm->flags & WS_M_SIMULATED) ? "true" : "false";
		/* The medians' unit, and whether the result was cut short (every row: a spreadsheet has no header note). */
		row[17] = ws_unit_name(ws_metric_unit(c->metric));
		row[18] = r->partial ? "true" : "false";
		for (size_t k = 0; k < nf; k++) {
			if (k)
				fputc(',', f);
			csv_field(f, row[k]);
		}
		fputc('\n', f);
	}
}

int ws_report_export(const struct ws_result *r, const char *path, void (*fn)(FILE *, const struct ws_result *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret;

	if (!f)
		return -errno;
	fn(f, r);
	fclose(f);
	ret = ws_write_atomic(path, buf, len);
	free(buf);
	return ret;
}

int ws_export_csv(const struct ws_result *r, const char *path)
{
	return ws_report_export(r, path, ws_report_csv);
}

int ws_export_markdown(const struct ws_result *r, const char *path)
{
	return ws_report_export(r, path, ws_report_markdown);
}
