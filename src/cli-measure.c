/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli-measure.c - measurement options shared by stat and compare; command splitting; progress; signals. */
#include "cli-measure.h"
#include "builtin.h"
#include "backend/runner.h"
#include "core/log.h"
#include "compare/compare.h"
#include "core/util.h"
#include "perf/profile.h"
#include "perf/topdown.h"
#include "report/report.h"
#include "result/derive.h"
#include "result/result-json.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int cli_functions_cb(const struct option_spec *opt, const char *arg)
{
	struct cli_measure *c = opt->value;

	c->functions = arg ? arg : "";
	return 0;
}

int cli_export_folded(const struct ws_result *r, const char *path)
{
	int err;

	if (!ws_result_has_stacks(r)) {
		ws_error("--export-folded: no call stacks were recorded, so '%s' is not written: measure with "
			 "--callers (under the simulator: --backend sim or auto)", path);
		return -ENODATA;
	}
	if ((err = ws_export_folded(r, path)) < 0)
		ws_error("cannot write '%s': %s", path, ws_write_error(err));
	return err;
}

/* What the per-run files of a run need at least (the simulator's counts and log, the markers' folder). */
#define TMPDIR_RESERVE (32 * 1024)

void cli_check_tmpdir(const struct ws_measure_opts *o)
{
	/* perf without --regions writes no file there: only a failed export's rescue would. */
	bool needed = strcmp(o->backend, "perf") || o->be.regions;
	const char *tmp = getenv("TMPDIR");
	struct stat st;
	char *probe;
	bool full;
	int err;

	if (tmp && !*tmp)
		tmp = NULL;
	if (tmp && stat(tmp, &st) < 0) {
		fprintf(stderr, "%s: TMPDIR '%s': %s; make that directory, or unset TMPDIR for /tmp\n",
			current_command(), tmp, strerror(errno));
		exit(WS_EXIT_FAIL);
	}
	if (tmp && !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "%s: TMPDIR '%s' is not a directory; point it at one, or unset it for /tmp\n",
			current_command(), tmp);
		exit(WS_EXIT_FAIL);
	}
	/*
	 * A full (or read-only) temporary directory fails the simulator and the markers only after a run, with
	 * no word of why ("the simulator wrote no result"), and leaves the rescue nowhere to go: make a file
	 * there and reserve a little space in it, as the exports are checked. The name is this process's: a
	 * file or folder of that name already there would fail the check.
	 */
	probe = xasprintf("%s/.whyslow-check.%d", tmp ? tmp : "/tmp", (int)getpid());
	err = ws_check_writable(probe, TMPDIR_RESERVE);
	free(probe);
	if (!err)
		return;
	full = err == -ENOSPC || err == -EDQUOT;
	fprintf(stderr, "%s: %s write in %s%s%s: %s; %s%s\n", current_command(), needed ? "cannot" : "warning: cannot",
		tmp ? "TMPDIR '" : "/tmp", tmp ? tmp : " (TMPDIR is unset)", tmp ? "'" : "", strerror(-err),
		full ? "free space there, or point TMPDIR at another directory" :
		       "point TMPDIR at a directory you can write",
		needed ? "" : " (a result whose export fails could not be rescued there)");
	if (needed)
		exit(WS_EXIT_FAIL);
}

void cli_rescue(const struct ws_result *r)
{
	char *path = ws_result_rescue(r);

	if (path)
		fprintf(stderr, "%s: the measurement is saved in '%s' (whyslow report reads it)\n", current_command(),
			path);
	else
		fprintf(stderr, "%s: the measurement could not be saved in TMPDIR, the current directory or HOME "
			"either\n", current_command());
	free(path);
}

/* perf's default kernel.perf_event_max_sample_rate: -F's limit unless the sysctl is raised above it. */
#define CLI_MAX_FREQ 100000.0

/*
 * An export to "-" takes standard output, so that it can be piped (| jq): the report goes to standard error
 * instead (cli_report_stream). The command's own output cannot share it (output_inherited).
 */
static bool export_to_stdout, output_inherited;
/* The first signal that stopped the measurement: the exit status is 128 plus its number, as a shell's. */
static volatile sig_atomic_t stop_signal;
/* --input's file, once opened: no export or --output may write over what the runs read. */
static const char *input_path;
/*
 * The --output files, once checked: an export renamed over one would silently replace what the runs wrote
 * there (or the next run would truncate the export), so no export may name one.
 */
static const struct string_list *output_files;
static enum ws_output output_mode(const char *s);
/*
 * The files the measured commands run or name (cli_protect_programs): an export or --output written over
 * one would replace the program measured (--export-json ./prog -- ./prog) or what it reads (sort data.txt),
 * so no output may name one. Each with the command that names it, for the message.
 */
static struct protected_file {
	char *path;
	const char *command;
	bool program;   /* the executable, not an argument */
} *protected_files;
static size_t nprotected, protected_alloc;

FILE *cli_report_stream(void)
{
	return export_to_stdout ? stderr : stdout;
}

const char *cli_stdout_alias(const char *path)
{
	struct stat out, st, null;

	if (!path || !strcmp(path, "-") || fstat(STDOUT_FILENO, &out) < 0 || stat(path, &st) < 0 ||
	    st.st_dev != out.st_dev || st.st_ino != out.st_ino)
		return path;
	/*
	 * Written as a file, the report would follow the export into the same stream (no JSON for jq), or the
	 * rename replace the file under the report. Not the null device, which nobody reads: an export there
	 * (>/dev/null --export-html /dev/null) leaves the report where it was, and is no second one on stdout.
	 */
	if (S_ISCHR(st.st_mode) && stat("/dev/null", &null) == 0 && S_ISCHR(null.st_mode) &&
	    st.st_rdev == null.st_rdev)
		return path;
	return "-";
}

void cli_check_distinct(const char *opt_a, const char *a, const char *opt_b, const char *b)
{
	if (!a || !b || !ws_same_file(a, b))
		return;
	if (!strcmp(a, "-"))
		usage_error("%s and %s both write to standard output ('-', or the file it is open on): give one of them "
			    "a file", opt_a, opt_b);
	usage_error("%s and %s name one file, '%s': one export would replace the other", opt_a, opt_b, b);
}

/* What an export is expected to take, reserved by cli_check_output(): a small result unless told more. */
static size_t export_estimate = 16 * 1024;

void cli_export_estimate(const struct cli_measure *c, const struct ws_measure_opts *o, size_t nprogs)
{
	size_t runs = o->runs_auto ? o->max_runs : o->runs;
	/* The events, plus the times and derived metrics whyslow adds; a sample takes about 24 bytes. */
	size_t metrics = c->ev.n + 12;

	export_estimate = 16 * 1024 + nprogs * (4096 + metrics * (runs * 24 + 512));
}

/*
 * A FIFO is written in place, and opening it for writing waits for a reader: with none, the first run
 * (--output) or the export after the last run would wait for ever. Refused now when nothing reads it. One
 * that is read (a reader waiting on a named FIFO, >(jq) or a pipe as /dev/stdout) is kept open for writing
 * until whyslow exits, so that its reader does not see the end of the data before the write comes.
 */
static void check_fifo(const char *opt, const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st) < 0 || !S_ISFIFO(st.st_mode))
		return;
	fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0)
		return; /* deliberately left open: see above */
	if (errno == ENXIO) {
		fprintf(stderr, "%s: cannot write %s '%s': it is a FIFO that nothing reads, so the write would wait "
			"for ever; give a regular file%s, or start its reader first\n",
			current_command(), opt, path, strcmp(opt, "--output") ? " (or - for standard output)" : "");
		exit(WS_EXIT_FAIL);
	}
	/* Any other error is ws_check_writable()'s to say (EACCES: access() says it too). */
}

void cli_check_output(const char *opt, const char *path)
{
	int err;

	if (!path)
		return;
	/* --export-json '' or --export-json= (a variable left empty): a slip, not a file that is missing. */
	if (!*path)
		usage_error("%s needs a path, not an empty string", opt);
	if (!strcmp(path, "-")) {
		if (output_inherited)
			usage_error("%s and the command's output (--output inherit, or a file that is stdout) would "
				    "both go to standard output: give the export a file", opt);
		export_to_stdout = true;
	}
	if (input_path && strcmp(path, "-") && ws_same_file(path, input_path))
		usage_error("%s '%s' is the --input file: writing it would replace what the runs read", opt, path);
	for (size_t i = 0; strcmp(path, "-") && i < nprotected; i++)
		if (ws_same_file(path, protected_files[i].path))
			usage_error("%s '%s' is %s of the command '%s': writing it would replace %s; give the output "
				    "another name", opt, path, protected_files[i].program ? "the program" : "a file argument",
				    protected_files[i].command,
				    protected_files[i].program ? "the program measured" : "what the runs read");
	for (size_t i = 0; output_files && strcmp(opt, "--output") && strcmp(path, "-") && i < output_files->n; i++)
		if (output_mode(output_files->v[i]) == WS_OUTPUT_FILE && ws_same_file(path, output_files->v[i]))
			usage_error("%s '%s' is the --output file: the export would replace what the runs wrote; "
				    "give one of them another name", opt, path);
	if (strcmp(path, "-"))
		check_fifo(opt, path);
	err = ws_check_writable(path, export_estimate);
	if (err) {
		/* report, diff and merge measure nothing: "before measuring" would promise a measurement. */
		bool measures = !strcmp(current_command(), "whyslow stat") ||
				!strcmp(current_command(), "whyslow compare");

		fprintf(stderr, "%s: cannot write %s '%s': %s; fix the path%s\n", current_command(), opt, path,
			strerror(-err), measures ? " before measuring" : "");
		exit(1);
	}
}

static void protect_file(const char *path, const char *command, bool program)
{
	struct stat st;

	/* Only what exists: an argument that names no file yet is the command's to create, not to lose. */
	if (stat(path, &st) < 0)
		return;
	WS_ALLOC_GROW(protected_files, nprotected + 1, protected_alloc);
	protected_files[nprotected].path = xstrdup(path);
	protected_files[nprotected].program = program;
	protected_files[nprotected++].command = command;
}

void cli_protect_programs(const struct ws_program *p, size_t n, bool shell)
{
	for (size_t i = 0; i < n; i++) {
		char **words = p[i].argv;
		char **split = NULL, *exe;

		/*
		 * With --shell the words are sh's to find: the command string split as a plain command, which
		 * finds 'sort data.txt' in it (a word that is shell syntax names no file, and is passed over).
		 */
		if (shell && p[i].argv && p[i].argv[0] && p[i].argv[1] && p[i].argv[2])
			words = split = cli_split_command(p[i].argv[2]);
		for (size_t k = 0; words && words[k]; k++) {
			/* The program by the path execvp finds it at: 'true' is /usr/bin/true. */
			exe = k == 0 ? ws_find_in_path(words[k]) : NULL;
			protect_file(exe ? exe : words[k], p[i].command, k == 0);
			free(exe);
		}
		cli_free_argv(split);
	}
}

/* "perf, sim or auto": every backend of the table, for messages. */
static char *backend_names(void)
{
	char *names = xstrdup(""), *list;

	for (const struct ws_backend_entry *e = ws_backend_table; e->ops; e++) {
		char *next = xasprintf("%s%s, ", names, e->ops->name);

		free(names);
		names = next;
	}
	names[strlen(names) - 2] = '\0';
	list = xasprintf("%s or auto", names);
	free(names);
	return list;
}

static void unknown_preset(const char *name) __attribute__((noreturn));
static void unknown_preset(const char *name)
{
	size_t n = WSIM_NPRESETS;
	char *names = xstrdup("");

	/* "zen4, golden-cove or cachegrind", from the one table. */
	for (size_t i = 0; i < n; i++) {
		char *next = xasprintf("%s%s%s", names, !i ? "" : i + 1 < n ? ", " : " or ", wsim_presets[i].name);

		free(names);
		names = next;
	}
	usage_error("unknown simulator preset '%s': use %s", name, names);
}

/* "32768", "32K", "1M", "1G": bytes, with a binary suffix; 0 when it is not that or exceeds 1G. */
static unsigned long cache_bytes(const char *s, char **end)
{
	unsigned long long v;
	unsigned shift = 0;

	errno = 0;
	v = strtoull(s, end, 10);
	if (*end == s || errno || *s == '-')
		return 0;
	switch (**end) {
	case 'K': case 'k': shift = 10; break;
	case 'M': case 'm': shift = 20; break;
	case 'G': case 'g': shift = 30; break;
	}
	if (shift)
		(*end)++;
	if (v > (1ULL << 30) >> shift)
		return 0;
	return (unsigned long)(v << shift);
}

/*
 * --sim-cache LEVEL=SIZE,ASSOC,LINE[,inclusive|non-inclusive], applied to `h` (the preset, with the earlier
 * overrides) and returned as the tool's option, sizes in bytes. A mistake is a usage error before any run,
 * not a simulator that exits at once: the level alone here, the whole hierarchy once every override is in
 * (by the rules the tool applies, protocol/wsim-model.h).
 */
static char *sim_cache_arg(const char *spec, struct wsim_preset *h)
{
	const char *eq = strchr(spec, '=');
	struct wsim_level lvl, *target;
	unsigned long v[3];
	const char *p, *incl = NULL, *why;
	char *end, *level, *arg;

	if (!eq)
		usage_error("--sim-cache expects LEVEL=SIZE,ASSOC,LINE (e.g. L1d=48K,12,64), not '%s'", spec);
	level = xstrndup(spec, (size_t)(eq - spec));
	if (!wsim_is_level_name(level))
		usage_error("--sim-cache: unknown cache level '%s': use L1i, L1d, L2, L3 or LL", level);
	target = wsim_level_named(h, level);
	if (!target)
		usage_error("--sim-cache: the %s preset has no %s: its levels are %s", h->name, level,
			    wsim_preset_levels(h));
	p = eq + 1;
	for (int i = 0; i < 3; i++) {
		v[i] = i == 0 ? cache_bytes(p, &end) : strtoul(p, &end, 10);
		if (end == p || v[i] == 0 || *p == '-' || (i < 2 && *end != ',') || (i == 2 && *end && *end != ','))
			usage_error("--sim-cache %s: expected SIZE,ASSOC,LINE: a size up to 1G (bytes, or with K, M "
				    "or G), ways, line bytes; e.g. %s=48K,12,64",
				    spec, level);
		p = end + 1;
	}
	if (*end == ',') {
		incl = end + 1;
		if (strcmp(incl, "inclusive") && strcmp(incl, "non-inclusive"))
			usage_error("--sim-cache %s: the fourth field is 'inclusive' or 'non-inclusive'", spec);
	}
	/* Bounded by 1G each (cache_bytes, and a larger count fails the checks), so no product can wrap. */
	lvl.size = (long)v[0];
	lvl.assoc = v[1] > (1UL << 30) ? (1L << 30) + 1 : (long)v[1];
	lvl.line = v[2] > (1UL << 30) ? (1L << 30) + 1 : (long)v[2];
	lvl.inclusive = incl ? !strcmp(incl, "inclusive") : target->inclusive;
	if ((why = wsim_level_check(&lvl, h->cg)))
		usage_error("--sim-cache %s: %s", spec, why);
	*target = lvl;
	arg = xasprintf("--ws-cache=%s=%lu,%lu,%lu%s%s", level, v[0], v[1], v[2], incl ? "," : "", incl ? incl : "");
	free(level);
	return arg;
}

/*
 * --input FILE: opened once, now, so that a missing or unreadable file is refused before the first run.
 * Each run reads it from its start (the runner seeks it back), so it must be seekable: a pipe is not.
 */
static void open_input(struct cli_measure *c)
{
	const char *why = NULL;
	struct stat st;
	int fd;

	if (!c->input || !strcmp(c->input, "null"))
		return;
	/*
	 * O_NONBLOCK: opening a FIFO for reading waits for a writer, for ever where none comes, and before the
	 * signal handlers are in; without it the FIFO is found (and refused) at once. Cleared below: the runs
	 * read this file description, and would get EAGAIN from a terminal.
	 */
	fd = open(c->input, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		why = strerror(errno);
	else if (fstat(fd, &st) < 0)
		why = strerror(errno);
	else if (S_ISDIR(st.st_mode))
		why = "it is a directory";
	else if (lseek(fd, 0, SEEK_CUR) < 0)
		why = "it cannot be read again from its start at each run (a pipe?); give a regular file";
	else if (ws_clear_nonblock(fd) < 0)
		why = strerror(errno);
	if (why) {
		fprintf(stderr, "%s: cannot read --input '%s': %s; fix the path before measuring\n", current_command(),
			c->input, why);
		exit(WS_EXIT_FAIL);
	}
	/* Above whyslow's own streams, which the runner never gives (runner.h). */
	if (fd <= 2) {
		int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);

		close(fd);
		if (high < 0) {
			fprintf(stderr, "%s: cannot read --input '%s': %s\n", current_command(), c->input,
				strerror(errno));
			exit(WS_EXIT_FAIL);
		}
		fd = high;
	}
	c->input_fd = fd;
	c->input_bytes = S_ISREG(st.st_mode) ? (double)st.st_size : NAN;
	input_path = c->input;
}

/* One --output value: null, pipe, inherit, or a path, which must hold a '/' as hyperfine has it. */
static enum ws_output output_mode(const char *s)
{
	if (!strcmp(s, "null"))
		return WS_OUTPUT_NULL;
	if (!strcmp(s, "pipe"))
		return WS_OUTPUT_PIPE;
	if (!strcmp(s, "inherit"))
		return WS_OUTPUT_INHERIT;
	if (!strchr(s, '/'))
		usage_error("--output takes null, pipe, inherit or a file, not '%s'; write './%s' for a file of that name",
			    s, s);
	return WS_OUTPUT_FILE;
}

static const char *const hook_options[WS_NHOOKS] = { "--setup", "--prepare", "--conclude", "--cleanup" };

void cli_measure_check_programs(const struct cli_measure *c, size_t nprogs)
{
	for (size_t k = 0; k < WS_NHOOKS; k++)
		if (c->hooks[k].n > 1 && c->hooks[k].n != nprogs)
			usage_error("%s is given %zu times for %zu program%s: give it once for all, or once per "
				    "program", hook_options[k], c->hooks[k].n, nprogs, nprogs == 1 ? "" : "s");
	if (c->output.n > 1 && c->output.n != nprogs)
		usage_error("--output is given %zu times for %zu program%s: give it once for all, or once per program",
			    c->output.n, nprogs, nprogs == 1 ? "" : "s");
}

/*
 * Whether the word from `start` to `end` (its quotes and backslashes dropped) names files as a shell's glob
 * would: where nothing matches, a shell passes the word on as it is, as whyslow does ('grep a.*b f').
 */
static bool glob_matches(const char *start, const char *end)
{
	char *w = xmalloc((size_t)(end - start) + 1), *o = w;
	glob_t g;
	bool any;

	for (const char *p = start; p < end; p++)
		if (*p != '\'' && *p != '"' && *p != '\\')
			*o++ = *p;
	*o = '\0';
	any = glob(w, 0, NULL, &g) == 0 && g.gl_pathc > 0;
	if (any)
		globfree(&g);
	free(w);
	return any;
}

/*
 * The shell syntax in `command` outside quotes ("|", ">", "&&", "$HOME", a "*.txt" that names files...), as a
 * string to quote in a message; NULL where there is none. Without --shell these reach the program as words
 * ('seq 100 | sort' runs seq with the arguments "100", "|" and "sort", which fails far from the cause), and
 * hyperfine's users type them from habit: its commands go through a shell unless -N.
 */
static const char *shell_syntax(const char *command)
{
	static char op[3];
	const char *word = command, *glob_op = NULL;
	char quote = 0;

	for (const char *p = command;; p++) {
		if (quote && *p) {
			if (*p == quote)
				quote = 0;
			else if (quote == '"' && *p == '\\' && p[1])
				p++;
			continue;
		}
		/* A word ends: had it a glob outside quotes that names files? */
		if (!*p || isspace((unsigned char)*p)) {
			if (glob_op && glob_matches(word, p))
				return glob_op;
			glob_op = NULL;
			if (!*p)
				break;
			word = p + 1;
			continue;
		}
		switch (*p) {
		case '\'':
		case '"':
			quote = *p;
			break;
		case '\\':
			if (p[1])
				p++;
			break;
		case '|':
		case '&':
		case ';':
		case '<':
		case '>':
			op[0] = *p;
			op[1] = p[1] == *p ? *p : '\0';
			op[2] = '\0';
			return op;
		case '`':
			return "`";
		case '~':
			/* A home directory ('sort ~/big.txt') the program would get as a name with a '~' in it. */
			if (p == word)
				return "~";
			break;
		case '*':
		case '?':
		case '[':
			if (!glob_op) {
				op[0] = *p;
				op[1] = '\0';
				glob_op = op;
			}
			break;
		case '$':
			/* A variable, a special one or a substitution; a lone '$' (a regex's end) is no syntax. */
			if (p[1] == '(' || p[1] == '{' || p[1] == '_' || isalnum((unsigned char)p[1]) ||
			    (p[1] && strchr("?$@#!*-", p[1])))
				return "$";
			break;
		}
	}
	return NULL;
}

void cli_refuse_shell_syntax(const char *what, const char *command)
{
	const char *op = shell_syntax(command);

	if (op && strchr("*?[", op[0]))
		usage_error("%s '%s' uses the shell's '%s', which names files here, and commands run without a shell: "
			    "add --shell (or name the files)", what, command, op);
	if (op)
		usage_error("%s '%s' uses the shell's '%s', and commands run without a shell here: add --shell "
			    "(or quote the '%s')", what, command, op, op);
}

char **cli_command_argv(const char *command, bool shell)
{
	char **argv;

	if (!shell)
		return cli_split_command(command);
	/* Nothing for the shell to run either: empty as a split command would be, not a run of `sh -c ''`. */
	if (!command[strspn(command, " \t\n")])
		return NULL;
	argv = xcalloc(4, sizeof(char *));
	argv[0] = xstrdup("sh");
	argv[1] = xstrdup("-c");
	argv[2] = xstrdup(command);
	return argv;
}

void cli_measure_program(const struct cli_measure *c, struct ws_program *p, size_t i,
			 char *(*subst)(const char *s, void *data), void *data)
{
	for (size_t k = 0; k < WS_NHOOKS; k++) {
		const struct string_list *l = &c->hooks[k];
		const char *given;
		char *command;

		if (!l->n)
			continue;
		given = l->v[l->n == 1 ? 0 : i];
		/* As given, before {VAR}: a parameter's value is data, not syntax. */
		if (!c->shell)
			cli_refuse_shell_syntax(hook_options[k], given);
		command = subst ? subst(given, data) : xstrdup(given);
		p->hooks[k] = cli_command_argv(command, c->shell);
		if (!p->hooks[k])
			usage_error("cannot split %s '%s' into words: unbalanced quotes, or empty", hook_options[k],
				    command);
		free(command);
	}
	if (c->show_output)
		p->output = WS_OUTPUT_INHERIT;
	if (c->output.n) {
		p->output_path = c->output.v[c->output.n == 1 ? 0 : i];
		p->output = output_mode(p->output_path);
		if (p->output != WS_OUTPUT_FILE)
			p->output_path = NULL;
	}
}

void cli_program_release(struct ws_program *p)
{
	for (size_t k = 0; k < WS_NHOOKS; k++) {
		cli_free_argv(p->hooks[k]);
		p->hooks[k] = NULL;
	}
}

/* A NULL-terminated copy of `l`, or NULL when it is empty. */
static char **strings_copy(const struct string_list *l)
{
	char **v;

	if (!l->n)
		return NULL;
	v = xcalloc(l->n + 1, sizeof(char *));
	for (size_t i = 0; i < l->n; i++)
		v[i] = xstrdup(l->v[i]);
	return v;
}

void cli_measure_record(const struct cli_measure *c, struct ws_result *r)
{
	struct ws_settings *st = &r->settings;

	st->setup = strings_copy(&c->hooks[WS_HOOK_SETUP]);
	st->prepare = strings_copy(&c->hooks[WS_HOOK_PREPARE]);
	st->conclude = strings_copy(&c->hooks[WS_HOOK_CONCLUDE]);
	st->cleanup = strings_copy(&c->hooks[WS_HOOK_CLEANUP]);
	if (c->output.n) {
		st->output = strings_copy(&c->output);
	} else {
		st->output = xcalloc(2, sizeof(char *));
		st->output[0] = xstrdup(c->show_output ? "inherit" : "null");
	}
	st->input = c->input_fd > 0 ? xstrdup(c->input) : NULL;
	st->input_bytes = c->input_bytes;
	st->shell = c->shell;
	if (c->sim_scope && strcmp(c->sim_scope, "all")) {
		st->sim_scope = xstrdup(c->sim_scope);
		ws_result_warn(r, "--sim-scope %s: only the inside of the marked regions was simulated, so the simulated "
			       "whole-program counts are the regions' alone; inside them, instructions are exact, and cache "
			       "and branch counts differ from a whole simulation by what the state they start from does "
			       "(README: Region-scoped simulation)", c->sim_scope);
	}
}

/*
 * An option the named backend leaves unread would let the user believe it changed the measurement
 * (--backend perf --sim-runs 3): a usage error, naming the option, the backend and the way out. auto, where
 * either may run, takes them all. Not --sim-cpu-native: it masks the native runs' CPU features, perf's too.
 */
static void check_backend_options(const struct cli_measure *c)
{
	const struct ws_backend_ops *ops = strcmp(c->backend, "auto") ? ws_backend_find(c->backend) : NULL;
	const char *sim_only[] = {
		c->sim_preset ? "--sim-preset" : NULL,
		c->sim_cache.n ? "--sim-cache" : NULL,
		c->sim_cores != SIZE_MAX ? "--sim-cores" : NULL,
		c->sim_runs != SIZE_MAX ? "--sim-runs" : NULL,
		c->exact ? "--exact" : NULL,
		c->sim_scope ? "--sim-scope" : NULL,
		c->layouts != SIZE_MAX ? "--layouts" : NULL,
		c->sim_native_time ? "--sim-native-time" : NULL,
		c->jobs != SIZE_MAX ? "-j/--jobs" : NULL,
	};
	/* What only a native run reads: without --sim-native-time the simulator's session has none. */
	const char *native_only[] = {
		c->topdown ? "--topdown" : NULL,
		c->no_randomize_layout ? "--no-randomize-layout" : NULL,
	};
	/*
	 * perf's sampling: a simulator that counts each function exactly leaves the native runs none to do
	 * (measure.c), even beside --sim-native-time.
	 */
	const char *sampling_only[] = {
		!isnan(c->freq) ? "--freq" : NULL,
		c->call_graph ? "--call-graph" : NULL,
	};

	if (!ops)
		return;
	if (ops->traits & WS_BE_NATIVE) {
		for (size_t i = 0; i < ARRAY_SIZE(sim_only); i++)
			if (sim_only[i])
				usage_error("%s has no effect with --backend %s: drop it, or use --backend sim or auto",
					    sim_only[i], ops->name);
		return;
	}
	for (size_t i = 0; !c->sim_native_time && i < ARRAY_SIZE(native_only); i++)
		if (native_only[i])
			usage_error("%s has no effect with --backend %s, which makes no native run: drop it, add "
				    "--sim-native-time, or use --backend perf or auto", native_only[i], ops->name);
	for (size_t i = 0; i < ARRAY_SIZE(sampling_only); i++)
		if (sampling_only[i] && (!c->sim_native_time || (ops->traits & WS_BE_EXACT_GROUPS)))
			usage_error("%s has no effect with --backend %s, which samples nothing: drop it, or use "
				    "--backend perf or auto", sampling_only[i], ops->name);
}

void cli_measure_finish(struct cli_measure *c, struct ws_measure_opts *o, bool decide)
{
	bool defaulted = !c->runs;
	size_t n = 0;

	memset(o, 0, sizeof(*o));
	if (!c->runs)
		c->runs = decide ? "auto" : "10";
	if (!strcmp(c->runs, "auto")) {
		o->runs_auto = true;
		o->runs = 0;
	} else {
		int e = parse_size(c->runs, &o->runs);

		if (e == -ERANGE)
			usage_error("--runs %s is too large: give at most %zu runs, or 'auto'", c->runs, SIZE_MAX);
		if (e < 0 || o->runs == 0)
			usage_error("--runs expects a positive number or 'auto', not '%s'", c->runs);
	}
	if (o->runs_auto) {
		/* Several programs decide; a precision target is what one program can have, or what was asked. */
		double target = !isnan(c->target_ci) ? c->target_ci : decide ? 0 : 1.0;

		if (!isnan(c->target_ci) && !(target > 0 && target < 100))
			usage_error("--target-ci expects a percentage between 0 and 100, not %g", target);
		o->max_runs = c->max_runs == SIZE_MAX ? 200 : c->max_runs;
		if (o->max_runs < 3)
			usage_error("--max-runs must be at least 3");
		if (!isnan(c->max_time) && !(c->max_time > 0))
			usage_error("--max-time expects a positive number of seconds, not %g", c->max_time);
		o->target_ci = target / 100.0;
		/* From 10 rounds: earlier looks at the CI raise false positives above 6% (tests/unit/test-stats-mc.c). */
		o->min_runs = o->max_runs < 10 ? o->max_runs : 10;
		/* compare's default is a budget, not a promise of runs: 30 s of measuring, then it says so. */
		o->max_time = !isnan(c->max_time) ? c->max_time : defaulted && decide ? 30 : 0;
		o->runs = o->max_runs;
	} else if (!isnan(c->target_ci) || c->max_runs != SIZE_MAX || !isnan(c->max_time)) {
		/* Ignored, they would let a user believe the run stops on them. */
		usage_error("--target-ci, --max-runs and --max-time apply only with --runs auto");
	}
	if (strcmp(c->backend, "auto") && !ws_backend_find(c->backend))
		usage_error("unknown backend '%s': use %s", c->backend, backend_names());
	check_backend_options(c);
	if (c->timeout < 0)
		usage_error("--timeout must not be negative");
	if (c->cpus) {
		cpu_set_t allowed, both;

		if (ws_parse_cpu_list(c->cpus, &c->cpuset) < 0)
			usage_error("--cpu expects a CPU list like 0-3,6, not '%s'", c->cpus);
		/* A CPU outside our own affinity (or cgroup cpuset) would only fail in the child. */
		if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) {
			CPU_AND(&both, &c->cpuset, &allowed);
			if (!CPU_EQUAL(&both, &c->cpuset))
				usage_error("--cpu %s names CPUs this process may not use (see taskset -p $$ or the "
					    "cgroup's cpuset)", c->cpus);
		}
		o->cpus = &c->cpuset;
	}
	if (c->seed) {
		/* At most 2^63 - 1: the result file keeps it as a JSON integer, which is signed. */
		if (parse_size(c->seed, &n) < 0 || n > INT64_MAX)
			usage_error("--seed expects an integer from 0 to 9223372036854775807 (2^63 - 1), not '%s'",
				    c->seed);
		o->seed = n;
	} else {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		/* 63 bits, so that the seed survives JSON's signed integers. */
		o->seed = ((uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 20) &
			  INT64_MAX;
	}
	if (c->sim_preset && !wsim_preset_find(c->sim_preset))
		unknown_preset(c->sim_preset);
	if (!isnan(c->freq)) {
		/*
		 * Whole hertz, up to the kernel's sampling limit: perf's default for it (100 kHz), or the sysctl where
		 * raised above. Between a limit the kernel lowered itself and this one, the profiler lowers the rate
		 * with a note (lib/perf/profile.c); beyond it a rate is a mistake, not one to round down silently.
		 */
		char *line = ws_read_line("/proc/sys/kernel/perf_event_max_sample_rate");
		double limit = line && strtod(line, NULL) > CLI_MAX_FREQ ? strtod(line, NULL) : CLI_MAX_FREQ;

		free(line);
		if (!(c->freq >= 1 && c->freq <= limit && c->freq == floor(c->freq)))
			usage_error("--freq expects whole Hz from 1 to %.0f (kernel.perf_event_max_sample_rate), not %.17g",
				    limit, c->freq);
	}
	if (c->sim_runs == 0)
		usage_error("--sim-runs expects a positive number of runs");
	if (c->jobs == 0)
		usage_error("-j expects a positive number of simulated runs at once");
	o->jobs_given = c->jobs != SIZE_MAX;
	o->jobs = o->jobs_given ? c->jobs : 0;

	if (c->events.n) {
		for (size_t i = 0; i < c->events.n; i++)
			if (ws_event_list_parse(&c->ev, c->events.v[i]) < 0)
				exit(129);
		if (!c->ev.n)
			usage_error("-e names no event: give one or more, such as -e task-clock,instructions");
	} else {
		ws_event_list_default(&c->ev);
	}
	if (c->topdown && ws_topdown_add_events(&c->ev, &c->topdown_reason) < 0)
		ws_log(WS_LOG_WARN, "--topdown: %s", c->topdown_reason);
	o->events = &c->ev;
	o->backend = c->backend;
	o->warmup = c->warmup;
	o->timeout = c->timeout;
	if (c->show_output && c->output.n)
		usage_error("--show-output is --output inherit: give one of them");
	output_inherited = c->show_output;
	/* An --output file that is standard output (/dev/stdout) shares it with an export as inherit does. */
	for (size_t i = 0; i < c->output.n; i++)
		output_inherited |= output_mode(c->output.v[i]) == WS_OUTPUT_INHERIT ||
				    (output_mode(c->output.v[i]) == WS_OUTPUT_FILE &&
				     !strcmp(cli_stdout_alias(c->output.v[i]), "-"));
	o->ignore_failure = c->ignore_failure;
	ws_runner_keep_children(c->keep_children);
	o->precision_metric = "wall-time";
	o->sim_runs = c->exact ? 1 : c->sim_runs != SIZE_MAX ? c->sim_runs : 3;
	/* -r 1 or -r 2 asks for fewer runs than the 3 that confirm determinism: that many simulations, then. */
	if (!o->runs_auto && o->runs < 3 && c->sim_runs == SIZE_MAX && !c->exact)
		o->sim_runs = o->runs;
	/*
	 * More is not taken from -r: it counts timed runs, and a hyperfine user's habitual -r 10 would make
	 * ten simulations of counts that three show deterministic. Said, so that it is not silently ignored.
	 */
	else if (!defaulted && !o->runs_auto && o->runs > o->sim_runs && !strcmp(c->backend, "sim") &&
		 !c->sim_native_time && c->sim_runs == SIZE_MAX && c->layouts == SIZE_MAX && !c->exact)
		ws_log(WS_LOG_WARN, "-r %zu counts timed runs, and the simulator alone times none: it makes %zu "
				    "simulated runs, which show whether the counts are deterministic (--sim-runs N for more)",
		       o->runs, o->sim_runs);
	o->native_time = c->sim_native_time;
	o->sim_cpu_native = c->sim_cpu_native;
	o->randomize_layout = !c->no_randomize_layout;
	/* One size is no comparison of sizes: 0 and 1 would silently do nothing. */
	if (c->layouts != SIZE_MAX && (c->layouts < 2 || c->layouts > 64))
		usage_error("--layouts expects 2 to 64 environment sizes, not %zu", c->layouts);
	/* Each layout is one simulated run: they replace --sim-runs and --exact's single run. */
	if (c->layouts != SIZE_MAX && (c->sim_runs != SIZE_MAX || c->exact))
		usage_error("--layouts K makes K simulated runs, one per environment size: drop --sim-runs and --exact");
	o->layouts = c->layouts != SIZE_MAX ? c->layouts : 0;
	o->be.regions = c->regions;
	/* Callers are a part of the per-function profile. */
	if (c->callers && !c->functions)
		c->functions = "";
	o->be.callers = c->callers;
	o->be.functions = c->functions != NULL;
	if (c->functions && *c->functions) {
		/* An unknown second event is a usage error, said before any run. */
		if (ws_profile_event_check(c->functions) < 0)
			exit(WS_EXIT_USAGE);
		o->be.functions_event = c->functions;
	}
	o->be.freq = isnan(c->freq) ? 4000 : c->freq;
	if (c->call_graph && strcmp(c->call_graph, "fp") && strcmp(c->call_graph, "dwarf") &&
	    strcmp(c->call_graph, "none"))
		usage_error("--call-graph expects fp, dwarf or none, not '%s'", c->call_graph);
	if (c->call_graph && !c->functions)
		usage_error("--call-graph records the callers of --functions: add --functions");
	o->be.call_graph = c->call_graph;
	o->be.sim_preset = c->sim_preset ? c->sim_preset : WSIM_PRESET_DEFAULT;
	if (c->sim_cache.n > 8)
		usage_error("--sim-cache: at most 8 of them");
	if (c->sim_cache.n) {
		struct wsim_preset h = *wsim_preset_find(o->be.sim_preset);
		const char *why;

		c->sim_args = xcalloc(c->sim_cache.n + 1, sizeof(char *));
		for (size_t i = 0; i < c->sim_cache.n; i++)
			c->sim_args[i] = sim_cache_arg(c->sim_cache.v[i], &h);
		if ((why = wsim_hierarchy_check(&h)))
			usage_error("--sim-cache: %s (the %s preset with these levels)", why, h.name);
		o->be.sim_args = c->sim_args;
	}
	o->be.sim_hot = 20;
	if (c->sim_cores != SIZE_MAX) {
		if (c->sim_cores < 1 || c->sim_cores > WSIM_MAX_CORES)
			usage_error("--sim-cores takes 1 to %d cores, not %zu", WSIM_MAX_CORES, c->sim_cores);
		if (c->sim_cores > 1 && wsim_preset_find(o->be.sim_preset)->cg)
			usage_error("--sim-cores: the cachegrind preset models one core; use --sim-cores 1 or another preset");
		o->be.sim_cores = c->sim_cores;
	}
	if (c->sim_scope) {
		if (strcmp(c->sim_scope, "all") && strcmp(c->sim_scope, "regions") && strcmp(c->sim_scope, "regions-warm"))
			usage_error("--sim-scope takes all, regions or regions-warm, not '%s'", c->sim_scope);
		o->be.sim_scope = c->sim_scope;
		/* Only the regions are simulated: they are what there is to report. */
		if (strcmp(c->sim_scope, "all"))
			o->be.regions = c->regions = true;
	}
	o->progress = cli_progress;
	setup_logging(c->verbose);
	/* Last, after every usage error: what cannot be read or written fails with 1, before any run. */
	open_input(c);
	o->input_fd = c->input_fd;
	for (size_t i = 0; i < c->output.n; i++)
		if (output_mode(c->output.v[i]) == WS_OUTPUT_FILE)
			cli_check_output("--output", c->output.v[i]);
	output_files = &c->output;
}

/*
 * Why derived metric `d` (asked for with -e) could not be computed for `v`: one of its two inputs was not
 * counted, with that one's reason, or they came from different backends. A new string.
 */
static char *underived_reason(const struct ws_variant *v, const struct ws_derived *d)
{
	const char *in[2] = { d->num, d->den };

	for (int k = 0; k < 2; k++) {
		const struct ws_metric *m = ws_metric_set_find(&v->metrics, in[k]);

		if (!m || !m->n || (m->flags & WS_M_UNSUPPORTED))
			return xasprintf("needs %s (%s)", in[k], m && m->reason ? m->reason : "not counted");
	}
	if ((ws_metric_set_find(&v->metrics, d->num)->flags ^ ws_metric_set_find(&v->metrics, d->den)->flags) &
	    WS_M_CORE_SUBSET)
		return xasprintf("%s and %s were counted on different core types of this hybrid CPU", d->num, d->den);
	return xasprintf("%s and %s come from different backends (one simulated, one measured)", d->num, d->den);
}

/* Every derived metric -e asked for is in the result: computed, or unsupported with the reason. */
static void derived_asked(struct ws_result *r, const struct cli_measure *c)
{
	size_t nd;
	const struct ws_derived *d = ws_derived_all(&nd);

	for (size_t e = 0; e < c->ev.n; e++)
		for (size_t k = 0; k < nd; k++) {
			if (strcmp(c->ev.v[e].name, d[k].name))
				continue;
			for (size_t i = 0; i < r->nvariants; i++) {
				struct ws_variant *v = &r->variants[i];
				char *why;

				if (ws_metric_set_find(&v->metrics, d[k].name))
					continue;
				why = underived_reason(v, &d[k]);
				ws_metric_set_unsupported(&v->metrics, d[k].name, why);
				free(why);
			}
		}
}

void cli_result_prepare(struct ws_result *r, const struct cli_measure *c)
{
	/* The runs are over: a stop signal now gives up the exports that wait for a reader (ws_write_arm). */
	if (c) {
		ws_write_arm();
		cli_progress_done();
	}
	record_invocation(r);
	ws_result_derive(r);
	if (c)
		derived_asked(r, c);
	if (c && c->topdown_reason)
		for (size_t i = 0; i < r->nvariants; i++)
			for (size_t k = 0; k < 4; k++)
				ws_metric_set_unsupported(&r->variants[i].metrics, ws_topdown_metrics[k],
							  c->topdown_reason);
	ws_result_summarize(r);
	/* Before the pruning: it keeps or drops a row by its name in every variant. */
	ws_compare_pair_functions(r);
	ws_result_prune_functions(r, CLI_FUNCTION_MIN_SHARE);
}

int cli_measure_status(int ret, int status, const struct ws_result *r, bool saved)
{
	/* stat counts its runs; compare interleaves several programs, whose counts differ after Ctrl-C. */
	size_t runs = r->nvariants == 1 ? r->variants[0].nruns : 0;

	/*
	 * A signal after the last run (Ctrl-C while the result was written, a write that blocked on a pipe) is
	 * still the user's stop: 128 + its number, as the README's signal table has it, not the write's 1.
	 */
	if (ret == -EINTR || stop_signal) {
		if (!runs && !ws_result_has_samples(r))
			fprintf(stderr, "%s: interrupted before any run finished: nothing to keep\n", current_command());
		else if (r->nvariants == 1)
			fprintf(stderr, "%s: interrupted; %zu finished runs kept%s\n", current_command(), runs,
				saved ? " and saved" : "");
		else
			fprintf(stderr, "%s: interrupted; the finished runs are kept%s\n", current_command(),
				saved ? " and saved" : "");
		return 128 + cli_stop_signal();
	}
	return ret < 0 ? WS_EXIT_FAIL : status;
}

void cli_measure_release(struct cli_measure *c)
{
	free(c->topdown_reason);
	ws_event_list_release(&c->ev);
	string_list_clear(&c->events);
	string_list_clear(&c->sim_cache);
	cli_free_argv(c->sim_args);
	for (size_t k = 0; k < WS_NHOOKS; k++)
		string_list_clear(&c->hooks[k]);
	string_list_clear(&c->output);
	if (c->input_fd > 0)
		close(c->input_fd);
	c->input_fd = 0;
}

char **cli_split_command(const char *s)
{
	char **argv = NULL, *word = NULL;
	size_t n = 0, alloc = 0, wlen = 0, walloc = 0;
	bool in_word = false;
	char quote = 0;

	for (const char *p = s;; p++) {
		char ch = *p;

		if (!ch) {
			if (quote)
				goto bad;
			break;
		}
		if (quote == '\'') {
			if (ch == '\'') {
				quote = 0;
				continue;
			}
		} else if (quote == '"') {
			if (ch == '"') {
				quote = 0;
				continue;
			}
			if (ch == '\\' && (p[1] == '"' || p[1] == '\\' || p[1] == '$' || p[1] == '`'))
				ch = *++p;
		} else {
			if (ch == ' ' || ch == '\t' || ch == '\n') {
				if (in_word) {
					WS_ALLOC_GROW(word, wlen + 1, walloc);
					word[wlen] = '\0';
					WS_ALLOC_GROW(argv, n + 2, alloc);
					argv[n++] = xstrdup(word);
					wlen = 0;
					in_word = false;
				}
				continue;
			}
			if (ch == '\'' || ch == '"') {
				quote = ch;
				in_word = true;
				continue;
			}
			if (ch == '\\') {
				if (!p[1])
					goto bad;
				ch = *++p;
			}
		}
		in_word = true;
		WS_ALLOC_GROW(word, wlen + 1, walloc);
		word[wlen++] = ch;
	}
	if (in_word) {
		WS_ALLOC_GROW(word, wlen + 1, walloc);
		word[wlen] = '\0';
		WS_ALLOC_GROW(argv, n + 2, alloc);
		argv[n++] = xstrdup(word);
	}
	free(word);
	if (!n) {
		free(argv);
		return NULL;
	}
	argv[n] = NULL;
	return argv;
bad:
	free(word);
	for (size_t i = 0; i < n; i++)
		free(argv[i]);
	free(argv);
	return NULL;
}

void cli_free_argv(char **argv)
{
	if (!argv)
		return;
	for (char **a = argv; *a; a++)
		free(*a);
	free(argv);
}


static void on_signal(int sig)
{
	if (!stop_signal)
		stop_signal = sig;
	ws_runner_interrupt();
	ws_write_interrupt();
}

void cli_install_signals(void)
{
	/*
	 * A closed terminal or a dropped ssh session (SIGHUP) and Ctrl-\ (SIGQUIT) end the measurement as
	 * Ctrl-C does, the finished runs saved. A SIGHUP ignored by whoever started us (nohup) stays ignored:
	 * that is its user's wish for us and for the command.
	 */
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (sigs[i] == SIGHUP && sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

int cli_stop_signal(void)
{
	return stop_signal ? stop_signal : SIGINT;
}

static bool progress_shown;

void cli_progress(const struct ws_progress *p, void *data)
{
	static double last;
	static int tty = -1;
	double now;
	char eta[32];

	(void)data;
	/* Asked once: a system call (TCGETS) before every run otherwise. */
	if (tty < 0)
		tty = isatty(2);
	if (!tty)
		return;
	now = ws_now();
	/* Redraw at most ten times a second: short runs would otherwise spend their time on the terminal. */
	if (progress_shown && now - last < 0.1 && p->done + 1 < p->total)
		return;
	last = now;
	if (p->eta >= 0)
		snprintf(eta, sizeof(eta), ", ~%.0fs left", ceil(p->eta));
	else
		eta[0] = '\0';
	/* With runs in flight (-j), the count is of runs started: the one just started is among them. */
	if (p->running > 1)
		fprintf(stderr, "\r\033[K%s %zu/%zu, %zu at once (%s)%s", p->phase, p->done + p->running, p->total,
			p->running, p->program, eta);
	else
		fprintf(stderr, "\r\033[K%s %zu/%zu (%s)%s", p->phase, p->done + 1, p->total, p->program, eta);
	fflush(stderr);
	progress_shown = true;
}

void cli_progress_done(void)
{
	if (progress_shown) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
		progress_shown = false;
	}
}

bool cli_use_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");

	if (nc && *nc)
		return false;
	return isatty(fileno(f));
}
