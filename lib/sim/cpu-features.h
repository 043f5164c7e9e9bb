/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpu-features.h - the CPU features the simulated CPU hides from a program, and how to hide them natively. */
#ifndef WS_CPU_FEATURES_H
#define WS_CPU_FEATURES_H

/*
 * Valgrind's virtual CPU answers CPUID with a model of its own: on a host with AVX-512 the simulated
 * program sees none, and glibc's string functions (chosen by CPU features when the program loads) and any
 * code that dispatches on CPUID run another implementation under the simulator than natively. whyslow
 * compares the features the CPUID probe (sim/wsim-cpuid.c) reports natively with those it reports under
 * the tool. The simulated list is cached per tool build in $XDG_CACHE_HOME/whyslow (or ~/.cache/whyslow),
 * so the tool runs once per machine and build; the native probe is cheap and runs each time.
 *
 * WHYSLOW_TEST_HOST_CPU_FEATURES=a,b,c replaces the host's list (a test interface: a host without hidden
 * features, or with features the simulator lacks, on any machine).
 */
struct ws_cpu_features {
	char **host;    /* what CPUID reports natively, NULL-terminated, /proc/cpuinfo's names */
	char **sim;     /* what it reports under the tool */
	char **hidden;  /* in host, not in sim: the simulator hides them */
	char **added;   /* in sim, not in host: the simulator shows features this CPU lacks */
};

#define WS_CPU_FEATURES_INIT { 0 }

/*
 * Fill `f`. Returns 0; -ENOENT when the tool, valgrind or the probe is missing, or another negative errno
 * when the probe could not run (with a ws_log() message). `f` is released in any case by the caller.
 */
int ws_cpu_features_probe(struct ws_cpu_features *f);
void ws_cpu_features_release(struct ws_cpu_features *f);

/* The list as one string, "a, b and c" (a new string), or NULL when it is empty. */
char *ws_cpu_features_join(char *const *list);

/*
 * The GLIBC_TUNABLES value that masks the hidden features glibc's tunables reach
 * ("glibc.cpu.hwcaps=-AVX512F,-AVX512VL,..."), a new string, or NULL when none is hidden. *unreached, when
 * not NULL, gets the hidden features glibc cannot mask ("sha_ni, vaes"; a new string or NULL): a program's
 * own CPUID dispatch on those still differs.
 */
char *ws_cpu_features_tunable(const struct ws_cpu_features *f, char **unreached);

#endif
