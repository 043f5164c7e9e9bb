/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * copier.c - a program that spends its time in memcpy, whose implementation glibc picks by CPU features.
 *
 *	copier N     N million bytes copied, 4 KiB at a time
 *
 * Natively on a CPU with AVX-512 glibc runs one memcpy; under the simulator, whose CPU lacks it, another.
 * t4102 shows that whyslow says so, and that --sim-cpu-native makes the native runs take the simulated
 * implementation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char src[4096], dst[4096];

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	/* Through a volatile pointer, so that the size is not known and the call stays a call. */
	static volatile size_t size = sizeof(src);
	size_t sum = 0;

	for (long i = 0; i < n * 1000000 / (long)sizeof(src); i++) {
		memcpy(dst, src, size);
		src[i % sizeof(src)] = (char)i;
		sum += (unsigned char)dst[(size_t)i % sizeof(dst)];
	}
	printf("%zu\n", sum);
	return 0;
}
