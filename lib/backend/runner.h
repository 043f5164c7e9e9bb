/* SPDX-License-Identifier: GPL-2.0-or-later */
/* runner.h - run one command once: fork, hold before exec for counters, exec, time, reap, kill on timeout. */
#ifndef WS_RUNNER_H
#define WS_RUNNER_H

#include <sched.h>
#include <stdbool.h>
#include <sys/types.h>

/* Where a command's output goes (hyperfine's --output). */
enum ws_output {
	WS_OUTPUT_NULL,     /* stdout and stderr to /dev/null */
	/*
	 * stdout into a pipe that whyslow reads and discards, stderr to /dev/null: for programs that write
	 * differently to /dev/null (some detect it and skip the work)
	 */
	WS_OUTPUT_PIPE,
	WS_OUTPUT_INHERIT,  /* both to whyslow's own */
	WS_OUTPUT_FILE,     /* stdout to ws_exec.output_path, created or truncated at each run; stderr to /dev/null */
};

struct ws_exec {
	char *const *argv;      /* NULL-terminated; argv[0] is looked up in PATH (execvp); borrowed */
	char *const *env_add;   /* "NAME=VALUE" entries added to the child's environment, or NULL; borrowed */
	enum ws_output output;
	const char *output_path; /* with WS_OUTPUT_FILE */
	/*
	 * stdin: an open file (above 2: whyslow's own streams are never given) that the command reads from its
	 * start, as the runner seeks it back before each run; else /dev/null.
	 */
	int input_fd;
	double timeout;         /* seconds; 0 for none. Kills the child and all it started (ws_runner_keep_children) */
	const cpu_set_t *cpus;  /* pin the child to these CPUs; NULL to inherit */
	/*
	 * What it starts in the background lives on until whyslow exits (a hook that starts a server for the
	 * runs): not in a run's cgroup, not killed after it, and spared by later runs' sweeps.
	 */
	bool keep_children;
	const char *what;       /* whose command it is, for messages ("the --prepare of 'xz -1'"), or NULL */
};

/*
 * `attach` is called in the parent after fork, while the child waits before exec: the place to open
 * counters on `pid` with enable_on_exec. A non-zero return aborts the run (the child is killed and
 * reaped). Without an attach hook the runner starts the child as posix_spawn does (clone with CLONE_VM and
 * CLONE_VFORK, or clone3 into the run's cgroup; exec; no handshake), the cheaper
 * path: counters opened on whyslow itself with inherit and enable_on_exec count the child from its exec.
 * `poll` (may be NULL) is called about every 100 ms while the child runs, to drain sample buffers.
 */
struct ws_run_hooks {
	int (*attach)(void *ctx, pid_t pid);
	void (*poll)(void *ctx);
	void *ctx;
};

#define WS_STOPPED_BELOW (-1)

struct ws_run_outcome {
	double wall;          /* seconds from the spawn (exec included) to exit (CLOCK_MONOTONIC) */
	double user, sys;     /* seconds of CPU, the child and the descendants it waited for (wait4) */
	double max_rss;       /* bytes (wait4) */
	/*
	 * Seconds its processes spent runnable but waiting for a CPU (its cgroup's cpu.pressure "some" total,
	 * the kernel's PSI), NAN where there is no cgroup or no PSI: off-CPU time that is not its own waiting.
	 */
	double cpu_wait;
	/*
	 * whyslow's own peak when the child started (VmHWM), or 0 where /proc does not say: the kernel takes
	 * the peak of the memory a child leaves at exec into its max-rss, and a child sharing ours (CLONE_VM)
	 * leaves our peak, a forked one no more than our size. A max_rss at or below the floor says only that
	 * the child's own peak was no higher: see ws_run_rss().
	 */
	double rss_floor;
	int exit_code;        /* -1 when killed by a signal */
	int signal;           /* terminating signal, 0 if it exited */
	bool timed_out;       /* killed by us after ws_exec.timeout */
	bool interrupted;     /* killed by us after ws_runner_interrupt() */
	/*
	 * Killed by us when it stopped: the stop signal (SIGTTIN...), WS_STOPPED_BELOW where a process it
	 * started stayed stopped (its signal unknown: the kernel tells only its parent), else 0.
	 */
	int stopped;
	char stopped_name[64]; /* WS_STOPPED_BELOW: the program that process runs */
};

/*
 * Run ex->argv once and wait for it. Returns 0 when the command ran (whatever its exit status, see `out`),
 * -ENOENT/-EACCES/... when it could not be executed (the message names the command), -EINTR when
 * interrupted before or during the run (out->interrupted is set when a child was killed), or the
 * attach hook's error, or the error of opening its streams (an output file). The child runs in its own
 * process group with the streams ex->input_fd and ex->output give it.
 */
int ws_run(const struct ws_exec *ex, const struct ws_run_hooks *hooks, struct ws_run_outcome *out);

/* The child's own peak size in bytes, or NAN where it is not known (at or below out->rss_floor). */
double ws_run_rss(const struct ws_run_outcome *out);

/*
 * Whether `cmd` (argv[0]) can be executed, as ws_run() will look it up: 0, or -ENOENT (not in PATH) or
 * -EACCES (there but not executable) after the message ws_run() would give, naming `what` (as ws_exec's)
 * when not NULL. For failing before any set-up.
 */
int ws_run_check(const char *cmd, const char *what);

/*
 * Ask the runner to stop: the current child and all it started are killed and reaped, and ws_run() returns
 * -EINTR; later ws_run() calls return -EINTR at once. Async-signal-safe: call it from a SIGINT handler.
 */
void ws_runner_interrupt(void);
bool ws_runner_interrupted(void);
/* Forget an earlier interrupt (tests). */
void ws_runner_reset(void);

/*
 * Runs that overlap, for what does not depend on timing (simulations; never a timed run): start a command
 * and return at once, then wait for whichever of several ends first. A job is spawned as ws_run() spawns
 * without an attach hook, in its own process group, with the same streams; --input is read through a file
 * description of the job's own, so that overlapping runs never share an offset.
 */
struct ws_job;

/* Start ex->argv. Returns 0 and the job, or the error ws_run() would give (the message said). */
int ws_job_start(const struct ws_exec *ex, struct ws_job **job);

/*
 * Wait until one of jobs[0..n) ends (NULL entries are skipped), each under its own ex->timeout: *which is its
 * index, `out` its outcome (timed_out when killed for its timeout), and jobs[*which] is reaped, freed and set
 * to NULL. Returns 0, -ECHILD when there is nothing to wait for, the error of collecting its status, or
 * -EINTR after ws_runner_interrupt(): then every job's process group is killed and reaped, and every entry
 * is NULL.
 */
int ws_job_wait_any(struct ws_job **jobs, size_t n, size_t *which, struct ws_run_outcome *out);

/* Kill a job's process group, reap it and free it (after an error elsewhere); NULL is allowed. */
void ws_job_kill(struct ws_job *job);

/*
 * No process outlives its run: after each run (and each job) whatever it left running, in the background,
 * double-forked or in a session of its own, is killed and reaped; so is everything a timeout or an
 * interrupt ends. Through a cgroup v2 leaf per run and cgroup.kill where whyslow can make one, else as the
 * child subreaper that its runs' orphans come to. And the command dies with whyslow (PR_SET_PDEATHSIG);
 * what a whyslow killed with SIGKILL left, the next one removes. ws_runner_keep_children(true), before the
 * first run, keeps the old behaviour: only a timeout or an interrupt kills, and only the process group.
 */
void ws_runner_keep_children(bool keep);
/* One line: the mechanism in use ("cgroup v2: ...", "subreaper: ...", "none ..."); sets it up if needed. */
const char *ws_runner_containment(void);

/* Parse a CPU list like "0-3,6" into `set`. Returns 0 or -EINVAL. */
int ws_parse_cpu_list(const char *s, cpu_set_t *set);

#endif
