/* SPDX-License-Identifier: GPL-2.0-or-later */
/* threads.c - two threads, each running the same counted loop inside its own region "worker". */

/*
 *   threads N [seq]
 *
 * Each worker makes N iterations of a loop with one load, one store and one conditional branch; the main
 * thread only starts and joins them. Region "worker" is therefore entered twice, once per thread, and each
 * thread's counts reach it only from its own begin to its own end. With "seq" the second worker starts only
 * after the first has been joined, so that Valgrind gives it the first one's thread id.
 */
#include <pthread.h>
#include <string.h>

#include "micro.h"

static uint64_t n_iter;

static void *worker(void *arg)
{
	volatile uint64_t *cell = arg;
	uint64_t i;

	MICRO_BEGIN("worker");
	for (i = 0; i < n_iter; i++)
		*cell = *cell + i;
	MICRO_END("worker");
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	/* Separate lines, so the two workers do not share one. */
	static volatile uint64_t cells[2][8];
	int i, seq;

	if (argc != 2 && !(argc == 3 && !strcmp(argv[2], "seq"))) {
		fprintf(stderr, "usage: threads N [seq]\n");
		return 2;
	}
	seq = argc == 3;
	n_iter = micro_arg(argv[1], "N");
	for (i = 0; i < 2; i++) {
		if (pthread_create(&t[i], NULL, worker, (void *)cells[i])) {
			fprintf(stderr, "threads: pthread_create failed\n");
			return 1;
		}
		if (seq)
			pthread_join(t[i], NULL);
	}
	for (i = 0; i < 2 && !seq; i++)
		pthread_join(t[i], NULL);
	return cells[0][0] == cells[1][0] ? 0 : 1;
}
