/* SPDX-License-Identifier: GPL-2.0-or-later */
/* measure.h - a measurement session: warm-up, interleaved rounds, backends, into a result. */
#ifndef WS_MEASURE_H
#define WS_MEASURE_H

#include "backend/backend.h"
#include "event/event.h"
#include "result/result.h"

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

struct ws_program {
	const char *name;
	const char *command;   /* as the user wrote it */
	char **argv;           /* NULL-terminated; borrowed */
};

struct ws_progress {
	size_t done, total;    /* runs */
	double elapsed, eta;   /* seconds; eta < 0 when unknown */
	const char *phase;     /* "warm-up", "measuring", "simulating" */
	const char *program;   /* the program about to run */
};

typedef void (*ws_progress_fn)(const struct ws_progress *p, void *data);

struct ws_measure_opts {
	const char *backend;            /* a backend of the table (backend/backend.h), or "auto" */
	const struct ws_event_list *events;
	size_t runs;                    /* measured native runs per program */
	size_t warmup;                  /* warm-up runs per program, not recorded */
	bool runs_auto;                 /* add rounds until the precision target is met */
	double target_ci;               /* with runs_auto: CI half-width target, fraction (0.01) */
	size_t min_runs, max_runs;      /* with runs_auto */
	double max_time;                /* with runs_auto: seconds, 0 for none */
	const char *precision_metric;   /* with runs_auto: the primary metric ("wall-time") */
	size_t baseline;                /* index of the baseline program, for runs_auto */
	uint64_t seed;
	double timeout;                 /* per run, seconds; 0 for none */
	bool show_output;
	bool ignore_failure;            /* keep runs that exit non-zero instead of stopping */
	const cpu_set_t *cpus;
	struct ws_backend_opts be;
	size_t sim_runs;                /* simulated runs per program (3 confirm determinism) */
	bool native_time;               /* with a backend that is not native: native runs for time as well */
	/* Native runs with the CPU features the simulator hides masked (GLIBC_TUNABLES), as it runs them. */
	bool sim_cpu_native;
	ws_progress_fn progress;
	void *progress_data;
};

/*
 * Measure `progs` into `res`, which gets one variant per program (in order), the machine, the settings,
 * and every sample. Returns 0; -EINTR when interrupted (res->partial is set, the finished runs are kept);
 * -ECHILD when a run failed and failures are not ignored (res->partial, the message names the program and
 * its exit status); another negative errno when the measurement could not start. In every case what was
 * measured is in `res`, so the caller can write it.
 */
int ws_measure(struct ws_result *res, const struct ws_program *progs, size_t nprogs,
	       const struct ws_measure_opts *o);

/* Fill res->machine with this machine's facts (CPU, kernel, host, CPUs, PMU). */
void ws_machine_probe(struct ws_machine *m);

#endif
