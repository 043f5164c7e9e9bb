/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report-html.c - a saved result as one self-contained HTML page (no scripts, no external files). */
#include "compare/compare.h"
#include "report/report.h"
#include "result/metrics.h"

#include <math.h>
#include <string.h>

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static const char *css_class(const struct ws_comparison *c)
{
	if (!c)
		return "none";
	return ws_verdict_name(c->verdict);
}

static void cell(FILE *f, const struct ws_comparison *c)
{
	if (!c || !isfinite(c->ratio)) {
		fputs("<td class=\"none\">-</td>", f);
		return;
	}
	fprintf(f, "<td class=\"%s\" title=\"p=%.3g, adjusted %.3g\">%+.2f%%", css_class(c), c->p, c->p_adjusted,
		100 * (c->ratio - 1));
	if (!c->exact && isfinite(c->ci_lo))
		fprintf(f, " <small>[%+.2f, %+.2f]</small>", 100 * (c->ci_lo - 1), 100 * (c->ci_hi - 1));
	fprintf(f, " <small>%s</small></td>", ws_verdict_name(c->verdict));
}

static void table(FILE *f, const struct ws_result *r, const struct ws_variant *base, const struct ws_metric_set *set,
		  const char *region)
{
	char buf[64];

	fputs("<table><tr><th>metric</th>", f);
	for (size_t v = 0; v < r->nvariants; v++) {
		fputs("<th>", f);
		esc(f, r->variants[v].name);
		fputs(&r->variants[v] == base ? " (baseline)</th>" : "</th>", f);
	}
	fputs("</tr>\n", f);
	for (size_t i = 0; i < set->n; i++) {
		const struct ws_metric *m = &set->v[i];

		fputs("<tr><td>", f);
		esc(f, m->name);
		if (m->flags & WS_M_SIMULATED)
			fputs(" <small>sim</small>", f);
		fputs("</td>", f);
		if (m->flags & WS_M_UNSUPPORTED) {
			fprintf(f, "<td colspan=\"%zu\" class=\"none\">", r->nvariants);
			esc(f, m->reason);
			fputs("</td></tr>\n", f);
			continue;
		}
		for (size_t v = 0; v < r->nvariants; v++) {
			if (&r->variants[v] == base) {
				fprintf(f, "<td>%s</td>", ws_format_value(buf, sizeof(buf), m->name, m->sum.median));
				continue;
			}
			cell(f, ws_comparison_find(r, r->variants[v].name, m->name, region, NULL));
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

void ws_report_html(FILE *f, const struct ws_result *r)
{
	const struct ws_variant *base = ws_result_baseline((struct ws_result *)r);

	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>whyslow report</title>\n<style>\n"
	      "body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}"
	      "td,th{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:right}td:first-child,th:first-child"
	      "{text-align:left}.slower{color:#b00}.faster{color:#070}.changed{color:#a60}.same,.noise,.none"
	      "{color:#888}small{color:#666}.warn{color:#a60}\n</style></head><body>\n",
	      f);
	fputs("<h1>whyslow</h1>\n<p>", f);
	esc(f, r->machine.cpu ? r->machine.cpu : "unknown CPU");
	fputs(", kernel ", f);
	esc(f, r->machine.kernel ? r->machine.kernel : "?");
	fputs(", backend ", f);
	esc(f, r->machine.backend ? r->machine.backend : "?");
	if (r->machine.sim_preset) {
		fputs(" (preset ", f);
		esc(f, r->machine.sim_preset);
		fputs(")", f);
	}
	fprintf(f, ", %zu runs per program.</p>\n", r->settings.runs);
	if (base)
		table(f, r, base, &base->metrics, NULL);
	for (size_t i = 0; base && i < base->regions.n; i++) {
		fputs("<h2>region ", f);
		esc(f, base->regions.v[i].name);
		fputs("</h2>\n", f);
		table(f, r, base, &base->regions.v[i].metrics, base->regions.v[i].name);
	}
	for (size_t i = 0; i < r->nexplain; i++) {
		const struct ws_explanation *e = &r->explain[i];

		fputs("<h2>why: ", f);
		esc(f, e->variant);
		fputs("</h2>\n<p>", f);
		esc(f, e->summary);
		fputs("</p>\n<ul>", f);
		for (size_t j = 0; j < e->ncauses; j++) {
			fprintf(f, "<li>%.0f%% ", 100 * e->causes[j].share);
			esc(f, e->causes[j].metric);
			for (size_t k = 0; k < e->causes[j].nwhere; k++) {
				fputs(k ? ", " : " in ", f);
				esc(f, e->causes[j].where[k]);
			}
			if (e->causes[j].next_step) {
				fputs(": ", f);
				esc(f, e->causes[j].next_step);
			}
			fputs("</li>", f);
		}
		fputs("</ul>\n", f);
	}
	if (r->partial) {
		fputs("<p class=\"warn\">Partial result: ", f);
		esc(f, r->partial_reason);
		fputs("</p>\n", f);
	}
	for (size_t i = 0; i < r->nwarnings; i++) {
		fputs("<p class=\"warn\">warning: ", f);
		esc(f, r->warnings[i]);
		fputs("</p>\n", f);
	}
	fputs("</body></html>\n", f);
}
