/* SPDX-License-Identifier: GPL-2.0-or-later */
/* regions.h - whyslow's side of the region markers: the environment it gives a run, the files it reads back. */
#ifndef WS_REGIONS_H
#define WS_REGIONS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The protocol between whyslow and libwhyslow (marker/marker.c), version 1.
 *
 * whyslow tells the measured program what to do through its environment. libwhyslow reads it once, in a
 * constructor, before main(). Without WHYSLOW_MARKERS the library stays silent and does nothing.
 *
 *   WHYSLOW_MARKERS=perf|sim
 *	perf: count with perf_event_open in the program itself and write one file per process (below).
 *	sim:  issue client requests to the wsim Valgrind tool (sim/ws-requests.h), which counts; no files.
 *	      If the tool does not answer WS_REQ_PING with WS_REQ_MAGIC, the library says so and stays off.
 *   WHYSLOW_MARKERS_EVENTS=EVENT[,EVENT...]                       (perf only; 1 to WS_MARKERS_MAX_EVENTS)
 *	EVENT is TYPE:CONFIG:CONFIG1:CONFIG2:EXCLUDE:NAME, the perf_event_attr fields of one event:
 *	TYPE decimal; CONFIG, CONFIG1, CONFIG2 and EXCLUDE hexadecimal with 0x; EXCLUDE is a bit mask,
 *	1 exclude_user, 2 exclude_kernel, 4 exclude_hv; NAME (what the file calls the event) percent-encoded
 *	(below). The first event leads the group. Example: task-clock and page-faults, user and kernel:
 *	    1:0x1:0x0:0x0:0x0:task-clock,1:0x2:0x0:0x0:0x0:page-faults
 *   WHYSLOW_MARKERS_OUT=PREFIX                                      (perf only)
 *	Each process writes PREFIX.PID when it exits; PREFIX.PID-N (N = 1, 2, ...) if that name is taken
 *	(the pid was reused within the run). PREFIX is DIR/regions (WS_MARKERS_FILE_BASE), DIR a fresh directory
 *	per run, so that the files of one run, a whole process tree, are exactly DIR/regions.*.
 *   WHYSLOW_MARKERS_FORCE=1                                         (sim only; benchmarks and tests)
 *	Issue the client requests even when the tool does not answer the ping: natively they cost a few
 *	instructions and do nothing, which is what bench/marker-overhead.sh measures.
 *
 * In perf mode each thread opens its own self-monitoring group (pid 0, cpu -1, the events above, read_format
 * GROUP|ID|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING) at its first marker; the main thread opens its group in the
 * constructor, which also checks that the events open at all. Counts are read with rdpmc through each event's
 * mmapped page when every event of the group allows it (x86: cap_user_rdpmc, and cap_user_time, which the
 * kernel sets only when sched_clock is the stable TSC, so not in most VMs), and with read() of the group
 * otherwise: software events always, and any read where an event is multiplexed out. Both give the same
 * raw counts and times. Each region also records CLOCK_MONOTONIC time. Regions nest and count inclusively; a region
 * entered again while it is active in the same thread (recursion) is counted once, from its outermost begin
 * to its outermost end, and "entries" counts those outermost pairs. Threads accumulate privately and are
 * merged at thread exit and at process exit (exit() or a return from main; _exit(), exec and a fatal signal
 * lose the process's regions). A fork child starts with empty totals: regions active at the fork continue in
 * the child from the fork on, so they are counted (and entered) once in each process.
 *
 * The file, text, one record per line, fields separated by one space, numbers unsigned decimal:
 *
 *	whyslow-regions 1             magic and version: always the first line
 *	pid 4242                      the process
 *	threads 3                     threads that used a marker (or opened counters), exited or not
 *	failed 0                      of those, threads whose counters could not be opened or read
 *	error MESSAGE...              optional, at most once: the first failure, free text to the end of line
 *	events 2                      the number of events, then one line per event, in group order:
 *	event task-clock              NAME, percent-encoded
 *	event page-faults
 *	region NAME ENTRIES WALL_NS UNMATCHED V0 E0 R0 V1 E1 R1 ...
 *	end                           always the last line; a file without it is malformed
 *
 * One region line per region the process registered, in registration order, after the event lines. NAME is
 * percent-encoded. ENTRIES: completed outermost begin/end pairs. WALL_NS: their summed CLOCK_MONOTONIC
 * nanoseconds. UNMATCHED: ends without a begin plus regions still open when their thread or the process
 * ended (those are not counted otherwise). Then, per event, Vi the raw count (not scaled), Ei and Ri the
 * nanoseconds the event was enabled and running, all summed over the entries of every thread. When Ri < Ei
 * the event was multiplexed: scale Vi by Ei / Ri (ws_region_count_scaled()); Ri = 0 means not counted.
 *
 * Percent-encoding: every byte that is not a printable ASCII character (0x21 to 0x7e), and each of "%,:",
 * is written as % and two upper-case hexadecimal digits. Names are never empty.
 */

#define WS_MARKERS_ENV_MODE "WHYSLOW_MARKERS"
#define WS_MARKERS_ENV_EVENTS "WHYSLOW_MARKERS_EVENTS"
#define WS_MARKERS_ENV_OUT "WHYSLOW_MARKERS_OUT"
#define WS_MARKERS_ENV_FORCE "WHYSLOW_MARKERS_FORCE"
#define WS_MARKERS_FILE_BASE "regions"
#define WS_MARKERS_FILE_MAGIC "whyslow-regions"
#define WS_MARKERS_FILE_VERSION 1
#define WS_MARKERS_MAX_EVENTS 16
/* Exclusion bits of the EXCLUDE field. */
#define WS_MARKERS_EXCLUDE_USER 0x1u
#define WS_MARKERS_EXCLUDE_KERNEL 0x2u
#define WS_MARKERS_EXCLUDE_HV 0x4u

enum ws_markers_mode {
	WS_MARKERS_PERF,
	WS_MARKERS_SIM,
};

/* One event for the markers to count: the perf_event_attr fields whyslow's event parser produced. */
struct ws_marker_event {
	uint32_t type;
	uint64_t config, config1, config2;
	unsigned exclude_user : 1, exclude_kernel : 1, exclude_hv : 1;
	const char *name; /* what the results call it ("task-clock"); not empty; borrowed */
};

/*
 * Build the environment entries that make libwhyslow measure a run: a NULL-terminated array of "NAME=VALUE"
 * strings, for putenv() in the child or to append to an envp. In perf mode `events` (1 to
 * WS_MARKERS_MAX_EVENTS of them, the first leads the group) and `outdir` (where the run's files will be,
 * which the caller creates and empties) are required; in sim mode both are ignored and may be NULL.
 *
 * Returns 0 and sets *env, which the caller frees with ws_marker_env_free(); or -EINVAL, with a ws_log()
 * message, for a bad argument (no events, too many, an empty name). Thread-safe.
 */
int ws_marker_env_build(enum ws_markers_mode mode, const struct ws_marker_event *events, size_t nr,
			const char *outdir, char ***env);
void ws_marker_env_free(char **env);

/* One event in one region: sums over entries, threads and processes. */
struct ws_region_count {
	uint64_t value;        /* raw count, not scaled for multiplexing */
	uint64_t time_enabled; /* ns */
	uint64_t time_running; /* ns; < time_enabled when multiplexed, 0 when never counted */
};

struct ws_region_data {
	char *name;
	uint64_t entries;   /* completed outermost begin/end pairs */
	uint64_t unmatched; /* ends without begin + regions left open at thread or process exit */
	double wall_seconds;
	struct ws_region_count *counts; /* one per event, in the order of ws_region_set.events */
};

/* The regions of one run: every process and thread of it, summed. Owns all its strings and arrays. */
struct ws_region_set {
	size_t nr_events;
	char **events;        /* event names, in group order */
	size_t nr_regions;
	struct ws_region_data *regions; /* in the order first seen */
	size_t nr_processes;  /* files read */
	uint64_t nr_threads;  /* threads that used markers */
	uint64_t nr_failed;   /* threads whose counters failed: their regions are missing or partial */
	char *error;          /* the first failure a process reported, or NULL */
};

#define WS_REGION_SET_INIT { 0 }

/*
 * Read every file of one run from `outdir` (DIR/regions.PID and DIR/regions.PID-N; other names, such as the
 * temporary .tmp files of a process that died while writing, are ignored) and add them into `set`, which is
 * WS_REGION_SET_INIT or holds earlier files of the same run. No files is not an error: the program made no
 * markers, or was not linked with libwhyslow (set->nr_processes stays 0).
 *
 * Returns 0; -errno when the directory or a file cannot be read; -EINVAL for a malformed file or files whose
 * event lists differ. Each failure is explained with ws_log(WS_LOG_ERROR, ...) naming the file and line. On
 * failure `set` is unchanged by the bad file (earlier good files may have been added); release it in any case.
 */
int ws_region_set_read(struct ws_region_set *set, const char *outdir);

/*
 * Parse one file's contents (`buf`, `len` bytes, need not be NUL-terminated) and add it into `set`. `origin`
 * names the file in messages. Returns 0, or -EINVAL with a ws_log() message; on failure `set` is unchanged.
 */
int ws_region_set_parse(struct ws_region_set *set, const char *buf, size_t len, const char *origin);

/* The region called `name`, or NULL. The pointer is valid until the set changes. */
const struct ws_region_data *ws_region_set_find(const struct ws_region_set *set, const char *name);

/* The count scaled for multiplexing, value * enabled / running; NAN when running is 0 (never counted). */
double ws_region_count_scaled(const struct ws_region_count *c);

/* Free everything the set owns and leave it empty (WS_REGION_SET_INIT). */
void ws_region_set_release(struct ws_region_set *set);

/*
 * Percent-encode `s` as the protocol does (for names in the environment and the files). Returns a new string
 * the caller frees. Exposed for the tests and for callers building the environment by other means.
 */
char *ws_marker_name_encode(const char *s);

#endif
