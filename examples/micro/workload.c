/* SPDX-License-Identifier: GPL-2.0-or-later */
/* workload.c - a memory- and branch-heavy mix: a hash table with random keys, then binary searches. */

/*
 *   workload N
 *
 * Inserts N random keys into an open-addressing hash table of 2N..4N slots (linear probing), looks up N
 * keys of which half are absent, then runs N binary searches in a sorted array of N/4 keys. Random probes
 * miss the caches once the table outgrows them, and the probe loops and searches branch on the data. The
 * checksum it prints depends on every step, so nothing can be optimised away.
 */
#include <string.h>

#include "micro.h"

struct slot {
	uint64_t key; /* 0: empty */
	uint64_t value;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	uint64_t n, cap = 1, mask, i, seed = 42, seed2, sum = 0, nsorted;
	struct slot *t;
	uint64_t *sorted;

	if (argc != 2) {
		fprintf(stderr, "usage: workload N\n");
		return 2;
	}
	n = micro_arg(argv[1], "N");
	while (cap < 2 * n)
		cap <<= 1;
	mask = cap - 1;
	t = calloc(cap, sizeof(*t));
	nsorted = n / 4 + 1;
	sorted = malloc(nsorted * sizeof(*sorted));
	if (!t || !sorted) {
		perror("workload");
		return 1;
	}

	for (i = 0; i < n; i++) {
		uint64_t k = micro_rand(&seed) | 1, h = (k * 0x9E3779B97F4A7C15ULL) & mask;

		while (t[h].key && t[h].key != k)
			h = (h + 1) & mask;
		t[h].key = k;
		t[h].value += i;
	}
	seed2 = 42;
	for (i = 0; i < n; i++) {
		/* Every other key was inserted; the others almost surely were not. */
		uint64_t k = (i & 1) ? micro_rand(&seed2) | 1 : micro_rand(&seed) | 1;
		uint64_t h = (k * 0x9E3779B97F4A7C15ULL) & mask;

		while (t[h].key) {
			if (t[h].key == k) {
				sum += t[h].value;
				break;
			}
			h = (h + 1) & mask;
		}
	}

	for (i = 0; i < nsorted; i++)
		sorted[i] = micro_rand(&seed) >> 1;
	qsort(sorted, nsorted, sizeof(*sorted), cmp_u64);
	for (i = 0; i < n; i++) {
		uint64_t q = micro_rand(&seed) >> 1, lo = 0, hi = nsorted;

		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;

			if (sorted[mid] < q)
				lo = mid + 1;
			else
				hi = mid;
		}
		sum += lo;
	}
	printf("%llu\n", (unsigned long long)sum);
	free(sorted);
	free(t);
	return 0;
}
