/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-event.c - unit tests of event parsing: generic names, modifiers, raw codes, libpfm4, metrics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/log.h"
#include "event/event.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char last_error[1024];

static void capture(enum ws_log_level level, const char *msg, void *data)
{
	(void)data;
	if (level == WS_LOG_ERROR)
		snprintf(last_error, sizeof(last_error), "%s", msg);
}

static int setup(void **state)
{
	(void)state;
	ws_log_set(capture, NULL);
	last_error[0] = '\0';
	return 0;
}

static void test_generic_hardware(void **state)
{
	struct ws_event ev;

	(void)state;
	assert_int_equal(ws_event_parse("cycles", &ev), 0);
	assert_string_equal(ev.name, "cycles");
	assert_int_equal(ev.kind, WS_EVENT_PERF);
	assert_int_equal(ev.attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(ev.attr.config, PERF_COUNT_HW_CPU_CYCLES);
	assert_true(ev.hardware);
	assert_false(ev.simulable); /* the simulator reports estimated-cycles, not cycles */
	free(ev.name);

	/* perf's alias resolves to the canonical name */
	assert_int_equal(ws_event_parse("cpu-cycles", &ev), 0);
	assert_string_equal(ev.name, "cycles");
	free(ev.name);

	assert_int_equal(ws_event_parse("instructions", &ev), 0);
	assert_true(ev.simulable);
	free(ev.name);
}

static void test_cache_events(void **state)
{
	struct ws_event ev;

	(void)state;
	assert_int_equal(ws_event_parse("L1-dcache-load-misses", &ev), 0);
	assert_int_equal(ev.attr.type, PERF_TYPE_HW_CACHE);
	assert_int_equal(ev.attr.config, PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
						 (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
	assert_true(ev.simulable);
	free(ev.name);
	assert_int_equal(ws_event_parse("LLC-loads", &ev), 0);
	assert_int_equal(ev.attr.config, PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
						 (PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16));
	free(ev.name);
	assert_int_equal(ws_event_parse("dTLB-store-misses", &ev), 0);
	assert_int_equal(ev.attr.config, PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_WRITE << 8) |
						 (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
	assert_false(ev.simulable);
	free(ev.name);
}

static void test_software(void **state)
{
	struct ws_event ev;

	(void)state;
	assert_int_equal(ws_event_parse("task-clock", &ev), 0);
	assert_int_equal(ev.attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(ev.attr.config, PERF_COUNT_SW_TASK_CLOCK);
	assert_false(ev.hardware);
	free(ev.name);
	assert_int_equal(ws_event_parse("cs", &ev), 0);
	assert_string_equal(ev.name, "context-switches");
	free(ev.name);
}

static void test_modifiers(void **state)
{
	struct ws_event ev;

	(void)state;
	assert_int_equal(ws_event_parse("cycles:u", &ev), 0);
	assert_string_equal(ev.name, "cycles:u");
	assert_true(ev.attr.exclude_kernel);
	assert_false(ev.attr.exclude_user);
	free(ev.name);
	assert_int_equal(ws_event_parse("instructions:k", &ev), 0);
	assert_true(ev.attr.exclude_user);
	assert_false(ev.attr.exclude_kernel);
	assert_false(ev.simulable); /* kernel-only instructions are not what the simulator counts */
	free(ev.name);
	assert_int_equal(ws_event_parse("cycles:uk", &ev), 0);
	assert_false(ev.attr.exclude_user);
	assert_false(ev.attr.exclude_kernel);
	free(ev.name);
	assert_int_equal(ws_event_parse("cycles:x", &ev), -EINVAL);
	assert_non_null(strstr(last_error, ":u (user)"));
	assert_int_equal(ws_event_parse("wall-time:u", &ev), -EINVAL);
}

static void test_raw(void **state)
{
	struct ws_event ev;

	(void)state;
	assert_int_equal(ws_event_parse("r01c2", &ev), 0);
	assert_int_equal(ev.attr.type, PERF_TYPE_RAW);
	assert_int_equal(ev.attr.config, 0x01c2);
	assert_true(ev.hardware);
	free(ev.name);
	assert_int_equal(ws_event_parse("r5300c0:u", &ev), 0);
	assert_int_equal(ev.attr.config, 0x5300c0);
	assert_true(ev.attr.exclude_kernel);
	free(ev.name);
}

static void test_pfm(void **state)
{
	struct ws_event ev;

	(void)state;
	/* libpfm4's "perf" PMU is present on every machine, PMU or not. */
	assert_int_equal(ws_event_parse("perf::PERF_COUNT_HW_INSTRUCTIONS", &ev), 0);
	assert_int_equal(ev.kind, WS_EVENT_PERF);
	assert_int_equal(ev.attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(ev.attr.config, PERF_COUNT_HW_INSTRUCTIONS);
	free(ev.name);
	assert_int_equal(ws_event_parse("perf::NO_SUCH_EVENT_XYZ", &ev), -ENOENT);
}

static void test_metrics_and_unknown(void **state)
{
	struct ws_event ev;

	(void)state;
	assert_int_equal(ws_event_parse("wall-time", &ev), 0);
	assert_int_equal(ev.kind, WS_EVENT_RUSAGE);
	free(ev.name);
	assert_int_equal(ws_event_parse("L2-misses", &ev), 0);
	assert_int_equal(ev.kind, WS_EVENT_SIM);
	assert_true(ev.simulable);
	free(ev.name);
	assert_int_equal(ws_event_parse("ipc", &ev), 0);
	assert_int_equal(ev.kind, WS_EVENT_DERIVED);
	free(ev.name);
	last_error[0] = '\0';
	assert_int_equal(ws_event_parse("cyclse", &ev), -ENOENT);
	assert_non_null(strstr(last_error, "did you mean cycles"));
	/* each suggestion appears once */
	assert_null(strstr(strstr(last_error, "cycles") + 1, "cycles, cycles"));
}

static void test_list(void **state)
{
	struct ws_event_list l = { 0 };

	(void)state;
	assert_int_equal(ws_event_list_parse(&l, "task-clock, ipc,task-clock"), 0);
	/* ipc pulls in its parts; duplicates are dropped */
	assert_int_equal(l.n, 4);
	assert_non_null(ws_event_list_find(&l, "instructions"));
	assert_non_null(ws_event_list_find(&l, "cycles"));
	assert_int_equal(ws_event_list_parse(&l, "task-clock,bogus-event"), -ENOENT);
	ws_event_list_release(&l);

	ws_event_list_default(&l);
	assert_non_null(ws_event_list_find(&l, "wall-time"));
	assert_non_null(ws_event_list_find(&l, "LLC-load-misses"));
	assert_null(ws_event_list_find(&l, "L2-misses")); /* simulator-only: not in the default set */
	assert_int_equal(l.n, 17);
	ws_event_list_release(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_generic_hardware, setup), cmocka_unit_test_setup(test_cache_events, setup),
		cmocka_unit_test_setup(test_software, setup),         cmocka_unit_test_setup(test_modifiers, setup),
		cmocka_unit_test_setup(test_raw, setup),              cmocka_unit_test_setup(test_pfm, setup),
		cmocka_unit_test_setup(test_metrics_and_unknown, setup), cmocka_unit_test_setup(test_list, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
