/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * crosscheck.c - programs whose software counts are known, to hold whyslow's perf backend against perf.
 *
 *	crosscheck touch N     touch N fresh pages of an anonymous mapping: N page faults more than `touch 0`
 *	crosscheck fork N      a child process touches the N pages and exits, then the parent waits for it
 *	crosscheck sleep N     sleep 1 ms N times: N voluntary context switches
 *	crosscheck cpu N       run until it has had N ms of CPU time since main(): task-clock N ms and a little
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

static int touch(long n)
{
	char *p = n ? mmap(NULL, (size_t)n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : NULL;

	if (p == MAP_FAILED)
		return 1;
	for (long i = 0; i < n; i++)
		p[i * 4096] = 1;
	return 0;
}

int main(int argc, char **argv)
{
	long n;
	char *end;

	if (argc != 3 || (n = strtol(argv[2], &end, 10)) < 0 || *end) {
		fprintf(stderr, "usage: crosscheck touch|fork|sleep|spin N\n");
		return 129;
	}
	if (!strcmp(argv[1], "touch")) {
		return touch(n);
	} else if (!strcmp(argv[1], "fork")) {
		/* The counts of a child, which both tools must add: they count from the exec, children included. */
		int status;
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0)
			_exit(touch(n));
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
			return 1;
	} else if (!strcmp(argv[1], "sleep")) {
		struct timespec ms = { 0, 1000000 };

		for (long i = 0; i < n; i++)
			nanosleep(&ms, NULL);
	} else if (!strcmp(argv[1], "cpu")) {
		/*
		 * Until the process's own CPU clock, the time task-clock counts, has moved N ms. A fixed amount of
		 * work instead took 70 to 83 ms from one run to the next on a shared machine (the host's other
		 * guests slow it), and two tools' runs could not be compared closer than that.
		 */
		uint64_t x = 88172645463325252ULL;
		struct timespec t, t0;

		/* From here: the clock also holds what the process spent before its exec, which differs
		 * between the tools that start it (0.5 ms more under perf stat than under whyslow). */
		if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0))
			return 1;
		do {
			for (int i = 0; i < 1000; i++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
			}
			if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t))
				return 1;
		} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < n * 1000000L);
		sink = x;
	} else {
		fprintf(stderr, "crosscheck: unknown mode '%s'\n", argv[1]);
		return 129;
	}
	return 0;
}
