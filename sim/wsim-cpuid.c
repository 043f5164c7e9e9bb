/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wsim-cpuid.c - print the CPU features CPUID reports, one name a line: run natively and under wsim, the
 * two lists say which features the simulated CPU hides from the program (lib/sim/cpu-features.c).
 *
 * Valgrind's virtual CPU answers CPUID with a model of its own (no AVX-512, for one), and glibc and any
 * program that dispatches on CPUID pick their code by it: the simulated program can run other code than
 * the native one. Names are /proc/cpuinfo's, and the list is the features code dispatches on.
 */
#include <cpuid.h>
#include <stdio.h>

struct feature {
	const char *name;
	unsigned leaf, subleaf;
	char reg; /* 'a', 'b', 'c' or 'd': the register holding the bit */
	unsigned bit;
};

static const struct feature features[] = {
	{ "sse3", 1, 0, 'c', 0 },         { "pclmulqdq", 1, 0, 'c', 1 },    { "ssse3", 1, 0, 'c', 9 },
	{ "fma", 1, 0, 'c', 12 },         { "cx16", 1, 0, 'c', 13 },        { "sse4_1", 1, 0, 'c', 19 },
	{ "sse4_2", 1, 0, 'c', 20 },      { "movbe", 1, 0, 'c', 22 },       { "popcnt", 1, 0, 'c', 23 },
	{ "aes", 1, 0, 'c', 25 },         { "xsave", 1, 0, 'c', 26 },       { "avx", 1, 0, 'c', 28 },
	{ "f16c", 1, 0, 'c', 29 },        { "rdrand", 1, 0, 'c', 30 },      { "sse2", 1, 0, 'd', 26 },
	{ "bmi1", 7, 0, 'b', 3 },         { "avx2", 7, 0, 'b', 5 },         { "bmi2", 7, 0, 'b', 8 },
	{ "erms", 7, 0, 'b', 9 },         { "rtm", 7, 0, 'b', 11 },         { "avx512f", 7, 0, 'b', 16 },
	{ "avx512dq", 7, 0, 'b', 17 },    { "rdseed", 7, 0, 'b', 18 },      { "adx", 7, 0, 'b', 19 },
	{ "avx512ifma", 7, 0, 'b', 21 },  { "clflushopt", 7, 0, 'b', 23 },  { "clwb", 7, 0, 'b', 24 },
	{ "avx512cd", 7, 0, 'b', 28 },    { "sha_ni", 7, 0, 'b', 29 },      { "avx512bw", 7, 0, 'b', 30 },
	{ "avx512vl", 7, 0, 'b', 31 },    { "avx512vbmi", 7, 0, 'c', 1 },   { "avx512_vbmi2", 7, 0, 'c', 6 },
	{ "gfni", 7, 0, 'c', 8 },         { "vaes", 7, 0, 'c', 9 },         { "vpclmulqdq", 7, 0, 'c', 10 },
	{ "avx512_vnni", 7, 0, 'c', 11 }, { "avx512_bitalg", 7, 0, 'c', 12 }, { "avx512_vpopcntdq", 7, 0, 'c', 14 },
	{ "rdpid", 7, 0, 'c', 22 },       { "fsrm", 7, 0, 'd', 4 },         { "avx512_fp16", 7, 0, 'd', 23 },
	{ "avx_vnni", 7, 1, 'a', 4 },     { "avx512_bf16", 7, 1, 'a', 5 },  { "abm", 0x80000001, 0, 'c', 5 },
	{ "sse4a", 0x80000001, 0, 'c', 6 }, { "fma4", 0x80000001, 0, 'c', 16 },
};

int main(void)
{
	unsigned max_basic = __get_cpuid_max(0, NULL), max_ext = __get_cpuid_max(0x80000000, NULL);

	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++) {
		const struct feature *f = &features[i];
		unsigned r[4] = { 0, 0, 0, 0 }, v;

		/* A leaf above the maximum answers with the highest leaf's values on Intel: never ask for one. */
		if (f->leaf < 0x80000000 ? f->leaf > max_basic : f->leaf > max_ext)
			continue;
		__cpuid_count(f->leaf, f->subleaf, r[0], r[1], r[2], r[3]);
		v = f->reg == 'a' ? r[0] : f->reg == 'b' ? r[1] : f->reg == 'c' ? r[2] : r[3];
		if (v >> f->bit & 1)
			printf("%s\n", f->name);
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
