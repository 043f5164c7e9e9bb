/* SPDX-License-Identifier: GPL-2.0-or-later */
/* threads.c - two threads, each running the same counted loop inside its own region "worker". */

/*
 *   threads N [seq|fork]
 *
 * Each worker makes N iterations of a loop with one load, one store and one conditional branch; the main
 * thread only starts and joins them. Region "worker" is therefore entered twice, once per thread, and each
 * thread's counts reach it only from its own begin to its own end. With "seq" the second worker starts only
 * after the first has been joined, so that Valgrind gives it the first one's thread id. With "fork" a thread
 * other than the first forks, and in the child it and a thread it starts run workers on one cell: the child's
 * first thread is not the process's first, yet the child's report must number it 1 and the new one 2.
 */
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* "fork": the child's two threads write one cell, so that its report names both, each by its number. */
static void *forker(void *arg)
{
	static volatile uint64_t cell[8];
	pthread_t t;
	pid_t pid;
	int status;

	(void)arg;
	pid = fork();
	if (pid < 0)
		return (void *)1;
	if (pid == 0) {
		if (pthread_create(&t, NULL, worker, (void *)cell))
			_exit(1);
		worker((void *)cell);
		pthread_join(t, NULL);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return (void *)1;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	/* Separate lines, so the two workers do not share one. */
	static volatile uint64_t cells[2][8];
	int i, seq;

	if (argc != 2 && !(argc == 3 && (!strcmp(argv[2], "seq") || !strcmp(argv[2], "fork")))) {
		fprintf(stderr, "usage: threads N [seq|fork]\n");
		return 2;
	}
	n_iter = micro_arg(argv[1], "N");
	if (argc == 3 && !strcmp(argv[2], "fork")) {
		void *failed = NULL;

		if (pthread_create(&t[0], NULL, forker, NULL) || pthread_join(t[0], &failed) || failed) {
			fprintf(stderr, "threads: the forking thread failed\n");
			return 1;
		}
		return 0;
	}
	seq = argc == 3;
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
