/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-asm-diff.c - whyslow asm-diff: a function's machine code in two binaries, side by side, with counts. */
#include "asm/asm.h"
#include "core/log.h"
#include "core/util.h"
#include "builtin.h"
#include "parse-options.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * $ whyslow asm-diff --function copy_ints copy-loop copy-memcpy
 * copy_ints
 *                          A          B        B-A
 *   bytes                 32          8        -24
 *   instructions          10          2         -8
 *   ...
 *   calls gained: memcpy
 *
 *   A copy-loop                          B copy-memcpy
 *   1190  test rdx, rdx               |  11a0  shl rdx, 2
 *   1193  je 0x11af <copy_ints+0x1f>  |  11a4  jmp 0x1030 <memcpy@plt>
 *   1195  xor eax, eax                <
 */

static const char *const asm_diff_usage[] = {
	"whyslow asm-diff [--function NAME]... [--json] [--result FILE] BIN_A BIN_B",
	NULL,
};

/* How many of the hottest instructions of each annotated side to list after the listing. */
#define HOTTEST 5

struct side {
	struct ws_asm_bin *bin;
	struct ws_asm_counts counts;
	const char *label; /* "A" or "B" */
};

/* One function of the report: the pair, both listings and their diff. */
struct fn_report {
	struct ws_asm_pair pair;
	struct ws_asm_func f[2];
	bool have[2];
	struct ws_asm_row *rows;
	size_t nrows, changed;
};

static const struct ws_asm_func *fn(const struct fn_report *r, int s)
{
	return r->have[s] ? &r->f[s] : NULL;
}

static int load_report(struct side *sides, const struct ws_asm_pair *p, struct fn_report *r)
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

static void release_report(struct fn_report *r)
{
	for (int s = 0; s < 2; s++)
		ws_asm_func_release(&r->f[s]);
	free(r->rows);
}

static const char *report_name(const struct fn_report *r)
{
	/* Name a pair after A's symbol, or the shared base name when they differ ("scale"). */
	if (r->pair.a && r->pair.b && strcmp(r->pair.a->name, r->pair.b->name) &&
	    !strcmp(r->pair.a->base, r->pair.b->base))
		return r->pair.a->base;
	return r->pair.a ? r->pair.a->name : r->pair.b->name;
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
static bool count_totals(const struct side *sd, const struct ws_asm_func *f, double *tot)
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

static void print_calls(const char *label, const struct ws_asm_func *f)
{
	printf("  %-18s", label);
	if (!f) {
		printf(" (not in this binary)\n");
		return;
	}
	if (!f->sum.ncalls)
		printf(" -");
	for (size_t i = 0; i < f->sum.ncalls; i++)
		printf("%s%s", i ? ", " : " ", f->sum.calls[i]);
	putchar('\n');
}

static void print_frame(const char *label, const struct ws_asm_func *f)
{
	const struct ws_asm_summary *s;

	if (!f)
		return;
	s = &f->sum;
	printf("  %-18s %" PRIu64 " bytes = %zu push%s x 8 + sub rsp %" PRIu64 "%s%s\n", label, s->frame,
	       s->frame_pushes, s->frame_pushes == 1 ? "" : "es", s->frame_sub,
	       s->frame_pointer ? "; rbp is the frame pointer" : "",
	       s->frame_dynamic ? "; plus alloca (sub rsp, reg)" : "");
}

static void print_summary(const struct side *sides, const struct fn_report *r)
{
	const struct ws_asm_func *fa = fn(r, 0), *fb = fn(r, 1);
	const char **gained, **lost;
	size_t ng, nl;

	printf("  %-18s %10s %10s %10s\n", "", "A", "B", "B-A");
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
		printf("  %-18s %10s %10s %10s\n", row->label, va, vb, vd);
	}
	/* Annotated sides: the counts over the whole function, per metric. */
	for (int s = 0; s < 2; s++) {
		const struct side *sd = &sides[s];
		double *tot;

		if (!sd->counts.nkeys || !fn(r, s))
			continue;
		tot = xcalloc(sd->counts.nkeys, sizeof(*tot));
		if (count_totals(sd, fn(r, s), tot)) {
			printf("  %s counts ('%s'):", sd->label, sd->counts.variant);
			for (size_t k = 0; k < sd->counts.nkeys; k++) {
				char buf[32];

				format_count(buf, sizeof(buf), tot[k]);
				printf("%s %s %s", k ? "," : "", sd->counts.keys[k], buf);
			}
			putchar('\n');
		}
		free(tot);
	}
	print_calls("calls A", fa);
	print_calls("calls B", fb);
	if (fa && fb) {
		gained = xcalloc(fb->sum.ncalls + 1, sizeof(*gained));
		lost = xcalloc(fa->sum.ncalls + 1, sizeof(*lost));
		ng = calls_missing(fb, fa, gained);
		nl = calls_missing(fa, fb, lost);
		for (size_t i = 0; i < ng; i++)
			printf("%s%s", i ? ", " : "  calls gained:      ", gained[i]);
		if (ng)
			putchar('\n');
		for (size_t i = 0; i < nl; i++)
			printf("%s%s", i ? ", " : "  calls lost:        ", lost[i]);
		if (nl)
			putchar('\n');
		free(gained);
		free(lost);
	}
	print_frame("frame A", fa);
	print_frame("frame B", fb);
}

/* ---- the side-by-side listing ---- */

static const char op_mark[] = { [WS_ASM_EQUAL] = ' ', [WS_ASM_CHANGE] = '|', [WS_ASM_DELETE] = '<',
				[WS_ASM_INSERT] = '>' };

/* Column widths for one side's counts: each metric's name or its widest value. */
static void count_widths(const struct side *sd, const struct ws_asm_func *f, int *w)
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
static void format_cell(char *buf, size_t n, const struct side *sd, const int *w, const struct ws_asm_func *f,
			long i)
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
	if (i >= 0 && len < n)
		snprintf(buf + len, n - len, "%" PRIx64 "  %s", f->insns[i].addr, f->insns[i].text);
}

static void print_hottest(const struct side *sd, const struct ws_asm_func *f)
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
		printf("\n  hottest in %s by %s ('%s'):\n", sd->label, sd->counts.keys[0], sd->counts.variant);
	for (size_t a = 0; a < n && a < HOTTEST; a++) {
		const struct ws_asm_insn *in = &f->insns[idx[a]];
		const double *v = ws_asm_counts_find(&sd->counts, in->addr);
		char buf[32];

		format_count(buf, sizeof(buf), v[0]);
		printf("    %" PRIx64 "  %-40s %s %s (%.1f%%)", in->addr, in->text, buf, sd->counts.keys[0],
		       100.0 * v[0] / total);
		for (size_t k = 1; k < sd->counts.nkeys; k++) {
			format_count(buf, sizeof(buf), v[k]);
			if (buf[0])
				printf(", %s %s", buf, sd->counts.keys[k]);
		}
		putchar('\n');
	}
	free(idx);
}

static void print_listing(const struct side *sides, const struct fn_report *r)
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
		format_cell(cell, cap, &sides[0], w[0], fn(r, 0), r->rows[i].a);
		if (strlen(cell) > width)
			width = strlen(cell);
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
	if (strlen(other) > width)
		width = strlen(other);
	printf("\n  %-*s    %s\n", (int)width, other, cell);
	for (size_t i = 0; i < r->nrows; i++) {
		const struct ws_asm_row *row = &r->rows[i];

		format_cell(cell, cap, &sides[0], w[0], fn(r, 0), row->a);
		format_cell(other, cap, &sides[1], w[1], fn(r, 1), row->b);
		if (row->b < 0)
			printf("  %-*s  %c\n", (int)width, cell, op_mark[row->op]);
		else
			printf("  %-*s  %c %s\n", (int)width, cell, op_mark[row->op], other);
	}
	print_hottest(&sides[0], fn(r, 0));
	print_hottest(&sides[1], fn(r, 1));
	free(w[0]);
	free(w[1]);
	free(cell);
	free(other);
}

static void print_function(const struct side *sides, const struct fn_report *r)
{
	const struct ws_asm_sym *sa = r->pair.a, *sb = r->pair.b;

	printf("%s\n", report_name(r));
	if (sa)
		printf("  A: %s at 0x%" PRIx64 ", %" PRIu64 " bytes%s\n", sa->name, sa->addr, sa->size,
		       sa->local ? " (local)" : "");
	else
		printf("  A: not in %s (inlined, renamed or removed)\n", ws_asm_bin_path(sides[0].bin));
	if (sb)
		printf("  B: %s at 0x%" PRIx64 ", %" PRIu64 " bytes%s\n", sb->name, sb->addr, sb->size,
		       sb->local ? " (local)" : "");
	else
		printf("  B: not in %s (inlined, renamed or removed)\n", ws_asm_bin_path(sides[1].bin));
	putchar('\n');
	print_summary(sides, r);
	print_listing(sides, r);
	if (sa && sb)
		printf("\n  %zu line%s after normalisation (registers renamed, addresses named)\n",
		       r->changed, r->changed == 1 ? " differs" : "s differ");
}

/* ---- JSON ---- */

static json_t *json_counts(const struct side *sd, const double *v)
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

static json_t *json_summary(const struct side *sd, const struct ws_asm_func *f)
{
	json_t *o, *calls;
	char addr[32];

	if (!f)
		return json_null();
	o = json_object();
	snprintf(addr, sizeof(addr), "0x%" PRIx64, f->addr);
	json_object_set_new(o, "symbol", json_string(f->sym->name));
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

static json_t *json_line(const struct side *sd, const struct ws_asm_func *f, long i)
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

static json_t *json_function(const struct side *sides, const struct fn_report *r, bool with_diff)
{
	static const char *const op_names[] = { [WS_ASM_EQUAL] = "equal", [WS_ASM_CHANGE] = "change",
						[WS_ASM_DELETE] = "delete", [WS_ASM_INSERT] = "insert" };
	const struct ws_asm_func *fa = fn(r, 0), *fb = fn(r, 1);
	json_t *o = json_object();

	json_object_set_new(o, "name", json_string(report_name(r)));
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

static json_t *json_binary(const struct side *sd)
{
	json_t *o = json_object();
	const char *id = ws_asm_bin_build_id(sd->bin);

	json_object_set_new(o, "path", json_string(ws_asm_bin_path(sd->bin)));
	json_object_set_new(o, "build_id", id ? json_string(id) : json_null());
	if (sd->counts.variant)
		json_object_set_new(o, "counts_from", json_string(sd->counts.variant));
	return o;
}

static void print_json(const struct side *sides, json_t *functions)
{
	json_t *root = json_object();

	json_object_set_new(root, "a", json_binary(&sides[0]));
	json_object_set_new(root, "b", json_binary(&sides[1]));
	json_object_set_new(root, "functions", functions);
	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
	putchar('\n');
	json_decref(root);
}

/* ---- the two modes ---- */

static int show_named(struct side *sides, const struct string_list *names, bool json)
{
	struct ws_asm_pair **pairs = xcalloc(names->n + 1, sizeof(*pairs));
	size_t *npairs = xcalloc(names->n + 1, sizeof(*npairs));
	json_t *functions = json ? json_array() : NULL;
	int ret = WS_EXIT_OK;
	bool first = true;

	/* Every name is checked before anything is printed: one bad name, one line, no half a report. */
	for (size_t i = 0; i < names->n; i++) {
		const char *sugg[2];
		size_t ns;

		npairs[i] = ws_asm_pair_named(sides[0].bin, sides[1].bin, names->v[i], &pairs[i]);
		if (npairs[i])
			continue;
		ns = ws_asm_suggest(sides[0].bin, sides[1].bin, names->v[i], sugg, ARRAY_SIZE(sugg));
		if (ns == 0)
			ws_error("no function '%s' in %s or %s", names->v[i], ws_asm_bin_path(sides[0].bin),
				 ws_asm_bin_path(sides[1].bin));
		else
			ws_error("no function '%s' in %s or %s; did you mean '%s'%s%s%s?", names->v[i],
				 ws_asm_bin_path(sides[0].bin), ws_asm_bin_path(sides[1].bin), sugg[0],
				 ns > 1 ? " or '" : "", ns > 1 ? sugg[1] : "", ns > 1 ? "'" : "");
		ret = WS_EXIT_FAIL;
		goto done;
	}
	for (size_t i = 0; i < names->n; i++) {
		for (size_t j = 0; j < npairs[i]; j++) {
			struct fn_report r;

			if (load_report(sides, &pairs[i][j], &r) < 0) {
				release_report(&r);
				ret = WS_EXIT_FAIL;
				goto done;
			}
			if (json) {
				json_array_append_new(functions, json_function(sides, &r, true));
			} else {
				if (!first)
					printf("\n\n");
				print_function(sides, &r);
				first = false;
			}
			release_report(&r);
		}
	}
	if (json) {
		print_json(sides, functions);
		functions = NULL;
	}
done:
	json_decref(functions);
	for (size_t i = 0; i < names->n; i++)
		free(pairs[i]);
	free(pairs);
	free(npairs);
	return ret;
}

struct list_entry {
	json_t *json;          /* list mode with --json: the summary */
	char *name;
	uint64_t v[2][2];      /* [side][instructions, bytes] */
	bool have[2];
	char *other;           /* B's symbol when it differs from A's */
	size_t changed;
};

static int cmp_entries(const void *pa, const void *pb)
{
	const struct list_entry *a = pa, *b = pb;
	int oa = a->have[0] && a->have[1] ? 0 : 1, ob = b->have[0] && b->have[1] ? 0 : 1;

	/* Changed functions first by size of change, then those in one binary only, then the identical. */
	if ((a->changed == 0) != (b->changed == 0))
		return a->changed == 0 ? 1 : -1;
	if (oa != ob)
		return oa - ob;
	if (a->changed != b->changed)
		return a->changed > b->changed ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int show_all(struct side *sides, bool json)
{
	struct ws_asm_pair *pairs = NULL;
	size_t np = ws_asm_pair_all(sides[0].bin, sides[1].bin, &pairs);
	struct list_entry *e = xcalloc(np + 1, sizeof(*e));
	size_t nchanged = 0, nonly[2] = { 0, 0 }, nsame = 0;
	int ret = WS_EXIT_OK;

	for (size_t i = 0; i < np; i++) {
		struct fn_report r;

		if (load_report(sides, &pairs[i], &r) < 0) {
			release_report(&r);
			ret = WS_EXIT_FAIL;
			np = i;
			goto done;
		}
		e[i].name = xstrdup(report_name(&r));
		e[i].changed = r.changed;
		for (int s = 0; s < 2; s++) {
			e[i].have[s] = r.have[s];
			if (r.have[s]) {
				e[i].v[s][0] = r.f[s].sum.instructions;
				e[i].v[s][1] = r.f[s].sum.bytes;
			}
		}
		if (r.have[0] && r.have[1] && strcmp(pairs[i].a->name, pairs[i].b->name))
			e[i].other = xasprintf("%s -> %s", pairs[i].a->name, pairs[i].b->name);
		if (json)
			e[i].json = json_function(sides, &r, false);
		if (!r.have[0] || !r.have[1])
			nonly[r.have[0] ? 0 : 1]++;
		else if (r.changed)
			nchanged++;
		else
			nsame++;
		release_report(&r);
	}
	qsort(e, np, sizeof(*e), cmp_entries);
	if (json) {
		json_t *functions = json_array();

		for (size_t i = 0; i < np; i++) {
			json_array_append_new(functions, e[i].json);
			e[i].json = NULL;
		}
		print_json(sides, functions);
		goto done;
	}
	printf("A: %s\nB: %s\n\n", ws_asm_bin_path(sides[0].bin), ws_asm_bin_path(sides[1].bin));
	if (np && e[0].changed)
		printf("%-32s %8s %8s %7s %8s %8s %8s\n", "function", "insns A", "insns B", "B-A", "bytes A",
		       "bytes B", "changed");
	for (size_t i = 0; i < np && e[i].changed; i++) {
		char ia[24] = "-", ib[24] = "-", d[24] = "", ba[24] = "-", bb[24] = "-";
		const char *note = !e[i].have[0] ? "  (only in B)" : !e[i].have[1] ? "  (only in A)" : "";

		if (e[i].have[0]) {
			snprintf(ia, sizeof(ia), "%" PRIu64, e[i].v[0][0]);
			snprintf(ba, sizeof(ba), "%" PRIu64, e[i].v[0][1]);
		}
		if (e[i].have[1]) {
			snprintf(ib, sizeof(ib), "%" PRIu64, e[i].v[1][0]);
			snprintf(bb, sizeof(bb), "%" PRIu64, e[i].v[1][1]);
		}
		if (e[i].have[0] && e[i].have[1])
			snprintf(d, sizeof(d), "%+" PRId64, (int64_t)(e[i].v[1][0] - e[i].v[0][0]));
		printf("%-32s %8s %8s %7s %8s %8s %8zu%s%s%s\n", e[i].name, ia, ib, d, ba, bb, e[i].changed, note,
		       e[i].other ? "  " : "", e[i].other ? e[i].other : "");
	}
	printf("%s%zu changed, %zu only in A, %zu only in B, %zu identical after normalisation\n",
	       np && e[0].changed ? "\n" : "", nchanged, nonly[0], nonly[1], nsame);
	if (np && e[0].changed) {
		char *cmd = ws_asm_command(ws_asm_bin_path(sides[0].bin), ws_asm_bin_path(sides[1].bin), e[0].name,
					   NULL);

		printf("see one: %s\n", cmd);
		free(cmd);
	}
done:
	for (size_t i = 0; i < np; i++) {
		free(e[i].name);
		free(e[i].other);
		json_decref(e[i].json);
	}
	free(e);
	free(pairs);
	return ret;
}

int cmd_asm_diff(int argc, char **argv)
{
	struct string_list functions = { 0 };
	const char *result = NULL;
	bool json = false;
	struct side sides[2] = { { .label = "A" }, { .label = "B" } };
	const struct option_spec opts[] = {
		OPT_LIST('f', "function", &functions, "NAME",
			 "show this function and its clones (.constprop, .isra, .part, .cold); repeatable"),
		OPT_BOOL(0, "json", &json, "print the summaries and the diff as JSON"),
		OPT_STRING(0, "result", &result, "FILE",
			   "annotate with the per-instruction counts of a whyslow result (hot_code)"),
		OPT_END(),
	};
	int ret = WS_EXIT_FAIL;

	argc = parse_options(argc, argv, "whyslow asm-diff", asm_diff_usage, opts, 0);
	if (argc != 2)
		usage_error(argc < 2 ? "expected two binaries, BIN_A and BIN_B" : "too many arguments: expected "
			    "two binaries, BIN_A and BIN_B");
	for (int s = 0; s < 2; s++)
		if (ws_asm_bin_open(argv[s], &sides[s].bin) < 0)
			goto done;
	if (result) {
		for (int s = 0; s < 2; s++)
			if (ws_asm_counts_load(result, sides[s].bin, &sides[s].counts) < 0)
				goto done;
		if (!sides[0].counts.n && !sides[1].counts.n)
			ws_log(WS_LOG_WARN, "%s has no per-instruction counts (hot_code) for %s or %s; showing the "
			       "code without them", result, argv[0], argv[1]);
	}
	ret = functions.n ? show_named(sides, &functions, json) : show_all(sides, json);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		ws_error("cannot write the report to standard output");
		ret = WS_EXIT_FAIL;
	}
done:
	for (int s = 0; s < 2; s++) {
		ws_asm_counts_release(&sides[s].counts);
		ws_asm_bin_free(sides[s].bin);
	}
	string_list_clear(&functions);
	return ret;
}
