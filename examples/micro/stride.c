/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stride.c - loads at a fixed stride through a buffer larger than L2: the case a stride prefetcher exists for. */

/*
 *   stride SIZE STRIDE [PASSES]
 *
 * Region "stride" makes PASSES passes of SIZE / STRIDE loads, each STRIDE bytes after the last. With a
 * stride of several lines, every load is to a new line that a next-line prefetcher does not fetch, and
 * without a stride prefetcher each one misses L1d.
 */
#include "micro.h"

static __attribute__((noinline)) uint64_t walk(const char *buf, uint64_t size, uint64_t stride)
{
	uint64_t i, sum = 0;

	for (i = 0; i < size; i += stride)
		sum += *(const volatile uint64_t *)(buf + i);
	return sum;
}

int main(int argc, char **argv)
{
	uint64_t size, stride, passes = 1, p, i;
	volatile uint64_t sink = 0;
	char *buf;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: stride SIZE STRIDE [PASSES]\n");
		return 2;
	}
	size = micro_arg(argv[1], "size");
	stride = micro_arg(argv[2], "stride");
	if (argc == 4)
		passes = micro_arg(argv[3], "passes");
	if (stride < 8 || stride % 8) {
		fprintf(stderr, "stride: STRIDE must be a multiple of 8\n");
		return 2;
	}
	buf = aligned_alloc(4096, size);
	if (!buf) {
		perror("stride");
		return 1;
	}
	for (i = 0; i < size; i += 8)
		*(uint64_t *)(buf + i) = i;
	MICRO_BEGIN("stride");
	for (p = 0; p < passes; p++)
		sink += walk(buf, size, stride);
	MICRO_END("stride");
	free(buf);
	return 0;
}
