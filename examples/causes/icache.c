/* SPDX-License-Identifier: GPL-2.0-or-later */
/* icache.c - a hot loop calling many distinct functions or one repeatedly: a cause that is L1i misses. */

/*
 *   icache N many|few
 *
 * Each of N rounds makes 512 direct calls. With "many" they go to 512 distinct functions of about 200
 * bytes each, about 100 KiB of code, which cycles through a 32 KiB L1i; with "few" all 512 go to one of
 * them, which stays in L1i. Both execute the same instructions and the same branches (direct calls and
 * returns, predicted alike), so the known cause of the difference is instruction-cache misses.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile uint64_t sink;

/* A function body of a few dozen instructions that the compiler cannot shorten or merge with another. */
#define BODY(i)                                                                                    \
	{                                                                                          \
		uint64_t y = x ^ (i);                                                               \
		for (int r = 0; r < 4; r++) {                                                      \
			y = y * 0x9E3779B97F4A7C15ULL + (i);                                         \
			__asm__ volatile("" : "+r"(y));                                            \
			y ^= y >> 29;                                                              \
			__asm__ volatile("" : "+r"(y));                                            \
			y += (uint64_t)(i) * 0xBF58476D1CE4E5B9ULL;                                  \
			__asm__ volatile("" : "+r"(y));                                            \
		}                                                                                  \
		return y;                                                                          \
	}

#define F1(i) static __attribute__((noinline, noclone)) uint64_t f##i(uint64_t x) BODY(i)
#define F8(i) F1(i##0) F1(i##1) F1(i##2) F1(i##3) F1(i##4) F1(i##5) F1(i##6) F1(i##7)
#define F64(i) F8(i##0) F8(i##1) F8(i##2) F8(i##3) F8(i##4) F8(i##5) F8(i##6) F8(i##7)
#define F512 F64(10) F64(11) F64(12) F64(13) F64(14) F64(15) F64(16) F64(17)
F512

/* The same 512 call sites in both cases; only their targets differ. */
#define C1(i) x = (many ? f##i : f1000)(x);
#define C8(i) C1(i##0) C1(i##1) C1(i##2) C1(i##3) C1(i##4) C1(i##5) C1(i##6) C1(i##7)
#define C64(i) C8(i##0) C8(i##1) C8(i##2) C8(i##3) C8(i##4) C8(i##5) C8(i##6) C8(i##7)
#define C512 C64(10) C64(11) C64(12) C64(13) C64(14) C64(15) C64(16) C64(17)

static __attribute__((noinline)) uint64_t many_calls(uint64_t n, uint64_t x)
{
	for (uint64_t r = 0; r < n; r++) {
		const int many = 1;

		C512
	}
	return x;
}

static __attribute__((noinline)) uint64_t few_calls(uint64_t n, uint64_t x)
{
	for (uint64_t r = 0; r < n; r++) {
		const int many = 0;

		C512
	}
	return x;
}

int main(int argc, char **argv)
{
	char *end;
	unsigned long long n;

	if (argc != 3 || (n = strtoull(argv[1], &end, 10), *end) ||
	    (strcmp(argv[2], "many") && strcmp(argv[2], "few"))) {
		fprintf(stderr, "usage: icache N many|few\n");
		return 2;
	}
	sink = !strcmp(argv[2], "many") ? many_calls(n, 1) : few_calls(n, 1);
	return 0;
}
