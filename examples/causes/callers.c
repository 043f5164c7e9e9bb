/* SPDX-License-Identifier: GPL-2.0-or-later */
/* callers.c - memcpy called from two functions; in variant b one of them copies four times as much. */

/*
 *   callers a|b [N]
 *
 * N rounds (default 20000), each copying a header (256 bytes, from copy_header) and a payload (1024 bytes
 * in a, 4096 in b, from copy_payload) with the C library's memcpy. Everything else is the same in both, so
 * all of memcpy's extra work in b comes from copy_payload: the known answer is "memcpy, called from
 * copy_payload". The sizes reach memcpy at run time, so the compiler cannot inline the copies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char src[8192], dst[2][8192];
static volatile size_t header_size = 256, payload_size = 1024;

/* Each returns a byte of its copy: work after the call, so that the compiler cannot make it a tail call. */
static __attribute__((noinline)) unsigned char copy_header(size_t n)
{
	memcpy(dst[0], src, n);
	return (unsigned char)dst[0][n - 1];
}

static __attribute__((noinline)) unsigned char copy_payload(size_t n)
{
	memcpy(dst[1], src + 64, n);
	return (unsigned char)dst[1][n - 1];
}

int main(int argc, char **argv)
{
	long rounds = argc > 2 ? atol(argv[2]) : 20000;
	unsigned sum = 0;

	if (argc < 2 || (strcmp(argv[1], "a") && strcmp(argv[1], "b")) || rounds <= 0) {
		fprintf(stderr, "usage: callers a|b [N]\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (char)(i * 7);
	for (long r = 0; r < rounds; r++) {
		sum += copy_header(header_size);
		sum += copy_payload(argv[1][0] == 'b' ? 4 * payload_size : payload_size);
	}
	return sum == 1; /* keeps the copies alive */
}
