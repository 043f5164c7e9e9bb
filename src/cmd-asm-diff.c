/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-asm-diff.c - whyslow asm-diff: a function's machine code in two binaries, side by side, with counts. */
#include "asm/asm.h"
#include "report/report-asm.h"
#include "report/report.h"
#include "symbols/names.h"
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
 *
 * Functions are named as the profiles name them (lib/symbols/names.h): --function takes a mangled name, a
 * demangled one in any form ("lc::add", "foo(int)", "foo") or a glob over demangled names
 * ('smallvec::SmallVec<*>::insert', '*::insert_or_update').
 */

static const char *const asm_diff_usage[] = {
	"whyslow asm-diff [--function NAME]... [--all] [--json] [--result FILE] BIN_A BIN_B",
	NULL,
};

/* ---- the two modes ---- */

/* A glob that matches many functions: the list, and a usage error unless --all. */
static void too_many(const char *pattern, const struct ws_asm_pair *pairs, size_t n)
{
	const size_t shown = 20;

	fprintf(stderr, "whyslow asm-diff: '%s' matches %zu functions; name one (a name below), or give --all "
		"to show them all:\n", pattern, n);
	for (size_t i = 0; i < n && i < shown; i++) {
		const struct ws_asm_sym *s = pairs[i].a ? pairs[i].a : pairs[i].b;

		fprintf(stderr, "  %s\n", s->ambiguous ? s->name : s->key);
	}
	if (n > shown)
		fprintf(stderr, "  ... and %zu more\n", n - shown);
}

/*
 * A name with no code of its own in either binary may have been inlined everywhere it was called: say where,
 * from DWARF, so that the user compares those functions instead. True if it said so.
 */
static bool say_inlined(struct ws_asm_side *sides, const char *pattern)
{
	enum { MAX = 3 };
	char *holders[2][MAX], *inlined[2], *lists[2], *hint;
	const char *a = ws_asm_bin_path(sides[0].bin), *b = ws_asm_bin_path(sides[1].bin);
	size_t n[2];
	int k1;

	for (int k = 0; k < 2; k++)
		n[k] = ws_asm_inlined_into(sides[k].bin, pattern, holders[k], MAX, &inlined[k]);
	if (!n[0] && !n[1]) {
		free(inlined[0]);
		free(inlined[1]);
		return false;
	}
	for (int k = 0; k < 2; k++)
		lists[k] = ws_asm_holder_list(holders[k], n[k], MAX);
	k1 = n[0] ? 0 : 1; /* a side that has it inlined */
	if (n[k1] == 1 && (!n[!k1] || !strcmp(lists[0], lists[1]))) {
		char *shortname = ws_sym_short(holders[k1][0]);

		hint = xasprintf("give -f '%s'", shortname);
		free(shortname);
	} else {
		hint = xstrdup("give -f one of them");
	}
	if (n[0] && n[1] && !strcmp(lists[0], lists[1]))
		ws_error("no function '%s' in %s or %s: '%s' was inlined into %s in both (%s)", pattern, a, b,
			 inlined[0], lists[0], hint);
	else if (n[0] && n[1])
		ws_error("no function '%s' in %s or %s: '%s' was inlined into %s in %s and into %s in %s (%s)", pattern,
			 a, b, inlined[0], lists[0], a, lists[1], b, hint);
	else
		ws_error("no function '%s' in %s or %s: '%s' was inlined into %s in %s (%s)", pattern, a, b,
			 inlined[k1], lists[k1], k1 ? b : a, hint);
	free(hint);
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < n[k]; i++)
			free(holders[k][i]);
		free(lists[k]);
		free(inlined[k]);
	}
	return true;
}

/*
 * A stripped side (no symbol names a function) can show only its code without names, asked for by the name
 * whyslow's tables give it; for anything else the one line that says how to get names. True when said.
 */
static bool say_stripped(const struct ws_asm_side *sides, const char *name)
{
	for (int s = 0; s < 2; s++) {
		if (!ws_asm_bin_stripped(sides[s].bin) || (name && !strncmp(name, "[unknown] ", 10)))
			continue;
		ws_error("%s: %s; rebuild it without -s and do not strip it, give asm-diff the unstripped copy, or "
			 "name a function with --function as whyslow's tables do ('[unknown] FILE+0xADDR')",
			 ws_asm_bin_path(sides[s].bin), ws_asm_bin_stripped(sides[s].bin));
		return true;
	}
	return false;
}

static int show_named(struct ws_asm_side *sides, const struct string_list *names, bool all, bool json, bool full)
{
	struct ws_asm_pair **pairs = xcalloc(names->n + 1, sizeof(*pairs));
	size_t *npairs = xcalloc(names->n + 1, sizeof(*npairs));
	json_t *functions = json ? json_array() : NULL;
	int ret = WS_EXIT_OK;
	bool first = true;

	/* Every name is checked before anything is printed: one bad name, one line, no half a report. */
	for (size_t i = 0; i < names->n; i++) {
		const char *sugg[3];
		bool glob;
		size_t ns;

		if (say_stripped(sides, names->v[i])) {
			ret = WS_EXIT_FAIL;
			goto done;
		}

		npairs[i] = ws_asm_pair_named(sides[0].bin, sides[1].bin, names->v[i], &pairs[i], &glob);
		if (npairs[i] > 1 && glob && !all) {
			too_many(names->v[i], pairs[i], npairs[i]);
			ret = WS_EXIT_USAGE;
			goto done;
		}
		if (npairs[i])
			continue;
		if (say_inlined(sides, names->v[i])) {
			ret = WS_EXIT_FAIL;
			goto done;
		}
		ns = ws_asm_suggest(sides[0].bin, sides[1].bin, names->v[i], sugg, ARRAY_SIZE(sugg));
		if (ws_sym_plt_callee(names->v[i])) {
			/* Profiles name PLT stubs (memcmp@plt); they are one jump, with nothing to compare. */
			ws_error("'%s' is a PLT stub, one jump to '%.*s' in a shared library: compare the functions that "
				 "call it (--callers names them)", names->v[i], (int)ws_sym_plt_callee(names->v[i]),
				 names->v[i]);
		} else if (ns == 0) {
			ws_error("no function '%s' in %s or %s", names->v[i], ws_asm_bin_path(sides[0].bin),
				 ws_asm_bin_path(sides[1].bin));
		} else {
			char *list = xasprintf("'%s'", sugg[0]);

			for (size_t k = 1; k < ns; k++) {
				char *more = xasprintf("%s%s'%s'", list, k == ns - 1 ? " or " : ", ", sugg[k]);

				free(list);
				list = more;
			}
			ws_error("no function '%s' in %s or %s; did you mean %s?", names->v[i],
				 ws_asm_bin_path(sides[0].bin), ws_asm_bin_path(sides[1].bin), list);
			free(list);
		}
		ret = WS_EXIT_FAIL;
		goto done;
	}
	for (size_t i = 0; i < names->n; i++) {
		for (size_t j = 0; j < npairs[i]; j++) {
			struct ws_asm_report r;

			if (ws_asm_report_load(sides, &pairs[i][j], &r) < 0) {
				ws_asm_report_release(&r);
				ret = WS_EXIT_FAIL;
				goto done;
			}
			if (json) {
				json_array_append_new(functions, ws_asm_report_json(sides, &r, true));
			} else {
				if (!first)
					printf("\n\n");
				ws_asm_report_print(stdout, sides, &r, full);
				first = false;
			}
			ws_asm_report_release(&r);
		}
	}
	if (json) {
		ws_asm_report_print_json(stdout, sides, functions);
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
	enum ws_sym_how how;
	uint64_t v[2][2];      /* [side][instructions, bytes] */
	bool have[2];
	char *other;           /* B's symbol when it differs from A's */
	size_t changed;
	size_t ambiguous[2];   /* an ambiguous name: how many functions have it in A and in B (one row for all) */
};

static int cmp_entries(const void *pa, const void *pb)
{
	const struct list_entry *a = pa, *b = pb;
	int oa = a->how == WS_SYM_AMBIGUOUS ? 2 : a->have[0] && a->have[1] ? 0 : 1;
	int ob = b->how == WS_SYM_AMBIGUOUS ? 2 : b->have[0] && b->have[1] ? 0 : 1;

	/*
	 * Changed functions first by size of change, then those in one binary only, then the names nothing
	 * paired, then the identical.
	 */
	if ((a->changed == 0) != (b->changed == 0))
		return a->changed == 0 ? 1 : -1;
	if (oa != ob)
		return oa - ob;
	if (a->changed != b->changed)
		return a->changed > b->changed ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int show_all(struct ws_asm_side *sides, bool json, bool full)
{
	struct ws_asm_pair *pairs = NULL;
	size_t np, ne = 0;
	struct list_entry *e;
	size_t nchanged = 0, nonly[2] = { 0, 0 }, nsame = 0, nambiguous = 0, nsized = 0, namew = 40;
	/* Names as the profiles' tables show them: a clone's suffix and the function's own name in view. */
	const struct ws_report_opts ro = { .full_names = full };
	struct ws_report_names *names = NULL;
	int ret = WS_EXIT_OK;

	/* Code without names pairs only when asked for: a stripped binary has nothing to list. */
	if (say_stripped(sides, NULL))
		return WS_EXIT_FAIL;
	np = ws_asm_pair_all(sides[0].bin, sides[1].bin, &pairs);
	e = xcalloc(np + 1, sizeof(*e));

	for (size_t i = 0; i < np; i++) {
		struct ws_asm_report r;
		size_t k;

		/* The functions of one ambiguous name are one row in the terminal: counted, not listed. */
		if (!json && pairs[i].how == WS_SYM_AMBIGUOUS) {
			const struct ws_asm_sym *sym = pairs[i].a ? pairs[i].a : pairs[i].b;

			nambiguous++;
			for (k = 0; k < ne && !(e[k].how == WS_SYM_AMBIGUOUS && !strcmp(e[k].name, sym->name)); k++)
				;
			if (k == ne) {
				e[ne].name = xstrdup(sym->name);
				e[ne].how = WS_SYM_AMBIGUOUS;
				ne++;
			}
			e[k].ambiguous[pairs[i].a ? 0 : 1]++;
			e[k].changed += sym->size ? 1 : 0;
			continue;
		}
		if (ws_asm_report_load(sides, &pairs[i], &r) < 0) {
			ws_asm_report_release(&r);
			ret = WS_EXIT_FAIL;
			goto done;
		}
		k = ne++;
		e[k].name = xstrdup(ws_asm_report_name(&r));
		e[k].how = pairs[i].how;
		e[k].changed = r.changed;
		for (int s = 0; s < 2; s++) {
			e[k].have[s] = r.have[s];
			if (r.have[s]) {
				e[k].v[s][0] = r.f[s].sum.instructions;
				e[k].v[s][1] = r.f[s].sum.bytes;
			}
		}
		if (r.have[0] && r.have[1] && strcmp(pairs[i].a->name, pairs[i].b->name)) {
			/* A lambda renumbered reads alike shortened: the two are told apart. */
			struct ws_report_names *two = ws_report_names_new(&ro);
			char *da, *db;

			ws_report_names_add(two, pairs[i].a->name);
			ws_report_names_add(two, pairs[i].b->name);
			da = ws_report_names_get(two, pairs[i].a->name, 0);
			db = ws_report_names_get(two, pairs[i].b->name, 0);
			e[k].other = xasprintf("%s -> %s", da, db);
			free(da);
			free(db);
			ws_report_names_free(two);
		}
		nsized += pairs[i].how == WS_SYM_BY_SIZE;
		if (json)
			e[k].json = ws_asm_report_json(sides, &r, false);
		if (pairs[i].how == WS_SYM_AMBIGUOUS)
			nambiguous++;
		else if (!r.have[0] || !r.have[1])
			nonly[r.have[0] ? 0 : 1]++;
		else if (r.changed)
			nchanged++;
		else
			nsame++;
		ws_asm_report_release(&r);
	}
	qsort(e, ne, sizeof(*e), cmp_entries);
	if (json) {
		json_t *functions = json_array();

		for (size_t i = 0; i < ne; i++) {
			json_array_append_new(functions, e[i].json);
			e[i].json = NULL;
		}
		ws_asm_report_print_json(stdout, sides, functions);
		goto done;
	}
	printf("A: %s\nB: %s\n\n", ws_asm_bin_path(sides[0].bin), ws_asm_bin_path(sides[1].bin));
	/* The name column as wide as the widest name shown (at least 40), as the profiles' tables. */
	names = ws_report_names_new(&ro);
	for (size_t i = 0; i < ne && e[i].changed; i++)
		ws_report_names_add(names, e[i].name);
	for (size_t i = 0; i < ne && e[i].changed; i++)
		namew = ws_report_names_column(names, e[i].name, namew);
	if (ne && e[0].changed)
		printf("%-*s %8s %8s %7s %8s %8s %8s\n", (int)namew, "function", "insns A", "insns B", "B-A", "bytes A",
		       "bytes B", "changed");
	for (size_t i = 0, ambiguous_rows = 0; i < ne && e[i].changed; i++) {
		char ia[24] = "-", ib[24] = "-", d[24] = "", ba[24] = "-", bb[24] = "-";
		char *pad = ws_report_names_get(names, e[i].name, namew);
		char *note = e[i].how == WS_SYM_AMBIGUOUS
				     ? xasprintf("  (ambiguous: %zu of this name in A, %zu in B, nothing tells them apart: "
						 "not paired)", e[i].ambiguous[0], e[i].ambiguous[1])
				     : xstrdup(!e[i].have[0] ? "  (only in B)" : !e[i].have[1] ? "  (only in A)"
					       : e[i].how == WS_SYM_BY_SIZE ? "  (paired by size and order)" : "");

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
		if (e[i].how == WS_SYM_AMBIGUOUS) {
			/* Rust's standard library brings dozens of these: the first few say what they are. */
			if (++ambiguous_rows <= 8)
				printf("%s %8s %8s %7s %8s %8s %8s%s\n", pad, "", "", "", "", "", "", note);
			else if (ambiguous_rows == 9)
				printf("... and more ambiguous names (--json lists every function)\n");
			free(pad);
			free(note);
			continue;
		}
		printf("%s %8s %8s %7s %8s %8s %8zu%s%s%s\n", pad, ia, ib, d, ba, bb, e[i].changed, note,
		       e[i].other ? "  " : "", e[i].other ? e[i].other : "");
		free(pad);
		free(note);
	}
	printf("%s%zu changed, %zu only in A, %zu only in B, %zu identical after normalisation", ne && e[0].changed ? "\n" : "",
	       nchanged, nonly[0], nonly[1], nsame);
	if (nambiguous)
		printf("; %zu ambiguous (several functions of one name in both builds that nothing told apart, not "
		       "paired)", nambiguous);
	if (nsized)
		printf("; %zu paired by size and order", nsized);
	printf("\n");
	if (ne && e[0].changed && e[0].how != WS_SYM_AMBIGUOUS) {
		char *cmd = ws_asm_command(ws_asm_bin_path(sides[0].bin), ws_asm_bin_path(sides[1].bin), e[0].name,
					   NULL);

		printf("see one: %s\n", cmd);
		free(cmd);
	}
done:
	for (size_t i = 0; i < ne; i++) {
		free(e[i].name);
		free(e[i].other);
		json_decref(e[i].json);
	}
	free(e);
	free(pairs);
	ws_report_names_free(names);
	return ret;
}

int cmd_asm_diff(int argc, char **argv)
{
	struct string_list functions = { 0 };
	const char *result = NULL;
	bool json = false, all = false, full = false;
	struct ws_asm_side sides[2] = { { .label = "A" }, { .label = "B" } };
	const struct option_spec opts[] = {
		OPT_LIST('f', "function", &functions, "NAME",
			 "show this function and its clones (.constprop, .isra, .part, .cold): a mangled or "
			 "demangled name, or a glob over demangled names; repeatable"),
		OPT_BOOL(0, "all", &all, "show every function a --function glob matches (else: the list, exit 129)"),
		OPT_BOOL(0, "json", &json, "print the summaries and the diff as JSON"),
		OPT_BOOL('v', "verbose", &full, "function names in full (else template and generic arguments elided)"),
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
		/* One binary twice (a library under two variants of a program): each side its own variant's counts. */
		bool same = ws_asm_bin_same_file(sides[0].bin, sides[1].bin);

		for (int s = 0; s < 2; s++)
			if (ws_asm_counts_load(result, sides[s].bin, same ? (size_t)s : 0, &sides[s].counts) < 0)
				goto done;
		for (int s = 0; s < (same ? 1 : 2); s++) {
			const struct ws_asm_counts *c = &sides[s].counts;

			if (same && c->nvariants == 1)
				ws_log(WS_LOG_INFO, "%s: only '%s' ran %s: both sides show its counts", result, c->variant,
				       argv[s]);
			else if (same && c->nvariants > 2)
				ws_log(WS_LOG_INFO, "%s: %zu variants ran %s; annotating A with the first, '%s', and B "
				       "with the second, '%s'", result, c->nvariants, argv[s], c->variant,
				       sides[1].counts.variant);
			else if (!same && c->nvariants > 1)
				ws_log(WS_LOG_INFO, "%s: %zu variants ran %s; annotating with the first, '%s'", result,
				       c->nvariants, argv[s], c->variant);
		}
		if (!sides[0].counts.n && !sides[1].counts.n)
			ws_log(WS_LOG_WARN, "%s has no per-instruction counts (hot_code) for %s or %s; showing the "
			       "code without them", result, argv[0], argv[1]);
	}
	/* A report that could not be written fails at exit, in main's close_stdout (silently for `| head`). */
	ret = functions.n ? show_named(sides, &functions, all, json, full) : show_all(sides, json, full);
done:
	for (int s = 0; s < 2; s++) {
		ws_asm_counts_release(&sides[s].counts);
		ws_asm_bin_free(sides[s].bin);
	}
	string_list_clear(&functions);
	return ret;
}
