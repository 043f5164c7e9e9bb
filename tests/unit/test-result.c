/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-result.c - unit tests of the result model: samples, derivation, summaries, exactness. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "result/derive.h"
#include "result/metrics.h"
#include "result/result.h"

#include <math.h>
#include <stdio.h>

static void test_summary_values(void **state)
{
	/* Hand-computed: mean 3, sample sd sqrt(2.5), median 3, MAD 1 for 1..5. */
	struct ws_metric_set s = { 0 };
	struct ws_metric *m = ws_metric_set_get(&s, "instructions", 0);

	(void)state;
	for (int i = 1; i <= 5; i++)
		ws_metric_push(m, i, -1);
	ws_metric_summarize(m);
	assert_int_equal(m->sum.n, 5);
	assert_float_equal(m->sum.mean, 3.0, 1e-12);
	assert_float_equal(m->sum.stddev, sqrt(2.5), 1e-12);
	assert_float_equal(m->sum.median, 3.0, 0);
	assert_float_equal(m->sum.mad, 1.0, 0);
	assert_float_equal(m->sum.min, 1.0, 0);
	assert_float_equal(m->sum.max, 5.0, 0);
	/* n=5: ranks 1 and 5 give 93.75% < 95%, so no CI at 95%. */
	assert_true(isnan(m->sum.ci_lo));
	assert_true(isnan(m->sum.running));
	ws_metric_set_release(&s);

	/* One run has no spread: its standard deviation is not measured (null), not 0. */
	m = ws_metric_set_get(&s, "instructions", 0);
	ws_metric_push(m, 7, -1);
	ws_metric_summarize(m);
	assert_int_equal(m->sum.n, 1);
	assert_float_equal(m->sum.mean, 7.0, 0);
	assert_true(isnan(m->sum.stddev));
	ws_metric_set_release(&s);
}

/* Units: perf's modifiers keep the plain event's, cpu-clock is time as task-clock is, a PMU's event counts. */
static void test_units(void **state)
{
	(void)state;
	assert_int_equal(ws_metric_unit("task-clock"), WS_UNIT_NS);
	assert_int_equal(ws_metric_unit("task-clock:k"), WS_UNIT_NS);
	assert_int_equal(ws_metric_unit("cpu-clock"), WS_UNIT_NS);
	assert_int_equal(ws_metric_unit("cpu-clock:u"), WS_UNIT_NS);
	assert_int_equal(ws_metric_unit("wall-time"), WS_UNIT_SECONDS);
	assert_int_equal(ws_metric_unit("cycles:u"), WS_UNIT_COUNT);
	assert_int_equal(ws_metric_unit("amd64_fam19h_zen4::RETIRED_OPS"), WS_UNIT_COUNT);
	assert_int_equal(ws_metric_unit("r01c2"), WS_UNIT_COUNT);
}

/* A hybrid CPU's count of its P-cores alone is divided by no count of all its cores; of P-cores, it is. */
static void test_derive_core_subset(void **state)
{
	struct ws_metric_set s = { 0 };

	(void)state;
	ws_metric_push(ws_metric_set_get(&s, "L1-dcache-load-misses", WS_M_CORE_SUBSET), 50, -1);
	ws_metric_push(ws_metric_set_get(&s, "L1-dcache-loads", 0), 1000, -1);
	ws_metric_set_derive(&s);
	assert_null(ws_metric_set_find(&s, "L1-dcache-miss-rate"));
	ws_metric_set_find(&s, "L1-dcache-loads")->flags |= WS_M_CORE_SUBSET;
	ws_metric_set_derive(&s);
	assert_non_null(ws_metric_set_find(&s, "L1-dcache-miss-rate"));
	assert_float_equal(ws_metric_set_find(&s, "L1-dcache-miss-rate")->samples[0], 0.05, 1e-12);
	ws_metric_set_release(&s);
}

static void test_median_ci_n10(void **state)
{
	/* n=10: the 95% CI of the median is [x(2), x(9)], coverage 97.85%. */
	struct ws_metric_set s = { 0 };
	struct ws_metric *m = ws_metric_set_get(&s, "cycles", 0);
	double v[] = { 7, 3, 9, 1, 5, 10, 2, 8, 4, 6 };

	(void)state;
	for (int i = 0; i < 10; i++)
		ws_metric_push(m, v[i], -1);
	ws_metric_summarize(m);
	assert_float_equal(m->sum.ci_lo, 2.0, 0);
	assert_float_equal(m->sum.ci_hi, 9.0, 0);
	assert_float_equal(m->sum.median, 5.5, 0);
	ws_metric_set_release(&s);
}

static void test_nan_is_not_counted(void **state)
{
	struct ws_metric_set s = { 0 };
	struct ws_metric *m = ws_metric_set_get(&s, "cycles", 0);

	(void)state;
	ws_metric_push(m, 10, 1.0);
	ws_metric_push(m, NAN, 0.0);
	ws_metric_push(m, 20, 0.5);
	ws_metric_summarize(m);
	assert_int_equal(m->n, 3);
	assert_int_equal(m->sum.n, 2);
	assert_float_equal(m->sum.mean, 15.0, 1e-12);
	assert_float_equal(m->sum.running, 0.75, 1e-12);
	ws_metric_set_release(&s);
}

static void test_running_backfill(void **state)
{
	/* Runs before the first multiplexed one were counted the whole time. */
	struct ws_metric_set s = { 0 };
	struct ws_metric *m = ws_metric_set_get(&s, "cycles", 0);

	(void)state;
	for (int i = 0; i < 20; i++)
		ws_metric_push(m, i, i == 15 ? 0.5 : -1);
	assert_non_null(m->running);
	assert_float_equal(m->running[0], 1.0, 0);
	assert_float_equal(m->running[15], 0.5, 0);
	assert_float_equal(m->running[19], 1.0, 0);
	ws_metric_set_release(&s);
}

static void test_exact_only_when_simulated_and_constant(void **state)
{
	struct ws_metric_set s = { 0 };
	struct ws_metric *sim = ws_metric_set_get(&s, "instructions", WS_M_SIMULATED);
	struct ws_metric *nat;

	(void)state;
	for (int i = 0; i < 3; i++)
		ws_metric_push(sim, 1000, -1);
	nat = ws_metric_set_get(&s, "page-faults", 0);
	sim = ws_metric_set_find(&s, "instructions");
	for (int i = 0; i < 3; i++)
		ws_metric_push(nat, 7, -1);
	ws_metric_summarize(sim);
	ws_metric_summarize(nat);
	assert_true(sim->flags & WS_M_EXACT);
	assert_false(nat->flags & WS_M_EXACT);
	/* within 0.1%: still exact (timing-dependent code moves a real program's count a little) */
	ws_metric_push(sim, 1001, -1);
	ws_metric_summarize(sim);
	assert_true(sim->flags & WS_M_EXACT);
	ws_metric_push(sim, 1002, -1);
	ws_metric_summarize(sim);
	assert_false(sim->flags & WS_M_EXACT);
	ws_metric_set_release(&s);
}

static void test_derive(void **state)
{
	struct ws_metric_set s = { 0 };
	struct ws_metric *m;

	(void)state;
	m = ws_metric_set_get(&s, "instructions", 0);
	ws_metric_push(m, 2000, -1);
	ws_metric_push(m, 3000, -1);
	m = ws_metric_set_get(&s, "cycles", 0);
	ws_metric_push(m, 1000, -1);
	ws_metric_push(m, 0, -1);
	m = ws_metric_set_get(&s, "branch-misses", WS_M_SIMULATED);
	ws_metric_push(m, 10, -1);
	ws_metric_push(m, 12, -1);
	ws_metric_set_derive(&s);
	m = ws_metric_set_find(&s, "ipc");
	assert_non_null(m);
	assert_int_equal(m->n, 2);
	assert_float_equal(m->samples[0], 2.0, 1e-12);
	/* A zero denominator is "not counted", never a number. */
	assert_true(isnan(m->samples[1]));
	/* Simulated misses over measured instructions: no MPKI. */
	assert_null(ws_metric_set_find(&s, "branch-mpki"));
	/* Deriving twice replaces, it does not append. */
	ws_metric_set_derive(&s);
	assert_int_equal(ws_metric_set_find(&s, "ipc")->n, 2);
	ws_metric_set_release(&s);
}

static void test_unsupported_drops_samples(void **state)
{
	struct ws_metric_set s = { 0 };
	struct ws_metric *m = ws_metric_set_get(&s, "cycles", 0);

	(void)state;
	ws_metric_push(m, 1, -1);
	ws_metric_set_unsupported(&s, "cycles", "no PMU");
	m = ws_metric_set_find(&s, "cycles");
	assert_true(m->flags & WS_M_UNSUPPORTED);
	assert_int_equal(m->n, 0);
	assert_string_equal(m->reason, "no PMU");
	ws_metric_summarize(m);
	assert_int_equal(m->sum.n, 0);
	ws_metric_set_release(&s);
}

static void test_sort_by_registry(void **state)
{
	struct ws_metric_set s = { 0 };

	(void)state;
	ws_metric_set_get(&s, "raw-event", 0);
	ws_metric_set_get(&s, "instructions", 0);
	ws_metric_set_get(&s, "wall-time", 0);
	ws_metric_set_sort(&s);
	assert_string_equal(s.v[0].name, "wall-time");
	assert_string_equal(s.v[1].name, "instructions");
	assert_string_equal(s.v[2].name, "raw-event");
	ws_metric_set_release(&s);
}

static void test_verdict_names(void **state)
{
	(void)state;
	assert_string_equal(ws_verdict_name(WS_VERDICT_SLOWER), "slower");
	assert_int_equal(ws_verdict_parse("changed"), WS_VERDICT_CHANGED);
	assert_int_equal(ws_verdict_parse("bogus"), WS_VERDICT_NONE);
}

/* One function of `v` with a sampled share of `share`. */
static void add_function(struct ws_variant *v, const char *name, double share)
{
	struct ws_group *g = ws_group_list_get(&v->functions, name, NULL);

	ws_metric_push(ws_metric_set_get(&g->metrics, "share", 0), share, -1);
}

static void test_prune_functions(void **state)
{
	/* Kept when any variant gives it at least the threshold; dropped from every variant otherwise. */
	struct ws_result r;
	struct ws_variant *a, *b;

	(void)state;
	ws_result_init(&r);
	a = ws_result_add_variant(&r, "a", "a");
	b = ws_result_add_variant(&r, "b", "b");
	add_function(a, "small", 0.001);
	add_function(a, "big", 0.5);
	add_function(a, "grows", 0.001);
	add_function(b, "big", 0.5);
	add_function(b, "only-b", 0.002);
	add_function(b, "small", 0.004);
	add_function(b, "grows", 0.01);
	ws_result_summarize(&r);
	ws_result_prune_functions(&r, 0.005);
	a = &r.variants[0];
	b = &r.variants[1];
	assert_int_equal(a->functions.n, 2);
	assert_string_equal(a->functions.v[0].name, "big");
	assert_string_equal(a->functions.v[1].name, "grows");
	assert_int_equal(b->functions.n, 2);
	assert_string_equal(b->functions.v[0].name, "big");
	assert_string_equal(b->functions.v[1].name, "grows");
	ws_result_release(&r);
}

/* A long list is found through its index, which pruning (entries removed, the rest moved) keeps true. */
static void test_long_list_find(void **state)
{
	struct ws_result r;
	struct ws_variant *a;
	char name[32];

	(void)state;
	ws_result_init(&r);
	a = ws_result_add_variant(&r, "a", "a");
	for (int i = 0; i < 500; i++) {
		snprintf(name, sizeof(name), "fn%d", i);
		/* every third one under the threshold */
		add_function(a, name, i % 3 ? 0.01 : 0.001);
	}
	assert_int_equal(a->functions.n, 500);
	for (int i = 0; i < 500; i++) {
		snprintf(name, sizeof(name), "fn%d", i);
		assert_ptr_equal(ws_group_list_find(&a->functions, name), &a->functions.v[i]);
		/* got again, not added twice */
		assert_ptr_equal(ws_group_list_get(&a->functions, name, NULL), &a->functions.v[i]);
	}
	assert_null(ws_group_list_find(&a->functions, "fn500"));
	ws_result_summarize(&r);
	ws_result_prune_functions(&r, 0.005);
	assert_int_equal(a->functions.n, 333);
	for (int i = 0; i < 500; i++) {
		struct ws_group *g;

		snprintf(name, sizeof(name), "fn%d", i);
		g = ws_group_list_find(&a->functions, name);
		if (i % 3 == 0) {
			assert_null(g);
		} else {
			assert_non_null(g);
			assert_string_equal(g->name, name);
		}
	}
	/* and grows again after that */
	assert_string_equal(ws_group_list_get(&a->functions, "new", NULL)->name, "new");
	assert_non_null(ws_group_list_find(&a->functions, "new"));
	assert_non_null(ws_group_list_find(&a->functions, "fn499"));
	ws_result_release(&r);
}

static void add_caller(struct ws_group *fn, const char *name, double instructions)
{
	struct ws_group *c = ws_group_list_get(&fn->callers, name, "/bin/prog");

	ws_metric_push(ws_metric_set_get(&c->metrics, "instructions", WS_M_SIMULATED), instructions, -1);
}

static void test_prune_callers(void **state)
{
	/* A caller stays when it makes at least the threshold of its function's inclusive count somewhere. */
	struct ws_result r;
	struct ws_variant *v[2];
	struct ws_group *f;

	(void)state;
	ws_result_init(&r);
	ws_result_add_variant(&r, "a", "a");
	ws_result_add_variant(&r, "b", "b");
	for (int i = 0; i < 2; i++) {
		v[i] = &r.variants[i];
		ws_metric_push(ws_metric_set_get(&v[i]->metrics, "instructions", WS_M_SIMULATED), 1000, -1);
		f = ws_group_list_get(&v[i]->functions, "memcpy", "/lib/libc.so.6");
		ws_metric_push(ws_metric_set_get(&f->metrics, "instructions", WS_M_SIMULATED), 1000, -1);
		ws_metric_push(ws_metric_set_get(&f->inclusive, "instructions", WS_M_SIMULATED), 1000, -1);
		add_caller(f, "big", 990);
		add_caller(f, "tiny", 4);
		add_caller(f, i ? "grows" : "shrinks", i ? 6 : 2);
	}
	add_caller(ws_group_list_find(&v[0]->functions, "memcpy"), "grows", 1);
	ws_result_summarize(&r);
	ws_result_prune_functions(&r, 0.005);
	f = ws_group_list_find(&r.variants[0].functions, "memcpy");
	assert_int_equal(f->callers.n, 2);
	assert_non_null(ws_group_list_find(&f->callers, "big"));
	assert_non_null(ws_group_list_find(&f->callers, "grows"));
	f = ws_group_list_find(&r.variants[1].functions, "memcpy");
	assert_int_equal(f->callers.n, 2);
	assert_float_equal(ws_caller_share(f, ws_group_list_find(&f->callers, "grows")), 0.006, 1e-12);
	ws_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_values),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_derive_core_subset),
		cmocka_unit_test(test_median_ci_n10),
		cmocka_unit_test(test_nan_is_not_counted),
		cmocka_unit_test(test_running_backfill),
		cmocka_unit_test(test_exact_only_when_simulated_and_constant),
		cmocka_unit_test(test_derive),
		cmocka_unit_test(test_unsupported_drops_samples),
		cmocka_unit_test(test_sort_by_registry),
		cmocka_unit_test(test_verdict_names),
		cmocka_unit_test(test_prune_functions),
		cmocka_unit_test(test_prune_callers),
		cmocka_unit_test(test_long_list_find),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
