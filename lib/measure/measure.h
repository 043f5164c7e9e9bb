/* SPDX-License-Identifier: GPL-2.0-or-later */
/* measure.h - a measurement session: warm-up, interleaved rounds, backends, into a result. */
#ifndef WS_MEASURE_H
#define WS_MEASURE_H

#include "backend/backend.h"
#include "event/event.h"
#include "result/result.h"
#include "stats/stats.h"

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

/* The commands run around a program's runs, as hyperfine's --setup, --prepare, --conclude and --cleanup. */
enum ws_hook_kind {
	WS_HOOK_SETUP,     /* once, before the program's first run */
	WS_HOOK_PREPARE,   /* before each of its runs: warm-up, measured and simulated alike */
	WS_HOOK_CONCLUDE,  /* after each of its runs */
	WS_HOOK_CLEANUP,   /* once, after the session's last run */
	WS_NHOOKS,
};

struct ws_program {
	const char *name;
	const char *command;   /* as the user wrote it */
	char **argv;           /* NULL-terminated; borrowed */
	/*
	 * NULL-terminated argv of each hook, or NULL for none; borrowed. A hook runs natively, outside every
	 * counter's scope and outside the simulator: nothing of it is measured.
	 */
	char **hooks[WS_NHOOKS];
	enum ws_output output;   /* where the program's output goes */
	const char *output_path; /* with WS_OUTPUT_FILE */
	const struct ws_param *params; /* the parameters' values it was made with, for its variant; borrowed */
	size_t nparams;
};

struct ws_progress {
	size_t done, total;    /* runs */
	double elapsed, eta;   /* seconds; eta < 0 when unknown */
	size_t running;        /* runs in flight at once (simulations with -j); 0 or 1 otherwise */
	const char *phase;     /* "warm-up", "measuring", "simulating" */
	const char *program;   /* the program about to run */
};

typedef void (*ws_progress_fn)(const struct ws_progress *p, void *data);

/*
 * Runs made elsewhere (whyslow merge): instead of running program `prog`'s run `run` of a phase that is not
 * native, put its raw result into `dir` (the backend's run_dir()) and its exit status into `out`. Returns
 * 0 or a negative errno (the message said).
 */
typedef int (*ws_supply_fn)(void *data, size_t prog, size_t run, const char *dir, struct ws_run_outcome *out);

struct ws_measure_opts {
	const char *backend;            /* a backend of the table (backend/backend.h), or "auto" */
	const struct ws_event_list *events;
	size_t runs;                    /* measured native runs per program */
	size_t warmup;                  /* warm-up runs per program, not recorded */
	/*
	 * runs_auto: add rounds until the answer is decided (several programs, target_ci 0: the primary's CI
	 * lies outside the noise band, or inside it; docs/statistics.md, 16) or until the precision target is
	 * met (target_ci, or one program), within max_runs and max_time.
	 */
	bool runs_auto;
	double target_ci;               /* CI half-width target, fraction (0.01); 0: decide */
	size_t min_runs, max_runs;
	double max_time;                /* seconds, 0 for none; checked only from min_runs rounds on */
	const char *precision_metric;   /* the primary metric; NULL: cycles with a PMU, else wall-time, ... */
	/* What the report will judge with, for deciding: alpha, the noise band (fraction), the test, the CI. */
	double alpha, noise;
	bool paired;
	enum ws_effect effect;
	size_t baseline;                /* index of the baseline program, for runs_auto */
	uint64_t seed;
	double timeout;                 /* per run, seconds; 0 for none */
	int input_fd;                   /* every run's stdin, read from its start (runner.h); 0: /dev/null */
	bool ignore_failure;            /* keep runs that exit non-zero instead of stopping */
	const cpu_set_t *cpus;
	struct ws_backend_opts be;
	size_t sim_runs;                /* simulated runs per program (3 confirm determinism) */
	/*
	 * Simulated runs at once, at most (-j): 0 for one per CPU the runs may use. Never more than memory
	 * allows: the first simulated run runs alone and its peak size bounds the rest; a number given
	 * (jobs_given) that memory cannot hold is refused with the reason.
	 */
	size_t jobs;
	bool jobs_given;
	ws_supply_fn supply;            /* non-native runs made elsewhere, or NULL */
	void *supply_data;
	bool native_time;               /* with a backend that is not native: native runs for time as well */
	/* Native runs with the CPU features the simulator hides masked (GLIBC_TUNABLES), as it runs them. */
	bool sim_cpu_native;
	/*
	 * Layout: native runs get an environment variable of a random length, 0-4095 bytes, drawn per run from
	 * the seed (randomize_layout), as hyperfine does, so that no one stack alignment decides a comparison;
	 * the deterministic backends run each program under `layouts` environment sizes (0 or 1: one, none
	 * added), so that a count that moves with the layout shows its spread.
	 */
	bool randomize_layout;
	size_t layouts;
	ws_progress_fn progress;
	void *progress_data;
	/*
	 * Called once the backends are chosen, before any hook or run, with `res` holding every variant and,
	 * marked unsupported with the reason, what nothing here can count: a negative errno (its message
	 * said) ends the session there, with nothing run. NULL: no such check.
	 */
	int (*planned)(const struct ws_result *res, void *data);
	void *planned_data;
};

/*
 * Measure `progs` into `res`, which gets one variant per program (in order), the machine, the settings,
 * and every sample. Returns 0; -EINTR when interrupted (res->partial is set, the finished runs are kept);
 * -ECHILD when a run failed and failures are not ignored, or a hook failed (res->partial unless it was a
 * cleanup after the last run; the message names the program, or the hook and the program, and the exit
 * status); another negative errno when the measurement could not start. In every case what was measured
 * is in `res`, so the caller can write it.
 */
int ws_measure(struct ws_result *res, const struct ws_program *progs, size_t nprogs,
	       const struct ws_measure_opts *o);

/* The variable that carries the layout padding, and its largest length (a page, as hyperfine pads). */
#define WS_LAYOUT_PAD_ENV "WHYSLOW_LAYOUT_PAD"
#define WS_LAYOUT_PAD_MAX 4095

/*
 * With --layouts K, the padding of simulated run `run` (the same for every program), in bytes; and the
 * "NAME=spaces" entry of a padding. A plan's job (sim-job --layout-pad) adds it where a local run does.
 */
int ws_layout_pad_of(size_t layouts, size_t run);
char *ws_layout_pad_env(int pad);

/* Fill res->machine with this machine's facts (CPU, kernel, host, CPUs, PMU). */
void ws_machine_probe(struct ws_machine *m);

#endif
