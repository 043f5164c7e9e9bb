/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c - the whyslow program: dispatch to the subcommand named by the first argument. */
#include "builtin.h"
#include "core/log.h"
#include "core/util.h"
#include "parse-options.h"
#include "ws-config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cmd_struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct cmd_struct commands[] = {
	{ "stat", cmd_stat, "run a command N times and report every counter with its statistics" },
	{ "compare", cmd_compare, "compare a baseline with variants: interleaved runs, CIs, significance" },
	{ "diff", cmd_diff, "compare saved results (a baseline kept in a repository, CI gating)" },
	{ "report", cmd_report, "re-render a saved result: terminal, Markdown, CSV or HTML" },
	{ "doctor", cmd_doctor, "what this machine can measure and what will disturb it, with fixes" },
	{ "list", cmd_list, "the metrics, events and simulator presets this machine offers" },
	{ "asm-diff", cmd_asm_diff, "compare a function's machine code between two binaries" },
	{ "merge", cmd_merge, "assemble a compare whose simulations ran elsewhere (compare --plan-jobs)" },
	{ "sim-job", cmd_sim_job, "run one simulation of a plan and print its piece (a line of --plan-jobs)" },
	{ NULL, NULL, NULL },
};

static int verbose_level;

static void log_to_stderr(enum ws_log_level level, const char *msg, void *data)
{
	(void)data;
	switch (level) {
	case WS_LOG_ERROR:
		fprintf(stderr, "whyslow: error: %s\n", msg);
		break;
	case WS_LOG_WARN:
		fprintf(stderr, "whyslow: warning: %s\n", msg);
		break;
	case WS_LOG_INFO:
		fprintf(stderr, "whyslow: %s\n", msg);
		break;
	case WS_LOG_DEBUG:
		if (verbose_level)
			fprintf(stderr, "whyslow: debug: %s\n", msg);
		break;
	}
}

void setup_logging(int verbose)
{
	verbose_level = verbose;
	ws_log_set(log_to_stderr, NULL);
}

static void list_commands(FILE *f)
{
	fprintf(f, "usage: whyslow [--version] [-h] <command> [<args>]\n\ncommands:\n");
	for (const struct cmd_struct *c = commands; c->name; c++)
		fprintf(f, "    %-12s %s\n", c->name, c->help);
	fprintf(f, "\nSee 'whyslow <command> -h' for a command's options.\n");
}

static const struct cmd_struct *find_command(const char *name)
{
	for (const struct cmd_struct *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int main(int argc, char **argv)
{
	const struct cmd_struct *cmd;

	setup_logging(0);
	/*
	 * A child that dies before it is released closes the pipe we write "go" to: that must be an error
	 * we report, not a SIGPIPE that kills us with the runs unsaved. And a SIGCHLD ignored by whoever
	 * started us would make the kernel reap our children itself, and wait4 lose their status.
	 */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGCHLD, SIG_DFL);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		list_commands(argc < 2 ? stderr : stdout);
		return argc < 2 ? WS_EXIT_USAGE : WS_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("whyslow %s\n", WS_VERSION);
		return WS_EXIT_OK;
	}
	if (!strcmp(argv[1], "help") && argc > 2) {
		/* "whyslow help stat" is "whyslow stat -h". */
		char *hargv[] = { argv[2], (char *)"-h", NULL };

		cmd = find_command(argv[2]);
		if (cmd)
			return cmd->fn(2, hargv);
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		const struct cmd_struct *best = NULL;
		size_t best_d = 3;

		for (const struct cmd_struct *c = commands; c->name; c++) {
			size_t d = ws_edit_distance(argv[1], c->name);

			if (d < best_d) {
				best_d = d;
				best = c;
			}
		}
		if (best)
			fprintf(stderr, "whyslow: '%s' is not a command; did you mean '%s'? (see 'whyslow -h')\n",
				argv[1], best->name);
		else
			fprintf(stderr, "whyslow: '%s' is not a command (see 'whyslow -h')\n", argv[1]);
		return WS_EXIT_USAGE;
	}
	return cmd->fn(argc - 1, argv + 1);
}
