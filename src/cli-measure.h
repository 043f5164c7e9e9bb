/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli-measure.h - the measurement options shared by `stat` and `compare`, and their checks. */
#ifndef WS_CLI_MEASURE_H
#define WS_CLI_MEASURE_H

#include "event/event.h"
#include "measure/measure.h"
#include "parse-options.h"
#include "wsim-model.h"

#include <math.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct cli_measure {
	const char *runs;        /* "N" or "auto"; NULL: the command's default (cli_measure_finish) */
	size_t warmup;
	struct string_list events;
	const char *export_json;
	const char *backend;
	double timeout;
	const char *cpus;
	bool shell, show_output, ignore_failure, keep_children, verbose, exact, sim_native_time, sim_cpu_native;
	bool no_randomize_layout;
	size_t layouts;          /* --layouts K; SIZE_MAX: not given */
	const char *seed;
	const char *sim_preset;
	struct string_list sim_cache;
	size_t sim_cores;          /* --sim-cores, SIZE_MAX when not given (the preset's) */
	size_t sim_runs;
	size_t jobs;             /* -j; SIZE_MAX: not given */
	const char *sim_scope;   /* all, regions or regions-warm; NULL: all */
	bool regions;
	bool topdown;
	char *topdown_reason;    /* why --topdown cannot be counted here, or NULL */
	const char *functions;   /* NULL, "" (on) or an event name */
	const char *call_graph;  /* --call-graph: fp, dwarf, none; NULL for what works for the program */
	bool callers;            /* --callers (implies --functions) */
	double freq;
	double target_ci, max_time;
	size_t max_runs;
	/* hyperfine's: --setup, --prepare, --conclude, --cleanup; each once, or once per program */
	struct string_list hooks[WS_NHOOKS];
	struct string_list output; /* null, pipe, inherit or a path with a '/'; once, or once per program */
	const char *input;         /* a file, or null */

	/* filled by cli_measure_finish() */
	struct ws_event_list ev;
	cpu_set_t cpuset;
	char **sim_args;
	int input_fd;              /* --input, open (above 2); 0 without one */
	double input_bytes;        /* its size; NAN without one, or when it is not a regular file */
};

/* NAN and SIZE_MAX: not given (so that a given 0 is refused, not taken for the default). */
#define CLI_MEASURE_INIT { .warmup = 1, .backend = "auto", .sim_runs = SIZE_MAX, .sim_cores = SIZE_MAX, \
			   .layouts = SIZE_MAX, .jobs = SIZE_MAX, .freq = NAN, .target_ci = NAN, .max_runs = SIZE_MAX, \
			   .max_time = NAN, .input_bytes = NAN }

/* --functions[=EVENT]: opt->value is the struct cli_measure. */
int cli_functions_cb(const struct option_spec *opt, const char *arg);

/* The option-table rows, for the middle of a command's table. */
#define CLI_MEASURE_OPTIONS(c)                                                                                  \
	OPT_GROUP("Measurement"),                                                                               \
	OPT_STRING('r', "runs", &(c)->runs, "N|auto",                                                          \
		   "runs per program (stat: 10; compare: auto, until the answer is decided, within 30 s)"),    \
	OPT_SIZE('w', "warmup", &(c)->warmup, "N", "warm-up runs per program, not counted (default 1)"),       \
	OPT_LIST('e', "events", &(c)->events, "LIST", "events/metrics to count, comma-separated (see 'whyslow list')"), \
	OPT_STRING(0, "backend", &(c)->backend, "NAME", "perf, sim or auto (default: perf where the PMU counts, else both)"), \
	OPT_DOUBLE(0, "timeout", &(c)->timeout, "SECONDS", "kill a run (and all it started) after this long (simulated: 100x)"), \
	OPT_STRING(0, "cpu", &(c)->cpus, "LIST", "pin the command to these CPUs, e.g. 2 or 0-3,6"),            \
	OPT_BOOL(0, "shell", &(c)->shell, "run the command through sh -c instead of executing it directly"),  \
	OPT_BOOL(0, "show-output", &(c)->show_output, "let the command's stdout and stderr through (--output inherit)"), \
	OPT_BOOL(0, "ignore-failure", &(c)->ignore_failure, "keep runs that exit non-zero instead of stopping"), \
	OPT_BOOL(0, "keep-children", &(c)->keep_children, "let what a run starts in the background outlive it (daemons)"), \
	OPT_STRING(0, "seed", &(c)->seed, "N", "seed of the run order (default: from the clock, recorded)"),    \
	OPT_DOUBLE(0, "target-ci", &(c)->target_ci, "PCT", "with --runs auto: stop when the CI is this narrow instead"), \
	OPT_SIZE(0, "max-runs", &(c)->max_runs, "N", "with --runs auto: stop after this many (default 200)"),   \
	OPT_DOUBLE(0, "max-time", &(c)->max_time, "SECONDS", "with --runs auto: stop after this long, never before 10 rounds"), \
	OPT_GROUP("Around the runs (as hyperfine's)"),                                                         \
	OPT_LIST('s', "setup", &(c)->hooks[WS_HOOK_SETUP], "CMD", "run CMD once per program, before its first run (may use {VAR})"), \
	OPT_LIST('p', "prepare", &(c)->hooks[WS_HOOK_PREPARE], "CMD", "run CMD before every run of the program, not counted"), \
	OPT_LIST('C', "conclude", &(c)->hooks[WS_HOOK_CONCLUDE], "CMD", "run CMD after every run of the program, not counted"), \
	OPT_LIST('c', "cleanup", &(c)->hooks[WS_HOOK_CLEANUP], "CMD", "run CMD once per program, after the last run"), \
	OPT_STRING(0, "input", &(c)->input, "FILE", "every run reads FILE from its start on stdin (default: null, /dev/null)"), \
	OPT_LIST(0, "output", &(c)->output, "WHERE", "the command's output: null (default), pipe, inherit or ./FILE"), \
	OPT_GROUP("Breakdown"),                                                                                 \
	OPT_BOOL(0, "regions", &(c)->regions, "report per region (the program uses include/whyslow.h markers)"), \
	OPT_BOOL(0, "topdown", &(c)->topdown, "level-1 top-down from the PMU (Intel Ice Lake+, AMD Zen 4)"),     \
	OPT_CALLBACK_OPTARG(0, "functions", (c), "EVENT", "report per function (sampling; EVENT: a second event)", cli_functions_cb), \
	OPT_BOOL(0, "callers", &(c)->callers, "per function also who calls it: callers, inclusive counts, stacks (implies --functions)"), \
	OPT_DOUBLE('F', "freq", &(c)->freq, "HZ", "sampling rate for --functions (default 4000)"),             \
	OPT_STRING(0, "call-graph", &(c)->call_graph, "fp|dwarf|none", "how --functions records callers (default: fp where the program keeps frame pointers, else dwarf)"), \
	OPT_GROUP("Simulator"),                                                                                 \
	OPT_STRING(0, "sim-preset", &(c)->sim_preset, "NAME", "the simulated machine (default " WSIM_PRESET_DEFAULT "; see 'whyslow list')"), \
	OPT_LIST(0, "sim-cache", &(c)->sim_cache, "LEVEL=SIZE,ASSOC,LINE", "override a cache level (L1i, L1d, L2, L3, LL); SIZE in bytes or with K, M, G"), \
	OPT_SIZE(0, "sim-cores", &(c)->sim_cores, "N", "virtual cores: a thread on each, private L1/L2, coherence misses (default: the preset's)"), \
	OPT_SIZE(0, "sim-runs", &(c)->sim_runs, "N", "simulated runs per program (default 3, which confirm determinism)"), \
	OPT_BOOL(0, "exact", &(c)->exact, "simulate each program once: its counts are deterministic"),         \
	OPT_STRING(0, "sim-scope", &(c)->sim_scope, "all|regions|regions-warm",                                \
		   "simulate only inside the marked regions (-warm: caches warmed outside them)"),             \
	OPT_SIZE('j', "jobs", &(c)->jobs, "N", "simulated runs at once (default: one per CPU; timed runs never overlap)"), \
	OPT_BOOL(0, "sim-native-time", &(c)->sim_native_time, "with --backend sim: also time native runs"),   \
	OPT_BOOL(0, "no-randomize-layout", &(c)->no_randomize_layout,                                          \
		 "no random environment padding in native runs (on by default, seeded, as hyperfine does)"),   \
	OPT_SIZE(0, "layouts", &(c)->layouts, "K",                                                             \
		 "simulate each program under K environment sizes; a difference within their spread is flagged"), \
	OPT_BOOL(0, "sim-cpu-native", &(c)->sim_cpu_native,                                                    \
		 "native runs mask the CPU features the simulator hides (GLIBC_TUNABLES), to run its code"),   \
	OPT_GROUP("Output"),                                                                                    \
	OPT_STRING(0, "export-json", &(c)->export_json, "FILE", "write the result file (schema whyslow/1)"),   \
	OPT_BOOL('v', "verbose", &(c)->verbose, "say more about what is measured and why")

/*
 * Check the options and turn them into engine options. Usage errors exit 129 (usage_error). The output
 * paths are the command's to check, after this and before any run (cli_check_output, cli_compare_check).
 */
/*
 * Check the options and fill `o`. Without -r: stat makes 10 runs; compare (`decide`) adds rounds until the
 * answer is decided, within 200 rounds and 30 seconds unless --max-runs or --max-time say otherwise; the
 * time budget never stops a session before its first look, 10 rounds (fewer with --max-runs below 10).
 */
void cli_measure_finish(struct cli_measure *c, struct ws_measure_opts *o, bool decide);
void cli_measure_release(struct cli_measure *c);

/*
 * The hooks and --output for `nprogs` programs: each given once (for all) or once per program, else a
 * usage error. Then cli_measure_program() fills program `i`: its output, and each hook as `subst` (NULL:
 * none) turns the given string into this program's ({VAR}), made into argv by the rules of the commands
 * (--shell). The caller frees the hooks with cli_program_release().
 */
void cli_measure_check_programs(const struct cli_measure *c, size_t nprogs);
void cli_measure_program(const struct cli_measure *c, struct ws_program *p, size_t i,
			 char *(*subst)(const char *s, void *data), void *data);
void cli_program_release(struct ws_program *p);

/*
 * Remember the files the `n` programs run or name in their arguments (the executable as PATH finds it,
 * every argument that names an existing file; with `shell`, the words of the command string): from then,
 * cli_check_output() and --output refuse to write over one. Before cli_measure_finish().
 */
void cli_protect_programs(const struct ws_program *p, size_t n, bool shell);

/* What the result's settings keep of the options: the hooks, --input, --output and --shell, as given. */
void cli_measure_record(const struct cli_measure *c, struct ws_result *r);

/* A usage error where `command`, to run without --shell, has shell syntax outside quotes; `what` names it. */
void cli_refuse_shell_syntax(const char *what, const char *command);

/* A command string made into argv as whyslow runs it: split into words, or `sh -c` with --shell; NULL on bad quoting. */
char **cli_command_argv(const char *command, bool shell);

/*
 * Functions below this share in every variant are noise in a profile, and a burden to the family of
 * tests: they are pruned before the report.
 */
#define CLI_FUNCTION_MIN_SHARE 0.005

/*
 * Make a result ready to report: derived metrics, summaries, small functions pruned. `c` holds the options
 * it was just measured with (the progress line is cleared, the top-down metrics marked unsupported when
 * the PMU had no events for them); NULL for results loaded from files.
 */
void cli_result_prepare(struct ws_result *r, const struct cli_measure *c);

/*
 * The exit status once ws_measure() returned `ret` and the report gave `status`: 130 after Ctrl-C, with
 * one line on stderr saying what was kept (and whether `saved` to a file), 1 after a failed measurement,
 * else `status`.
 */
int cli_measure_status(int ret, int status, const struct ws_result *r, bool saved);

/*
 * Check that `path` (if set) can be written later, with the space the export is expected to take reserved
 * where the filesystem allows (a full disk is found before the runs); on failure one line and exit 1.
 */
void cli_check_output(const char *opt, const char *path);

/*
 * `path`, or "-" where it names the file standard output is open on (/dev/stdout, /dev/fd/1, a pipe's
 * /proc/self/fd/1, the file stdout was redirected to): an export there is one to standard output, and the
 * report goes to stderr, as for "-". Called on every export path before the checks below.
 */
const char *cli_stdout_alias(const char *path);

/* Where the report goes: standard output, or standard error when an export was given "-" (cli_check_output). */
FILE *cli_report_stream(void);

/* Two exports into one file (or both to standard output) are a usage error; either path may be NULL. */
void cli_check_distinct(const char *opt_a, const char *a, const char *opt_b, const char *b);

/*
 * The simulator's and the markers' per-run files go to $TMPDIR: one that names no directory, or that is full
 * or cannot be written where the session needs it (`o`: a backend that may simulate, or --regions), is one
 * line and exit 1 before the first run, naming TMPDIR, not a failure in the middle of the session.
 */
void cli_check_tmpdir(const struct ws_measure_opts *o);

/* How much cli_check_output() reserves: the estimated size of a result of `nprogs` programs measured so. */
void cli_export_estimate(const struct cli_measure *c, const struct ws_measure_opts *o, size_t nprogs);

/*
 * A measurement whose exports failed and that no result file holds: write it to a rescue file
 * (ws_result_rescue()) and say where, in one line.
 */
void cli_rescue(const struct ws_result *r);

/* --export-folded: write r's call stacks to `path`; one line and -ENODATA when there are none, else -errno. */
int cli_export_folded(const struct ws_result *r, const char *path);

/* Split a command string into words as a shell would (quotes and backslashes); NULL on bad quoting. */
char **cli_split_command(const char *s);
void cli_free_argv(char **argv);

/* SIGINT, SIGTERM, SIGHUP and SIGQUIT stop the measurement (the runs so far are kept). */
void cli_install_signals(void);
/* The signal that stopped it (SIGINT when none was caught): the exit status is 128 plus it. */
int cli_stop_signal(void);

/* Progress on stderr, only when stderr is a terminal. */
void cli_progress(const struct ws_progress *p, void *data);
void cli_progress_done(void);

/* Colour on this stream? Only on a terminal, and never with NO_COLOR set. */
bool cli_use_color(FILE *f);

#endif
