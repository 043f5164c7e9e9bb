/* SPDX-License-Identifier: GPL-2.0-or-later */
/* boundaries.c - a branchy loop that enters and leaves a region every K iterations, for bench/sim-regions.sh. */

/*
 *   boundaries N K
 *
 * N iterations of a xorshift generator with two branches on its bits, unpredictable to any predictor;
 * region "r" is begun at every K-th iteration and ended K iterations later. Each region boundary makes the
 * simulator bring its counts up to date, which is what the benchmark measures as K varies.
 */
#include "micro.h"

static volatile uint64_t sink;

int main(int argc, char **argv)
{
	uint64_t n, k, i, x = 88172645463325252ULL;

	if (argc != 3) {
		fprintf(stderr, "usage: boundaries N K\n");
		return 2;
	}
	n = micro_arg(argv[1], "N");
	k = micro_arg(argv[2], "K");
	if (k == 0) {
		fprintf(stderr, "boundaries: K must be at least 1\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		if (i % k == 0)
			MICRO_BEGIN("r");
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (x & 1)
			sink += i;
		else
			sink -= 1;
		if (x & 2)
			sink ^= i;
		if (i % k == k - 1)
			MICRO_END("r");
	}
	if (n % k)
		MICRO_END("r");
	return 0;
}
