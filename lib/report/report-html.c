/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report-html.c - a result as one self-contained HTML page of inline SVG plots: no script, no network. */
/*
 * The page answers in the order a reader asks: the verdict per variant and what explains it; which metrics
 * changed (a forest plot); what every run measured (strip plots and run order, where warm-up, drift and
 * bimodality show); where in the code (functions, regions); and how it was measured, with the command to
 * measure it again. Every ratio, CI and value is printed by the terminal's own formatters, and every
 * element that shows a comparison carries data-variant/-metric/-region/-function so that a test can check
 * the page against the result file. Colours are CSS variables, so one stylesheet serves light and dark
 * schemes and print.
 */
#include "compare/compare.h"
#include "core/util.h"
#include "explain/explain.h"
#include "report/report-internal.h"
#include "report/report.h"
#include "result/metrics.h"
#include "symbols/names.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Variant colours: slot 0 is the baseline's, then up to 7 variants before they repeat. */
#define NSLOTS 8
/* Colours of the explanation's causes; "unexplained" has its own. */
#define NCAUSE_SLOTS 7
/* Rows of the differential function profile per variant. */
#define TOP_FUNCTIONS 15

static const char css[] =
	":root{color-scheme:light dark;--bg:#fff;--fg:#1c1c1c;--muted:#636363;--grid:#e3e3e3;--band:#ececec;"
	"--slower:#b3261e;--faster:#17803d;--changed:#9a5b00;--same:#6b6b6b;"
	"--c0:#4d4d4d;--c1:#0072b2;--c2:#d55e00;--c3:#009e73;--c4:#cc79a7;--c5:#b58900;--c6:#56b4e9;--c7:#8c564b;"
	"--k0:#0072b2;--k1:#d55e00;--k2:#009e73;--k3:#cc79a7;--k4:#e69f00;--k5:#56b4e9;--k6:#8c564b;--ku:#a3a3a3}\n"
	"@media (prefers-color-scheme:dark){:root{--bg:#16181b;--fg:#e4e4e4;--muted:#a3a3a3;--grid:#34373c;"
	"--band:#2a2d32;--slower:#ff7b6e;--faster:#5fd38d;--changed:#f2b84b;--same:#a0a0a0;"
	"--c0:#c8c8c8;--c1:#56b4e9;--c2:#ff8c42;--c3:#3fd0a4;--c4:#eba3cf;--c5:#f0c05a;--c6:#a5dcff;--c7:#d0a79d;"
	"--k0:#56b4e9;--k1:#ff8c42;--k2:#3fd0a4;--k3:#eba3cf;--k4:#f0c05a;--k5:#a5dcff;--k6:#d0a79d;--ku:#6e6e6e}}\n"
	"body{background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
	"margin:0 auto;max-width:1120px;padding:1em 1.5em}\n"
	"h1{font-size:1.5em;margin:.3em 0}h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid var(--grid)}"
	"h3{font-size:1.05em;margin:1.2em 0 .3em}h4{font-size:.95em;margin:.8em 0 0}\n"
	"code,pre,.cell,.num{font-family:ui-monospace,'DejaVu Sans Mono',Menlo,monospace;font-size:.92em}"
	"pre{white-space:pre-wrap;word-break:break-all;background:var(--band);padding:.6em .8em;border-radius:4px}\n"
	"table{border-collapse:collapse;margin:.4em 0 .8em}td,th{padding:.2em .7em;border-bottom:1px solid var(--grid);"
	"text-align:right;vertical-align:top}td:first-child,th:first-child{text-align:left}th{font-weight:600}"
	".kv td,.kv th{text-align:left}.kv th{white-space:nowrap}\n"
	".muted,small{color:var(--muted)}.oneline{font-size:1.05em}.summary{margin:.2em 0 .5em}\n"
	".slower{color:var(--slower)}.faster{color:var(--faster)}.changed{color:var(--changed)}"
	".same,.noise,.none{color:var(--same)}.verdict{font-weight:600}.cell,.nowrap{white-space:nowrap}\n"
	".sw{display:inline-block;width:.8em;height:.8em;border-radius:2px;margin-right:.35em;vertical-align:-.05em}\n"
	".legend span{margin-right:1.2em;white-space:nowrap}\n"
	"svg{max-width:100%;height:auto;display:block;margin:.3em 0 .6em;overflow:visible}"
	"svg text{fill:var(--fg);font-size:11px}svg .lbl{fill:var(--muted)}svg text.mono{font-family:ui-monospace,"
	"'DejaVu Sans Mono',monospace;font-size:10.5px}\n"
	"svg .slower,svg .slower tspan{fill:var(--slower)}svg .faster,svg .faster tspan{fill:var(--faster)}"
	"svg .changed,svg .changed tspan{fill:var(--changed)}svg .same,svg .noise,svg .none{fill:var(--same)}\n"
	".ax line{stroke:var(--muted)}.ax text{fill:var(--muted);font-size:10px}.ax .grid,.grid{stroke:var(--grid)}"
	".zero{stroke:var(--muted);stroke-dasharray:3 3}.band{fill:var(--band)}.sep{stroke:var(--grid)}\n"
	".v0{--c:var(--c0)}.v1{--c:var(--c1)}.v2{--c:var(--c2)}.v3{--c:var(--c3)}.v4{--c:var(--c4)}.v5{--c:var(--c5)}"
	".v6{--c:var(--c6)}.v7{--c:var(--c7)}\n"
	".k0{--c:var(--k0)}.k1{--c:var(--k1)}.k2{--c:var(--k2)}.k3{--c:var(--k3)}.k4{--c:var(--k4)}.k5{--c:var(--k5)}"
	".k6{--c:var(--k6)}.ku{--c:var(--ku)}\n"
	".sw{background:var(--c)}.s,.mark,.bar{fill:var(--c)}.s{fill-opacity:.8}.run{fill:none;stroke:var(--c);"
	"stroke-width:1.4;stroke-opacity:.8}.violin{fill:var(--c);fill-opacity:.16;stroke:var(--c);stroke-opacity:.5}"
	".med{stroke:var(--c);stroke-width:2.5}.whisk{stroke:var(--c);stroke-width:1.6}.base-med{stroke:var(--muted);"
	"stroke-dasharray:2 3}.bar.b{fill-opacity:.45}.bar.incl{fill:none;stroke:var(--c);stroke-width:1.2}"
	"svg text.vname{fill:var(--c);font-weight:600}\n"
	"nav a{margin-right:1em}a{color:var(--c1)}\n"
	"@media print{:root{--bg:#fff;--fg:#000;--muted:#555;--grid:#ddd;--band:#eee;--slower:#b3261e;"
	"--faster:#17803d;--changed:#9a5b00;--same:#666;--c0:#4d4d4d;--c1:#0072b2;--c2:#d55e00;--c3:#009e73;"
	"--c4:#cc79a7;--c5:#b58900;--c6:#56b4e9;--c7:#8c564b;--k0:#0072b2;--k1:#d55e00;--k2:#009e73;--k3:#cc79a7;"
	"--k4:#e69f00;--k5:#56b4e9;--k6:#8c564b;--ku:#a3a3a3}body{max-width:none;padding:0;font-size:11pt}nav{display:none}"
	"figure,svg,table,.variant{break-inside:avoid}h2,h3{break-after:avoid}"
	"*{-webkit-print-color-adjust:exact;print-color-adjust:exact}}\n"
	"figure{margin:0}.pair{display:flex;flex-wrap:wrap;gap:0 1.5em}.pair svg{margin:0}\n";

struct page {
	FILE *f;
	const struct ws_result *r;
	const struct ws_variant *base; /* the baseline, or the only program of a stat result */
	unsigned fig;                  /* ids for each plot's <title> and <desc> */
	unsigned section;              /* the number of the last section begun */
	char **causes;                 /* the explanation's cause metrics, in order of first appearance */
	size_t ncauses, alloc_causes;
};

/* ---- text ---- */

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

static void escf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void escf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) >= 0) {
		esc(f, s);
		free(s);
	}
	va_end(ap);
}

/* Text from pieces, for titles and descriptions. */
struct text {
	char *buf;
	size_t len;
	FILE *f;
};

static void text_open(struct text *t)
{
	t->buf = NULL;
	t->len = 0;
	t->f = open_memstream(&t->buf, &t->len);
}

static char *text_close(struct text *t)
{
	fclose(t->f);
	return t->buf;
}

/* ---- the model ---- */

static unsigned vslot(const struct page *p, const struct ws_variant *v)
{
	unsigned k = 0;

	if (v == p->base)
		return 0;
	for (size_t i = 0; i < p->r->nvariants; i++) {
		if (&p->r->variants[i] == v)
			break;
		if (&p->r->variants[i] != p->base)
			k++;
	}
	return 1 + k % (NSLOTS - 1);
}

/* The programs in the page's order: the baseline first, then the others as in the file. */
static const struct ws_variant *nth(const struct page *p, size_t i)
{
	if (i == 0)
		return p->base;
	for (size_t j = 0; j < p->r->nvariants; j++) {
		if (&p->r->variants[j] == p->base)
			continue;
		if (--i == 0)
			return &p->r->variants[j];
	}
	return NULL;
}

static bool compared(const struct page *p)
{
	return p->r->ncomparisons > 0;
}

static const struct ws_explanation *explanation_of(const struct ws_result *r, const char *variant)
{
	for (size_t i = 0; i < r->nexplain; i++)
		if (r->explain[i].variant && !strcmp(r->explain[i].variant, variant))
			return &r->explain[i];
	return NULL;
}

static const char *cause_class(struct page *p, const char *metric, char *buf, size_t n)
{
	if (!strcmp(metric, "unexplained"))
		return "ku";
	for (size_t i = 0; i < p->ncauses; i++)
		if (!strcmp(p->causes[i], metric)) {
			snprintf(buf, n, "k%zu", i % NCAUSE_SLOTS);
			return buf;
		}
	WS_ALLOC_GROW(p->causes, p->ncauses + 1, p->alloc_causes);
	p->causes[p->ncauses] = xstrdup(metric);
	snprintf(buf, n, "k%zu", p->ncauses++ % NCAUSE_SLOTS);
	return buf;
}

/* ---- comparisons as text: the terminal's cell, then the verdict word ---- */

static void cmp_attrs(FILE *f, const struct ws_comparison *c)
{
	fputs(" data-variant=\"", f);
	esc(f, c->variant);
	fputs("\" data-metric=\"", f);
	esc(f, c->metric);
	fputc('"', f);
	if (c->region) {
		fputs(" data-region=\"", f);
		esc(f, c->region);
		fputc('"', f);
	}
	if (c->function) {
		fputs(" data-function=\"", f);
		esc(f, c->function);
		fputc('"', f);
	}
}

/* The cell and the verdict of `c`, as spans (HTML) or tspans (inside an SVG <text>). */
static void cmp_inner(FILE *f, const struct ws_comparison *c, bool svg)
{
	char *cell = ws_report_cell_text(c);
	const char *tag = svg ? "tspan" : "span";

	fprintf(f, "<%s class=\"cell\">", tag);
	esc(f, cell);
	fprintf(f, "</%s> <%s class=\"verdict\">%s</%s>", tag, tag, ws_verdict_name(c->verdict), tag);
	free(cell);
}

/* The start tag of an element that shows comparison `c`: classes "cmp", `cls` and its verdict; its data-*. */
static void cmp_open(FILE *f, const char *tag, const char *cls, const struct ws_comparison *c)
{
	fprintf(f, "<%s class=\"cmp %s%s%s\"", tag, cls ? cls : "", cls ? " " : "", ws_verdict_name(c->verdict));
	cmp_attrs(f, c);
	fputc('>', f);
}

/* A table cell holding a comparison, or "-" where there is none. */
static void cmp_td(FILE *f, const struct ws_comparison *c)
{
	if (!c) {
		fputs("<td class=\"none\">-</td>", f);
		return;
	}
	cmp_open(f, "td", NULL, c);
	cmp_inner(f, c, false);
	fputs("</td>", f);
}

/* A comparison as SVG text at (x, y). */
static void cmp_svg_text(FILE *f, const struct ws_comparison *c, double x, double y)
{
	fprintf(f, "<text class=\"mono\" x=\"%.1f\" y=\"%.1f\">", x, y);
	cmp_open(f, "tspan", NULL, c);
	cmp_inner(f, c, true);
	fputs("</tspan></text>", f);
}

/* ---- SVG scaffolding ---- */

/* Open an <svg> of w x h with its <title> and <desc>, from the texts built for them (closed and freed here). */
static void svg_begin(struct page *p, int w, int h, struct text *title, struct text *desc)
{
	unsigned id = ++p->fig;

	text_close(title);
	text_close(desc);
	fprintf(p->f, "<svg viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" aria-labelledby=\"t%u d%u\">"
		"<title id=\"t%u\">", w, h, w, h, id, id, id);
	esc(p->f, title->buf);
	fprintf(p->f, "</title><desc id=\"d%u\">", id);
	esc(p->f, desc->buf);
	fputs("</desc>\n", p->f);
	free(title->buf);
	free(desc->buf);
}

struct scale {
	double d0, d1; /* domain (log of it for a log scale) */
	double r0, r1; /* range in pixels */
	bool log;
};

static double sc(const struct scale *s, double v)
{
	double t = s->log ? log(v) : v;

	if (s->d1 == s->d0)
		return (s->r0 + s->r1) / 2;
	return s->r0 + (t - s->d0) / (s->d1 - s->d0) * (s->r1 - s->r0);
}

/* Clamp a pixel position into the range (values beyond the domain are drawn at its edge). */
static double clampx(const struct scale *s, double x)
{
	double lo = s->r0 < s->r1 ? s->r0 : s->r1, hi = s->r0 < s->r1 ? s->r1 : s->r0;

	return x < lo ? lo : x > hi ? hi : x;
}

static double nice_step(double span, int target)
{
	double raw = span / target, mag, f;

	if (!(raw > 0) || !isfinite(raw))
		return 1;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

/* Pad a linear domain so that marks at its ends stay inside, and give a single value some width. */
static void pad_domain(double *lo, double *hi)
{
	double span = *hi - *lo;

	if (!(span > 0)) {
		double w = fabs(*lo) > 0 ? fabs(*lo) * 0.01 : 1;

		*lo -= w;
		*hi += w;
		return;
	}
	*lo -= span * 0.06;
	*hi += span * 0.06;
}

enum tick_kind { TICK_VALUE, TICK_PERCENT, TICK_RUN };

static void tick_label(char *buf, size_t n, enum tick_kind k, const char *metric, double v)
{
	switch (k) {
	case TICK_VALUE:
		ws_format_value(buf, n, metric, v);
		break;
	case TICK_PERCENT:
		snprintf(buf, n, "%.0f%%", 100 * v);
		break;
	case TICK_RUN:
		snprintf(buf, n, "%.0f", v);
		break;
	}
}

/* About how wide a tick label is drawn, in pixels (10px text; digits are about 6px wide). */
static double label_width(const char *s)
{
	double w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) == 0x80 ? 0 : *s == ',' || *s == '.' || *s == ' ' ? 3.2 : 6.2;
	return w;
}

/*
 * The ticks at the multiples of `step` in [d0 - eps, d1 + eps]: *first is the multiple of the first, the
 * count is returned, at most 64. Counted, not stepped with t += step: where the values are huge and their
 * span tiny, step is below their precision and such a loop never ends.
 */
static size_t tick_count(double d0, double d1, double step, double eps, double *first)
{
	double lo = ceil((d0 - eps) / step), hi = floor((d1 + eps) / step);

	*first = lo;
	if (!(step > 0) || !isfinite(lo) || !isfinite(hi) || hi < lo)
		return 0;
	return hi - lo >= 63 ? 64 : (size_t)(hi - lo) + 1;
}

/* A tick step whose labels fit side by side along `pixels`, at most `target` of them. */
static double fit_step(const struct scale *s, int target, double pixels, enum tick_kind k, const char *metric)
{
	for (; target > 1; target--) {
		double step = nice_step(s->d1 - s->d0, target), eps = step * 1e-9, need = 0, first;
		size_t n = tick_count(s->d0, s->d1, step, eps, &first);
		char lbl[64];

		for (size_t i = 0; i < n; i++) {
			double t = (first + (double)i) * step;

			tick_label(lbl, sizeof(lbl), k, metric, fabs(t) < eps ? 0 : t);
			need += label_width(lbl) + 14;
		}
		if (need <= pixels)
			return step;
	}
	return nice_step(s->d1 - s->d0, 1);
}

/*
 * A linear axis along x at `y` (horizontal) or along y at `x` (vertical), with grid lines across the plot
 * from `g0` to `g1`. A tick whose label reads as the previous one's (8.1 MiB twice) is left out.
 */
static void axis(FILE *f, const struct scale *s, bool horizontal, double at, double g0, double g1, enum tick_kind k,
		 const char *metric)
{
	double step = horizontal ? fit_step(s, 6, fabs(s->r1 - s->r0), k, metric) : nice_step(s->d1 - s->d0, 4);
	double eps = step * 1e-9;
	char lbl[64], prev[64] = "";
	double first;
	size_t n;

	if (k == TICK_RUN && step < 1)
		step = 1;
	n = tick_count(s->d0, s->d1, step, eps, &first);
	fputs("<g class=\"ax\">", f);
	if (horizontal)
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", s->r0, at, s->r1, at);
	else
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", at, s->r0, at, s->r1);
	for (size_t i = 0; i < n; i++) {
		double t = (first + (double)i) * step, v = fabs(t) < eps ? 0 : t, pos = sc(s, v);

		tick_label(lbl, sizeof(lbl), k, metric, v);
		if (!strcmp(lbl, prev))
			continue;
		strcpy(prev, lbl);
		if (horizontal)
			fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
				"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
				pos, g0, pos, g1, pos, at + 13, lbl);
		else
			fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
				"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
				g0, pos, g1, pos, at - 4, pos + 3.5, lbl);
	}
	fputs("</g>\n", f);
}

/* Ticks of a ratio on a log axis, as percent changes, the roundest first: they are placed in this order. */
static const double ratio_ticks[] = { 0, 10, -10, 100, -50, 50, 25, -25, 5, -5, 200, -75, 400, -90, 2, -2, 900,
				      1, -1, -95, 1900, -99, 4900, 9900 };

/* Labels below the axis line at `at`, or above it (an axis along the top of a tall plot). */
static void ratio_axis(FILE *f, const struct scale *s, double at, double g0, double g1, bool above)
{
	double placed[ARRAY_SIZE(ratio_ticks)];
	size_t n = 0;

	fprintf(f, "<g class=\"ax\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", s->r0, at, s->r1, at);
	for (size_t i = 0; i < ARRAY_SIZE(ratio_ticks); i++) {
		double v = 1 + ratio_ticks[i] / 100, x = sc(s, v);
		bool crowded = false;

		/* Inside the axis, and not crowding a label already placed. */
		for (size_t k = 0; k < n; k++)
			crowded |= fabs(placed[k] - x) < 40;
		if (log(v) < s->d0 - 1e-12 || log(v) > s->d1 + 1e-12 || crowded)
			continue;
		placed[n++] = x;
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%+g%%</text>",
			x, g0, x, g1, x, above ? at - 4 : at + 13, ratio_ticks[i]);
	}
	fputs("</g>\n", f);
}

/* ---- 0. header ---- */

static void oneline(struct page *p)
{
	FILE *f = p->f;
	const char *metric = NULL;
	bool one_metric = true;

	fputs("<p class=\"oneline\">", f);
	if (!compared(p)) {
		const struct ws_metric *m = ws_metric_set_find(&p->base->metrics, "wall-time");
		char v[64];

		fputs("One program, ", f);
		esc(f, p->base->command ? p->base->command : p->base->name);
		if (m && m->sum.n)
			fprintf(f, ": wall time median <span class=\"num\">%s</span> over %zu runs",
				ws_format_value(v, sizeof(v), m->name, m->sum.median), m->sum.n);
		fputs(".</p>\n", f);
		return;
	}
	for (size_t i = 1; i < p->r->nvariants; i++) {
		const struct ws_comparison *h = ws_report_headline(p->r, nth(p, i)->name);

		if (h && metric && strcmp(metric, h->metric))
			one_metric = false;
		if (h && !metric)
			metric = h->metric;
	}
	fputs("Against <b>", f);
	esc(f, p->base->name);
	fputs("</b>", f);
	if (metric && one_metric) {
		fputs(" in ", f);
		esc(f, metric);
	}
	fputs(": ", f);
	for (size_t i = 1; i < p->r->nvariants; i++) {
		const struct ws_variant *v = nth(p, i);
		const struct ws_comparison *h = ws_report_headline(p->r, v->name);

		if (i > 1)
			fputs(" · ", f);
		/* One variant's name and verdict stay on one line. */
		fprintf(f, "<span class=\"nowrap\"><span class=\"v%u\"><span class=\"sw\"></span>", vslot(p, v));
		esc(f, v->name);
		fputs("</span> ", f);
		if (!h) {
			fputs("<span class=\"none\">not compared</span></span>", f);
			continue;
		}
		cmp_open(f, "span", NULL, h);
		cmp_inner(f, h, false);
		if (!one_metric) {
			fputs(" in ", f);
			esc(f, h->metric);
		}
		fputs("</span></span>", f);
	}
	fputs("</p>\n", f);
}

static void header(struct page *p)
{
	const struct ws_result *r = p->r;
	FILE *f = p->f;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
	      "<meta name=\"color-scheme\" content=\"light dark\">\n<title>whyslow: ", f);
	if (compared(p)) {
		esc(f, p->base->name);
		for (size_t i = 1; i < r->nvariants; i++) {
			fputs(i == 1 ? " against " : ", ", f);
			esc(f, nth(p, i)->name);
		}
	} else {
		esc(f, p->base->command ? p->base->command : p->base->name);
	}
	fprintf(f, "</title>\n<style>\n%s</style></head>\n<body>\n<header>\n<h1>whyslow %s: ", css,
		compared(p) ? "compare" : "stat");
	if (compared(p)) {
		char *runs = ws_report_programs_runs(r);

		fputs(runs, f);
		free(runs);
	} else
		fprintf(f, "%zu run%s", ws_report_runs(p->base), ws_report_runs(p->base) == 1 ? "" : "s");
	if (r->machine.backend) {
		fputs(", backend ", f);
		esc(f, r->machine.backend);
	}
	if (r->machine.sim_preset) {
		fputs(" (preset ", f);
		esc(f, r->machine.sim_preset);
		fputs(")", f);
	}
	fputs("</h1>\n", f);
	oneline(p);
	if (r->partial) {
		fputs("<p class=\"changed\">Partial result: ", f);
		esc(f, r->partial_reason ? r->partial_reason : "stopped early");
		fputs(". The finished runs are shown.</p>\n", f);
	}
	fputs("<nav>", f);
	if (compared(p))
		fputs("<a href=\"#verdict\">Verdict</a><a href=\"#changes\">What changed</a>", f);
	fputs("<a href=\"#runs\">Every run</a><a href=\"#where\">Where</a><a href=\"#how\">How it was measured</a>"
	      "</nav>\n</header>\n", f);
}

static void legend(struct page *p)
{
	fputs("<p class=\"legend\">", p->f);
	for (size_t i = 0; i < p->r->nvariants; i++) {
		const struct ws_variant *v = nth(p, i);

		fprintf(p->f, "<span class=\"v%u\"><span class=\"sw\"></span>", vslot(p, v));
		esc(p->f, v->name);
		fputs(v == p->base && compared(p) ? " (baseline)</span>" : "</span>", p->f);
	}
	fputs("</p>\n", p->f);
}

/* ---- 1. the verdict, and the explanation's causes as a stacked bar with CIs ---- */

static void cause_share_text(char *buf, size_t n, const struct ws_cause *c)
{
	/* As the terminal's explanation prints it. */
	if (isfinite(c->share_lo) && c->share_hi - c->share_lo > 0.005)
		snprintf(buf, n, "%.0f%% [%.0f, %.0f]", 100 * c->share, 100 * c->share_lo, 100 * c->share_hi);
	else
		snprintf(buf, n, "%.0f%%", 100 * c->share);
}

static void causes_plot(struct page *p, const struct ws_explanation *e)
{
	FILE *f = p->f;
	const int W = 880, L = 170, P1 = 660, top = 6, barh = 18, rowh = 18;
	double lo = 0, hi = 1, pos = 0, neg = 0;
	size_t shown = 0, minor = 0;
	struct scale s;
	struct text title, desc;
	char cls[16], share[64];
	int H, y;

	for (size_t j = 0; j < e->ncauses; j++) {
		const struct ws_cause *c = &e->causes[j];

		if (!isfinite(c->share))
			continue;
		if (c->share > 0)
			pos += c->share;
		else
			neg += c->share;
		if (!c->material) {
			minor++;
			continue;
		}
		shown++;
		if (isfinite(c->share_lo) && c->share_lo < lo)
			lo = c->share_lo;
		if (isfinite(c->share_hi) && c->share_hi > hi)
			hi = c->share_hi;
	}
	lo = fmin(lo, neg);
	hi = fmax(hi, pos);
	if (!shown)
		return;
	s = (struct scale){ lo - (hi - lo) * 0.02, hi + (hi - lo) * 0.02, L, P1, false };
	H = top + barh + 10 + (int)shown * rowh + 26;

	text_open(&title);
	fprintf(title.f, "What explains the difference of %s: each cause's share of the cycle delta, with its 95%% CI",
		e->variant);
	text_open(&desc);
	fprintf(desc.f, "Stacked bar of the shares (they sum to 100%%, unexplained included); then one row per "
		"material cause:");
	for (size_t j = 0; j < e->ncauses; j++) {
		if (!isfinite(e->causes[j].share) || !e->causes[j].material)
			continue;
		cause_share_text(share, sizeof(share), &e->causes[j]);
		fprintf(desc.f, " %s %s;", e->causes[j].metric, share);
	}
	if (minor)
		fprintf(desc.f, " %zu more, immaterial (each under %.0f%% of the measured difference).", minor,
			100 * WS_MATERIAL);
	fputs("<figure>", f);
	svg_begin(p, W, H, &title, &desc);

	axis(f, &s, true, H - 20, top, H - 20, TICK_PERCENT, NULL);
	fprintf(f, "<line class=\"zero\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", sc(&s, 0), top, sc(&s, 0), H - 20);
	fprintf(f, "<text class=\"lbl\" x=\"%d\" y=\"%d\" text-anchor=\"end\">all causes</text>", L - 8,
		top + barh / 2 + 4);
	/* The stacked bar: positive shares to the right of 0, negative ones to its left. */
	pos = neg = 0;
	for (size_t j = 0; j < e->ncauses; j++) {
		const struct ws_cause *c = &e->causes[j];
		double a, b;

		if (!isfinite(c->share) || c->share == 0)
			continue;
		if (c->share > 0) {
			a = pos;
			b = pos += c->share;
		} else {
			b = neg;
			a = neg += c->share;
		}
		cause_share_text(share, sizeof(share), c);
		fprintf(f, "<rect class=\"bar %s\" x=\"%.1f\" y=\"%d\" width=\"%.2f\" height=\"%d\"><title>",
			cause_class(p, c->metric, cls, sizeof(cls)), sc(&s, a), top, sc(&s, b) - sc(&s, a), barh);
		escf(f, "%s: %s of the cycle delta (%+.3g cycles)", c->metric, share, c->delta_cycles);
		fputs("</title></rect>", f);
		if (sc(&s, b) - sc(&s, a) > 8.0 * (double)strlen(c->metric) + 10)
			fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" style=\"fill:var(--bg)\">%s</text>",
				(sc(&s, a) + sc(&s, b)) / 2, top + barh / 2 + 4, c->metric);
	}
	fputc('\n', f);
	y = top + barh + 10;
	for (size_t j = 0; j < e->ncauses; j++) {
		const struct ws_cause *c = &e->causes[j];
		double cy = y + rowh / 2.0;

		if (!isfinite(c->share) || !c->material)
			continue;
		cause_share_text(share, sizeof(share), c);
		fprintf(f, "<g class=\"cause %s\" data-variant=\"", cause_class(p, c->metric, cls, sizeof(cls)));
		esc(f, e->variant);
		fputs("\" data-cause=\"", f);
		esc(f, c->metric);
		fprintf(f, "\"><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", L - 8, cy + 4);
		esc(f, c->metric);
		fputs("</text>", f);
		if (isfinite(c->share_lo) && isfinite(c->share_hi))
			fprintf(f, "<line class=\"whisk\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", sc(&s, c->share_lo),
				cy, sc(&s, c->share_hi), cy);
		fprintf(f, "<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>", sc(&s, c->share), cy);
		fprintf(f, "<text class=\"mono share\" x=\"%d\" y=\"%.1f\">%s</text></g>\n", P1 + 12, cy + 4, share);
		y += rowh;
	}
	fputs("</svg>", f);
	if (minor)
		fprintf(f, "<p class=\"muted\">%zu more cause%s, immaterial (each under %.0f%% of the measured "
			"difference), in the bar but not listed.</p>", minor, minor == 1 ? "" : "s", 100 * WS_MATERIAL);
	fputs("</figure>\n", f);
}

static void verdict_section(struct page *p)
{
	FILE *f = p->f;

	fprintf(f, "<section id=\"verdict\"><h2>%u. Verdict, and why</h2>\n", ++p->section);
	fputs("<p class=\"muted\">Each variant against the baseline on the comparison its verdict is about (wall "
	      "time where measured), then the explanation: which counter deltas account for the cycle delta, as "
	      "shares with 95% CIs (bootstrap percentiles, at 95% whatever --alpha: a share decides no verdict).</p>\n", f);
	for (size_t i = 1; i < p->r->nvariants; i++) {
		const struct ws_variant *v = nth(p, i);
		const struct ws_comparison *h = ws_report_headline(p->r, v->name);
		const struct ws_explanation *e = explanation_of(p->r, v->name);

		fprintf(f, "<div class=\"variant\"><h3 class=\"v%u\"><span class=\"sw\"></span>", vslot(p, v));
		esc(f, v->name);
		fputs("</h3>\n", f);
		if (h) {
			cmp_open(f, "p", "headline", h);
			esc(f, h->metric);
			fputs(": ", f);
			cmp_inner(f, h, false);
			fputs("</p>\n", f);
		}
		if (e && e->summary) {
			fputs("<p class=\"summary\">", f);
			esc(f, e->summary);
			fputs("</p>\n", f);
		}
		if (e && e->noutside) {
			fputs("<ul class=\"outside\">\n", f);
			for (size_t j = 0; j < e->noutside; j++) {
				fputs("<li><b>Outside the model</b>, ", f);
				esc(f, e->outside[j].cause);
				fputs(": ", f);
				esc(f, e->outside[j].evidence);
				fputs("</li>\n", f);
			}
			fputs("</ul>\n", f);
		}
		if (e) {
			causes_plot(p, e);
			for (size_t j = 0; j < e->ncauses; j++) {
				const struct ws_cause *c = &e->causes[j];

				if (!c->next_step || !c->material)
					continue;
				fputs("<p><b>Next</b> (", f);
				esc(f, c->metric);
				fputs("): ", f);
				esc(f, c->next_step);
				fputs("</p>\n", f);
			}
		}
		fputs("</div>\n", f);
	}
	fputs("</section>\n", f);
}

/* ---- 2. the forest plot of the significant comparisons, grouped by verdict ---- */

static int cmp_order(const struct page *p, const struct ws_comparison *a, const struct ws_comparison *b)
{
	int ra, rb;

	/* The whole process first, then each region by name; then by metric; then by variant. */
	if (!a->region != !b->region)
		return a->region ? 1 : -1;
	if (a->region && strcmp(a->region, b->region))
		return strcmp(a->region, b->region);
	ra = ws_metric_rank(a->metric);
	rb = ws_metric_rank(b->metric);
	if (ra != rb)
		return ra < rb ? -1 : 1;
	if (strcmp(a->metric, b->metric))
		return strcmp(a->metric, b->metric);
	return (int)vslot(p, ws_result_find_variant((struct ws_result *)p->r, a->variant)) -
	       (int)vslot(p, ws_result_find_variant((struct ws_result *)p->r, b->variant));
}

static void sort_cmps(const struct page *p, const struct ws_comparison **v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp_order(p, v[j - 1], v[j]) > 0; j--) {
			const struct ws_comparison *t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

static bool same_scope(const struct ws_comparison *a, const struct ws_comparison *b)
{
	return !a->region == !b->region && (!a->region || !strcmp(a->region, b->region));
}

/* One forest plot: rows of one verdict and one scope (the whole process, or one region), on their own axis. */
static void forest(struct page *p, enum ws_verdict verdict, const struct ws_comparison **rows, size_t n)
{
	FILE *f = p->f;
	const int W = 900, L = 240, P1 = 660, top = 22, rowh = 16;
	double lo = 1 - p->r->settings.noise, hi = 1 + p->r->settings.noise, y;
	const char *scope = rows[0]->region;
	struct scale s;
	struct text title, desc;
	int H = top + (int)n * rowh + 26;

	for (size_t i = 0; i < n; i++) {
		const struct ws_comparison *c = rows[i];
		double v[3] = { c->ratio, c->exact ? NAN : c->ci_lo, c->exact ? NAN : c->ci_hi };

		for (int k = 0; k < 3; k++)
			if (isfinite(v[k]) && v[k] > 0) {
				lo = fmin(lo, v[k]);
				hi = fmax(hi, v[k]);
			}
	}
	/* Beyond 64x either way a mark sits at the edge: such CIs say "unbounded" more than a number. */
	lo = fmax(lo, 1.0 / 64);
	hi = fmin(hi, 64);
	s = (struct scale){ log(lo) - (log(hi) - log(lo)) * 0.04, log(hi) + (log(hi) - log(lo)) * 0.04, L, P1, true };

	text_open(&title);
	fprintf(title.f, "Every %s comparison of %s%s: the variant's ratio to the baseline, with its %g%% CI",
		ws_verdict_name(verdict), scope ? "region " : "the whole process", scope ? scope : "",
		100 * (1 - p->r->settings.alpha));
	text_open(&desc);
	fprintf(desc.f, "Forest plot on a logarithmic axis of the change in percent; the shaded band is the noise "
		"threshold (±%g%%); exact (simulated) comparisons are diamonds without a CI. %zu rows:",
		100 * p->r->settings.noise, n);
	for (size_t i = 0; i < n && i < 40; i++) {
		char *cell = ws_report_cell_text(rows[i]);

		fprintf(desc.f, " %s %s %s;", rows[i]->variant, rows[i]->metric, cell);
		free(cell);
	}
	if (n > 40)
		fprintf(desc.f, " and %zu more.", n - 40);
	fprintf(f, "<h4>%s", scope ? "region " : "whole process");
	esc(f, scope);
	fputs("</h4>\n", f);
	svg_begin(p, W, H, &title, &desc);

	fprintf(f, "<rect class=\"band\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"/>",
		sc(&s, 1 - p->r->settings.noise), top, sc(&s, 1 + p->r->settings.noise) - sc(&s, 1 - p->r->settings.noise),
		H - 20 - top);
	ratio_axis(f, &s, H - 20, top, H - 20, false);
	ratio_axis(f, &s, top, top, H - 20, true);
	fprintf(f, "<line class=\"zero\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n", sc(&s, 1), top, sc(&s, 1), H - 20);
	y = top;
	for (size_t i = 0; i < n; i++) {
		const struct ws_comparison *c = rows[i];
		const struct ws_variant *v = ws_result_find_variant((struct ws_result *)p->r, c->variant);
		bool new_metric = i == 0 || strcmp(c->metric, rows[i - 1]->metric);
		double cy = y + rowh / 2.0, x;
		char vcls[8];

		if (new_metric && i)
			fprintf(f, "<line class=\"sep\" x1=\"4\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", y, W - 4, y);
		snprintf(vcls, sizeof(vcls), "v%u", v ? vslot(p, v) : 1);
		cmp_open(f, "g", vcls, c);
		if (new_metric) {
			fprintf(f, "<text x=\"4\" y=\"%.1f\">", cy + 4);
			esc(f, c->metric);
			fputs("</text>", f);
		}
		fprintf(f, "<text class=\"vname\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", L - 10, cy + 4);
		esc(f, c->variant);
		fputs("</text>", f);
		if (!c->exact && isfinite(c->ci_lo) && isfinite(c->ci_hi))
			fprintf(f, "<line class=\"whisk\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
				clampx(&s, c->ci_lo > 0 ? sc(&s, c->ci_lo) : s.r0), cy, clampx(&s, sc(&s, c->ci_hi)), cy);
		if (isfinite(c->ratio)) {
			x = clampx(&s, c->ratio > 0 ? sc(&s, c->ratio) : s.r0);
			if (c->exact)
				fprintf(f, "<path class=\"mark\" d=\"M%.1f %.1fl4.5 4.5l-4.5 4.5l-4.5 -4.5z\"/>", x, cy - 4.5);
			else
				fprintf(f, "<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"/>", x, cy);
		}
		fprintf(f, "<text class=\"mono\" x=\"%d\" y=\"%.1f\">", P1 + 12, cy + 4);
		cmp_inner(f, c, true);
		fputs("</text></g>\n", f);
		y += rowh;
	}
	fputs("</svg>\n", f);
}

static void changes_section(struct page *p)
{
	static const enum ws_verdict order[] = { WS_VERDICT_SLOWER, WS_VERDICT_FASTER, WS_VERDICT_CHANGED,
						 WS_VERDICT_NOISE };
	static const char *const what[] = {
		"significantly slower (higher where lower is better), beyond the noise threshold",
		"significantly faster, beyond the noise threshold",
		"deterministic simulated counts that differ, compared exactly",
		"significant, but the CI reaches into the noise threshold",
	};
	const struct ws_result *r = p->r;
	const struct ws_comparison **rows = xcalloc(r->ncomparisons + 1, sizeof(*rows));
	size_t total = 0, functions = 0;

	fprintf(p->f, "<section id=\"changes\"><h2>%u. What changed</h2>\n", ++p->section);
	for (size_t k = 0; k < ARRAY_SIZE(order); k++) {
		size_t n = 0;

		for (size_t i = 0; i < r->ncomparisons; i++) {
			const struct ws_comparison *c = &r->comparisons[i];

			if (c->verdict != order[k])
				continue;
			if (c->function) {
				functions++;
				continue;
			}
			rows[n++] = c;
		}
		if (!n)
			continue;
		total += n;
		sort_cmps(p, rows, n);
		fprintf(p->f, "<h3 class=\"%s\">%s: %zu comparison%s</h3><p class=\"muted\">%s</p>\n",
			ws_verdict_name(order[k]), ws_verdict_name(order[k]), n, n == 1 ? "" : "s", what[k]);
		for (size_t i = 0, j; i < n; i = j) {
			for (j = i + 1; j < n && same_scope(rows[i], rows[j]); j++)
				;
			forest(p, order[k], rows + i, j - i);
		}
	}
	if (!total)
		fputs("<p>No metric of the whole process or of a region differs significantly.</p>\n", p->f);
	if (functions)
		fprintf(p->f, "<p class=\"muted\">%zu comparisons of functions are significant too; the functions that "
			"moved most are in <a href=\"#where\">Where</a>.</p>\n", functions);
	fprintf(p->f, "<p class=\"muted\">%c%s; ~ not significant (%s-adjusted p &gt;= %g); ≈ within the noise threshold "
		"(±%g%%); exact: simulated counts, deterministic or far apart.</p>\n",
		toupper((unsigned char)ws_report_estimate_legend(r)[0]), ws_report_estimate_legend(r) + 1,
		r->settings.fdr ? "BH" : "Holm", r->settings.alpha, 100 * r->settings.noise);
	fputs("</section>\n", p->f);
	free(rows);
}

/* ---- 3. every run: strip (with a violin) and run order, per metric ---- */

/* Deterministic jitter in [-0.5, 0.5): the golden-ratio sequence spreads the runs evenly. */
static double jitter(size_t i)
{
	double x = (double)(i + 1) * 0.6180339887498949;

	return x - floor(x) - 0.5;
}

static void violin(FILE *f, const struct ws_metric *m, const struct scale *s, double cy, double half)
{
	const int K = 48;
	double h, lo, hi, dens[48], peak = 0, sd = m->sum.stddev;
	size_t n = 0;

	for (size_t i = 0; i < m->n; i++)
		n += isfinite(m->samples[i]);
	if (n < 6 || !(sd > 0))
		return;
	/* Silverman's rule of thumb, with the MAD (scaled) where it is smaller than the sd: robust to outliers. */
	if (m->sum.mad > 0 && 1.4826 * m->sum.mad < sd)
		sd = 1.4826 * m->sum.mad;
	h = 0.9 * sd * pow((double)n, -0.2);
	lo = fmax(m->sum.min - h, s->d0);
	hi = fmin(m->sum.max + h, s->d1);
	for (int k = 0; k < K; k++) {
		double x = lo + (hi - lo) * k / (K - 1), d = 0;

		for (size_t i = 0; i < m->n; i++)
			if (isfinite(m->samples[i]))
				d += exp(-0.5 * pow((x - m->samples[i]) / h, 2));
		dens[k] = d;
		peak = fmax(peak, d);
	}
	fputs("<path class=\"violin\" d=\"", f);
	for (int k = 0; k < K; k++)
		fprintf(f, "%c%.1f %.1f", k ? 'L' : 'M', sc(s, lo + (hi - lo) * k / (K - 1)), cy - half * dens[k] / peak);
	for (int k = K - 1; k >= 0; k--)
		fprintf(f, "L%.1f %.1f", sc(s, lo + (hi - lo) * k / (K - 1)), cy + half * dens[k] / peak);
	fputs("Z\"/>", f);
}

/* The metric's value domain over every program. False when no program has a sample of it. */
static bool value_domain(const struct page *p, const char *metric, double *lo, double *hi, size_t *runs)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	*runs = 0;
	for (size_t i = 0; i < p->r->nvariants; i++) {
		const struct ws_metric *m = ws_metric_set_find(&p->r->variants[i].metrics, metric);

		if (!m || (m->flags & WS_M_UNSUPPORTED))
			continue;
		for (size_t k = 0; k < m->n; k++)
			if (isfinite(m->samples[k])) {
				*lo = fmin(*lo, m->samples[k]);
				*hi = fmax(*hi, m->samples[k]);
				*runs = k + 1 > *runs ? k + 1 : *runs;
			}
	}
	return isfinite(*lo);
}

static void samples_desc(const struct page *p, FILE *d, const char *metric)
{
	char a[64], b[64], c[64];

	for (size_t i = 0; i < p->r->nvariants; i++) {
		const struct ws_variant *v = nth(p, i);
		const struct ws_metric *m = ws_metric_set_find(&v->metrics, metric);

		if (!m || !m->sum.n)
			continue;
		fprintf(d, " %s: %zu runs, median %s, from %s to %s%s;", v->name, m->sum.n,
			ws_format_value(a, sizeof(a), metric, m->sum.median), ws_format_value(b, sizeof(b), metric, m->sum.min),
			ws_format_value(c, sizeof(c), metric, m->sum.max), m->sum.outliers ? " (with outliers)" : "");
	}
}

static void sample_group(FILE *f, const struct page *p, const struct ws_variant *v, const char *metric, const char *plot)
{
	fprintf(f, "<g class=\"samples v%u\" data-plot=\"%s\" data-variant=\"", vslot(p, v), plot);
	esc(f, v->name);
	fputs("\" data-metric=\"", f);
	esc(f, metric);
	fputs("\">", f);
}

static void strip_plot(struct page *p, const char *metric, double lo, double hi)
{
	FILE *f = p->f;
	const int W = 540, L = 118, R = 530, top = 6, rowh = 30;
	int H = top + (int)p->r->nvariants * rowh + 24;
	struct scale s = { lo, hi, L, R, false };
	const struct ws_metric *bm = ws_metric_set_find(&p->base->metrics, metric);
	struct text title, desc;
	char v[64];

	text_open(&title);
	fprintf(title.f, "%s: every run's value, by program", metric);
	text_open(&desc);
	fprintf(desc.f, "Strip plot, one dot per run, over the density of the values where there are six runs or more; "
		"a bar marks each program's median, a dashed line the baseline's.");
	samples_desc(p, desc.f, metric);
	svg_begin(p, W, H, &title, &desc);
	axis(f, &s, true, H - 20, top, H - 20, TICK_VALUE, metric);
	if (bm && bm->sum.n && compared(p))
		fprintf(f, "<line class=\"base-med\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", sc(&s, bm->sum.median),
			top, sc(&s, bm->sum.median), H - 20);
	for (size_t i = 0; i < p->r->nvariants; i++) {
		const struct ws_variant *var = nth(p, i);
		const struct ws_metric *m = ws_metric_set_find(&var->metrics, metric);
		double cy = top + (double)i * rowh + rowh / 2.0;

		fprintf(f, "<text class=\"vname v%u\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", vslot(p, var), L - 8, cy + 4);
		esc(f, var->name);
		fputs("</text>", f);
		sample_group(f, p, var, metric, "strip");
		if (m && !(m->flags & WS_M_UNSUPPORTED)) {
			violin(f, m, &s, cy, rowh * 0.45);
			for (size_t k = 0; k < m->n; k++) {
				if (!isfinite(m->samples[k]))
					continue;
				fprintf(f, "<circle class=\"s\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.6\"><title>run %zu: %s</title></circle>",
					sc(&s, m->samples[k]), cy + jitter(k) * rowh * 0.5, k + 1,
					ws_format_value(v, sizeof(v), metric, m->samples[k]));
			}
			if (m->sum.n)
				fprintf(f, "<line class=\"med\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
					sc(&s, m->sum.median), cy - rowh * 0.4, sc(&s, m->sum.median), cy + rowh * 0.4);
		}
		fputs("</g>\n", f);
	}
	fputs("</svg>\n", f);
}

static void runs_plot(struct page *p, const char *metric, double lo, double hi, size_t runs)
{
	FILE *f = p->f;
	const int W = 540, L = 84, R = 530, top = 8;
	int H = 6 + (int)p->r->nvariants * 30 + 24;
	struct scale x, y;
	struct text title, desc;
	char v[64];

	if (H < 150)
		H = 150;
	x = (struct scale){ runs > 1 ? 1 : 0.5, runs > 1 ? (double)runs : 1.5, L + 8, R - 4, false };
	y = (struct scale){ lo, hi, H - 20, top, false };
	text_open(&title);
	fprintf(title.f, "%s in run order", metric);
	text_open(&desc);
	fprintf(desc.f, "Each program's value against its run (round 1 to %zu), so that warm-up, drift and bimodality "
		"show.", runs);
	samples_desc(p, desc.f, metric);
	svg_begin(p, W, H, &title, &desc);
	axis(f, &y, false, L, L, R, TICK_VALUE, metric);
	axis(f, &x, true, H - 20, top, H - 20, TICK_RUN, NULL);
	for (size_t i = 0; i < p->r->nvariants; i++) {
		const struct ws_variant *var = nth(p, i);
		const struct ws_metric *m = ws_metric_set_find(&var->metrics, metric);
		bool open = false;

		sample_group(f, p, var, metric, "runs");
		if (m && !(m->flags & WS_M_UNSUPPORTED)) {
			/* A line through consecutive counted runs; a run not counted breaks it. */
			for (size_t k = 0; k < m->n; k++) {
				if (!isfinite(m->samples[k])) {
					if (open)
						fputs("\"/>", f);
					open = false;
					continue;
				}
				fprintf(f, "%s%.1f,%.1f", open ? " " : "<polyline class=\"run\" points=\"", sc(&x, (double)k + 1),
					sc(&y, m->samples[k]));
				open = true;
			}
			if (open)
				fputs("\"/>", f);
			for (size_t k = 0; k < m->n; k++)
				if (isfinite(m->samples[k])) {
					fprintf(f, "<circle class=\"s\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.4\"><title>",
						sc(&x, (double)k + 1), sc(&y, m->samples[k]));
					esc(f, var->name);
					fprintf(f, " run %zu: %s</title></circle>", k + 1,
						ws_format_value(v, sizeof(v), metric, m->samples[k]));
				}
		}
		fputs("</g>\n", f);
	}
	fprintf(f, "<text class=\"lbl\" x=\"%d\" y=\"%d\" text-anchor=\"end\">run</text>", L, H - 7);
	fputs("</svg>\n", f);
}

/* The numbers above the plots: the comparisons (compare, diff) or the statistics (stat). */
static void metric_numbers(struct page *p, const char *metric)
{
	FILE *f = p->f;
	char a[64], b[64], c[64], d[64];

	if (compared(p)) {
		const struct ws_metric *bm = ws_metric_set_find(&p->base->metrics, metric);

		fputs("<table><tr>", f);
		for (size_t i = 0; i < p->r->nvariants; i++) {
			fprintf(f, "<th class=\"v%u\"><span class=\"sw\"></span>", vslot(p, nth(p, i)));
			esc(f, nth(p, i)->name);
			fputs(i ? "</th>" : " (baseline)</th>", f);
		}
		fprintf(f, "</tr><tr><td class=\"num\">%s</td>",
			ws_format_value(a, sizeof(a), metric, bm ? bm->sum.median : NAN));
		for (size_t i = 1; i < p->r->nvariants; i++)
			cmp_td(f, ws_comparison_find(p->r, nth(p, i)->name, metric, NULL, NULL));
		fputs("</tr></table>\n", f);
		return;
	}
	fputs("<table><tr><th>program</th><th>median</th><th>95% CI of the median</th><th>mean ± sd</th>"
	      "<th>min .. max</th><th>runs</th></tr>", f);
	for (size_t i = 0; i < p->r->nvariants; i++) {
		const struct ws_metric *m = ws_metric_set_find(&nth(p, i)->metrics, metric);
		char rel[32] = "";

		if (!m || !m->sum.n)
			continue;
		if (m->flags & WS_M_EXACT)
			snprintf(rel, sizeof(rel), "exact");
		else if (m->sum.n > 1 && m->sum.mean != 0)
			snprintf(rel, sizeof(rel), "± %.1f%%", 100 * m->sum.stddev / fabs(m->sum.mean));
		fputs("<tr><td>", f);
		esc(f, nth(p, i)->name);
		fprintf(f, "</td><td class=\"num\">%s</td><td class=\"num\">", ws_format_value(a, sizeof(a), metric, m->sum.median));
		if (isfinite(m->sum.ci_lo))
			fprintf(f, "%s .. ", ws_format_value(b, sizeof(b), metric, m->sum.ci_lo));
		fprintf(f, "%s</td><td class=\"num\">%s %s</td><td class=\"num\">%s .. %s</td><td>%zu</td></tr>",
			isfinite(m->sum.ci_lo) ? ws_format_value(b, sizeof(b), metric, m->sum.ci_hi) : "-",
			ws_format_value(c, sizeof(c), metric, m->sum.mean), rel, ws_format_value(d, sizeof(d), metric, m->sum.min),
			ws_format_value(a, sizeof(a), metric, m->sum.max), m->sum.n);
	}
	fputs("</table>\n", f);
}

static void runs_section(struct page *p)
{
	FILE *f = p->f;
	const struct ws_metric_set *set = &p->base->metrics;
	size_t drawn = 0, runs = 0;
	double lo = 0, hi = 0;

	fprintf(f, "<section id=\"runs\"><h2>%u. Every run</h2>\n", ++p->section);
	fputs("<p class=\"muted\">Per metric: each program's runs as dots (left), and in the order they ran "
	      "(right).</p>\n", f);
	legend(p);
	for (size_t i = 0; i < set->n; i++) {
		const struct ws_metric *m = &set->v[i];
		bool sampled = !(m->flags & WS_M_UNSUPPORTED) && value_domain(p, m->name, &lo, &hi, &runs);
		bool cmp = false;

		/* A metric without samples (a file from elsewhere) still shows its comparisons. */
		for (size_t v = 1; v < p->r->nvariants && !sampled; v++)
			cmp |= ws_comparison_find(p->r, nth(p, v)->name, m->name, NULL, NULL) != NULL;
		if ((m->flags & WS_M_UNSUPPORTED) || (!sampled && !cmp))
			continue;
		fputs("<figure class=\"metric\" id=\"m-", f);
		esc(f, m->name);
		fputs("\"><h3>", f);
		esc(f, m->name);
		fprintf(f, " <small>%s%s%s</small></h3>\n", ws_unit_name(ws_metric_unit(m->name)),
			m->flags & WS_M_SIMULATED ? ", simulated" : "", m->flags & WS_M_EXACT ? ", exact" : "");
		metric_numbers(p, m->name);
		if (sampled) {
			pad_domain(&lo, &hi);
			fputs("<div class=\"pair\">", f);
			strip_plot(p, m->name, lo, hi);
			runs_plot(p, m->name, lo, hi, runs);
			fputs("</div>", f);
			drawn++;
		}
		fputs("</figure>\n", f);
	}
	if (!drawn)
		fputs("<p>This result holds no samples (the file carries only summaries or comparisons): there are no "
		      "runs to draw.</p>\n", f);
	fputs("</section>\n", f);
}

/* ---- 4. where: the differential function profile, and the regions ---- */

struct fn_row {
	const char *name;
	const struct ws_comparison *c;
	double base, var;           /* self shares (medians) */
	double base_incl, var_incl; /* with the callees, where a call graph gave them; NAN otherwise */
};

static double share_in(const struct ws_variant *v, const char *fn, bool inclusive)
{
	const struct ws_group *g = ws_group_list_find(&v->functions, fn);

	if (!g)
		return NAN;
	return inclusive ? ws_function_inclusive_share(v, g) : ws_function_share(v, g);
}

static void fn_row_fill(struct fn_row *row, const struct ws_variant *base, const struct ws_variant *v, const char *fn)
{
	row->name = fn;
	row->base = base ? share_in(base, fn, false) : NAN;
	row->base_incl = base ? share_in(base, fn, true) : NAN;
	row->var = share_in(v, fn, false);
	row->var_incl = share_in(v, fn, true);
}

static double finite_or_0(double x)
{
	return isfinite(x) ? x : 0;
}

/* A bar from 0 to `share`: filled for the function's own share, an outline for the inclusive one. */
static void fn_bar(FILE *f, const struct scale *s, double share, unsigned slot, bool base, bool incl, double y,
		   double h)
{
	if (!isfinite(share))
		return;
	fprintf(f, "<rect class=\"bar%s%s v%u\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
		base ? " b" : "", incl ? " incl" : "", slot, s->r0, y, sc(s, share) - s->r0, h);
}

static int fn_row_cmp(const void *a, const void *b)
{
	const struct fn_row *x = a, *y = b;
	double dx = fabs(finite_or_0(x->var) - finite_or_0(x->base));
	double dy = fabs(finite_or_0(y->var) - finite_or_0(y->base));

	return (dx < dy) - (dx > dy);
}

/* The widest label of a function chart, in columns: what the chart's left margin holds. */
#define FN_LABEL_WIDTH 34

/* `name`'s last `width` columns after "…" (it is cut at the start), or a copy when it fits. */
static char *cut_start(const char *name, size_t width)
{
	size_t len = strlen(name), w = ws_text_width(name);
	const char *p = name;

	if (w <= width)
		return xstrdup(name);
	/* Drop whole code points from the start until the rest and "…" fit. */
	for (; w > width - 1 && p < name + len; w--)
		for (p++; ((unsigned char)*p & 0xc0) == 0x80; p++)
			;
	return xasprintf("…%s", p);
}

/*
 * The labels of a chart's `n` rows, as the terminal's tables shorten them (ws_sym_display_apart(): template
 * and generic arguments to <…>, parameters to (…), then the start cut; " (inlined)" kept, for an inlined row
 * is not its function; where two would read alike, the part that tells them apart kept). Where only a label
 * wider than the chart's margin would tell two apart, the ends of their full names, which differ, after
 * "…". The full name is each label's tooltip.
 */
static char **fn_labels(const struct fn_row *rows, size_t n)
{
	const char **names = xcalloc(n + 1, sizeof(*names));
	char **v, **plain = xcalloc(n + 1, sizeof(*plain));
	bool *alike = xcalloc(n + 1, sizeof(*alike));

	for (size_t i = 0; i < n; i++)
		names[i] = rows[i].name;
	v = ws_sym_display_apart(names, n, FN_LABEL_WIDTH);
	/*
	 * Only a label that reads like another at the margin was widened past it: one that ws_sym_display() alone
	 * cannot fit (a clone's notes) keeps its form, which names the function, where the ends of its full name
	 * are only its notes.
	 */
	for (size_t i = 0; i < n; i++)
		plain[i] = ws_sym_display(names[i], FN_LABEL_WIDTH);
	ws_text_alike(plain, names, n, alike);
	for (size_t i = 0; i < n; i++)
		if (alike[i] && ws_text_width(v[i]) > FN_LABEL_WIDTH) {
			free(v[i]);
			v[i] = cut_start(rows[i].name, FN_LABEL_WIDTH);
		}
	for (size_t i = 0; i < n; i++)
		free(plain[i]);
	free(plain);
	free(alike);
	free(names);
	return v;
}

static void fn_plot(struct page *p, const struct ws_variant *var, struct fn_row *rows, size_t n, const char *what)
{
	FILE *f = p->f;
	const int W = 900, L = 230, P1 = 560, top = 6, rowh = 26;
	int H = top + (int)n * rowh + 24;
	double hi = 0;
	struct scale s;
	struct text title, desc;
	bool diff = var != p->base, incl = false;
	char **labels = fn_labels(rows, n);

	for (size_t i = 0; i < n; i++) {
		hi = fmax(hi, fmax(finite_or_0(rows[i].base), finite_or_0(rows[i].var)));
		hi = fmax(hi, fmax(finite_or_0(rows[i].base_incl), finite_or_0(rows[i].var_incl)));
		incl |= isfinite(rows[i].base_incl) || isfinite(rows[i].var_incl);
	}
	s = (struct scale){ 0, hi > 0 ? hi * 1.04 : 1, L, P1, false };
	text_open(&title);
	if (diff)
		fprintf(title.f, "Functions of %s against %s: %s", var->name, p->base->name, what);
	else
		fprintf(title.f, "Functions of %s: %s", var->name, what);
	text_open(&desc);
	fprintf(desc.f, "%s per function%s%s, the %zu functions that %s:", diff ? "Paired bars" : "One bar",
		diff ? " (baseline above, variant below)" : "", incl ? "; outlines: with the functions it calls" : "",
		n, diff ? "moved most" : "take most");
	for (size_t i = 0; i < n; i++) {
		if (diff)
			fprintf(desc.f, " %s %.2f%% to %.2f%%", rows[i].name, 100 * rows[i].base, 100 * rows[i].var);
		else
			fprintf(desc.f, " %s %.2f%%", rows[i].name, 100 * rows[i].var);
		if (isfinite(rows[i].var_incl))
			fprintf(desc.f, " (inclusive %.2f%%)", 100 * rows[i].var_incl);
		fputc(';', desc.f);
	}
	fputs("<h4>", f);
	esc(f, var->name);
	if (diff) {
		fputs(" against ", f);
		esc(f, p->base->name);
	}
	fputs(": ", f);
	esc(f, what);
	fputs("</h4>\n", f);
	svg_begin(p, W, H, &title, &desc);
	axis(f, &s, true, H - 20, top, H - 20, TICK_PERCENT, NULL);
	for (size_t i = 0; i < n; i++) {
		const struct fn_row *row = &rows[i];
		double y = top + (double)i * rowh;

		fputs("<g class=\"fn\" data-function=\"", f);
		esc(f, row->name);
		fprintf(f, "\"><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\"><title>", L - 8, y + 16);
		esc(f, row->name);
		fputs("</title>", f);
		esc(f, labels[i]);
		fputs("</text>", f);
		if (diff) {
			fn_bar(f, &s, row->base_incl, 0, true, true, y + 2, 10);
			fn_bar(f, &s, row->base, 0, true, false, y + 3, 8);
			fn_bar(f, &s, row->var_incl, vslot(p, var), false, true, y + 12, 11);
			fn_bar(f, &s, row->var, vslot(p, var), false, false, y + 13, 9);
			fprintf(f, "<text class=\"mono\" x=\"%d\" y=\"%.1f\">%.2f%% → %.2f%%", P1 + 10,
				isfinite(row->var_incl) ? y + 11 : y + 16, 100 * row->base, 100 * row->var);
			if (isfinite(row->var_incl))
				fprintf(f, "<tspan x=\"%d\" dy=\"11\">incl. %.2f%% → %.2f%%</tspan>", P1 + 10,
					100 * row->base_incl, 100 * row->var_incl);
			fputs("</text>", f);
			if (row->c)
				cmp_svg_text(f, row->c, P1 + 150, y + 16);
			else
				fprintf(f, "<text class=\"mono\" x=\"%d\" y=\"%.1f\">%s</text>", P1 + 150, y + 16,
					row->var > 0 ? "new" : "gone");
		} else {
			fn_bar(f, &s, row->var_incl, vslot(p, var), false, true, y + 5, 15);
			fn_bar(f, &s, row->var, vslot(p, var), false, false, y + 6, 13);
			fprintf(f, "<text class=\"mono\" x=\"%d\" y=\"%.1f\">%.2f%%", P1 + 10, y + 16, 100 * row->var);
			if (isfinite(row->var_incl))
				fprintf(f, " (incl. %.2f%%)", 100 * row->var_incl);
			fputs("</text>", f);
		}
		fputs("</g>\n", f);
	}
	fputs("</svg>\n", f);
	for (size_t i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
}

static void functions_part(struct page *p)
{
	const struct ws_result *r = p->r;
	bool any = false;

	for (size_t i = 0; i < r->nvariants; i++)
		any |= r->variants[i].functions.n > 0;
	if (!any)
		return;
	fputs("<h3>Functions</h3>\n", p->f);
	if (!compared(p)) {
		const struct ws_variant *v = p->base;
		struct fn_row *rows = xcalloc(v->functions.n + 1, sizeof(*rows));
		size_t n = v->functions.n;

		for (size_t j = 0; j < n; j++)
			fn_row_fill(&rows[j], NULL, v, v->functions.v[j].name);
		qsort(rows, n, sizeof(*rows), fn_row_cmp);
		fn_plot(p, v, rows, n < TOP_FUNCTIONS ? n : TOP_FUNCTIONS, "median share per run");
		free(rows);
		return;
	}
	for (size_t i = 1; i < r->nvariants; i++) {
		const struct ws_variant *v = nth(p, i);
		struct fn_row *rows = xcalloc(r->ncomparisons + p->base->functions.n + v->functions.n + 1, sizeof(*rows));
		struct ws_one_sided *one = xcalloc(p->base->functions.n + v->functions.n + 1, sizeof(*one));
		const char *metric = NULL;
		size_t n = 0, nk;

		/* One row per function, as the terminal's table: its sampled share, else its simulated cycles. */
		for (size_t k = 0; k < r->ncomparisons; k++) {
			const struct ws_comparison *c = &r->comparisons[k];

			if (!c->function || c->caller || c->inclusive || strcmp(c->variant, v->name) ||
			    (strcmp(c->metric, "share") && strcmp(c->metric, "estimated-cycles")))
				continue;
			metric = c->metric;
			fn_row_fill(&rows[n], p->base, v, c->function);
			rows[n++].c = c;
		}
		/* And those only one side has, "new" or "gone", with 0 on the other side. */
		nk = ws_report_one_sided(p->base, v, one);
		for (size_t j = 0; j < nk; j++) {
			fn_row_fill(&rows[n], p->base, v, one[j].name);
			if (!isfinite(rows[n].base))
				rows[n].base = 0;
			if (!isfinite(rows[n].var))
				rows[n].var = 0;
			if (!metric)
				metric = one[j].metric;
			n++;
		}
		free(one);
		if (n) {
			qsort(rows, n, sizeof(*rows), fn_row_cmp);
			fn_plot(p, v, rows, n < TOP_FUNCTIONS ? n : TOP_FUNCTIONS,
				!strcmp(metric, "share") ? "share of the samples"
							 : "share of estimated cycles, and the change in the function's own cycles");
		}
		free(rows);
	}
}

/* The metric regions are drawn in: the first of these the baseline's regions have samples of. */
static const char *region_metric(const struct ws_variant *b)
{
	static const char *const pref[] = { "cycles", "estimated-cycles", "wall-time", "task-clock", "instructions" };

	for (size_t k = 0; k < ARRAY_SIZE(pref); k++)
		for (size_t i = 0; i < b->regions.n; i++) {
			const struct ws_metric *m = ws_metric_set_find(&b->regions.v[i].metrics, pref[k]);

			if (m && m->sum.n)
				return pref[k];
		}
	return b->regions.n && b->regions.v[0].metrics.n ? b->regions.v[0].metrics.v[0].name : NULL;
}

static void regions_plot(struct page *p, const char *metric)
{
	FILE *f = p->f;
	const struct ws_group_list *regs = &p->base->regions;
	const int W = 900, L = 230, P1 = 560, top = 6, barh = 14, gap = 10;
	int H = top + (int)(regs->n * p->r->nvariants) * barh + (int)regs->n * gap + 24;
	double hi = 0, y = top;
	struct scale s;
	struct text title, desc;
	char v[64];

	for (size_t i = 0; i < regs->n; i++)
		for (size_t j = 0; j < p->r->nvariants; j++) {
			const struct ws_group *g = ws_group_list_find(&nth(p, j)->regions, regs->v[i].name);
			const struct ws_metric *m = g ? ws_metric_set_find(&g->metrics, metric) : NULL;

			if (m && m->sum.n)
				hi = fmax(hi, m->sum.median);
		}
	s = (struct scale){ 0, hi > 0 ? hi * 1.04 : 1, L, P1, false };
	text_open(&title);
	fprintf(title.f, "Regions: median %s per run, per program", metric);
	text_open(&desc);
	fprintf(desc.f, "One bar per program and region.");
	for (size_t i = 0; i < regs->n; i++) {
		fprintf(desc.f, " %s:", regs->v[i].name);
		for (size_t j = 0; j < p->r->nvariants; j++) {
			const struct ws_group *g = ws_group_list_find(&nth(p, j)->regions, regs->v[i].name);
			const struct ws_metric *m = g ? ws_metric_set_find(&g->metrics, metric) : NULL;

			fprintf(desc.f, " %s %s%s", nth(p, j)->name, ws_format_value(v, sizeof(v), metric, m ? m->sum.median : NAN),
				j + 1 < p->r->nvariants ? "," : ";");
		}
	}
	svg_begin(p, W, H, &title, &desc);
	axis(f, &s, true, H - 20, top, H - 20, TICK_VALUE, metric);
	for (size_t i = 0; i < regs->n; i++) {
		fprintf(f, "<text x=\"4\" y=\"%.1f\" font-weight=\"600\">", y + 11);
		esc(f, regs->v[i].name);
		fputs("</text>", f);
		for (size_t j = 0; j < p->r->nvariants; j++) {
			const struct ws_variant *var = nth(p, j);
			const struct ws_group *g = ws_group_list_find(&var->regions, regs->v[i].name);
			const struct ws_metric *m = g ? ws_metric_set_find(&g->metrics, metric) : NULL;
			const struct ws_comparison *c = j ? ws_comparison_find(p->r, var->name, metric, regs->v[i].name, NULL)
							   : NULL;

			fprintf(f, "<g class=\"v%u\"><text class=\"vname\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
				vslot(p, var), L - 8, y + 11);
			esc(f, var->name);
			fputs("</text>", f);
			if (m && m->sum.n)
				fprintf(f, "<rect class=\"bar\" x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\"/>", L, y + 2,
					sc(&s, m->sum.median) - L, barh - 3);
			fprintf(f, "<text class=\"mono\" x=\"%d\" y=\"%.1f\">%s</text>", P1 + 10, y + 11,
				ws_format_value(v, sizeof(v), metric, m ? m->sum.median : NAN));
			if (c)
				cmp_svg_text(f, c, P1 + 120, y + 11);
			fputs("</g>", f);
			y += barh;
		}
		y += gap;
		fputc('\n', f);
	}
	fputs("</svg>\n", f);
}

/* A region's every metric, as the terminal's table: the baseline's median, then each variant's cell. */
static void region_table(struct page *p, const struct ws_group *reg)
{
	FILE *f = p->f;
	char v[64];

	fputs("<table><tr><th>", f);
	esc(f, reg->name);
	fputs("</th>", f);
	for (size_t i = 0; i < p->r->nvariants; i++) {
		fprintf(f, "<th class=\"v%u\"><span class=\"sw\"></span>", vslot(p, nth(p, i)));
		esc(f, nth(p, i)->name);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (size_t k = 0; k < reg->metrics.n; k++) {
		const struct ws_metric *m = &reg->metrics.v[k];

		if (m->flags & WS_M_UNSUPPORTED)
			continue;
		fputs("<tr><td>", f);
		esc(f, m->name);
		fprintf(f, "%s</td><td class=\"num\">%s</td>", m->flags & WS_M_SIMULATED ? " <small>sim</small>" : "",
			ws_format_value(v, sizeof(v), m->name, m->sum.median));
		for (size_t i = 1; i < p->r->nvariants; i++) {
			if (compared(p)) {
				cmp_td(f, ws_comparison_find(p->r, nth(p, i)->name, m->name, reg->name, NULL));
			} else {
				const struct ws_group *g = ws_group_list_find(&nth(p, i)->regions, reg->name);
				const struct ws_metric *o = g ? ws_metric_set_find(&g->metrics, m->name) : NULL;

				fprintf(f, "<td class=\"num\">%s</td>", ws_format_value(v, sizeof(v), m->name, o ? o->sum.median : NAN));
			}
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void where_section(struct page *p)
{
	const char *metric = region_metric(p->base);

	fprintf(p->f, "<section id=\"where\"><h2>%u. Where</h2>\n", ++p->section);
	functions_part(p);
	if (p->base->regions.n) {
		fputs("<h3>Regions</h3>\n", p->f);
		if (metric)
			regions_plot(p, metric);
		for (size_t i = 0; i < p->base->regions.n; i++)
			region_table(p, &p->base->regions.v[i]);
	}
	if (!p->base->regions.n && !p->base->functions.n)
		fputs("<p class=\"muted\">No regions (--regions, with markers in the program) and no functions "
		      "(--functions) were measured.</p>\n", p->f);
	fputs("</section>\n", p->f);
}

/* ---- 5. how it was measured ---- */

static void row(FILE *f, const char *key, const char *val)
{
	fprintf(f, "<tr><th>%s</th><td>", key);
	esc(f, val ? val : "-");
	fputs("</td></tr>\n", f);
}

static void how_section(struct page *p)
{
	const struct ws_result *r = p->r;
	const struct ws_machine *m = &r->machine;
	const struct ws_settings *s = &r->settings;
	FILE *f = p->f;
	char buf[256];

	fprintf(f, "<section id=\"how\"><h2>%u. How it was measured</h2>\n", ++p->section);
	if (s->command_line) {
		char *cmd = ws_join_command(s->command_line);

		fputs("<p>To measure it again:</p><pre><code class=\"reproduce\">", f);
		if (s->cwd) {
			char *cwd[] = { s->cwd, NULL }, *q = ws_join_command(cwd);

			fputs("cd ", f);
			esc(f, q);
			fputs(" &amp;&amp; ", f);
			free(q);
		}
		esc(f, cmd);
		fputs("</code></pre>\n", f);
		free(cmd);
	} else {
		fputs("<p class=\"muted\">This result does not record the command that made it (written by an older "
		      "whyslow, or samples from elsewhere).</p>\n", f);
	}
	fputs("<h3>Programs</h3><table class=\"kv\"><tr><th>name</th><th>command</th><th>runs</th><th>failed</th></tr>\n", f);
	for (size_t i = 0; i < r->nvariants; i++) {
		const struct ws_variant *v = nth(p, i);

		fprintf(f, "<tr><td class=\"v%u\"><span class=\"sw\"></span>", vslot(p, v));
		esc(f, v->name);
		fputs(v == p->base && compared(p) ? " (baseline)" : "", f);
		fputs("</td><td><code>", f);
		esc(f, v->command ? v->command : "-");
		fprintf(f, "</code></td><td>%zu</td><td>%zu</td></tr>\n", ws_report_runs(v), v->failed_runs);
	}
	fputs("</table>\n<h3>Machine</h3><table class=\"kv\">\n", f);
	row(f, "CPU", m->cpu);
	row(f, "kernel", m->kernel);
	row(f, "host", m->hostname);
	snprintf(buf, sizeof(buf), "%d", m->ncpus);
	row(f, "CPUs", m->ncpus ? buf : NULL);
	row(f, "PMU", m->pmu ? "yes: hardware counters" : "no: hardware events cannot be counted here");
	row(f, "backend", m->backend);
	row(f, "simulator preset", m->sim_preset);
	if (m->ncosts) {
		char *costs = xstrdup("");

		for (size_t i = 0; i < m->ncosts; i++) {
			char *next = xasprintf("%s%s%s %g", costs, i ? ", " : "", m->costs[i].metric, m->costs[i].cycles);

			free(costs);
			costs = next;
		}
		row(f, "cycles per event (simulator)", costs);
		free(costs);
	}
	fputs("</table>\n<h3>Settings</h3><table class=\"kv\">\n", f);
	snprintf(buf, sizeof(buf), "%zu%s", s->runs, s->runs_auto ? " (--runs auto)" : "");
	row(f, "runs per program", s->runs ? buf : NULL);
	if (s->runs_auto && isfinite(s->target_ci)) {
		snprintf(buf, sizeof(buf), "%g%%", s->target_ci);
		row(f, "target CI half-width", buf);
	}
	snprintf(buf, sizeof(buf), "%zu", s->warmup);
	row(f, "warm-up runs", buf);
	row(f, "order", s->order ? s->order : "from saved results");
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)s->seed);
	row(f, "seed", buf);
	snprintf(buf, sizeof(buf), "±%g%%", 100 * s->noise);
	row(f, "noise threshold", buf);
	snprintf(buf, sizeof(buf), "%g, %s%s", s->alpha, s->fdr ? "Benjamini-Hochberg" : "Holm",
		 s->paired ? ", paired (Wilcoxon signed-rank)" : ", Mann-Whitney U");
	row(f, "significance", buf);
	if (s->events) {
		char *ev = xstrdup("");

		for (char **e = s->events; *e; e++) {
			char *next = xasprintf("%s%s%s", ev, e == s->events ? "" : ", ", *e);

			free(ev);
			ev = next;
		}
		row(f, "events", ev);
		free(ev);
	}
	row(f, "created", s->created);
	fputs("</table>\n", f);

	fputs("<h3>Warnings</h3>\n", f);
	if (!r->nwarnings && !r->partial)
		fputs("<p>None.</p>\n", f);
	fputs("<ul class=\"warnings\">", f);
	if (r->partial) {
		fputs("<li class=\"changed\">Partial result: ", f);
		esc(f, r->partial_reason ? r->partial_reason : "stopped early");
		fputs("</li>", f);
	}
	for (size_t i = 0; i < r->nwarnings; i++) {
		fputs("<li>", f);
		esc(f, r->warnings[i]);
		fputs("</li>", f);
	}
	fputs("</ul>\n", f);
	for (size_t i = 0; i < p->base->metrics.n; i++) {
		const struct ws_metric *mm = &p->base->metrics.v[i];

		if (!(mm->flags & WS_M_UNSUPPORTED))
			continue;
		fputs("<p class=\"muted\">Not measured: ", f);
		esc(f, mm->name);
		fputs(" (", f);
		esc(f, mm->reason ? mm->reason : "not supported");
		fputs(")</p>\n", f);
	}
	fputs("</section>\n", f);
}

void ws_report_html(FILE *f, const struct ws_result *r)
{
	struct page p = { .f = f, .r = r, .base = ws_result_baseline((struct ws_result *)r) };

	if (!p.base)
		return;
	header(&p);
	if (compared(&p)) {
		verdict_section(&p);
		changes_section(&p);
	}
	runs_section(&p);
	where_section(&p);
	how_section(&p);
	fputs("</body></html>\n", f);
	for (size_t i = 0; i < p.ncauses; i++)
		free(p.causes[i]);
	free(p.causes);
}

int ws_export_html(const struct ws_result *r, const char *path)
{
	return ws_report_export(r, path, ws_report_html);
}
