/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loop.c - regions around loops of a known instruction count, for the simulator's region test. */
#include <whyslow.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * usage: loop A B C D T
 *
 * Region "outer" runs A iterations, then region "inner" with B, then C more; then T threads each run region
 * "thread" (handle form) around D iterations. An iteration is exactly two instructions (decrement, branch),
 * so the program prints what the simulator must report:
 *
 *	expect inner instructions 2B
 *	expect outer instructions 2(A+B+C)
 *	expect thread instructions 2DT
 *
 * plus the markers' own few dozen instructions per region, far inside the test's 0.1%. Exits 77 on a
 * machine without such a loop below.
 */

static ws_region_t thread_h;
static unsigned long per_thread;

#if defined(__x86_64__)
#define HAVE_LOOP 1
static void loop(unsigned long n)
{
	if (n)
		__asm__ __volatile__("1:\n\tsub $1, %0\n\tjnz 1b" : "+r"(n) : : "cc");
}
#elif defined(__aarch64__)
#define HAVE_LOOP 1
static void loop(unsigned long n)
{
	if (n)
		__asm__ __volatile__("1:\n\tsubs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
}
#else
#define HAVE_LOOP 0
static void loop(unsigned long n)
{
	(void)n;
}
#endif

static void *worker(void *arg)
{
	(void)arg;
	WS_REGION_INIT(thread_h, "thread");
	WS_REGION_BEGIN_H(thread_h);
	loop(per_thread);
	WS_REGION_END_H(thread_h);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long a, b, c, t;
	pthread_t tid[64];

	if (!HAVE_LOOP)
		return 77;
	if (argc != 6) {
		fprintf(stderr, "usage: loop A B C D T\n");
		return 129;
	}
	a = strtoul(argv[1], NULL, 0);
	b = strtoul(argv[2], NULL, 0);
	c = strtoul(argv[3], NULL, 0);
	per_thread = strtoul(argv[4], NULL, 0);
	t = strtoul(argv[5], NULL, 0);
	if (t > 64)
		return 129;

	WS_REGION_BEGIN("outer");
	loop(a);
	WS_REGION_BEGIN("inner");
	loop(b);
	WS_REGION_END("inner");
	loop(c);
	WS_REGION_END("outer");

	for (unsigned long i = 0; i < t; i++)
		if (pthread_create(&tid[i], NULL, worker, NULL))
			return 1;
	for (unsigned long i = 0; i < t; i++)
		pthread_join(tid[i], NULL);

	printf("expect inner instructions %lu\n", 2 * b);
	printf("expect outer instructions %lu\n", 2 * (a + b + c));
	printf("expect thread instructions %lu\n", 2 * per_thread * t);
	return 0;
}
