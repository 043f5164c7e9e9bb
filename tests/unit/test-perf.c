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
#include "perf/topdown.h"
#include "result/result.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char last_msg[2048];
static char all_msgs[8192];
static char warnings[8192]; /* the messages of level WS_LOG_WARN */

static void capture(enum ws_log_level level, const char *msg, void *data)
{
	size_t n = strlen(all_msgs);

	(void)data;
	if (level <= WS_LOG_WARN)
		snprintf(last_msg, sizeof(last_msg), "%s", msg);
	snprintf(all_msgs + n, sizeof(all_msgs) - n, "%s\n", msg);
	n = strlen(warnings);
	if (level == WS_LOG_WARN)
		snprintf(warnings + n, sizeof(warnings) - n, "%s\n", msg);
}

static int setup(void **state)
{
	(void)state;
	ws_log_set(capture, NULL);
	last_msg[0] = '\0';
	all_msgs[0] = '\0';
	warnings[0] = '\0';
	ws_perf_inject(NULL, 0);
	ws_perf_inject_hybrid(false);
	unsetenv("WHYSLOW_TEST_PERF_FAULTS");
	unsetenv("WHYSLOW_TEST_HYBRID");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ws_perf_inject(NULL, 0);
	ws_perf_inject_hybrid(false);
	ws_perf_inject_mux_interval(0);
	unsetenv("WHYSLOW_TEST_HYBRID");
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

/* Set the backend up on fx->ev, as filled. */
static void fx_open(struct fx *fx, const char *env)
{
	fx->be = ws_backend_new(ws_backend_find("perf"), NULL);
	fx->claims = calloc(fx->ev.n, sizeof(*fx->claims));
	if (env)
		setenv("WHYSLOW_TEST_PERF_FAULTS", env, 1);
	fx->ret = fx->be->ops->setup(fx->be, &fx->ev, fx->claims);
	unsetenv("WHYSLOW_TEST_PERF_FAULTS");
}

static void fx_setup(struct fx *fx, const char *list, const char *env)
{
	memset(fx, 0, sizeof(*fx));
	assert_int_equal(ws_event_list_parse(&fx->ev, list), 0);
	fx_open(fx, env);
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

/* A command that runs long enough for task-clock to dwarf the start of its counters. */
static char *busy_argv[] = { "sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done", NULL };

static void test_hardware_group_split(void **state)
{
	/*
	 * Hardware events, faked by software counters so the group code runs without a PMU: when a run shows
	 * the kernel rotating the groups (one ran part of the time) for long enough that every group had its
	 * turn, a group never scheduled did not fit: the next run splits it, and every event is counted again.
	 * In a shorter run, or one where nothing rotated (each of many quick processes starting its groups in
	 * the same order), a group that never ran was only waiting for its turn: nothing is split.
	 */
	struct fx fx;
	char *argv[] = { "true", NULL };
	const char *faults = "cycles=fake,instructions=fake,branches=fake,branch-misses=fake";
	struct ws_perf_fault rotated[] = {
		{ .event = "cycles", .fake = true, .share = 0.5 },
		{ .event = "instructions", .fake = true, .share = 0.5 },
		{ .event = "branches", .fake = true, .share = 0 },
		{ .event = "branch-misses", .fake = true, .share = -1 },
	};
	struct ws_perf_fault unrotated[] = {
		{ .event = "cycles", .fake = true, .share = -1 },
		{ .event = "instructions", .fake = true, .share = -1 },
		{ .event = "branches", .fake = true, .share = 0 },
		{ .event = "branch-misses", .fake = true, .share = -1 },
	};
	struct ws_perf_fault counted[] = {
		{ .event = "cycles", .fake = true, .share = -1 },
		{ .event = "instructions", .fake = true, .share = -1 },
		{ .event = "branches", .fake = true, .share = -1 },
		{ .event = "branch-misses", .fake = true, .share = -1 },
	};
	struct ws_metric *m;

	(void)state;
	fx_setup(&fx, "cycles,instructions,branches,branch-misses", faults);
	assert_int_equal(fx.ret, 0);
	for (size_t i = 0; i < fx.ev.n; i++)
		assert_true(fx.claims[i].claimed);
	/* a run shorter than a turn of the groups (a minute a turn): branches' group starved, and left whole */
	ws_perf_inject_mux_interval(60000);
	ws_perf_inject(rotated, 4);
	run_under(&fx, 0, busy_argv);
	assert_true(isnan(ws_metric_set_find(&fx.v.metrics, "branches")->samples[0]));
	/* long enough (a millisecond a turn), but nothing rotated: left whole too */
	ws_perf_inject_mux_interval(1);
	ws_perf_inject(unrotated, 4);
	run_under(&fx, 1, busy_argv);
	assert_true(isnan(ws_metric_set_find(&fx.v.metrics, "branches")->samples[1]));
	ws_perf_inject(counted, 4);
	run_under(&fx, 2, argv);
	assert_null(strstr(all_msgs, "split hardware groups"));
	/* long enough, and the groups rotated: branches' group reads as never scheduled */
	ws_perf_inject(rotated, 4);
	run_under(&fx, 3, busy_argv);
	m = ws_metric_set_find(&fx.v.metrics, "branches");
	assert_true(isnan(m->samples[3]));
	m = ws_metric_set_find(&fx.v.metrics, "cycles");
	assert_false(isnan(m->samples[3]));
	assert_null(strstr(all_msgs, "split hardware groups"));
	/* next run: counted, after the split */
	ws_perf_inject(counted, 4);
	run_under(&fx, 4, argv);
	assert_non_null(strstr(all_msgs, "split hardware groups"));
	m = ws_metric_set_find(&fx.v.metrics, "branches");
	assert_int_equal(m->n, 5);
	assert_false(isnan(m->samples[4]));
	assert_true(m->samples[4] > 0);
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

/* The claim of event `name` in the fixture. */
static const struct ws_claim *claim_of(const struct fx *fx, const char *name)
{
	for (size_t i = 0; i < fx->ev.n; i++)
		if (!strcmp(fx->ev.v[i].name, name))
			return &fx->claims[i];
	fail_msg("no event %s", name);
	return NULL;
}

static void test_kernel_only_events_are_not_read_as_zero(void **state)
{
	/* context-switches counted in user space only reads 0: unsupported, with the sysctl, instead. */
	struct fx fx;

	(void)state;
	fx_setup(&fx, "context-switches,page-faults", "context-switches=user-only,page-faults=user-only");
	assert_int_equal(fx.ret, 0);
	assert_false(fx.claims[0].claimed);
	assert_non_null(strstr(fx.claims[0].reason, "counted in the kernel"));
	fx_release(&fx);

	/*
	 * The same with the modifiers: context-switches:u opens and reads 0, and page-faults:k under
	 * perf_event_paranoid 2 (user-only: EACCES while the kernel is counted) must not fall back to user space
	 * only, where it counts nothing. Plain page-faults does fall back.
	 */
	fx_setup(&fx, "context-switches:u,page-faults:k,page-faults", "page-faults:k=user-only,page-faults=user-only");
	assert_int_equal(fx.ret, 0);
	assert_false(claim_of(&fx, "context-switches:u")->claimed);
	assert_non_null(strstr(claim_of(&fx, "context-switches:u")->reason, "(:u) counts nothing"));
	assert_false(claim_of(&fx, "page-faults:k")->claimed);
	assert_non_null(strstr(claim_of(&fx, "page-faults:k")->reason, "counts only in the kernel"));
	assert_true(claim_of(&fx, "page-faults")->claimed);
	fx_release(&fx);
}

/*
 * A hybrid CPU whose atom PMU lacks L1-dcache-load-misses (ENOENT, as Alder Lake's cache table has it):
 * the event is counted on cpu_core alone, said once, and the run is not refused. Each core type's copy of
 * cycles runs half the run (share:0.5, the task on each type half the time) and is summed; the event on
 * cpu_core alone ran half the run too, and is left unscaled: its count is cpu_core's, not extrapolated
 * over cpu_atom's time.
 */
static void test_hybrid_event_one_core_type(void **state)
{
	struct fx fx;
	struct ws_metric *cyc, *l1d;

	(void)state;
	setenv("WHYSLOW_TEST_HYBRID", "1", 1);
	fx_setup(&fx, "cycles,L1-dcache-load-misses",
		 "cycles=fake,cycles=share:0.5,L1-dcache-load-misses=fake,L1-dcache-load-misses=share:0.5,"
		 "L1-dcache-load-misses@cpu_atom=ENOENT");
	assert_int_equal(fx.ret, 0);
	assert_true(claim_of(&fx, "cycles")->claimed);
	assert_true(claim_of(&fx, "L1-dcache-load-misses")->claimed);
	assert_non_null(strstr(all_msgs, "counted on cpu_core only, where this hybrid CPU's other core types lack "
				    "them or they name one PMU: L1-dcache-load-misses ("));
	assert_null(strstr(all_msgs, "cpu_atom only"));
	run_under(&fx, 0, busy_argv);
	cyc = ws_metric_set_find(&fx.v.metrics, "cycles");
	l1d = ws_metric_set_find(&fx.v.metrics, "L1-dcache-load-misses");
	/* cycles: two copies of half the run, summed: the whole run once (two task-clocks of half each). */
	assert_false(isnan(cyc->samples[0]));
	assert_true(!cyc->running || cyc->running[0] > 0.99);
	/* L1-dcache-load-misses: cpu_core's half, unscaled, and not reported as multiplexed */
	assert_false(isnan(l1d->samples[0]));
	assert_true(!l1d->running || l1d->running[0] == 1.0);
	assert_true(l1d->samples[0] > 0.4 * cyc->samples[0]);
	assert_true(l1d->samples[0] < 0.6 * cyc->samples[0]);
	/* Marked, so that no ratio divides it by a count of both core types (derive.c). */
	assert_true(l1d->flags & WS_M_CORE_SUBSET);
	assert_false(cyc->flags & WS_M_CORE_SUBSET);
	fx_release(&fx);
}

/* A core type's copy that probed but fails to open for a run: counted on the other, with one warning. */
static void test_hybrid_copy_failing_at_arm(void **state)
{
	struct fx fx;
	struct ws_metric *m;
	struct ws_perf_fault f[] = {
		{ .event = "cycles", .fake = true, .share = -1 },
		{ .event = "instructions", .fake = true, .share = -1 },
		{ .event = "cycles", .pmu = "cpu_atom", .open_errno = EBUSY, .share = -1 },
	};

	(void)state;
	setenv("WHYSLOW_TEST_HYBRID", "1", 1);
	fx_setup(&fx, "cycles,instructions", "cycles=fake,instructions=fake");
	assert_int_equal(fx.ret, 0);
	assert_null(strstr(all_msgs, " only"));
	/* cycles leads cpu_atom's group: instructions leads it in its place */
	ws_perf_inject(f, 3);
	run_under(&fx, 0, busy_argv);
	assert_non_null(strstr(warnings, "cannot open 'cycles' on cpu_atom for this run"));
	m = ws_metric_set_find(&fx.v.metrics, "cycles");
	assert_false(isnan(m->samples[0]));
	m = ws_metric_set_find(&fx.v.metrics, "instructions");
	assert_false(isnan(m->samples[0]));
	/* said once */
	run_under(&fx, 1, busy_argv);
	assert_null(strstr(strstr(warnings, "cannot open 'cycles'") + 1, "cannot open 'cycles'"));
	assert_false(isnan(ws_metric_set_find(&fx.v.metrics, "cycles")->samples[1]));
	fx_release(&fx);
}

/*
 * perf_event_paranoid=2: td-slots opens user space only, as every other event does, and its four metric
 * events take its exclude bits (each fails with EACCES while it would count the kernel).
 */
static void test_topdown_user_space_only(void **state)
{
	struct fx fx;
	char *reason = NULL;
	const char *faults = "td-slots=fake,td-slots=user-only,td-retiring=fake,td-retiring=user-only,"
			     "td-bad-spec=fake,td-bad-spec=user-only,td-fe-bound=fake,td-fe-bound=user-only,"
			     "td-be-bound=fake,td-be-bound=user-only";

	(void)state;
	memset(&fx, 0, sizeof(fx));
	setenv("WHYSLOW_TEST_TOPDOWN", "intel", 1);
	assert_int_equal(ws_topdown_add_events(&fx.ev, &reason), 0);
	unsetenv("WHYSLOW_TEST_TOPDOWN");
	free(reason);
	fx_open(&fx, faults);
	assert_int_equal(fx.ret, 0);
	for (size_t i = 0; i < fx.ev.n; i++) {
		assert_true(fx.claims[i].claimed);
		assert_null(fx.claims[i].reason);
	}
	assert_non_null(strstr(all_msgs, "counting user space only"));
	run_under(&fx, 0, busy_argv);
	assert_false(isnan(ws_metric_set_find(&fx.v.metrics, WS_TOPDOWN_SLOTS)->samples[0]));
	assert_false(isnan(ws_metric_set_find(&fx.v.metrics, "td-retiring")->samples[0]));
	fx_release(&fx);
}

/* The value of `name` in a NULL-terminated "NAME=VALUE" list, or NULL. */
static const char *env_value(char *const *env, const char *name)
{
	for (; env && *env; env++)
		if (!strncmp(*env, name, strlen(name)) && (*env)[strlen(name)] == '=')
			return *env + strlen(name) + 1;
	return NULL;
}

/* The names of WHYSLOW_MARKERS_EVENTS, in order, into names[] (each the sixth field). Returns the count. */
static size_t marker_names(const char *events, char names[][64], size_t max)
{
	size_t n = 0;

	while (events && *events && n < max) {
		const char *end = strchr(events, ','), *colon = events;

		if (!end)
			end = events + strlen(events);
		for (int k = 0; k < 5; k++)
			colon = strchr(colon, ':') + 1;
		snprintf(names[n++], 64, "%.*s", (int)(end - colon), colon);
		events = *end ? end + 1 : end;
	}
	return n;
}

/* prepare() of a --regions session: the environment the markers get. */
static char *const *regions_env(struct fx *fx)
{
	static char *argv[] = { "true", NULL };
	static struct ws_exec ex;

	memset(&ex, 0, sizeof(ex));
	ex.argv = argv;
	assert_int_equal(fx->be->ops->prepare(fx->be, &ex), 0);
	return ex.env_add;
}

/*
 * --regions: the markers' events come in groups the PMU can take, each no larger than the backend's groups
 * (at most 8 counters on any x86 PMU: nine hardware events make two groups at least), software events in
 * a group of their own; not one group of every event, which AMD (6 counters) refuses with EINVAL.
 */
static void test_marker_groups_fit_the_pmu(void **state)
{
	static const char *const hw[] = { "cycles", "instructions", "cache-references", "cache-misses", "branches",
					  "branch-misses", "bus-cycles", "stalled-cycles-frontend", "ref-cycles" };
	struct ws_backend_opts opts = { .regions = true };
	char faults[1024] = "", list[1024] = "task-clock,page-faults", names[16][64];
	const char *groups;
	unsigned size[16], n = 0, sum = 0;
	char *const *env;
	struct fx fx;

	(void)state;
	for (size_t i = 0; i < sizeof(hw) / sizeof(hw[0]); i++) {
		snprintf(faults + strlen(faults), sizeof(faults) - strlen(faults), "%s%s=fake", i ? "," : "", hw[i]);
		snprintf(list + strlen(list), sizeof(list) - strlen(list), ",%s", hw[i]);
	}
	memset(&fx, 0, sizeof(fx));
	assert_int_equal(ws_event_list_parse(&fx.ev, list), 0);
	fx_open(&fx, faults);
	fx.be->opts = opts;
	assert_int_equal(fx.ret, 0);
	env = regions_env(&fx);
	groups = env_value(env, "WHYSLOW_MARKERS_GROUPS");
	assert_non_null(groups);
	for (const char *g = groups; *g; g = strchr(g, ',') ? strchr(g, ',') + 1 : g + strlen(g))
		sum += size[n++] = (unsigned)atoi(g);
	assert_int_equal(marker_names(env_value(env, "WHYSLOW_MARKERS_EVENTS"), names, 16), 11);
	assert_int_equal(sum, 11);
	assert_true(n >= 3);
	for (unsigned g = 0; g + 1 < n; g++)
		assert_true(size[g] >= 1 && size[g] <= 8);
	/* hardware first, software last, alone */
	assert_int_equal(size[n - 1], 2);
	assert_string_equal(names[9], "task-clock");
	assert_string_equal(names[10], "page-faults");
	fx_release(&fx);
}

/* --regions --topdown: Intel's metric events only in the group td-slots leads, never in one cycles leads. */
static void test_marker_groups_topdown(void **state)
{
	struct ws_backend_opts opts = { .regions = true };
	char names[16][64], *reason = NULL;
	const char *groups;
	char *const *env;
	struct fx fx;
	size_t n;

	(void)state;
	memset(&fx, 0, sizeof(fx));
	assert_int_equal(ws_event_list_parse(&fx.ev, "cycles"), 0);
	setenv("WHYSLOW_TEST_TOPDOWN", "intel", 1);
	assert_int_equal(ws_topdown_add_events(&fx.ev, &reason), 0);
	unsetenv("WHYSLOW_TEST_TOPDOWN");
	free(reason);
	fx_open(&fx, "cycles=fake,td-slots=fake,td-retiring=fake,td-bad-spec=fake,td-fe-bound=fake,td-be-bound=fake");
	fx.be->opts = opts;
	assert_int_equal(fx.ret, 0);
	env = regions_env(&fx);
	n = marker_names(env_value(env, "WHYSLOW_MARKERS_EVENTS"), names, 16);
	groups = env_value(env, "WHYSLOW_MARKERS_GROUPS");
	assert_int_equal(n, 6);
	assert_non_null(groups);
	assert_string_equal(groups, "1,5");
	assert_string_equal(names[0], "cycles");
	assert_string_equal(names[1], WS_TOPDOWN_SLOTS);
	for (size_t i = 2; i < n; i++)
		assert_true(ws_topdown_is_slots_metric(names[i]));
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
		cmocka_unit_test_setup_teardown(test_hybrid_event_one_core_type, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hybrid_copy_failing_at_arm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_topdown_user_space_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_marker_groups_fit_the_pmu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_marker_groups_topdown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_env_parse_errors, setup, teardown),
		cmocka_unit_test(test_group_fills),
		cmocka_unit_test(test_group_fills_by_metric),
		cmocka_unit_test(test_online_cpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
