/* SPDX-License-Identifier: GPL-2.0-or-later */
/* peer-markers.c - nanoseconds per begin/end pair of a peer's region markers: PAPI's high-level API, LIKWID's. */
#define LIKWID_PERFMON /* likwid-marker.h defines the markers away without it */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if HAVE_PAPI
#include <papi.h>
#endif
#if HAVE_LIKWID
#include <likwid-marker.h>
#endif

/*
 * usage: peer-markers papi|likwid [REPS]
 *
 * Prints "pair NS" (the best of REPS timed batches of about 2 ms each, as bench/marker-overhead.c times
 * whyslow's markers, so that the figures compare), or "n/a REASON" when the peer cannot mark a region here:
 * not built in, or its start-up or first region failed (PAPI and LIKWID count hardware events, and this
 * machine may have no PMU). bench/peers.sh runs it; LIKWID's markers count only under likwid-perfctr -m.
 */

/* Without either peer built in there is nothing to time, and the compiler would call all this unused. */
#if HAVE_PAPI || HAVE_LIKWID
#define barrier() __asm__ __volatile__("" ::: "memory")

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int failed; /* the first error a marker returned */

#if HAVE_PAPI
static void run_papi(long n)
{
	for (long i = 0; i < n && !failed; i++) {
		int r = PAPI_hl_region_begin("bench");

		barrier();
		if (r == PAPI_OK)
			r = PAPI_hl_region_end("bench");
		if (r != PAPI_OK)
			failed = r;
		barrier();
	}
}
#endif

#if HAVE_LIKWID
static void run_likwid(long n)
{
	for (long i = 0; i < n && !failed; i++) {
		int r = LIKWID_MARKER_START("bench");

		barrier();
		if (r == 0)
			r = LIKWID_MARKER_STOP("bench");
		if (r != 0)
			failed = r;
		barrier();
	}
}
#endif

static double best_ns(void (*fn)(long), int reps)
{
	double best = 1e30;
	long n = 16;

	for (;;) {
		double t0 = now();

		fn(n);
		if (failed || now() - t0 >= 0.002 || n > (1L << 40))
			break;
		n *= 2;
	}
	for (int r = 0; r < reps && !failed; r++) {
		double t0 = now(), dt;

		fn(n);
		dt = (now() - t0) * 1e9 / (double)n;
		if (dt < best)
			best = dt;
	}
	return best;
}
#endif

int main(int argc, char **argv)
{
	const char *peer = argc > 1 ? argv[1] : "";
	int reps = argc > 2 ? atoi(argv[2]) : 101;
#if HAVE_PAPI || HAVE_LIKWID
	double ns;
#endif

	if (reps < 1)
		reps = 101;
	if (!strcmp(peer, "papi")) {
#if HAVE_PAPI
		ns = best_ns(run_papi, reps);
		if (failed) {
			const PAPI_component_info_t *c;

			/* Why: the perf_event component (counts through perf_event_open) says it, if disabled. */
			if (!PAPI_is_initialized())
				PAPI_library_init(PAPI_VER_CURRENT);
			c = PAPI_get_component_info(0);
			if (c && c->disabled)
				printf("n/a PAPI_hl_region_begin/end failed (%s): its %s component is disabled: %s\n",
				       PAPI_strerror(failed), c->name, c->disabled_reason);
			else
				printf("n/a PAPI_hl_region_begin/end failed: %s\n", PAPI_strerror(failed));
			return 0;
		}
		PAPI_hl_stop();
		printf("pair %.2f\n", ns);
#else
		printf("n/a not built: PAPI's header or library was not found (Debian: libpapi-dev)\n");
#endif
		return 0;
	}
	if (!strcmp(peer, "likwid")) {
#if HAVE_LIKWID
		LIKWID_MARKER_INIT;
		ns = best_ns(run_likwid, reps);
		if (failed) {
			printf("n/a LIKWID_MARKER_START/STOP failed (%d): run it under likwid-perfctr -m\n", failed);
			return 0;
		}
		LIKWID_MARKER_CLOSE;
		printf("pair %.2f\n", ns);
#else
		printf("n/a not built: LIKWID's header or library was not found (Debian: likwid)\n");
#endif
		return 0;
	}
	fprintf(stderr, "usage: peer-markers papi|likwid [REPS]\n");
	return 129;
}
