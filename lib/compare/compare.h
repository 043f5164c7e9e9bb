/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare.h - compare every variant with the baseline: tests, effect sizes, one corrected family, verdicts. */
#ifndef WS_COMPARE_H
#define WS_COMPARE_H

#include "result/result.h"
#include "stats/stats.h"

#include <stdbool.h>

struct ws_compare_opts {
	double alpha;   /* family-wise (Holm) or false-discovery (BH) level; 0.05 */
	double noise;   /* noise threshold d as a fraction; 0.01 */
	bool paired;    /* Wilcoxon signed-rank on per-round log-ratios */
	bool fdr;       /* Benjamini-Hochberg instead of Holm, in each family */
	uint64_t seed;  /* bootstrap seed (the result's seed) */
	/*
	 * The primary metric (borrowed). NULL: cycles if a PMU counted them, else wall-time, else estimated-cycles
	 * or instructions (the simulator alone), else the baseline's first measured metric. A name the baseline
	 * did not measure is an error.
	 */
	const char *primary;
	/* The effect size and its CI: WS_EFFECT_HL (0, the default) or WS_EFFECT_BOOTSTRAP. */
	enum ws_effect effect;
	/*
	 * The samples come from a --runs auto session that looked at its primary at L rounds of a schedule
	 * (ws_sequential_schedule()) and stopped at its budget (--max-runs, --max-time) undecided: L, else 0.
	 * Each variant's primary is then judged at the per-look level: its p enters the procedure as
	 * min(1, L p) and its CI is at 1 - alpha / L, so that the report is one of the looks of the union bound
	 * and identical programs are called different at most alpha of the time (docs/statistics.md, 16).
	 */
	size_t looks;
	/*
	 * The samples come from a --runs auto session that looked at its primary at L scheduled rounds, whether it
	 * stopped on its answer or at its budget: L, else 0. Every comparison but the primaries (the other
	 * metrics, every region's and function's) is then judged at the per-look level too, its p entering the
	 * procedure as min(1, L p) and its CI at 1 - alpha / L: where the session stopped was chosen on the
	 * primary, and a secondary correlated with it, tested at the full alpha there, came out other than
	 * `same` 9.1% of the time for 5% promised, nearly all of it `noise` verdicts, `slower` or `faster` 0.1%
	 * (docs/statistics.md, 16). At alpha / L it is one of at most L looks: 0.9%.
	 */
	size_t secondary_looks;
};

/*
 * Fill r->comparisons (replacing any) for every variant that is not the baseline, over the whole-process
 * metrics, every region's and every function's (its own, inclusive and per caller): MWU (or signed-rank) p, the ratio with its CI (o->effect),
 * p adjusted by the two-family gatekept procedure, verdict; exact metrics compared exactly.
 *
 * The families: the primary metric of the whole process, one test per variant, is the primary family;
 * everything else a variant has (its other metrics, every region's and function's, the primary metric's
 * among them) is that variant's secondary family, tested only once its primary is significant (or, for an
 * exact primary, changed). With Holm (the default) the whole report's family-wise error rate is at most
 * alpha under any dependence between tests: a variant holds alpha / (the variants still in play); its
 * primary is tested at that share, and once rejected the share passes to its secondaries, Holm among them;
 * a variant whose every hypothesis is rejected passes its share on to the other variants (docs/statistics.md
 * has the proof). p_adjusted is the procedure's adjusted p: the smallest alpha at which the procedure would
 * reject that hypothesis (Bretz et al. 2009), so a secondary's is never below its primary's. With o->fdr,
 * BH across the primaries at alpha, then BH within each open variant's secondaries at alpha R / V (R of the
 * V primaries significant; Benjamini & Bogomolov 2014), p_adjusted = max(primary's, own). A secondary of a
 * variant whose gate stays closed is marked gate_closed; a variant whose primary has no test (too few runs,
 * or exact and unchanged) keeps its gate closed, its secondaries' p_adjusted 1, and takes no share.
 *
 * Records the primary in r->settings.primary. The result must be summarised (ws_result_summarize). Adds
 * the report's warnings to r->warnings. Returns 0, or -EINVAL when there is no baseline, fewer than two
 * variants, or o->primary names no metric the baseline measured.
 */
int ws_compare(struct ws_result *r, const struct ws_compare_opts *o);

/*
 * Make one row of a function that two builds name differently: GCC's clone suffixes depend on what the
 * optimiser did ("scaled_sum(...) [clone .constprop.0] [clone .isra.0]" in one build, "... [clone .isra.0]"
 * in the other), so the same function was "gone" from one table and "new" in the other. Each variant's
 * functions are paired with the baseline's by lib/symbols/pair.h, as asm-diff pairs them; a variant's
 * function paired by clone takes the baseline's name (its own kept in own_name), and so do its rows as a
 * caller and its frames in the variant's stacks. Only one function of that identity left over on each
 * side pairs: several stay as they are. A function called in one build and inlined in the other (a lambda
 * numbered in one spelling only, a clone: WS_SYM_LAMBDA_INLINED, WS_SYM_CLONE_INLINED) stays two rows, the
 * variant's under the baseline's spelling with its own " (inlined)" or without, and an inlined row with no
 * clone note. Other inlined-code rows keep their names. Idempotent; call it before
 * ws_result_prune_functions(), which judges rows by name across the variants.
 */
void ws_compare_pair_functions(struct ws_result *r);

/*
 * Warn in `r` of each region of `v` that no run both began and ended (its entries are 0 in every run):
 * "region 'NAME' was never closed in PROGRAM: ...". ws_compare() does it for every variant; stat, which
 * compares nothing, calls it for its one. The result must be summarised (ws_result_summarize).
 */
void ws_warn_unclosed_regions(struct ws_result *r, const struct ws_variant *v);

/*
 * Whether warning `w` is one ws_compare() makes from the samples (noisy machine, too few runs, a region
 * never entered, ...), which comparing them again makes again: diff keeps an input file's warnings but
 * these, so that each is said once, of the comparison it is now part of.
 */
bool ws_compare_made_warning(const char *w);

/*
 * The metric ws_compare() makes primary for this baseline and options: o->primary if the baseline measured
 * it, else the default above. NULL when there is none. Borrowed from the result.
 */
const char *ws_compare_primary(struct ws_result *r, const struct ws_compare_opts *o);

/*
 * Whether `c` could have come out significant at all: the smallest p its test gives with the runs it had,
 * against what the procedure asks of it at its first chance (Holm: alpha / V for a primary, V the variants
 * in the procedure, alpha / (V k) for a secondary, k its variant's tested secondaries; BH: alpha; a primary
 * with o->looks L > 1 needs a p L times smaller, any other comparison with o->secondary_looks L > 1 too). Exact
 * comparisons always could. For a gate, which must not pass because it could not see. Needs ws_compare().
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
