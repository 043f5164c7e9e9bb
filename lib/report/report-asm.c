/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report-asm.c - asm-diff's renderers: a function's two listings side by side, their summaries, as JSON. */
#include "report/report-asm.h"
#include "report/report-internal.h"
#include "core/util.h"
#include "symbols/names.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* How many of the hottest instructions of each annotated side to list after the listing. */
#define HOTTEST 5

static const struct ws_asm_func *fn(const struct ws_asm_report *r, int s)
{
	return r->have[s] ? &r->f[s] : NULL;
}

int ws_asm_report_load(struct ws_asm_side *sides, const struct ws_asm_pair *p, struct ws_asm_report *r)
{
	const struct ws_asm_sym *syms[2] = { p->a, p->b };

	memset(r, 0, sizeof(*r));
	r->pair = *p;
	for (int s = 0; s < 2; s++) {
		if (!syms[s])
			continue;
		if (ws_asm_func_load(sides[s].bin, syms[s], &r->f[s]) < 0)
			return -1;
		r->have[s] = true;
	}
	r->nrows = ws_asm_diff(fn(r, 0), fn(r, 1), &r->rows, &r->changed);
	return 0;
}

void ws_asm_report_release(struct ws_asm_report *r)
{
	for (int s = 0; s < 2; s++)
		ws_asm_func_release(&r->f[s]);
	free(r->rows);
}

const char *ws_asm_report_name(const struct ws_asm_report *r)
{
	const struct ws_asm_sym *s = r->pair.a ? r->pair.a : r->pair.b;

	/* Name a pair after A's function, or the identity both share when the names differ ("scale"). */
	if (r->pair.a && r->pair.b && strcmp(r->pair.a->key, r->pair.b->key) &&
	    !strcmp(r->pair.a->base, r->pair.b->base))
		return r->pair.a->base;
	/* The key tells monomorphizations apart ("fmt::<u32>"); "name #2" would name nothing. */
	return s->ambiguous ? s->name : s->key;
}

/* Why a pair is a pair, or a function alone, for the reader. */
static const char *how_name(enum ws_sym_how how)
{
	switch (how) {
	case WS_SYM_BY_NAME: return "name";
	case WS_SYM_BY_CLONE: return "clone";
	case WS_SYM_BY_SIZE: return "size-and-order";
	case WS_SYM_BY_LAMBDA: return "lambda";
	case WS_SYM_BY_TEMPLATE: return "template";
	/* asm-diff's functions are never inlined rows: these two do not come here. */
	case WS_SYM_LAMBDA_INLINED: return "lambda-inlined";
	case WS_SYM_CLONE_INLINED: return "clone-inlined";
	case WS_SYM_AMBIGUOUS: return "ambiguous";
	case WS_SYM_ONLY: return "only";
	}
	return "?";
}

/* ---- summaries ---- */

struct stat_row {
	const char *label, *json;
	size_t offset; /* of a size_t (or uint64_t when wide) in struct ws_asm_summary */
	bool wide;
};

static const struct stat_row stat_rows[] = {
	{ "bytes", "bytes", offsetof(struct ws_asm_summary, bytes), true },
	{ "instructions", "instructions", offsetof(struct ws_asm_summary, instructions), false },
	{ "loads", "loads", offsetof(struct ws_asm_summary, loads), false },
	{ "stores", "stores", offsetof(struct ws_asm_summary, stores), false },
	{ "cond branches", "cond_branches", offsetof(struct ws_asm_summary, cond_branches), false },
	{ "indirect branches", "indirect_branches", offsetof(struct ws_asm_summary, indirect_branches), false },
	{ "call sites", "call_sites", offsetof(struct ws_asm_summary, call_sites), false },
	{ "simd", "simd", offsetof(struct ws_asm_summary, simd), false },
	{ "simd 256/512-bit", "simd_wide", offsetof(struct ws_asm_summary, simd_wide), false },
	{ "frame bytes", "frame", offsetof(struct ws_asm_summary, frame), true },
};

static uint64_t stat_value(const struct ws_asm_summary *s, const struct stat_row *row)
{
	const char *p = (const char *)s + row->offset;

	return row->wide ? *(const uint64_t *)(const void *)p : *(const size_t *)(const void *)p;
}

static bool has_call(const struct ws_asm_func *f, const char *name)
{
	for (size_t i = 0; f && i < f->sum.ncalls; i++)
		if (!strcmp(f->sum.calls[i], name))
			return true;
	return false;
}

/* Callees of `from` that `other` does not call: gained (from = B) or lost (from = A). */
static size_t calls_missing(const struct ws_asm_func *from, const struct ws_asm_func *other, const char **out)
{
	size_t n = 0;

	for (size_t i = 0; from && i < from->sum.ncalls; i++)
		if (!has_call(other, from->sum.calls[i]))
			out[n++] = from->sum.calls[i];
	return n;
}

/* The sum of each metric over the function's annotated instructions. */
static bool count_totals(const struct ws_asm_side *sd, const struct ws_asm_func *f, double *tot)
{
	bool any = false;

	for (size_t k = 0; k < sd->counts.nkeys; k++)
		tot[k] = 0;
	for (size_t i = 0; f && i < f->n; i++) {
		const double *v = ws_asm_counts_find(&sd->counts, f->insns[i].addr);

		if (!v)
			continue;
		any = true;
		for (size_t k = 0; k < sd->counts.nkeys; k++)
			if (!isnan(v[k]))
				tot[k] += v[k];
	}
	return any;
}

static void format_count(char *buf, size_t n, double v)
{
	if (isnan(v))
		buf[0] = '\0';
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.3g", v);
}

/*
 * A function's name for the terminal: template and generic arguments elided as whyslow's tables elide them
 * (a C++ callee's full name can run to a kilobyte), unless `full` (-v). The JSON keeps the full names.
 */
static char *shown_name(const char *name, bool full)
{
	return full ? xstrdup(name) : ws_sym_display(name, WS_SYM_DISPLAY_WIDTH);
}

/*
 * An instruction's text with the name in its note ("call 0x1972 <NAME>", "...  # 0x4040 <NAME>", and a
 * non-PIE immediate's "...  # <NAME>") shown as shown_name() shows it. The note is the first " <" after a
 * hexadecimal address or a '#', to the text's last '>'.
 */
static char *shown_text(const char *text, bool full)
{
	size_t len = strlen(text);
	const char *p;

	if (full || !len || text[len - 1] != '>')
		return xstrdup(text);
	for (p = strstr(text, " <"); p; p = strstr(p + 1, " <")) {
		const char *h = p;

		while (h > text && strchr("0123456789abcdef", h[-1]))
			h--;
		if ((h < p && h - text >= 2 && h[-1] == 'x' && h[-2] == '0') || (h == p && p > text && p[-1] == '#')) {
			char *name = xstrndup(p + 2, len - 1 - (size_t)(p + 2 - text)), *shown = shown_name(name, false);
			char *out = xasprintf("%.*s <%s>", (int)(p - text), text, shown);

			free(name);
			free(shown);
			return out;
		}
	}
	return xstrdup(text);
}

/* `names` as shown_name() shows them, comma-separated after `lead`; a line of its own. */
static void print_call_list(FILE *out, const char *lead, const char *const *names, size_t n, bool full)
{
	for (size_t i = 0; i < n; i++) {
		char *shown = shown_name(names[i], full);

		fprintf(out, "%s%s", i ? ", " : lead, shown);
		free(shown);
	}
	fputc('\n', out);
}

static void print_calls(FILE *out, const char *label, const struct ws_asm_func *f, bool full)
{
	fprintf(out, "  %-18s", label);
	if (!f)
		fprintf(out, " (not in this binary)\n");
	else if (!f->sum.ncalls)
		fprintf(out, " -\n");
	else
		print_call_list(out, " ", (const char *const *)f->sum.calls, f->sum.ncalls, full);
}

static void print_frame(FILE *out, const char *label, const struct ws_asm_func *f)
{
	const struct ws_asm_summary *s;

	if (!f)
		return;
	s = &f->sum;
	fprintf(out, "  %-18s %" PRIu64 " bytes = %zu push%s x 8 + sub rsp %" PRIu64 "%s%s\n", label, s->frame,
	       s->frame_pushes, s->frame_pushes == 1 ? "" : "es", s->frame_sub,
	       s->frame_pointer ? "; rbp is the frame pointer" : "",
	       s->frame_dynamic ? "; plus alloca (sub rsp, reg)" : "");
}

static void print_summary(FILE *out, const struct ws_asm_side *sides, const struct ws_asm_report *r, bool full)
{
	const struct ws_asm_func *fa = fn(r, 0), *fb = fn(r, 1);
	const char **gained, **lost;
	size_t ng, nl;

	fprintf(out, "  %-18s %10s %10s %10s\n", "", "A", "B", "B-A");
	for (size_t i = 0; i < ARRAY_SIZE(stat_rows); i++) {
		const struct stat_row *row = &stat_rows[i];
		char va[24] = "-", vb[24] = "-", vd[24] = "";

		if (fa)
			snprintf(va, sizeof(va), "%" PRIu64, stat_value(&fa->sum, row));
		if (fb)
			snprintf(vb, sizeof(vb), "%" PRIu64, stat_value(&fb->sum, row));
		if (fa && fb)
			snprintf(vd, sizeof(vd), "%+" PRId64,
				 (int64_t)(stat_value(&fb->sum, row) - stat_value(&fa->sum, row)));
		fprintf(out, "  %-18s %10s %10s %10s\n", row->label, va, vb, vd);
	}
	/* Annotated sides: the counts over the whole function, per metric. */
	for (int s = 0; s < 2; s++) {
		const struct ws_asm_side *sd = &sides[s];
		double *tot;

		if (!sd->counts.nkeys || !fn(r, s))
			continue;
		tot = xcalloc(sd->counts.nkeys, sizeof(*tot));
		if (count_totals(sd, fn(r, s), tot)) {
			fprintf(out, "  %s counts ('%s'):", sd->label, sd->counts.variant);
			for (size_t k = 0; k < sd->counts.nkeys; k++) {
				char buf[32];

				format_count(buf, sizeof(buf), tot[k]);
				fprintf(out, "%s %s %s", k ? "," : "", sd->counts.keys[k], buf);
			}
			fputc('\n', out);
		}
		free(tot);
	}
	print_calls(out, "calls A", fa, full);
	print_calls(out, "calls B", fb, full);
	if (fa && fb) {
		gained = xcalloc(fb->sum.ncalls + 1, sizeof(*gained));
		lost = xcalloc(fa->sum.ncalls + 1, sizeof(*lost));
		ng = calls_missing(fb, fa, gained);
		nl = calls_missing(fa, fb, lost);
		if (ng)
			print_call_list(out, "  calls gained:      ", gained, ng, full);
		if (nl)
			print_call_list(out, "  calls lost:        ", lost, nl, full);
		free(gained);
		free(lost);
	}
	print_frame(out, "frame A", fa);
	print_frame(out, "frame B", fb);
}

/* ---- the side-by-side listing ---- */

static const char op_mark[] = { [WS_ASM_EQUAL] = ' ', [WS_ASM_CHANGE] = '|', [WS_ASM_DELETE] = '<',
				[WS_ASM_INSERT] = '>' };

/* Column widths for one side's counts: each metric's name or its widest value. */
static void count_widths(const struct ws_asm_side *sd, const struct ws_asm_func *f, int *w)
{
	for (size_t k = 0; k < sd->counts.nkeys; k++) {
		w[k] = (int)strlen(sd->counts.keys[k]);
		for (size_t i = 0; f && i < f->n; i++) {
			const double *v = ws_asm_counts_find(&sd->counts, f->insns[i].addr);
			char buf[32];

			if (!v)
				continue;
			format_count(buf, sizeof(buf), v[k]);
			if ((int)strlen(buf) > w[k])
				w[k] = (int)strlen(buf);
		}
	}
}

/* One side of a row into buf: the counts columns, then address and instruction. */
static void format_cell(char *buf, size_t n, const struct ws_asm_side *sd, const int *w, const struct ws_asm_func *f,
			long i, bool full)
{
	size_t len = 0;
	const double *v = i >= 0 ? ws_asm_counts_find(&sd->counts, f->insns[i].addr) : NULL;

	buf[0] = '\0';
	for (size_t k = 0; k < sd->counts.nkeys && len < n; k++) {
		char c[32] = "";

		if (v)
			format_count(c, sizeof(c), v[k]);
		len += (size_t)snprintf(buf + len, n - len, "%*s  ", w[k], c);
	}
	if (i >= 0 && len < n) {
		char *text = shown_text(f->insns[i].text, full);

		snprintf(buf + len, n - len, "%" PRIx64 "  %s", f->insns[i].addr, text);
		free(text);
	}
}

static void print_hottest(FILE *out, const struct ws_asm_side *sd, const struct ws_asm_func *f, bool full)
{
	size_t *idx, n = 0;
	double total = 0;

	if (!f || !sd->counts.nkeys)
		return;
	idx = xmalloc((f->n + 1) * sizeof(*idx));
	for (size_t i = 0; i < f->n; i++) {
		const double *v = ws_asm_counts_find(&sd->counts, f->insns[i].addr);

		if (v && !isnan(v[0]) && v[0] > 0) {
			idx[n++] = i;
			total += v[0];
		}
	}
	/* Selection of the few largest by the first metric (executions when given). */
	for (size_t a = 0; a < n && a < HOTTEST; a++)
		for (size_t b = a + 1; b < n; b++)
			if (ws_asm_counts_find(&sd->counts, f->insns[idx[b]].addr)[0] >
			    ws_asm_counts_find(&sd->counts, f->insns[idx[a]].addr)[0]) {
				size_t t = idx[a];

				idx[a] = idx[b];
				idx[b] = t;
			}
	if (n)
		fprintf(out, "\n  hottest in %s by %s ('%s'):\n", sd->label, sd->counts.keys[0], sd->counts.variant);
	for (size_t a = 0; a < n && a < HOTTEST; a++) {
		const struct ws_asm_insn *in = &f->insns[idx[a]];
		const double *v = ws_asm_counts_find(&sd->counts, in->addr);
		char buf[32], *text;

		format_count(buf, sizeof(buf), v[0]);
		text = shown_text(in->text, full);
		fprintf(out, "    %" PRIx64 "  ", in->addr);
		ws_report_pad(out, text, 40, false);
		fprintf(out, " %s %s (%.1f%%)", buf, sd->counts.keys[0], 100.0 * v[0] / total);
		free(text);
		for (size_t k = 1; k < sd->counts.nkeys; k++) {
			format_count(buf, sizeof(buf), v[k]);
			if (buf[0])
				fprintf(out, ", %s %s", buf, sd->counts.keys[k]);
		}
		fputc('\n', out);
	}
	free(idx);
}

static void print_listing(FILE *out, const struct ws_asm_side *sides, const struct ws_asm_report *r, bool full)
{
	int *w[2];
	size_t width = 0, cap = 4096;
	char *cell = xmalloc(cap), *other = xmalloc(cap);

	for (int s = 0; s < 2; s++) {
		w[s] = xcalloc(sides[s].counts.nkeys + 1, sizeof(int));
		count_widths(&sides[s], fn(r, s), w[s]);
	}
	/* The left column is as wide as its longest line, up to a limit; longer lines push the right side. */
	for (size_t i = 0; i < r->nrows; i++) {
		format_cell(cell, cap, &sides[0], w[0], fn(r, 0), r->rows[i].a, full);
		if (ws_text_width(cell) > width)
			width = ws_text_width(cell);
	}
	if (width > 80)
		width = 80;
	/* Headings: the metric names over the counts columns, then which binary. */
	for (int s = 0; s < 2; s++) {
		size_t len = 0;

		for (size_t k = 0; k < sides[s].counts.nkeys; k++)
			len += (size_t)snprintf(cell + len, cap - len, "%*s  ", w[s][k], sides[s].counts.keys[k]);
		snprintf(cell + len, cap - len, "%s %s", sides[s].label, ws_asm_bin_path(sides[s].bin));
		if (!s)
			snprintf(other, cap, "%s", cell);
	}
	if (ws_text_width(other) > width)
		width = ws_text_width(other);
	fputs("\n  ", out);
	ws_report_pad(out, other, width, false);
	fprintf(out, "    %s\n", cell);
	for (size_t i = 0; i < r->nrows; i++) {
		const struct ws_asm_row *row = &r->rows[i];

		format_cell(cell, cap, &sides[0], w[0], fn(r, 0), row->a, full);
		format_cell(other, cap, &sides[1], w[1], fn(r, 1), row->b, full);
		fputs("  ", out);
		ws_report_pad(out, cell, width, false);
		if (row->b < 0)
			fprintf(out, "  %c\n", op_mark[row->op]);
		else
			fprintf(out, "  %c %s\n", op_mark[row->op], other);
	}
	print_hottest(out, &sides[0], fn(r, 0), full);
	print_hottest(out, &sides[1], fn(r, 1), full);
	free(w[0]);
	free(w[1]);
	free(cell);
	free(other);
}

/* Side `side` lacks the function `other` has: where DWARF says it was inlined, or the possibilities. */
static void print_missing(FILE *out, const struct ws_asm_side *side, const struct ws_asm_sym *other)
{
	enum { MAX = 3 };
	char *holders[MAX], *inlined, *list;
	size_t n;

	if (other->unnamed) {
		/* Named by its file and address, which another file does not share: ask for that one's by name. */
		fprintf(out, "  %s: not in %s (code without a symbol is named by its file and address: name this "
			     "file's too)\n", side->label, ws_asm_bin_path(side->bin));
		return;
	}
	n = ws_asm_inlined_into(side->bin, other->symbol, holders, MAX, &inlined);
	if (!n) {
		fprintf(out, "  %s: not in %s (inlined, renamed or removed)\n", side->label, ws_asm_bin_path(side->bin));
		return;
	}
	list = ws_asm_holder_list(holders, n, MAX);
	fprintf(out, "  %s: not in %s: inlined into %s (DWARF)\n", side->label, ws_asm_bin_path(side->bin), list);
	free(list);
	free(inlined);
	for (size_t i = 0; i < n; i++)
		free(holders[i]);
}

void ws_asm_report_print(FILE *out, const struct ws_asm_side *sides, const struct ws_asm_report *r, bool full)
{
	const struct ws_asm_sym *sa = r->pair.a, *sb = r->pair.b;
	char *shown = shown_name(ws_asm_report_name(r), full);

	fprintf(out, "%s\n", shown);
	free(shown);
	for (int k = 0; k < 2; k++) {
		const struct ws_asm_sym *sy = k ? sb : sa;

		if (sy) {
			shown = shown_name(sy->name, full);
			fprintf(out, "  %s: %s at 0x%" PRIx64 ", %" PRIu64 " bytes%s%s%s\n", sides[k].label, shown,
				sy->addr, sy->size, sy->local ? " (local)" : "", strcmp(sy->symbol, sy->name) ? ", symbol " : "",
				strcmp(sy->symbol, sy->name) ? sy->symbol : "");
			free(shown);
		}
		else if (r->pair.how == WS_SYM_AMBIGUOUS)
			fprintf(out, "  %s: several functions of this name in %s, and nothing (DWARF, size and order) "
				"tells which is this one: not paired\n", sides[k].label, ws_asm_bin_path(sides[k].bin));
		else
			print_missing(out, &sides[k], k ? sa : sb);
	}
	if (r->pair.how == WS_SYM_BY_SIZE)
		fprintf(out, "  paired by size and address order: several functions have this name in each build\n");
	fputc('\n', out);
	print_summary(out, sides, r, full);
	print_listing(out, sides, r, full);
	if (sa && sb)
		fprintf(out, "\n  %zu line%s after normalisation (registers renamed, addresses named)\n",
		       r->changed, r->changed == 1 ? " differs" : "s differ");
}

/* ---- JSON ---- */

static json_t *json_counts(const struct ws_asm_side *sd, const double *v)
{
	json_t *o = json_object();

	/* Counts are integers; keep them so unless the file gave fractions (averages over runs). */
	for (size_t k = 0; k < sd->counts.nkeys; k++) {
		if (isnan(v[k]))
			continue;
		if (v[k] == floor(v[k]) && fabs(v[k]) < 9e15)
			json_object_set_new(o, sd->counts.keys[k], json_integer((json_int_t)v[k]));
		else
			json_object_set_new(o, sd->counts.keys[k], json_real(v[k]));
	}
	return o;
}

static json_t *json_summary(const struct ws_asm_side *sd, const struct ws_asm_func *f)
{
	json_t *o, *calls;
	char addr[32];

	if (!f)
		return json_null();
	o = json_object();
	snprintf(addr, sizeof(addr), "0x%" PRIx64, f->addr);
	json_object_set_new(o, "name", json_string(f->sym->name));
	json_object_set_new(o, "symbol", json_string(f->sym->symbol));
	json_object_set_new(o, "addr", json_string(addr));
	for (size_t i = 0; i < ARRAY_SIZE(stat_rows); i++)
		json_object_set_new(o, stat_rows[i].json, json_integer((json_int_t)stat_value(&f->sum, &stat_rows[i])));
	calls = json_array();
	for (size_t i = 0; i < f->sum.ncalls; i++)
		json_array_append_new(calls, json_string(f->sum.calls[i]));
	json_object_set_new(o, "calls", calls);
	json_object_set_new(o, "frame_pushes", json_integer((json_int_t)f->sum.frame_pushes));
	json_object_set_new(o, "frame_sub", json_integer((json_int_t)f->sum.frame_sub));
	json_object_set_new(o, "frame_pointer", json_boolean(f->sum.frame_pointer));
	json_object_set_new(o, "frame_dynamic", json_boolean(f->sum.frame_dynamic));
	if (f->sum.bad)
		json_object_set_new(o, "undecodable_bytes", json_integer((json_int_t)f->sum.bad));
	if (sd->counts.nkeys) {
		double *tot = xcalloc(sd->counts.nkeys, sizeof(*tot));

		if (count_totals(sd, f, tot))
			json_object_set_new(o, "counts", json_counts(sd, tot));
		free(tot);
	}
	return o;
}

static json_t *json_line(const struct ws_asm_side *sd, const struct ws_asm_func *f, long i)
{
	json_t *o;
	const double *v;
	char addr[32];

	if (i < 0)
		return json_null();
	o = json_object();
	snprintf(addr, sizeof(addr), "0x%" PRIx64, f->insns[i].addr);
	json_object_set_new(o, "addr", json_string(addr));
	json_object_set_new(o, "text", json_string(f->insns[i].text));
	json_object_set_new(o, "norm", json_string(f->insns[i].norm));
	v = ws_asm_counts_find(&sd->counts, f->insns[i].addr);
	if (v)
		json_object_set_new(o, "counts", json_counts(sd, v));
	return o;
}

static json_t *json_name_list(const char **v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

json_t *ws_asm_report_json(const struct ws_asm_side *sides, const struct ws_asm_report *r, bool with_diff)
{
	static const char *const op_names[] = { [WS_ASM_EQUAL] = "equal", [WS_ASM_CHANGE] = "change",
						[WS_ASM_DELETE] = "delete", [WS_ASM_INSERT] = "insert" };
	const struct ws_asm_func *fa = fn(r, 0), *fb = fn(r, 1);
	json_t *o = json_object();

	json_object_set_new(o, "name", json_string(ws_asm_report_name(r)));
	json_object_set_new(o, "paired_by", json_string(how_name(r->pair.how)));
	json_object_set_new(o, "a", json_summary(&sides[0], fa));
	json_object_set_new(o, "b", json_summary(&sides[1], fb));
	json_object_set_new(o, "changed", json_integer((json_int_t)r->changed));
	if (fa && fb) {
		const char **tmp = xcalloc(fa->sum.ncalls + fb->sum.ncalls + 1, sizeof(*tmp));

		json_object_set_new(o, "calls_gained", json_name_list(tmp, calls_missing(fb, fa, tmp)));
		json_object_set_new(o, "calls_lost", json_name_list(tmp, calls_missing(fa, fb, tmp)));
		free(tmp);
	}
	if (with_diff) {
		json_t *diff = json_array();

		for (size_t i = 0; i < r->nrows; i++) {
			json_t *row = json_object();

			json_object_set_new(row, "op", json_string(op_names[r->rows[i].op]));
			json_object_set_new(row, "a", json_line(&sides[0], fa, r->rows[i].a));
			json_object_set_new(row, "b", json_line(&sides[1], fb, r->rows[i].b));
			json_array_append_new(diff, row);
		}
		json_object_set_new(o, "diff", diff);
	}
	return o;
}

static json_t *json_binary(const struct ws_asm_side *sd)
{
	json_t *o = json_object();
	const char *id = ws_asm_bin_build_id(sd->bin);

	json_object_set_new(o, "path", json_string(ws_asm_bin_path(sd->bin)));
	json_object_set_new(o, "build_id", id ? json_string(id) : json_null());
	if (sd->counts.variant)
		json_object_set_new(o, "counts_from", json_string(sd->counts.variant));
	return o;
}

void ws_asm_report_print_json(FILE *out, const struct ws_asm_side *sides, json_t *functions)
{
	json_t *root = json_object();

	json_object_set_new(root, "a", json_binary(&sides[0]));
	json_object_set_new(root, "b", json_binary(&sides[1]));
	json_object_set_new(root, "functions", functions);
	json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
	fputc('\n', out);
	json_decref(root);
}
