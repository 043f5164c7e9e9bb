/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-topdown.c - level-1 top-down arithmetic on hand-made counts, for both methods. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/util.h"
#include "event/pfm.h"
#include "perf/topdown.h"
#include "result/derive.h"
#include "result/result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void put(struct ws_metric_set *s, const char *name, double a, double b)
{
	struct ws_metric *m = ws_metric_set_get(s, name, 0);

	ws_metric_push(m, a, -1);
	ws_metric_push(m, b, -1);
}

static double frac(struct ws_metric_set *s, int k, size_t run)
{
	return ws_metric_set_find(s, ws_topdown_metrics[k])->samples[run];
}

/*
 * Each run's four fractions, in ws_topdown_metrics' order (frontend, bad speculation, backend, retiring), are
 * `want`'s; NAN where the test does not look.
 */
static void check_fractions(struct ws_metric_set *s, const double want[][4], size_t runs)
{
	for (size_t run = 0; run < runs; run++)
		for (int k = 0; k < 4; k++)
			if (!isnan(want[run][k]))
				assert_float_equal(frac(s, k, run), want[run][k], 1e-12);
}

static void test_intel(void **state)
{
	/* Each metric is read in slots: the fraction is metric / slots. */
	static const double want[][4] = { { 0.10, 0.05, 0.45, 0.40 }, { 0.20, NAN, NAN, 0.25 } };
	struct ws_metric_set s = { 0 };

	(void)state;
	put(&s, "td-slots", 1000, 2000);
	put(&s, "td-fe-bound", 100, 400);
	put(&s, "td-bad-spec", 50, 100);
	put(&s, "td-be-bound", 450, 1000);
	put(&s, "td-retiring", 400, 500);
	ws_metric_set_derive(&s);
	check_fractions(&s, want, ARRAY_SIZE(want));
	assert_true(ws_metric_set_find(&s, "topdown-retiring")->flags & WS_M_DERIVED);
	/* deriving again replaces */
	ws_metric_set_derive(&s);
	assert_int_equal(ws_metric_set_find(&s, "topdown-retiring")->n, 2);
	ws_metric_set_release(&s);
}

static void test_zen4(void **state)
{
	/*
	 * 6 slots a cycle: 1000 cycles are 6000 slots. frontend 600/6000, backend 1800/6000, retiring
	 * 3000/6000, bad speculation (3600 dispatched - 3000 retired) / 6000.
	 */
	static const double want[][4] = { { 0.10, 0.10, 0.30, 0.50 }, { NAN, 0.0, NAN, NAN } };
	struct ws_metric_set s = { 0 };

	(void)state;
	put(&s, "td-cycles", 1000, 1000);
	put(&s, "td-fe-no-ops", 600, 0);
	put(&s, "td-be-stalls", 1800, 3000);
	put(&s, "td-retired-ops", 3000, 3000);
	put(&s, "td-dispatched-ops", 3600, 3000);
	ws_metric_set_derive(&s);
	check_fractions(&s, want, ARRAY_SIZE(want));
	ws_metric_set_release(&s);
}

static void test_missing_input_derives_nothing(void **state)
{
	struct ws_metric_set s = { 0 };

	(void)state;
	put(&s, "td-cycles", 1000, 1000);
	put(&s, "td-fe-no-ops", 600, 0);
	ws_metric_set_derive(&s);
	assert_null(ws_metric_set_find(&s, "topdown-retiring"));
	/* a run that was not counted stays not counted */
	put(&s, "td-be-stalls", NAN, 1);
	put(&s, "td-retired-ops", 3000, 3000);
	put(&s, "td-dispatched-ops", 3600, 3000);
	ws_metric_set_derive(&s);
	assert_true(isnan(frac(&s, 2, 0)));
	assert_false(isnan(frac(&s, 2, 1)));
	ws_metric_set_release(&s);
}

/* The backend opens Intel's four metric events under td-slots: exactly the ones the Intel method reads. */
static void test_slots_metrics(void **state)
{
	struct ws_event_list l = { 0 };
	char *reason = NULL;
	size_t members = 0;

	(void)state;
	setenv("WHYSLOW_TEST_TOPDOWN", "intel", 1);
	assert_int_equal(ws_topdown_add_events(&l, &reason), 0);
	unsetenv("WHYSLOW_TEST_TOPDOWN");
	assert_non_null(ws_event_list_find(&l, WS_TOPDOWN_SLOTS));
	for (size_t i = 0; i < l.n; i++)
		members += ws_topdown_is_slots_metric(l.v[i].name);
	assert_int_equal(members, 4);
	assert_true(ws_topdown_is_slots_metric("td-retiring"));
	assert_false(ws_topdown_is_slots_metric(WS_TOPDOWN_SLOTS));
	assert_false(ws_topdown_is_slots_metric("td-retired-ops"));
	assert_false(ws_topdown_is_slots_metric("cycles"));
	free(reason);
	ws_event_list_release(&l);
}

/*
 * On AMD, libpfm4 marks no PMU as the default one (is_dfl is for ix86arch alone), yet Zen 4 is found, with
 * its 6 counters, and its top-down method chosen. libpfm4's LIBPFM_FORCE_PMU makes its PMU present here,
 * whatever the CPU; this test is the first to start libpfm4 in this program.
 */
static void test_zen4_found_by_libpfm(void **state)
{
	struct ws_event_list l = { 0 };
	struct ws_pfm_pmu pmu;
	char *reason = NULL;

	(void)state;
	setenv("LIBPFM_FORCE_PMU", "amd64_fam19h_zen4", 1);
	unsetenv("WHYSLOW_TEST_TOPDOWN");
	/* Intel's sysfs events come first: this test is for a machine without them. */
	if (access("/sys/bus/event_source/devices/cpu/events/slots", F_OK) == 0 ||
	    access("/sys/bus/event_source/devices/cpu_core/events/slots", F_OK) == 0 || ws_pfm_init() < 0)
		skip();
	if (ws_pfm_encode("amd64_fam19h_zen4::RETIRED_OPS", true, false, &(struct perf_event_attr){ 0 },
			  sizeof(struct perf_event_attr), NULL) < 0)
		skip(); /* a libpfm4 older than Zen 4 */
	assert_int_equal(ws_pfm_core_pmu(&pmu), 0);
	assert_string_equal(pmu.name, "amd64_fam19h_zen4");
	assert_int_equal(pmu.counters, 6);
	free(pmu.name);
	free(pmu.desc);
	assert_int_equal(ws_topdown_add_events(&l, &reason), 0);
	assert_null(reason);
	assert_non_null(ws_event_list_find(&l, "td-retired-ops"));
	assert_null(ws_event_list_find(&l, WS_TOPDOWN_SLOTS));
	ws_event_list_release(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intel),
		cmocka_unit_test(test_zen4),
		cmocka_unit_test(test_missing_input_derives_nothing),
		cmocka_unit_test(test_slots_metrics),
		cmocka_unit_test(test_zen4_found_by_libpfm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
