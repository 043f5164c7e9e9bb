/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slots.c - four threads count in adjacent 8-byte slots of one cache line; main only reads them at the end. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* One line, so that the simulator sees false sharing between every pair of threads (t4107, t4108). */
static volatile long slots[4] __attribute__((aligned(64)));
static long iterations = 1000000;
/*
 * The threads start counting together. Without it, on a loaded machine the first thread could count to
 * the end under Valgrind before the host had even started the others, and a run saw no sharing at all.
 */
static pthread_barrier_t start;

static void *work(void *arg)
{
	long id = (long)arg;

	pthread_barrier_wait(&start);
	for (long i = 0; i < iterations; i++)
		slots[id]++;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[4];

	if (argc > 1)
		iterations = atol(argv[1]);
	pthread_barrier_init(&start, NULL, 4);
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("%ld\n", slots[0] + slots[1] + slots[2] + slots[3]);
	return 0;
}
