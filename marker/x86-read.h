/* SPDX-License-Identifier: GPL-2.0-or-later */
/* x86-read.h - rdpmc and rdtsc: the markers' user-space counter reads, and the benchmark's floor of them. */
#ifndef WS_X86_READ_H
#define WS_X86_READ_H

#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#define HAVE_RDPMC 1

static inline uint64_t rd_pmc(uint32_t counter)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return (uint64_t)hi << 32 | lo;
}

static inline uint64_t rd_tsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}
#else
#define HAVE_RDPMC 0
#endif

#endif
