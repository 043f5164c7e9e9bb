/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * crosscheck.c - programs whose software counts are known, to hold whyslow's perf backend against perf.
 *
 *	crosscheck touch N     touch N fresh pages of an anonymous mapping: N page faults more than `touch 0`
 *	crosscheck fork N      a child process touches the N pages and exits, then the parent waits for it
 *	crosscheck sleep N     sleep 1 ms N times: N voluntary context switches
 *	crosscheck spin N      N million steps of a serial dependency chain: a fixed amount of CPU work
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
	} else if (!strcmp(argv[1], "spin")) {
		uint64_t x = 88172645463325252ULL;

		/* xorshift: serial, no closed form, the same cost per step on any run. */
		for (long i = 0; i < n * 1000000; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		sink = x;
	} else {
		fprintf(stderr, "crosscheck: unknown mode '%s'\n", argv[1]);
		return 129;
	}
	return 0;
}
