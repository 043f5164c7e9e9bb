/* SPDX-License-Identifier: GPL-2.0-or-later */
/* single-step.c - counts a program's instructions and conditional branches natively, one ptrace step each. */

/*
 * The simulator's counts come from a translator, which may reshape code; stepping the real CPU one instruction
 * at a time is the count to hold them against (t4010). Only for programs of a few million instructions with
 * no loader and no C library (tests/programs/andor.S), whose every instruction is their own. A conditional
 * branch is recognised by its opcode alone (70-7f, 0f 80-8f, e3 for jrcxz): enough for such a program,
 * which uses no prefixes on its jumps.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static int is_jcc(const unsigned char *b)
{
	return (b[0] >= 0x70 && b[0] <= 0x7f) || b[0] == 0xe3 || (b[0] == 0x0f && b[1] >= 0x80 && b[1] <= 0x8f);
}

int main(int argc, char **argv)
{
	unsigned long insns = 0, jcc = 0;
	pid_t pid;
	int st;

	if (argc < 2) {
		fprintf(stderr, "usage: single-step PROGRAM [ARG...]\n");
		return 129;
	}
	pid = fork();
	if (pid < 0) {
		perror("single-step: fork");
		return 1;
	}
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0) {
			fprintf(stderr, "single-step: ptrace: %s (is ptrace allowed here?)\n", strerror(errno));
			_exit(126);
		}
		execv(argv[1], argv + 1);
		fprintf(stderr, "single-step: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	/* Stopped at the exec, before the program's first instruction. */
	if (waitpid(pid, &st, 0) < 0 || !WIFSTOPPED(st)) {
		fprintf(stderr, "single-step: %s did not start under ptrace\n", argv[1]);
		return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	}
	for (;;) {
		struct user_regs_struct regs;
		unsigned char code[sizeof(long)];
		long word;

		if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) < 0) {
			perror("single-step: PTRACE_GETREGS");
			return 1;
		}
		errno = 0;
		word = ptrace(PTRACE_PEEKTEXT, pid, (void *)regs.rip, NULL);
		if (errno) {
			perror("single-step: PTRACE_PEEKTEXT");
			return 1;
		}
		memcpy(code, &word, sizeof(code));
		jcc += is_jcc(code);
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) < 0) {
			perror("single-step: PTRACE_SINGLESTEP");
			return 1;
		}
		/* The step that ends the process (its exit system call) ran an instruction too. */
		insns++;
		if (waitpid(pid, &st, 0) < 0) {
			perror("single-step: waitpid");
			return 1;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st))
			break;
	}
	printf("instructions\t%lu\nconditional-branches\t%lu\n", insns, jcc);
	return 0;
}
