/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backend.h - a backend counts events for one run: the method table each backend fills in, and its traits. */
#ifndef WS_BACKEND_H
#define WS_BACKEND_H

#include "backend/runner.h"
#include "event/event.h"
#include "result/result.h"

#include <stdbool.h>
#include <sys/types.h>

struct ws_backend;

/* What a backend says about each requested event at set-up. */
struct ws_claim {
	bool claimed;  /* this backend will count it on every run */
	char *reason;  /* if not claimed: why this backend cannot (owned; the last backend's reason wins) */
};

/* Options every backend sees; each uses what concerns it. */
struct ws_backend_opts {
	bool regions;          /* collect per-region metrics (marker library) */
	bool functions;        /* collect per-function metrics */
	bool callers;          /* with functions: also their callers, inclusive metrics and the stacks */
	/*
	 * Set by the session for a backend that runs beside a native one, which times the programs: this one
	 * counts only what that one could not (the simulator says so once).
	 */
	bool beside_native;
	const char *functions_event; /* a second event to attribute per function (--functions=EVENT), or NULL */
	double freq;           /* sampling rate for per-function profiles, Hz */
	/*
	 * How sampling profiles record call chains: "fp", "dwarf", "none", or NULL for what works for each
	 * program (frame pointers where it keeps them, else DWARF); the simulator always tracks calls.
	 */
	const char *call_graph;
	const char *sim_preset;
	char *const *sim_args; /* extra tool options, NULL-terminated or NULL */
	size_t sim_hot;        /* functions to keep per-instruction counts for */
	size_t sim_cores;      /* --sim-cores: virtual cores; 0: the preset's */
	/*
	 * --sim-scope: NULL or "all" to simulate the whole program; "regions" to simulate only while a region
	 * is open (outside, the program runs unsimulated); "regions-warm" (outside, only the caches see it).
	 */
	const char *sim_scope;
	/*
	 * Set by the session before a phase: its runs in flight fill every CPU they may use, so a backend
	 * starts no helper thread of its own (the simulator's predictor thread).
	 */
	bool cpus_full;
};

/* What a backend is, for the session (lib/measure/measure.c), which never asks for a backend by name. */
enum ws_backend_trait {
	/*
	 * The program runs natively: its runs are timed (the runner's wall-time, user-time, system-time and
	 * max-rss come from them) and interleaved in seeded rounds after warm-up.
	 */
	WS_BE_NATIVE = 1u << 0,
	/*
	 * The counts are deterministic: a few runs per program confirm them (--sim-runs, --exact), one program
	 * after another, without warm-up, and they are compared exactly.
	 */
	WS_BE_DETERMINISTIC = 1u << 1,
	/*
	 * It counts regions and functions exactly and without disturbing the program: a native phase beside
	 * it leaves them to it, so that markers reading counters do not distort the native timings.
	 */
	WS_BE_EXACT_GROUPS = 1u << 2,
	/* A run that dies by a signal or a timeout leaves no counts: an error even with --ignore-failure. */
	WS_BE_COUNTS_AT_EXIT = 1u << 3,
};

struct ws_backend_ops {
	const char *name;      /* as --backend takes it */
	const char *summary;   /* one line for -h and `whyslow list` */
	unsigned traits;       /* enum ws_backend_trait */
	unsigned timeout_factor; /* a run may take this many times --timeout (a simulator is slower); 0 means 1 */
	/* In messages about a failed run: " under the simulator", or "" for a native one. */
	const char *running_where;
	/* Appended to the message of a run killed by a signal: where to look. May be NULL. */
	const char *crash_hint;
	/*
	 * Could this backend count `ev`? The session sets up a backend only when an event no earlier backend
	 * claimed is one it could count (or it is native, and times the runs), so that a backend nobody needs
	 * never complains that it cannot work here. NULL: every event.
	 */
	bool (*could_count)(const struct ws_event *ev);
	/*
	 * Look at the requested events that no earlier backend claimed (claims[i].claimed false) and claim
	 * those this backend will count here; for the others it knows, leave a reason. Returns 0, or a
	 * negative errno when the backend cannot work at all (the message says why).
	 */
	int (*setup)(struct ws_backend *be, const struct ws_event_list *events, struct ws_claim *claims);
	/*
	 * For a backend whose runs may overlap (deterministic ones: their counts do not depend on timing): make
	 * and free the state of one run. The session then holds one per run in flight and sets be->run to it
	 * around that run's prepare() and collect(), which keep there whatever belongs to the run. NULL: the
	 * backend keeps its run in priv, and its runs never overlap.
	 */
	void *(*run_new)(struct ws_backend *be);
	void (*run_free)(struct ws_backend *be, void *run);
	/*
	 * The directory where the current run leaves its raw result for collect(), once prepare() made it, so
	 * that a run made on another machine can be put there instead (compare --plan-jobs, merge). May be NULL.
	 */
	const char *(*run_dir)(struct ws_backend *be);
	/* Before each run: may wrap argv and add environment entries (the backend owns what it adds). */
	int (*prepare)(struct ws_backend *be, struct ws_exec *ex);
	/*
	 * Before the run: open counters on whyslow itself with inherit and enable_on_exec, so that the child
	 * is counted from its exec (the runner then spawns without a handshake). May be NULL.
	 */
	int (*arm)(struct ws_backend *be);
	/*
	 * Whether the next run needs attach(): the runner then forks and holds the child before its exec, the
	 * slower path. Decided from the options, which may change after set-up. NULL: never.
	 */
	bool (*wants_pid)(const struct ws_backend *be);
	/* After fork, before exec: attach to `pid` (sampling needs the child's pid). May be NULL. */
	int (*attach)(struct ws_backend *be, pid_t pid);
	/* While the run goes on, about every 100 ms; may be NULL. */
	void (*poll)(struct ws_backend *be);
	/*
	 * After the run: append this run's value of every claimed event to v (metrics, regions, functions),
	 * run index `run` (0-based, the same for every metric of this run). Returns 0 or negative errno.
	 */
	int (*collect)(struct ws_backend *be, const struct ws_run_outcome *o, struct ws_variant *v, size_t run);
	/* After the runs: add what this backend learnt about the machine (the simulator's costs). May be NULL. */
	void (*describe)(struct ws_backend *be, struct ws_machine *m);
	/* Release everything; `be` itself is freed by ws_backend_free(). */
	void (*teardown)(struct ws_backend *be);
};

/*
 * What each run of a group list (one variant's regions, or its functions) gives a group it did not report:
 * 0 when the run's data was read and the group was not in it (it counted nothing), NAN when the run had
 * nothing to read (no region file, no samples: not counted). A backend keeps one record per list it fills,
 * and one per metric whose fill differs from its group's (a second event without samples).
 */
struct ws_run_fills {
	const struct ws_group_list *list;
	char *metric;  /* NULL: every metric of the list without a record of its own */
	double *fill;  /* per run; a run never recorded (it failed before its data was read) is NAN */
	size_t n, alloc;
};

struct ws_group_fills {
	struct ws_run_fills *v;
	size_t n, alloc;
};

#define WS_GROUP_FILLS_INIT { 0 }

struct ws_backend {
	const struct ws_backend_ops *ops;
	struct ws_backend_opts opts;
	void *priv;
	void *run; /* the run prepare() and collect() are about: run_new()'s, or NULL */
};

/* A backend of `ops` with a copy of `opts` (NULL: all off), ready for its setup(). */
struct ws_backend *ws_backend_new(const struct ws_backend_ops *ops, const struct ws_backend_opts *opts);
void ws_backend_free(struct ws_backend *be);

/*
 * The backend table (lib/measure/backends.c, the only file that names the backends): every backend this
 * build has, in the order `--backend auto` sets them up, which is the order they claim events in: the
 * first that can count an event counts it. NULL-terminated. `in_auto` false: only by name.
 */
struct ws_backend_entry {
	const struct ws_backend_ops *ops;
	bool in_auto;
};

extern const struct ws_backend_entry ws_backend_table[];

/* The table's backend called `name`, or NULL. */
const struct ws_backend_ops *ws_backend_find(const char *name);

/*
 * Append `value` to metric `name` in `set` at run index `run`: runs the metric missed are filled with
 * `fill`; NAN fill means "not counted". Regions and functions use ws_group_push(), whose fill varies by run.
 */
void ws_push_at(struct ws_metric_set *set, const char *name, unsigned flags, size_t run, double value,
		double running, double fill);

/*
 * Append `value` to metric `name` of group `g` of list `l` at run index `run`: the runs before it that the
 * metric missed (its group or itself first seen in this run) take those runs' fills from `f`.
 */
void ws_group_push(struct ws_group_fills *f, const struct ws_group_list *l, struct ws_group *g, const char *name,
		   unsigned flags, size_t run, double value, double running);

/*
 * Run `run` of list `l` has been read: record `fill` as what it gives a group it did not report, then bring
 * every metric of every group up to run + 1 samples, each missed run taking its fill. `metric` limits this to
 * that metric (its fill differs from the rest's); NULL pads every metric without a record of its own.
 */
void ws_group_list_pad(struct ws_group_fills *f, struct ws_group_list *l, const char *metric, size_t run,
		       double fill);

void ws_group_fills_release(struct ws_group_fills *f);

#endif
