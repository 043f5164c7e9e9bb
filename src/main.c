/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c - the whyslow program: dispatch to the subcommand named by the first argument. */
#include "builtin.h"
#include "cli-measure.h"
#include "core/log.h"
#include "core/util.h"
#include "parse-options.h"
#include "result/result.h"
#include "ws-config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

/* argv as given, before the commands' option parsers reorder it in place. */
static char **invocation;

static void save_invocation(int argc, char **argv)
{
	invocation = xcalloc((size_t)argc + 1, sizeof(*invocation));
	for (int i = 0; i < argc; i++)
		invocation[i] = xstrdup(argv[i]);
}

void record_invocation(struct ws_result *r)
{
	char *cwd = getcwd(NULL, 0);
	size_t n = 0;

	if (!invocation)
		return;
	while (invocation[n])
		n++;
	if (r->settings.command_line)
		for (char **a = r->settings.command_line; *a; a++)
			free(*a);
	free(r->settings.command_line);
	r->settings.command_line = xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		r->settings.command_line[i] = xstrdup(invocation[i]);
	free(r->settings.cwd);
	r->settings.cwd = cwd;
}

static void log_to_stderr(enum ws_log_level level, const char *msg, void *data)
{
	(void)data;
	/*
	 * A message in the middle of the runs (a run that failed, a note on how callers are recorded) would
	 * otherwise continue the progress line on the terminal, after its text and without a newline.
	 */
	if (level != WS_LOG_DEBUG || verbose_level)
		cli_progress_done();
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
	fprintf(f, "\nSee 'whyslow <command> -h' for a command's options, 'whyslow help <command>' for its manual.\n");
}

static const struct cmd_struct *find_command(const char *name)
{
	for (const struct cmd_struct *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/*
 * Open a manual page with man(1): this build tree's file, else the installed file, else whatever man finds by
 * name (a page installed elsewhere). True when man showed it.
 */
static bool show_manual(const char *page, const char *section)
{
	char *files[] = { xasprintf("%s/%s.%s", WS_BUILD_MANDIR, page, section),
			  xasprintf("%s/man%s/%s.%s", WS_MANDIR, section, page, section) };
	const char *file = NULL;
	int status = -1;
	pid_t pid;

	for (size_t i = 0; i < ARRAY_SIZE(files) && !file; i++)
		if (access(files[i], R_OK) == 0)
			file = files[i];
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (file)
			execlp("man", "man", "-l", file, (char *)NULL);
		else
			execlp("man", "man", section, page, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	free(files[0]);
	free(files[1]);
	return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * `whyslow help [TOPIC]` opens the manual page, as git does: whyslow(1), a command's, whyslow-result(5) or
 * whyslow.h(3). Where man or the page is missing, it prints what -h prints instead.
 */
static int help(const char *topic)
{
	const struct cmd_struct *cmd = topic ? find_command(topic) : NULL;
	char *page;
	bool shown;

	/* -h on every command, this one too: its usage, as git help -h prints. */
	if (topic && (!strcmp(topic, "-h") || !strcmp(topic, "--help"))) {
		printf("usage: whyslow help [<command> | result | whyslow.h]\n\n"
		       "Opens the manual page of a command, of the result file (result) or of the region markers\n"
		       "(whyslow.h) through man(1); without a topic, whyslow(1).\n");
		return WS_EXIT_OK;
	}
	if (!topic)
		page = xstrdup("whyslow");
	else if (cmd)
		page = xasprintf("whyslow-%s", cmd->name);
	else if (!strcmp(topic, "result"))
		page = xstrdup("whyslow-result");
	else if (!strcmp(topic, "whyslow.h") || !strcmp(topic, "markers"))
		page = xstrdup("whyslow.h");
	else {
		fprintf(stderr, "whyslow help: no page on '%s': give a command, 'result' or 'whyslow.h' (see 'whyslow -h')\n",
			topic);
		return WS_EXIT_USAGE;
	}
	shown = show_manual(page, !topic || cmd ? "1" : !strcmp(page, "whyslow.h") ? "3" : "5");
	free(page);
	if (shown)
		return WS_EXIT_OK;
	if (cmd) {
		char *hargv[] = { (char *)cmd->name, (char *)"-h", NULL };

		return cmd->fn(2, hargv);
	}
	if (!topic) {
		list_commands(stdout);
		return WS_EXIT_OK;
	}
	fprintf(stderr, "whyslow help: the manual page of '%s' is not installed (make install installs it)\n", topic);
	return WS_EXIT_FAIL;
}

/*
 * Whether stdout is a pipe nobody reads any more: where a write failed earlier, ferror() keeps no errno,
 * and poll() tells EPIPE apart (POLLERR on a pipe whose read end is closed).
 */
static bool reader_gone(void)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

/*
 * At exit, as coreutils' close_stdout: what was printed must have reached stdout. A write that failed
 * earlier (ferror), the last flush or the close failing (a full disk, /dev/full, EIO, an NFS quota seen only
 * at close) is one line and exit 1, whatever the command returned: a report that was not written is not a
 * success. A reader that went away (EPIPE, `| head`) ends us as SIGPIPE would have, silently. A stdout that
 * was closed before we started (EBADF) with nothing written to it is not an error.
 */
static void close_stdout(void)
{
	bool failed = ferror(stdout) != 0, gone = failed && reader_gone();
	int err = 0;

	if (fflush(stdout) != 0) {
		failed = true;
		err = errno;
	}
	if (fclose(stdout) != 0 && !failed && errno != EBADF) {
		failed = true;
		err = errno;
	}
	if (!failed)
		return;
	if (err == EPIPE || (!err && gone)) {
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
	if (err)
		fprintf(stderr, "whyslow: error: cannot write to standard output: %s\n", strerror(err));
	else
		fprintf(stderr, "whyslow: error: cannot write to standard output\n");
	_exit(WS_EXIT_FAIL);
}

int main(int argc, char **argv)
{
	const struct cmd_struct *cmd;

	setup_logging(0);
	save_invocation(argc, argv);
	atexit(close_stdout);
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
	/* -V as hyperfine (and many tools) have it. */
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("whyslow %s\n", WS_VERSION);
		return WS_EXIT_OK;
	}
	if (!strcmp(argv[1], "help"))
		return help(argc > 2 ? argv[2] : NULL);
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
