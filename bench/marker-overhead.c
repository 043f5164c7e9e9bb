/* SPDX-License-Identifier: GPL-2.0-or-later */
/* marker-overhead.c - nanoseconds per begin/end pair of the region markers, and the floor they cannot beat. */
#include <whyslow.h>

#include "x86-read.h" /* the markers' own reads: the floor they cannot beat */

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * usage: marker-overhead [REPS]
 *
 * Prints "CASE NS" lines, the best of REPS (default 101) timed batches, each batch calibrated to ~2 ms:
 *
 *	empty NS        the loop alone (its two compiler barriers)
 *	handle NS       WS_REGION_BEGIN_H + WS_REGION_END_H, per pair, loop included
 *	name NS         WS_REGION_BEGIN + WS_REGION_END with a string
 *	floor-read NS   (perf mode) two read()s of a group of the same events: what one pair must do at least
 *	floor-rdpmc NS  (perf mode) two user-space reads of every event of that group through its mmapped page
 *	                (sequence lock, rdpmc, rdtsc), or "n/a REASON" when the events do not allow it
 *
 * The library's mode comes from the environment (protocol/ws-markers.h), so bench/marker-overhead.sh runs
 * this once per case. The floors are measured in the same process, batch by batch interleaved with the
 * markers. The best batch, not the mean or median, estimates a cost on these shared machines: other
 * processes only ever add time, and short batches (2 ms) interleaved many times give each case quiet
 * moments to be measured in.
 */

#define barrier() __asm__ __volatile__("" ::: "memory")

static ws_region_t handle;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void run_empty(long n)
{
	for (long i = 0; i < n; i++) {
		barrier();
		barrier();
	}
}

static void run_handle(long n)
{
	for (long i = 0; i < n; i++) {
		WS_REGION_BEGIN_H(handle);
		barrier();
		WS_REGION_END_H(handle);
		barrier();
	}
}

static void run_name(long n)
{
	for (long i = 0; i < n; i++) {
		WS_REGION_BEGIN("bench-name");
		barrier();
		WS_REGION_END("bench-name");
		barrier();
	}
}

/* The floor: the same events as the library counts, in a group of our own. */
static int nfd, group[16];
static volatile struct perf_event_mmap_page *page[16];
static uint64_t sink;

static void run_floor_read(long n)
{
	uint64_t buf[3 + 2 * 16];

	for (long i = 0; i < n; i++) {
		if (read(group[0], buf, (3 + 2 * (size_t)nfd) * 8) < 0)
			abort();
		sink += buf[3];
		if (read(group[0], buf, (3 + 2 * (size_t)nfd) * 8) < 0)
			abort();
		sink += buf[3];
	}
}

#if HAVE_RDPMC
/* The minimum one user-space read of one event takes: the lock, the fields, rdtsc and rdpmc. */
static inline uint64_t read_one(volatile struct perf_event_mmap_page *pc)
{
	uint64_t v, cyc, t;
	uint32_t seq, idx;

	do {
		seq = pc->lock;
		barrier();
		idx = pc->index;
		v = (uint64_t)pc->offset + pc->time_enabled + pc->time_running + pc->time_offset;
		t = pc->time_mult;
		cyc = rd_tsc();
		if (idx)
			v += rd_pmc(idx - 1);
		barrier();
	} while (pc->lock != seq);
	return v + cyc * t;
}

static void run_floor_rdpmc(long n)
{
	for (long i = 0; i < n; i++) {
		for (int e = 0; e < nfd; e++)
			sink += read_one(page[e]);
		for (int e = 0; e < nfd; e++)
			sink += read_one(page[e]);
	}
}
#else
static void run_floor_rdpmc(long n)
{
	(void)n;
}
#endif

/* Open our group from WHYSLOW_MARKERS_EVENTS (TYPE:CONFIG:CONFIG1:CONFIG2:EXCLUDE:NAME,...). */
static int open_floor(void)
{
	const char *s = getenv("WHYSLOW_MARKERS_EVENTS");
	int leader = -1;

	while (s && *s && nfd < 16) {
		struct perf_event_attr a;
		unsigned long long type, config, config1, config2, excl;
		long fd;

		if (sscanf(s, "%llu:%llx:%llx:%llx:%llx:", &type, &config, &config1, &config2, &excl) != 5)
			return -1;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = (uint32_t)type;
		a.config = config;
		a.config1 = config1;
		a.config2 = config2;
		a.exclude_user = !!(excl & 1);
		a.exclude_kernel = !!(excl & 2);
		a.exclude_hv = !!(excl & 4);
		a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
		fd = syscall(SYS_perf_event_open, &a, 0, -1, leader, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			return -1;
		group[nfd++] = (int)fd;
		if (leader < 0)
			leader = (int)fd;
		s = strchr(s, ',');
		s = s ? s + 1 : NULL;
	}
	return nfd ? 0 : -1;
}

static const char *map_floor(void)
{
#if HAVE_RDPMC
	long psz = sysconf(_SC_PAGESIZE);

	for (int e = 0; e < nfd; e++) {
		void *p = mmap(NULL, (size_t)psz, PROT_READ, MAP_SHARED, group[e], 0);

		if (p == MAP_FAILED)
			return "mmap failed";
		page[e] = p;
		if (!page[e]->cap_user_rdpmc)
			return "the events do not allow rdpmc (software events, or no PMU)";
		/* The library's rule too: without it, it cannot tell the times enabled and running. */
		if (!page[e]->cap_user_time)
			return "no cap_user_time (sched_clock is not the TSC, as in many VMs): the library uses read()";
		if (!page[e]->index)
			return "an event is not on the PMU";
	}
	return NULL;
#else
	return "rdpmc is x86 only";
#endif
}

struct bench {
	const char *name;
	void (*fn)(long);
	long n;
	double best;
};

static long calibrate(void (*fn)(long))
{
	long n = 16;

	for (;;) {
		double t0 = now();

		fn(n);
		if (now() - t0 >= 0.002 || n > (1L << 40))
			return n;
		n *= 2;
	}
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 101;
	const char *mode = getenv("WHYSLOW_MARKERS");
	const char *no_rdpmc = NULL;
	struct bench b[5];
	size_t nb = 0;

	WS_REGION_INIT(handle, "bench-handle");
	b[nb++] = (struct bench){ "empty", run_empty, 0, 1e30 };
	b[nb++] = (struct bench){ "handle", run_handle, 0, 1e30 };
	b[nb++] = (struct bench){ "name", run_name, 0, 1e30 };
	if (mode && !strcmp(mode, "perf")) {
		if (open_floor() < 0) {
			fprintf(stderr, "marker-overhead: cannot open the floor's events\n");
			return 1;
		}
		b[nb++] = (struct bench){ "floor-read", run_floor_read, 0, 1e30 };
		no_rdpmc = map_floor();
		if (!no_rdpmc)
			b[nb++] = (struct bench){ "floor-rdpmc", run_floor_rdpmc, 0, 1e30 };
	}
	if (reps < 1)
		reps = 101;
	for (size_t i = 0; i < nb; i++)
		b[i].n = calibrate(b[i].fn);
	for (int r = 0; r < reps; r++) {
		for (size_t i = 0; i < nb; i++) {
			double t0 = now(), dt;

			b[i].fn(b[i].n);
			dt = (now() - t0) * 1e9 / (double)b[i].n;
			if (dt < b[i].best)
				b[i].best = dt;
		}
	}
	for (size_t i = 0; i < nb; i++)
		printf("%s %.2f\n", b[i].name, b[i].best);
	if (mode && !strcmp(mode, "perf") && no_rdpmc)
		printf("floor-rdpmc n/a %s\n", no_rdpmc);
	return sink == 42 ? 2 : 0;
}
