/* SPDX-License-Identifier: GPL-2.0-or-later */
/* longjmp.c - leaves three frames by longjmp, and runs a signal handler, many times: call tracking must follow. */

/*
 *   longjmp N
 *
 * N times: main calls lj_top, which calls lj_mid, which calls lj_leaf, which longjmps back into main, so
 * none of the three returns. Then N signals, each handled by lj_handler inside raise(). Last, main calls
 * lj_after. A shadow call stack that missed the longjmps would grow by three frames each time, and lj_after
 * would look called from lj_leaf; a correct one has lj_after called from main.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>

static jmp_buf env;
static volatile int sink;

static __attribute__((noinline)) void lj_leaf(int i)
{
	sink += i;
	longjmp(env, 1);
}

static __attribute__((noinline)) void lj_mid(int i)
{
	sink ^= i;
	lj_leaf(i);
	sink++;
}

static __attribute__((noinline)) void lj_top(int i)
{
	sink += 2 * i;
	lj_mid(i);
	sink--;
}

static void lj_handler(int sig)
{
	sink += sig;
}

static __attribute__((noinline)) int lj_after(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i ^ sink;
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;

	for (volatile int i = 0; i < n; i++)
		if (!setjmp(env))
			lj_top(i);
	signal(SIGUSR1, lj_handler);
	for (int i = 0; i < n; i++)
		raise(SIGUSR1);
	return lj_after(1000) == 1;
}
