/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report-internal.h - what the renderers share: the ANSI colours (terminal only), cells, run counts, notes. */
#ifndef WS_REPORT_INTERNAL_H
#define WS_REPORT_INTERNAL_H

#include "report/report.h"
#include "result/result.h"

#include <string.h>

#define C_RESET "\033[0m"
#define C_DIM "\033[2m"
#define C_BOLD "\033[1m"
#define C_RED "\033[31m"
#define C_GREEN "\033[32m"
#define C_YELLOW "\033[33m"

/* What --regions says where no run opened a region, so that an empty breakdown is not taken for a fault. */
#define WS_NO_REGIONS                                                                                   \
	"regions: none opened; mark them in the program with WS_REGION_BEGIN and WS_REGION_END (whyslow.h, " \
	"link -lwhyslow)"

#include "result/result.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* `s`, then spaces to `width` columns, or (`right`) the spaces first: by display width, "…" one column. */
void ws_report_pad(FILE *f, const char *s, size_t width, bool right);

/*
 * The text of one comparison cell, as every renderer prints it: "+9.8% [+8.9, +10.6]", "~ +0.3% [...]",
 * "≈ ...", "+12.10% exact", "= exact", "-" for none. The caller frees it.
 */
char *ws_report_cell_text(const struct ws_comparison *c);

/*
 * The comparison a variant's verdict is about: its explanation's (ws_explain_headline), else, for samples
 * from elsewhere, its first whole-process comparison with a ratio. NULL when it has none.
 */
const struct ws_comparison *ws_report_headline(const struct ws_result *r, const char *variant);

/* Runs per program: the recorded runs, or for samples from elsewhere the most samples of any metric. */
size_t ws_report_runs(const struct ws_variant *v);
char *ws_report_programs_runs(const struct ws_result *r);

/*
 * What the ratios of `r`'s comparisons are, for a legend: the Hodges-Lehmann estimate (the default), the
 * ratio of medians, or both; and the ratio of means where both medians were 0, which would otherwise read
 * as a ratio beside two zeros, with the CI's level, 1 - the report's alpha. Every renderer's legend says it
 * the same way. The string is static: valid until the next call.
 */
const char *ws_report_estimate_legend(const struct ws_result *r);

/*
 * The functions only one of `base` and `var` has, with a share: the one that never ran (simulated) or never
 * showed in a sample there has no comparison, and a differential profile would lose the rows that moved
 * most, a function replaced by another. `out` holds both lists' lengths; returns how many it filled, each
 * with its share on its side and 0 on the other. None when either side has no functions at all.
 */
struct ws_one_sided {
	const char *name;
	const char *metric; /* what its share is of: "share" (samples) or "estimated-cycles" (simulated) */
	double base, var;
};

size_t ws_report_one_sided(const struct ws_variant *base, const struct ws_variant *var, struct ws_one_sided *out);

/* Render into memory with `fn`, then write `path` atomically. Returns 0 or -errno. */
int ws_report_export(const struct ws_result *r, const char *path, void (*fn)(FILE *, const struct ws_result *));

/*
 * The simulator's per-core counts and contended lines of `v` (report-threads.c), under a heading naming
 * `label` (a variant's name, or NULL), indented by `indent`. Prints nothing when it has neither.
 */
void ws_report_threads(FILE *f, const struct ws_variant *v, const char *label, const struct ws_report_opts *o,
		       int indent);

/* For a header: how much of the programs was simulated (--sim-scope), or "". */
static inline const char *scope_note(const struct ws_result *r)
{
	if (!r->settings.sim_scope)
		return "";
	return strcmp(r->settings.sim_scope, "regions-warm") ? ", simulated inside regions only"
							     : ", simulated inside regions only (caches warmed outside)";
}

#endif
