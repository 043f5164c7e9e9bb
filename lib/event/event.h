/* SPDX-License-Identifier: GPL-2.0-or-later */
/* event.h - event specs: what -e accepts, resolved to a metric name and, for perf, a perf_event_attr. */
#ifndef WS_EVENT_H
#define WS_EVENT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

enum ws_event_kind {
	WS_EVENT_RUSAGE,  /* measured by the runner itself: wall-time, user-time, system-time, max-rss */
	WS_EVENT_PERF,    /* a perf_event_open event: `attr` is filled */
	WS_EVENT_SIM,     /* only the simulator counts it (L2-misses, estimated-cycles, ...) */
	WS_EVENT_DERIVED, /* a ratio of two others (ipc, miss rates, MPKI) */
};

struct ws_event {
	char *name;                  /* the metric name: canonical ("cycles"), plus ":u"/":k" when given */
	enum ws_event_kind kind;
	struct perf_event_attr attr; /* WS_EVENT_PERF */
	bool hardware;               /* needs a PMU counter (hardware, cache, raw or a CPU PMU's event) */
	bool simulable;              /* the simulator can count this name (unmodified generic names only) */
};

struct ws_event_list {
	struct ws_event *v;
	size_t n, alloc;
};

/*
 * Resolve one spec: a generic name (cycles, instructions, L1-dcache-load-misses, task-clock, ...), with an
 * optional ":u", ":k" or ":uk" modifier; a raw event "rNNNN" (hex); a libpfm4 event "pmu::EVENT:UMASK";
 * a metric of the registry (wall-time, L2-misses, ipc). Returns 0, or -ENOENT for an unknown name (the
 * message suggests the closest names) or -EINVAL for a malformed modifier or raw code.
 */
int ws_event_parse(const char *spec, struct ws_event *out);

/*
 * Parse a comma-separated list and append each event (duplicates are dropped; a derived metric pulls in
 * its parts). Returns 0 or the first error of ws_event_parse().
 */
int ws_event_list_parse(struct ws_event_list *l, const char *list);

/* The default set: every metric marked `required` in metrics.h (the caller drops what cannot be counted here). */
void ws_event_list_default(struct ws_event_list *l);

struct ws_event *ws_event_list_find(const struct ws_event_list *l, const char *name);
void ws_event_list_release(struct ws_event_list *l);

/* perf's generic names, for `whyslow list`: calls fn(name, attr, is_hardware). */
void ws_event_for_each_generic(void (*fn)(const char *name, const struct perf_event_attr *attr, bool hw,
					  void *data),
			       void *data);

#endif
