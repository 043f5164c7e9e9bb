/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wsim.h - what the parts of the wsim Valgrind tool share: configuration, counters and cost centres. */
#ifndef WSIM_H
#define WSIM_H

#include "pub_tool_basics.h"

#include "wsim-model.h" /* the presets and the rules shared with whyslow */

/*
 * The events the simulator counts. Each is kept in the process total (wsim_total), per function and per
 * thread; the output file names them with whyslow's metric names (see wsim-output.c). Counts at the outer
 * levels are per access: an access that straddles two lines and misses in either counts once.
 */
enum wsim_counter {
	WC_INSTR,          /* guest instructions executed */
	WC_IFETCH,         /* instruction fetches: each time execution enters an I-cache line */
	WC_IFETCH_MISS,    /* ... that missed L1i */
	WC_LOAD,           /* data loads (a read-modify-write: one load, and one store but with cachegrind's counting) */
	WC_LOAD_MISS,      /* ... that missed L1d */
	WC_STORE,          /* data stores */
	WC_STORE_MISS,     /* ... that missed L1d */
	WC_L2_LOAD_MISS,   /* demand misses in L2 (three-level hierarchies only), by kind */
	WC_L2_STORE_MISS,
	WC_L2_IFETCH_MISS,
	WC_LL_LOAD,        /* demand loads that looked up the last level */
	WC_LL_LOAD_MISS,   /* demand misses in the last level, by kind */
	WC_LL_STORE_MISS,
	WC_LL_IFETCH_MISS,
	WC_PF,             /* prefetches that brought a line into L1d */
	WC_PF_USED,        /* prefetched lines hit by a demand access before their eviction */
	WC_COND,           /* conditional branches */
	WC_COND_MISS,
	WC_IND,            /* indirect jumps and calls */
	WC_IND_MISS,
	WC_RET,            /* returns (only with a return-address stack) */
	WC_RET_MISS,
	WC_COH_MISS,       /* coherence misses: a line another core wrote, by the interleaving model (wsim-sim.c) */
	WC_N
};

/*
 * An instruction cost centre, one per guest instruction address ever translated. Superblocks point at
 * these, so counts survive the translation being discarded. `exec` is only brought up to date when the
 * superblocks holding the instruction are folded (on discard and at exit).
 */
struct wsim_icc {
	/*
	 * The first 64 bytes, one host cache line (the records are aligned to it): what the helpers and the
	 * predictor read at each call. In code that runs a few times, the records are mostly out of the host's
	 * caches, and one line read is one miss, not two.
	 */
	struct wsim_icc *next; /* VgHashNode layout: chain, then key */
	UWord addr;
	struct wsim_fn *fn;
	/* What the TAGE-like predictor needs of addr, worked out once (see wsim_tage_site). */
	ULong pc_hash[4]; /* one per tagged table */
	UShort base_ix, filter_byte;
	UChar filter_bit;
	UChar len; /* bytes: at most 15 on x86-64 */
	/* Written on misses and read at the end. */
	ULong exec;
	ULong dmiss; /* L1d misses, loads and stores */
	ULong bmiss; /* branch mispredictions of every kind (conditional ones once folded, see cmiss) */
	/*
	 * Conditional-branch mispredictions, counted here alone while branches are predicted in bulk;
	 * wsim_fold_cond_misses() moves them into bmiss and the function's counts at exit.
	 */
	ULong cmiss;
	/* A direct call's last context: the caller's node, and the callee's under it (wsim-calls.c). */
	struct wsim_node *cs_from, *cs_to;
} __attribute__((aligned(64)));

/* A function cost centre: one per symbol (by entry address), or one per object for code without symbols. */
struct wsim_fn {
	struct wsim_fn *next; /* VgHashNode layout */
	UWord key;
	const HChar *name;
	const HChar *file;
	const HChar *obj;
	PtrdiffT bias; /* runtime address minus ELF virtual address in `obj` */
	/*
	 * Call tracking (wsim-calls.c): frames of it on the running thread's stack and the outermost one's
	 * node, on the line the name shares, away from the counts; the last context looked up, which recurs.
	 */
	UInt cs_active;
	UInt cs_id; /* what generated code compares it by: a number from 1, given on first use */
	struct wsim_node *cs_outer;
	ULong c[WC_N];
	Int id;        /* row number in the output, or -1 */
	struct wsim_node *cs_last_parent, *cs_last_node;
};

/* A calling context (wsim-calls.c): a function reached from a stack's outermost frame by one path of calls. */
struct wsim_node {
	/* What every change of context touches, on one cache line (nodes are 64-byte aligned). */
	struct wsim_node *hnext;  /* chain in the table of children */
	struct wsim_node *parent; /* NULL for an outermost frame */
	struct wsim_fn *fn;       /* NULL only for the root of the contexts past --ws-max-stacks */
	ULong seg[5];             /* charged from the totals: instructions, loads, stores, fetches, branches */
	ULong *cmiss;             /* conditional mispredictions, added by whoever predicts (wsim_cond_mark) */
	Int id;                   /* row number in the output, or -1 */
	/* The events of this context's own code (the helpers' as they happen, the rest folded in at exit). */
	ULong c[WC_N];
} __attribute__((aligned(64)));

struct wsim_cache_cfg {
	Int size, assoc, line;
	Bool inclusive; /* evicting a line here evicts it from the levels nearer the core */
};

struct wsim_config {
	const HChar *preset;
	/*
	 * The cachegrind preset: count exactly as cachegrind 3.19 does (an access straddling two lines looks up
	 * both in LL on a first-level miss, a read-modify-write counts as a read only, no return stack).
	 */
	Bool cg;
	struct wsim_cache_cfg l1i, l1d;
	struct wsim_cache_cfg outer[WSIM_MAX_OUTER]; /* L2, L3; or LL alone in the cachegrind preset */
	Int n_outer;
	Bool pf_nextline, pf_stride;
	enum wsim_cond cond;
	Int gshare_bits;
	Int ind_bits;  /* log2 of the indirect target cache's entries */
	Int ras;       /* return-address stack entries; 0: returns are not modelled */
	/* Estimated cycles: latency of a hit in each outer level and in memory, and the mispredict penalty. */
	UInt lat_outer[WSIM_MAX_OUTER], lat_mem, mispredict;
	Int min_line;  /* smallest line size: longer accesses are clipped to it, as cachegrind does */
	/* Virtual cores (--ws-cores): threads run on cores of their own; 1 is every thread on one hierarchy. */
	Int cores, ccx_cores;
	UInt lat_core; /* a coherence miss: a line from another core's private caches */
};

/* wsim-config.c: the configuration, written there alone (options, then wsim_config_finish()), read by all. */
extern struct wsim_config wsim_cfg;

/* The options that are not the model's. */
struct wsim_options {
	const HChar *out;   /* --ws-out: the output file, %p the pid */
	Int hot;            /* --ws-hot: per-instruction rows for this many of the hottest functions */
	Int async;          /* --ws-async: WSIM_ASYNC_NO, _YES (where the process may use two CPUs) or _AUTO */
	Long async_flip;    /* --ws-async-flip: with auto, switch every this many slots (tests); 0: by the load */
	Int scope;          /* --ws-scope: WSIM_SCOPE_ALL, _REGIONS or _REGIONS_WARM */
	Int cpu_prog, cpu_pred; /* --ws-cpus: where the two threads run; -1 where the kernel places them */
	Bool callers;       /* --ws-callers: track calls, and write the calling-context tree */
	Int max_stacks;     /* --ws-max-stacks: calling contexts kept apart, beyond which callers are dropped */
	Long tier;          /* --ws-tier: a superblock's runs before its translation with inline hit tests; 0: at once */
};

/*
 * --ws-scope: simulate the whole program, or only while a region is open (in any thread); outside them the
 * program runs uninstrumented (regions) or with only the caches simulated and nothing counted (regions-warm).
 */
enum { WSIM_SCOPE_ALL, WSIM_SCOPE_REGIONS, WSIM_SCOPE_REGIONS_WARM };

extern struct wsim_options wsim_opt;

/*
 * --ws-tier's default (see wsim-main.c). On gcc -O2 -S (bench/sim-speed.sh's), CPU seconds in two
 * interleaved rounds: 5.94 and 5.71 at tier 0 (always hot), 5.34 and 5.19 at 1000, 4.98 and 5.03 at 10^4,
 * 5.06 and 4.96 at 10^5; the mix, python and sort were the same at each within the noise (+-10%).
 */
#define WSIM_TIER_DEFAULT 10000

Bool wsim_config_option(const HChar *arg);
void wsim_config_usage(void);
void wsim_config_debug_usage(void);
/* The preset with the overrides, checked as a whole: exits with one line if the tool cannot model it. */
void wsim_config_finish(void);

extern ULong wsim_total[WC_N];

/*
 * Once regions or a second thread need the totals as the program runs, generated code adds a segment's
 * instructions, loads, stores and fetches here, two 32-bit counts per word, which halves its memory updates;
 * wsim_unpack() moves them into wsim_total. It runs at every branch-buffer flush and every time a thread
 * starts a time slice (at most 100000 blocks), long before a half could overflow, and before anyone reads
 * wsim_total. Until then the totals come from the segments' own counters (wsim-main.c).
 */
extern ULong wsim_packed[2]; /* instructions | loads << 32, stores | fetches << 32 */
void wsim_unpack(void);

/* wsim-sim.c: the cache hierarchy, the prefetchers, the branch predictors and the helpers that generated
 * code calls. */
void wsim_sim_init(void);

/* Zeroed memory aligned to the host's 64-byte lines (the arena aligns to 16), never freed. */
void *wsim_calloc64(const HChar *cc, SizeT n);

/*
 * Thread `tid`'s entry of a table of per-thread objects (*tab, *n_alloc entries), the table grown as
 * Valgrind's thread ids come: a new entry is allocated zeroed, of `size` bytes, and *fresh says so.
 */
void *wsim_tid_entry(void ***tab, UInt *n_alloc, ThreadId tid, const HChar *cc, SizeT size, Bool *fresh);

/* The slow paths of accesses that generated code could not prove to be hits (see wsim-sim.c). */
VG_REGPARM(1) void wsim_h_fetch(struct wsim_icc *ic);
VG_REGPARM(2) void wsim_h_fetch_two(struct wsim_icc *ic, UWord b);
VG_REGPARM(2) void wsim_h_fetch_line(struct wsim_icc *ic, UWord b);
VG_REGPARM(3) void wsim_h_load(struct wsim_icc *ic, Addr a, UWord size);
VG_REGPARM(3) void wsim_h_store(struct wsim_icc *ic, Addr a, UWord size);
/* The load of a read-modify-write, whose store is a certain hit: a load, and a write for coherence. */
VG_REGPARM(3) void wsim_h_rmw(struct wsim_icc *ic, Addr a, UWord size);
/*
 * The same with the access's size in the low bits of the record's address (64-byte aligned), for sizes up
 * to WSIM_ICS_SIZE: one argument fewer to set up at every access in the code.
 */
#define WSIM_ICS_SIZE 63
#define WSIM_ICS(ic, size) ((UWord)(ic) | (UWord)(size))
#define WSIM_ICS_IC(ics) ((struct wsim_icc *)((ics) & ~(UWord)WSIM_ICS_SIZE))
VG_REGPARM(2) void wsim_h_load_s(UWord ics, Addr a);
VG_REGPARM(2) void wsim_h_store_s(UWord ics, Addr a);
VG_REGPARM(2) void wsim_h_rmw_s(UWord ics, Addr a);
VG_REGPARM(3) void wsim_h_load_counted(struct wsim_icc *ic, Addr a, UWord size);
VG_REGPARM(3) void wsim_h_store_counted(struct wsim_icc *ic, Addr a, UWord size);
VG_REGPARM(1) void wsim_h_cg_fetch(struct wsim_icc *ic);
VG_REGPARM(3) void wsim_h_cg_load(struct wsim_icc *ic, Addr a, UWord size);
VG_REGPARM(3) void wsim_h_cg_store(struct wsim_icc *ic, Addr a, UWord size);
VG_REGPARM(3) void wsim_h_cg_load_counted(struct wsim_icc *ic, Addr a, UWord size);
VG_REGPARM(3) void wsim_h_cg_store_counted(struct wsim_icc *ic, Addr a, UWord size);
/* --ws-scope=regions-warm, outside the regions: the access goes through the caches, and no count moves. */
VG_REGPARM(2) void wsim_h_warm_fetch(UWord pc, UWord len);
VG_REGPARM(3) void wsim_h_warm_load(UWord pc, Addr a, UWord size);
VG_REGPARM(3) void wsim_h_warm_store(UWord pc, Addr a, UWord size);
/*
 * Conditional branches wait in a slot of a ring (wsim-sim.c), (icc | taken), until the slot fills or
 * someone reads the counts; slots are aligned to their size, so generated code knows a slot is full when
 * the pointer's low bits are zero.
 */
#define WSIM_COND_BUF 4096
extern UWord *wsim_cond_ptr;
/* --ws-async: the TAGE predictor on a second host thread never, always (given two CPUs), or while it pays. */
enum { WSIM_ASYNC_NO, WSIM_ASYNC_YES, WSIM_ASYNC_AUTO };
void wsim_cond_start(Int async, Int cpu);
/* Where branches are predicted, for -v. */
const HChar *wsim_cond_where(void);
void wsim_tage_site(struct wsim_icc *ic);
Bool wsim_cond_async(void);
void wsim_h_cond_full(void);
void wsim_cond_flush(void);
void wsim_cond_quiesce(void);
void wsim_cond_forked(void);
void wsim_cond_report(void);
void wsim_fold_cond_misses(struct wsim_icc *ic);
/*
 * Call tracking (wsim-calls.c) splits conditional mispredictions by calling context without a test per
 * branch on the program's thread: it puts a marker in the ring where the context changes, and whoever
 * predicts that stretch adds the mispredictions of the branches after it to the marker's target (8-byte
 * aligned), strictly in order. Bit 1 tells a marker from a branch, so instruction cost centres are 4-byte
 * aligned. Markers in the slot being filled are counted, so that they are not counted as branches.
 */
#define WSIM_COND_MARK 2
extern UInt wsim_cond_marks;
extern UWord *wsim_cond_lastmark; /* where the last marker went (wsim-calls.c) */

/* Append an entry to the slot being filled, and hand the slot over when that filled it. */
static inline void wsim_cond_push(UWord e)
{
	*wsim_cond_ptr++ = e;
	if (((UWord)wsim_cond_ptr & (WSIM_COND_BUF * sizeof(UWord) - 1)) == 0)
		wsim_h_cond_full();
}

static inline void wsim_cond_mark(ULong *target)
{
	UWord e = (UWord)target | WSIM_COND_MARK;

	/*
	 * No branch since the last marker: it is replaced rather than followed, which saves the predictor an
	 * entry (a call, a PLT stub's jump and a return often come with no branch between them). Only within
	 * the slot being filled: a slot handed over is the predictor's. The entry there is that marker when it
	 * still is one, for the pointer comes to each position once per slot fill.
	 */
	if (wsim_cond_ptr == wsim_cond_lastmark + 1 && ((UWord)wsim_cond_ptr & (WSIM_COND_BUF * sizeof(UWord) - 1)) &&
	    (*wsim_cond_lastmark & WSIM_COND_MARK)) {
		*wsim_cond_lastmark = e;
		return;
	}
	wsim_cond_lastmark = wsim_cond_ptr;
	wsim_cond_marks++;
	wsim_cond_push(e);
}

/*
 * Conditional branches executed so far, those not yet handed to the predictor included: a slot is aligned
 * to its size and handed over as soon as it fills, so the pointer's low bits are the entries in it.
 */
static inline ULong wsim_cond_count(void)
{
	return wsim_total[WC_COND] + (((UWord)wsim_cond_ptr & (WSIM_COND_BUF * sizeof(UWord) - 1)) / sizeof(UWord)) -
	       wsim_cond_marks;
}
VG_REGPARM(2) void wsim_h_ind_cg(struct wsim_icc *ic, UWord target);
VG_REGPARM(2) void wsim_h_ind(struct wsim_icc *ic, UWord target);
VG_REGPARM(1) void wsim_h_call(struct wsim_icc *ic);
VG_REGPARM(2) void wsim_h_ind_call(struct wsim_icc *ic, UWord target);
VG_REGPARM(2) void wsim_h_ret(struct wsim_icc *ic, UWord target);

/*
 * Where generated code finds an L1 set's most recently used tag: tags + (block & set_mask) * assoc, holding
 * block << 1 in the full model (the low bit marks an unused prefetch) and block itself with cachegrind's.
 */
struct wsim_l1_info {
	UWord *tags;
	UInt line_bits;
	UWord set_mask;
	UInt assoc;
	Bool pow2; /* sets is a power of two; otherwise no inline test */
};

void wsim_l1_info(Bool data, struct wsim_l1_info *info);

/* wsim-calls.c: call tracking, when --ws-callers is on. Generated code compares wsim_cs_fnid with the function
 * it is in, and calls wsim_cs_enter() when they differ; calls and returns call the others. */
extern UInt wsim_cs_fnid;   /* cs_id of the running thread's top frame's function, 0 for none */
extern UInt wsim_cs_last_id;

static inline UInt wsim_cs_id(struct wsim_fn *fn)
{
	if (!fn->cs_id)
		fn->cs_id = ++wsim_cs_last_id;
	return fn->cs_id;
}
/*
 * The context the running thread is in: the helpers count each event they see there as well as in its
 * function (a context of no use when call tracking is off). The counts that generated code keeps per
 * segment are charged to it when it changes instead.
 */
extern struct wsim_node *wsim_cs_node;
VG_REGPARM(1) void wsim_cs_enter(struct wsim_icc *ic);
VG_REGPARM(2) void wsim_cs_call(struct wsim_icc *ic, UWord sp);
VG_REGPARM(2) void wsim_cs_call_ras(struct wsim_icc *ic, UWord sp);
/* A call whose target's function is known when it is instrumented: the callee's frame is pushed at once. */
VG_REGPARM(3) void wsim_cs_call_to(struct wsim_icc *ic, struct wsim_fn *callee, UWord sp);
VG_REGPARM(3) void wsim_cs_call_to_ras(struct wsim_icc *ic, struct wsim_fn *callee, UWord sp);
VG_REGPARM(3) void wsim_cs_ind_call(struct wsim_icc *ic, UWord target, UWord sp);
VG_REGPARM(3) void wsim_cs_ret(struct wsim_icc *ic, UWord target, UWord sp);
void wsim_calls_init(void);
/* A thread starts a time slice (after the branch ring is flushed). */
void wsim_calls_thread(ThreadId tid);
/*
 * A thread has exited: its shadow stack goes (what it counted is in its nodes already), so that a thread
 * Valgrind later gives the same id starts on an empty one rather than under the frames the other left.
 */
void wsim_calls_exited(ThreadId tid);
/* In a forked child, after the counters are zeroed. */
void wsim_calls_forked(ThreadId tid);
/*
 * At exit, after the last flush: the contexts in creation order (parents first), and how many functions have
 * a context past --ws-max-stacks.
 */
Int wsim_calls_fini(struct wsim_node ***out, ULong *n_dropped);

/* wsim-async.c: a host thread of the tool's own (see there for what it may and may not do). */
Int wsim_host_cpus(void);
Bool wsim_cpu_allowed(Int cpu);
Bool wsim_pin(Long tid, Int cpu);
Bool wsim_pin_except(Long tid, Int cpu);
Int wsim_cpu_now(void);
/* Start a thread running fn, held to `cpu` unless it is negative: its thread id, or 0. */
Long wsim_spawn(void (*fn)(void), Int cpu);
Long wsim_gettid(void);
void wsim_yield(void);
/*
 * The load, for --ws-async=auto, read on the program's thread only: how long thread `tid` of this process
 * has waited runnable for a CPU, in nanoseconds (/proc/self/task/TID/schedstat). -1 when unknown.
 */
Long wsim_run_delay(Long tid);
void wsim_futex_wait(UInt *word, UInt val);
void wsim_futex_wake(UInt *word);

/* wsim-main.c's attribution: a region's counts. */
struct wsim_region {
	struct wsim_region *next; /* VgHashNode layout */
	UWord key;                /* hash of the name */
	const HChar *name;
	ULong entries;
	ULong c[WC_N];
};

/*
 * What the output holds besides the totals: every function, region and instruction cost centre, as arrays
 * wsim-main.c gathers at exit and owns (the output may reorder them), and the number of threads seen.
 */
struct wsim_tables {
	struct wsim_fn **fns;
	Int n_fn;
	struct wsim_region **regions;
	Int n_regions;
	struct wsim_icc **iccs;
	Int n_iccs;
	Int threads;
	struct wsim_node **nodes; /* with --ws-callers: the calling contexts, parents first */
	Int n_nodes;
	ULong dropped;            /* functions with a context past --ws-max-stacks */
	/* With virtual cores: each used core's counts (the sum of its threads'), and its threads. */
	Int n_cores;
	ULong (*core_c)[WC_N];
	Int *core_threads;
	Int brief_threads; /* threads hardly interleaved (wsim-main.c, note_brief), where n_cores > 0 */
};

/*
 * Virtual cores (wsim-sim.c): the running thread's core changes at a thread switch (after the branch ring
 * is flushed and the totals are exact); a new thread's core starts no earlier than its creator's clock.
 * `thread` is its number in creation order (1 the first), which the contention report shows.
 */
void wsim_core_switch(Int core, UInt thread);
void wsim_core_created(Int parent_core, Int child_core);
/* In a forked child, after the totals are zeroed. */
void wsim_core_forked(void);
/* The cores that ran client code, and each one's instructions (its virtual clock). */
Int wsim_cores_used(void);
ULong wsim_core_clock(Int core);

/*
 * The contention report: the watched lines with coherence misses, hottest first, at most `max`.
 * A line has one part per thread that accessed it, with the core it ran on: a core running several threads
 * (round-robin beyond --ws-cores) has a part for each. Thread 0 is the threads past the first 31, merged.
 */
struct wsim_line_core {
	Int core;
	UInt tid;
	ULong reads, writes, misses;
	Int rlo, rhi, wlo, whi; /* byte offsets in the line, -1 when none */
};

struct wsim_line {
	Addr addr; /* of the line's first byte */
	ULong misses;
	Int n_cores;
	struct wsim_line_core *cores;
	Int n_fns;
	struct wsim_fn **fns;
};

Int wsim_lines(struct wsim_line **out, Int max);
/* Lines watched for sharing, those given up as not contended, and those left alone for want of room (-v). */
void wsim_lines_stats(ULong *watched, ULong *unwatched, ULong *dropped);

/* wsim-frames.c */
/*
 * The link address of the function holding runtime address `a` of the object `obj` (an interned path)
 * loaded at `bias`, from the object's .eh_frame_hdr: for code without a symbol. False where none covers it.
 */
Bool wsim_frame_start(const HChar *obj, PtrdiffT bias, Addr a, Addr *start);

/* wsim-output.c */
ULong wsim_estimated_cycles(const ULong *c);
/* Writes the output file (the name expanded now, so that %p is this process). */
void wsim_write_output(Int exitcode, struct wsim_tables *t);

#endif
