/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics.c - the metric registry: names, units, direction and which backends can count each. */
#include "result/metrics.h"

#include <string.h>

#define R WS_SRC_RUSAGE
#define SW WS_SRC_PERF_SW
#define HW WS_SRC_PERF_HW
#define SIM WS_SRC_SIM
#define DER WS_SRC_DERIVED

/*
 * Order is display order: time first, then the software counters, then the core, branches and the memory
 * hierarchy from L1 outwards, then what only the simulator reports, then the derived ratios.
 */
static const struct ws_metric_info registry[] = {
	{ "wall-time", WS_UNIT_SECONDS, WS_LOWER_BETTER, R, true, "elapsed time from spawn to exit" },
	{ "user-time", WS_UNIT_SECONDS, WS_LOWER_BETTER, R, true, "CPU time in user mode (wait4)" },
	{ "system-time", WS_UNIT_SECONDS, WS_LOWER_BETTER, R, true, "CPU time in the kernel (wait4)" },
	{ "max-rss", WS_UNIT_BYTES, WS_LOWER_BETTER, R, true,
	  "peak resident set size (wait4); not counted at or near whyslow's own at the spawn, which the kernel "
	  "counts as the child's" },
	{ "task-clock", WS_UNIT_NS, WS_LOWER_BETTER, SW, true, "CPU time of all threads and children" },
	{ "page-faults", WS_UNIT_COUNT, WS_LOWER_BETTER, SW, true, "page faults" },
	{ "context-switches", WS_UNIT_COUNT, WS_LOWER_BETTER, SW, true, "context switches" },
	{ "cpu-migrations", WS_UNIT_COUNT, WS_LOWER_BETTER, SW, true, "moves between CPUs" },
	{ "cycles", WS_UNIT_COUNT, WS_LOWER_BETTER, HW, true, "core cycles" },
	{ "estimated-cycles", WS_UNIT_COUNT, WS_LOWER_BETTER, SIM, false,
	  "simulator's estimate: instructions plus misses and mispredictions times the preset's latencies" },
	{ "instructions", WS_UNIT_COUNT, WS_LOWER_BETTER, HW | SIM, true, "instructions retired" },
	{ "branches", WS_UNIT_COUNT, WS_LOWER_BETTER, HW | SIM, true,
	  "branches (simulator: conditional + indirect + returns)" },
	{ "branch-misses", WS_UNIT_COUNT, WS_LOWER_BETTER, HW | SIM, true, "mispredicted branches" },
	{ "conditional-branches", WS_UNIT_COUNT, WS_LOWER_BETTER, SIM, false, "conditional branches" },
	{ "conditional-branch-misses", WS_UNIT_COUNT, WS_LOWER_BETTER, SIM, false,
	  "mispredicted conditional branches" },
	{ "indirect-branches", WS_UNIT_COUNT, WS_LOWER_BETTER, SIM, false, "indirect jumps and calls" },
	{ "indirect-branch-misses", WS_UNIT_COUNT, WS_LOWER_BETTER, SIM, false,
	  "indirect jumps and calls to a mispredicted target" },
	{ "return-branches", WS_UNIT_COUNT, WS_LOWER_BETTER, SIM, false, "returns" },
	{ "return-branch-misses", WS_UNIT_COUNT, WS_LOWER_BETTER, SIM, false,
	  "returns mispredicted by the return-address stack" },
	{ "L1-dcache-loads", WS_UNIT_COUNT, WS_LOWER_BETTER, HW | SIM, true, "L1 data cache loads" },
	{ "L1-dcache-load-misses", WS_UNIT_COUNT, WS_LOWER_BETTER, HW | SIM, true, "L1 data cache load misses" },
	{ "L1-dcache-stores", WS_UNIT_COUNT, WS_LOWER_BETTER, SIM, false, "L1 data cache stores" },
	{ "L1-dcache-store-misses", WS_UNIT_COUNT, WS_LOWER_BETTER, SIM, false, "L1 data cache store misses" },
	{ "L1-icache-loads", WS_UNIT_COUNT, WS_LOWER_BETTER, SIM, false, "L1 instruction cache fetches" },
	{ "L1-icache-load-misses", WS_UNIT_COUNT, WS_LOWER_BETTER, HW | SIM, true,
	  "L1 instruction cache misses" },
	{ "L2-misses", WS_UNIT_COUNT, WS_LOWER_BETTER, SIM, false, "L2 misses: loads, stores and fetches" },
	{ "L2-load-misses", WS_UNIT_COUNT, WS_LOWER_BETTER, SIM, false, "L2 misses of data loads" },
	{ "L2-icache-misses", WS_UNIT_COUNT, WS_LOWER_BETTER, SIM, false, "L2 misses of instruction fetches" },
	{ "LLC-loads", WS_UNIT_COUNT, WS_LOWER_BETTER, HW | SIM, true, "last-level cache loads" },
	{ "LLC-load-misses", WS_UNIT_COUNT, WS_LOWER_BETTER, HW | SIM, true, "last-level cache load misses" },
	{ "LLC-store-misses", WS_UNIT_COUNT, WS_LOWER_BETTER, SIM, false, "last-level cache store misses" },
	{ "LLC-icache-misses", WS_UNIT_COUNT, WS_LOWER_BETTER, SIM, false,
	  "instruction fetches that miss the last level" },
	{ "prefetches", WS_UNIT_COUNT, WS_LOWER_BETTER, SIM, false, "prefetches issued by the modelled prefetchers" },
	{ "prefetches-used", WS_UNIT_COUNT, WS_HIGHER_BETTER, SIM, false,
	  "prefetched lines used before eviction" },
	{ "coherence-misses", WS_UNIT_COUNT, WS_LOWER_BETTER, SIM, false,
	  "accesses to a line another core wrote, with threads interleaved finely (simulator, --sim-cores)" },
	{ "ipc", WS_UNIT_RATIO, WS_HIGHER_BETTER, DER, false, "instructions per cycle" },
	{ "branch-miss-rate", WS_UNIT_RATIO, WS_LOWER_BETTER, DER, false, "branch-misses / branches" },
	{ "L1-dcache-miss-rate", WS_UNIT_RATIO, WS_LOWER_BETTER, DER, false,
	  "L1-dcache-load-misses / L1-dcache-loads" },
	{ "branch-mpki", WS_UNIT_PKI, WS_LOWER_BETTER, DER, false, "branch-misses per 1000 instructions" },
	{ "L1-dcache-mpki", WS_UNIT_PKI, WS_LOWER_BETTER, DER, false,
	  "L1-dcache-load-misses per 1000 instructions" },
	{ "L1-icache-mpki", WS_UNIT_PKI, WS_LOWER_BETTER, DER, false,
	  "L1-icache-load-misses per 1000 instructions" },
	{ "L2-mpki", WS_UNIT_PKI, WS_LOWER_BETTER, DER, false, "L2-misses per 1000 instructions" },
	{ "LLC-mpki", WS_UNIT_PKI, WS_LOWER_BETTER, DER, false, "LLC-load-misses per 1000 instructions" },
	{ "topdown-frontend-bound", WS_UNIT_RATIO, WS_LOWER_BETTER, DER, false,
	  "share of pipeline slots the frontend left empty (--topdown)" },
	{ "topdown-bad-speculation", WS_UNIT_RATIO, WS_LOWER_BETTER, DER, false,
	  "share of slots spent on work later squashed (--topdown)" },
	{ "topdown-backend-bound", WS_UNIT_RATIO, WS_LOWER_BETTER, DER, false,
	  "share of slots stalled by the backend: memory, execution units (--topdown)" },
	{ "topdown-retiring", WS_UNIT_RATIO, WS_HIGHER_BETTER, DER, false,
	  "share of slots that retired useful work (--topdown)" },
};

static const struct ws_derived derived[] = {
	{ "ipc", "instructions", "cycles", 1.0 },
	{ "branch-miss-rate", "branch-misses", "branches", 1.0 },
	{ "L1-dcache-miss-rate", "L1-dcache-load-misses", "L1-dcache-loads", 1.0 },
	{ "branch-mpki", "branch-misses", "instructions", 1000.0 },
	{ "L1-dcache-mpki", "L1-dcache-load-misses", "instructions", 1000.0 },
	{ "L1-icache-mpki", "L1-icache-load-misses", "instructions", 1000.0 },
	{ "L2-mpki", "L2-misses", "instructions", 1000.0 },
	{ "LLC-mpki", "LLC-load-misses", "instructions", 1000.0 },
};

const struct ws_metric_info *ws_metric_info(const char *name)
{
	for (size_t i = 0; i < sizeof(registry) / sizeof(registry[0]); i++)
		if (!strcmp(registry[i].name, name))
			return &registry[i];
	return NULL;
}

const struct ws_metric_info *ws_metric_all(size_t *n)
{
	*n = sizeof(registry) / sizeof(registry[0]);
	return registry;
}

int ws_metric_rank(const char *name)
{
	const struct ws_metric_info *mi = ws_metric_info(name);

	return mi ? (int)(mi - registry) : (int)(sizeof(registry) / sizeof(registry[0]));
}

enum ws_unit ws_metric_unit(const char *name)
{
	const struct ws_metric_info *mi = ws_metric_info(name);
	const char *colon = strchr(name, ':');
	size_t n = strlen(name);

	if (mi)
		return mi->unit;
	/*
	 * An event with perf's modifiers counts what the plain one does ("task-clock:k"), and perf's other
	 * clock, cpu-clock, is nanoseconds as task-clock is. Only a modifier is cut: libpfm4's "pmu::EVENT"
	 * is a count.
	 */
	if (colon && colon[1] != ':' && colon > name && colon[-1] != ':') {
		char base[64];
		size_t len = (size_t)(colon - name);

		if (len < sizeof(base)) {
			memcpy(base, name, len);
			base[len] = '\0';
			return ws_metric_unit(base);
		}
	}
	if (!strcmp(name, "cpu-clock"))
		return WS_UNIT_NS;
	/* A function's sampled share of a run (--functions[=EVENT]) is not in the registry, but is a fraction. */
	if (!strcmp(name, "share") || (n > 6 && !strcmp(name + n - 6, "-share")))
		return WS_UNIT_RATIO;
	return WS_UNIT_COUNT;
}

enum ws_better ws_metric_better(const char *name)
{
	const struct ws_metric_info *mi = ws_metric_info(name);

	return mi ? mi->better : WS_LOWER_BETTER;
}

const char *ws_unit_name(enum ws_unit unit)
{
	switch (unit) {
	case WS_UNIT_SECONDS: return "s";
	case WS_UNIT_NS: return "ns";
	case WS_UNIT_BYTES: return "bytes";
	case WS_UNIT_RATIO: return "ratio";
	case WS_UNIT_PKI: return "per 1k instructions";
	case WS_UNIT_COUNT: break;
	}
	return "count";
}

const struct ws_derived *ws_derived_all(size_t *n)
{
	*n = sizeof(derived) / sizeof(derived[0]);
	return derived;
}

const char *const ws_topdown_metrics[4] = {
	"topdown-frontend-bound", "topdown-bad-speculation", "topdown-backend-bound", "topdown-retiring",
};
const char *const ws_topdown_intel_inputs[4] = { "td-fe-bound", "td-bad-spec", "td-be-bound", "td-retiring" };
const char *const ws_topdown_zen4_inputs[4] = {
	"td-fe-no-ops", "td-dispatched-ops", "td-be-stalls", "td-retired-ops",
};
