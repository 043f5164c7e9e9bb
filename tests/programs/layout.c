/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * layout.c - a loop whose cache misses depend on where the stack is, and its twin whose misses do not.
 *
 *	layout stack|static ROUNDS
 *
 * A static array fills 16 sets of the 32 KB 8-way L1d (sets 0-15, every way: lines 4096 bytes apart), and
 * a 1 KB buffer covers 16 more consecutive sets. With "stack" the buffer is on the stack, whose address
 * moves with the size of the environment: where its sets fall on 0-15, those sets hold nine lines for
 * eight ways and miss on every pass; elsewhere nothing misses. With "static" the loop reads half the ways
 * and the buffer is a second static array at a fixed place: no set ever holds more lines than it has ways,
 * even with what the prefetchers bring in beside them, so nothing depends on the stack. The loop is a
 * marked region ("loop"), so that what start-up does with the environment stays outside it. t4103
 * simulates both under --layouts 4.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/valgrind.h>

#include "ws-markers.h"

#define LINE 64
#define WAYS 8
#define SETS 16

static char fill[WAYS * 4096] __attribute__((aligned(4096)));
static char fixed[2 * SETS * LINE] __attribute__((aligned(4096)));
static volatile uint64_t sink;

static __attribute__((noinline)) uint64_t passes(const char *buf, int ways, long rounds)
{
	uint64_t sum = 0;

	for (long r = 0; r < rounds; r++) {
		for (int s = 0; s < SETS; s++) {
			for (int w = 0; w < ways; w++)
				sum += (unsigned char)fill[w * 4096 + s * LINE];
			sum += (unsigned char)buf[s * LINE];
		}
	}
	return sum;
}

int main(int argc, char **argv)
{
	char stack[SETS * LINE + LINE];
	/* Line-aligned, so that the buffer covers exactly 16 sets wherever the stack is. */
	char *buf = (char *)(((uintptr_t)stack + LINE - 1) & ~(uintptr_t)(LINE - 1));
	int ways = WAYS;
	long rounds;

	if (argc != 3 || (strcmp(argv[1], "stack") && strcmp(argv[1], "static")) || (rounds = atol(argv[2])) <= 0)
		return 129;
	if (!strcmp(argv[1], "static")) {
		buf = fixed + SETS * LINE; /* sets 16-31: never those of `fill` */
		ways = WAYS / 2;
	}
	/* Written here, so that the compiler cannot take the arrays for the zeros they start as. */
	memset(fill, 2, sizeof(fill));
	memset(buf, 1, SETS * LINE);
	/* One pass before the region, so that it measures the steady state, not which lines start cold. */
	sink = passes(buf, ways, 1);
	VALGRIND_DO_CLIENT_REQUEST_STMT(WS_REQ_REGION_BEGIN, "loop", 0, 0, 0, 0);
	sink = passes(buf, ways, rounds);
	VALGRIND_DO_CLIENT_REQUEST_STMT(WS_REQ_REGION_END, "loop", 0, 0, 0, 0);
	return 0;
}
