/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faults.c - a function that faults on every 7th call, the SIGSEGV handled: a block that a fault ends in its
 * first segment, for the counts at every --ws-tier (t4009).
 *
 * Usage: faults N (calls; prints how many faulted)
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static sigjmp_buf env;
static volatile long sink;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(env, 1);
}

/* Its entry starts a block; loads and stores before and after the one that faults, no branch in between. */
static __attribute__((noinline)) void touch(volatile long *p)
{
	sink = sink + 1;
	sink = sink * 3;
	sink += *p;
	sink ^= 5;
	sink += 7;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000;
	volatile int i, faults = 0;
	struct sigaction sa = { .sa_handler = on_segv };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL) != 0)
		return 2;
	for (i = 0; i < n; i++) {
		if (sigsetjmp(env, 1)) {
			faults++;
			continue;
		}
		/* Address 16 is never mapped. */
		touch(i % 7 == 0 ? (volatile long *)16 : &sink);
	}
	printf("%d\n", faults);
	return 0;
}
