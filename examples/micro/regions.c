/* SPDX-License-Identifier: GPL-2.0-or-later */
/* regions.c - regions nested, repeated, re-entered recursively, left open at exit, and ended unbegun. */

/*
 *   regions
 *
 * "outer" holds three entries of "inner" (10000 iterations each) and 5000 iterations of its own; "rec" is
 * begun again by each of 5 nested recursive calls (1000 iterations each); "open" is still open at exit;
 * "never" is ended without having begun.
 */
#include "micro.h"

static volatile uint64_t sink;

static __attribute__((noinline)) void work(uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		sink += i;
}

static __attribute__((noinline)) void rec(int depth)
{
	MICRO_BEGIN("rec");
	work(1000);
	if (depth > 0)
		rec(depth - 1);
	MICRO_END("rec");
}

int main(void)
{
	int k;

	MICRO_END("never");
	MICRO_BEGIN("outer");
	for (k = 0; k < 3; k++) {
		MICRO_BEGIN("inner");
		work(10000);
		MICRO_END("inner");
	}
	work(5000);
	MICRO_END("outer");
	rec(4);
	MICRO_BEGIN("open");
	work(100);
	return 0;
}
