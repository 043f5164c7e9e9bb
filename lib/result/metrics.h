/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics.h - the registry of metric names: one name, one meaning, on every backend. */
#ifndef WS_METRICS_H
#define WS_METRICS_H

#include <stdbool.h>
#include <stddef.h>

enum ws_unit {
	WS_UNIT_COUNT,
	WS_UNIT_SECONDS,
	WS_UNIT_NS,    /* task-clock, as the kernel counts it */
	WS_UNIT_BYTES,
	WS_UNIT_RATIO, /* ipc, miss rates, shares */
	WS_UNIT_PKI,   /* per thousand instructions */
};

/* Which way is worse: decides "slower" against "faster" in a comparison. */
enum ws_better {
	WS_LOWER_BETTER,
	WS_HIGHER_BETTER,
};

/* Who can produce a metric. */
#define WS_SRC_RUSAGE (1u << 0) /* the runner itself: wait4 and the clock */
#define WS_SRC_PERF_SW (1u << 1) /* perf_event_open software events: every Linux machine */
#define WS_SRC_PERF_HW (1u << 2) /* perf_event_open hardware and cache events: needs a PMU */
#define WS_SRC_SIM (1u << 3) /* the simulator */
#define WS_SRC_DERIVED (1u << 4) /* computed per run from other metrics */

struct ws_metric_info {
	const char *name;
	enum ws_unit unit;
	enum ws_better better;
	unsigned sources;
	bool required;    /* one of the metrics every backend names alike: part of the default set */
	const char *desc; /* one line, for `whyslow list` and the README */
};

/* The registry entry for `name`, or NULL for a name it does not know (a raw or libpfm4 event). */
const struct ws_metric_info *ws_metric_info(const char *name);

/* All entries, in display order; *n receives the count. */
const struct ws_metric_info *ws_metric_all(size_t *n);

/* Display order of a metric name: registry order first, then unknown names after. */
int ws_metric_rank(const char *name);

/* Unit of any metric, WS_UNIT_COUNT for names the registry does not know. */
enum ws_unit ws_metric_unit(const char *name);
enum ws_better ws_metric_better(const char *name);
const char *ws_unit_name(enum ws_unit unit);

/*
 * A derived metric: value = num / den (times `scale`), computed per run when both parts were measured by the
 * same source, so that statistics apply to it like to any other metric.
 */
struct ws_derived {
	const char *name;
	const char *num;
	const char *den;
	double scale;
};

const struct ws_derived *ws_derived_all(size_t *n);

/*
 * Level-1 top-down (lib/result/derive.c computes it, lib/perf/topdown.c opens the events): the four derived
 * fractions in display order, and the raw events they come from, named td-*. Intel (Ice Lake and later)
 * reads each metric in slots of WS_TOPDOWN_SLOTS; AMD Zen 4 counts WS_TOPDOWN_ZEN4_SLOTS_PER_CYCLE dispatch
 * slots per td-cycles. The raw inputs are given per fraction in the same order as ws_topdown_metrics: for
 * Zen 4 the second is the ops dispatched, from which the retired ops (the fourth) are taken away.
 */
#define WS_TOPDOWN_SLOTS "td-slots"
#define WS_TOPDOWN_ZEN4_CYCLES "td-cycles"
#define WS_TOPDOWN_ZEN4_SLOTS_PER_CYCLE 6.0
extern const char *const ws_topdown_metrics[4];
extern const char *const ws_topdown_intel_inputs[4];
extern const char *const ws_topdown_zen4_inputs[4];

#endif
