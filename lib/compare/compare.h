/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare.h - compare every variant with the baseline: tests, effect sizes, one corrected family, verdicts. */
#ifndef WS_COMPARE_H
#define WS_COMPARE_H

#include "result/result.h"

#include <stdbool.h>

struct ws_compare_opts {
	double alpha;   /* family-wise (Holm) or false-discovery (BH) level; 0.05 */
	double noise;   /* noise threshold d as a fraction; 0.01 */
	bool paired;    /* Wilcoxon signed-rank on per-round log-ratios */
	bool fdr;       /* Benjamini-Hochberg instead of Holm */
	uint64_t seed;  /* bootstrap seed (the result's seed) */
};

/*
 * Fill r->comparisons (replacing any) for every variant that is not the baseline, over the whole-process
 * metrics, every region's and every function's (its own, inclusive and per caller): MWU (or signed-rank) p, median ratio with bootstrap CI,
 * p adjusted across the whole report, verdict; exact metrics compared exactly. The result must be
 * summarised (ws_result_summarize). Adds the report's warnings to r->warnings. Returns 0, or -EINVAL when
 * there is no baseline or fewer than two variants.
 */
int ws_compare(struct ws_result *r, const struct ws_compare_opts *o);

/*
 * Whether `c` could have come out significant at all: the smallest p its test gives with the runs it had,
 * against what the report's correction asks of the smallest p (alpha / m with Holm, alpha with BH; m the
 * report's tested comparisons). Exact comparisons always could. For a gate, which must not pass because it
 * could not see.
 */
bool ws_comparison_reachable(struct ws_result *r, const struct ws_comparison *c, const struct ws_compare_opts *o);

/* The baseline variant: the one flagged, else the first. NULL if there are none. */
struct ws_variant *ws_result_baseline(struct ws_result *r);

/*
 * The comparison of (variant, metric) in the whole process, or in `region`/`function` when given (a
 * function's own metric: never its inclusive or callers' cells).
 */
const struct ws_comparison *ws_comparison_find(const struct ws_result *r, const char *variant, const char *metric,
					       const char *region, const char *function);

/* A function's calls: its metric when called from `caller`, or with `caller` NULL its inclusive metric. */
const struct ws_comparison *ws_comparison_find_call(const struct ws_result *r, const char *variant,
						    const char *metric, const char *function, const char *caller);

#endif
