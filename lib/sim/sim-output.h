/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim-output.h - read the wsim simulator's per-process result file into plain structs, and add files up. */
#ifndef WS_SIM_OUTPUT_H
#define WS_SIM_OUTPUT_H

/*
 * THE FILE FORMAT (version WSIM_FORMAT_VERSION, 3)
 *
 * wsim (sim/) writes one file per process it ran (--ws-out, default wsim.out.%p), under a temporary name
 * renamed into place at exit, so a reader sees a whole file or none. It is text, one record per line, fields
 * separated by one TAB; the first field names the record. In string fields a backslash escapes itself, a
 * TAB (\t) and a newline (\n); numbers are unsigned decimal, addresses 0x-prefixed hexadecimal. Records
 * come in this order:
 *
 *	wsim	1                            first line: the format and its version
 *	config	KEY	VALUE                    the model, one line per setting (below)
 *	command	ARG0	ARG1 ...                 the program and its arguments
 *	pid	N  /  ppid	N  /  exit	N        the process, its parent and its exit status (signed)
 *	threads	N                            threads that ran client code
 *	counters	NAME ...                     the counters of every row below, in column order
 *	total	V ...                            the whole process
 *	function	ID	NAME	FILE	OBJECT	V ...   one per function with any count, hottest first by
 *	                                     estimated-cycles; ID counts from 0 in file order
 *	region	NAME	ENTRIES	V ...            one per region (client requests from the marker library);
 *	                                     ENTRIES 0 for a region only ended, never begun
 *	hot	ID	ADDRESS	EXECUTIONS	L1D-MISSES	MISPREDICTS   one per executed instruction of the
 *	                                     hottest functions (--ws-hot, default 20), ID as above
 *	core	ID	THREADS	V ...               where more than one virtual core ran threads: each one's counts
 *	line	ADDRESS	SYMBOL	SYMBOL-ADDRESS	MISSES	FUNCTIONS   one per contended line (coherence misses),
 *	                                     most first, at most 32; SYMBOL the data symbol holding its first
 *	                                     byte accessed and its address, or "-" twice; FUNCTIONS the IDs
 *	                                     of the functions that touched it, comma-separated, or "-"
 *	line-core	CORE	THREAD	READS	WRITES	READ-BYTES	WRITE-BYTES	MISSES   after its line, one per thread
 *	                                     that used it (a core that ran several has a row for each; THREAD 0
 *	                                     is the threads past the first 31, merged): its core, its accesses,
 *	                                     the byte spans (FIRST-LAST offsets in the line, or "-") and its
 *	                                     share of the misses
 *	stacks	LIMIT	DROPPED                  with --ws-callers: the limit of calling contexts
 *	                                     (--ws-max-stacks) and how many functions had contexts past it
 *	node	ID	PARENT	FUNCTION	V ...       with --ws-callers, one per calling context: the events of
 *	                                     FUNCTION's own code (a function ID) while called by the path
 *	                                     that ends at node PARENT; PARENT is "-" for a stack's outermost
 *	                                     frame, FUNCTION "-" for the root of the contexts past the limit
 *	                                     ("[more stacks]"). IDs count from 0; a parent comes first.
 *	end                                  last line: a file without it is truncated
 *
 * Config keys: preset (zen4, golden-cove, cachegrind); L1i, L1d (SIZE,ASSOC,LINE in bytes, ways, bytes);
 * L2, L3, or LL alone for the two-level cachegrind preset (SIZE,ASSOC,LINE,inclusive|non-inclusive);
 * prefetch (nextline,stride | nextline | stride | none); conditional (tage | gshare | bimodal-cachegrind);
 * gshare-bits; indirect (ENTRIES,KIND); return-stack (ENTRIES | none); latency (the estimate's weights,
 * with core=N, a coherence miss, when there are cores); cores (CORES,CORES-PER-LAST-LEVEL).
 *
 * COUNTERS carry whyslow's metric names (lib/result/metrics.c). The `counters` line lists only what the configured
 * model produces: with two levels (cachegrind) there is no L2-misses, without a return-address stack no
 * return-branches or return-branch-misses, without a prefetcher no prefetches or prefetches-used. Such a
 * counter is absent, never 0. Meanings, where they need saying:
 *   instructions           guest instructions; a rep-prefixed instruction counts once per iteration (as VEX
 *                          and cachegrind see it)
 *   branches               conditional + indirect, + returns when a return-address stack is modelled
 *   L1-dcache-loads/stores data accesses; a read-modify-write is one load and one store (a hit), except in
 *                          the cachegrind preset, which counts it as a load only, as cachegrind does
 *   L1-icache-loads        instruction fetches at line granularity: each time execution enters a line
 *   *-misses               per access: an access straddling two lines that misses in either is one miss
 *   L2-misses              demand misses in L2: loads, stores and fetches
 *   L2-load-misses         of those, the data loads; L2-icache-misses the instruction fetches
 *   LLC-loads              demand loads that looked up the last level: L2 load misses with zen4 and
 *                          golden-cove (their L3), L1d load misses with cachegrind (its LL)
 *   LLC-*-misses           demand misses in the last level (L3, or LL), by kind
 *   prefetches             lines the L1d prefetchers brought in (prefetches of lines already present excluded)
 *   prefetches-used        prefetched lines a demand access hit before they were evicted
 *   coherence-misses       with more than one core: accesses to a line another core wrote, as the threads
 *                          would interleave on concurrent cores (docs/simulator.md, Coherence)
 *   estimated-cycles       an ESTIMATE: instructions + for each load or fetch missing L1 the latency of the
 *                          level that had it + the mispredict penalty per mispredicted branch (config latency)
 *                          + the cross-core latency per coherence miss
 * Prefetch lookups are not demand accesses and count in no *-misses counter.
 *
 * CALLING CONTEXTS (docs/simulator.md, Call stacks): every event of the process is in exactly one node, so
 * the nodes of a function add up to its row, and all nodes to the total. No path has a function twice
 * (recursion stays in the outermost activation's node), so a node's counts plus its descendants' are the
 * inclusive counts of that activation. Version 1 files (no call tracking) and version 2 (no cores) are still
 * read.
 *
 * HOT ADDRESSES are ELF virtual addresses in OBJECT (the function row's), that is the runtime address minus
 * the object's load bias, so they match `objdump -d OBJECT`. Code with no object keeps its runtime address.
 * Functions with no symbol are one row per object, named "???", but for PLT instructions, one row each
 * named "???plt:ADDR" (ADDR hexadecimal, in OBJECT), named by their stubs here. NAME is the symbol as in the
 * object's symbol table (mangled for C++ and Rust); whyslow demangles it (lib/symbols), as it names the perf
 * backend's samples.
 */

#include "result/result.h" /* enum ws_sharing */
#include "wsim-model.h" /* WSIM_FORMAT_VERSION, which the tool writes and this reader accepts */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Indexes into struct ws_sim_counts; ws_sim_counter_name() gives each one's metric name. */
enum ws_sim_counter {
	WS_SIM_INSTRUCTIONS,
	WS_SIM_ESTIMATED_CYCLES,
	WS_SIM_BRANCHES,
	WS_SIM_BRANCH_MISSES,
	WS_SIM_CONDITIONAL_BRANCHES,
	WS_SIM_CONDITIONAL_BRANCH_MISSES,
	WS_SIM_INDIRECT_BRANCHES,
	WS_SIM_INDIRECT_BRANCH_MISSES,
	WS_SIM_RETURN_BRANCHES,
	WS_SIM_RETURN_BRANCH_MISSES,
	WS_SIM_L1_DCACHE_LOADS,
	WS_SIM_L1_DCACHE_LOAD_MISSES,
	WS_SIM_L1_DCACHE_STORES,
	WS_SIM_L1_DCACHE_STORE_MISSES,
	WS_SIM_L1_ICACHE_LOADS,
	WS_SIM_L1_ICACHE_LOAD_MISSES,
	WS_SIM_L2_MISSES,
	WS_SIM_L2_LOAD_MISSES,
	WS_SIM_L2_ICACHE_MISSES,
	WS_SIM_LLC_LOADS,
	WS_SIM_LLC_LOAD_MISSES,
	WS_SIM_LLC_STORE_MISSES,
	WS_SIM_LLC_ICACHE_MISSES,
	WS_SIM_PREFETCHES,
	WS_SIM_PREFETCHES_USED,
	WS_SIM_COHERENCE_MISSES,
	WS_SIM_NR_COUNTERS
};

/* One row's counts. Which entries mean anything is the file's `present` mask: the others are 0 and absent. */
struct ws_sim_counts {
	uint64_t v[WS_SIM_NR_COUNTERS];
};

struct ws_sim_insn {
	uint64_t addr; /* ELF virtual address in the function's object */
	uint64_t executions;
	uint64_t l1d_misses;  /* loads and stores */
	uint64_t mispredicts; /* branches of every kind */
};

struct ws_sim_function {
	char *name;
	char *file;   /* source file of the function's entry, "???" when unknown */
	char *object; /* path of the ELF object holding it, "???" when unknown */
	struct ws_sim_counts counts;
	struct ws_sim_insn *insns; /* the hot rows of this function, ascending by address; often none */
	size_t nr_insns, alloc_insns;
};

/* A calling context: `function` called through the path that ends at `parent`. */
struct ws_sim_node {
	long parent;   /* index into nodes, -1 for a stack's outermost frame; always below this node's own */
	long function; /* index into functions, -1 for the root of the contexts past the tool's limit */
	struct ws_sim_counts counts;
};

struct ws_sim_region {
	char *name;
	uint64_t entries; /* activations: begins while the region was not already active in that thread; 0 for
			     a region only ended, never begun (its counts are 0 too) */
	struct ws_sim_counts counts;
};

/*
 * One thread of a line in the contention report, with the core it ran on (several threads can share one):
 * what it did there. Byte offsets in the line. Thread 0 is the threads past the tool's limit, merged.
 */
struct ws_sim_line_core {
	int core;
	unsigned thread; /* the tool's thread number (1 is the main thread) */
	uint64_t reads, writes, misses;
	int read_lo, read_hi, write_lo, write_hi; /* -1 when it made no such access */
};

/* A line with coherence misses (format 3): where, the variable holding it, the functions that touch it. */
struct ws_sim_line {
	uint64_t addr;      /* of its first byte, in the process */
	char *symbol;       /* the data symbol naming it (the tool's rule: sim/wsim-output.c), NULL when none */
	uint64_t symbol_addr;
	uint64_t misses;
	char **functions;   /* names as the function rows give them */
	size_t *function_ids; /* the same functions as indices into the output's functions[] */
	size_t nr_functions;
	struct ws_sim_line_core *cores;
	size_t nr_cores;
	unsigned process;   /* which file of the sum it came from, 0 first */
};

/* A virtual core's counts (format 3, where more than one core ran), summed over processes by core number. */
struct ws_sim_core {
	int id;
	unsigned threads;
	struct ws_sim_counts counts;
};

struct ws_sim_config_item {
	char *key;
	char *value;
};

struct ws_sim_output {
	int version;
	struct ws_sim_config_item *config;
	size_t nr_config, alloc_config;
	char **argv; /* the command, NULL-terminated; of the first file when files are added up */
	size_t argc;
	long pid, ppid;
	int exit_status;
	unsigned threads;   /* summed over processes */
	unsigned processes; /* files added up into this one: 1 after reading one */
	uint32_t present;   /* bit (1u << c) set when the model produced counter c */
	struct ws_sim_counts total;
	struct ws_sim_function *functions; /* in file order: hottest first */
	size_t nr_functions, alloc_functions;
	struct ws_sim_region *regions;
	size_t nr_regions, alloc_regions;
	bool has_stacks;         /* the tool tracked calls (a `stacks` record) */
	uint64_t stacks_dropped; /* functions with contexts past its limit, summed over processes */
	struct ws_sim_node *nodes; /* parents first */
	size_t nr_nodes, alloc_nodes;
	struct ws_sim_line *lines; /* the contention report: hottest first in each process */
	size_t nr_lines, alloc_lines;
	struct ws_sim_core *cores;
	size_t nr_cores, alloc_cores;
	unsigned brief_threads; /* threads hardly interleaved (`brief-threads`), summed over processes */
};

#define WS_SIM_OUTPUT_INIT { 0 }

void ws_sim_output_init(struct ws_sim_output *o);
/* Frees everything `o` owns and leaves it empty (as after init). */
void ws_sim_output_release(struct ws_sim_output *o);

/*
 * Parse a whole file held in `buf` (`len` bytes; no NUL needed) into `o`, which must be empty. `source`
 * names the input in messages. Returns 0, or -EINVAL for malformed input with one ws_log error naming
 * source:line and what is wrong; `o` is then left empty.
 */
int ws_sim_output_parse(struct ws_sim_output *o, const char *buf, size_t len, const char *source);

/* Read and parse the file at `path`. Returns 0, -errno when it cannot be read, or -EINVAL as above. */
int ws_sim_output_read(struct ws_sim_output *o, const char *path);

/*
 * Add the counts of `src` into `dst`, to sum a process tree (one file per process). An empty `dst` becomes
 * a copy of `src`. Otherwise both must come from the same model (the same config and counters), else -EINVAL
 * with a ws_log error and `dst` unchanged; totals, threads and processes add up, functions (matched by name,
 * file and object), their hot instructions (by address), regions (by name) and calling contexts (by their
 * paths of functions) are merged. `dst` keeps its own command, pid and exit status. `src` is not modified.
 */
int ws_sim_output_add(struct ws_sim_output *dst, const struct ws_sim_output *src);

/* The metric name of counter `c` (e.g. "L1-dcache-load-misses"). */
const char *ws_sim_counter_name(enum ws_sim_counter c);
/* The counter named `name`, or -1 when no counter has that name. */
int ws_sim_counter_from_name(const char *name);

/* Whether the file's model produced counter `c`. */
bool ws_sim_has(const struct ws_sim_output *o, enum ws_sim_counter c);

/*
 * The value of metric `name` in the row `counts` of `o` (its total, a function's or a region's counts).
 * Returns 0, or -ENOENT when the name is not a simulator counter or the model did not produce it.
 */
int ws_sim_get(const struct ws_sim_output *o, const struct ws_sim_counts *counts, const char *name,
	       uint64_t *value);

/* The value of config `key` (e.g. "preset"), or NULL. Borrowed from `o`. */
const char *ws_sim_config(const struct ws_sim_output *o, const char *key);

/* What the threads that take part in contended line `l` do there (result.h, enum ws_sharing). */
enum ws_sharing ws_sim_line_verdict(const struct ws_sim_line *l);

#endif
