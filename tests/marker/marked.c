/* SPDX-License-Identifier: GPL-2.0-or-later */
/* marked.c - a workload with region markers, for the marker tests: nesting, threads, fork, recursion. */
#include <whyslow.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * usage: marked [-n ITER] [-s SPIN] [-t THREADS] [-f] [-r] [-u] [-l]
 *
 * Every iteration runs region "outer", which holds region "inner" (spinning and touching fresh pages, so
 * both task-clock and page-faults grow); all of it inside region "main". -t also runs THREADS threads doing
 * the same iterations with the handle form. -f forks a child that runs region "child" around ITER more
 * iterations, ends "main" (open at the fork) and leaves with exit(). -r runs region "rec" around a recursive function, 3 calls of depth 4.
 * -u ends region "stray" that never began and leaves region "open" open. -l uses a name of 5000 bytes,
 * which the library refuses. The output, a checksum, is the same
 * whether the markers are compiled in, active or not.
 */

static long iterations = 5, spin_amount = 200000;
static ws_region_t outer_h, inner_h;

static uint64_t spin(long n)
{
	volatile uint64_t x = 1;

	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

/* Fresh pages from the kernel: malloc serves 256 KiB with mmap, so each call takes page faults. */
static uint64_t touch(void)
{
	size_t len = 256 * 1024;
	unsigned char *p = malloc(len);
	uint64_t sum = 0;

	if (!p)
		return 0;
	memset(p, 1, len);
	for (size_t i = 0; i < len; i += 4096)
		sum += p[i];
	free(p);
	return sum;
}

static uint64_t iterate_named(void)
{
	uint64_t sum = 0;

	for (long i = 0; i < iterations; i++) {
		WS_REGION_BEGIN("outer");
		sum += spin(spin_amount);
		WS_REGION_BEGIN("inner");
		sum += spin(spin_amount) + touch();
		WS_REGION_END("inner");
		sum += spin(spin_amount);
		WS_REGION_END("outer");
	}
	return sum;
}

static void *worker(void *arg)
{
	uint64_t *sum = arg;

	WS_REGION_INIT(outer_h, "outer");
	WS_REGION_INIT(inner_h, "inner");
	for (long i = 0; i < iterations; i++) {
		WS_REGION_BEGIN_H(outer_h);
		*sum += spin(spin_amount);
		WS_REGION_BEGIN_H(inner_h);
		*sum += spin(spin_amount) + touch();
		WS_REGION_END_H(inner_h);
		*sum += spin(spin_amount);
		WS_REGION_END_H(outer_h);
	}
	return NULL;
}

static uint64_t recurse(int depth)
{
	uint64_t sum;

	WS_REGION_BEGIN("rec");
	sum = spin(spin_amount / 4) + (depth > 1 ? recurse(depth - 1) : 0);
	WS_REGION_END("rec");
	return sum;
}

int main(int argc, char **argv)
{
	long threads = 0;
	int do_fork = 0, do_rec = 0, do_unmatched = 0, do_long = 0, opt;
	uint64_t sum = 0, *tsum = NULL;
	pthread_t *tid = NULL;

	while ((opt = getopt(argc, argv, "n:s:t:frul")) != -1) {
		switch (opt) {
		case 'n': iterations = atol(optarg); break;
		case 's': spin_amount = atol(optarg); break;
		case 't': threads = atol(optarg); break;
		case 'f': do_fork = 1; break;
		case 'r': do_rec = 1; break;
		case 'u': do_unmatched = 1; break;
		case 'l': do_long = 1; break;
		default:
			fprintf(stderr, "usage: marked [-n ITER] [-s SPIN] [-t THREADS] [-f] [-r] [-u] [-l]\n");
			return 129;
		}
	}
	WS_REGION_BEGIN("main");
	if (threads > 0) {
		tid = calloc((size_t)threads, sizeof(*tid));
		tsum = calloc((size_t)threads, sizeof(*tsum));
		if (!tid || !tsum)
			return 1;
		for (long i = 0; i < threads; i++)
			if (pthread_create(&tid[i], NULL, worker, &tsum[i]))
				return 1;
	}
	sum += iterate_named();
	for (long i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		sum += tsum[i];
	}
	if (do_rec)
		for (int i = 0; i < 3; i++)
			sum += recurse(4);
	if (do_fork) {
		pid_t pid;
		int status;

		fflush(stdout);
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			WS_REGION_BEGIN("child");
			iterate_named();
			WS_REGION_END("child");
			/* "main" was open at the fork: the child ends its share of it too. */
			WS_REGION_END("main");
			exit(0);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
			return 1;
	}
	if (do_unmatched) {
		WS_REGION_END("stray");
		WS_REGION_BEGIN("open");
	}
	if (do_long) {
		static char name[5001];

		memset(name, 'x', sizeof(name) - 1);
		WS_REGION_BEGIN(name);
		sum += spin(spin_amount);
		WS_REGION_END(name);
	}
	WS_REGION_END("main");
	printf("checksum %llu\n", (unsigned long long)sum);
	free(tid);
	free(tsum);
	return 0;
}
