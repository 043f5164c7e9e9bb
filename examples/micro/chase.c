/* SPDX-License-Identifier: GPL-2.0-or-later */
/* chase.c - a pointer chase over a working set: one dependent load per cache line, in random cyclic order. */

/*
 *   chase SIZE [PASSES]
 *
 * The lines of a SIZE-byte buffer form one random cycle (Sattolo's algorithm), each holding the address of
 * the next. One pass visits every line once. After a warm-up pass, region "chase" covers PASSES passes
 * (default 1), so it makes exactly PASSES * SIZE / 64 loads, each to a different line than the one before:
 * with LRU caches it misses in every level smaller than SIZE and hits in the first level that holds it all.
 */
#include <string.h>

#include "micro.h"

#define LINE 64

static void *chase(void *p, uint64_t n)
{
	while (n--)
		p = *(void **)p;
	return p;
}

int main(int argc, char **argv)
{
	uint64_t size, passes = 1, lines, i, seed = 0x9e3779b97f4a7c15ULL;
	uint32_t *order;
	char *buf;
	void *volatile sink;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: chase SIZE [PASSES]\n");
		return 2;
	}
	size = micro_arg(argv[1], "size");
	if (argc == 3)
		passes = micro_arg(argv[2], "passes");
	lines = size / LINE;
	if (lines < 2) {
		fprintf(stderr, "chase: SIZE must hold at least two %d-byte lines\n", LINE);
		return 2;
	}
	buf = aligned_alloc(4096, lines * LINE);
	order = malloc(lines * sizeof(*order));
	if (!buf || !order) {
		perror("chase");
		return 1;
	}
	/* Sattolo: a uniformly random permutation with a single cycle through every line. */
	for (i = 0; i < lines; i++)
		order[i] = (uint32_t)i;
	for (i = lines - 1; i > 0; i--) {
		uint64_t j = micro_rand(&seed) % i;
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < lines; i++)
		*(void **)(buf + (uint64_t)i * LINE) = buf + (uint64_t)order[i] * LINE;
	free(order);

	sink = chase(buf, lines);
	MICRO_BEGIN("chase");
	sink = chase(sink, passes * lines);
	MICRO_END("chase");
	(void)sink;
	free(buf);
	return 0;
}
