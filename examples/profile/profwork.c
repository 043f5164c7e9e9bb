/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profwork.c - libprofwork.so: a function that burns CPU inside a shared library, for attribution tests. */
#include "profwork.h"

#include <time.h>

/* The calling thread's CPU time: a loaded machine stretches the wall time, not the work. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) uint64_t profwork_lib_spin(double seconds)
{
	double end = now() + seconds;
	uint64_t x = 0x243f6a8885a308d3ULL;

	/* Check the clock once per 64k steps, so that nearly every sample lands in this function. */
	while (now() < end) {
		for (int i = 0; i < 65536; i++) {
			x = x * 2862933555777941757ULL + 3037000493ULL;
			x ^= x >> 31;
			__asm__ volatile("" : "+r"(x));
		}
	}
	return x;
}
