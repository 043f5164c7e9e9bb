/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spread.c - work in three places at once, to check that sampling follows threads, children and libraries.
 *
 *	spread [SECONDS]
 *
 * At the same time, SECONDS (default 0.3) of CPU time each: a second thread runs spread_thread_spin(), a
 * forked child process runs spread_child_spin(), and the main thread runs profwork_lib_spin() in
 * libprofwork.so. A profile of the command must name all three, each in its own object. CPU time, not wall
 * time, so that the three get equal shares even when they do not all get a CPU of their own.
 */
#include "profwork.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t spread_sink;

/* The calling thread's CPU time. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The same loop under two names, so that each place's samples carry a name of its own. */
#define SPIN_BODY(seconds, seed)                                                     \
	double end = now() + (seconds);                                               \
	uint64_t x = (seed);                                                          \
	while (now() < end) {                                                         \
		for (int i = 0; i < 65536; i++) {                                     \
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;      \
			x ^= x >> 29;                                                 \
			__asm__ volatile("" : "+r"(x));                               \
		}                                                                     \
	}                                                                             \
	return x

static __attribute__((noinline, noclone)) uint64_t spread_thread_spin(double seconds)
{
	SPIN_BODY(seconds, 0x13198a2e03707344ULL);
}

static __attribute__((noinline, noclone)) uint64_t spread_child_spin(double seconds)
{
	SPIN_BODY(seconds, 0xa4093822299f31d0ULL);
}

static double seconds = 0.3;

static void *thread_main(void *arg)
{
	(void)arg;
	spread_sink += spread_thread_spin(seconds);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	pid_t child;
	int status;

	if (argc > 1)
		seconds = atof(argv[1]);
	child = fork();
	if (child < 0) {
		perror("spread: fork");
		return 1;
	}
	if (child == 0) {
		spread_sink += spread_child_spin(seconds);
		_exit(0);
	}
	if (pthread_create(&th, NULL, thread_main, NULL)) {
		fprintf(stderr, "spread: cannot start a thread\n");
		return 1;
	}
	spread_sink += profwork_lib_spin(seconds);
	pthread_join(th, NULL);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "spread: the child failed\n");
		return 1;
	}
	return 0;
}
