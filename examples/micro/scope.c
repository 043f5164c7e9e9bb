/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scope.c - a small region inside a long uninteresting phase, for --sim-scope regions (tests, benchmarks). */

/*
 *   scope N K
 *
 * A long phase of N steps: a random walk that reads and updates a 4 MB table, with a branch on each value.
 * K times, evenly spaced in it, region "hot" runs a short burst: 4096 look-ups in a 64 KB table picked by a
 * data-dependent walk, with branches on what they read. The long phase evicts the small table between
 * bursts, so a burst's cache misses depend on what ran before it: simulated whole, or with only the caches
 * warmed outside the region, it finds the table gone; simulated only inside the region, it finds it where
 * the last burst left it.
 */
#include "micro.h"

#define BIG (4u << 20)
#define SMALL (64u << 10)
#define BURST 4096

static volatile uint64_t sink;

static __attribute__((noinline)) uint64_t burst(const uint32_t *small, uint64_t x)
{
	uint64_t acc = 0;
	uint32_t i, j = (uint32_t)x;

	MICRO_BEGIN("hot");
	for (i = 0; i < BURST; i++) {
		uint32_t v = small[j % (SMALL / sizeof(*small))];

		if (v & 1)
			acc += v;
		else
			acc ^= v >> 3;
		j = j * 1103515245u + v;
	}
	MICRO_END("hot");
	return acc;
}

int main(int argc, char **argv)
{
	uint64_t n, k, i, x = 88172645463325252ULL, every;
	uint32_t *big, *small;

	if (argc != 3) {
		fprintf(stderr, "usage: scope N K\n");
		return 2;
	}
	n = micro_arg(argv[1], "N");
	k = micro_arg(argv[2], "K");
	if (k == 0 || k > n) {
		fprintf(stderr, "scope: K must be between 1 and N\n");
		return 2;
	}
	big = calloc(BIG / sizeof(*big), sizeof(*big));
	small = malloc(SMALL);
	if (!big || !small)
		return 1;
	for (i = 0; i < SMALL / sizeof(*small); i++)
		small[i] = (uint32_t)micro_rand(&x);
	every = n / k;
	for (i = 0; i < n; i++) {
		uint32_t *p = &big[micro_rand(&x) % (BIG / sizeof(*big))];

		if (*p & 4)
			*p += (uint32_t)i;
		else
			*p ^= (uint32_t)x;
		if (i % every == every / 2)
			sink += burst(small, x);
	}
	sink += big[x % (BIG / sizeof(*big))];
	free(big);
	free(small);
	return 0;
}
