/* SPDX-License-Identifier: GPL-2.0-or-later */
/* branch.c - one data-dependent branch over random or sorted bytes: a slowdown whose cause is mispredictions. */

/*
 *   branch N random|sorted
 *
 * Both modes make the same N random bytes and the same sorted copy (a counting sort), then run the same
 * loop over one of them: `if (byte >= 128)` is taken for half the bytes, at random or in one block. The
 * instructions executed are the same in both modes (the loop's count of taken branches is the same);
 * only the predictability of the branch differs, so the known cause is branch mispredictions.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile uint64_t sink;

static __attribute__((noinline)) uint64_t count_high(const uint8_t *a, uint64_t n)
{
	uint64_t c = 0;

	for (uint64_t i = 0; i < n; i++) {
		if (a[i] >= 128) {
			/* A volatile store cannot be made unconditional: the compiler must keep the branch. */
			c++;
			sink = c;
		}
	}
	return c;
}

int main(int argc, char **argv)
{
	uint64_t counts[256] = { 0 }, seed = 0x9E3779B97F4A7C15ULL, k = 0;
	uint8_t *a, *sorted;
	unsigned long long n;
	char *end;

	if (argc != 3 || (n = strtoull(argv[1], &end, 10), *end) ||
	    (strcmp(argv[2], "random") && strcmp(argv[2], "sorted"))) {
		fprintf(stderr, "usage: branch N random|sorted\n");
		return 2;
	}
	a = malloc(n + 1);
	sorted = malloc(n + 1);
	if (!a || !sorted)
		return 1;
	for (uint64_t i = 0; i < n; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		a[i] = (uint8_t)(seed >> 56);
		counts[a[i]]++;
	}
	for (int v = 0; v < 256; v++)
		for (uint64_t j = 0; j < counts[v]; j++)
			sorted[k++] = (uint8_t)v;
	sink = count_high(!strcmp(argv[2], "sorted") ? sorted : a, n);
	free(a);
	free(sorted);
	return 0;
}
