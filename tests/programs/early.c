/* SPDX-License-Identifier: GPL-2.0-or-later */
/* early.c - main writes a cache line before it starts a thread, then both count in adjacent slots of it. */
#include <pthread.h>
#include <stdlib.h>

/*
 * main fills the line into its cache while it is the only thread, before the simulator's coherence model
 * looks at anything: the line must still be seen as shared once the second thread counts in it (t4107).
 * Neither thread waits for the other by polling, so the counts do not hang on Valgrind's schedule.
 */
static volatile long slots[2] __attribute__((aligned(64)));
static long iterations = 200000;
static pthread_barrier_t start;

static void *work(void *arg)
{
	pthread_barrier_wait(&start);
	for (long i = 0; i < iterations; i++)
		slots[1]++;
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		iterations = atol(argv[1]);
	slots[0] = 1;
	pthread_barrier_init(&start, NULL, 2);
	if (pthread_create(&t, NULL, work, NULL))
		return 1;
	pthread_barrier_wait(&start);
	for (long i = 0; i < iterations; i++)
		slots[0]++;
	return pthread_join(t, NULL) != 0 || slots[0] != iterations + 1;
}
