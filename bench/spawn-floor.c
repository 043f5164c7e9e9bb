/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spawn-floor.c - the floor for bench/overhead.sh: run a command N times with posix_spawn + wait4, nothing else. */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv)
{
	long n;

	if (argc < 3) {
		fprintf(stderr, "usage: spawn-floor N command [args...]\n");
		return 129;
	}
	n = atol(argv[1]);
	for (long i = 0; i < n; i++) {
		struct rusage ru;
		int status;
		pid_t pid;

		if (posix_spawnp(&pid, argv[2], NULL, NULL, argv + 2, environ)) {
			perror("posix_spawnp");
			return 1;
		}
		if (wait4(pid, &status, 0, &ru) < 0) {
			perror("wait4");
			return 1;
		}
	}
	return 0;
}
