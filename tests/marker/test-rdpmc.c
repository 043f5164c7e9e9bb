/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-rdpmc.c - unit tests of libwhyslow's user-space counter reads against fake perf mmap pages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/*
 * The machines that run the tests have no PMU, so rdpmc can never run here. This test compiles marker.c
 * itself with rdpmc and rdtsc replaced by fakes, and feeds read_rdpmc() pages laid out as the kernel lays
 * them out (include/uapi/linux/perf_event.h): the sign extension from pmc_width, the time arithmetic with and
 * without cap_user_time_short, the sequence-lock retry, and the fall-backs to read().
 */
static uint64_t fake_rdpmc(uint32_t counter);
static uint64_t fake_rdtsc(void);
#define WS_MARKER_RDPMC fake_rdpmc
#define WS_MARKER_RDTSC fake_rdtsc
#include "marker.c" /* the library itself, with the reads above swapped in */

#if HAVE_RDPMC

static struct {
	uint32_t want[MAX_EVENTS]; /* the counter each successive rdpmc must ask for */
	uint64_t value[MAX_EVENTS];
	uint64_t tsc;
	int calls;
	void (*hook)(int call); /* runs inside the read, as the kernel's update of the page would */
} fk;

static struct perf_event_mmap_page pages[2];

static uint64_t fake_rdpmc(uint32_t counter)
{
	int call = fk.calls++;

	assert_true(call < MAX_EVENTS);
	assert_int_equal(counter, fk.want[call]);
	if (fk.hook)
		fk.hook(call);
	return fk.value[call];
}

static uint64_t fake_rdtsc(void)
{
	return fk.tsc;
}

static void page_init(struct perf_event_mmap_page *pc, uint32_t index, int64_t offset, uint16_t width)
{
	memset(pc, 0, sizeof(*pc));
	pc->lock = 4;
	pc->index = index;
	pc->offset = offset;
	pc->pmc_width = width;
	pc->cap_user_rdpmc = 1;
	pc->cap_user_time = 1;
	pc->time_enabled = 5000;
	pc->time_running = 4000;
	pc->time_mult = 1717986918u; /* 0.4 ns per cycle, in 32.32 fixed point */
	pc->time_shift = 32;
	pc->time_offset = (uint64_t)-1000000; /* "time now - the update's time": wraps, as in real pages */
}

/* What the kernel's formula gives, computed independently with a 128-bit product. */
static uint64_t want_delta(const struct perf_event_mmap_page *pc, uint64_t cyc)
{
	return pc->time_offset + (uint64_t)(((unsigned __int128)cyc * pc->time_mult) >> pc->time_shift);
}

static int setup(void **state)
{
	(void)state;
	memset(&fk, 0, sizeof(fk));
	caps_init();
	cfg.nr = 1;
	return 0;
}

static struct thread one_page_thread(void)
{
	struct thread t;

	memset(&t, 0, sizeof(t));
	t.page[0] = &pages[0];
	t.page[1] = &pages[1];
	t.rdpmc = 1;
	return t;
}

static void test_caps_are_the_abi_bits(void **state)
{
	(void)state;
	/* Bits 2, 3 and 5 of `capabilities`: the documented ABI, whatever the compiler does with bit-fields. */
	assert_int_equal(cap_rdpmc, 1u << 2);
	assert_int_equal(cap_time, 1u << 3);
	assert_int_equal(cap_time_short, 1u << 5);
}

static void test_negative_pmc_is_sign_extended(void **state)
{
	struct thread t = one_page_thread();
	struct counts out[1];
	uint64_t delta;

	(void)state;
	page_init(&pages[0], 3, 1000, 48);
	fk.want[0] = 2; /* rdpmc(index - 1) */
	fk.value[0] = 0x0000ffffffffff00ull; /* -256 in 48 bits */
	fk.tsc = 123456789012345ull;
	assert_int_equal(read_rdpmc(&t, out), 0);
	assert_int_equal(fk.calls, 1);
	assert_int_equal(out[0].val, 744);
	delta = want_delta(&pages[0], fk.tsc);
	assert_int_equal(out[0].ena, 5000 + delta);
	assert_int_equal(out[0].run, 4000 + delta);
}

static void test_positive_pmc_and_high_bits(void **state)
{
	struct thread t = one_page_thread();
	struct counts out[1];

	(void)state;
	page_init(&pages[0], 1, 1ll << 40, 48);
	fk.want[0] = 0;
	/* Bits above the width are garbage to be dropped; bit 47 clear means positive. */
	fk.value[0] = 0xabcd7fffffffffffull;
	assert_int_equal(read_rdpmc(&t, out), 0);
	assert_int_equal(out[0].val, (1ull << 40) + 0x7fffffffffffull);
}

static void test_width_64_and_0_are_not_shifted(void **state)
{
	struct thread t = one_page_thread();
	struct counts out[1];

	(void)state;
	page_init(&pages[0], 1, 1000, 64);
	fk.value[0] = (uint64_t)-256;
	assert_int_equal(read_rdpmc(&t, out), 0);
	assert_int_equal(out[0].val, 744);
	fk.calls = 0;
	pages[0].pmc_width = 0;
	fk.value[0] = 5;
	assert_int_equal(read_rdpmc(&t, out), 0);
	assert_int_equal(out[0].val, 1005);
}

static void test_not_readable_falls_back(void **state)
{
	struct thread t = one_page_thread();
	struct counts out[1];

	(void)state;
	/* Index 0: the event is not on the PMU right now (multiplexed out), or rdpmc is not allowed for it. */
	page_init(&pages[0], 0, 1000, 48);
	assert_int_equal(read_rdpmc(&t, out), -1);
	page_init(&pages[0], 1, 1000, 48);
	pages[0].cap_user_rdpmc = 0;
	assert_int_equal(read_rdpmc(&t, out), -1);
	page_init(&pages[0], 1, 1000, 48);
	pages[0].cap_user_time = 0;
	assert_int_equal(read_rdpmc(&t, out), -1);
	/* An Intel topdown metric: rdpmc would give the packed PERF_METRICS register, not a count. */
	page_init(&pages[0], (1u << 29) + 1, 1000, 48);
	assert_int_equal(read_rdpmc(&t, out), -1);
	assert_int_equal(fk.calls, 0);
}

static void test_time_short(void **state)
{
	struct thread t = one_page_thread();
	struct counts out[1];
	uint64_t cyc;

	(void)state;
	page_init(&pages[0], 1, 0, 48);
	pages[0].cap_user_time_short = 1;
	pages[0].time_cycles = 0x1000;
	pages[0].time_mask = 0xffffffffull; /* a 32-bit clock */
	fk.tsc = 0x7700000123ull;
	assert_int_equal(read_rdpmc(&t, out), 0);
	cyc = 0x1000 + ((fk.tsc - 0x1000) & 0xffffffffull);
	assert_int_equal(out[0].ena, 5000 + want_delta(&pages[0], cyc));
}

/* The kernel updates the page between our reads: the lock moves, the loop must take the new values. */
static void update_page(int call)
{
	if (call == 0) {
		pages[0].lock += 2;
		pages[0].offset = 2000;
		pages[0].time_enabled = 9000;
		pages[0].time_running = 9000;
	}
}

static void test_seqlock_retry(void **state)
{
	struct thread t = one_page_thread();
	struct counts out[1];

	(void)state;
	page_init(&pages[0], 2, 1000, 48);
	fk.want[0] = fk.want[1] = 1;
	fk.value[0] = 7;
	fk.value[1] = 8;
	fk.hook = update_page;
	assert_int_equal(read_rdpmc(&t, out), 0);
	assert_int_equal(fk.calls, 2);
	assert_int_equal(out[0].val, 2008);
	assert_int_equal(out[0].ena, 9000 + want_delta(&pages[0], 0));
	assert_int_equal(out[0].run, out[0].ena);
}

static void test_two_events_in_order(void **state)
{
	struct thread t = one_page_thread();
	struct counts out[2];

	(void)state;
	cfg.nr = 2;
	page_init(&pages[0], 5, 100, 48);
	page_init(&pages[1], 0x40000001, 200, 48); /* a fixed counter: bit 30 set, as the kernel encodes it */
	fk.want[0] = 4;
	fk.want[1] = 0x40000000;
	fk.value[0] = 1;
	fk.value[1] = 2;
	assert_int_equal(read_rdpmc(&t, out), 0);
	assert_int_equal(out[0].val, 101);
	assert_int_equal(out[1].val, 202);
}

static void test_parse_events(void **state)
{
	char why[200];

	(void)state;
	assert_int_equal(parse_events("0:0xc0:0x12:0x0:0x3:cpu%2Fev%3D0xc0%2F,4:0xABCDEF:0x0:0x1:0x4:raw", why,
				      sizeof(why)), 0);
	assert_int_equal(cfg.nr, 2);
	assert_int_equal(cfg.attr[0].type, 0);
	assert_int_equal(cfg.attr[0].config, 0xc0);
	assert_int_equal(cfg.attr[0].config1, 0x12);
	assert_int_equal(cfg.attr[0].exclude_user, 1);
	assert_int_equal(cfg.attr[0].exclude_kernel, 1);
	assert_int_equal(cfg.attr[0].exclude_hv, 0);
	assert_int_equal(cfg.attr[0].read_format, PERF_FORMAT_GROUP | PERF_FORMAT_ID |
						  PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING);
	assert_string_equal(cfg.name[0], "cpu%2Fev%3D0xc0%2F");
	/* Only the leader starts disabled: group_open() enables the group once it is complete. */
	assert_int_equal(cfg.attr[0].disabled, 1);
	assert_int_equal(cfg.attr[1].disabled, 0);
	assert_int_equal(cfg.attr[1].config, 0xabcdef);
	assert_int_equal(cfg.attr[1].config2, 1);
	assert_int_equal(cfg.attr[1].exclude_hv, 1);
	assert_int_equal(cfg.rdpmc_candidate, 1);
	cfg_release();
	assert_int_equal(parse_events("1:0x1:0x0:0x0:0x0:task-clock", why, sizeof(why)), 0);
	assert_int_equal(cfg.rdpmc_candidate, 0); /* software: read() only */
	cfg_release();
}

/* With a real group: a page that cannot be read in user space sends read_counts() to read(). */
static void test_read_counts_falls_back_to_read(void **state)
{
	struct thread t;
	struct counts out[1];
	char why[200];
	unsigned bad = 0;

	(void)state;
	assert_int_equal(parse_events("1:0x1:0x0:0x0:0x6:task-clock", why, sizeof(why)), 0);
	memset(&t, 0, sizeof(t));
	if (group_open(&t, &bad) < 0) {
		cfg_release();
		skip();
	}
	assert_int_equal(t.rdpmc, 0);
	t.rdpmc = 1;
	t.page[0] = &pages[0];
	page_init(&pages[0], 0, 1000, 48);
	assert_int_equal(read_counts(&t, out, 1), 0);
	assert_int_equal(fk.calls, 0);
	assert_true(out[0].ena > 0 && out[0].ena != 5000);
	/* Readable again: user space it is. */
	pages[0].index = 1;
	fk.value[0] = 1;
	assert_int_equal(read_counts(&t, out, 1), 0);
	assert_int_equal(fk.calls, 1);
	assert_int_equal(out[0].val, 1001);
	t.page[0] = NULL; /* not ours to munmap */
	group_close(&t);
	cfg_release();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_caps_are_the_abi_bits, setup),
		cmocka_unit_test_setup(test_negative_pmc_is_sign_extended, setup),
		cmocka_unit_test_setup(test_positive_pmc_and_high_bits, setup),
		cmocka_unit_test_setup(test_width_64_and_0_are_not_shifted, setup),
		cmocka_unit_test_setup(test_not_readable_falls_back, setup),
		cmocka_unit_test_setup(test_time_short, setup),
		cmocka_unit_test_setup(test_seqlock_retry, setup),
		cmocka_unit_test_setup(test_two_events_in_order, setup),
		cmocka_unit_test_setup(test_parse_events, setup),
		cmocka_unit_test_setup(test_read_counts_falls_back_to_read, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* !HAVE_RDPMC */

static uint64_t fake_rdpmc(uint32_t counter)
{
	return counter;
}

static uint64_t fake_rdtsc(void)
{
	return 0;
}

int main(void)
{
	(void)fake_rdpmc;
	(void)fake_rdtsc;
	return 77; /* meson: skipped, there is no rdpmc path on this architecture */
}

#endif
