/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-regions.c - unit tests of the markers' protocol on whyslow's side: environment, file parser, merge. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/log.h"
#include "core/util.h"
#include "regions/regions.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The last message the engine logged, so tests can check that failures are explained. */
static char last_msg[2048];

static void capture(enum ws_log_level level, const char *msg, void *data)
{
	(void)level;
	(void)data;
	snprintf(last_msg, sizeof(last_msg), "%s", msg);
}

static int setup(void **state)
{
	(void)state;
	last_msg[0] = '\0';
	ws_log_set(capture, NULL);
	return 0;
}

static void test_env_perf(void **state)
{
	const struct ws_marker_event ev[] = {
		{ .type = 1, .config = 1, .name = "task-clock" },
		{ .type = 0, .config = 0xc0, .config1 = 0x12, .config2 = 0xabcdef, .exclude_kernel = 1,
		  .exclude_hv = 1, .name = "cpu/ev=0xc0,um=1/:u" },
	};
	char **env = NULL;

	(void)state;
	assert_int_equal(ws_marker_env_build(WS_MARKERS_PERF, ev, 2, "/tmp/run 1", &env), 0);
	assert_non_null(env);
	assert_string_equal(env[0], "WHYSLOW_MARKERS=perf");
	assert_string_equal(env[1], "WHYSLOW_MARKERS_EVENTS=1:0x1:0x0:0x0:0x0:task-clock,"
				    "0:0xc0:0x12:0xabcdef:0x6:cpu/ev=0xc0%2Cum=1/%3Au");
	assert_string_equal(env[2], "WHYSLOW_MARKERS_OUT=/tmp/run 1/regions");
	assert_null(env[3]);
	ws_marker_env_free(env);
}

static void test_env_sim(void **state)
{
	char **env = NULL;

	(void)state;
	assert_int_equal(ws_marker_env_build(WS_MARKERS_SIM, NULL, 0, NULL, &env), 0);
	assert_string_equal(env[0], "WHYSLOW_MARKERS=sim");
	assert_null(env[1]);
	ws_marker_env_free(env);
}

static void test_env_invalid(void **state)
{
	struct ws_marker_event ev[WS_MARKERS_MAX_EVENTS + 1];
	char **env = (char **)1;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ev); i++)
		ev[i] = (struct ws_marker_event){ .type = 1, .config = i, .name = "e" };
	assert_int_equal(ws_marker_env_build(WS_MARKERS_PERF, ev, 0, "/tmp", &env), -EINVAL);
	assert_null(env);
	assert_int_equal(ws_marker_env_build(WS_MARKERS_PERF, ev, ARRAY_SIZE(ev), "/tmp", &env), -EINVAL);
	assert_non_null(strstr(last_msg, "1 to 16"));
	assert_int_equal(ws_marker_env_build(WS_MARKERS_PERF, ev, 1, NULL, &env), -EINVAL);
	assert_int_equal(ws_marker_env_build(WS_MARKERS_PERF, ev, 1, "", &env), -EINVAL);
	ev[1].name = "";
	assert_int_equal(ws_marker_env_build(WS_MARKERS_PERF, ev, 2, "/tmp", &env), -EINVAL);
	assert_non_null(strstr(last_msg, "event 1 has no name"));
	assert_null(env);
}

static void test_encode(void **state)
{
	char *s;

	(void)state;
	s = ws_marker_name_encode("a b%c,d:e\n\xc3\xa9~!");
	assert_string_equal(s, "a%20b%25c%2Cd%3Ae%0A%C3%A9~!");
	free(s);
}

static const char good_a[] =
	"whyslow-regions 1\n"
	"pid 100\n"
	"threads 2\n"
	"failed 0\n"
	"events 2\n"
	"event task-clock\n"
	"event page-faults\n"
	"region outer 10 2000000000 0 1500 3000 3000 40 3000 3000\n"
	"region in%20ner 10 1000000000 1 700 3000 1500 20 3000 1500\n"
	"end\n";

static const char good_b[] =
	"whyslow-regions 1\n"
	"pid 101\n"
	"threads 1\n"
	"failed 1\n"
	"error cannot open task-clock in thread 7: Too many open files\n"
	"events 2\n"
	"event task-clock\n"
	"event page-faults\n"
	"region child 1 500000000 0 100 200 200 1 200 200\n"
	"region outer 2 500000000 0 300 600 600 4 600 600\n"
	"end\n";

static void test_parse_one(void **state)
{
	struct ws_region_set set = WS_REGION_SET_INIT;
	const struct ws_region_data *r;

	(void)state;
	assert_int_equal(ws_region_set_parse(&set, good_a, strlen(good_a), "a"), 0);
	assert_int_equal(set.nr_processes, 1);
	assert_int_equal(set.nr_threads, 2);
	assert_int_equal(set.nr_failed, 0);
	assert_null(set.error);
	assert_int_equal(set.nr_events, 2);
	assert_string_equal(set.events[0], "task-clock");
	assert_string_equal(set.events[1], "page-faults");
	assert_int_equal(set.nr_regions, 2);
	assert_string_equal(set.regions[0].name, "outer");
	r = ws_region_set_find(&set, "in ner");
	assert_non_null(r);
	assert_int_equal(r->entries, 10);
	assert_int_equal(r->unmatched, 1);
	assert_float_equal(r->wall_seconds, 1.0, 1e-12);
	assert_int_equal(r->counts[0].value, 700);
	assert_int_equal(r->counts[0].time_enabled, 3000);
	assert_int_equal(r->counts[0].time_running, 1500);
	/* Multiplexed half the time: scaled to twice the raw count. */
	assert_float_equal(ws_region_count_scaled(&r->counts[0]), 1400.0, 1e-9);
	assert_null(ws_region_set_find(&set, "inner"));
	ws_region_set_release(&set);
	assert_int_equal(set.nr_regions, 0);
	assert_null(set.regions);
}

static void test_parse_merge(void **state)
{
	struct ws_region_set set = WS_REGION_SET_INIT;
	const struct ws_region_data *r;

	(void)state;
	assert_int_equal(ws_region_set_parse(&set, good_a, strlen(good_a), "a"), 0);
	assert_int_equal(ws_region_set_parse(&set, good_b, strlen(good_b), "b"), 0);
	assert_int_equal(set.nr_processes, 2);
	assert_int_equal(set.nr_threads, 3);
	assert_int_equal(set.nr_failed, 1);
	assert_string_equal(set.error, "cannot open task-clock in thread 7: Too many open files");
	assert_int_equal(set.nr_regions, 3);
	/* First seen order: a's regions, then b's new one. */
	assert_string_equal(set.regions[0].name, "outer");
	assert_string_equal(set.regions[1].name, "in ner");
	assert_string_equal(set.regions[2].name, "child");
	r = ws_region_set_find(&set, "outer");
	assert_int_equal(r->entries, 12);
	assert_float_equal(r->wall_seconds, 2.5, 1e-12);
	assert_int_equal(r->counts[0].value, 1800);
	assert_int_equal(r->counts[0].time_enabled, 3600);
	assert_int_equal(r->counts[1].value, 44);
	assert_int_equal(r->counts[1].time_running, 3600);
	ws_region_set_release(&set);
}

static void test_merge_rejects_other_events(void **state)
{
	static const char other[] = "whyslow-regions 1\npid 1\nthreads 1\nfailed 0\nevents 1\nevent cycles\n"
				    "region outer 1 1 0 1 1 1\nend\n";
	struct ws_region_set set = WS_REGION_SET_INIT;

	(void)state;
	assert_int_equal(ws_region_set_parse(&set, good_a, strlen(good_a), "a"), 0);
	assert_int_equal(ws_region_set_parse(&set, other, strlen(other), "other"), -EINVAL);
	assert_non_null(strstr(last_msg, "other: its events differ"));
	/* Unchanged by the bad file. */
	assert_int_equal(set.nr_processes, 1);
	assert_int_equal(ws_region_set_find(&set, "outer")->entries, 10);
	ws_region_set_release(&set);
}

static void test_merge_overflow(void **state)
{
	static const char big[] = "whyslow-regions 1\npid 1\nthreads 1\nfailed 0\nevents 1\nevent cycles\n"
				  "region r 1 1 0 18446744073709551615 1 1\nend\n";
	struct ws_region_set set = WS_REGION_SET_INIT;

	(void)state;
	assert_int_equal(ws_region_set_parse(&set, big, strlen(big), "big"), 0);
	assert_int_equal(ws_region_set_parse(&set, big, strlen(big), "big2"), -EINVAL);
	assert_non_null(strstr(last_msg, "overflows"));
	assert_int_equal(set.nr_processes, 1);
	assert_int_equal(ws_region_set_find(&set, "r")->counts[0].value, UINT64_MAX);
	ws_region_set_release(&set);
}

static void test_scaled(void **state)
{
	struct ws_region_count c = { .value = 100, .time_enabled = 0, .time_running = 0 };

	(void)state;
	assert_true(isnan(ws_region_count_scaled(&c)));
	c.time_enabled = c.time_running = 50;
	assert_float_equal(ws_region_count_scaled(&c), 100.0, 0);
	c.time_enabled = 200;
	assert_float_equal(ws_region_count_scaled(&c), 400.0, 1e-9);
}

#define HEAD "whyslow-regions 1\npid 1\nthreads 1\nfailed 0\n"
#define EV1 "events 1\nevent cycles\n"

static void test_malformed(void **state)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "", "no \"end\"" },
		{ "whyslow-regions\n", "not a region file" },
		{ "hello 1\n", "not a region file" },
		{ "whyslow-regions 2\n", "unknown version" },
		{ "whyslow-regions 1\nthreads 1\n", "expected \"pid N\"" },
		{ "whyslow-regions 1\npid x\n", "expected \"pid N\"" },
		{ "whyslow-regions 1\npid 1\nfailed 0\n", "expected \"threads N\"" },
		{ "whyslow-regions 1\npid 1\nthreads 1\n" EV1 "end\n", "expected \"failed N\"" },
		{ HEAD "events 0\n", "out of range" },
		{ HEAD "events 17\n", "out of range" },
		{ HEAD "events 2\nevent cycles\nregion r 1 1 0 1 1 1 1 1 1\nend\n", "expected \"event NAME\"" },
		{ HEAD "events 1\nevent \n", "bad event name" },
		{ HEAD "events 1\nevent a b\n", "expected \"event NAME\"" },
		{ HEAD "error a\nerror b\n" EV1 "end\n", "a second \"error\"" },
		{ HEAD EV1 "region r 1 1 0 1 1 1\n", "no \"end\"" },
		{ HEAD EV1 "region r 1 1 0 1 1 1\nend", "no newline" },
		{ HEAD EV1 "region r 1 1 0 1 1 1", "no newline" },
		{ HEAD EV1 "end\nregion r 1 1 0 1 1 1\n", "text after \"end\"" },
		{ HEAD EV1 "end x\n", "takes no fields" },
		{ HEAD EV1 "regions r 1 1 0 1 1 1\nend\n", "expected \"region\" or \"end\"" },
		{ HEAD EV1 "\nend\n", "expected \"region\" or \"end\"" },
		{ HEAD EV1 "region r 1 1 0 1 1\nend\n", "a region line needs" },
		{ HEAD EV1 "region r 1 1 0 1 1 1 1\nend\n", "a region line needs" },
		{ HEAD EV1 "region r  1 0 1 1 1\nend\n", "unsigned decimal" },
		{ HEAD EV1 "region r 1 1 0 -1 1 1\nend\n", "unsigned decimal" },
		{ HEAD EV1 "region r 1 1 0 0x10 1 1\nend\n", "unsigned decimal" },
		{ HEAD EV1 "region r 1 1 0 18446744073709551616 1 1\nend\n", "unsigned decimal" },
		{ HEAD EV1 "region r 1 1 0 1 1 1 \nend\n", "a region line needs" },
		{ HEAD EV1 "region r%G1 1 1 0 1 1 1\nend\n", "bad region name" },
		{ HEAD EV1 "region r%00 1 1 0 1 1 1\nend\n", "bad region name" },
		{ HEAD EV1 "region r%4 1 1 0 1 1 1\nend\n", "bad region name" },
		{ HEAD EV1 "region r 1 1 0 1 1 1\nregion r 2 2 0 2 2 2\nend\n", "the same region twice" },
		{ HEAD EV1 "region r\xc3\xa9 1 1 0 1 1 1\nend\n", "bad region name" },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct ws_region_set set = WS_REGION_SET_INIT;
		int err;

		last_msg[0] = '\0';
		err = ws_region_set_parse(&set, bad[i].text, strlen(bad[i].text), "f");
		if (err != -EINVAL || !strstr(last_msg, bad[i].why) || strncmp(last_msg, "f:", 2))
			fail_msg("case %zu: got %d, message '%s', wanted '%s'", i, err, last_msg, bad[i].why);
		assert_int_equal(set.nr_processes, 0);
		assert_int_equal(set.nr_regions, 0);
		assert_null(set.events);
		ws_region_set_release(&set);
	}
}

static void test_malformed_nul(void **state)
{
	static const char text[] = HEAD EV1 "region r\0x 1 1 0 1 1 1\nend\n";
	struct ws_region_set set = WS_REGION_SET_INIT;

	(void)state;
	assert_int_equal(ws_region_set_parse(&set, text, sizeof(text) - 1, "nul"), -EINVAL);
	assert_non_null(strstr(last_msg, "NUL"));
	ws_region_set_release(&set);
}

/* The line number in a message points at the bad line. */
static void test_malformed_line_number(void **state)
{
	static const char text[] = HEAD EV1 "region r 1 1 0 1 1 1\nregion s 1 1 zero 1 1 1\nend\n";
	struct ws_region_set set = WS_REGION_SET_INIT;

	(void)state;
	assert_int_equal(ws_region_set_parse(&set, text, strlen(text), "run/regions.7"), -EINVAL);
	assert_non_null(strstr(last_msg, "run/regions.7:8:"));
	ws_region_set_release(&set);
}

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/ws-test-XXXXXX";
	char *d = mkdtemp(tmpl);

	assert_non_null(d);
	return xstrdup(d);
}

static void put(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(path);
}

static void rm_dir(const char *dir, const char *const *names)
{
	for (; *names; names++) {
		char *path = xasprintf("%s/%s", dir, *names);

		unlink(path);
		free(path);
	}
	rmdir(dir);
}

static void test_read_dir(void **state)
{
	static const char *const names[] = { "regions.100", "regions.101-1", "regions.102.tmp", ".regions.5",
					     "regions.", "regions.x", "regions.7-", "other.txt", "regions.9", NULL };
	struct ws_region_set set = WS_REGION_SET_INIT;
	char *dir = tmpdir();

	(void)state;
	/* An empty directory: no markers ran; not an error. */
	assert_int_equal(ws_region_set_read(&set, dir), 0);
	assert_int_equal(set.nr_processes, 0);
	put(dir, "regions.100", good_a);
	put(dir, "regions.101-1", good_b);
	/* Not published names: ignored, even though they would not parse. */
	put(dir, "regions.102.tmp", "garbage");
	put(dir, ".regions.5", "garbage");
	put(dir, "regions.", "garbage");
	put(dir, "regions.x", "garbage");
	put(dir, "regions.7-", "garbage");
	put(dir, "other.txt", "garbage");
	assert_int_equal(ws_region_set_read(&set, dir), 0);
	assert_int_equal(set.nr_processes, 2);
	assert_int_equal(ws_region_set_find(&set, "outer")->entries, 12);
	assert_int_equal(ws_region_set_find(&set, "child")->entries, 1);
	ws_region_set_release(&set);

	/* One malformed file fails the run, naming it. */
	put(dir, "regions.9", "whyslow-regions 1\npid 9\n");
	assert_int_equal(ws_region_set_read(&set, dir), -EINVAL);
	assert_non_null(strstr(last_msg, "/regions.9:"));
	ws_region_set_release(&set);
	rm_dir(dir, names);

	/* A directory that is not there. */
	assert_int_equal(ws_region_set_read(&set, dir), -ENOENT);
	assert_non_null(strstr(last_msg, dir));
	ws_region_set_release(&set);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_env_perf, setup),
		cmocka_unit_test_setup(test_env_sim, setup),
		cmocka_unit_test_setup(test_env_invalid, setup),
		cmocka_unit_test_setup(test_encode, setup),
		cmocka_unit_test_setup(test_parse_one, setup),
		cmocka_unit_test_setup(test_parse_merge, setup),
		cmocka_unit_test_setup(test_merge_rejects_other_events, setup),
		cmocka_unit_test_setup(test_merge_overflow, setup),
		cmocka_unit_test_setup(test_scaled, setup),
		cmocka_unit_test_setup(test_malformed, setup),
		cmocka_unit_test_setup(test_malformed_nul, setup),
		cmocka_unit_test_setup(test_malformed_line_number, setup),
		cmocka_unit_test_setup(test_read_dir, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
