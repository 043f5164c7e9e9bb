/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-stats.c - the statistics: every reference value of docs/statistics.md, and hand-worked cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/util.h"
#include "stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* docs/statistics.md: "tolerance 1e-12 unless noted". */
#define TOL 1e-12

static void assert_near(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol)) {
		print_error("got %.17g, want %.17g (tolerance %g)\n", got, want, tol);
		fail();
	}
}

/* --- Random numbers --- */

static void test_rng(void **state)
{
	struct ws_rng a, b;
	size_t hist[7] = { 0 }, v[10];

	(void)state;
	ws_rng_seed(&a, 42);
	ws_rng_seed(&b, 42);
	for (int i = 0; i < 100; i++)
		assert_true(ws_rng_next(&a) == ws_rng_next(&b));
	/* splitmix64's first output for seed 0 is the published 0xe220a8397b1dcdaf. */
	ws_rng_seed(&a, 0);
	assert_true(a.s[0] == 0xe220a8397b1dcdafULL);
	/* Bounded draws stay in range and cover it; doubles stay in [0, 1). */
	for (int i = 0; i < 7000; i++) {
		uint64_t k = ws_rng_below(&a, 7);
		double d = ws_rng_double(&a);

		assert_true(k < 7);
		hist[k]++;
		assert_true(d >= 0.0 && d < 1.0);
	}
	for (int k = 0; k < 7; k++)
		assert_true(hist[k] > 850 && hist[k] < 1150);
	/* A shuffle is a permutation. */
	for (size_t i = 0; i < 10; i++)
		v[i] = i;
	ws_rng_shuffle(&a, v, 10);
	for (size_t i = 0, seen = 0; i < 10; i++, seen = 0) {
		for (size_t j = 0; j < 10; j++)
			seen += v[j] == i;
		assert_int_equal(seen, 1);
	}
}

/* --- Summaries --- */

static void test_welford_median_mad(void **state)
{
	static const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct ws_welford w = { 0 };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(x); i++)
		ws_welford_add(&w, x[i]);
	assert_near(w.mean, 5.0, TOL);
	/* Sum of squared deviations 32 over n - 1 = 7. */
	assert_near(ws_welford_stddev(&w), sqrt(32.0 / 7), TOL);
	assert_near(ws_median(x, 8), 4.5, 0);
	assert_near(ws_median(x, 7), 4.0, 0);
	/* |x - 4.5| = 2.5 .5 .5 .5 .5 .5 2.5 4.5: median 0.5. */
	assert_near(ws_mad(x, 8), 0.5, 0);
	assert_true(isnan(ws_median(x, 0)));
}

static void test_median_ci(void **state)
{
	double x[2000], lo, hi;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(x); i++)
		x[i] = (double)(ARRAY_SIZE(x) - i); /* descending: the function must sort */
	/*
	 * n = 10: P(Bin <= 0) = 1/1024 and P(Bin <= 1) = 11/1024 keep the coverage >= 0.95 (0.998, 0.979);
	 * P(Bin <= 2) = 56/1024 does not (0.891). So j = 2: [x(2), x(9)].
	 */
	assert_int_equal(ws_median_ci(x + 1990, 10, 0.95, &lo, &hi), 0);
	assert_near(lo, 2, 0);
	assert_near(hi, 9, 0);
	/* n = 5: even [x(1), x(5)] covers only 1 - 2/32 = 0.9375. */
	assert_int_equal(ws_median_ci(x, 5, 0.95, &lo, &hi), -1);
	assert_true(isnan(lo) && isnan(hi));
	/*
	 * n = 2000, past where 2^-n underflows: the normal approximation puts j near
	 * 1000 - 1.96 sqrt(2000) / 2 = 956, so lo = x(j) = j.
	 */
	assert_int_equal(ws_median_ci(x, 2000, 0.95, &lo, &hi), 0);
	assert_true(lo >= 950 && lo <= 960);
	assert_near(hi, 2001 - lo, 0);
}

static void test_outlier_example(void **state)
{
	/* docs/statistics.md: ten runs near 1.01 plus 1.25: median 1.01, MAD 0.01, score 16.19 -> flagged. */
	static const double a[] = { 1.00, 1.02, .99, 1.01, 1.03, .98, 1.00, 1.02, 1.01, .99, 1.25 };
	bool flags[ARRAY_SIZE(a)];
	double med = ws_median(a, ARRAY_SIZE(a)), mad = ws_mad(a, ARRAY_SIZE(a));

	(void)state;
	assert_near(med, 1.01, TOL);
	assert_near(mad, 0.01, TOL);
	/* Quoted to two decimals: 0.6745 * 0.24 / 0.01 = 16.188. */
	assert_near(ws_modified_z(1.25, med, mad), 16.19, 0.005);
	assert_int_equal(ws_outliers(a, ARRAY_SIZE(a), flags), 1);
	for (size_t i = 0; i < ARRAY_SIZE(a); i++)
		assert_int_equal(flags[i], i == 10);
	/* MAD 0: equal values score 0, any other is infinitely far. */
	assert_near(ws_modified_z(3, 3, 0), 0, 0);
	assert_true(isinf(ws_modified_z(4, 3, 0)));
}

/* --- Phi --- */

static void test_phi(void **state)
{
	(void)state;
	assert_near(ws_phi(1.96), 0.9750021048517795, TOL);
	assert_near(ws_phi(-2.5), 0.0062096653257761349, TOL);
	assert_near(ws_phi(0), 0.5, 0);
}

/* --- Mann-Whitney --- */

static void test_mwu_exact_reference(void **state)
{
	static const double x[] = { 2, 1, 3, 5 }, y1[] = { 12, 11, 13, 15 }, y2[] = { 0, 4, 6, 7 };
	struct ws_mwu u;

	(void)state;
	assert_int_equal(ws_mann_whitney(x, 4, y1, 4, true, &u), 0);
	assert_true(u.exact);
	assert_near(u.u1, 0, 0);
	assert_near(u.p, 0.028571428571428571, TOL);
	assert_true(isnan(u.z));

	assert_int_equal(ws_mann_whitney(x, 4, y2, 4, true, &u), 0);
	assert_true(u.exact);
	assert_near(u.u1, 5, 0);
	assert_near(u.p, 0.48571428571428571, TOL);
	/* The exact path ignores the continuity flag. */
	assert_int_equal(ws_mann_whitney(x, 4, y2, 4, false, &u), 0);
	assert_near(u.p, 0.48571428571428571, TOL);
	/* Swapping the samples mirrors U: U2 = n1 n2 - U1, same p. */
	assert_int_equal(ws_mann_whitney(y2, 4, x, 4, true, &u), 0);
	assert_near(u.u1, 11, 0);
	assert_near(u.p, 0.48571428571428571, TOL);

	assert_int_equal(ws_mann_whitney(x, 0, y2, 4, true, &u), -1);
	assert_int_equal(ws_mann_whitney(x, 4, y2, 0, true, &u), -1);
}

static void test_mwu_ties_reference(void **state)
{
	static const double x[] = { 10, 11, 11, 12, 13, 13, 13, 15, 16, 18 };
	static const double y[] = { 12, 13, 14, 14, 15, 16, 17, 17, 19, 20 };
	struct ws_mwu u;

	(void)state;
	/* Ties force the normal approximation even at n = 10. */
	assert_int_equal(ws_mann_whitney(x, 10, y, 10, true, &u), 0);
	assert_false(u.exact);
	assert_near(u.u1, 23, 0);
	assert_near(u.p, 0.0438657992027376, TOL);
	assert_int_equal(ws_mann_whitney(x, 10, y, 10, false, &u), 0);
	assert_near(u.u1, 23, 0);
	assert_near(u.p, 0.0400341108767130, TOL);
	assert_true(u.z < 0);
}

static void test_mwu_large_reference(void **state)
{
	double *x = xmalloc(500 * sizeof(*x)), *y = xmalloc(600 * sizeof(*y));
	struct ws_mwu u;

	(void)state;
	for (int i = 0; i < 500; i++)
		x[i] = 2.0 * i;
	for (int i = 0; i < 600; i++)
		y[i] = 2.0 * i - 41;
	assert_int_equal(ws_mann_whitney(x, 500, y, 600, true, &u), 0);
	assert_false(u.exact);
	assert_near(u.u1, 135250, 0);
	assert_near(u.p, 0.0049335360814172, TOL);
	free(x);
	free(y);
}

static void test_mwu_normal_forced(void **state)
{
	static const double x[] = { 2, 1, 3, 5 }, y[] = { 12, 11, 13, 15 }, c[] = { 7, 7, 7 };
	struct ws_mwu u;
	double sigma = sqrt(16.0 / 12 * 9);

	(void)state;
	/* No ties: sigma^2 = n1 n2 (N + 1) / 12 = 12; U1 = 0, mu = 8: z = (0 - 8 + 0.5) / sigma. */
	assert_int_equal(ws_mann_whitney_normal(x, 4, y, 4, true, &u), 0);
	assert_false(u.exact);
	assert_near(u.z, -7.5 / sigma, TOL);
	assert_near(u.p, 2 * ws_phi(-7.5 / sigma), TOL);
	assert_int_equal(ws_mann_whitney_normal(x, 4, y, 4, false, &u), 0);
	assert_near(u.z, -8 / sigma, TOL);
	/* Every value equal: sigma = 0 -> p = 1, whichever path is asked for. */
	assert_int_equal(ws_mann_whitney_normal(c, 3, c, 2, true, &u), 0);
	assert_near(u.p, 1, 0);
	assert_int_equal(ws_mann_whitney(c, 3, c, 2, true, &u), 0);
	assert_near(u.p, 1, 0);
}

static void test_mwu_exact_distribution(void **state)
{
	(void)state;
	assert_near(ws_mwu_exact_cdf(8, 8, 13), 0.024941724941724943, TOL);
	assert_near(ws_mwu_exact_cdf(8, 8, 12), 0.018958818958818957, TOL);
	assert_near(ws_mwu_exact_cdf(50, 50, 900), 0.007761972615356092, TOL);
	/* Edges and symmetry: P(U <= k) = P(U >= mn - k) = 1 - P(U <= mn - k - 1). */
	assert_near(ws_mwu_exact_cdf(8, 8, -1), 0, 0);
	assert_near(ws_mwu_exact_cdf(8, 8, 64), 1, 0);
	assert_near(ws_mwu_exact_cdf(8, 8, 0), 1.0 / 12870, TOL);
	assert_near(ws_mwu_exact_cdf(3, 7, 5), 1 - ws_mwu_exact_cdf(3, 7, 21 - 5 - 1), TOL);
	assert_near(ws_mwu_exact_cdf(3, 7, 5), ws_mwu_exact_cdf(7, 3, 5), TOL);
	/* m = 2, n = 2: counts 1 1 2 1 1 over C(4, 2) = 6. */
	assert_near(ws_mwu_exact_cdf(2, 2, 2), 4.0 / 6, TOL);
	assert_true(isnan(ws_mwu_exact_cdf(51, 10, 3)));
}

static void test_mwu_min_p(void **state)
{
	/* docs/statistics.md, 12, quoted to three significant figures, and exactly 2 / C(2n, n). */
	static const double quoted[] = { 0.0286, 0.00794, 0.00216, 5.83e-4, 1.55e-4 };
	static const double binom[] = { 70, 252, 924, 3432, 12870 };

	(void)state;
	for (size_t n = 4; n <= 8; n++) {
		double p = ws_mwu_min_p(n, n);

		assert_near(p, 2 / binom[n - 4], 1e-15);
		assert_near(p, quoted[n - 4], 0.005 * quoted[n - 4]);
	}
	/* The exact test reaches it with complete separation. */
	assert_near(ws_mwu_min_p(1, 1), 1, 0);
	assert_near(ws_mwu_min_p(3, 5), 2.0 / 56, TOL);
	assert_near(ws_mwu_min_p(5, 3), 2.0 / 56, TOL);
}

/* --- Wilcoxon signed-rank --- */

/*
 * The references below were worked by hand from the definitions (midranks of |d| with zeros dropped;
 * exact null = the 2^n equally likely sign assignments; normal with sigma^2 = n(n+1)(2n+1)/24 -
 * sum(t^3 - t)/48 and a 0.5 continuity correction, as R's wilcox.test), then cross-checked by a brute-force
 * enumeration of all 2^n sign patterns in a throwaway script.
 */
static void test_wilcoxon_exact(void **state)
{
	/* |d| ranks 2 1 3 4 5, only -0.5 (rank 1) negative: W+ = 14. P(W >= 14) = P(W <= 1) = 2/32. */
	static const double d1[] = { 1.5, -0.5, 2, 3, 4 };
	/* All six positive: W+ = 21, the top of the range; p = 2 / 2^6. */
	static const double d2[] = { .1, .2, .3, .4, .5, .6 };
	/*
	 * A zero is dropped (n = 10); negatives at ranks 2 and 7: W+ = 55 - 9 = 46. P(W >= 46) = P(W <= 9):
	 * subsets of {1..10} summing to 0..9 are partitions into distinct parts: 1+1+1+2+2+3+4+5+6+8 = 33.
	 * p = 2 * 33 / 1024.
	 */
	static const double d3[] = { 0, .1, -.2, .3, .4, .5, .6, -.7, .8, .9, 1.0 };
	struct ws_wsr w;

	(void)state;
	assert_int_equal(ws_wilcoxon_signed_rank(d1, ARRAY_SIZE(d1), &w), 0);
	assert_true(w.exact);
	assert_near(w.w_plus, 14, 0);
	assert_near(w.p, 0.125, TOL);

	assert_int_equal(ws_wilcoxon_signed_rank(d2, ARRAY_SIZE(d2), &w), 0);
	assert_true(w.exact);
	assert_near(w.w_plus, 21, 0);
	assert_near(w.p, 0.03125, TOL);

	assert_int_equal(ws_wilcoxon_signed_rank(d3, ARRAY_SIZE(d3), &w), 0);
	assert_true(w.exact);
	assert_near(w.w_plus, 46, 0);
	assert_near(w.p, 66.0 / 1024, TOL);
}

static void test_wilcoxon_normal(void **state)
{
	/*
	 * The zero is dropped: n = 8. |d| = 1 1 2 2 3 3 3 4 get midranks 1.5 1.5 3.5 3.5 6 6 6 8; only the -2
	 * (3.5) is negative, so W+ = 36 - 3.5 = 32.5. Ties: sum(t^3 - t) = 6 + 6 + 24 = 36. mu = 8*9/4 = 18,
	 * sigma^2 = 8*9*17/24 - 36/48 = 50.25, z = (32.5 - 18 - 0.5) / sqrt(50.25), p = erfc(z / sqrt 2).
	 */
	static const double d[] = { 1, 1, 2, -2, 3, 3, 3, 4, 0 };
	static const double zeros[] = { 0, 0, 0 };
	double big[60], z = 14 / sqrt(50.25);
	struct ws_wsr w;

	(void)state;
	assert_int_equal(ws_wilcoxon_signed_rank(d, ARRAY_SIZE(d), &w), 0);
	assert_false(w.exact);
	assert_near(w.w_plus, 32.5, 0);
	assert_near(w.z, z, TOL);
	assert_near(w.p, erfc(z / M_SQRT2), TOL);
	assert_near(w.p, 0.048271810851710416, TOL);

	/*
	 * n = 60 > 50 without ties: normal. d = -1..-20, +21..+60: W+ = 1830 - 210 = 1620, mu = 915,
	 * sigma^2 = 60*61*121/24 = 18452.5, z = 704.5 / sqrt(18452.5).
	 */
	for (int i = 1; i <= 60; i++)
		big[i - 1] = i <= 20 ? -i : i;
	z = 704.5 / sqrt(18452.5);
	assert_int_equal(ws_wilcoxon_signed_rank(big, 60, &w), 0);
	assert_false(w.exact);
	assert_near(w.w_plus, 1620, 0);
	assert_near(w.p, erfc(z / M_SQRT2), 1e-18);
	assert_near(w.p, 2.1457151868636098e-07, 1e-18);

	/* Every difference zero: nothing left to test. */
	assert_int_equal(ws_wilcoxon_signed_rank(zeros, 3, &w), 0);
	assert_near(w.p, 1, 0);
	assert_near(w.w_plus, 0, 0);
	assert_int_equal(ws_wilcoxon_signed_rank(zeros, 0, &w), -1);
}

/* --- Bootstrap --- */

static void fill(double *v, size_t n, double center, double spread, uint64_t seed)
{
	struct ws_rng r;

	ws_rng_seed(&r, seed);
	for (size_t i = 0; i < n; i++)
		v[i] = center * (1 + spread * (ws_rng_double(&r) - 0.5));
}

static void test_bootstrap_determinism(void **state)
{
	double x[20], y[20], r1, lo1, hi1, r2, lo2, hi2;

	(void)state;
	fill(x, 20, 100, 0.04, 1);
	fill(y, 20, 103, 0.04, 2);
	assert_int_equal(ws_bootstrap_ratio(x, 20, y, 20, WS_CENTER_MEDIAN, 10000, 7, 0.95, &r1, &lo1, &hi1),
			 0);
	assert_int_equal(ws_bootstrap_ratio(x, 20, y, 20, WS_CENTER_MEDIAN, 10000, 7, 0.95, &r2, &lo2, &hi2),
			 0);
	/* Bit-identical, not merely close. */
	assert_memory_equal(&lo1, &lo2, sizeof(lo1));
	assert_memory_equal(&hi1, &hi2, sizeof(hi1));
	assert_memory_equal(&r1, &r2, sizeof(r1));
	assert_true(lo1 < r1 && r1 < hi1);
	assert_near(r1, ws_median(y, 20) / ws_median(x, 20), 0);
	/* Another seed: another CI, for continuous data. */
	assert_int_equal(ws_bootstrap_ratio(x, 20, y, 20, WS_CENTER_MEDIAN, 10000, 8, 0.95, &r2, &lo2, &hi2),
			 0);
	assert_true(lo1 != lo2 || hi1 != hi2);
	assert_int_equal(ws_bootstrap_ratio(x, 20, y, 20, WS_CENTER_MEAN, 10000, 7, 0.95, &r1, &lo1, &hi1),
			 0);
	assert_int_equal(ws_bootstrap_ratio(x, 20, y, 20, WS_CENTER_MEAN, 10000, 7, 0.95, &r2, &lo2, &hi2),
			 0);
	assert_memory_equal(&lo1, &lo2, sizeof(lo1));
	assert_memory_equal(&hi1, &hi2, sizeof(hi1));
	assert_true(lo1 < r1 && r1 < hi1);
}

static void test_bootstrap_identical_arms(void **state)
{
	/* Ten 0.1s do not sum to exactly 1: the centers must still come out equal, sizes notwithstanding. */
	double c7[7], c12[12], v[15], r, lo, hi;

	(void)state;
	for (size_t i = 0; i < 12; i++)
		c12[i] = 0.1;
	for (size_t i = 0; i < 7; i++)
		c7[i] = 0.1;
	for (int c = WS_CENTER_MEDIAN; c <= WS_CENTER_MEAN; c++) {
		assert_int_equal(ws_bootstrap_ratio(c7, 7, c12, 12, c, 10000, 3, 0.95, &r, &lo, &hi), 0);
		assert_true(r == 1.0 && lo == 1.0 && hi == 1.0);
	}
	/*
	 * The same varying sample on both sides: resampled independently (docs/statistics.md, 6), the CI is not
	 * [1, 1] but must hold 1, the true ratio.
	 */
	fill(v, 15, 50, 0.1, 9);
	assert_int_equal(ws_bootstrap_ratio(v, 15, v, 15, WS_CENTER_MEDIAN, 10000, 3, 0.95, &r, &lo, &hi), 0);
	assert_true(r == 1.0 && lo < 1.0 && hi > 1.0);
}

static void test_bootstrap_errors(void **state)
{
	static const double x[] = { 0, 0, 0, 1 }, y[] = { 1, 2, 3 }, z[] = { 0, 0, 0 };
	double r, lo, hi;

	(void)state;
	assert_int_equal(ws_bootstrap_ratio(x, 0, y, 3, WS_CENTER_MEDIAN, 100, 1, 0.95, &r, &lo, &hi), -1);
	assert_true(isnan(r) && isnan(lo) && isnan(hi));
	assert_int_equal(ws_bootstrap_ratio(y, 3, x, 0, WS_CENTER_MEDIAN, 100, 1, 0.95, &r, &lo, &hi), -1);
	assert_int_equal(ws_bootstrap_ratio(y, 3, y, 3, WS_CENTER_MEDIAN, 0, 1, 0.95, &r, &lo, &hi), -1);
	assert_int_equal(ws_bootstrap_ratio(y, 3, y, 3, WS_CENTER_MEDIAN, 100, 1, 1.0, &r, &lo, &hi), -1);
	/* The baseline's median is 0: no ratio. */
	assert_int_equal(ws_bootstrap_ratio(x, 4, y, 3, WS_CENTER_MEDIAN, 100, 1, 0.95, &r, &lo, &hi), -1);
	/* A variant at 0 is a ratio of 0, legitimately. */
	assert_int_equal(ws_bootstrap_ratio(y, 3, z, 3, WS_CENTER_MEDIAN, 100, 1, 0.95, &r, &lo, &hi), 0);
	assert_true(r == 0 && lo == 0 && hi == 0);
}

/*
 * The library's bootstrap against a naive one written from docs/statistics.md alone: resample x then y with
 * ws_rng_below, take ws_median of each resample, sort all B ratios with qsort, read r[floor(0.025 B)] and
 * r[ceil(0.975 B) - 1]. The counting median and the selection must give the very same doubles.
 */
static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void naive_bootstrap(const double *x, size_t nx, const double *y, size_t ny, size_t B, uint64_t seed,
			    size_t klo, size_t khi, double *lo, double *hi)
{
	double *r = xmalloc(B * sizeof(*r)), *rx = xmalloc(nx * sizeof(*rx)), *ry = xmalloc(ny * sizeof(*ry));
	struct ws_rng g;

	ws_rng_seed(&g, seed);
	for (size_t b = 0; b < B; b++) {
		for (size_t i = 0; i < nx; i++)
			rx[i] = x[ws_rng_below(&g, nx)];
		for (size_t i = 0; i < ny; i++)
			ry[i] = y[ws_rng_below(&g, ny)];
		r[b] = ws_median(ry, ny) / ws_median(rx, nx);
	}
	qsort(r, B, sizeof(*r), cmp_d);
	*lo = r[klo];
	*hi = r[khi];
	free(ry);
	free(rx);
	free(r);
}

static void test_bootstrap_matches_naive(void **state)
{
	static const size_t sizes[][2] = { { 10, 10 }, { 7, 12 }, { 20, 5 }, { 3, 3 } };
	double x[20], y[20], r, lo, hi, nlo, nhi;

	(void)state;
	fill(x, 20, 10, 0.2, 11);
	fill(y, 20, 10.5, 0.2, 12);
	/* Ties, which the selection must survive: a few values repeated. */
	x[3] = x[4] = x[5];
	y[0] = y[1];
	for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
		size_t nx = sizes[s][0], ny = sizes[s][1];

		assert_int_equal(ws_bootstrap_ratio(x, nx, y, ny, WS_CENTER_MEDIAN, 10000, s, 0.95, &r, &lo,
						    &hi), 0);
		/* B = 10000: floor(250) = 250, ceil(9750) - 1 = 9749. */
		naive_bootstrap(x, nx, y, ny, 10000, s, 250, 9749, &nlo, &nhi);
		assert_memory_equal(&lo, &nlo, sizeof(lo));
		assert_memory_equal(&hi, &nhi, sizeof(hi));
		/* B = 999, conf 0.9: floor(49.95) = 49, ceil(949.05) - 1 = 949. */
		assert_int_equal(ws_bootstrap_ratio(x, nx, y, ny, WS_CENTER_MEDIAN, 999, s, 0.9, &r, &lo,
						    &hi), 0);
		naive_bootstrap(x, nx, y, ny, 999, s, 49, 949, &nlo, &nhi);
		assert_memory_equal(&lo, &nlo, sizeof(lo));
		assert_memory_equal(&hi, &nhi, sizeof(hi));
	}
}

/* --- Hodges-Lehmann and Moses --- */

/* Distinct, unsorted values as hl-reference.py's fill(): center * (1 + step * ((i * skip) % n - n / 2)). */
static void fill_mod(double *v, size_t n, double center, double step, size_t skip)
{
	for (size_t i = 0; i < n; i++)
		v[i] = center * (1 + step * ((double)((i * skip) % n) - (double)n / 2));
}

static void check_hl(const double *x, size_t nx, const double *y, size_t ny, double shift, double lo, double hi,
		     size_t k, double coverage, bool exact)
{
	struct ws_hl h;

	assert_int_equal(ws_hodges_lehmann(x, nx, y, ny, 0.05, &h), 0);
	assert_near(h.shift, shift, TOL);
	if (isinf(lo)) {
		assert_true(isinf(h.lo) && h.lo < 0 && isinf(h.hi) && h.hi > 0);
	} else {
		assert_near(h.lo, lo, TOL);
		assert_near(h.hi, hi, TOL);
	}
	assert_int_equal(h.k, k);
	assert_near(h.coverage, coverage, TOL);
	assert_int_equal(h.exact, exact);
}

/*
 * Reference values from tests/unit/hl-reference.py, which computes them from the definitions (R's
 * wilcox.test conf.int procedure, with U's exact null distribution counted by brute force over all rank
 * sets in rational arithmetic), sharing no code with lib/stats/stats.c.
 */
static void test_hodges_lehmann_reference(void **state)
{
	static const double x1[] = { 2, 1, 3, 5 }, y1[] = { 12, 11, 13, 15 };
	static const double xt[] = { 10, 11, 11, 12, 13, 13, 13, 15, 16, 18 };
	static const double yt[] = { 12, 13, 14, 14, 15, 16, 17, 17, 19, 20 };
	static const double a[] = { 1.0, 1.1, 1.2 }, b[] = { 2.0, 2.1, 2.2 };
	double x[70], y[70];

	(void)state;
	/* 4 + 4: even the extreme order statistics only reach 1 - 2/70. */
	check_hl(x1, 4, y1, 4, 1.6570930023362629, 0.7884573603642704, 2.70805020110221, 1, 0.9714285714285714,
		 true);
	/* 10 + 10: k = 24, the two-sided 5% critical value of U (23) plus one. */
	fill_mod(x, 10, 1.0, 0.004, 3);
	fill_mod(y, 10, 1.03, 0.005, 7);
	check_hl(x, 10, y, 10, 0.029066433910274657, 0.014445164431496293, 0.04351715449225131, 24,
		 0.9567429474550218, true);
	fill_mod(x, 7, 2.0, 0.01, 3);
	fill_mod(y, 12, 1.96, 0.006, 5);
	check_hl(x, 7, y, 12, -0.018214496792606616, -0.041753053879062696, 0.005115100666770345, 19,
		 0.9550686671429706, true);
	/*
	 * Ties: the normal approximation with tie correction, as the test (p = 0.0439 < 0.05). A difference
	 * of exactly 0 sits at the lower bound: the interval touches 0 though the test rejects, the one way
	 * in which the two may differ (a zero difference counts half in U1, whole in the order statistics).
	 */
	check_hl(xt, 10, yt, 10, 0.17708590686030679, 0.0, 0.3746934494414105, 24, 0.9561342007972624, false);
	fill_mod(x, 60, 1.0, 0.001, 7);
	fill_mod(y, 70, 1.01, 0.0009, 11);
	check_hl(x, 60, y, 70, 0.009999061421892462, 0.0034778163475506357, 0.016513110765691695, 1680,
		 0.9504465354718397, false);
	/* 3 + 3: the smallest p is 2/20 = 0.1, so no shift is ever rejected: the interval is unbounded. */
	check_hl(a, 3, b, 3, 0.6466271649250523, -INFINITY, INFINITY, 0, 1.0, true);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The selection against sorting every difference, over random sizes (both paths, both parities) and
 * values rounded to a coarse grid so that differences tie often; and the duality with the test: without
 * ties the interval excludes 0 exactly when the p of ws_mann_whitney() is below alpha, with ties only if.
 */
static void test_hodges_lehmann_brute(void **state)
{
	double x[80], y[80], *d = xmalloc(80 * 80 * sizeof(*d));
	struct ws_rng r;
	int agree_checked = 0;

	(void)state;
	ws_rng_seed(&r, 77);
	for (int rep = 0; rep < 400; rep++) {
		size_t nx = 1 + ws_rng_below(&r, rep < 300 ? 20 : 80), ny = 1 + ws_rng_below(&r, rep < 300 ? 20 : 80);
		bool coarse = rep % 2, excludes;
		double shift = 1 + 0.05 * (ws_rng_double(&r) - 0.5), grid = coarse ? 0.01 : 0;
		size_t N = nx * ny, k = 0;
		struct ws_mwu u;
		struct ws_hl h;

		for (size_t i = 0; i < nx; i++) {
			x[i] = 1 + 0.05 * ws_rng_double(&r);
			if (coarse)
				x[i] = 1 + grid * round((x[i] - 1) / grid);
		}
		for (size_t i = 0; i < ny; i++) {
			y[i] = shift * (1 + 0.05 * ws_rng_double(&r));
			if (coarse)
				y[i] = 1 + grid * round((y[i] - 1) / grid);
		}
		for (size_t i = 0; i < nx; i++)
			for (size_t j = 0; j < ny; j++)
				d[k++] = log(y[j]) - log(x[i]);
		qsort(d, N, sizeof(*d), cmp_dbl);
		assert_int_equal(ws_hodges_lehmann(x, nx, y, ny, 0.05, &h), 0);
		/* Bit for bit: the same differences, selected rather than sorted. */
		assert_true(h.shift == (N % 2 ? d[N / 2] : 0.5 * (d[N / 2 - 1] + d[N / 2])));
		if (h.k) {
			assert_true(h.lo == d[h.k - 1] && h.hi == d[N - h.k]);
			assert_true(h.coverage >= 0.95 - (h.exact ? 0 : 0.01));
		} else {
			assert_true(isinf(h.lo) && isinf(h.hi));
		}
		assert_int_equal(ws_mann_whitney(x, nx, y, ny, true, &u), 0);
		assert_int_equal(h.exact, u.exact);
		excludes = h.lo > 0 || h.hi < 0;
		if (h.lo == 0 && h.hi == 0)
			continue; /* every value the same */
		if (u.exact || !coarse) {
			assert_int_equal(excludes, u.p < 0.05);
			agree_checked++;
		} else if (excludes) {
			assert_true(u.p < 0.05);
		}
	}
	assert_true(agree_checked > 150);
	free(d);
}

static void test_hodges_lehmann_edges(void **state)
{
	static const double x[] = { 1, 2, 3 }, zero[] = { 0, 1, 2 }, neg[] = { -1, 1, 2 }, c[] = { 5, 5, 5, 5, 5, 5 };
	double inf[] = { 1, INFINITY, 2 };
	struct ws_hl h;

	(void)state;
	assert_int_equal(ws_hodges_lehmann(x, 0, x, 3, 0.05, &h), -1);
	assert_true(isnan(h.shift) && isnan(h.lo) && isnan(h.hi));
	assert_int_equal(ws_hodges_lehmann(x, 3, x, 0, 0.05, &h), -1);
	assert_int_equal(ws_hodges_lehmann(zero, 3, x, 3, 0.05, &h), -1);
	assert_int_equal(ws_hodges_lehmann(x, 3, neg, 3, 0.05, &h), -1);
	assert_int_equal(ws_hodges_lehmann(x, 3, inf, 3, 0.05, &h), -1);
	assert_int_equal(ws_hodges_lehmann(x, 3, x, 3, 0, &h), -1);
	assert_int_equal(ws_hodges_lehmann(x, 3, x, 3, 1, &h), -1);
	/* One value throughout, whatever the sizes: exactly no shift. */
	assert_int_equal(ws_hodges_lehmann(c, 6, c, 4, 0.05, &h), 0);
	assert_true(h.shift == 0 && h.lo == 0 && h.hi == 0);
	/* One against one: the difference itself, and nothing the test could reject. */
	assert_int_equal(ws_hodges_lehmann(x, 1, x + 2, 1, 0.05, &h), 0);
	assert_near(h.shift, log(3), TOL);
	assert_int_equal(h.k, 0);
}

/* CPU time, not wall time: the machine running the tests may be busy with other work. */
static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_bootstrap_speed(void **state)
{
	double x[20], y[20], r, lo, hi, t0, ms;
	int reps = 20;

	(void)state;
	fill(x, 20, 100, 0.04, 21);
	fill(y, 20, 102, 0.04, 22);
	t0 = cpu_seconds();
	for (int i = 0; i < reps; i++)
		ws_bootstrap_ratio(x, 20, y, 20, WS_CENTER_MEDIAN, WS_BOOTSTRAP_B, (uint64_t)i, 0.95, &r, &lo,
				   &hi);
	ms = (cpu_seconds() - t0) * 1e3 / reps;
	print_message("bootstrap B=%d n=20+20: %.2f ms CPU per CI\n", WS_BOOTSTRAP_B, ms);
	/* The budget is "well under 10 ms" (about 1.5 ms here); the bound leaves room for ASan and UBSan. */
	assert_true(ms < 50);
}

static void check_hl_paired(const double *d, size_t n, double shift, double lo, double hi, size_t k,
			    double coverage, bool exact)
{
	struct ws_hl h;

	assert_int_equal(ws_hodges_lehmann_paired(d, n, 0.05, &h), 0);
	assert_near(h.shift, shift, TOL);
	assert_near(h.lo, lo, TOL);
	assert_near(h.hi, hi, TOL);
	assert_int_equal(h.k, k);
	assert_near(h.coverage, coverage, TOL);
	assert_int_equal(h.exact, exact);
}

/* --paired: Tukey's interval over the Walsh averages; references from tests/unit/hl-reference.py. */
static void test_hodges_lehmann_paired_reference(void **state)
{
	static const double tied[] = { 0.0, 0.01, 0.02, -0.01, 0.02, 0.03, 0.01, 0.04, -0.02, 0.05, 0.03 };
	static const double zeros[] = { 0, 0, 0 }, bad[] = { 0.1, INFINITY };
	double v[60];
	struct ws_hl h;

	(void)state;
	/* 12 distinct log-ratios: k = 14, the two-sided 5% critical value of W (13) plus one. */
	fill_mod(v, 12, 1.02, 0.01, 5);
	for (size_t i = 0; i < 12; i++)
		v[i] = log(v[i]);
	check_hl_paired(v, 12, 0.014322684179369792, -0.010869187824346274, 0.03955719384353595, 14,
			0.95751953125, true);
	/* A zero (dropped) and tied |d|: normal with tie correction, as the test. */
	check_hl_paired(tied, ARRAY_SIZE(tied), 0.02, 0.0, 0.035, 8, 0.9596948694992665, false);
	fill_mod(v, 60, 1.003, 0.0004, 7);
	for (size_t i = 0; i < 60; i++)
		v[i] = log(v[i]);
	check_hl_paired(v, 60, 0.0027774614405390126, 0.0007929046299443891, 0.004749867602780844, 649,
			0.950222052567406, false);
	assert_int_equal(ws_hodges_lehmann_paired(zeros, 3, 0.05, &h), 0);
	assert_true(h.shift == 0 && h.lo == 0 && h.hi == 0);
	assert_int_equal(ws_hodges_lehmann_paired(bad, 2, 0.05, &h), -1);
	assert_int_equal(ws_hodges_lehmann_paired(bad, 0, 0.05, &h), -1);
	/* Five differences of one sign: p = 2/32 >= 0.05, nothing rejectable, an unbounded interval. */
	assert_int_equal(ws_hodges_lehmann_paired(tied + 1, 5, 0.05, &h), 0);
	assert_int_equal(h.k, 0);
	assert_true(isinf(h.lo) && isinf(h.hi));
}

/* The Walsh selection against sorting them all, and the duality with the signed-rank test. */
static void test_hodges_lehmann_paired_brute(void **state)
{
	double d[80], *w = xmalloc(80 * 81 / 2 * sizeof(*w));
	struct ws_rng r;
	int agree_checked = 0;

	(void)state;
	ws_rng_seed(&r, 78);
	for (int rep = 0; rep < 400; rep++) {
		size_t n = 1 + ws_rng_below(&r, rep < 300 ? 20 : 80), m = 0, M = 0, nz = 0;
		bool coarse = rep % 2, excludes;
		double shift = 0.02 * (ws_rng_double(&r) - 0.5);
		struct ws_wsr t;
		struct ws_hl h;

		for (size_t i = 0; i < n; i++) {
			d[i] = shift + 0.03 * (ws_rng_double(&r) - 0.5);
			if (coarse)
				d[i] = 0.005 * round(d[i] / 0.005);
		}
		for (size_t i = 0; i < n; i++)
			nz += d[i] != 0;
		for (size_t i = 0; i < n; i++)
			for (size_t j = i; j < n; j++)
				if (d[i] != 0 && d[j] != 0)
					w[M++] = (d[i] + d[j]) / 2;
		m = nz;
		assert_int_equal(ws_hodges_lehmann_paired(d, n, 0.05, &h), 0);
		assert_int_equal(ws_wilcoxon_signed_rank(d, n, &t), 0);
		if (m == 0) {
			assert_true(h.shift == 0 && h.lo == 0 && h.hi == 0);
			continue;
		}
		qsort(w, M, sizeof(*w), cmp_dbl);
		assert_true(h.shift == (M % 2 ? w[M / 2] : 0.5 * (w[M / 2 - 1] + w[M / 2])));
		if (h.k)
			assert_true(h.lo == w[h.k - 1] && h.hi == w[M - h.k]);
		else
			assert_true(isinf(h.lo) && isinf(h.hi));
		assert_int_equal(h.exact, t.exact);
		excludes = h.lo > 0 || h.hi < 0;
		if (t.exact || !coarse) {
			assert_int_equal(excludes, t.p < 0.05);
			agree_checked++;
		} else if (excludes) {
			assert_true(t.p < 0.05);
		}
	}
	assert_true(agree_checked > 150);
	free(w);
}

static void test_hodges_lehmann_speed(void **state)
{
	double *x = xmalloc(2000 * sizeof(*x)), *y = xmalloc(2000 * sizeof(*y)), t0, ms;
	struct ws_hl h;

	(void)state;
	fill(x, 2000, 100, 0.04, 51);
	fill(y, 2000, 101, 0.04, 52);
	t0 = cpu_seconds();
	assert_int_equal(ws_hodges_lehmann(x, 2000, y, 2000, 0.05, &h), 0);
	ms = (cpu_seconds() - t0) * 1e3;
	print_message("Hodges-Lehmann and Moses CI, n=2000+2000 (4 million differences, never formed): %.1f ms CPU\n",
		      ms);
	assert_true(h.lo < h.shift && h.shift < h.hi && h.lo > 0 && h.hi < 0.02);
	/* Sorting 4 million differences takes about 400 ms; the bound leaves room for the sanitizers. */
	assert_true(ms < 500);
	free(x);
	free(y);
}

/* --- Multiple comparisons --- */

static void test_holm_bh_reference(void **state)
{
	static const double p[] = { .50, .01, .001, .69, .02, .05, .0025 };
	static const double holm[] = { 1, .05, .007, 1, .08, .15, .015 };
	static const double bh[] = { .5833333333333334, .02333333333333333, .007, .69, .035, .07, .00875 };
	double adj[ARRAY_SIZE(p)];

	(void)state;
	ws_holm(p, ARRAY_SIZE(p), adj);
	for (size_t i = 0; i < ARRAY_SIZE(p); i++)
		assert_near(adj[i], holm[i], TOL);
	ws_bh(p, ARRAY_SIZE(p), adj);
	for (size_t i = 0; i < ARRAY_SIZE(p); i++)
		assert_near(adj[i], bh[i], TOL);
}

static void test_holm_bh_edges(void **state)
{
	static const double one[] = { 0.03 }, tied[] = { 0.01, 0.01, 0.04 };
	double adj[3];

	(void)state;
	ws_holm(one, 1, adj);
	assert_near(adj[0], 0.03, 0);
	ws_bh(one, 1, adj);
	assert_near(adj[0], 0.03, 0);
	/* Holm: 3 * .01 = .03, then max(.03, 2 * .01) = .03, then max(.03, .04) = .04. */
	ws_holm(tied, 3, adj);
	assert_near(adj[0], 0.03, TOL);
	assert_near(adj[1], 0.03, TOL);
	assert_near(adj[2], 0.04, TOL);
	/* BH: 3 * .04 / 3 = .04; min(.04, 3 * .01 / 2) = .015 for both ties. */
	ws_bh(tied, 3, adj);
	assert_near(adj[0], 0.015, TOL);
	assert_near(adj[1], 0.015, TOL);
	assert_near(adj[2], 0.04, TOL);
}

/* --- The gatekept procedure --- */

static void test_gatekeep_holm(void **state)
{
	/* Primaries alone, one per family: exactly Holm (docs/statistics.md's reference). */
	static const double p7[] = { .50, .01, .001, .69, .02, .05, .0025 };
	static const double holm[] = { 1, .05, .007, 1, .08, .15, .015 };
	static const size_t f7[] = { 0, 1, 2, 3, 4, 5, 6 };
	static const bool all[] = { true, true, true, true, true, true, true };
	/*
	 * One family: the primary at the full alpha (0.01), then Holm among the secondaries, never below it:
	 * 3 * 0.004 = 0.012, 2 * 0.02 = 0.04, 0.3. One Holm family over all four would give the primary 0.03.
	 */
	static const double p1[] = { 0.01, 0.004, 0.02, 0.3 }, want1[] = { 0.01, 0.012, 0.04, 0.3 };
	static const size_t f1[] = { 0, 0, 0, 0 };
	static const bool prim1[] = { true, false, false, false };
	/*
	 * Two families. Step by step (left = families with hypotheses left, k = secondaries left):
	 * F0's primary 0.001 * 2 = 0.002; F0's 0.01 * 2 * 2 = 0.04 (F1's primary 0.03 * 2 = 0.06 waits);
	 * F1's primary 0.06; F1's 0.0001 * 2 * 1, below the running max: 0.06, and F1 is done; F0's last,
	 * 0.04 * 1 * 1, also 0.06. At alpha 0.05: F0's primary and first secondary; F1's gate stays closed.
	 */
	static const double p2[] = { 0.001, 0.01, 0.04, 0.03, 0.0001 };
	static const double want2[] = { 0.002, 0.04, 0.06, 0.06, 0.06 };
	static const size_t f2[] = { 0, 0, 0, 1, 1 };
	static const bool prim2[] = { true, false, false, true, false };
	/* A family with no primary is out of play: its secondaries are never tested, and take no share. */
	static const double p3[] = { 0.02, 0.001, 0.0001 }, want3[] = { 0.02, 1, 1 };
	static const size_t f3[] = { 0, 1, 1 };
	static const bool prim3[] = { true, false, false };
	double adj[7];
	bool closed[7];

	(void)state;
	ws_gatekeep(p7, f7, all, 7, 7, false, 0.05, adj, closed);
	for (size_t i = 0; i < 7; i++) {
		assert_near(adj[i], holm[i], TOL);
		assert_false(closed[i]);
	}
	ws_gatekeep(p1, f1, prim1, 4, 1, false, 0.05, adj, closed);
	for (size_t i = 0; i < 4; i++) {
		assert_near(adj[i], want1[i], TOL);
		assert_false(closed[i]);
	}
	/* The same primary at 0.06: every secondary behind a closed gate, its adjusted p never below 0.06. */
	{
		double q[] = { 0.06, 0.004, 0.02, 0.3 };

		ws_gatekeep(q, f1, prim1, 4, 1, false, 0.05, adj, closed);
		assert_near(adj[0], 0.06, TOL);
		assert_near(adj[1], 0.06, TOL);
		assert_near(adj[2], 0.06, TOL);
		assert_near(adj[3], 0.3, TOL);
		assert_false(closed[0]);
		assert_true(closed[1] && closed[2] && closed[3]);
	}
	ws_gatekeep(p2, f2, prim2, 5, 2, false, 0.05, adj, closed);
	for (size_t i = 0; i < 5; i++)
		assert_near(adj[i], want2[i], TOL);
	assert_true(!closed[0] && !closed[1] && !closed[2] && !closed[3] && closed[4]);
	ws_gatekeep(p3, f3, prim3, 3, 2, false, 0.05, adj, closed);
	for (size_t i = 0; i < 3; i++)
		assert_near(adj[i], want3[i], TOL);
	assert_true(!closed[0] && closed[1] && closed[2]);
	/* An exact, changed primary comes as p 0: its gate is open at no cost. */
	{
		double q[] = { 0.0, 0.01, 0.03 };
		static const size_t f[] = { 0, 0, 0 };
		static const bool pr[] = { true, false, false };

		ws_gatekeep(q, f, pr, 3, 1, false, 0.05, adj, NULL);
		assert_near(adj[0], 0, 0);
		assert_near(adj[1], 0.02, TOL);
		assert_near(adj[2], 0.03, TOL);
	}
}

static void test_gatekeep_bh(void **state)
{
	static const size_t f2[] = { 0, 0, 0, 1, 1 };
	static const bool prim2[] = { true, false, false, true, false };
	/*
	 * BH across the primaries (0.001, 0.03): 0.002 and 0.03, both open, so alpha R / V = alpha. Within F0:
	 * BH of (0.01, 0.04) is (0.02, 0.04); within F1: 0.0001, lifted to its primary's 0.03.
	 */
	static const double p2[] = { 0.001, 0.01, 0.04, 0.03, 0.0001 };
	static const double want2[] = { 0.002, 0.02, 0.04, 0.03, 0.03 };
	/* F1's primary at 0.3: one of two open, so F0's secondaries are scaled by V / R = 2: 0.04, 0.08. */
	static const double q2[] = { 0.001, 0.01, 0.04, 0.3, 0.0001 };
	static const double wantq[] = { 0.002, 0.04, 0.08, 0.3, 0.3 };
	double adj[5];
	bool closed[5];

	(void)state;
	ws_gatekeep(p2, f2, prim2, 5, 2, true, 0.05, adj, closed);
	for (size_t i = 0; i < 5; i++) {
		assert_near(adj[i], want2[i], TOL);
		assert_false(closed[i]);
	}
	ws_gatekeep(q2, f2, prim2, 5, 2, true, 0.05, adj, closed);
	for (size_t i = 0; i < 5; i++)
		assert_near(adj[i], wantq[i], TOL);
	assert_true(!closed[0] && !closed[1] && !closed[2] && !closed[3] && closed[4]);
}

/*
 * The adjusted p against the procedure run directly at a level: at alpha, a family in play holds alpha / A;
 * reject whatever p <= its critical value allows, hand shares on, until nothing moves. Over random
 * families and levels, "adj < alpha" must pick exactly the hypotheses the direct run rejects (strictness
 * aside: the direct run here rejects on p * weight-inverse < alpha too).
 */
static void test_gatekeep_direct(void **state)
{
	double p[40], adj[40];
	size_t fam[40];
	bool prim[40], rej[40];
	struct ws_rng r;

	(void)state;
	ws_rng_seed(&r, 91);
	for (int rep = 0; rep < 3000; rep++) {
		size_t nfam = 1 + ws_rng_below(&r, 4), m = 0;
		double alpha = 0.01 + 0.2 * ws_rng_double(&r);
		bool moved = true;

		for (size_t f = 0; f < nfam; f++) {
			size_t k = ws_rng_below(&r, 8);
			bool has_primary = ws_rng_below(&r, 8) != 0;

			for (size_t j = 0; j < k + has_primary; j++) {
				double u = ws_rng_double(&r);

				p[m] = u * u * u * 0.3; /* many small p, a few large */
				fam[m] = f;
				prim[m] = has_primary && j == 0;
				m++;
			}
		}
		ws_gatekeep(p, fam, prim, m, nfam, false, alpha, adj, NULL);
		for (size_t i = 0; i < m; i++)
			rej[i] = false;
		while (moved) {
			size_t left = 0;

			moved = false;
			for (size_t f = 0; f < nfam; f++) {
				bool has_p = false, any_left = false;

				for (size_t i = 0; i < m; i++)
					if (fam[i] == f) {
						has_p |= prim[i];
						any_left |= !rej[i];
					}
				left += has_p && any_left;
			}
			for (size_t i = 0; i < m && !moved; i++) {
				size_t f = fam[i], k = 0;
				bool p_open = false, p_there = false;

				if (rej[i])
					continue;
				for (size_t j = 0; j < m; j++)
					if (fam[j] == f && prim[j]) {
						p_there = true;
						p_open = rej[j];
					}
				for (size_t j = 0; j < m; j++)
					k += fam[j] == f && !prim[j] && !rej[j];
				if (!p_there)
					continue;
				if (prim[i] ? p[i] * (double)left < alpha
					    : p_open && p[i] * (double)left * (double)k < alpha) {
					rej[i] = true;
					moved = true;
				}
			}
		}
		for (size_t i = 0; i < m; i++)
			assert_int_equal(adj[i] < alpha, rej[i]);
	}
}

/* --- Verdict --- */

static void test_decide(void **state)
{
	(void)state;
	/* Not significant: same, whatever the CI says. */
	assert_int_equal(ws_decide(0.05, 0.05, 1.2, 1.3, 0.01, false), WS_SV_SAME);
	assert_int_equal(ws_decide(0.30, 0.05, 1.2, 1.3, 0.01, false), WS_SV_SAME);
	assert_int_equal(ws_decide(NAN, 0.05, 1.2, 1.3, 0.01, false), WS_SV_SAME);
	/* Significant, CI inside or overlapping [0.99, 1.01]: noise. */
	assert_int_equal(ws_decide(0.01, 0.05, 1.002, 1.008, 0.01, false), WS_SV_NOISE);
	assert_int_equal(ws_decide(0.01, 0.05, 1.005, 1.03, 0.01, false), WS_SV_NOISE);
	assert_int_equal(ws_decide(0.01, 0.05, 0.97, 0.995, 0.01, false), WS_SV_NOISE);
	assert_int_equal(ws_decide(0.01, 0.05, 0.97, 1.03, 0.01, false), WS_SV_NOISE);
	assert_int_equal(ws_decide(0.01, 0.05, 1.01, 1.03, 0.01, false), WS_SV_NOISE); /* touching */
	assert_int_equal(ws_decide(0.01, 0.05, NAN, NAN, 0.01, false), WS_SV_NOISE);
	/* Clear of the band: direction and higher_is_better. */
	assert_int_equal(ws_decide(0.01, 0.05, 1.02, 1.05, 0.01, false), WS_SV_WORSE);
	assert_int_equal(ws_decide(0.01, 0.05, 1.02, 1.05, 0.01, true), WS_SV_BETTER);
	assert_int_equal(ws_decide(0.01, 0.05, 0.90, 0.98, 0.01, false), WS_SV_BETTER);
	assert_int_equal(ws_decide(0.01, 0.05, 0.90, 0.98, 0.01, true), WS_SV_WORSE);
	/* The noise band is settable; 0 leaves only the CI against 1. */
	assert_int_equal(ws_decide(0.01, 0.05, 1.02, 1.05, 0.03, false), WS_SV_NOISE);
	assert_int_equal(ws_decide(0.01, 0.05, 1.001, 1.05, 0, false), WS_SV_WORSE);
}

/* The band's "same": the whole CI inside [1 - d, 1 + d], edges included; an unknown bound is not inside. */
static void test_ci_inside_band(void **state)
{
	(void)state;
	assert_true(ws_ci_inside_band(0.991, 1.008, 0.01));
	assert_true(ws_ci_inside_band(0.99, 1.01, 0.01));
	assert_false(ws_ci_inside_band(0.984, 1.008, 0.01));
	assert_false(ws_ci_inside_band(0.995, 1.02, 0.01));
	assert_false(ws_ci_inside_band(NAN, 1.0, 0.01));
	assert_false(ws_ci_inside_band(0.995, INFINITY, 0.01));
	assert_true(ws_ci_inside_band(0.98, 1.02, 0.03));
}

/* --- A whole cell --- */

static void test_compare_cell_shift(void **state)
{
	double x[10], y[10], jit[10];
	struct ws_cell c;

	(void)state;
	fill(x, 10, 1.0, 0.02, 31);
	fill(jit, 10, 1.0, 0.002, 32);
	for (size_t i = 0; i < 10; i++)
		y[i] = x[i] * 1.10 * jit[i];
	/* Unpaired: complete separation at 10 + 10 is the exact test's floor, 2 / C(20, 10). */
	assert_int_equal(ws_compare_cell(x, 10, y, 10, false, 1, &c), 0);
	assert_true(c.exact_test);
	assert_near(c.p, 2.0 / 184756, TOL);
	assert_near(c.ratio, ws_median(y, 10) / ws_median(x, 10), 0);
	assert_true(c.lo > 1.05 && c.hi < 1.15 && c.lo < c.ratio && c.ratio < c.hi);
	assert_int_equal(ws_decide(c.p, 0.05, c.lo, c.hi, 0.01, false), WS_SV_WORSE);
	assert_int_equal(ws_decide(c.p, 0.05, c.lo, c.hi, 0.01, true), WS_SV_BETTER);
	/* Paired: every log-ratio positive, ten distinct: W+ = 55, p = 2 / 2^10. */
	assert_int_equal(ws_compare_cell(x, 10, y, 10, true, 1, &c), 0);
	assert_true(c.exact_test);
	assert_near(c.p, 2.0 / 1024, TOL);
	/* Same seed, same CI as the unpaired cell: the bootstrap does not depend on the test. */
	{
		struct ws_cell u;

		assert_int_equal(ws_compare_cell(x, 10, y, 10, false, 1, &u), 0);
		assert_memory_equal(&u.lo, &c.lo, sizeof(c.lo));
		assert_memory_equal(&u.hi, &c.hi, sizeof(c.hi));
	}
	/* The test half alone agrees. */
	{
		double p;
		bool exact;

		assert_int_equal(ws_cell_test(x, 10, y, 10, true, &p, &exact), 0);
		assert_near(p, c.p, 0);
		assert_true(exact);
	}
}

static void test_compare_cell_edges(void **state)
{
	static const double x[] = { 0, 5, 7 }, y[] = { 0, 6, 9 }, neg[] = { -1, 5, 7 }, zero[] = { 0, 0, 1 };
	struct ws_cell c;

	(void)state;
	assert_int_equal(ws_compare_cell(x, 0, y, 3, false, 1, &c), -1);
	assert_true(isnan(c.p));
	/* Paired: 0 against 0 is no difference; log-ratios of 5->6 and 7->9 are positive. */
	assert_int_equal(ws_compare_cell(x, 3, y, 3, true, 1, &c), 0);
	assert_near(c.p, 0.5, TOL); /* n = 2, W+ = 3 = top: p = 2 / 4 */
	/* A negative value has no log-ratio. */
	assert_int_equal(ws_compare_cell(neg, 3, y, 3, true, 1, &c), -1);
	/* The baseline's median is 0: the test runs, the ratio is undefined. */
	assert_int_equal(ws_compare_cell(zero, 3, y, 3, false, 1, &c), -1);
	assert_false(isnan(c.p));
	assert_true(isnan(c.ratio) && isnan(c.lo) && isnan(c.hi));
}

static void test_precision_reached(void **state)
{
	double x[40], y[40];

	(void)state;
	/* +-0.5% uniform noise: at n = 40 the CI half-width is well under 1%; at n = 3 not under 0.1%. */
	fill(x, 40, 100, 0.01, 41);
	fill(y, 40, 100, 0.01, 42);
	assert_true(ws_precision_reached(x, 40, y, 40, 0.01, 1));
	assert_false(ws_precision_reached(x, 3, y, 3, 0.001, 1));
	/* +-20% noise: n = 5 is far from a 1% target. */
	fill(x, 40, 100, 0.4, 43);
	fill(y, 40, 100, 0.4, 44);
	assert_false(ws_precision_reached(x, 5, y, 5, 0.01, 1));
	assert_false(ws_precision_reached(x, 0, y, 5, 0.01, 1));
}

/* The radix sort agrees with qsort on every kind of double, on either side of its small-array cut-off. */
static void test_sort_doubles(void **state)
{
	static const double special[] = { -INFINITY, -1e308, -2.5, -1e-310, 0.0, 1e-310, 3.0, 1e308, INFINITY };
	const size_t sizes[] = { 0, 1, 7, 511, 512, 5000, 100003 };
	struct ws_rng rng;

	(void)state;
	ws_rng_seed(&rng, 21);
	for (size_t t = 0; t < ARRAY_SIZE(sizes); t++) {
		size_t n = sizes[t];
		double *a = xmalloc((n + 1) * sizeof(*a)), *b = xmalloc((n + 1) * sizeof(*b));

		for (size_t i = 0; i < n; i++) {
			uint64_t r = ws_rng_below(&rng, 4);

			/* Ties, specials, values of every magnitude and sign, and plain ones. */
			a[i] = r == 0   ? special[ws_rng_below(&rng, ARRAY_SIZE(special))]
			       : r == 1 ? (double)ws_rng_below(&rng, 10) - 5
			       : r == 2 ? ldexp(ws_rng_double(&rng) - 0.5, (int)ws_rng_below(&rng, 200) - 100)
					: 1.0 + ws_rng_double(&rng) / 100;
			b[i] = a[i];
		}
		ws_sort_doubles(a, n);
		qsort(b, n, sizeof(*b), cmp_d);
		for (size_t i = 0; i < n; i++)
			assert_true(a[i] == b[i]);
		free(a);
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rng),
		cmocka_unit_test(test_welford_median_mad),
		cmocka_unit_test(test_sort_doubles),
		cmocka_unit_test(test_median_ci),
		cmocka_unit_test(test_outlier_example),
		cmocka_unit_test(test_phi),
		cmocka_unit_test(test_mwu_exact_reference),
		cmocka_unit_test(test_mwu_ties_reference),
		cmocka_unit_test(test_mwu_large_reference),
		cmocka_unit_test(test_mwu_normal_forced),
		cmocka_unit_test(test_mwu_exact_distribution),
		cmocka_unit_test(test_mwu_min_p),
		cmocka_unit_test(test_wilcoxon_exact),
		cmocka_unit_test(test_wilcoxon_normal),
		cmocka_unit_test(test_bootstrap_determinism),
		cmocka_unit_test(test_bootstrap_identical_arms),
		cmocka_unit_test(test_bootstrap_errors),
		cmocka_unit_test(test_bootstrap_matches_naive),
		cmocka_unit_test(test_bootstrap_speed),
		cmocka_unit_test(test_hodges_lehmann_reference),
		cmocka_unit_test(test_hodges_lehmann_brute),
		cmocka_unit_test(test_hodges_lehmann_edges),
		cmocka_unit_test(test_hodges_lehmann_paired_reference),
		cmocka_unit_test(test_hodges_lehmann_paired_brute),
		cmocka_unit_test(test_hodges_lehmann_speed),
		cmocka_unit_test(test_holm_bh_reference),
		cmocka_unit_test(test_holm_bh_edges),
		cmocka_unit_test(test_gatekeep_holm),
		cmocka_unit_test(test_gatekeep_bh),
		cmocka_unit_test(test_gatekeep_direct),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_ci_inside_band),
		cmocka_unit_test(test_compare_cell_shift),
		cmocka_unit_test(test_compare_cell_edges),
		cmocka_unit_test(test_precision_reached),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
