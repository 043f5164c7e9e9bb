/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report-text.c - the terminal tables of `stat` and `compare`. */
#include "core/util.h"
#include "report/report-internal.h"
#include "report/report.h"
#include "result/metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


static const char *col(const struct ws_report_opts *o, const char *c)
{
	return o && o->color ? c : "";
}

static void stat_metric_row(FILE *f, const struct ws_metric *m, const struct ws_report_opts *o, int indent)
{
	const struct ws_summary *s = &m->sum;
	char mean[40], med[40], lo[40], hi[40], rel[24], share[24];

	if (m->flags & WS_M_UNSUPPORTED) {
		fprintf(f, "%*s%-28s %s%s%s\n", indent, "", m->name, col(o, C_DIM),
			m->reason ? m->reason : "not supported", col(o, C_RESET));
		return;
	}
	if (!s->n) {
		fprintf(f, "%*s%-28s %s<not counted>%s\n", indent, "", m->name, col(o, C_DIM), col(o, C_RESET));
		return;
	}
	ws_format_value(mean, sizeof(mean), m->name, s->mean);
	ws_format_value(med, sizeof(med), m->name, s->median);
	ws_format_value(lo, sizeof(lo), m->name, s->min);
	ws_format_value(hi, sizeof(hi), m->name, s->max);
	if (m->flags & WS_M_EXACT)
		snprintf(rel, sizeof(rel), "exact");
	else if (s->n > 1 && s->mean != 0)
		snprintf(rel, sizeof(rel), "± %.1f%%", 100 * s->stddev / fabs(s->mean));
	else
		snprintf(rel, sizeof(rel), " ");
	share[0] = '\0';
	if (isfinite(s->running) && s->running < 0.9995)
		snprintf(share, sizeof(share), "  (counted %.1f%%)", 100 * s->running);
	fprintf(f, "%*s%-28s %16s %-8s %16s  %14s .. %-14s%s%s%s\n", indent, "", m->name, mean, rel, med, lo, hi,
		m->flags & WS_M_SIMULATED ? "  [sim]" : "", share,
		s->n < m->n ? "  (some runs not counted)" : "");
}

static void stat_set(FILE *f, const struct ws_metric_set *set, const struct ws_report_opts *o, int indent)
{
	fprintf(f, "%*s%s%-28s %16s %-8s %16s  %14s    %-14s%s\n", indent, "", col(o, C_DIM), "metric", "mean",
		"± sd", "median", "min", "max", col(o, C_RESET));
	for (size_t i = 0; i < set->n; i++)
		if (!(set->v[i].flags & WS_M_UNSUPPORTED))
			stat_metric_row(f, &set->v[i], o, indent);
	for (size_t i = 0; i < set->n; i++)
		if (set->v[i].flags & WS_M_UNSUPPORTED)
			stat_metric_row(f, &set->v[i], o, indent);
}

/* Callers shown under a function's row: at most this many, each making at least this part of it. */
#define STAT_CALLERS 3
#define STAT_CALLER_MIN 0.01

/* A caller and its part of the function's inclusive share, for sorting. */
struct caller_share {
	double share;
	const struct ws_group *g;
};

static int by_share_desc(const void *a, const void *b)
{
	double x = ((const struct caller_share *)a)->share, y = ((const struct caller_share *)b)->share;

	return (x < y) - (x > y);
}

/*
 * The callers shown under a function's row, most first, at most STAT_CALLERS, each with the part of the
 * function's inclusive share it made, in `c` (room for g->callers.n); how many.
 */
static size_t stat_callers_of(const struct ws_group *g, struct caller_share *c)
{
	size_t n = 0;

	for (size_t i = 0; i < g->callers.n; i++) {
		double share = ws_caller_share(g, &g->callers.v[i]);

		if (isfinite(share) && share >= STAT_CALLER_MIN)
			c[n++] = (struct caller_share){ share, &g->callers.v[i] };
	}
	qsort(c, n, sizeof(*c), by_share_desc);
	return n < STAT_CALLERS ? n : STAT_CALLERS;
}

/*
 * With --callers, the line under a function's row: its share with what it calls, and who called it, most
 * first, each with the part of that inclusive share it made (as perf report --children and its call graph).
 * The callers' names are the table's (`names`), told apart from its rows'.
 */
static void stat_callers(FILE *f, const struct ws_variant *v, const struct ws_group *g,
			 const struct ws_report_opts *o, struct ws_report_names *names)
{
	double inc = ws_function_inclusive_share(v, g);
	struct caller_share *c;
	size_t n;

	if (!isfinite(inc))
		return;
	c = xmalloc((g->callers.n + 1) * sizeof(*c));
	n = stat_callers_of(g, c);
	fprintf(f, "              %swith callees %.2f%%", col(o, C_DIM), 100 * inc);
	for (size_t k = 0; k < n; k++) {
		char *shown = ws_report_names_get(names, c[k].g->name, 0);

		fprintf(f, "%s %s %.0f%%", k ? "," : "; called from", shown, 100 * c[k].share);
		free(shown);
	}
	fprintf(f, "%s\n", col(o, C_RESET));
	free(c);
}

/*
 * The names stat's table of `v` shows: its first `top` rows (`idx`) and, with --callers, the callers under
 * them. One table: no two of them may read alike.
 */
static struct ws_report_names *stat_names(const struct ws_variant *v, const size_t *idx, size_t top,
					  const struct ws_report_opts *o)
{
	struct ws_report_names *names = ws_report_names_new(o);

	for (size_t j = 0; j < v->functions.n && j < top; j++) {
		const struct ws_group *g = &v->functions.v[idx[j]];

		ws_report_names_add(names, g->name);
		if (o->callers && isfinite(ws_function_inclusive_share(v, g))) {
			struct caller_share *c = xmalloc((g->callers.n + 1) * sizeof(*c));
			size_t n = stat_callers_of(g, c);

			for (size_t k = 0; k < n; k++)
				ws_report_names_add(names, c[k].g->name);
			free(c);
		}
	}
	return names;
}

void ws_report_stat(FILE *f, const struct ws_result *r, const struct ws_report_opts *o)
{
	for (size_t i = 0; i < r->nvariants; i++) {
		const struct ws_variant *v = &r->variants[i];
		size_t runs = v->nruns, samples = 0;
		char *cmd;

		/* A file from elsewhere (samples only, or hyperfine's) records no runs and no backend: say so. */
		for (size_t k = 0; !runs && k < v->metrics.n; k++)
			if (v->metrics.v[k].n > samples)
				samples = v->metrics.v[k].n;
		/* Quoted once: a command line joined from its words carries shell quotes of its own. */
		cmd = ws_quote_name(v->command ? v->command : v->name);

		if (!runs && !r->machine.backend)
			fprintf(f, "\n %sPerformance counter stats for %s%s (%zu sample%s, from a file that records no "
				   "runs or backend):\n\n",
				col(o, C_BOLD), cmd, col(o, C_RESET), samples, samples == 1 ? "" : "s");
		else
			fprintf(f, "\n %sPerformance counter stats for %s%s (%zu run%s, %zu warm-up, backend %s%s%s%s%s):\n\n",
				col(o, C_BOLD), cmd, col(o, C_RESET), runs,
				runs == 1 ? "" : "s", r->settings.warmup, r->machine.backend ? r->machine.backend : "?",
				r->machine.sim_preset ? ", preset " : "", r->machine.sim_preset ? r->machine.sim_preset : "",
				r->settings.sim_cpu_native ? ", native runs with the simulated CPU's features" : "",
				scope_note(r));
		free(cmd);
		stat_set(f, &v->metrics, o, 2);
		if (v->failed_runs)
			fprintf(f, "\n  %s%zu of %zu runs failed (kept with --ignore-failure)%s\n", col(o, C_YELLOW),
				v->failed_runs, runs, col(o, C_RESET));
		if (o->functions && v->functions.n) {
			size_t top = o->top ? o->top : 15, name_w = 40, *idx = xmalloc(v->functions.n * sizeof(*idx));
			double *sh = xmalloc(v->functions.n * sizeof(*sh));
			struct ws_report_names *names;
			bool inlined = false;

			for (size_t j = 0; j < v->functions.n; j++) {
				idx[j] = j;
				sh[j] = ws_function_share(v, &v->functions.v[j]);
			}
			/* Largest share first (a few dozen rows at most after pruning). */
			for (size_t a = 1; a < v->functions.n; a++)
				for (size_t b = a; b > 0 && !(sh[idx[b]] <= sh[idx[b - 1]]); b--) {
					size_t t = idx[b];

					idx[b] = idx[b - 1];
					idx[b - 1] = t;
				}
			fprintf(f, "\n  %sfunctions%s (median share per run)\n", col(o, C_BOLD), col(o, C_RESET));
			names = stat_names(v, idx, top, o);
			for (size_t j = 0; j < v->functions.n && j < top; j++)
				name_w = ws_report_names_column(names, v->functions.v[idx[j]].name, name_w);
			for (size_t j = 0; j < v->functions.n && j < top; j++) {
				const struct ws_group *g = &v->functions.v[idx[j]];
				const char *obj = g->object && strrchr(g->object, '/') ? strrchr(g->object, '/') + 1
										      : g->object;

				char *shown = ws_report_names_get(names, g->name, name_w);

				fprintf(f, "    %6.2f%%  %s %s%s", 100 * sh[idx[j]], shown, col(o, C_DIM), obj ? obj : "");
				free(shown);
				/* The hottest source line, where the profile resolved one. */
				if (g->nlines) {
					const char *file = strrchr(g->lines[0].file, '/') ? strrchr(g->lines[0].file, '/') + 1
											 : g->lines[0].file;

					fprintf(f, "  hottest line %s:%u", file, g->lines[0].line);
				}
				fprintf(f, "%s\n", col(o, C_RESET));
				if (o->callers)
					stat_callers(f, v, g, o, names);
				inlined |= g->inlined;
			}
			/* The cut is no secret: the file has every row. */
			if (v->functions.n > top)
				fprintf(f, "    %s%zu more row%s (all in --export-json)%s\n", col(o, C_DIM), v->functions.n - top,
					v->functions.n - top == 1 ? "" : "s", col(o, C_RESET));
			/*
			 * An inline chain's rows each count the same code (its innermost frames), and that code is also in
			 * the row of the function holding it: their shares add up to more than the whole.
			 */
			if (inlined)
				fprintf(f, "    %slegend: (inlined) rows count code inlined into other functions and overlap the "
					"rows of the functions holding it (shares can add up to over 100%%)%s\n",
					col(o, C_DIM), col(o, C_RESET));
			ws_report_names_free(names);
			free(idx);
			free(sh);
		}
		if (o->regions && !v->regions.n)
			fprintf(f, "\n  %s%s%s\n", col(o, C_DIM), WS_NO_REGIONS, col(o, C_RESET));
		if (o->regions) {
			for (size_t j = 0; j < v->regions.n; j++) {
				fprintf(f, "\n  %sregion %s%s\n", col(o, C_BOLD), v->regions.v[j].name, col(o, C_RESET));
				stat_set(f, &v->regions.v[j].metrics, o, 4);
			}
		}
		ws_report_threads(f, v, NULL, o, 2);
	}
	if (r->partial)
		fprintf(f, "\n %sPartial result: %s.%s\n", col(o, C_YELLOW),
			r->partial_reason ? r->partial_reason : "stopped early", col(o, C_RESET));
	for (size_t i = 0; i < r->nwarnings; i++)
		fprintf(f, " %swarning:%s %s\n", col(o, C_YELLOW), col(o, C_RESET), r->warnings[i]);
	fputc('\n', f);
}
