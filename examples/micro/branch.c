/* SPDX-License-Identifier: GPL-2.0-or-later */
/* branch.c - one data-dependent branch, taken for half of random bytes: unpredictable, or predictable once sorted. */

/*
 *   branch N random|sorted
 *
 * Region "branch" runs a loop of N iterations with two conditional branches each: the loop's own (taken
 * N-1 times, then not) and `byte >= 128` on N random bytes, shuffled or sorted. On random bytes no predictor
 * can beat a coin, so about N/2 mispredictions; sorted, the branch changes direction once.
 */
#include <string.h>

#include "micro.h"

static volatile uint64_t sink;

static __attribute__((noinline)) uint64_t count_high(const uint8_t *a, uint64_t n)
{
	uint64_t i, c = 0;

	for (i = 0; i < n; i++) {
		if (a[i] >= 128) {
			/* A volatile store cannot be made unconditional, so the compiler must keep the branch. */
			c++;
			sink = c;
		}
	}
	return c;
}

int main(int argc, char **argv)
{
	uint64_t n, i, seed = 0x2545F4914F6CDD1DULL, counts[256] = { 0 }, k = 0;
	uint8_t *a;
	int sorted;

	if (argc != 3 || (strcmp(argv[2], "random") && strcmp(argv[2], "sorted"))) {
		fprintf(stderr, "usage: branch N random|sorted\n");
		return 2;
	}
	n = micro_arg(argv[1], "N");
	sorted = !strcmp(argv[2], "sorted");
	a = malloc(n ? n : 1);
	if (!a) {
		perror("branch");
		return 1;
	}
	for (i = 0; i < n; i++)
		a[i] = (uint8_t)(micro_rand(&seed) >> 56);
	if (sorted) {
		/* Counting sort: O(N), so setting up costs little next to the loop measured. */
		for (i = 0; i < n; i++)
			counts[a[i]]++;
		for (i = 0; i < 256; i++)
			while (counts[i]--)
				a[k++] = (uint8_t)i;
	}
	MICRO_BEGIN("branch");
	sink = count_high(a, n);
	MICRO_END("branch");
	free(a);
	return 0;
}
