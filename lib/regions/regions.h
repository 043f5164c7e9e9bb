/* SPDX-License-Identifier: GPL-2.0-or-later */
/* regions.h - whyslow's side of the region markers: the environment it gives a run, the files it reads back. */
#ifndef WS_REGIONS_H
#define WS_REGIONS_H

#include "ws-markers.h" /* the protocol: environment, file format, client requests */

#include <stddef.h>
#include <stdint.h>

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
