/* SPDX-License-Identifier: GPL-2.0-or-later */
/* forkexec.c - a parent that forks a child which execs a program, then waits for it. */

/*
 *   forkexec N PROGRAM [ARGS...]
 *   forkexec N -
 *
 * Before forking, the parent runs region "parent" (a loop of N iterations). The child execs PROGRAM, or
 * with "-" runs region "child" (N / 10 iterations) and exits. Under Valgrind each process writes its own
 * result file (an exec'd one with --trace-children=yes), and a forked child's counts start at the fork.
 */
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "micro.h"

int main(int argc, char **argv)
{
	volatile uint64_t acc = 0;
	uint64_t n, i;
	int status;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: forkexec N PROGRAM [ARGS...]\n");
		return 2;
	}
	n = micro_arg(argv[1], "N");
	MICRO_BEGIN("parent");
	for (i = 0; i < n; i++)
		acc += i;
	MICRO_END("parent");
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0 && !strcmp(argv[2], "-")) {
		MICRO_BEGIN("child");
		for (i = 0; i < n / 10; i++)
			acc += i;
		MICRO_END("child");
		exit(0);
	}
	if (pid == 0) {
		execv(argv[2], argv + 2);
		perror("execv");
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("waitpid");
		return 1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
