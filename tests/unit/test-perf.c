/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-perf.c - the perf backend: scaling arithmetic, errno triage, and every errno path via fault injection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "backend/backend.h"
#include "backend/runner.h"
#include "core/log.h"
#include "event/event.h"
#include "perf/perf.h"
#include "perf/profile.h"
#include "result/result.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char last_msg[2048];
static char all_msgs[8192];

static void capture(enum ws_log_level level, const char *msg, void *data)
{
	size_t n = strlen(all_msgs);

	(void)data;
	if (level <= WS_LOG_WARN)
		snprintf(last_msg, sizeof(last_msg), "%s", msg);
	snprintf(all_msgs + n, sizeof(all_msgs) - n, "%s\n", msg);
}

static int setup(void **state)
{
	(void)state;
	ws_log_set(capture, NULL);
	last_msg[0] = '\0';
	all_msgs[0] = '\0';
	ws_perf_inject(NULL, 0);
	unsetenv("WHYSLOW_TEST_PERF_FAULTS");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ws_perf_inject(NULL, 0);
	return 0;
}

static void test_scale(void **state)
{
	double v, share;

	(void)state;
	assert_true(ws_perf_scale(1000, 100, 100, &v, &share));
	assert_float_equal(v, 1000, 0);
	assert_float_equal(share, 1.0, 0);
	/* counted a quarter of the time: extrapolate four times */
	assert_true(ws_perf_scale(1000, 400, 100, &v, &share));
	assert_float_equal(v, 4000, 1e-9);
	assert_float_equal(share, 0.25, 1e-12);
	/* never ran: not counted, never 0 */
	assert_false(ws_perf_scale(0, 400, 0, &v, &share));
	assert_true(isnan(v));
	assert_false(ws_perf_scale(0, 0, 0, &v, &share));
	assert_true(isnan(v));
}

static void test_triage(void **state)
{
	struct perf_event_attr hw = { .type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_CPU_CYCLES };
	struct perf_event_attr sw = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK };
	static const int unsupported[] = { ENOENT, ENODEV, EOPNOTSUPP, EINVAL, EBUSY, E2BIG };
	char *reason;

	(void)state;
	for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++) {
		assert_int_equal(ws_perf_triage(unsupported[i], &hw, &reason), WS_PERF_UNSUPPORTED);
		assert_true(strlen(reason) > 10);
		free(reason);
	}
	assert_int_equal(ws_perf_triage(ENOENT, &sw, &reason), WS_PERF_UNSUPPORTED);
	assert_non_null(strstr(reason, "kernel"));
	free(reason);
	assert_int_equal(ws_perf_triage(EBUSY, &hw, &reason), WS_PERF_UNSUPPORTED);
	assert_non_null(strstr(reason, "nmi_watchdog"));
	free(reason);
	assert_int_equal(ws_perf_triage(EINTR, &hw, &reason), WS_PERF_RETRY);
	free(reason);
	assert_int_equal(ws_perf_triage(EMFILE, &hw, &reason), WS_PERF_FATAL);
	assert_non_null(strstr(reason, "ulimit -n"));
	free(reason);
	assert_int_equal(ws_perf_triage(ENFILE, &hw, &reason), WS_PERF_FATAL);
	free(reason);
	/* EACCES names the exact sysctl, whatever the paranoid level, unless it cannot be read */
	assert_int_equal(ws_perf_triage(EACCES, &hw, &reason), WS_PERF_DENIED);
	if (ws_perf_paranoid() != INT32_MIN)
		assert_true(strstr(reason, "sysctl") || strstr(reason, "CAP_PERFMON"));
	free(reason);
	assert_int_equal(ws_perf_triage(EPERM, &hw, &reason), WS_PERF_DENIED);
	free(reason);
}

/* A perf backend set up on an event list, the fault injector reading `env` while it opens them. */
struct fx {
	struct ws_event_list ev;
	struct ws_claim *claims;
	struct ws_backend *be;
	struct ws_variant v;
	int ret; /* what setup returned */
};

static void fx_setup(struct fx *fx, const char *list, const char *env)
{
	memset(fx, 0, sizeof(*fx));
	fx->be = ws_backend_new(ws_backend_find("perf"), NULL);
	assert_int_equal(ws_event_list_parse(&fx->ev, list), 0);
	fx->claims = calloc(fx->ev.n, sizeof(*fx->claims));
	if (env)
		setenv("WHYSLOW_TEST_PERF_FAULTS", env, 1);
	fx->ret = fx->be->ops->setup(fx->be, &fx->ev, fx->claims);
	unsetenv("WHYSLOW_TEST_PERF_FAULTS");
}

static void fx_release(struct fx *fx)
{
	ws_metric_set_release(&fx->v.metrics);
	ws_backend_free(fx->be);
	for (size_t i = 0; i < fx->ev.n; i++)
		free(fx->claims[i].reason);
	free(fx->claims);
	ws_event_list_release(&fx->ev);
}

static void test_open_errors_mark_unsupported(void **state)
{
	struct fx fx;

	(void)state;
	fx_setup(&fx, "task-clock,page-faults,context-switches,cpu-migrations",
		 "page-faults=ENOENT,context-switches=EOPNOTSUPP,cpu-migrations=EACCES");
	assert_int_equal(fx.ret, 0);
	assert_true(fx.claims[0].claimed);
	assert_false(fx.claims[1].claimed);
	assert_non_null(strstr(fx.claims[1].reason, "not supported"));
	assert_false(fx.claims[2].claimed);
	/* EACCES: user space only is tried first; a second EACCES names the sysctl */
	assert_false(fx.claims[3].claimed);
	assert_true(strstr(fx.claims[3].reason, "sysctl") || strstr(fx.claims[3].reason, "CAP_PERFMON") ||
		    strstr(fx.claims[3].reason, "security"));
	fx_release(&fx);
}

static void test_emfile_is_fatal(void **state)
{
	struct fx fx;

	(void)state;
	fx_setup(&fx, "task-clock,page-faults", "page-faults=EMFILE");
	assert_int_equal(fx.ret, -EMFILE);
	assert_non_null(strstr(last_msg, "ulimit -n"));
	fx_release(&fx);
}

static void test_eintr_is_retried(void **state)
{
	struct fx fx;

	(void)state;
	fx_setup(&fx, "task-clock", "task-clock=EINTR:3");
	assert_int_equal(fx.ret, 0);
	assert_true(fx.claims[0].claimed);
	fx_release(&fx);
}

/* Run `argv` under the fixture's backend as its variant's run `run`. */
static void run_under(struct fx *fx, size_t run, char **argv)
{
	struct ws_exec ex = { .argv = argv };
	struct ws_run_outcome out;

	assert_int_equal(fx->be->ops->arm(fx->be), 0);
	assert_int_equal(ws_run(&ex, NULL, &out), 0);
	assert_int_equal(out.exit_code, 0);
	assert_int_equal(fx->be->ops->collect(fx->be, &out, &fx->v, run), 0);
}

static void test_multiplexing_is_scaled(void **state)
{
	struct fx fx;
	char *argv[] = { "sh", "-c", "i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done", NULL };
	struct ws_metric *full, *half, *never;

	(void)state;
	/* three task-clock-like counters: one counted all the time, one half, one never */
	fx_setup(&fx, "task-clock,cpu-clock,page-faults", "cpu-clock=share:0.5,page-faults=never");
	assert_int_equal(fx.ret, 0);
	/* the faults set up through the environment stay in force for the runs */
	run_under(&fx, 0, argv);
	full = ws_metric_set_find(&fx.v.metrics, "task-clock");
	half = ws_metric_set_find(&fx.v.metrics, "cpu-clock");
	never = ws_metric_set_find(&fx.v.metrics, "page-faults");
	assert_non_null(full);
	assert_non_null(half);
	assert_non_null(never);
	assert_float_equal(full->running[0], 1.0, 0);
	assert_float_equal(half->running[0], 0.5, 0.01);
	/* scaled by 1/share: cpu-clock's scaled value is about twice its true value, task-clock's */
	assert_true(half->samples[0] > 1.5 * full->samples[0]);
	assert_true(half->samples[0] < 2.6 * full->samples[0]);
	/* never counted: NAN, reported as "not counted", never 0 */
	assert_true(isnan(never->samples[0]));
	assert_float_equal(never->running[0], 0.0, 0);
	fx_release(&fx);
}

static void test_hardware_group_split(void **state)
{
	/*
	 * Hardware events, faked by software counters so the group code runs without a PMU: when the first
	 * run finds a group never scheduled, the next run splits it, and every event is counted again.
	 */
	struct fx fx;
	char *argv[] = { "true", NULL };
	const char *faults = "cycles=fake,instructions=fake,branches=fake,branch-misses=fake";
	struct ws_metric *m;

	(void)state;
	fx_setup(&fx, "cycles,instructions,branches,branch-misses", faults);
	assert_int_equal(fx.ret, 0);
	for (size_t i = 0; i < fx.ev.n; i++)
		assert_true(fx.claims[i].claimed);
	/* first run: branches' group reads as never scheduled */
	{
		struct ws_perf_fault f[] = {
			{ .event = "cycles", .fake = true, .share = -1 },
			{ .event = "instructions", .fake = true, .share = -1 },
			{ .event = "branches", .fake = true, .share = 0 },
			{ .event = "branch-misses", .fake = true, .share = -1 },
		};

		ws_perf_inject(f, 4);
	}
	run_under(&fx, 0, argv);
	m = ws_metric_set_find(&fx.v.metrics, "branches");
	assert_true(isnan(m->samples[0]));
	m = ws_metric_set_find(&fx.v.metrics, "cycles");
	assert_false(isnan(m->samples[0]));
	assert_null(strstr(all_msgs, "split hardware groups"));
	/* second run: counted, after the split */
	{
		struct ws_perf_fault f[] = {
			{ .event = "cycles", .fake = true, .share = -1 },
			{ .event = "instructions", .fake = true, .share = -1 },
			{ .event = "branches", .fake = true, .share = -1 },
			{ .event = "branch-misses", .fake = true, .share = -1 },
		};

		ws_perf_inject(f, 4);
	}
	run_under(&fx, 1, argv);
	assert_non_null(strstr(all_msgs, "split hardware groups"));
	m = ws_metric_set_find(&fx.v.metrics, "branches");
	assert_int_equal(m->n, 2);
	assert_false(isnan(m->samples[1]));
	assert_true(m->samples[1] > 0);
	fx_release(&fx);
}

static void test_real_software_counts(void **state)
{
	struct fx fx;
	char *argv[] = { "true", NULL };
	struct ws_metric *m;

	(void)state;
	fx_setup(&fx, "task-clock,page-faults", NULL);
	assert_int_equal(fx.ret, 0);
	run_under(&fx, 0, argv);
	m = ws_metric_set_find(&fx.v.metrics, "task-clock");
	assert_true(m->samples[0] > 0);
	m = ws_metric_set_find(&fx.v.metrics, "page-faults");
	assert_true(m->samples[0] > 0);
	fx_release(&fx);
}

static void test_member_that_does_not_fit_counts_alone(void **state)
{
	/* A member the PMU refuses in its group is counted alone, and its group split for the next run. */
	struct fx fx;
	char *argv[] = { "true", NULL };
	struct ws_metric *m;

	(void)state;
	fx_setup(&fx, "cycles,instructions", "cycles=fake,instructions=fake,instructions=ingroup");
	assert_int_equal(fx.ret, 0);
	assert_true(fx.claims[0].claimed && fx.claims[1].claimed);
	run_under(&fx, 0, argv);
	m = ws_metric_set_find(&fx.v.metrics, "instructions");
	assert_false(isnan(m->samples[0]));
	assert_non_null(strstr(all_msgs, "did not fit its group"));
	run_under(&fx, 1, argv);
	assert_non_null(strstr(all_msgs, "split hardware groups"));
	assert_false(isnan(ws_metric_set_find(&fx.v.metrics, "instructions")->samples[1]));
	fx_release(&fx);
}

static void test_kernel_only_events_are_not_read_as_zero(void **state)
{
	/* context-switches counted in user space only reads 0: unsupported, with the sysctl, instead. */
	struct fx fx;

	(void)state;
	fx_setup(&fx, "context-switches,page-faults", "context-switches=EACCES,page-faults=EACCES");
	assert_int_equal(fx.ret, 0);
	assert_false(fx.claims[0].claimed);
	assert_non_null(strstr(fx.claims[0].reason, "counted in the kernel"));
	fx_release(&fx);
}

static void test_env_parse_errors(void **state)
{
	(void)state;
	setenv("WHYSLOW_TEST_PERF_FAULTS", "cycles", 1);
	assert_int_equal(ws_perf_inject_env(), -1);
	setenv("WHYSLOW_TEST_PERF_FAULTS", "cycles=EWHATEVER", 1);
	assert_int_equal(ws_perf_inject_env(), -1);
	unsetenv("WHYSLOW_TEST_PERF_FAULTS");
}

/* The samples of metric `name` of group `group`, as a string ("nan" where not counted), for assert_string_equal. */
static const char *samples_of(const struct ws_group_list *l, const char *group, const char *name)
{
	static char buf[256];
	const struct ws_group *g = ws_group_list_find(l, group);
	const struct ws_metric *m = g ? ws_metric_set_find(&g->metrics, name) : NULL;
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; m && i < m->n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%g", i ? " " : "", m->samples[i]);
	return buf;
}

/* Push run `run`'s `value` of metric `name` of group `group` in l. */
static void gpush(struct ws_group_fills *f, struct ws_group_list *l, const char *group, const char *name, size_t run,
		  double value)
{
	ws_group_push(f, l, ws_group_list_get(l, group, NULL), name, 0, run, value, -1);
}

/*
 * Regions: a run with nothing read (no region file) is not counted for any region, even one first seen
 * later; a run read without a region counted 0 there; a region gone from the last runs is padded too.
 */
static void test_group_fills(void **state)
{
	struct ws_group_fills f = WS_GROUP_FILLS_INIT;
	struct ws_result r;
	struct ws_group_list *l;

	(void)state;
	ws_result_init(&r);
	l = &ws_result_add_variant(&r, "v", NULL)->regions;
	ws_group_list_pad(&f, l, NULL, 0, NAN); /* run 0: killed before it wrote a file */
	gpush(&f, l, "a", "entries", 1, 5);
	ws_group_list_pad(&f, l, NULL, 1, 0);
	gpush(&f, l, "b", "entries", 2, 3);
	gpush(&f, l, "b", "wall-time", 2, 0.5);
	ws_group_list_pad(&f, l, NULL, 2, 0);
	gpush(&f, l, "a", "entries", 3, 5);
	ws_group_list_pad(&f, l, NULL, 3, 0);
	assert_string_equal(samples_of(l, "a", "entries"), "nan 5 0 5");
	assert_string_equal(samples_of(l, "b", "entries"), "nan 0 3 0");
	assert_string_equal(samples_of(l, "b", "wall-time"), "nan 0 0.5 0");
	/* Run 4 failed before its files were read; run 5 has only "c". */
	gpush(&f, l, "c", "entries", 5, 1);
	ws_group_list_pad(&f, l, NULL, 5, 0);
	assert_string_equal(samples_of(l, "a", "entries"), "nan 5 0 5 nan 0");
	assert_string_equal(samples_of(l, "c", "entries"), "nan 0 0 0 nan 1");
	ws_group_fills_release(&f);
	ws_result_release(&r);
}

/* Functions: a second event without samples in a run leaves its shares uncounted there, not the first's. */
static void test_group_fills_by_metric(void **state)
{
	struct ws_group_fills f = WS_GROUP_FILLS_INIT;
	struct ws_result r;
	struct ws_group_list *l;

	(void)state;
	ws_result_init(&r);
	l = &ws_result_add_variant(&r, "v", NULL)->functions;
	gpush(&f, l, "f", "share", 0, 1);
	gpush(&f, l, "f", "x-share", 0, 1);
	ws_group_list_pad(&f, l, "x-share", 0, 0);
	ws_group_list_pad(&f, l, NULL, 0, 0);
	gpush(&f, l, "g", "share", 1, 1);
	gpush(&f, l, "g", "x-share", 1, NAN);
	ws_group_list_pad(&f, l, "x-share", 1, NAN);
	ws_group_list_pad(&f, l, NULL, 1, 0);
	gpush(&f, l, "h", "share", 2, 1);
	gpush(&f, l, "h", "x-share", 2, 1);
	ws_group_list_pad(&f, l, "x-share", 2, 0);
	ws_group_list_pad(&f, l, NULL, 2, 0);
	/* Run 3 had no samples at all. */
	ws_group_list_pad(&f, l, "x-share", 3, NAN);
	ws_group_list_pad(&f, l, NULL, 3, NAN);
	assert_string_equal(samples_of(l, "f", "share"), "1 0 0 nan");
	assert_string_equal(samples_of(l, "f", "x-share"), "1 nan 0 nan");
	assert_string_equal(samples_of(l, "g", "share"), "0 1 0 nan");
	assert_string_equal(samples_of(l, "g", "x-share"), "0 nan 0 nan");
	assert_string_equal(samples_of(l, "h", "share"), "0 0 1 nan");
	assert_string_equal(samples_of(l, "h", "x-share"), "0 nan 1 nan");
	ws_group_fills_release(&f);
	ws_result_release(&r);
}

/* The profile's CPUs, parsed by the runner's CPU-list parser: the online ones, in order. */
static void test_online_cpus(void **state)
{
	int *cpus = NULL;
	size_t n = ws_profile_online_cpus(&cpus);

	(void)state;
	assert_int_equal(n, (size_t)sysconf(_SC_NPROCESSORS_ONLN));
	for (size_t i = 1; i < n; i++)
		assert_true(cpus[i] > cpus[i - 1]);
	free(cpus);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_scale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_triage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_errors_mark_unsupported, setup, teardown),
		cmocka_unit_test_setup_teardown(test_emfile_is_fatal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eintr_is_retried, setup, teardown),
		cmocka_unit_test_setup_teardown(test_multiplexing_is_scaled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hardware_group_split, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_software_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_member_that_does_not_fit_counts_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_only_events_are_not_read_as_zero, setup, teardown),
		cmocka_unit_test_setup_teardown(test_env_parse_errors, setup, teardown),
		cmocka_unit_test(test_group_fills),
		cmocka_unit_test(test_group_fills_by_metric),
		cmocka_unit_test(test_online_cpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
