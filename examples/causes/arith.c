/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arith.c - the same loop with K extra multiply-adds per iteration: a slowdown whose cause is instructions. */

/*
 *   arith N K
 *
 * N iterations over a small array that stays in L1, each doing K extra dependent multiply-adds on a
 * register. K only adds arithmetic: the memory accesses and the branches are the same for every K, so
 * the known cause of a slowdown between two K is more instructions.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static volatile uint64_t sink;

static __attribute__((noinline)) uint64_t work(const uint64_t *a, uint64_t n, unsigned k)
{
	uint64_t s = 0;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t x = a[i & 255];

		/* An empty asm with x as in-out operand keeps every multiply-add: none can be folded away. */
		for (unsigned j = 0; j < k; j++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			__asm__ volatile("" : "+r"(x));
		}
		s += x;
	}
	return s;
}

int main(int argc, char **argv)
{
	uint64_t a[256];
	char *end;
	unsigned long long n;
	unsigned long k;

	if (argc != 3 || (n = strtoull(argv[1], &end, 10), *end) || (k = strtoul(argv[2], &end, 10), *end)) {
		fprintf(stderr, "usage: arith N K\n");
		return 2;
	}
	for (int i = 0; i < 256; i++)
		a[i] = (uint64_t)i * 2654435761u;
	sink = work(a, n, (unsigned)k);
	return 0;
}
