/* SPDX-License-Identifier: GPL-2.0-or-later */
/* micro.h - what the analytic microbenchmarks share: a fixed PRNG, argument parsing and region markers. */
#ifndef WS_MICRO_H
#define WS_MICRO_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <valgrind/valgrind.h>

#include "ws-markers.h" /* the client requests, as libwhyslow issues them */

/*
 * Regions go straight to the simulator as client requests, so these programs measure exactly the code
 * between the markers whatever state the marker library is in. Natively each costs a few instructions.
 */
#define MICRO_BEGIN(name) VALGRIND_DO_CLIENT_REQUEST_STMT(WS_REQ_REGION_BEGIN, (name), 0, 0, 0, 0)
#define MICRO_END(name) VALGRIND_DO_CLIENT_REQUEST_STMT(WS_REQ_REGION_END, (name), 0, 0, 0, 0)

/* xorshift64*: the same sequence on every run and every machine. */
static inline uint64_t micro_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/* A size or count argument with an optional K, M or G suffix (powers of 1024). */
static inline uint64_t micro_arg(const char *s, const char *what)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	switch (*end) {
	case 'K': v <<= 10; end++; break;
	case 'M': v <<= 20; end++; break;
	case 'G': v <<= 30; end++; break;
	default: break;
	}
	if (end == s || *end) {
		fprintf(stderr, "bad %s: '%s'\n", what, s);
		exit(2);
	}
	return v;
}

#endif
