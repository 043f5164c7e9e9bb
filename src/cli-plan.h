/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli-plan.h - simulations spread over machines: the plan compare --plan-jobs writes, its jobs' pieces. */
#ifndef WS_CLI_PLAN_H
#define WS_CLI_PLAN_H

#include "cli-measure.h"
#include "measure/measure.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * `whyslow compare --backend sim --plan-jobs FILE` writes FILE, one shell command line per simulation
 * (program i, run k, in the order compare runs them), and FILE.manifest, what `whyslow merge` needs to
 * assemble the result: the compare's own arguments (without --plan-jobs, with its seed), its directory,
 * the plan's id, whyslow's version, and each program's build-id.
 *
 * Each line is self-contained: `cd DIR && env -i NAME=VALUE... WHYSLOW sim-job --plan ID --program I
 * --run K --ignored-signals LIST [simulator options] -- COMMAND...`, so that the simulated program sees
 * exactly the environment and signal dispositions it would have seen under compare, whose counts depend
 * on them. `whyslow sim-job` runs that one simulation
 * and writes its piece on stdout:
 *
 *   whyslow-piece<TAB>1
 *   version<TAB>V          whyslow's version
 *   plan<TAB>ID
 *   program<TAB>I
 *   run<TAB>K
 *   build-id<TAB>ID        the program's (see cli_program_id)
 *   job<TAB>DIGEST         its directory, environment and words (cli_job_digest), against the manifest's
 *   exit<TAB>N             -1 when killed by a signal
 *   signal<TAB>N
 *   timed-out<TAB>0|1
 *   file<TAB>NAME<TAB>BYTES, then BYTES bytes: each file the simulator left (one per process, its log)
 *   end
 *
 * so that the outputs of many jobs may be concatenated (GNU parallel prints each job's output whole), and
 * a truncated piece is one without its `end`.
 */

#define WS_PIECE_MAGIC "whyslow-piece"
#define WS_PLAN_FORMAT "whyslow-plan/1"

/*
 * sim-job --ignored-signals: ignore the signals of `list` ("1,14", or "none") and reset the others to their
 * default, but SIGINT, SIGTERM, SIGPIPE and SIGCHLD, which whyslow and its runner set themselves. A command
 * inherits what is ignored, so the plan records what compare's commands would have found. Returns 0, or -1
 * for a malformed list.
 */
int cli_signals_apply(const char *list);

/* What identifies a program's code: its ELF build-id, else "fnv1a64:HEX" of the file, else "unknown". */
char *cli_program_id(char *const *argv);

/*
 * A job's digest: FNV-1a over its directory, its environment and the words sim-job gets after its name.
 * The plan's manifest holds each job's, and sim-job prints its own, so that a piece of a job line edited
 * after the plan was written (another command, option or variable) is refused rather than merged.
 */
char *cli_job_digest(const char *cwd, char *const *env, char *const *words);

/*
 * Write the plan for `progs` (after cli_measure_finish: `c` and `o` are the checked options; `args` the
 * compare's own arguments without --plan-jobs). Usage errors (hooks, a native backend, --output inherit)
 * exit 129; a file that cannot be written exits 1. Prints one line on stderr saying what to run next.
 */
void cli_plan_write(const char *path, const struct cli_measure *c, const struct ws_measure_opts *o,
		    const struct ws_program *progs, size_t nprogs, char **args, size_t nargs);

struct piece_file {
	char *name;
	char *data;
	size_t len;
};

struct piece {
	char *version, *plan, *build_id, *job;
	size_t prog, run;
	struct ws_run_outcome out;
	struct piece_file *files;
	size_t nfiles, alloc;
	char *source;  /* "FILE" or "FILE (piece 3)", for messages */
};

struct piece_list {
	struct piece *v;
	size_t n, alloc;
};

/* A piece as sim-job prints it. Caller frees. */
char *cli_piece_format(const struct piece *p, size_t *len);

/*
 * Append every piece of `path` (concatenated outputs) to `l`. Returns 0, or -1 after one line on stderr
 * naming the file and what is wrong with it (truncated, not a piece).
 */
int cli_piece_read(const char *path, struct piece_list *l);
void cli_piece_release(struct piece *p);

#endif
