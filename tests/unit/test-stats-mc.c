/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-stats-mc.c - docs/statistics.md's Monte Carlo acceptance checks, seeded: error rates, power, coverage. */
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

/*
 * The synthetic noise of docs/statistics.md: each run's value is base * exp(sigma Z) with sigma^2 = ln(1 + CV^2)
 * (lognormal with that coefficient of variation, median `base`), and 5% of runs are slowed by a further
 * factor 1 + E, E exponential with mean 0.1 (an interrupted run, ~10% slower on average).
 *
 * "Rejection" is the default verdict path: every cell's p through ws_cell_test() (the test half of
 * ws_compare_cell(): Mann-Whitney with continuity correction, or signed-rank when paired), Holm over the
 * report's family, then ws_decide() at alpha 0.05 with the 1% noise band; a rejection is any verdict other
 * than `same`. Whether a verdict is `same` depends on the adjusted p alone, so the error-rate and power
 * checks skip the bootstrap (they pass no CI, which ws_decide() reads as unknown); the coverage check runs
 * the whole ws_compare_cell() with B = 10,000, and so does the precision-stopping check through
 * ws_precision_reached(). No check reduces B.
 *
 * Rates are printed so that they can be quoted; the docs/statistics.md thresholds are the assertions.
 */

#define ALPHA 0.05
#define NOISE 0.01
#define SLOW_FRACTION 0.05
#define SLOW_MEAN 0.1

struct gen {
	struct ws_rng r;
	bool have_spare;
	double spare;
};

static void gen_seed(struct gen *g, uint64_t seed)
{
	ws_rng_seed(&g->r, seed);
	g->have_spare = false;
}

/* Standard normal by Box-Muller, both halves used. */
static double gauss(struct gen *g)
{
	double u, v, rad;

	if (g->have_spare) {
		g->have_spare = false;
		return g->spare;
	}
	u = 1.0 - ws_rng_double(&g->r); /* (0, 1]: log(u) is finite */
	v = ws_rng_double(&g->r);
	rad = sqrt(-2.0 * log(u));
	g->spare = rad * sin(2 * M_PI * v);
	g->have_spare = true;
	return rad * cos(2 * M_PI * v);
}

/* The occasional slow run: 1 + Exp(mean 0.1) with probability 5%, else 1. */
static double slowdown(struct gen *g)
{
	if (ws_rng_double(&g->r) >= SLOW_FRACTION)
		return 1.0;
	return 1.0 - SLOW_MEAN * log(1.0 - ws_rng_double(&g->r));
}

/* One run of a program whose true median is `base`, noise z ~ N(0, 1) given (so callers can correlate). */
static double run_value(struct gen *g, double base, double cv, double z)
{
	return base * exp(sqrt(log1p(cv * cv)) * z) * slowdown(g);
}

static bool rejected(double p_adjusted)
{
	return ws_decide(p_adjusted, ALPHA, NAN, NAN, NOISE, false) != WS_SV_SAME;
}

/* One single-metric comparison, unpaired, through the verdict path: a family of one. */
static bool cell_rejects(const double *x, const double *y, size_t n, bool paired)
{
	double p, adj;
	bool exact;

	assert_int_equal(ws_cell_test(x, n, y, n, paired, &p, &exact), 0);
	ws_holm(&p, 1, &adj);
	return rejected(adj);
}

/* Both programs measured n times with independent noise; y's true median is `shift` times x's. */
static void sample_pair(struct gen *g, double cv, double shift, size_t n, double *x, double *y)
{
	for (size_t i = 0; i < n; i++) {
		x[i] = run_value(g, 1.0, cv, gauss(g));
		y[i] = run_value(g, shift, cv, gauss(g));
	}
}

static double single_metric_rate(uint64_t seed, double cv, double shift, size_t n, int reps)
{
	double x[64], y[64];
	struct gen g;
	int hits = 0;

	gen_seed(&g, seed);
	for (int i = 0; i < reps; i++) {
		sample_pair(&g, cv, shift, n, x, y);
		hits += cell_rejects(x, y, n, false);
	}
	return (double)hits / reps;
}

/*
 * The fraction of full verdicts (ws_compare_cell with its B = 10,000 bootstrap, then ws_decide) that say
 * `slower`: printed beside the power, since with a 1% noise band a detected +2% is often `noise`.
 */
static double slower_verdict_rate(uint64_t seed, double cv, double shift, size_t n, int reps)
{
	double x[64], y[64];
	struct gen g;
	int hits = 0;

	gen_seed(&g, seed);
	for (int i = 0; i < reps; i++) {
		struct ws_cell c;

		sample_pair(&g, cv, shift, n, x, y);
		assert_int_equal(ws_compare_cell(x, n, y, n, false, (uint64_t)i, &c), 0);
		hits += ws_decide(c.p, ALPHA, c.lo, c.hi, NOISE, false) == WS_SV_WORSE;
	}
	return (double)hits / reps;
}

static void test_identical_n10(void **state)
{
	static const double cvs[] = { 0.01, 0.02, 0.05 };

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(cvs); k++) {
		double rate = single_metric_rate(100 + k, cvs[k], 1.0, 10, 4000);

		print_message("identical programs, n=10, CV %.0f%%, 4000 replicates: "
			      "rejection rate %.4f (<= 0.06)\n", cvs[k] * 100, rate);
		assert_true(rate <= 0.06);
	}
}

#define METRICS 15

/*
 * A report of 15 metrics measured on the same runs: per run, metric k's noise is
 * sqrt(r) Z_run + sqrt(1 - r) Z_k (pairwise correlation r), and a slowed run slows every metric. CVs
 * spread from 1% to 5% across the metrics. Returns, over `reps` reports, the fraction with any rejection
 * (*any) and the mean fraction of metrics rejected (*per_metric).
 */
static void holm_family(uint64_t seed, double r, double cv_lo, double cv_hi, double shift, size_t n, int reps,
			double *any, double *per_metric)
{
	static double x[METRICS][64], y[METRICS][64];
	double p[METRICS], adj[METRICS], a = sqrt(r), b = sqrt(1 - r);
	int any_hits = 0;
	long metric_hits = 0;
	struct gen g;

	gen_seed(&g, seed);
	for (int rep = 0; rep < reps; rep++) {
		int flagged = 0;

		for (int side = 0; side < 2; side++) {
			for (size_t i = 0; i < n; i++) {
				double common = gauss(&g), slow = slowdown(&g);

				for (int k = 0; k < METRICS; k++) {
					double cv = cv_lo + (cv_hi - cv_lo) * k / (METRICS - 1);
					double z = a * common + b * gauss(&g);
					double v = exp(sqrt(log1p(cv * cv)) * z) * slow;

					if (side)
						y[k][i] = shift * v;
					else
						x[k][i] = v;
				}
			}
		}
		for (int k = 0; k < METRICS; k++) {
			bool exact;

			assert_int_equal(ws_cell_test(x[k], n, y[k], n, false, &p[k], &exact), 0);
		}
		ws_holm(p, METRICS, adj);
		for (int k = 0; k < METRICS; k++)
			flagged += rejected(adj[k]);
		any_hits += flagged > 0;
		metric_hits += flagged;
	}
	*any = (double)any_hits / reps;
	*per_metric = (double)metric_hits / ((double)reps * METRICS);
}

static void test_holm_correlated_null(void **state)
{
	double any, per;

	(void)state;
	holm_family(200, 0.8, 0.01, 0.05, 1.0, 10, 4000, &any, &per);
	print_message("Holm over 15 metrics (r=0.8, CV 1-5%%), identical programs, n=10, 4000 reports: "
		      "P(any false flag) %.4f (<= 0.06), per metric %.4f\n", any, per);
	assert_true(any <= 0.06);
}

static void test_power(void **state)
{
	double p1, p2, any, per, s1, s2;

	(void)state;
	p1 = single_metric_rate(300, 0.01, 1.02, 10, 4000);
	s1 = slower_verdict_rate(301, 0.01, 1.02, 10, 500);
	print_message("+2%%, CV 1%%, n=10, 4000 replicates: power %.4f (>= 0.88); "
		      "full verdict `slower` (B=10000, 500 replicates) %.4f\n", p1, s1);
	p2 = single_metric_rate(310, 0.02, 1.02, 20, 4000);
	s2 = slower_verdict_rate(311, 0.02, 1.02, 20, 500);
	print_message("+2%%, CV 2%%, n=20, 4000 replicates: power %.4f (>= 0.70); "
		      "full verdict `slower` (B=10000, 500 replicates) %.4f\n", p2, s2);
	holm_family(320, 0.8, 0.01, 0.01, 1.02, 20, 2000, &any, &per);
	print_message("+2%% on all 15 metrics (r=0.8, CV 1%%), Holm, n=20, 2000 reports: "
		      "power per metric %.4f (>= 0.90), any %.4f\n", per, any);
	assert_true(p1 >= 0.88);
	assert_true(p2 >= 0.70);
	assert_true(per >= 0.90);
}

static void test_bootstrap_coverage(void **state)
{
	static const double cvs[] = { 0.01, 0.03, 0.05 };
	/* The noise is a scale family, so the true ratio of medians is the injected factor exactly. */
	static const double shift = 1.02;
	const int reps = 1000;

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(cvs); k++) {
		double x[10], y[10];
		struct gen g;
		int covered = 0;

		gen_seed(&g, 400 + k);
		for (int i = 0; i < reps; i++) {
			struct ws_cell c;

			sample_pair(&g, cvs[k], shift, 10, x, y);
			assert_int_equal(ws_compare_cell(x, 10, y, 10, false, (uint64_t)i, &c), 0);
			covered += c.lo <= shift && shift <= c.hi;
		}
		print_message("bootstrap 95%% CI of the median ratio (B=10000), n=10, CV %.0f%%, "
			      "%d replicates: coverage %.4f (>= 0.93)\n", cvs[k] * 100, reps,
			      (double)covered / reps);
		assert_true((double)covered / reps >= 0.93);
	}
}

/*
 * Identical programs on a machine that slows down linearly by 5% over the session (warm-up excluded):
 * the run at position t of T gets a factor 1 + 0.05 t / (T - 1). Interleaved: each round runs both
 * programs once in a fresh random order. Blocked (all of x, then all of y) is shown for contrast.
 */
static void drift_rates(uint64_t seed, double cv, size_t n, int reps, double *interleaved, double *blocked,
			double *paired)
{
	double x[64], y[64], drift = 0.05 / (double)(2 * n - 1);
	int hi = 0, hb = 0, hp = 0;
	struct gen g;

	gen_seed(&g, seed);
	for (int rep = 0; rep < reps; rep++) {
		for (size_t round = 0; round < n; round++) {
			bool x_first = ws_rng_below(&g.r, 2) == 0;
			size_t tx = 2 * round + (x_first ? 0 : 1), ty = 2 * round + (x_first ? 1 : 0);

			x[round] = run_value(&g, 1.0 + drift * (double)tx, cv, gauss(&g));
			y[round] = run_value(&g, 1.0 + drift * (double)ty, cv, gauss(&g));
		}
		hi += cell_rejects(x, y, n, false);
		hp += cell_rejects(x, y, n, true);
		for (size_t i = 0; i < n; i++) {
			x[i] = run_value(&g, 1.0 + drift * (double)i, cv, gauss(&g));
			y[i] = run_value(&g, 1.0 + drift * (double)(n + i), cv, gauss(&g));
		}
		hb += cell_rejects(x, y, n, false);
	}
	*interleaved = (double)hi / reps;
	*blocked = (double)hb / reps;
	*paired = (double)hp / reps;
}

static void test_drift(void **state)
{
	static const double cvs[] = { 0.01, 0.02, 0.05 };

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(cvs); k++) {
		double in, bl, pa;

		drift_rates(500 + k, cvs[k], 10, 4000, &in, &bl, &pa);
		print_message("identical programs, 5%% linear drift, n=10, CV %.0f%%, 4000 replicates: "
			      "rejection interleaved %.4f (<= 0.06), interleaved --paired %.4f, "
			      "blocked %.4f\n",
			      cvs[k] * 100, in, pa, bl);
		assert_true(in <= 0.06);
		assert_true(pa <= 0.06);
		/* The drift is really there: blocked order flags far more often than the nominal 5%. */
		if (k == 0)
			assert_true(bl >= 0.3);
	}
}

/*
 * --runs auto with identical programs: start at the default 10 rounds, add one round at a time until the
 * CI half-width of the ratio of medians is within 1% (ws_precision_reached, B = 10,000) or 40 rounds, then
 * test. Stopping on precision, unlike stopping on p, must not inflate the error rate much; it does a
 * little, since samples that happen to fall apart have narrower spreads within each side and so stop
 * earlier, and more so the earlier the first look: hence the start at 10 rounds, not 5.
 */
static void test_precision_stopping(void **state)
{
	const size_t start = 10, cap = 40;
	const double cv = 0.01, target = 0.01;
	const int reps = 3000;
	double x[64], y[64];
	long total_n = 0;
	int hits = 0, capped = 0;
	struct gen g;

	(void)state;
	gen_seed(&g, 600);
	for (int rep = 0; rep < reps; rep++) {
		size_t n = 0;

		do {
			x[n] = run_value(&g, 1.0, cv, gauss(&g));
			y[n] = run_value(&g, 1.0, cv, gauss(&g));
			n++;
		} while (n < start || (n < cap && !ws_precision_reached(x, n, y, n, target, (uint64_t)rep)));
		capped += n == cap;
		total_n += (long)n;
		hits += cell_rejects(x, y, n, false);
	}
	print_message("precision stopping (target %.0f%%, start %zu, cap %zu), identical programs, "
		      "CV %.0f%%, %d replicates: rejection rate %.4f (<= 0.06), mean n %.1f, capped %.3f\n",
		      target * 100, start, cap, cv * 100, reps, (double)hits / reps, (double)total_n / reps,
		      (double)capped / reps);
	assert_true((double)hits / reps <= 0.06);
}

/*
 * test-stats-mc [--only PATTERN | --skip PATTERN]: meson runs the precision-stopping check, the slowest,
 * as its own test beside the rest, so that the two halves share the machine's cores.
 */
int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identical_n10),
		cmocka_unit_test(test_holm_correlated_null),
		cmocka_unit_test(test_power),
		cmocka_unit_test(test_bootstrap_coverage),
		cmocka_unit_test(test_drift),
		cmocka_unit_test(test_precision_stopping),
	};

	if (argc == 3 && !strcmp(argv[1], "--only")) {
		cmocka_set_test_filter(argv[2]);
	} else if (argc == 3 && !strcmp(argv[1], "--skip")) {
		cmocka_set_skip_filter(argv[2]);
	} else if (argc != 1) {
		fprintf(stderr, "usage: %s [--only PATTERN | --skip PATTERN]\n", argv[0]);
		return 129;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
