/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report-asm.h - asm-diff's renderers: a function's two listings side by side, their summaries, as JSON. */
#ifndef WS_REPORT_ASM_H
#define WS_REPORT_ASM_H

#include "asm/asm.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* One binary of the two, with the simulator's per-instruction counts for it when a result gave them. */
struct ws_asm_side {
	struct ws_asm_bin *bin;
	struct ws_asm_counts counts;
	const char *label; /* "A" or "B" */
};

/* One function of the report: the pair, both listings and their diff. */
struct ws_asm_report {
	struct ws_asm_pair pair;
	struct ws_asm_func f[2];
	bool have[2];
	struct ws_asm_row *rows;
	size_t nrows, changed;
};

/*
 * Load the pair's functions from both sides and diff their listings. Returns 0, or -1 after a ws_log()
 * message; release `r` in either case.
 */
int ws_asm_report_load(struct ws_asm_side *sides, const struct ws_asm_pair *p, struct ws_asm_report *r);
void ws_asm_report_release(struct ws_asm_report *r);

/* The pair's name: A's symbol, or the base name both share when the symbols differ ("scale"). Borrowed. */
const char *ws_asm_report_name(const struct ws_asm_report *r);

/*
 * The terminal report of one function: where each is, the summary table, the side-by-side listing. Names
 * have their template and generic arguments elided, as whyslow's tables do, unless `full`.
 */
void ws_asm_report_print(FILE *out, const struct ws_asm_side *sides, const struct ws_asm_report *r, bool full);

/* One function as JSON (the caller owns it); the listings and their diff only with `with_diff`. */
json_t *ws_asm_report_json(const struct ws_asm_side *sides, const struct ws_asm_report *r, bool with_diff);

/* The whole JSON document, {a, b, functions}; takes `functions` over. */
void ws_asm_report_print_json(FILE *out, const struct ws_asm_side *sides, json_t *functions);

#endif
