/* SPDX-License-Identifier: GPL-2.0-or-later */
/* contain.h - no process outlives its run: a cgroup v2 leaf per run where one can be made, else whyslow as subreaper. */
#ifndef WS_CONTAIN_H
#define WS_CONTAIN_H

#include <stdbool.h>
#include <sys/types.h>

enum ws_contain_kind {
	WS_CONTAIN_OFF,       /* --keep-children: what a run starts in the background may outlive it */
	WS_CONTAIN_SUBREAPER, /* whyslow adopts what its runs orphan, and kills it after each run */
	WS_CONTAIN_CGROUP,    /* the same, and each run in a cgroup v2 leaf of its own, killed with cgroup.kill */
};

/* A cgroup v2 leaf that holds one run at a time (the timed runs' one, or one per overlapping job). */
struct ws_cgroup;

/* Before the first run: keep what runs leave behind (the old behaviour, for daemons measured on purpose). */
void ws_contain_keep_children(bool keep);

/*
 * Decide the mechanism, once (later calls return at once): become a child subreaper, remove what a
 * whyslow killed with SIGKILL left (its cgroup and its processes, its temporary folders), and make this
 * session's cgroup where cgroup v2 is mounted and writable. Never fails: the weaker mechanism is kept.
 */
void ws_contain_init(void);

enum ws_contain_kind ws_contain_kind(void);

/* One line for -v and doctor: the mechanism in use and, for a cgroup, where; or why not a cgroup. */
const char *ws_contain_describe(void);

/* A free leaf to start a run in (NULL without cgroups), and its directory descriptor for clone3. */
struct ws_cgroup *ws_contain_leaf_get(void);
void ws_contain_leaf_put(struct ws_cgroup *cg);
int ws_contain_leaf_fd(const struct ws_cgroup *cg);

/*
 * Seconds some process of leaf `cg` has been runnable without a CPU, all told (cpu.pressure's "some"
 * total): NAN for no leaf, or a kernel without PSI (CONFIG_PSI, psi=1).
 */
double ws_contain_cpu_wait(const struct ws_cgroup *cg);

/* A run in this leaf cannot be started there (clone3 refused it): every later run goes without cgroups. */
void ws_contain_cgroup_failed(int err);

/* Kill everything in the leaf at once (a timeout, an interrupt), the run's main process included. */
void ws_contain_kill(struct ws_cgroup *cg);

/*
 * The processes of a run whose status the runner will collect itself (overlapping jobs): never killed or
 * reaped by a sweep.
 */
void ws_contain_track(pid_t pid);
void ws_contain_untrack(pid_t pid);

/* After a run whose children may outlive it (ws_exec.keep_children): spare whyslow's children from now on. */
void ws_contain_keep_orphans(void);

/*
 * After a run's main process was reaped: kill and reap whatever the run left. With a leaf, everything in
 * it; without, whyslow's children that are not tracked: those of process group `pgid` only, unless `all`
 * (no other run is in flight, so every orphan is this run's). Cheap when nothing was left: one waitid.
 */
void ws_contain_sweep(struct ws_cgroup *cg, pid_t pgid, bool all);

/*
 * A stopped process of a run: which, and what tells whether it ran since (a pid reused has another start
 * time; one stopped and continued again has switched context).
 */
struct ws_stop_look {
	pid_t pid;
	unsigned long long start, switches;
};

/*
 * A process of the run started as `pid` that is stopped (state T), other than `pid` itself: with a leaf,
 * any in it; without, any of pid's descendants. True with *look filled; false with it zeroed.
 */
bool ws_contain_find_stopped(const struct ws_cgroup *cg, pid_t pid, struct ws_stop_look *look);

/* The program `pid` runs, for a message, into name (`size` bytes). */
void ws_contain_proc_name(pid_t pid, char *name, size_t size);

#endif
