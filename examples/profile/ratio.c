/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ratio.c - two functions whose costs stand exactly 3:1, to check per-function sampling shares.
 *
 *	ratio [-t SECONDS] [-n ROUNDS] [-v]
 *
 * Each round calls ratio_work3() for 3*K iterations and ratio_work1() for K iterations of the same serial
 * dependency chain, so the first takes 75% of the time and the second 25%, whatever the machine. -t runs
 * rounds until the process has used SECONDS of CPU time (default 0.5): CPU time, not wall time, so that a
 * loaded machine still gives the tests the same number of samples. -n runs exactly ROUNDS rounds (a fixed
 * amount of work, for the overhead benchmark). -v prints the wall and CPU time the rounds took to stderr.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define K 20000

/* Where results go, so that the compiler must compute them. */
static volatile uint64_t ratio_sink;

/*
 * One multiply-xorshift step per iteration: a serial chain with no closed form, so the loop cannot be
 * vectorized or folded and costs the same per iteration in both functions. The constants differ so that
 * identical-code folding cannot merge the two functions into one symbol; noinline and noclone keep each a
 * function of its own, so that its samples carry its name.
 */
static __attribute__((noinline, noclone)) uint64_t ratio_work3(uint64_t n)
{
	uint64_t x = n ^ 0x9e3779b97f4a7c15ULL;

	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		x ^= x >> 29;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static __attribute__((noinline, noclone)) uint64_t ratio_work1(uint64_t n)
{
	uint64_t x = n ^ 0xc2b2ae3d27d4eb4fULL;

	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		x ^= x >> 29;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	double seconds = 0.5, start, cpu_start, elapsed;
	long rounds = -1, r;
	int verbose = 0, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			rounds = atol(argv[++i]);
		else if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else {
			fprintf(stderr, "usage: ratio [-t SECONDS] [-n ROUNDS] [-v]\n");
			return 129;
		}
	}
	start = now(CLOCK_MONOTONIC);
	cpu_start = now(CLOCK_PROCESS_CPUTIME_ID);
	for (r = 0; rounds >= 0 ? r < rounds : r % 16 || now(CLOCK_PROCESS_CPUTIME_ID) - cpu_start < seconds; r++) {
		/* The CPU clock is a system call: read it once per 16 rounds (about 2 ms), not every round. */
		ratio_sink += ratio_work3(3 * K);
		ratio_sink += ratio_work1(K);
	}
	elapsed = now(CLOCK_MONOTONIC) - start;
	if (verbose)
		fprintf(stderr, "ratio: %ld rounds in %.6f s, cpu %.6f s\n", r, elapsed,
			now(CLOCK_PROCESS_CPUTIME_ID) - cpu_start);
	return 0;
}
