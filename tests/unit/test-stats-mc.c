/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-stats-mc.c - docs/statistics.md's Monte Carlo acceptance checks, seeded: error rates, power, coverage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "compare/compare.h"
#include "core/log.h"
#include "core/util.h"
#include "result/result.h"
#include "stats/stats.h"

#include <fnmatch.h>
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
 * The effect size: the Hodges-Lehmann ratio with its Moses CI (WS_EFFECT_HL) against the ratio of medians
 * with its bootstrap CI (WS_EFFECT_BOOTSTRAP, B = 10,000), on the very same samples, under three kinds of
 * noise: lognormal alone; lognormal with 5% of runs slowed (the suite's model); and the latter under a 5%
 * linear drift over the session, interleaved as the drift check above. n = 10 a side, a family of one.
 * Per method: the full verdict (`slower`/`faster`: significant and the CI clear of +-1%), the coverage of
 * the true ratio, how often "the CI excludes 1" agrees with "the test's p < 0.05", and the mean CI
 * half-width. In all three models the variant's runs are the baseline's scaled by the injected factor
 * (under drift both see the same drift in distribution), so the true ratio is that factor for both
 * estimands.
 */
enum noise_model {
	MODEL_LOGNORMAL,
	MODEL_SLOWED,
	MODEL_DRIFT,
};

static const char *const model_names[] = { "lognormal", "lognormal + 5% slowed", "+ 5% linear drift" };

static void sample_model(struct gen *g, enum noise_model nm, double cv, double shift, size_t n, double *x,
			 double *y)
{
	double drift = nm == MODEL_DRIFT ? 0.05 / (double)(2 * n - 1) : 0.0;

	for (size_t round = 0; round < n; round++) {
		bool x_first = nm == MODEL_DRIFT ? ws_rng_below(&g->r, 2) == 0 : true;
		double fx = 1.0 + drift * (double)(2 * round + !x_first);
		double fy = 1.0 + drift * (double)(2 * round + x_first);

		if (nm == MODEL_LOGNORMAL) {
			x[round] = fx * exp(sqrt(log1p(cv * cv)) * gauss(g));
			y[round] = shift * fy * exp(sqrt(log1p(cv * cv)) * gauss(g));
		} else {
			x[round] = run_value(g, fx, cv, gauss(g));
			y[round] = run_value(g, shift * fy, cv, gauss(g));
		}
	}
}

struct effect_tally {
	int flagged, covered, agree;
	double half_width;
};

static void tally(struct effect_tally *t, const struct ws_cell *c, double p, double truth)
{
	enum ws_stat_verdict v = ws_decide(p, ALPHA, c->lo, c->hi, NOISE, false);

	t->flagged += v == WS_SV_WORSE || v == WS_SV_BETTER;
	t->covered += c->lo <= truth && truth <= c->hi;
	t->agree += (c->lo > 1 || c->hi < 1) == (p < ALPHA);
	t->half_width += (c->hi - c->lo) / 2 / c->ratio;
}

/*
 * One model at one CV: `reps` replicates at shift 1 and at 1.02. out[shift][method] with method 0 HL,
 * 1 bootstrap; *test_power is the test's own rejection rate at +2% (the same for both).
 */
static void effect_compare(uint64_t seed, enum noise_model nm, double cv, int reps, struct effect_tally out[2][2],
			   double *test_power)
{
	static const double shifts[] = { 1.0, 1.02 };
	double x[16], y[16];
	int rejected_at_2 = 0;
	struct gen g;

	memset(out, 0, 4 * sizeof(out[0][0]));
	gen_seed(&g, seed);
	for (int s = 0; s < 2; s++) {
		for (int i = 0; i < reps; i++) {
			struct ws_cell hl, bs;

			sample_model(&g, nm, cv, shifts[s], 10, x, y);
			assert_int_equal(ws_compare_cell_effect(x, 10, y, 10, false, WS_EFFECT_HL, ALPHA, 0, &hl), 0);
			assert_int_equal(hl.effect, WS_EFFECT_HL);
			assert_int_equal(ws_compare_cell_effect(x, 10, y, 10, false, WS_EFFECT_BOOTSTRAP, ALPHA, (uint64_t)i,
							     &bs), 0);
			/* The test does not depend on the effect size. */
			assert_true(hl.p == bs.p);
			tally(&out[s][0], &hl, hl.p, shifts[s]);
			tally(&out[s][1], &bs, bs.p, shifts[s]);
			rejected_at_2 += s == 1 && hl.p < ALPHA;
		}
	}
	*test_power = (double)rejected_at_2 / reps;
}

static void effect_check(uint64_t seed, enum noise_model nm)
{
	static const double cvs[] = { 0.01, 0.03, 0.05 };
	static const char *const method[] = { "HL/Moses ", "bootstrap" };
	const int reps = 1000;

	for (size_t k = 0; k < ARRAY_SIZE(cvs); k++) {
		struct effect_tally t[2][2];
		double power;

		effect_compare(seed + k, nm, cvs[k], reps, t, &power);
		for (int m = 0; m < 2; m++) {
			print_message("%s, CV %.0f%%, n=10, %d+%d replicates, %s: +2%%: verdict `slower` %.3f, "
				      "coverage %.3f, agreement %.3f, half-width %.2f%%; A/A: false flags %.3f, "
				      "coverage %.3f, agreement %.3f\n",
				      model_names[nm], cvs[k] * 100, reps, reps, method[m], (double)t[1][m].flagged / reps,
				      (double)t[1][m].covered / reps, (double)t[1][m].agree / reps,
				      100 * t[1][m].half_width / reps, (double)t[0][m].flagged / reps,
				      (double)t[0][m].covered / reps, (double)t[0][m].agree / reps);
		}
		print_message("%s, CV %.0f%%: the test alone at +2%%: %.3f\n", model_names[nm], cvs[k] * 100, power);
		/* The default's acceptance: coverage, agreement by construction, no more false flags than 5%. */
		for (int s = 0; s < 2; s++) {
			assert_true((double)t[s][0].covered / reps >= 0.93);
			assert_int_equal(t[s][0].agree, reps);
		}
		assert_true((double)t[0][0].flagged / reps <= 0.05);
		/* And the reason it is the default: at least the bootstrap's power, at most its false flags. */
		assert_true(t[1][0].flagged >= t[1][1].flagged);
		assert_true(t[0][0].flagged <= t[0][1].flagged + reps / 100);
	}
}

static void test_effect_lognormal(void **state)
{
	(void)state;
	effect_check(700, MODEL_LOGNORMAL);
}

static void test_effect_slowed(void **state)
{
	(void)state;
	effect_check(710, MODEL_SLOWED);
}

static void test_effect_drift(void **state)
{
	(void)state;
	effect_check(720, MODEL_DRIFT);
}

/*
 * Whole reports through ws_compare(), the path the program takes: a baseline and `nvar` variants, each
 * measured n times on REPORT_METRICS metrics (wall-time, the primary, and m1..m29), the metrics of one run
 * correlated (r) and slowed together as holm_family() does, CVs spread from 1% to 5% (wall-time at
 * `primary_cv`). Variant v's wall-time alone is scaled by effect[v]; every other metric of every variant is a
 * true null. The default options: Hodges-Lehmann CIs, Holm, gatekept.
 */
#define REPORT_METRICS 30

struct report_rates {
	int any_false;      /* reports with a true null rejected (verdict other than `same`) */
	int old_any_false;  /* the same, had one Holm family covered the whole report */
	int primary_hits;   /* variant 1's primary rejected */
	int old_primary_hits;
	long false_rej, rejections; /* for the false discovery proportion */
	double fdp;
};

static void report_run(struct gen *g, size_t nvar, size_t n, double r_corr, double primary_cv, const double *effect,
		       bool fdr, struct report_rates *out)
{
	struct ws_compare_opts co = { .alpha = ALPHA, .noise = NOISE, .seed = 1, .fdr = fdr };
	double a = sqrt(r_corr), b = sqrt(1 - r_corr), p[REPORT_METRICS * 8], adj[REPORT_METRICS * 8];
	bool null_hyp[REPORT_METRICS * 8];
	struct ws_result res;
	size_t m = 0;
	int false_rej = 0, rej = 0, old_false = 0;

	ws_result_init(&res);
	for (size_t v = 0; v <= nvar; v++) {
		char name[16];

		snprintf(name, sizeof(name), "v%zu", v);
		ws_result_add_variant(&res, name, NULL)->baseline = v == 0;
	}
	for (size_t v = 0; v <= nvar; v++) {
		struct ws_metric *ms[REPORT_METRICS];

		/* Every metric first: adding one may move the others. */
		for (int k = 0; k < REPORT_METRICS; k++) {
			char name[16];

			snprintf(name, sizeof(name), "m%d", k);
			ws_metric_set_get(&res.variants[v].metrics, k ? name : "wall-time", 0);
		}
		for (int k = 0; k < REPORT_METRICS; k++) {
			char name[16];

			snprintf(name, sizeof(name), "m%d", k);
			ms[k] = ws_metric_set_find(&res.variants[v].metrics, k ? name : "wall-time");
		}
		for (size_t i = 0; i < n; i++) {
			double common = gauss(g), slow = slowdown(g);

			for (int k = 0; k < REPORT_METRICS; k++) {
				double cv = k ? 0.01 + 0.04 * (k - 1) / (REPORT_METRICS - 2) : primary_cv;
				double z = a * common + b * gauss(g);

				ws_metric_push(ms[k], exp(sqrt(log1p(cv * cv)) * z) * slow * (v && !k ? effect[v - 1] : 1.0),
					       -1);
			}
		}
	}
	ws_result_summarize(&res);
	assert_int_equal(ws_compare(&res, &co), 0);
	for (size_t i = 0; i < res.ncomparisons; i++) {
		const struct ws_comparison *c = &res.comparisons[i];
		bool is_null = strcmp(c->metric, "wall-time") || effect[atoi(c->variant + 1) - 1] == 1.0;
		bool flagged = c->verdict != WS_VERDICT_SAME;

		assert_int_equal(c->family, strcmp(c->metric, "wall-time") ? WS_FAMILY_SECONDARY : WS_FAMILY_PRIMARY);
		false_rej += is_null && flagged;
		rej += flagged;
		if (!strcmp(c->metric, "wall-time") && !strcmp(c->variant, "v1"))
			out->primary_hits += flagged;
		p[m] = c->p;
		null_hyp[m++] = is_null;
	}
	/* What one Holm family over the whole report, as before, made of the same p. */
	ws_holm(p, m, adj);
	for (size_t i = 0; i < m; i++) {
		old_false += null_hyp[i] && rejected(adj[i]);
		if (i < res.ncomparisons && !strcmp(res.comparisons[i].metric, "wall-time") &&
		    !strcmp(res.comparisons[i].variant, "v1"))
			out->old_primary_hits += rejected(adj[i]);
	}
	out->any_false += false_rej > 0;
	out->old_any_false += old_false > 0;
	out->false_rej += false_rej;
	out->rejections += rej;
	out->fdp += rej ? (double)false_rej / rej : 0.0;
	ws_result_release(&res);
}

static void report_rates(uint64_t seed, size_t nvar, size_t n, double r_corr, double primary_cv, const double *effect,
			 bool fdr, int reps, struct report_rates *out)
{
	struct gen g;

	memset(out, 0, sizeof(*out));
	gen_seed(&g, seed);
	for (int i = 0; i < reps; i++)
		report_run(&g, nvar, n, r_corr, primary_cv, effect, fdr, out);
}

static void quiet(enum ws_log_level level, const char *msg, void *data)
{
	(void)level;
	(void)msg;
	(void)data;
}

/*
 * The family-wise error rate of whole reports of identical programs, 30 metrics a variant: one variant, and
 * three (90 tests); metrics correlated (r = 0.8) and independent (r = 0, where a union bound is tightest).
 */
static void test_gatekeep_fwer(void **state)
{
	static const struct {
		size_t nvar;
		double r;
	} cases[] = { { 1, 0.8 }, { 1, 0.0 }, { 3, 0.8 }, { 3, 0.0 } };
	static const double none[] = { 1, 1, 1 };
	const int reps = 2000;

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct report_rates rr;

		report_rates(800 + k, cases[k].nvar, 10, cases[k].r, 0.02, none, false, reps, &rr);
		print_message("gatekept Holm, identical programs, %zu variant%s x %d metrics (r=%.1f, CV 1-5%%), n=10, "
			      "%d reports: P(any false flag) %.4f (<= 0.06); one Holm family: %.4f\n",
			      cases[k].nvar, cases[k].nvar > 1 ? "s" : "", REPORT_METRICS, cases[k].r, reps,
			      (double)rr.any_false / reps, (double)rr.old_any_false / reps);
		assert_true((double)rr.any_false / reps <= 0.06);
	}
}

/*
 * Partial nulls, where a gate opens: the primary of variant 1 really differs (+3%, CV 1%: rejected almost
 * always), so its 29 secondaries, all true nulls, are tested at the full alpha; a second variant is
 * identical in everything. No true null may be flagged in more than 6% of reports. With --fdr, the false
 * discovery rate of the report (mean false / flagged) is printed beside it.
 */
static void test_gatekeep_partial_null(void **state)
{
	static const double effect[] = { 1.03, 1.0 };
	const int reps = 2000;
	struct report_rates rr, fr;

	(void)state;
	report_rates(810, 2, 10, 0.8, 0.01, effect, false, reps, &rr);
	print_message("gatekept Holm, variant 1 +3%% in wall-time only, variant 2 identical, 30 metrics (r=0.8), n=10, "
		      "%d reports: primary power %.4f, P(any false flag) %.4f (<= 0.06)\n",
		      reps, (double)rr.primary_hits / reps, (double)rr.any_false / reps);
	assert_true((double)rr.any_false / reps <= 0.06);
	report_rates(811, 2, 10, 0.8, 0.01, effect, true, reps, &fr);
	print_message("gatekept BH (--fdr), same reports: primary power %.4f, FDR %.4f (<= 0.06), "
		      "P(any false flag) %.4f\n",
		      (double)fr.primary_hits / reps, fr.fdp / reps, (double)fr.any_false / reps);
	assert_true(fr.fdp / reps <= 0.06);
	report_rates(812, 1, 10, 0.8, 0.02, (const double[]){ 1.0 }, true, reps, &fr);
	print_message("gatekept BH (--fdr), identical programs, 1 variant x 30 metrics: FDR = P(any false flag) "
		      "%.4f (<= 0.06)\n",
		      (double)fr.any_false / reps);
	assert_true((double)fr.any_false / reps <= 0.06);
}

/*
 * The primary's power in a full report: +2% in wall-time at CV 1%, n=10, 29 other metrics beside it. The
 * gatekept primary is tested at the full alpha; one Holm family over the 30 would test it at alpha / 30
 * first.
 */
static void test_gatekeep_primary_power(void **state)
{
	const int reps = 2000;
	struct report_rates rr;

	(void)state;
	report_rates(820, 1, 10, 0.8, 0.01, (const double[]){ 1.02 }, false, reps, &rr);
	print_message("+2%% in wall-time, CV 1%%, n=10, in a report of 30 metrics (r=0.8), %d reports: primary "
		      "power %.4f (>= 0.90); under one Holm family %.4f\n",
		      reps, (double)rr.primary_hits / reps, (double)rr.old_primary_hits / reps);
	assert_true((double)rr.primary_hits / reps >= 0.90);
}

/*
 * --runs auto, decided: from `start` rounds, look at the rounds of ws_sequential_schedule() (or every round
 * when `every_round`), each look's CI at alpha / L (or at `look_alpha` when that is > 0), until the primary's
 * CI is outside the band of +-`noise`, inside it, or the budget `cap` is spent; then the verdict of the
 * final samples through ws_compare(), as the program gives it: where the budget stopped the session, told
 * its L looks, so that it judges the primary at alpha / L; where it stopped on its answer, at the full
 * alpha. The contrasts (`look_alpha` > 0, the old rule at 95% each) get a report at the full alpha.
 */
struct seq_rates {
	int flagged;   /* final verdict slower or faster */
	int rejected;  /* final verdict other than `same` (noise included) */
	int wrong_way; /* flagged, in the direction opposite to the truth */
	int stop_diff, stop_same, capped;
	long total_n;
};

/* One variant against the baseline on wall-time alone, through ws_compare(): the primary's verdict. */
static enum ws_stat_verdict report_verdict(const double *x, const double *y, size_t n, double noise, size_t looks)
{
	struct ws_compare_opts co = { .alpha = ALPHA, .noise = noise, .seed = 1, .looks = looks };
	const struct ws_comparison *c;
	enum ws_stat_verdict v = WS_SV_SAME;
	struct ws_result res;

	ws_result_init(&res);
	ws_result_add_variant(&res, "b", NULL)->baseline = true;
	ws_result_add_variant(&res, "v", NULL);
	for (size_t k = 0; k < 2; k++) {
		struct ws_metric *m = ws_metric_set_get(&res.variants[k].metrics, "wall-time", 0);

		for (size_t i = 0; i < n; i++)
			ws_metric_push(m, k ? y[i] : x[i], -1);
	}
	ws_result_summarize(&res);
	assert_int_equal(ws_compare(&res, &co), 0);
	c = ws_comparison_find(&res, "v", "wall-time", NULL, NULL);
	assert_non_null(c);
	if (c->verdict == WS_VERDICT_NOISE)
		v = WS_SV_NOISE;
	else if (c->verdict == WS_VERDICT_SLOWER)
		v = WS_SV_WORSE;
	else if (c->verdict == WS_VERDICT_FASTER)
		v = WS_SV_BETTER;
	ws_result_release(&res);
	return v;
}

static void sequential_rates(uint64_t seed, double cv, double shift, double noise, size_t start, size_t cap,
			     bool every_round, double look_alpha, double same_alpha, int reps, struct seq_rates *out)
{
	size_t looks[64], nlooks = ws_sequential_schedule(start, cap, looks, ARRAY_SIZE(looks));
	double x[256], y[256], a = look_alpha > 0 ? look_alpha : ALPHA / (double)nlooks;
	double as = same_alpha > 0 ? same_alpha : a;
	struct gen g;

	assert_true(cap <= 256 && nlooks <= ARRAY_SIZE(looks));
	memset(out, 0, sizeof(*out));
	gen_seed(&g, seed);
	for (int rep = 0; rep < reps; rep++) {
		enum ws_seq_state st = WS_SEQ_MORE;
		enum ws_stat_verdict v;
		size_t n = 0, next = 0;

		while (n < cap) {
			bool look;

			x[n] = run_value(&g, 1.0, cv, gauss(&g));
			y[n] = run_value(&g, shift, cv, gauss(&g));
			n++;
			look = every_round ? n >= start : next < nlooks && n == looks[next];
			if (!look)
				continue;
			next++;
			st = ws_sequential_state(x, n, y, n, false, WS_EFFECT_HL, noise, a, as, 0);
			if (st != WS_SEQ_MORE)
				break;
		}
		v = report_verdict(x, y, n, noise, look_alpha > 0 || st != WS_SEQ_MORE ? 0 : nlooks);
		out->flagged += v == WS_SV_WORSE || v == WS_SV_BETTER;
		out->rejected += v != WS_SV_SAME;
		out->wrong_way += shift >= 1.0 ? v == WS_SV_BETTER : v == WS_SV_WORSE;
		out->stop_diff += st == WS_SEQ_DIFFERENT;
		out->stop_same += st == WS_SEQ_SAME;
		out->capped += st == WS_SEQ_MORE;
		out->total_n += (long)n;
	}
}

static void print_seq(const char *what, double cv, int reps, const struct seq_rates *sr)
{
	print_message("%s, CV %.0f%%, %d replicates: flagged (slower/faster) %.4f, any verdict but same %.4f; "
		      "stopped different %.3f, same %.3f, at the budget %.3f; mean n %.1f\n",
		      what, cv * 100, reps, (double)sr->flagged / reps, (double)sr->rejected / reps,
		      (double)sr->stop_diff / reps, (double)sr->stop_same / reps, (double)sr->capped / reps,
		      (double)sr->total_n / reps);
}

/*
 * The false-alarm rate of --runs auto under its own stopping, identical programs, the budget at the
 * default 200 rounds: "flagged" (a final verdict of slower or faster) is what the stopping rule can
 * inflate, and is required <= 0.05; any verdict but `same` (a `noise` included) is the old precision
 * check's measure, accepted <= 0.06. For contrast, the same schedule with every look at the plain 95% CI,
 * and every round looked at with it: the inflation that the Bonferroni share removes.
 */
static void test_sequential_null(void **state)
{
	static const double cvs[] = { 0.01, 0.02, 0.05 };
	const int reps = 2000;

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(cvs); k++) {
		struct seq_rates sr;

		sequential_rates(900 + k, cvs[k], 1.0, NOISE, 10, 200, false, 0, ALPHA, reps, &sr);
		print_seq("--runs auto, identical programs, looks at 10 15 23 .. 200, different at alpha/9, same at 95%",
			  cvs[k], reps, &sr);
		assert_true((double)sr.flagged / reps <= 0.05);
		assert_true((double)sr.rejected / reps <= 0.06);
		if (k != 2)
			continue;
		sequential_rates(910 + k, cvs[k], 1.0, NOISE, 10, 200, false, ALPHA, ALPHA, reps / 2, &sr);
		print_seq("  contrast: the same looks, each at 95%", cvs[k], reps / 2, &sr);
		sequential_rates(920 + k, cvs[k], 1.0, NOISE, 10, 200, true, ALPHA, ALPHA, reps / 8, &sr);
		print_seq("  contrast: every round from 10, each at 95%", cvs[k], reps / 8, &sr);
	}
}

/*
 * --noise 0: no band, so no session stops on "same" and most run to the budget; there the report used to
 * test again at the full alpha, on top of the looks' alpha / L, and identical programs were called different
 * 6.6% of the time (CV 1%, budget 100: 3.5% stopped different at a look, the rest at the budget). Judged at
 * alpha / L at the budget too, the report is one of the looks, and the union bound holds: <= alpha.
 */
static void test_sequential_null_no_band(void **state)
{
	const int reps = 2000;
	struct seq_rates sr;

	(void)state;
	sequential_rates(940, 0.01, 1.0, 0.0, 10, 100, false, 0, ALPHA, reps, &sr);
	print_seq("--runs auto --noise 0 --max-runs 100, identical programs, looks at 10 15 .. 100", 0.01, reps, &sr);
	assert_true((double)sr.flagged / reps <= ALPHA);
}

/* What --runs auto costs and finds: real effects, the runs it takes, and how often it gets them. */
static void test_sequential_power(void **state)
{
	static const struct {
		double cv, shift;
	} cases[] = { { 0.01, 1.02 }, { 0.01, 1.05 }, { 0.02, 1.02 }, { 0.02, 1.05 }, { 0.05, 1.05 }, { 0.01, 1.015 } };
	const int reps = 1000;

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct seq_rates sr;
		char what[96];

		snprintf(what, sizeof(what), "--runs auto, %+.1f%%", 100 * (cases[k].shift - 1));
		sequential_rates(930 + k, cases[k].cv, cases[k].shift, NOISE, 10, 200, false, 0, ALPHA, reps, &sr);
		print_seq(what, cases[k].cv, reps, &sr);
		assert_int_equal(sr.wrong_way, 0);
		/* A clear +5% at CV 1-2% is found at once, in (almost) every session. */
		if (cases[k].shift == 1.05 && cases[k].cv <= 0.02)
			assert_true((double)sr.flagged / reps >= 0.99 && (double)sr.total_n / reps <= 15);
		/* +1.5% is outside the band: it must not be called the same. */
		if (cases[k].shift == 1.015)
			assert_true((double)sr.stop_same / reps <= 0.01);
	}
}


/*
 * --runs auto stopped by its time budget (--max-time) and the secondaries of a sequential session: the
 * session of sequential_rates(), with the run times and a second metric drawn beside the primary.
 *
 * Each run draws its primary (wall-time) as run_value() does, times a machine state shared by the two runs
 * of a round (a log AR(1), for `drift`), times a stall (3% of runs 1 + Exp(mean 3) slower, for `stalls`), and
 * a secondary (task-clock) whose noise is correlated `r` with the primary's, sharing its slowdown, stall and
 * machine state, with no effect of its own. The run's time (what --max-time counts) is the primary, the
 * secondary, or (the worst case sought) the gap between the round's two primaries. The budget, in rounds,
 * is that many times the mean time of a round (a pilot of 4,000 rounds): the session stops after the first
 * round past it (not before `start`), as interleaved_phase() does, wherever that falls between two looks.
 */
enum time_kind { TIME_NONE, TIME_PRIMARY, TIME_SECONDARY, TIME_GAP };

struct tseq_model {
	double cv, shift, r;     /* primary noise and true ratio; the secondary's correlation with it */
	bool stalls, drift;      /* 3% of runs stalled; a machine state shared by a round's two runs */
	enum time_kind time;     /* what a round costs of the budget */
	double budget;           /* the budget in mean rounds (0: none, only the cap) */
	size_t cap;              /* --max-runs */
	double noise;            /* --noise */
	bool paired;             /* --paired */
	bool secondary_per_look; /* judge the secondary at alpha / L too (ws_compare_opts.secondary_looks) */
};

struct tseq_rates {
	int flagged, rejected;         /* the primary's verdict: slower/faster; anything but same */
	int sec_flagged, sec_rejected; /* the secondary's */
	int stop_diff, stop_same, capped, timed, timed_between;
	long total_n;
};

struct tseq_round {
	double x, y, xs, ys, cost;
};

static void tseq_draw(struct gen *g, const struct tseq_model *m, double *state, struct tseq_round *o)
{
	double v[2], s[2], a = sqrt(m->r), b = sqrt(1 - m->r), sig = sqrt(log1p(m->cv * m->cv));

	/* The machine state: log AR(1), phi 0.9, stationary sd 0.1. */
	if (m->drift)
		*state = 0.9 * *state + sqrt(1 - 0.81) * 0.1 * gauss(g);
	for (int k = 0; k < 2; k++) {
		double z = gauss(g), zs = a * z + b * gauss(g), f = exp(*state) * slowdown(g);

		if (m->stalls && ws_rng_double(&g->r) < 0.03)
			f *= 1.0 - 3.0 * log(1.0 - ws_rng_double(&g->r));
		v[k] = (k ? m->shift : 1.0) * exp(sig * z) * f;
		s[k] = exp(sig * zs) * f;
	}
	o->x = v[0], o->y = v[1], o->xs = s[0], o->ys = s[1];
	o->cost = m->time == TIME_PRIMARY ? v[0] + v[1] : m->time == TIME_SECONDARY ? s[0] + s[1]
		: m->time == TIME_GAP ? fabs(log(v[1] / v[0])) : 0.0;
}

static enum ws_stat_verdict tseq_verdict(const struct ws_comparison *c)
{
	if (!c || c->verdict == WS_VERDICT_SAME || c->verdict == WS_VERDICT_NONE)
		return WS_SV_SAME;
	return c->verdict == WS_VERDICT_SLOWER ? WS_SV_WORSE : c->verdict == WS_VERDICT_FASTER ? WS_SV_BETTER
										: WS_SV_NOISE;
}

static void tseq_rates(uint64_t seed, const struct tseq_model *m, size_t start, int reps, struct tseq_rates *out)
{
	size_t looks[64], nlooks = ws_sequential_schedule(start, m->cap, looks, ARRAY_SIZE(looks));
	double x[256], y[256], xs[256], ys[256], a = ALPHA / (double)nlooks, budget = 0, state = 0;
	struct tseq_round rd;
	struct gen g;

	assert_true(m->cap <= 256 && nlooks <= ARRAY_SIZE(looks));
	memset(out, 0, sizeof(*out));
	gen_seed(&g, seed);
	if (m->budget > 0) {
		for (int i = 0; i < 4000; i++) {
			tseq_draw(&g, m, &state, &rd);
			budget += rd.cost;
		}
		budget *= m->budget / 4000;
	}
	for (int rep = 0; rep < reps; rep++) {
		struct ws_compare_opts co = { .alpha = ALPHA, .noise = m->noise, .seed = 1, .paired = m->paired };
		enum ws_seq_state st = WS_SEQ_MORE;
		enum ws_stat_verdict v, vs;
		size_t n = 0, next = 0;
		bool timed = false, on_look = false;
		double spent = 0;
		struct ws_result res;

		state = m->drift ? 0.1 * gauss(&g) : 0.0;
		while (n < m->cap) {
			tseq_draw(&g, m, &state, &rd);
			x[n] = rd.x, y[n] = rd.y, xs[n] = rd.xs, ys[n] = rd.ys;
			spent += rd.cost;
			n++;
			on_look = next < nlooks && n == looks[next];
			if (on_look) {
				next++;
				st = ws_sequential_state(x, n, y, n, m->paired, WS_EFFECT_HL, m->noise, a, ALPHA, 0);
				if (st != WS_SEQ_MORE)
					break;
			}
			if (m->budget > 0 && n >= start && spent > budget) {
				timed = n < m->cap;
				break;
			}
		}
		/* As interleaved_phase() records it: the looks only where the budget stopped it undecided. */
		co.looks = st == WS_SEQ_MORE ? nlooks : 0;
		co.secondary_looks = m->secondary_per_look ? nlooks : 0;
		ws_result_init(&res);
		ws_result_add_variant(&res, "b", NULL)->baseline = true;
		ws_result_add_variant(&res, "v", NULL);
		for (size_t k = 0; k < 2; k++) {
			struct ws_metric *pm, *sm;

			ws_metric_set_get(&res.variants[k].metrics, "wall-time", 0);
			ws_metric_set_get(&res.variants[k].metrics, "task-clock", 0);
			pm = ws_metric_set_find(&res.variants[k].metrics, "wall-time");
			sm = ws_metric_set_find(&res.variants[k].metrics, "task-clock");
			for (size_t i = 0; i < n; i++) {
				ws_metric_push(pm, k ? y[i] : x[i], -1);
				ws_metric_push(sm, k ? ys[i] : xs[i], -1);
			}
		}
		ws_result_summarize(&res);
		assert_int_equal(ws_compare(&res, &co), 0);
		v = tseq_verdict(ws_comparison_find(&res, "v", "wall-time", NULL, NULL));
		vs = tseq_verdict(ws_comparison_find(&res, "v", "task-clock", NULL, NULL));
		ws_result_release(&res);
		out->flagged += m->shift == 1.0 && (v == WS_SV_WORSE || v == WS_SV_BETTER);
		out->rejected += m->shift == 1.0 && v != WS_SV_SAME;
		out->sec_flagged += vs == WS_SV_WORSE || vs == WS_SV_BETTER;
		out->sec_rejected += vs != WS_SV_SAME;
		out->stop_diff += st == WS_SEQ_DIFFERENT;
		out->stop_same += st == WS_SEQ_SAME;
		out->capped += st == WS_SEQ_MORE && !timed;
		out->timed += timed;
		out->timed_between += timed && !on_look;
		out->total_n += (long)n;
	}
}

/* A binomial rate with its 95% Wilson interval, for the printed figures. */
static void print_rate(const char *what, int hits, int reps)
{
	double p = (double)hits / reps, z = 1.959963984540054, d = 1 + z * z / reps;
	double c = (p + z * z / (2.0 * reps)) / d, h = z * sqrt(p * (1 - p) / reps + z * z / (4.0 * reps * reps)) / d;

	print_message("  %s %.4f [%.4f, %.4f]", what, p, c - h, c + h);
}

static void print_tseq(const char *what, int reps, const struct tseq_rates *t)
{
	print_message("%s, %d sessions:\n", what, reps);
	print_rate("primary flagged", t->flagged, reps);
	print_rate("primary not same", t->rejected, reps);
	print_rate("secondary flagged", t->sec_flagged, reps);
	print_rate("secondary not same", t->sec_rejected, reps);
	print_message("\n  stopped different %.3f, same %.3f, at --max-runs %.3f, at --max-time %.3f (%.3f between "
		      "looks); mean n %.1f\n",
		      (double)t->stop_diff / reps, (double)t->stop_same / reps, (double)t->capped / reps,
		      (double)t->timed / reps, (double)t->timed_between / reps, (double)t->total_n / reps);
}

/* WS_MC_SCALE=K multiplies these checks' sessions (bench/stats-sequential.sh), for narrower intervals. */
static int mc_scale(void)
{
	const char *s = getenv("WS_MC_SCALE");
	int k = s ? atoi(s) : 1;

	return k > 0 ? k : 1;
}

/*
 * --max-time: the budget runs out at a round that depends on the run times, which depend on the values
 * measured, wherever that falls between two looks. Identical programs, --noise 0 (no session stops `same`),
 * the budget at about 30 or 60 rounds of 200: the report after a time stop, judged at alpha / L as one of
 * the looks, must keep the false alarms <= alpha. The rounds a time stop picks never depend on which program
 * was faster (the time of a round is the same whichever ran first), so for --paired the bound is a theorem
 * (docs/statistics.md, 16); for the unpaired test it is measured, with the budget spent by the primary, by a
 * correlated metric, and by the worst case sought, the gap between a round's two runs.
 */
static void test_sequential_time_budget(void **state)
{
	static const struct {
		const char *name;
		struct tseq_model m;
	} cases[] = {
		{ "--max-time, time = wall-time, CV 5%, 3% of runs stalled, budget ~60 rounds",
		  { 0.05, 1.0, 0.8, true, false, TIME_PRIMARY, 60, 200, 0.0, false, false } },
		{ "--max-time, time = task-clock (r = 0.8), CV 5%, stalls, budget ~30 rounds",
		  { 0.05, 1.0, 0.8, true, false, TIME_SECONDARY, 30, 200, 0.0, false, false } },
		{ "--max-time, time = wall-time, CV 5%, machine state drifting, budget ~60 rounds",
		  { 0.05, 1.0, 0.8, false, true, TIME_PRIMARY, 60, 200, 0.0, false, false } },
		{ "--max-time, time = the gap between a round's runs, CV 5%, budget ~60 rounds",
		  { 0.05, 1.0, 0.8, false, false, TIME_GAP, 60, 200, 0.0, false, false } },
		{ "--max-time, the same, --paired", { 0.05, 1.0, 0.8, false, false, TIME_GAP, 60, 200, 0.0, true, false } },
	};
	int reps = 400 * mc_scale();

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct tseq_rates t;

		tseq_rates(960 + k, &cases[k].m, 10, reps, &t);
		print_tseq(cases[k].name, reps, &t);
		assert_true((double)t.flagged / reps <= ALPHA);
		/* What is checked: most sessions stopped by the time budget, between two looks. */
		assert_true(t.timed_between >= reps * 8 / 10);
	}
}

/*
 * The secondaries of a sequential session: the primary (wall-time) really +1.5% at CV 2%, so the gate opens,
 * and a secondary (task-clock) correlated r = 0.95 with it and unchanged. The session stops when the
 * primary's CI clears the band, which happens sooner where the noise pushed the primary up, and the
 * secondary with it. Tested at the full alpha there, the secondary came out other than `same` 9.1% of the
 * time for 5% promised (2,000 sessions); at alpha / L, one of at most L looks, it must be <= alpha.
 */
static void test_sequential_secondary(void **state)
{
	struct tseq_model m = { 0.02, 1.015, 0.95, false, false, TIME_NONE, 0, 200, NOISE, false, true };
	int reps = 400 * mc_scale();
	struct tseq_rates t;

	(void)state;
	tseq_rates(970, &m, 10, reps, &t);
	print_tseq("--runs auto, wall-time +1.5% (CV 2%), task-clock unchanged (r = 0.95), secondaries at alpha / L",
		   reps, &t);
	assert_true((double)t.sec_rejected / reps <= ALPHA);
	/* The contrast, at the full alpha: the inflation is real, or this check proves nothing. */
	m.secondary_per_look = false;
	tseq_rates(970, &m, 10, reps, &t);
	print_tseq("  contrast: secondaries at the full alpha", reps, &t);
	assert_true((double)t.sec_rejected / reps > ALPHA);
}

/*
 * bench/stats-power.sh's comparison, on synthetic samples: whyslow's default verdict for a primary (the test
 * at the full alpha, the Hodges-Lehmann CI against +-1%), the previous default (the bootstrap CI of the
 * ratio of medians), and the decision rules of poop and hyperfine as bench/stats-power.py states them:
 *   poop: the pooled-variance t interval of the difference of means, in percent of the baseline mean, lies
 *     beyond +-1% with one sign (t = 2.101 for df = 18);
 *   hyperfine: mean +- sd of the two programs do not overlap.
 * n = 10 a side, the suite's noise (lognormal, 5% of runs slowed), at CV 1%, 2.9% (the bench's reading
 * quoted in the issue) and 5%.
 */
static int rule_poop(const double *x, const double *y, size_t n)
{
	struct ws_welford wx = { 0 }, wy = { 0 };
	double sp, h, d;

	assert_int_equal(n, 10);
	for (size_t i = 0; i < n; i++) {
		ws_welford_add(&wx, x[i]);
		ws_welford_add(&wy, y[i]);
	}
	sp = sqrt((pow(ws_welford_stddev(&wx), 2) + pow(ws_welford_stddev(&wy), 2)) / 2);
	h = 2.101 * sp * sqrt(2.0 / (double)n) * 100 / wx.mean;
	d = (wy.mean - wx.mean) * 100 / wx.mean;
	return d >= 1 && d - h >= 1 ? 1 : d <= -1 && d + h <= -1 ? -1 : 0;
}

static int rule_hyperfine(const double *x, const double *y, size_t n)
{
	struct ws_welford wx = { 0 }, wy = { 0 };

	for (size_t i = 0; i < n; i++) {
		ws_welford_add(&wx, x[i]);
		ws_welford_add(&wy, y[i]);
	}
	if (wy.mean - ws_welford_stddev(&wy) > wx.mean + ws_welford_stddev(&wx))
		return 1;
	return wy.mean + ws_welford_stddev(&wy) < wx.mean - ws_welford_stddev(&wx) ? -1 : 0;
}

static int rule_whyslow(const double *x, const double *y, size_t n, enum ws_effect e, uint64_t seed)
{
	struct ws_cell c;
	enum ws_stat_verdict v;

	assert_int_equal(ws_compare_cell_effect(x, n, y, n, false, e, ALPHA, seed, &c), 0);
	v = ws_decide(c.p, ALPHA, c.lo, c.hi, NOISE, false);
	return v == WS_SV_WORSE ? 1 : v == WS_SV_BETTER ? -1 : 0;
}

static void test_peer_rules(void **state)
{
	static const double cvs[] = { 0.01, 0.029, 0.05 };
	static const char *const names[] = { "whyslow (Hodges-Lehmann)", "whyslow before (bootstrap)", "poop",
					      "hyperfine" };
	const int reps = 2000, boot_reps = 500;

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(cvs); k++) {
		int fa[4] = { 0 }, hits[4] = { 0 }, only_why = 0, only_poop = 0;
		double x[10], y[10];
		struct gen g;

		gen_seed(&g, 1000 + k);
		for (int s = 0; s < 2; s++) {
			for (int i = 0; i < reps; i++) {
				int r[4];

				sample_pair(&g, cvs[k], s ? 1.02 : 1.0, 10, x, y);
				r[0] = rule_whyslow(x, y, 10, WS_EFFECT_HL, 0);
				r[1] = i < boot_reps ? rule_whyslow(x, y, 10, WS_EFFECT_BOOTSTRAP, (uint64_t)i) : 0;
				r[2] = rule_poop(x, y, 10);
				r[3] = rule_hyperfine(x, y, 10);
				for (int m = 0; m < 4; m++) {
					fa[m] += !s && r[m] != 0;
					hits[m] += s && r[m] == 1;
				}
				only_why += s && r[0] == 1 && r[2] != 1;
				only_poop += s && r[2] == 1 && r[0] != 1;
			}
		}
		for (int m = 0; m < 4; m++) {
			int nr = m == 1 ? boot_reps : reps;

			print_message("n=10, CV %.1f%% with 5%% slowed runs: %-26s false alarms %.4f, power at +2%% %.4f "
				      "(%d+%d replicates)\n",
				      cvs[k] * 100, names[m], (double)fa[m] / nr, (double)hits[m] / nr, nr, nr);
		}
		print_message("n=10, CV %.1f%%, +2%%: found by whyslow alone %d, by poop alone %d\n", cvs[k] * 100,
			      only_why, only_poop);
		assert_true((double)fa[0] / reps <= 0.05);
		assert_true(hits[0] >= hits[3] && fa[0] <= fa[2] + reps / 100);
		/*
		 * Where the slowed runs weigh (CV 1-3%), the median of pairwise differences beats the mean. At CV
		 * 5% they are a small part of the spread, the data nearly lognormal, and the t interval of the
		 * means, the efficient one there, finds +2% somewhat more often (about 0.054 against 0.045 here).
		 */
		if (cvs[k] < 0.03)
			assert_true(hits[0] >= hits[2]);
		else
			assert_true(hits[0] >= hits[2] - reps / 50);
	}
}

/* Whether `name` matches one of the comma-separated glob patterns in `list`. */
static bool matches(const char *name, const char *list)
{
	char *copy = xstrdup(list), *save = NULL;
	bool hit = false;

	for (char *p = strtok_r(copy, ",", &save); p && !hit; p = strtok_r(NULL, ",", &save))
		hit = fnmatch(p, name, 0) == 0;
	free(copy);
	return hit;
}

/*
 * test-stats-mc [--only PATTERNS | --skip PATTERNS], PATTERNS comma-separated globs: meson runs the slowest
 * checks (precision stopping, the effect-size comparison, sequential stopping) as tests of their own beside
 * the rest, so that they share the machine's cores and each stays far from the timeout under the
 * sanitizers.
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
		cmocka_unit_test(test_effect_lognormal),
		cmocka_unit_test(test_effect_slowed),
		cmocka_unit_test(test_effect_drift),
		cmocka_unit_test(test_gatekeep_fwer),
		cmocka_unit_test(test_gatekeep_partial_null),
		cmocka_unit_test(test_gatekeep_primary_power),
		cmocka_unit_test(test_sequential_null),
		cmocka_unit_test(test_sequential_null_no_band),
		cmocka_unit_test(test_sequential_power),
		cmocka_unit_test(test_sequential_time_budget),
		cmocka_unit_test(test_sequential_secondary),
		cmocka_unit_test(test_peer_rules),
	};
	struct CMUnitTest chosen[ARRAY_SIZE(tests)];
	size_t n = 0;
	bool only;

	/* ws_compare() reports through the log; these reports' warnings are not the point. */
	ws_log_set(quiet, NULL);

	if (argc == 3 && (!strcmp(argv[1], "--only") || !strcmp(argv[1], "--skip"))) {
		only = !strcmp(argv[1], "--only");
		for (size_t i = 0; i < ARRAY_SIZE(tests); i++)
			if (matches(tests[i].name, argv[2]) == only)
				chosen[n++] = tests[i];
	} else if (argc == 1) {
		memcpy(chosen, tests, sizeof(tests));
		n = ARRAY_SIZE(tests);
	} else {
		fprintf(stderr, "usage: %s [--only PATTERNS | --skip PATTERNS]\n", argv[0]);
		return 129;
	}
	return _cmocka_run_group_tests("test-stats-mc", chosen, n, NULL, NULL);
}
