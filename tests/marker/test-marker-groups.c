/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-marker-groups.c - libwhyslow's events in several groups (WHYSLOW_MARKERS_GROUPS): parsed, opened, read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/*
 * marker.c itself, with rdpmc and rdtsc replaced by fakes (as test-rdpmc.c does): a group of hardware events
 * is read in user space while a group of software events beside it is read with read(). The groups of
 * software events are real: they open on any Linux machine.
 */
static uint64_t fake_rdpmc(uint32_t counter);
static uint64_t fake_rdtsc(void);
static long logged_read(int fd, void *buf, unsigned long n);
#define WS_MARKER_RDPMC fake_rdpmc
#define WS_MARKER_RDTSC fake_rdtsc
#define WS_MARKER_READ logged_read
#include "marker.c"

static int rdpmc_calls;
/* The reads in order: 'p' an rdpmc, 'r' a read() (which does read the real software group). */
static char order[16];
static size_t norder;

static uint64_t fake_rdpmc(uint32_t counter)
{
	(void)counter;
	rdpmc_calls++;
	if (norder < sizeof(order) - 1)
		order[norder++] = 'p';
	return 7;
}

static long logged_read(int fd, void *buf, unsigned long n)
{
	if (norder < sizeof(order) - 1)
		order[norder++] = 'r';
	return read(fd, buf, n);
}

static uint64_t fake_rdtsc(void)
{
	return 0;
}

static const char *const three_sw = "1:0x1:0x0:0x0:0x0:task-clock,1:0x2:0x0:0x0:0x0:page-faults,"
				    "1:0x0:0x0:0x0:0x0:cpu-clock";

static void test_parse_groups(void **state)
{
	static const char *const bad[] = { "1,1", "0,3", "4", "1,x", "3,", ",3", "1,1,1,1" };
	char why[200];

	(void)state;
	assert_int_equal(parse_events(three_sw, why, sizeof(why)), 0);
	/* without WHYSLOW_MARKERS_GROUPS: one group, as in version 1 */
	assert_int_equal(cfg.ngroups, 1);
	assert_int_equal(cfg.attr[1].disabled, 0);
	assert_int_equal(parse_groups("1,2", why, sizeof(why)), 0);
	assert_int_equal(cfg.ngroups, 2);
	assert_int_equal(cfg.first[0], 0);
	assert_int_equal(cfg.first[1], 1);
	assert_int_equal(cfg.first[2], 3);
	/* each leader starts disabled; group_open() enables each group once all are complete */
	assert_int_equal(cfg.attr[0].disabled, 1);
	assert_int_equal(cfg.attr[1].disabled, 1);
	assert_int_equal(cfg.attr[2].disabled, 0);
	assert_int_equal(cfg.rdpmc_candidate, 0); /* software: read() only */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse_groups(bad[i], why, sizeof(why)), -1);
	cfg_release();
}

/* Two real groups: each read() of its leader returns its own members, and read_counts() fills every event. */
static void test_groups_open_and_read(void **state)
{
	struct thread t;
	struct counts out[3];
	uint64_t buf[3 + 2 * 3];
	unsigned bad = 0;
	char why[200];

	(void)state;
	assert_int_equal(parse_events(three_sw, why, sizeof(why)), 0);
	assert_int_equal(parse_groups("1,2", why, sizeof(why)), 0);
	memset(&t, 0, sizeof(t));
	if (group_open(&t, &bad) < 0) {
		cfg_release();
		skip();
	}
	assert_int_equal(t.nfd, 3);
	assert_int_equal(read(t.fd[1], buf, sizeof(buf)), (3 + 2 * 2) * sizeof(uint64_t));
	assert_int_equal(buf[0], 2); /* the second group: page-faults leads, cpu-clock follows */
	assert_int_equal(read(t.fd[0], buf, sizeof(buf)), (3 + 2 * 1) * sizeof(uint64_t));
	assert_int_equal(buf[0], 1);
	memset(out, 0, sizeof(out));
	assert_int_equal(read_counts(&t, out, 1), 0);
	for (int i = 0; i < 3; i++)
		assert_true(out[i].ena > 0); /* every group is enabled */
	assert_true(out[0].val > 0 && out[2].val > 0);
	group_close(&t);
	cfg_release();
}

#if HAVE_RDPMC
/* A group of PMU events is read with rdpmc, the software group beside it with read(). */
static void test_rdpmc_per_group(void **state)
{
	static struct perf_event_mmap_page page;
	struct thread t;
	struct counts out[2];
	char why[200];
	long fd;

	(void)state;
	assert_int_equal(parse_events("4:0xc0:0x0:0x0:0x0:raw,1:0x1:0x0:0x0:0x0:task-clock", why, sizeof(why)), 0);
	assert_int_equal(parse_groups("1,1", why, sizeof(why)), 0);
	assert_int_equal(cfg.rdpmc_candidate, 1); /* the raw event's group only */
	caps_init();
	memset(&t, 0, sizeof(t));
	memset(&page, 0, sizeof(page));
	page.capabilities = cap_rdpmc | cap_time;
	page.index = 1;
	page.offset = 1000;
	page.pmc_width = 48;
	page.time_enabled = page.time_running = 5000;
	t.page[0] = &page;
	t.rdpmc = 1;
	/* The software group, opened as group_open() opens it. */
	fd = syscall(SYS_perf_event_open, &cfg.attr[1], 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		cfg_release();
		skip();
	}
	t.fd[1] = (int)fd;
	assert_int_equal(ioctl(t.fd[1], PERF_EVENT_IOC_ID, &t.id[1]), 0);
	assert_int_equal(ioctl(t.fd[1], PERF_EVENT_IOC_ENABLE, 0), 0);
	rdpmc_calls = 0;
	norder = 0;
	memset(order, 0, sizeof(order));
	assert_int_equal(read_counts(&t, out, 1), 0);
	assert_int_equal(rdpmc_calls, 1);
	assert_int_equal(out[0].val, 1007);
	assert_int_equal(out[0].ena, 5000);
	assert_true(out[1].ena > 0 && out[1].ena != 5000);
	/* A begin reads the software group first, so that the raw event's count leaves its system call out... */
	assert_string_equal(order, "rp");
	/* ...and an end last. */
	norder = 0;
	memset(order, 0, sizeof(order));
	assert_int_equal(read_counts(&t, out, 0), 0);
	assert_string_equal(order, "pr");
	close(t.fd[1]);
	cfg_release();
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_groups),
		cmocka_unit_test(test_groups_open_and_read),
#if HAVE_RDPMC
		cmocka_unit_test(test_rdpmc_per_group),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
