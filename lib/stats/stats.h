/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats.h - the method of docs/statistics.md: summaries, Mann-Whitney, bootstrap, Holm/BH, verdicts. */
#ifndef WS_STATS_H
#define WS_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Pure functions over arrays of doubles; no allocation visible to the caller, no I/O, libm only. Input
 * arrays are never modified (functions that sort work on a copy). NAN inputs are the caller's to drop.
 */

/* --- Random numbers: xoshiro256** seeded by splitmix64 (same seed -> same stream, everywhere). --- */
struct ws_rng {
	uint64_t s[4];
};

void ws_rng_seed(struct ws_rng *r, uint64_t seed);
uint64_t ws_rng_next(struct ws_rng *r);
/* Uniform in [0, n), unbiased: 128-bit multiply with rejection. n > 0. */
uint64_t ws_rng_below(struct ws_rng *r, uint64_t n);
/* Uniform in [0, 1) with 53 bits. */
double ws_rng_double(struct ws_rng *r);
/* Fisher-Yates shuffle of v[0..n). */
void ws_rng_shuffle(struct ws_rng *r, size_t *v, size_t n);

/* --- Summaries --- */
struct ws_welford {
	size_t n;
	double mean, m2;
};

void ws_welford_add(struct ws_welford *w, double x);
/* Sample standard deviation (n - 1); 0 when n < 2. */
double ws_welford_stddev(const struct ws_welford *w);

double ws_median(const double *x, size_t n);
/* Sort ascending in place, in O(n) (a radix sort of the values' bits); NANs are the caller's to drop. */
void ws_sort_doubles(double *v, size_t n);
/* Median absolute deviation from the median, unscaled. */
double ws_mad(const double *x, size_t n);
/*
 * Distribution-free CI of the median from order statistics (binomial): [x(j), x(n+1-j)] (1-based) for the
 * largest j, i.e. the narrowest such interval, whose coverage 1 - 2 P(Bin(n, 1/2) < j) is >= conf.
 * Returns 0, or -1 (and NANs) when n is too small for `conf` (n < 6 at 0.95).
 */
int ws_median_ci(const double *x, size_t n, double conf, double *lo, double *hi);
/* The fewest values for which ws_median_ci() has an interval at `conf`: 6 at 0.95, 8 at 0.99. */
size_t ws_median_ci_min_n(double conf);
/* The same three of values already sorted ascending (ws_sort_doubles()): no copy, no sort. */
double ws_median_sorted(const double *s, size_t n);
double ws_mad_sorted(const double *s, size_t n);
int ws_median_ci_sorted(const double *s, size_t n, double conf, double *lo, double *hi);
/* Modified z-score 0.6745 (x - median) / MAD (Iglewicz & Hoaglin); 0 when MAD is 0 and x == median. */
double ws_modified_z(double x, double median, double mad);
/* Count samples with |modified z| > 3.5; flags[i] set for each (flags may be NULL). */
size_t ws_outliers(const double *x, size_t n, bool *flags);

/* --- Tests --- */
/* Standard normal CDF: 0.5 erfc(-z / sqrt 2). */
double ws_phi(double z);

struct ws_mwu {
	double u1;    /* U of the first sample (x): R1 - n1(n1+1)/2 */
	double z;     /* normal approximation's z; NAN when exact */
	double p;     /* two-sided */
	bool exact;
};

/*
 * Two-sided Mann-Whitney U of x (baseline) against y. Exact null distribution when both samples are <= 50
 * and there are no ties in the pooled sample; otherwise the normal approximation with tie correction, and
 * the continuity correction when `continuity` (the exact path ignores it). All values equal: p = 1.
 * Returns 0, or -1 when either sample is empty.
 */
int ws_mann_whitney(const double *x, size_t nx, const double *y, size_t ny, bool continuity,
		    struct ws_mwu *out);
/* Force the normal approximation (for tests of it). */
int ws_mann_whitney_normal(const double *x, size_t nx, const double *y, size_t ny, bool continuity,
			   struct ws_mwu *out);
/* P(U <= u) under the null, exactly, for sample sizes m and n (each <= 50; NAN beyond). */
double ws_mwu_exact_cdf(size_t m, size_t n, double u);
/* The smallest two-sided p the exact test can give with these sizes: min(1, 2 / C(m+n, m)). */
double ws_mwu_min_p(size_t m, size_t n);

struct ws_wsr {
	double w_plus;  /* sum of positive ranks */
	double z;
	double p;       /* two-sided */
	bool exact;
};

/*
 * Wilcoxon signed-rank test of d[] against 0 (the per-round log-ratios of --paired). Zeros are dropped,
 * then n counts the rest. Exact when n <= 50 and no two |d| tie, else normal with tie and continuity
 * correction. Every d zero: p = 1, w_plus = 0. Returns 0, or -1 when n is 0.
 */
int ws_wilcoxon_signed_rank(const double *d, size_t n, struct ws_wsr *out);

/* --- Effect size --- */
/* The bootstrap resamples behind every reported CI (docs/statistics.md, 6). */
#define WS_BOOTSTRAP_B 10000

enum ws_center {
	WS_CENTER_MEDIAN,
	WS_CENTER_MEAN,
};

/*
 * Ratio center(y) / center(x) with a percentile-bootstrap CI: B resamples, each side resampled
 * independently, from a generator seeded with `seed` (same seed -> bit-identical CI). lo = r[floor(a/2 B)],
 * hi = r[ceil((1 - a/2) B) - 1] of the sorted ratios, a = 1 - conf. Each resample draws nx indices into x
 * as given, then ny into y, with ws_rng_below() from one generator. A resample whose two centers are both
 * 0 counts as ratio 1. Constant equal arms give exactly [1, 1]. Returns 0, or -1 (all outputs NAN) when
 * a sample is empty or has more than UINT32_MAX values, B is 0, conf is outside (0, 1) or center(x) is 0.
 */
int ws_bootstrap_ratio(const double *x, size_t nx, const double *y, size_t ny, enum ws_center c,
		       size_t B, uint64_t seed, double conf, double *ratio, double *lo, double *hi);

/*
 * Hodges-Lehmann estimate of the shift of log values, log(y) - log(x), with the Moses interval: the
 * distribution-free CI that inverts the two-sided Mann-Whitney test at level alpha (Hollander & Wolfe,
 * section 4.3). shift is the median of the nx ny differences log(y[j]) - log(x[i]); the interval is
 * [d(k), d(nx ny + 1 - k)] of those differences sorted (1-based), k - 1 the largest U1 that the test of
 * ws_mann_whitney() (continuity corrected) rejects at alpha: from the exact null distribution when both
 * samples are <= 50 and the values have no ties, else from its normal approximation with tie correction,
 * as the test decides. So the interval excludes 0 exactly when the test's p < alpha (with ties, only when:
 * a difference of exactly 0 counts half in U1 and whole in the order statistics). exp() of the three gives
 * the ratio y/x and its CI; in a scale family (multiplicative noise) the true shift is the log of the
 * ratio of medians. When the test cannot reject at alpha whatever the data (too few runs), k = 0 and
 * [lo, hi] = [-inf, +inf]. Every value one and the same: shift, lo and hi are 0.
 * Returns 0, or -1 (outputs NAN) when a sample is empty, a value is not finite and > 0 (no log), or alpha
 * is outside (0, 1). O((nx + ny) log(nx ny)) expected time, O(nx + ny) memory: the differences are never
 * formed.
 */
struct ws_hl {
	double shift;     /* median of the pairwise differences of log values */
	double lo, hi;    /* its Moses interval */
	size_t k;         /* lo is the k-th smallest difference, hi the (nx ny + 1 - k)-th; 0: unbounded */
	double coverage;  /* 1 - 2 P(U <= k - 1) under the null used: >= 1 - alpha (approximately when normal) */
	bool exact;       /* k from the exact null distribution */
};

int ws_hodges_lehmann(const double *x, size_t nx, const double *y, size_t ny, double alpha, struct ws_hl *out);

/*
 * The same for --paired: the one-sample Hodges-Lehmann estimate of the per-round log-ratios d[] (the median
 * of the Walsh averages (d[i] + d[j]) / 2, i <= j) with Tukey's interval, which inverts the signed-rank test
 * of ws_wilcoxon_signed_rank() as the Moses interval inverts Mann-Whitney: zeros dropped as the test drops
 * them, exact when the rest are <= 50 with no two |d| tied, else normal with tie and continuity correction;
 * k counts among the n'(n'+1)/2 Walsh averages of the n' nonzero d. Every d zero: shift, lo and hi are 0.
 * Returns 0, or -1 (outputs NAN) when n is 0, a d is not finite, or alpha is outside (0, 1).
 */
int ws_hodges_lehmann_paired(const double *d, size_t n, double alpha, struct ws_hl *out);

/* --- Multiple comparisons: adj[i] for p[i], any order. --- */
void ws_holm(const double *p, size_t m, double *adj);
void ws_bh(const double *p, size_t m, double *adj);

/*
 * The two-family gatekept procedure of ws_compare() on bare p-values: hypothesis i (of m) belongs to family
 * fam[i] < nfam (a variant), and is that family's primary when primary[i] (the first such in ascending p
 * counts; give at most one). The primaries form the first family; a family's other hypotheses, its
 * secondaries, are tested only once its primary is rejected. Holm mode (fdr false): a family in play holds
 * alpha / (families with hypotheses left); its primary is tested at that share, and once rejected the share
 * passes to its secondaries, Holm among them; a family with every hypothesis rejected passes its share to
 * the others. Strong control of the family-wise error rate at alpha over all m, under any dependence (proof:
 * docs/statistics.md). BH mode: BH across the primaries at alpha, then BH within each open family at
 * alpha R / V (R of the V primaries rejected). An exact, changed primary is passed as p 0. A family without
 * a primary is out of play: its secondaries are never tested.
 *
 * Writes adj[i], the adjusted p (reject iff adj[i] < alpha; with Holm, the smallest alpha at which the
 * procedure rejects i, so never below the primary's for a secondary; 1 out of play), and, when closed is not
 * NULL, closed[i]: i is a secondary whose family's primary is absent or not rejected at alpha (the gate is
 * closed). alpha matters to adj only in BH mode.
 */
void ws_gatekeep(const double *p, const size_t *fam, const bool *primary, size_t m, size_t nfam, bool fdr,
		 double alpha, double *adj, bool *closed);

/* --- Verdict (docs/statistics.md, 8) --- */
enum ws_stat_verdict {
	WS_SV_SAME,
	WS_SV_NOISE,
	WS_SV_WORSE,
	WS_SV_BETTER,
};

/*
 * same if p_adjusted >= alpha (or NAN); noise if significant but [lo, hi] overlaps [1-noise, 1+noise]
 * (closed intervals: touching counts) or is unknown (NAN); else worse or better, where worse means ratio
 * > 1 when higher_is_better is false.
 */
enum ws_stat_verdict ws_decide(double p_adjusted, double alpha, double lo, double hi, double noise,
			       bool higher_is_better);

/*
 * The test half of ws_compare_cell(), alone: *p and *exact as it would set them. For callers that need
 * no CI, such as the Monte Carlo checks of rejection rates (whether a verdict is `same` depends on the
 * adjusted p alone). Returns 0, or -1 (and *p NAN) as ws_compare_cell() does for the test.
 */
int ws_cell_test(const double *x, size_t nx, const double *y, size_t ny, bool paired, double *p,
		 bool *exact);

/* The effect size of a cell and its CI. */
enum ws_effect {
	/*
	 * exp() of the Hodges-Lehmann shift of log values with its Moses interval (Tukey's with --paired):
	 * the estimate and the CI of the test itself, so that a significant test has a CI that excludes 1.
	 */
	WS_EFFECT_HL,
	/* The ratio of medians with its percentile-bootstrap CI (the method before the above). */
	WS_EFFECT_BOOTSTRAP,
};

/*
 * One comparison cell, end to end, on finite samples: MWU with continuity correction (or signed-rank on
 * per-index log-ratios log(y[i] / x[i]) when `paired`, pairing x[i] with y[i] over min(nx, ny); equal
 * values give 0, a zero against a positive value +-inf), plus the 95% bootstrap CI of the ratio of
 * medians with WS_BOOTSTRAP_B resamples from `seed` (none below 6 values a side, as in
 * ws_compare_cell_effect()). The caller then adjusts p across the family and calls ws_decide(). Returns 0,
 * or -1 when a sample is empty, a paired value is negative, or the baseline's median is 0 (out->p is still
 * set when the test could run; ratio, lo and hi are NAN).
 */
struct ws_cell {
	double ratio, lo, hi;
	double p;
	bool exact_test;
	enum ws_effect effect;  /* the effect size that ratio, lo and hi are */
};

int ws_compare_cell(const double *x, size_t nx, const double *y, size_t ny, bool paired, uint64_t seed,
		    struct ws_cell *out);

/*
 * ws_compare_cell() with the effect size chosen, and its CI at level 1 - alpha: the report's alpha, so that
 * the Hodges-Lehmann interval excludes 1 exactly when the test is significant at that alpha. WS_EFFECT_HL
 * gives the ratio exp(shift) and the CI [exp(lo), exp(hi)] of ws_hodges_lehmann() (ws_hodges_lehmann_paired()
 * on the log-ratios when `paired`); an unbounded interval (too few runs to reject anything) is [0, +inf].
 * Where it has no logarithm to take (a value <= 0, or with `paired` a zero against a positive value), the
 * cell falls back to the bootstrap, and out->effect says so. `seed` is used by the bootstrap only. The
 * bootstrap's CI is NAN (the ratio kept) when a side has fewer values than ws_median_ci_min_n(1 - alpha),
 * too few for its median to have an interval at that level. alpha outside (0, 1) is an error (-1).
 */
int ws_compare_cell_effect(const double *x, size_t nx, const double *y, size_t ny, bool paired,
			   enum ws_effect effect, double alpha, uint64_t seed, struct ws_cell *out);

/*
 * Whether the CI [lo, hi] of a ratio lies wholly inside the noise band [1 - noise, 1 + noise] (closed, as
 * ws_decide's): any difference is smaller than the threshold. False for an unknown bound.
 */
bool ws_ci_inside_band(double lo, double hi, double noise);

/* --- Sequential stopping for --runs auto --- */
enum ws_seq_state {
	WS_SEQ_MORE,      /* the CI reaches across an edge of [1 - noise, 1 + noise], or is unknown: more runs */
	WS_SEQ_DIFFERENT, /* the CI lies entirely outside the band: different, whichever way */
	WS_SEQ_SAME,      /* the CI lies entirely inside the band: the same within the noise threshold */
};

/*
 * The rounds at which --runs auto looks at the answer: `start`, then each look half as many again as the
 * last (at least one more), and `cap`, the budget, last: 10 15 23 35 53 80 120 180 200 for 10 and 200.
 * Writes the first `max` into looks (may be NULL) and returns how many there are: L, whose Bonferroni share
 * alpha / L each look's CI gets (ws_sequential_state).
 */
size_t ws_sequential_schedule(size_t start, size_t cap, size_t *looks, size_t max);

/*
 * Whether the answer for one (baseline, variant) primary is decided at this look: its CI at level
 * 1 - alpha (the effect size of ws_compare_cell_effect(), with `effect`, `paired` and `seed` as there)
 * against the noise band, with ws_decide()'s closed intervals (a CI touching an edge is not outside). Never
 * a p-value. `different` is judged on the CI at level 1 - alpha_different, `same` on the one at
 * 1 - alpha_same. With alpha_different the report's alpha / (L V), L the looks of ws_sequential_schedule()
 * and V the variants, the chance that any look declares an identical variant different is at most the
 * report's alpha whatever the noise (a union bound over looks and variants, each CI covering the truth with
 * probability >= 1 - alpha / (L V), exactly so for the exact Moses interval), and a `different` stop implies
 * a significant primary in ws_compare(). alpha_same = the report's alpha makes a `same` stop say what a
 * fixed-n report with that CI would. The caller stops when every variant's primary is decided or the budget
 * is spent (the answer then is inconclusive), and takes the verdicts from ws_compare() on the final samples;
 * after a budget stop, told the looks (ws_compare_opts.looks), so that it judges the primary at alpha / L
 * too: the report is then one of the looks, and the union bound covers it.
 * Measured in tests/unit/test-stats-mc.c (test_sequential_*).
 */
enum ws_seq_state ws_sequential_state(const double *x, size_t nx, const double *y, size_t ny, bool paired,
				      enum ws_effect effect, double noise, double alpha_different, double alpha_same,
				      uint64_t seed);

/*
 * Precision target for --runs auto: true when the 95% bootstrap CI half-width of the ratio of medians
 * (WS_BOOTSTRAP_B resamples from `seed`), as a fraction of the ratio, is at most `target` (e.g. 0.01).
 * Never a p-value. False when the CI is undefined. It imposes no minimum n; start --runs auto from the
 * default 10 rounds. Samples that happen to fall apart have narrower spreads within each side, so they
 * reach the target sooner, and early looks raise the false-positive rate: with identical programs
 * (CV 1%, target 1%) about 5.2% from 10 rounds against about 6% from 5 (tests/unit/test-stats-mc.c).
 */
bool ws_precision_reached(const double *x, size_t nx, const double *y, size_t ny, double target,
			  uint64_t seed);

#endif
