/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wsim-main.c - the wsim Valgrind tool: instrumentation, attribution, regions, threads. */

/*
 * How a superblock is instrumented, and why it is fast:
 *  - what does not depend on the simulation is counted per stretch of the block between side exits (a
 *    "segment"), with one add to the segment's own counter: instructions, loads, stores, line fetches and
 *    conditional branches. Per-instruction and per-function counts, and the process totals, come from the
 *    segment counters when the block is discarded or the program ends. Once the totals are wanted while
 *    the program runs (regions, threads), each segment also adds to packed process totals;
 *  - an instruction fetch is simulated only when execution enters a new I-cache line, since nothing else
 *    touches L1i between two instructions of one block;
 *  - an access that hits the most recently used line of its L1 set changes no state, so that is tested
 *    inline and the helper is called only otherwise; but only in code that has run --ws-tier times: before
 *    that a block is translated without the tests (see "Tiers" below);
 *  - conditional branches are appended inline to a buffer and predicted in bulk (wsim-sim.c); indirect
 *    branches, calls and returns call a helper each.
 * The IR is inspected exactly as cachegrind inspects it (which statements are accesses, how big, which
 * exits are branches and whether VEX inverted them, which block ends are indirect), so that the cachegrind
 * preset counts what cachegrind counts.
 */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_transtab.h"
#include "pub_tool_vki.h"
#include "valgrind.h"

#include "wsim.h"
#include "ws-markers.h"

/* Valgrind's core has these (pub_core_debuginfo.h, pub_core_transtab.h) and the tool links the core
 * statically; no tool header has them. */
extern Bool VG_(get_fnname_raw)(DiEpoch ep, Addr a, const HChar **buf);
extern Bool VG_(clo_demangle);
extern void VG_(discard_translations)(Addr start, ULong range, const HChar *who);

/*
 * Whether generated code adds to wsim_packed (see flush_segment). Until something needs the process totals
 * while the program runs (a region, a second thread), they are left to the superblocks' own counters.
 */
static Bool totals_inline;

/* ---- Strings, functions and instruction cost centres ------------------------------------------------ */

struct istr {
	struct istr *next;
	UWord key;
	HChar s[0];
};

static VgHashTable *str_table, *fn_table, *icc_table, *sb_table, *region_table;

static UWord str_hash(const HChar *s)
{
	UWord h = 5381;

	while (*s)
		h = h * 33 + (UChar)*s++;
	return h;
}

static Word istr_cmp(const void *a, const void *b)
{
	return VG_(strcmp)(((const struct istr *)a)->s, ((const struct istr *)b)->s);
}

/* A permanent copy of `s`, shared by every user of the same text (debug info strings are not permanent). */
static const HChar *intern(const HChar *s)
{
	SizeT len = VG_(strlen)(s);
	struct istr *key = VG_(malloc)("wsim.str", sizeof(*key) + len + 1), *found;

	key->key = str_hash(s);
	VG_(memcpy)(key->s, s, len + 1);
	found = VG_(HT_gen_lookup)(str_table, key, istr_cmp);
	if (found) {
		VG_(free)(key);
		return found->s;
	}
	VG_(HT_add_node)(str_table, key);
	return key->s;
}

/*
 * Valgrind knows an object's .plt section only. The stubs of .plt.sec (IBT: -fcf-protection, the default of
 * some distributions' compilers) and .plt.got are found by their code: "jmp *disp(%rip)", with or without a
 * bnd prefix, alone or after an endbr64. Code without a symbol that looks so and is not a stub is told
 * apart by whyslow, which finds no stub there and counts it in the object's "[unknown] OBJ" row.
 */
static Bool looks_like_plt_stub(Addr a)
{
	const UChar *p = (const UChar *)a;

	if (!VG_(am_is_valid_for_client)(a, 7, VKI_PROT_READ))
		return False;
	if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa) {
		p += 4; /* endbr64 */
		if (!VG_(am_is_valid_for_client)(a + 4, 7, VKI_PROT_READ))
			return False;
	}
	if (p[0] == 0xf2)
		p++; /* bnd */
	return p[0] == 0xff && p[1] == 0x25;
}

/*
 * A PLT stub has no symbol, but the relocation it jumps through names it (memcmp@plt), as whyslow reads it
 * (lib/symbols/plt.c) for the perf backend's samples. Each PLT instruction is a function of its own here,
 * named "???plt:" and its address in the object, and whyslow sums a stub's under the stub's name; the rest
 * of the code without symbols is a function per frame of the object's .eh_frame_hdr (wsim-frames.c), or
 * one per object where no frame covers it. Returns the object whose PLT holds `a` (its DebugInfo, which
 * VG_(find_DebugInfo) does not give outside .text), or NULL.
 */
static DebugInfo *plt_of(Addr a, const HChar **name)
{
	const DebugInfo *di, *found = NULL;
	DiEpoch ep = VG_(current_DiEpoch)();
	const HChar *obj;
	HChar buf[40];

	for (di = VG_(next_DebugInfo)(NULL); di && !found; di = VG_(next_DebugInfo)(di)) {
		Addr lo = VG_(DebugInfo_get_plt_avma)(di);

		if (a >= lo && a - lo < VG_(DebugInfo_get_plt_size)(di))
			found = di;
	}
	/* Elsewhere: a stub by its code, in the object the address maps (whose DebugInfo has its bias). */
	if (!found && looks_like_plt_stub(a) && VG_(get_objname)(ep, a, &obj))
		for (di = VG_(next_DebugInfo)(NULL); di && !found; di = VG_(next_DebugInfo)(di))
			if (VG_(DebugInfo_get_filename)(di) && VG_(strcmp)(VG_(DebugInfo_get_filename)(di), obj) == 0)
				found = di;
	if (!found)
		return NULL;
	VG_(sprintf)(buf, "???plt:%lx", (UWord)(a - VG_(DebugInfo_get_text_bias)(found)));
	*name = intern(buf);
	return (DebugInfo *)found;
}

static struct wsim_fn *fn_for(Addr a)
{
	DiEpoch ep = VG_(current_DiEpoch)();
	const HChar *s, *name = NULL, *obj, *file = NULL, *dir = NULL;
	DebugInfo *di;
	Addr entry = a;
	struct wsim_fn *fn;
	UInt line;
	UWord key;

	/*
	 * The entry address identifies a function even when two objects or files share its name. Valgrind
	 * gives the offset only after the demangled name, as "+N" at its end. This runs for every new
	 * instruction (cc1 under gcc -O2 -S: about 400,000), and most are in a function met already: that one
	 * is found by its entry before anything else is looked up. Asking for the name and then the name with
	 * its offset, and interning the names first, had made the demangler, strlen and the string tables
	 * 3-4% of that run.
	 */
	if (VG_(get_fnname_w_offset)(ep, a, &s)) {
		SizeT n = VG_(strlen)(s), d = n;

		while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
			d--;
		if (d < n && d > 1 && s[d - 1] == '+')
			entry = a - (Addr)VG_(strtoll10)(s + d, NULL);
		fn = VG_(HT_lookup)(fn_table, entry);
		if (fn)
			return fn;
		/*
		 * The name as in the symbol table, mangled: whyslow demangles it (lib/symbols), in the one place
		 * that names every backend's functions, so that a function has the same name under perf and here.
		 */
		if (VG_(get_fnname_raw)(ep, a, &s))
			name = intern(s);
	}
	di = VG_(find_DebugInfo)(ep, a);
	if (!name) {
		DebugInfo *plt = plt_of(a, &name);

		if (plt)
			di = plt;
	}
	if (di && VG_(DebugInfo_get_filename)(di))
		obj = intern(VG_(DebugInfo_get_filename)(di));
	else if (VG_(get_objname)(ep, a, &s))
		obj = intern(s);
	else
		obj = intern("???");
	/*
	 * Code without a symbol: a function per frame description where the object has them (wsim-frames.c),
	 * keyed apart from a named function that starts where the frame does but whose size stops short of
	 * this code (bit 63: no client address has it). Other such code is one row per object; an interned
	 * string never lies at a client address.
	 */
	key = name ? entry : (UWord)obj;
	if (!name && di && VG_(DebugInfo_get_filename)(di)) {
		Addr start;
		HChar buf[40];

		if (wsim_frame_start(obj, VG_(DebugInfo_get_text_bias)(di), a, &start)) {
			VG_(sprintf)(buf, "???fde:%lx", (UWord)start);
			name = intern(buf);
			entry = start + VG_(DebugInfo_get_text_bias)(di);
			key = entry | (1UL << 63);
		}
	}
	fn = VG_(HT_lookup)(fn_table, key);
	if (fn)
		return fn;

	fn = VG_(calloc)("wsim.fn", 1, sizeof(*fn));
	fn->key = key;
	fn->name = name ? name : intern("???");
	fn->obj = obj;
	fn->bias = di ? VG_(DebugInfo_get_text_bias)(di) : 0;
	fn->id = -1;
	if (VG_(get_filename_linenum)(ep, name ? entry : a, &file, &dir, &line)) {
		if (dir && dir[0]) {
			HChar *full = VG_(malloc)("wsim.path", VG_(strlen)(dir) + VG_(strlen)(file) + 2);

			VG_(sprintf)(full, "%s/%s", dir, file);
			fn->file = intern(full);
			VG_(free)(full);
		} else {
			fn->file = intern(file);
		}
	} else {
		fn->file = intern("???");
	}
	VG_(HT_add_node)(fn_table, fn);
	return fn;
}

/*
 * Instruction records are never freed, and a compiler's run makes hundreds of thousands (cc1: 400,000):
 * they come from chunks rather than one VG_(calloc) each, which was 2-3% of gcc -O2 -S under wsim.
 */
#define ICC_CHUNK 1024
static struct wsim_icc *icc_chunk;
static UInt icc_chunk_left;

static struct wsim_icc *icc_for(Addr a, UInt len)
{
	struct wsim_icc *ic = VG_(HT_lookup)(icc_table, a);

	if (!ic) {
		if (icc_chunk_left == 0) {
			icc_chunk = wsim_calloc64("wsim.icc", ICC_CHUNK * sizeof(*ic));
			icc_chunk_left = ICC_CHUNK;
		}
		ic = icc_chunk++;
		icc_chunk_left--;
		/* The branch buffer keeps the taken bit in the low bit of the pointer, and markers in the next;
		 * cold code's data helpers take the access's size in the low six. */
		tl_assert(((UWord)ic & 63) == 0);
		ic->addr = a;
		ic->fn = fn_for(a);
		wsim_tage_site(ic);
		VG_(HT_add_node)(icc_table, ic);
	}
	ic->len = (UChar)len;
	return ic;
}

static void *ht_array(VgHashTable *t, Int *n)
{
	UInt un = 0;
	void *arr = VG_(HT_to_array)(t, &un);

	*n = (Int)un;
	return arr;
}

/* ---- Superblocks -------------------------------------------------------------------------------------- */

struct seg {
	ULong count;   /* times execution reached this segment's end */
	ULong totaled; /* how many of them wsim_total has (superblocks made with totals_inline off) */
	UInt starts, loads, stores, fetches; /* what each of them adds to the totals */
};

/*
 * What an instruction does within one segment, every time that segment runs to its end: whether it starts
 * there (its execution counts there), its loads and stores (unguarded ones) and whether it fetches a new
 * I-cache line. Usually one per instruction; an instruction with a side exit in its middle (a rep prefix)
 * has its accesses after the exit in the next segment, where they happen only if the exit is not taken.
 */
struct contrib {
	struct wsim_icc *icc;
	Int seg;
	UChar starts, loads, stores, fetch, conds;
};

struct sbinfo {
	struct sbinfo *next; /* VgHashNode layout */
	UWord key;
	Int n_seg, n_contrib;
	Bool lazy; /* its code adds nothing to the totals: its segments' counts are moved there */
	Bool cold; /* translated without inline hit tests (see "Tiers") */
	VexGuestExtents vge; /* the guest code it was made from, to discard it by */
	struct seg *segs;
	struct contrib *contribs;
	ULong *runs; /* a cold block's first segment's count, in runs_pool; NULL: in segs[0] */
};

static Int n_lazy; /* live superblocks with lazy set */

/*
 * Cold blocks' run counts (see "Tiers"), side by side in the order the blocks were made: each is added to
 * at every run of its block, and within the block's own record it was a host cache miss at most of them
 * (code that runs a few times finds its record out of the caches): wsim_h_cold_enter was 4% of gcc -O2 -S.
 * Blocks made together mostly run together, and eight counts share a host line here. Freed counts are
 * reused (the free list runs through them); a program with more live cold blocks than the pool holds
 * keeps the rest in their records.
 */
#define RUNS_POOL (1 << 20)
static ULong runs_pool[RUNS_POOL];
static struct sbinfo *runs_owner[RUNS_POOL];
static UInt runs_top;
static Long runs_free = -1;

static ULong *runs_take(struct sbinfo *sb)
{
	ULong ix;

	if (runs_free >= 0) {
		ix = (ULong)runs_free;
		runs_free = (Long)runs_pool[ix];
	} else if (runs_top < RUNS_POOL) {
		ix = runs_top++;
	} else {
		return NULL;
	}
	runs_pool[ix] = 0;
	runs_owner[ix] = sb;
	return &runs_pool[ix];
}

static void runs_give(struct sbinfo *sb)
{
	if (!sb->runs)
		return;
	*sb->runs = (ULong)runs_free;
	runs_free = sb->runs - runs_pool;
	sb->runs = NULL;
}

/* The block whose first segment's count `count` is (compared as addresses: it may lie outside the pool). */
static struct sbinfo *sb_of_runs(ULong *count)
{
	UWord off = (UWord)count - (UWord)runs_pool;

	if (off < sizeof(runs_pool))
		return runs_owner[off / sizeof(*runs_pool)];
	return (struct sbinfo *)((struct seg *)count) - 1; /* the first segment, right after its sbinfo */
}

/* Where segment i's count is. */
static inline ULong *seg_count(struct sbinfo *sb, Int i)
{
	return i == 0 && sb->runs ? sb->runs : &sb->segs[i].count;
}

/* Bring wsim_total up to date with a lazy superblock's executions. */
static void sb_total(struct sbinfo *sb)
{
	Int i;

	for (i = 0; i < sb->n_seg; i++) {
		struct seg *g = &sb->segs[i];
		ULong count = *seg_count(sb, i), n = count - g->totaled;

		wsim_total[WC_INSTR] += n * g->starts;
		wsim_total[WC_LOAD] += n * g->loads;
		wsim_total[WC_STORE] += n * g->stores;
		wsim_total[WC_IFETCH] += n * g->fetches;
		g->totaled = count;
	}
}

/*
 * Make wsim_total exact now, after wsim_cond_flush() (which unpacks). Walks every lazy superblock, so
 * whatever needs exact totals often (regions) calls totals_go_inline() first.
 */
static void totals_catch_up(void)
{
	struct sbinfo *sb;

	if (n_lazy == 0)
		return;
	VG_(HT_ResetIter)(sb_table);
	while ((sb = VG_(HT_Next)(sb_table)))
		if (sb->lazy)
			sb_total(sb);
}

/*
 * From now on generated code keeps the totals itself; with `discard` (allowed only in a client request),
 * every existing translation is thrown away to be made again that way, its counts folded as it goes. A
 * program that marks regions pings the tool from the marker library's constructor, which lands here while
 * little code has been translated.
 */
static void totals_go_inline(Bool discard)
{
	if (totals_inline)
		return;
	totals_inline = True;
	if (discard)
		VG_(discard_translations_safely)(0, ~(SizeT)0, "wsim");
}

/* Move a superblock's execution counts into its instructions and their functions. */
static void sb_fold(struct sbinfo *sb)
{
	Int i;

	if (sb->lazy)
		sb_total(sb);

	for (i = 0; i < sb->n_contrib; i++) {
		const struct contrib *c = &sb->contribs[i];
		ULong n = *seg_count(sb, c->seg);
		struct wsim_fn *fn = c->icc->fn;

		if (!n)
			continue;
		c->icc->exec += n * c->starts;
		fn->c[WC_INSTR] += n * c->starts;
		fn->c[WC_LOAD] += n * c->loads;
		fn->c[WC_STORE] += n * c->stores;
		fn->c[WC_IFETCH] += n * c->fetch;
		fn->c[WC_COND] += n * c->conds;
	}
	for (i = 0; i < sb->n_seg; i++)
		*seg_count(sb, i) = sb->segs[i].totaled = 0;
}

static void discard_superblock_info(Addr orig_addr, VexGuestExtents vge)
{
	struct sbinfo *sb = VG_(HT_remove)(sb_table, vge.base[0]);

	(void)orig_addr;
	if (sb) {
		sb_fold(sb);
		if (sb->lazy)
			n_lazy--;
		runs_give(sb);
		VG_(free)(sb);
	}
}

/* ---- Tiers -------------------------------------------------------------------------------------------- */

/*
 * Most code a large program runs, it runs a few times (a compiler, an interpreter's start-up), and there
 * Valgrind's translation costs far more than the simulation: for gcc -O2 -S on a small file (bench/
 * sim-speed.sh's), cc1 makes 100,000 translations; 81% of its time goes to Valgrind's core, most of it
 * translating, 4% to the code made. The inline hit tests make a translation half as large again (24 host
 * bytes per guest byte; 14.1 with tiers, cachegrind's 15.9), and so slower to make. So a block is first
 * translated cold: each access and line fetch calls a helper that makes the inline test itself, in C, and
 * goes on to the usual helper only where the inline test would have, so the model sees the same accesses;
 * conditional branches call a helper too. On its wsim_opt.tier-th run the block queues itself; the
 * scheduler's next return to client code (each time slice, each system call) discards it, its counts folded
 * as any discarded block's are, and its next run translates it hot. A discarded block's code never runs
 * again: the block the scheduler is about to enter is not discarded, but waits for the next turn.
 */
struct hot {
	struct hot *next; /* VgHashNode layout */
	UWord key;        /* a block's guest address: its translations are made hot */
};

static VgHashTable *hot_table;
static UWord *tier_queue; /* blocks to make again, by guest address */
static Int tier_n, tier_cap;
static ULong tier_ups;    /* blocks made again hot, for -v */

static VG_REGPARM(1) void wsim_h_tier_up(struct sbinfo *sb)
{
	struct hot *h;

	if (VG_(HT_lookup)(hot_table, sb->key))
		return;
	h = VG_(malloc)("wsim.hot", sizeof(*h));
	h->key = sb->key;
	VG_(HT_add_node)(hot_table, h);
	if (tier_n == tier_cap) {
		tier_cap = tier_cap ? 2 * tier_cap : 64;
		tier_queue = VG_(realloc)("wsim.tier", tier_queue, tier_cap * sizeof(*tier_queue));
	}
	tier_queue[tier_n++] = sb->key;
}

static Bool extents_overlap(const VexGuestExtents *a, const VexGuestExtents *b)
{
	Int i, j;

	for (i = 0; i < a->n_used; i++)
		for (j = 0; j < b->n_used; j++)
			if (a->base[i] < b->base[j] + b->len[j] && b->base[j] < a->base[i] + a->len[i])
				return True;
	return False;
}

/* Thread `tid` is about to enter the code at its guest IP: discard the queued blocks that are not that. */
static void tier_discard(ThreadId tid)
{
	struct sbinfo *next = VG_(HT_lookup)(sb_table, VG_(get_IP)(tid));
	Int i, kept = 0;

	for (i = 0; i < tier_n; i++) {
		struct sbinfo *sb = VG_(HT_lookup)(sb_table, tier_queue[i]);
		VexGuestExtents vge;
		Int k;

		if (!sb || !sb->cold)
			continue; /* gone already (unmapped, or every translation thrown away) or made hot since */
		/* Not when its range takes the block about to run, or one that cannot be told (redirected). */
		if (!next || extents_overlap(&sb->vge, &next->vge)) {
			tier_queue[kept++] = tier_queue[i];
			continue;
		}
		vge = sb->vge; /* sb goes with the first discard */
		for (k = 0; k < vge.n_used; k++)
			VG_(discard_translations)(vge.base[k], vge.len[k], "wsim.tier");
		tier_ups++;
	}
	tier_n = kept;
}

/* ---- Instrumentation ----------------------------------------------------------------------------------- */

struct ist {
	IRSB *out;
	struct sbinfo *sb;
	Int n_ins_total, n_ins;
	Int seg_first;           /* the current segment's first contrib */
	struct wsim_icc *icc;
	struct contrib *cur;     /* the current instruction's contrib in the current segment, or NULL */
	UWord prev_line;
	Bool call_at_end;
	/* Call tracking: the guest stack pointer's offset, the function of the code instrumented last, and
	 * whether a call was just made (the next instruction is a callee's entry, maybe of the same function). */
	Int offset_sp;
	struct wsim_fn *cs_fn;
	Bool cs_after_call;
	/* Cold code (see "Tiers"): no inline hit tests. */
	Bool cold;
	Bool entered; /* its first instruction calls wsim_h_cold_enter */
	Int entry_at; /* where the first instruction's code starts in `out`: segment 0 is counted there */
	IRExpr **def; /* the input's temporaries: the expression each was set to (flat IR: one statement each) */
	/* The latest data event was a load that a store of the same size to the same address would join. */
	Bool last_load;
	IRDirty *last_di;
	IRExpr *last_ea;
	Int last_size;
};

static struct wsim_l1_info l1i_info, l1d_info;

/*
 * Cold code's helpers (see "Tiers"): emit_not_mru's test, made here instead of inline, then the helper the
 * inline test guards. The same test, so that a hit it lets through changes nothing it would not have.
 */
/* The line numbered `b` is the most recently used of its set in `c` (the sets are a power of two). */
static inline Bool l1_mru_line(const struct wsim_l1_info *c, UWord b)
{
	return c->tags[(b & c->set_mask) * c->assoc] == (wsim_cfg.cg ? b : b << 1);
}

/* An access within one line, the most recently used of its set. */
static inline Bool l1_mru(const struct wsim_l1_info *c, Addr a, UWord size)
{
	return c->pow2 && a >> c->line_bits == (a + size - 1) >> c->line_bits && l1_mru_line(c, a >> c->line_bits);
}

#define COLD_TWO ((UWord)1 << 63)
#define COLD_CALL (~(UWord)0)

/* The model's fetch, for line `b` as cold_fetch takes it. */
static inline void fetch_slow(struct wsim_icc *ic, UWord b)
{
	if (wsim_cfg.cg)
		wsim_h_cg_fetch(ic);
	else if (b == COLD_CALL)
		wsim_h_fetch(ic);
	else if (b & COLD_TWO)
		wsim_h_fetch_two(ic, b & ~COLD_TWO);
	else
		wsim_h_fetch_line(ic, b);
}

/*
 * The line to test comes as an argument, a constant in the code, rather than from `ic`: the instruction
 * records of code that runs a few times are mostly out of the host's caches, and reading one here was most
 * of this helper's time on gcc (a cache miss at its first load). COLD_TWO marks an instruction over two
 * lines (with more than one set, so in different sets); COLD_CALL one that add_fetch does not test inline.
 */
static inline void cold_fetch(struct wsim_icc *ic, UWord b)
{
	if (LIKELY(!(b & COLD_TWO))) {
		if (!l1_mru_line(&l1i_info, b))
			fetch_slow(ic, b);
	} else if (b == COLD_CALL || !l1_mru_line(&l1i_info, b & ~COLD_TWO) ||
		   !l1_mru_line(&l1i_info, (b & ~COLD_TWO) + 1)) {
		fetch_slow(ic, b);
	}
}

static VG_REGPARM(2) void wsim_h_cold_fetch(struct wsim_icc *ic, UWord b)
{
	cold_fetch(ic, b);
}

/*
 * A cold block's first instruction: its first segment is counted here, and the block queued to be made hot
 * on its tier-th run, instead of by code at the segment's end (a load, an add, a store, a compare and a
 * guarded call in every cold translation: 10% less host code on cc1). The two differ only for a
 * run that a fault ends within that segment: counted here, though not all of it ran, where the segment's end
 * would not count it at all, though part of it did. Hot code counts its first segment at the same place
 * (flush_segment), so that the counts do not depend on the tier.
 */
STATIC_ASSERT(__builtin_offsetof(struct seg, count) == 0);

static VG_REGPARM(3) void wsim_h_cold_enter(struct wsim_icc *ic, UWord b, ULong *count)
{
	/* The count is in runs_pool, or else the first segment's, right after its block's sbinfo. */
	if (UNLIKELY(++*count == (ULong)wsim_opt.tier))
		wsim_h_tier_up(sb_of_runs(count));
	cold_fetch(ic, b);
}

static inline void cold_data(struct wsim_icc *ic, Addr a, UWord size, Bool store)
{
	if (l1_mru(&l1d_info, a, size))
		return;
	if (wsim_cfg.cg)
		(store ? wsim_h_cg_store : wsim_h_cg_load)(ic, a, size);
	else
		(store ? wsim_h_store : wsim_h_load)(ic, a, size);
}

static VG_REGPARM(3) void wsim_h_cold_load(struct wsim_icc *ic, Addr a, UWord size)
{
	cold_data(ic, a, size, False);
}

static VG_REGPARM(3) void wsim_h_cold_store(struct wsim_icc *ic, Addr a, UWord size)
{
	cold_data(ic, a, size, True);
}

static VG_REGPARM(3) void wsim_h_cold_rmw(struct wsim_icc *ic, Addr a, UWord size)
{
	if (!l1_mru(&l1d_info, a, size))
		wsim_h_rmw(ic, a, size);
}

/*
 * The same with the size in the record's address, which is 64-byte aligned, for sizes up to 63 (all but
 * the odd dirty helper's): one argument fewer to set at every call, 7 bytes of host code each.
 */
static VG_REGPARM(2) void wsim_h_cold_load_s(UWord ics, Addr a)
{
	cold_data(WSIM_ICS_IC(ics), a, ics & WSIM_ICS_SIZE, False);
}

static VG_REGPARM(2) void wsim_h_cold_store_s(UWord ics, Addr a)
{
	cold_data(WSIM_ICS_IC(ics), a, ics & WSIM_ICS_SIZE, True);
}

static VG_REGPARM(2) void wsim_h_cold_rmw_s(UWord ics, Addr a)
{
	wsim_h_cold_rmw(WSIM_ICS_IC(ics), a, ics & WSIM_ICS_SIZE);
}

/* What add_cond_branch's inline code does, called: (icc | taken) onto the branch buffer. */
static VG_REGPARM(1) void wsim_h_cold_cond(UWord entry)
{
	wsim_cond_push(entry);
}

static IRDirty *emit_call(struct ist *s, const HChar *name, void *fn, Int regparms, IRExpr **args)
{
	IRDirty *di = unsafeIRDirty_0_N(regparms, name, VG_(fnptr_to_fnentry)(fn), args);

	addStmtToIRSB(s->out, IRStmt_Dirty(di));
	return di;
}

#define CALL(s, fn, rp, args) emit_call((s), #fn, (void *)(fn), (rp), (args))

static IRTemp emit_tmp(struct ist *s, IRType ty, IRExpr *e)
{
	IRTemp t = newIRTemp(s->out->tyenv, ty);

	addStmtToIRSB(s->out, IRStmt_WrTmp(t, e));
	return t;
}

#define RD(t) IRExpr_RdTmp(t)
#define C64(v) IRExpr_Const(IRConst_U64(v))
#define C8(v) IRExpr_Const(IRConst_U8(v))

/* *where += n; returns the temporary that holds the sum. */
static IRTemp emit_add(struct ist *s, ULong *where, ULong n)
{
	IRTemp t1 = emit_tmp(s, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)where)));
	IRTemp t2 = emit_tmp(s, Ity_I64, IRExpr_Binop(Iop_Add64, RD(t1), C64(n)));

	addStmtToIRSB(s->out, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)where), RD(t2)));
	return t2;
}

/*
 * An Ity_I1 temporary, true unless the `size` bytes at `ea` lie in one line that is the most recently used
 * of its set in `c`. Such an access is a hit that changes no state, so the helper is skipped. Returns
 * IRTemp_INVALID when the cache cannot be tested inline (a set count that is not a power of two).
 */
static IRTemp emit_not_mru(struct ist *s, const struct wsim_l1_info *c, IRExpr *ea, Int size)
{
	IRTemp blk, off, tag, key, miss;
	UWord stride = (UWord)c->assoc * sizeof(UWord);

	if (!c->pow2)
		return IRTemp_INVALID;
	if (ea->tag == Iex_Const && size == 1) {
		/* A known address (an instruction fetch): the set and the tag to expect are constants. */
		UWord b = ea->Iex.Const.con->Ico.U64 >> c->line_bits;

		tag = emit_tmp(s, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64,
						       C64((HWord)(c->tags + (b & c->set_mask) * c->assoc))));
		return emit_tmp(s, Ity_I1, IRExpr_Binop(Iop_CmpNE64, RD(tag), C64(wsim_cfg.cg ? b : b << 1)));
	}
	if ((stride & (stride - 1)) == 0) {
		/* The set's offset in the tag array straight from the address, without the block number. */
		Int sb = VG_(log2)((UInt)stride), lb = (Int)c->line_bits;

		off = emit_tmp(s, Ity_I64, IRExpr_Binop(Iop_And64, ea, C64(c->set_mask << lb)));
		if (sb != lb)
			off = emit_tmp(s, Ity_I64, IRExpr_Binop(sb > lb ? Iop_Shl64 : Iop_Shr64, RD(off),
							     C8(sb > lb ? sb - lb : lb - sb)));
	} else {
		blk = emit_tmp(s, Ity_I64, IRExpr_Binop(Iop_Shr64, ea, C8(c->line_bits)));
		off = emit_tmp(s, Ity_I64, IRExpr_Binop(Iop_And64, RD(blk), C64(c->set_mask)));
		off = emit_tmp(s, Ity_I64, IRExpr_Binop(Iop_Mul64, RD(off), C64(stride)));
	}
	off = emit_tmp(s, Ity_I64, IRExpr_Binop(Iop_Add64, RD(off), C64((HWord)c->tags)));
	tag = emit_tmp(s, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, RD(off)));
	if (size > 1 && c->set_mask == 0) {
		/* One set: test that the access stays in one line, then that the line is the most recent. */
		IRTemp end = emit_tmp(s, Ity_I64, IRExpr_Binop(Iop_Add64, ea, C64(size - 1)));
		IRTemp blk2 = emit_tmp(s, Ity_I64, IRExpr_Binop(Iop_Shr64, RD(end), C8(c->line_bits)));
		IRTemp cross;

		blk = emit_tmp(s, Ity_I64, IRExpr_Binop(Iop_Shr64, ea, C8(c->line_bits)));
		cross = emit_tmp(s, Ity_I1, IRExpr_Binop(Iop_CmpNE64, RD(blk), RD(blk2)));
		key = wsim_cfg.cg ? blk : emit_tmp(s, Ity_I64, IRExpr_Binop(Iop_Shl64, RD(blk), C8(1)));
		miss = emit_tmp(s, Ity_I1, IRExpr_Binop(Iop_CmpNE64, RD(tag), RD(key)));
		return emit_tmp(s, Ity_I1, IRExpr_Binop(Iop_Or1, RD(miss), RD(cross)));
	}
	/*
	 * The key is the line of the access's last byte, so one compare tests both that the access stays in one
	 * line and that the line is the most recent of this set: with more than one set, the next line belongs
	 * to another set and can never be this one's most recent.
	 */
	if (size > 1)
		ea = RD(emit_tmp(s, Ity_I64, IRExpr_Binop(Iop_Add64, ea, C64(size - 1))));
	blk = emit_tmp(s, Ity_I64, IRExpr_Binop(Iop_Shr64, ea, C8(c->line_bits)));
	key = wsim_cfg.cg ? blk : emit_tmp(s, Ity_I64, IRExpr_Binop(Iop_Shl64, RD(blk), C8(1)));
	return emit_tmp(s, Ity_I1, IRExpr_Binop(Iop_CmpNE64, RD(tag), RD(key)));
}

/* Call `di` only when `guard` (IRTemp_INVALID: always) holds. */
static void set_guard(IRDirty *di, IRTemp guard)
{
	if (guard != IRTemp_INVALID)
		di->guard = RD(guard);
}

/* The guest stack pointer, as of this point of the superblock. */
static IRExpr *emit_sp(struct ist *s)
{
	return RD(emit_tmp(s, Ity_I64, IRExpr_Get(s->offset_sp, Ity_I64)));
}

/*
 * Where the function changes (and at a superblock's start): tell the call tracker when the running thread's
 * top frame is not this function's. One load and compare when it is, the usual case.
 */
static void emit_cs_check(struct ist *s)
{
	IRTemp top = emit_tmp(s, Ity_I32, IRExpr_Load(Iend_LE, Ity_I32, mkIRExpr_HWord((HWord)&wsim_cs_fnid)));
	IRTemp other = emit_tmp(s, Ity_I1, IRExpr_Binop(Iop_CmpNE32, RD(top),
							IRExpr_Const(IRConst_U32(wsim_cs_id(s->icc->fn)))));
	IRDirty *di = CALL(s, wsim_cs_enter, 1, mkIRExprVec_1(mkIRExpr_HWord((HWord)s->icc)));

	/* The helper reads the stack pointer from the guest state: it must be there, up to date. */
	di->nFxState = 1;
	VG_(memset)(&di->fxState[0], 0, sizeof(di->fxState[0]));
	di->fxState[0].fx = Ifx_Read;
	di->fxState[0].offset = s->offset_sp;
	di->fxState[0].size = sizeof(ULong);
	di->guard = RD(other);
}

/* The current instruction's record in the current segment, made on first use. */
static struct contrib *cur_contrib(struct ist *s)
{
	if (!s->cur) {
		s->cur = &s->sb->contribs[s->sb->n_contrib++];
		VG_(memset)(s->cur, 0, sizeof(*s->cur));
		s->cur->icc = s->icc;
		s->cur->seg = s->sb->n_seg;
	}
	return s->cur;
}

/* The current instruction enters a new I-cache line: count the fetch, simulate it unless certainly a hit. */
static void add_fetch(struct ist *s, Addr cia, UInt isize)
{
	IRExpr **args = mkIRExprVec_1(mkIRExpr_HWord((HWord)s->icc));
	Addr last = cia + isize - 1;
	IRTemp guard;
	IRDirty *di;

	if (s->cold) {
		/* The tests of emit_not_mru below, made in the helper: the line, both lines, or none. */
		UWord b = cia >> l1i_info.line_bits;

		if (!l1i_info.pow2 || (l1i_info.set_mask == 0 && b != last >> l1i_info.line_bits))
			b = COLD_CALL;
		else if (b != last >> l1i_info.line_bits)
			b = b + 1 == last >> l1i_info.line_bits ? b | COLD_TWO : COLD_CALL; /* three lines: tiny ones */
		if (s->n_ins == 1 && s->sb->n_seg == 0) {
			CALL(s, wsim_h_cold_enter, 3, mkIRExprVec_3(args[0], mkIRExpr_HWord(b),
								 mkIRExpr_HWord((HWord)seg_count(s->sb, 0))));
			s->entered = True;
		} else {
			CALL(s, wsim_h_cold_fetch, 2, mkIRExprVec_2(args[0], mkIRExpr_HWord(b)));
		}
		cur_contrib(s)->fetch = 1;
		return;
	}
	guard = emit_not_mru(s, &l1i_info, mkIRExpr_HWord(cia), 1);

	/*
	 * An instruction that straddles two lines is a certain hit when each is the most recent of its set:
	 * lines next to each other are in different sets, unless the cache has only one. Calling the helper
	 * at every straddling instruction was 13 million calls on bench/sim-speed.sh's workload, almost all
	 * of its instruction fetches that reached the helper, for a hot loop with one such instruction.
	 */
	if (guard != IRTemp_INVALID && cia >> l1i_info.line_bits != last >> l1i_info.line_bits) {
		if (l1i_info.set_mask == 0)
			guard = IRTemp_INVALID;
		else
			guard = emit_tmp(s, Ity_I1, IRExpr_Binop(Iop_Or1, RD(guard),
								 RD(emit_not_mru(s, &l1i_info, mkIRExpr_HWord(last), 1))));
	}
	if (wsim_cfg.cg)
		di = CALL(s, wsim_h_cg_fetch, 1, args);
	else if (cia >> l1i_info.line_bits == last >> l1i_info.line_bits)
		di = CALL(s, wsim_h_fetch_line, 2, mkIRExprVec_2(args[0], mkIRExpr_HWord(cia >> l1i_info.line_bits)));
	else if ((cia >> l1i_info.line_bits) + 1 == last >> l1i_info.line_bits)
		di = CALL(s, wsim_h_fetch_two, 2, mkIRExprVec_2(args[0], mkIRExpr_HWord(cia >> l1i_info.line_bits)));
	else
		di = CALL(s, wsim_h_fetch, 1, args);

	set_guard(di, guard);
	cur_contrib(s)->fetch = 1;
}

/* Move the statements of `out` from `from` on to `to` (< from), ahead of those in between. */
static void move_stmts(IRSB *out, Int to, Int from)
{
	Int ends[3][2] = { { to, from }, { from, out->stmts_used }, { to, out->stmts_used } };
	Int k, i, j;

	/* Three reversals rotate the array in place. */
	for (k = 0; k < 3; k++) {
		for (i = ends[k][0], j = ends[k][1] - 1; i < j; i++, j--) {
			IRStmt *t = out->stmts[i];

			out->stmts[i] = out->stmts[j];
			out->stmts[j] = t;
		}
	}
}

/*
 * Close the current segment: count its instructions and accesses, here where all of them have happened, or
 * for a block's first segment at the block's first instruction, as cold code counts it (wsim_h_cold_enter).
 */
static void flush_segment(struct ist *s)
{
	struct sbinfo *sb = s->sb;
	struct seg *g;
	ULong starts = 0, loads = 0, stores = 0, fetches = 0;
	Int k, at = s->out->stmts_used;

	if (s->seg_first == sb->n_contrib)
		return;
	for (k = s->seg_first; k < sb->n_contrib; k++) {
		starts += sb->contribs[k].starts;
		loads += sb->contribs[k].loads;
		stores += sb->contribs[k].stores;
		fetches += sb->contribs[k].fetch;
	}
	g = &sb->segs[sb->n_seg];
	g->count = g->totaled = 0;
	g->starts = starts;
	g->loads = loads;
	g->stores = stores;
	g->fetches = fetches;
	/*
	 * A cold block's first segment is counted, and the block made hot on its tier-th run, by
	 * wsim_h_cold_enter at its first instruction, which always fetches a new line.
	 */
	if (s->cold && sb->n_seg == 0)
		tl_assert(s->entered);
	else
		emit_add(s, &g->count, 1);
	/* Two adds more per segment; without them bench/sim-speed.sh's workload took 2-3% less time. */
	if (!sb->lazy && (starts || loads))
		emit_add(s, &wsim_packed[0], starts | loads << 32);
	if (!sb->lazy && (stores || fetches))
		emit_add(s, &wsim_packed[1], stores | fetches << 32);
	/*
	 * A run that a fault (a SIGSEGV the program handles) ends in the first segment must count the same
	 * whether the block is cold or hot, and the same in the totals as in its functions: cold code counts
	 * that segment's runs on entry (wsim_h_cold_enter), so its adds to the totals go there too, and hot
	 * code's count and adds. Seen comparing tiers on a function that faults at its 7th instruction on
	 * every 7th call (tests/programs/faults.c): counted at the segment's end, hot code counted none of its
	 * 17 instructions per fault and cold code all 17; with --ws-callers, cold code 17 in the function and
	 * none in the totals.
	 */
	if (sb->n_seg == 0)
		move_stmts(s->out, s->entry_at, at);
	sb->n_seg++;
	s->seg_first = sb->n_contrib;
	s->cur = NULL;
}

static Int clip_size(Int size)
{
	return size > wsim_cfg.min_line ? wsim_cfg.min_line : size;
}

/*
 * The helper for a data access of `size` bytes: [cold][size in the record's low bits][load, store, rmw]. The
 * cachegrind preset's code calls its own (hot) helpers, and makes no read-modify-writes.
 */
enum { D_LOAD, D_STORE, D_RMW };
struct data_helper {
	const HChar *name;
	void *fn;
};
#define DH(f) { #f, (void *)(f) }
static const struct data_helper data_helpers[2][2][3] = {
	{ { DH(wsim_h_load), DH(wsim_h_store), DH(wsim_h_rmw) },
	  { DH(wsim_h_load_s), DH(wsim_h_store_s), DH(wsim_h_rmw_s) } },
	{ { DH(wsim_h_cold_load), DH(wsim_h_cold_store), DH(wsim_h_cold_rmw) },
	  { DH(wsim_h_cold_load_s), DH(wsim_h_cold_store_s), DH(wsim_h_cold_rmw_s) } },
};
static const struct data_helper cg_helpers[2] = { DH(wsim_h_cg_load), DH(wsim_h_cg_store) };

/* Whether the access's size goes in the record's low bits: two arguments, not three. */
static Bool data_ics(const struct ist *s, Int size)
{
	return (s->cold || !wsim_cfg.cg) && size <= WSIM_ICS_SIZE;
}

static IRCallee *data_callee(const struct ist *s, Int size, Int kind)
{
	const struct data_helper *h;

	tl_assert(s->cold || !wsim_cfg.cg || kind != D_RMW);
	h = !s->cold && wsim_cfg.cg ? &cg_helpers[kind]
				      : &data_helpers[s->cold][data_ics(s, size)][kind];

	return mkIRCallee(data_ics(s, size) ? 2 : 3, h->name, VG_(fnptr_to_fnentry)(h->fn));
}

static IRDirty *emit_data(struct ist *s, IRExpr *ea, Int size, Bool store)
{
	IRExpr **args = data_ics(s, size) ? mkIRExprVec_2(mkIRExpr_HWord(WSIM_ICS(s->icc, size)), ea)
					  : mkIRExprVec_3(mkIRExpr_HWord((HWord)s->icc), ea, mkIRExpr_HWord((HWord)size));
	IRTemp guard = s->cold ? IRTemp_INVALID : emit_not_mru(s, &l1d_info, ea, size);
	IRCallee *cee = data_callee(s, size, store ? D_STORE : D_LOAD);
	IRDirty *di = unsafeIRDirty_0_N(cee->regparms, cee->name, cee->addr, args);

	addStmtToIRSB(s->out, IRStmt_Dirty(di));
	set_guard(di, guard);
	return di;
}

static void add_load(struct ist *s, IRExpr *ea, Int size)
{
	size = clip_size(size);
	cur_contrib(s)->loads++;
	s->last_di = emit_data(s, ea, size, False);
	s->last_load = True;
	s->last_ea = ea;
	s->last_size = size;
}

static void add_store(struct ist *s, IRExpr *ea, Int size)
{
	size = clip_size(size);
	if (s->last_load && s->last_size == size && eqIRAtom(s->last_ea, ea)) {
		/*
		 * A read-modify-write. cachegrind counts it as the read alone; the full model counts the store
		 * too, a certain hit on the line the read just brought in.
		 */
		if (!wsim_cfg.cg) {
			cur_contrib(s)->stores++;
			/* The load tells the coherence model that it writes too (the same counts otherwise). */
			s->last_di->cee = data_callee(s, size, D_RMW);
		}
		s->last_load = False;
		return;
	}
	cur_contrib(s)->stores++;
	emit_data(s, ea, size, True);
	s->last_load = False;
}

/* A guarded access happens only when its guard holds, so it counts itself. */
static void add_guarded(struct ist *s, IRExpr *ea, Int size, IRExpr *guard, Bool store)
{
	IRExpr **args;
	IRDirty *di;

	s->last_load = False;
	size = clip_size(size);
	args = mkIRExprVec_3(mkIRExpr_HWord((HWord)s->icc), ea, mkIRExpr_HWord((HWord)size));
	if (store)
		di = wsim_cfg.cg ? CALL(s, wsim_h_cg_store_counted, 3, args) : CALL(s, wsim_h_store_counted, 3, args);
	else
		di = wsim_cfg.cg ? CALL(s, wsim_h_cg_load_counted, 3, args) : CALL(s, wsim_h_load_counted, 3, args);
	di->guard = guard;
}

/* The input's temporary that `t` is a copy of, through any chain of copies (`t` itself if none). */
static IRTemp copied(const struct ist *s, IRTemp t)
{
	while (s->def[t] && s->def[t]->tag == Iex_RdTmp)
		t = s->def[t]->Iex.RdTmp.tmp;
	return t;
}

/*
 * The exit's guard (held in g1) as a 64-bit 0 or 1. VEX usually makes a conditional branch's guard as
 * 64to1(1Uto64(compare)), with copies between: then the 1Uto64 is the value, already in a register,
 * where converting the guard back costs two host instructions (test, set) at every branch.
 */
static IRExpr *bool64_of(const struct ist *s, IRExpr *guard, IRTemp g1)
{
	IRExpr *e = guard->tag == Iex_RdTmp ? s->def[copied(s, guard->Iex.RdTmp.tmp)] : NULL;

	if (e && e->tag == Iex_Unop && e->Iex.Unop.op == Iop_64to1 && e->Iex.Unop.arg->tag == Iex_RdTmp) {
		IRTemp w = copied(s, e->Iex.Unop.arg->Iex.RdTmp.tmp);

		if (s->def[w] && s->def[w]->tag == Iex_Unop && s->def[w]->Iex.Unop.op == Iop_1Uto64)
			return IRExpr_RdTmp(w);
	}
	return IRExpr_Unop(Iop_1Uto64, IRExpr_RdTmp(g1));
}

static void add_cond_branch(struct ist *s, IRStmt *st, Addr cia, UInt isize)
{
	IRTemp g1 = newIRTemp(s->out->tyenv, Ity_I1), gw = newIRTemp(s->out->tyenv, Ity_I64),
	       g = newIRTemp(s->out->tyenv, Ity_I64);
	IRConst *dst = st->Ist.Exit.dst;
	/* VEX may have turned the branch around so that the exit goes to the fall-through: then the exit
	 * being taken means the guest branch was not. */
	Bool inverted = dst->tag == Ico_U64 && dst->Ico.U64 == cia + isize;
	IRTemp entry, ptr, next, low, full;
	IRDirty *di;

	addStmtToIRSB(s->out, IRStmt_WrTmp(g1, st->Ist.Exit.guard));
	addStmtToIRSB(s->out, IRStmt_WrTmp(gw, bool64_of(s, st->Ist.Exit.guard, g1)));
	addStmtToIRSB(s->out, IRStmt_WrTmp(g, inverted ? IRExpr_Binop(Iop_Xor64, IRExpr_RdTmp(gw),
								      IRExpr_Const(IRConst_U64(1)))
						       : IRExpr_RdTmp(gw)));
	/* Append (icc | taken) to the branch buffer, and hand the buffer on when that filled it (its end is a
	 * multiple of its size). icc is 16-byte aligned. */
	entry = emit_tmp(s, Ity_I64, IRExpr_Binop(Iop_Or64, IRExpr_RdTmp(g), C64((HWord)s->icc)));
	if (s->cold) {
		CALL(s, wsim_h_cold_cond, 1, mkIRExprVec_1(RD(entry)));
		return;
	}
	ptr = emit_tmp(s, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, C64((HWord)&wsim_cond_ptr)));
	addStmtToIRSB(s->out, IRStmt_Store(Iend_LE, RD(ptr), RD(entry)));
	next = emit_tmp(s, Ity_I64, IRExpr_Binop(Iop_Add64, RD(ptr), C64(sizeof(UWord))));
	addStmtToIRSB(s->out, IRStmt_Store(Iend_LE, C64((HWord)&wsim_cond_ptr), RD(next)));
	low = emit_tmp(s, Ity_I64, IRExpr_Binop(Iop_And64, RD(next), C64(WSIM_COND_BUF * sizeof(UWord) - 1)));
	full = emit_tmp(s, Ity_I1, IRExpr_Binop(Iop_CmpEQ64, RD(low), C64(0)));
	di = CALL(s, wsim_h_cond_full, 0, mkIRExprVec_0());
	di->guard = RD(full);
}

/* ---- --ws-scope: outside the regions ------------------------------------------------------------------ */

/*
 * With --ws-scope=regions, translations are made full while a region is open in any thread and outside
 * otherwise; every switch throws every translation away, to be made again the other way (as callgrind's
 * and cachegrind's instrumentation toggles do). Outside, a block runs as Valgrind's none tool runs it
 * (regions), or with its fetches and data accesses sent to the caches and nothing counted (regions-warm).
 * Switching costs the retranslation of what runs next, so a program that crosses boundaries faster than
 * SCOPE_MIN_MS apart on average, over SCOPE_MIN_SWITCHES switches, is simulated whole from then on.
 */
#define SCOPE_MIN_SWITCHES 16
#define SCOPE_MIN_MS 50

static Bool scope_full = True; /* translations are made full now */
static Int regions_open;       /* regions open, every thread's */
static UInt scope_switches, scope_start_ms;
static Bool scope_pinned;      /* switching stopped: simulated whole */

static void warm_call(struct ist *s, void *fn, const HChar *name, Addr cia, IRExpr *ea, Int size, IRExpr *guard)
{
	IRExpr **args = mkIRExprVec_3(mkIRExpr_HWord((HWord)cia), ea, mkIRExpr_HWord((HWord)clip_size(size)));
	IRTemp mru = guard ? IRTemp_INVALID : emit_not_mru(s, &l1d_info, ea, clip_size(size));
	IRDirty *di = emit_call(s, name, fn, 3, args);

	if (guard)
		di->guard = guard;
	else
		set_guard(di, mru);
}

#define WARM(s, load, cia, ea, size, guard)                                                                  \
	((load) ? warm_call((s), (void *)wsim_h_warm_load, "wsim_h_warm_load", (cia), (ea), (size), (guard))   \
		: warm_call((s), (void *)wsim_h_warm_store, "wsim_h_warm_store", (cia), (ea), (size), (guard)))

/* A block outside the regions: as it is, or with its accesses warming the caches. */
static IRSB *instrument_outside(IRSB *in)
{
	IRTypeEnv *tyenv = in->tyenv;
	struct ist s;
	UWord prev_line = ~(UWord)0;
	Addr cia = 0;
	Int i;

	if (wsim_opt.scope != WSIM_SCOPE_REGIONS_WARM)
		return in;
	VG_(memset)(&s, 0, sizeof(s));
	s.out = deepCopyIRSBExceptStmts(in);
	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		addStmtToIRSB(s.out, st);
		switch (st->tag) {
		case Ist_IMark: {
			UInt isize = st->Ist.IMark.len ? st->Ist.IMark.len : VG_MIN_INSTR_SZB;
			UWord l1 = wsim_cfg.l1i.line, first_line, last_line;
			IRTemp guard;

			cia = st->Ist.IMark.addr;
			first_line = cia / l1;
			last_line = (cia + isize - 1) / l1;
			if (first_line != prev_line || last_line != first_line) {
				guard = last_line == first_line ? emit_not_mru(&s, &l1i_info, mkIRExpr_HWord(cia), 1)
								: IRTemp_INVALID;
				set_guard(CALL(&s, wsim_h_warm_fetch, 2,
					       mkIRExprVec_2(mkIRExpr_HWord((HWord)cia), mkIRExpr_HWord((HWord)isize))),
					  guard);
			}
			prev_line = last_line;
			break;
		}
		case Ist_WrTmp:
			if (st->Ist.WrTmp.data->tag == Iex_Load)
				WARM(&s, True, cia, st->Ist.WrTmp.data->Iex.Load.addr,
				     sizeofIRType(st->Ist.WrTmp.data->Iex.Load.ty), NULL);
			break;
		case Ist_Store:
			WARM(&s, False, cia, st->Ist.Store.addr, sizeofIRType(typeOfIRExpr(tyenv, st->Ist.Store.data)),
			     NULL);
			break;
		case Ist_StoreG:
			WARM(&s, False, cia, st->Ist.StoreG.details->addr,
			     sizeofIRType(typeOfIRExpr(tyenv, st->Ist.StoreG.details->data)), st->Ist.StoreG.details->guard);
			break;
		case Ist_LoadG: {
			IRType ty = Ity_INVALID, wide = Ity_INVALID;

			typeOfIRLoadGOp(st->Ist.LoadG.details->cvt, &wide, &ty);
			WARM(&s, True, cia, st->Ist.LoadG.details->addr, sizeofIRType(ty), st->Ist.LoadG.details->guard);
			break;
		}
		case Ist_Dirty: {
			IRDirty *d = st->Ist.Dirty.details;

			if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
				WARM(&s, True, cia, d->mAddr, d->mSize, NULL);
			if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
				WARM(&s, False, cia, d->mAddr, d->mSize, NULL);
			break;
		}
		case Ist_CAS: {
			IRCAS *cas = st->Ist.CAS.details;
			Int size = sizeofIRType(typeOfIRExpr(tyenv, cas->dataLo)) * (cas->dataHi ? 2 : 1);

			WARM(&s, True, cia, cas->addr, size, NULL);
			WARM(&s, False, cia, cas->addr, size, NULL);
			break;
		}
		case Ist_LLSC:
			if (!st->Ist.LLSC.storedata)
				WARM(&s, True, cia, st->Ist.LLSC.addr, sizeofIRType(typeOfIRTemp(tyenv, st->Ist.LLSC.result)),
				     NULL);
			else
				WARM(&s, False, cia, st->Ist.LLSC.addr,
				     sizeofIRType(typeOfIRExpr(tyenv, st->Ist.LLSC.storedata)), NULL);
			break;
		default:
			break;
		}
	}
	return s.out;
}

/* A region opened (full) or the last one closed: make what runs next the other way, if switching pays. */
static void scope_switch(Bool full)
{
	UInt now;

	if (wsim_opt.scope == WSIM_SCOPE_ALL || scope_pinned || scope_full == full)
		return;
	now = VG_(read_millisecond_timer)();
	if (!full && scope_switches >= SCOPE_MIN_SWITCHES &&
	    now - scope_start_ms < scope_switches * (UInt)SCOPE_MIN_MS) {
		scope_pinned = True;
		if (VG_(clo_verbosity) > 1)
			VG_(dmsg)("wsim: regions open and close every %u ms: simulating the whole program from now on\n",
				  (now - scope_start_ms) / scope_switches);
		return;
	}
	scope_full = full;
	scope_switches++;
	VG_(discard_translations_safely)(0, ~(SizeT)0, "wsim.scope");
}

static IRExpr **def_buf;
static Int def_cap;

static IRSB *ws_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
			   const VexGuestExtents *vge, const VexArchInfo *archinfo_host, IRType gWordTy,
			   IRType hWordTy)
{
	struct ist s;
	Int i, first, n_exits = 0, n_split = 0;
	Addr cia = 0;
	UInt isize = 0;
	IRTypeEnv *tyenv = in->tyenv;
	struct sbinfo *sb;

	(void)archinfo_host;
	if (gWordTy != Ity_I64 || hWordTy != Ity_I64)
		VG_(tool_panic)("wsim: only 64-bit guests are supported");
	if (!scope_full)
		return instrument_outside(in);

	VG_(memset)(&s, 0, sizeof(s));
	s.out = deepCopyIRSBExceptStmts(in);
	for (i = 0; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; i++)
		addStmtToIRSB(s.out, in->stmts[i]);
	first = i;
	/* Kept from one translation to the next: one allocation less per block. */
	if (in->tyenv->types_used > def_cap) {
		def_cap = in->tyenv->types_used * 2;
		def_buf = VG_(realloc)("wsim.def", def_buf, def_cap * sizeof(*def_buf));
	}
	s.def = def_buf;
	VG_(memset)(s.def, 0, in->tyenv->types_used * sizeof(*s.def));
	for (i = 0; i < in->stmts_used; i++)
		if (in->stmts[i]->tag == Ist_WrTmp)
			s.def[in->stmts[i]->Ist.WrTmp.tmp] = in->stmts[i]->Ist.WrTmp.data;
	for (i = first; i < in->stmts_used; i++) {
		if (in->stmts[i]->tag == Ist_IMark)
			s.n_ins_total++;
		else if (in->stmts[i]->tag == Ist_Exit)
			n_exits++;
	}
	tl_assert(s.n_ins_total > 0);

	/*
	 * At most one segment per exit plus one, and one contrib per instruction plus one per exit. Call
	 * tracking ends a segment where the function changes and where a call is made: two more of each
	 * per instruction at most.
	 */
	if (wsim_opt.callers)
		n_split = 2 * s.n_ins_total;
	sb = VG_(malloc)("wsim.sb", sizeof(*sb) + (n_exits + n_split + 1) * sizeof(struct seg) +
					    (s.n_ins_total + n_exits + n_split + 1) * sizeof(struct contrib));
	sb->key = (UWord)closure->readdr;
	sb->n_seg = 0;
	sb->n_contrib = 0;
	sb->lazy = !totals_inline;
	n_lazy += sb->lazy;
	sb->cold = s.cold = wsim_opt.tier > 0 && !VG_(HT_lookup)(hot_table, sb->key);
	sb->vge = *vge;
	sb->segs = (struct seg *)(sb + 1);
	sb->contribs = (struct contrib *)(sb->segs + n_exits + n_split + 1);
	sb->runs = s.cold ? runs_take(sb) : NULL;
	tl_assert(vge->base[0] == closure->readdr);
	VG_(HT_add_node)(sb_table, sb);
	s.sb = sb;
	s.prev_line = ~(UWord)0;
	s.offset_sp = layout->offset_SP;

	for (i = first; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		switch (st->tag) {
		case Ist_IMark: {
			UWord l1 = wsim_cfg.l1i.line;
			UWord first_line, last_line;
			Bool check;

			s.last_load = False;
			cia = st->Ist.IMark.addr;
			isize = st->Ist.IMark.len;
			if (isize == 0)
				isize = VG_MIN_INSTR_SZB; /* VEX could not decode it */
			s.icc = icc_for(cia, isize);
			/* What ran before is counted before the tracker may change the context. */
			check = wsim_opt.callers && (s.icc->fn != s.cs_fn || s.cs_after_call);
			if (check)
				flush_segment(&s);
			s.cur = NULL;
			cur_contrib(&s)->starts = 1;
			s.n_ins++;
			first_line = cia / l1;
			last_line = (cia + isize - 1) / l1;
			addStmtToIRSB(s.out, st);
			if (check) {
				emit_cs_check(&s);
				s.cs_fn = s.icc->fn;
				s.cs_after_call = False;
			}
			/* After the call tracker's check, as wsim_h_cold_enter is: the counts go to the new context. */
			if (s.n_ins == 1)
				s.entry_at = s.out->stmts_used;
			/* Nothing but fetches touch L1i, so staying in the line just fetched is a certain hit. */
			if (first_line != s.prev_line || last_line != first_line)
				add_fetch(&s, cia, isize);
			s.prev_line = last_line;
			break;
		}
		case Ist_WrTmp:
			/*
			 * A load's helper goes before the load: a load that misses the host's caches then
			 * waits while the helper works (it prefetches the line, gen_data_body) instead of
			 * before it. The mix of bench/sim-speed.sh had 26% of its samples in generated code,
			 * mostly its own loads, and 7.5% after; 0.90x the CPU time for the same counts.
			 */
			if (st->Ist.WrTmp.data->tag == Iex_Load)
				add_load(&s, st->Ist.WrTmp.data->Iex.Load.addr,
					 sizeofIRType(st->Ist.WrTmp.data->Iex.Load.ty));
			addStmtToIRSB(s.out, st);
			break;
		case Ist_Store:
			addStmtToIRSB(s.out, st);
			add_store(&s, st->Ist.Store.addr, sizeofIRType(typeOfIRExpr(tyenv, st->Ist.Store.data)));
			break;
		case Ist_StoreG: {
			IRStoreG *sg = st->Ist.StoreG.details;

			addStmtToIRSB(s.out, st);
			add_guarded(&s, sg->addr, sizeofIRType(typeOfIRExpr(tyenv, sg->data)), sg->guard, True);
			break;
		}
		case Ist_LoadG: {
			IRLoadG *lg = st->Ist.LoadG.details;
			IRType ty = Ity_INVALID, wide = Ity_INVALID;

			addStmtToIRSB(s.out, st);
			typeOfIRLoadGOp(lg->cvt, &wide, &ty);
			add_guarded(&s, lg->addr, sizeofIRType(ty), lg->guard, False);
			break;
		}
		case Ist_Dirty: {
			IRDirty *d = st->Ist.Dirty.details;

			addStmtToIRSB(s.out, st);
			if (d->mFx != Ifx_None) {
				if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
					add_load(&s, d->mAddr, d->mSize);
				if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
					add_store(&s, d->mAddr, d->mSize);
			}
			break;
		}
		case Ist_CAS: {
			IRCAS *cas = st->Ist.CAS.details;
			Int size = sizeofIRType(typeOfIRExpr(tyenv, cas->dataLo));

			if (cas->dataHi)
				size *= 2;
			addStmtToIRSB(s.out, st);
			add_load(&s, cas->addr, size);
			add_store(&s, cas->addr, size);
			break;
		}
		case Ist_LLSC:
			addStmtToIRSB(s.out, st);
			if (!st->Ist.LLSC.storedata) {
				add_load(&s, st->Ist.LLSC.addr, sizeofIRType(typeOfIRTemp(tyenv, st->Ist.LLSC.result)));
				s.last_load = False;
			} else {
				add_store(&s, st->Ist.LLSC.addr,
					  sizeofIRType(typeOfIRExpr(tyenv, st->Ist.LLSC.storedata)));
			}
			break;
		case Ist_AbiHint:
			/* VEX marks calls and returns with one; a return always ends its block with Ijk_Ret. */
			addStmtToIRSB(s.out, st);
			if (wsim_opt.callers) {
				Bool last = s.n_ins == s.n_ins_total;
				IRExpr **args;

				if (last && in->jumpkind == Ijk_Ret)
					break;
				if (last && in->jumpkind == Ijk_Call && in->next->tag == Iex_RdTmp) {
					s.call_at_end = True;
					break;
				}
				/* The call instruction is the caller's: its segment ends with it. */
				flush_segment(&s);
				if (st->Ist.AbiHint.nia->tag == Iex_Const) {
					/* A direct call: the callee's frame goes on now, and its check finds it there. */
					struct wsim_fn *callee = fn_for((Addr)st->Ist.AbiHint.nia->Iex.Const.con->Ico.U64);

					wsim_cs_id(callee);

					args = mkIRExprVec_3(mkIRExpr_HWord((HWord)s.icc), mkIRExpr_HWord((HWord)callee),
							     emit_sp(&s));
					if (wsim_cfg.ras > 0)
						CALL(&s, wsim_cs_call_to_ras, 3, args);
					else
						CALL(&s, wsim_cs_call_to, 3, args);
				} else {
					args = mkIRExprVec_2(mkIRExpr_HWord((HWord)s.icc), emit_sp(&s));
					if (wsim_cfg.ras > 0)
						CALL(&s, wsim_cs_call_ras, 2, args);
					else
						CALL(&s, wsim_cs_call, 2, args);
				}
				s.cs_after_call = True;
			} else if (wsim_cfg.ras > 0) {
				Bool last = s.n_ins == s.n_ins_total;

				if (last && in->jumpkind == Ijk_Ret)
					break;
				if (last && in->jumpkind == Ijk_Call && in->next->tag == Iex_RdTmp) {
					s.call_at_end = True;
					break;
				}
				CALL(&s, wsim_h_call, 1, mkIRExprVec_1(mkIRExpr_HWord((HWord)s.icc)));
			}
			break;
		case Ist_Exit: {
			Bool branch = st->Ist.Exit.jk == Ijk_Boring || st->Ist.Exit.jk == Ijk_Call ||
				      st->Ist.Exit.jk == Ijk_Ret;

			/* The branch is counted with the segment it ends (per function), and in total by the flush. */
			if (branch)
				cur_contrib(&s)->conds++;
			flush_segment(&s);
			s.last_load = False;
			if (branch)
				add_cond_branch(&s, st, cia, isize);
			addStmtToIRSB(s.out, st);
			break;
		}
		default:
			addStmtToIRSB(s.out, st);
			break;
		}
	}

	flush_segment(&s);
	if (wsim_opt.callers && s.call_at_end) {
		CALL(&s, wsim_cs_ind_call, 3, mkIRExprVec_3(mkIRExpr_HWord((HWord)s.icc), in->next, emit_sp(&s)));
	} else if (wsim_opt.callers && in->jumpkind == Ijk_Ret) {
		CALL(&s, wsim_cs_ret, 3, mkIRExprVec_3(mkIRExpr_HWord((HWord)s.icc), in->next, emit_sp(&s)));
	} else if ((in->jumpkind == Ijk_Boring || in->jumpkind == Ijk_Call) && in->next->tag == Iex_RdTmp) {
		IRExpr **args = mkIRExprVec_2(mkIRExpr_HWord((HWord)s.icc), in->next);

		if (wsim_cfg.cg)
			CALL(&s, wsim_h_ind_cg, 2, args);
		else if (s.call_at_end)
			CALL(&s, wsim_h_ind_call, 2, args);
		else
			CALL(&s, wsim_h_ind, 2, args);
		if (wsim_cfg.cg && s.call_at_end)
			CALL(&s, wsim_h_call, 1, mkIRExprVec_1(mkIRExpr_HWord((HWord)s.icc)));
	} else if (in->jumpkind == Ijk_Ret && wsim_cfg.ras > 0) {
		CALL(&s, wsim_h_ret, 2, mkIRExprVec_2(mkIRExpr_HWord((HWord)s.icc), in->next));
	}
	return s.out;
}

/* ---- Threads and regions ------------------------------------------------------------------------------- */

/*
 * Per-thread counts without per-event cost: the totals always run, and each thread's share is the sum of
 * the stretches it ran, taken at every switch. A region snapshots its thread's count at begin and adds the
 * difference at end, so it includes everything the thread did in between, nested calls and regions too.
 */
struct active {
	struct wsim_region *r;
	Int depth;
	ULong snap[WC_N];
};

struct wsim_thread {
	Int core; /* the virtual core it runs on (wsim-sim.c), given in creation order */
	UInt serial; /* 1 for the first thread, then in creation order: Valgrind's ids are reused */
	UInt slices; /* the times it came on to run: Valgrind's time slices, or less where it blocked */
	ULong acc[WC_N];
	struct active *act;
	Int n_act, cap_act;
};

static struct wsim_thread **threads;
static UInt n_threads_alloc;
/*
 * What threads that have exited counted, per core, and how many ran there, for the per-core totals (a sum,
 * not their records: a program may start threads by the million). Valgrind gives a new thread the id of one
 * that has ended, so an exited thread's record must leave threads[]: a thread created after it would
 * otherwise go on in its record, on its core, and count as the same thread (seen: 2 threads of 3 under load).
 */
static ULong (*retired_c)[WC_N];
static Int *retired_n;
static ThreadId cur_tid;
static ULong base[WC_N];
static Int threads_seen;
static Int next_core;

/*
 * Threads past the first that did real work (BRIEF_MIN_INSTR) in at most BRIEF_SLICES turns. Valgrind runs
 * one thread at a time for a slice of 100000 blocks, and the coherence model loses the first slice in which
 * two cores share a line (docs/simulator.md, Coherence): such threads were hardly interleaved, and most of
 * their sharing is not counted. whyslow says so, where a count of zero would otherwise read as none.
 */
#define BRIEF_SLICES 2
#define BRIEF_MIN_INSTR 100000
static Int brief_threads;

static void note_brief(const struct wsim_thread *t, ULong instr)
{
	if (t->serial > 1 && t->slices <= BRIEF_SLICES && instr >= BRIEF_MIN_INSTR)
		brief_threads++;
}

static struct wsim_thread *thread_of(ThreadId tid)
{
	Bool fresh;
	struct wsim_thread *t = wsim_tid_entry((void ***)&threads, &n_threads_alloc, tid, "wsim.thread",
					       sizeof(struct wsim_thread), &fresh);

	if (fresh) {
		t->core = next_core++ % wsim_cfg.cores;
		t->serial = ++threads_seen;
	}
	return t;
}

/* The running thread, if any, leaves: what it counted since it came on is added to its own counts. */
static void switch_out(void)
{
	Int k;

	wsim_cond_flush();
	if (cur_tid != VG_INVALID_THREADID) {
		struct wsim_thread *t = thread_of(cur_tid);

		/* Threads switch every time slice: stop adding superblocks that need a walk to total. */
		totals_go_inline(False);
		totals_catch_up();
		for (k = 0; k < WC_N; k++)
			t->acc[k] += wsim_total[k] - base[k];
	}
	for (k = 0; k < WC_N; k++)
		base[k] = wsim_total[k];
	cur_tid = VG_INVALID_THREADID;
}

static void switch_to(ThreadId tid)
{
	struct wsim_thread *t;

	if (tid == cur_tid)
		return;
	switch_out();
	cur_tid = tid;
	t = thread_of(tid);
	t->slices++;
	wsim_calls_thread(tid);
	wsim_core_switch(t->core, t->serial);
}

/* A new thread: its core (the next one) starts no earlier than its creator's clock. */
static void thread_created(ThreadId parent, ThreadId child)
{
	/* The first thread has no parent. */
	if (parent == VG_INVALID_THREADID)
		return;
	totals_catch_up();
	wsim_core_created(thread_of(parent)->core, thread_of(child)->core);
}

static void region_close(ThreadId tid, struct wsim_thread *t, Int i);

/* A thread ends: its open regions end here, its counts are settled, and its id is free for the next thread. */
static void thread_exited(ThreadId tid)
{
	struct wsim_thread *t;
	Int k;

	if (tid >= n_threads_alloc || !(t = threads[tid]))
		return;
	if (tid == cur_tid)
		switch_out();
	while (t->n_act > 0)
		region_close(tid, t, t->n_act - 1);
	wsim_calls_exited(tid);
	if (!retired_c) {
		retired_c = VG_(calloc)("wsim.retired", wsim_cfg.cores, sizeof(*retired_c));
		retired_n = VG_(calloc)("wsim.retired", wsim_cfg.cores, sizeof(*retired_n));
	}
	retired_n[t->core]++;
	for (k = 0; k < WC_N; k++)
		retired_c[t->core][k] += t->acc[k];
	note_brief(t, t->acc[WC_INSTR]);
	VG_(free)(t->act);
	VG_(free)(t);
	threads[tid] = NULL;
}

static void start_client_code(ThreadId tid, ULong blocks_done)
{
	(void)blocks_done;
	wsim_unpack();
	switch_to(tid);
	if (UNLIKELY(tier_n))
		tier_discard(tid);
}

static void thread_now(ThreadId tid, ULong *out)
{
	struct wsim_thread *t = thread_of(tid);
	Int k;

	wsim_cond_flush();
	totals_catch_up();
	for (k = 0; k < WC_N; k++)
		out[k] = t->acc[k] + (tid == cur_tid ? wsim_total[k] - base[k] : 0);
}

static Word region_cmp(const void *a, const void *b)
{
	return VG_(strcmp)(((const struct wsim_region *)a)->name, ((const struct wsim_region *)b)->name);
}

static struct wsim_region *region_for(const HChar *name)
{
	struct wsim_region key, *r;

	key.key = str_hash(name);
	key.name = name;
	r = VG_(HT_gen_lookup)(region_table, &key, region_cmp);
	if (!r) {
		r = VG_(calloc)("wsim.region", 1, sizeof(*r));
		r->key = key.key;
		r->name = intern(name);
		VG_(HT_add_node)(region_table, r);
	}
	return r;
}

static void region_close(ThreadId tid, struct wsim_thread *t, Int i)
{
	ULong now[WC_N];
	struct active *a = &t->act[i];
	Int k;

	thread_now(tid, now);
	for (k = 0; k < WC_N; k++)
		a->r->c[k] += now[k] - a->snap[k];
	for (; i + 1 < t->n_act; i++)
		t->act[i] = t->act[i + 1];
	t->n_act--;
	regions_open--;
}

static void region_begin(ThreadId tid, const HChar *name)
{
	struct wsim_region *r = region_for(name);
	struct wsim_thread *t;
	struct active *a;
	Int i;

	switch_to(tid);
	t = thread_of(tid);
	/* Re-entered while active (recursion): counted once, from the outermost begin to its end. */
	for (i = 0; i < t->n_act; i++) {
		if (t->act[i].r == r) {
			t->act[i].depth++;
			return;
		}
	}
	if (t->n_act == t->cap_act) {
		t->cap_act = t->cap_act ? 2 * t->cap_act : 8;
		t->act = VG_(realloc)("wsim.active", t->act, t->cap_act * sizeof(*t->act));
	}
	a = &t->act[t->n_act++];
	a->r = r;
	a->depth = 1;
	thread_now(tid, a->snap);
	r->entries++;
	if (regions_open++ == 0)
		scope_switch(True);
}

static void region_end(ThreadId tid, const HChar *name)
{
	struct wsim_thread *t;
	Int i;

	switch_to(tid);
	t = thread_of(tid);
	for (i = t->n_act - 1; i >= 0; i--) {
		if (VG_STREQ(t->act[i].r->name, name)) {
			if (--t->act[i].depth == 0) {
				region_close(tid, t, i);
				if (regions_open == 0)
					scope_switch(False);
			}
			return;
		}
	}
	/*
	 * Listed all the same, with no entry and nothing counted: whyslow warns of a region never closed (a
	 * misspelt begin), which a region missing from the output would hide.
	 */
	region_for(name);
	if (VG_(clo_verbosity) > 1)
		VG_(dmsg)("wsim: end of region '%s', which thread %u had not begun; ignored\n", name, tid);
}

/* Copy a NUL-terminated client string, checking each page is readable. False if it is not. */
static Bool client_string(Addr a, HChar *buf, Int max)
{
	Int i;

	if (!a)
		return False;
	for (i = 0; i < max - 1; i++) {
		if ((i == 0 || ((a + i) & (VKI_PAGE_SIZE - 1)) == 0) &&
		    !VG_(am_is_valid_for_client)(a + i, 1, VKI_PROT_READ))
			return False;
		buf[i] = *(const HChar *)(a + i);
		if (!buf[i])
			return True;
	}
	buf[max - 1] = '\0';
	return True;
}

static Bool handle_client_request(ThreadId tid, UWord *args, UWord *ret)
{
	HChar name[256];

	if (!VG_IS_TOOL_USERREQ('W', 'S', args[0]))
		return False;
	switch (args[0]) {
	case WS_REQ_PING:
		totals_go_inline(True);
		*ret = WS_REQ_MAGIC;
		return True;
	case WS_REQ_REGION_BEGIN:
	case WS_REQ_REGION_END:
		totals_go_inline(True);
		*ret = 0;
		if (!client_string(args[1], name, sizeof(name))) {
			if (VG_(clo_verbosity) > 1)
				VG_(dmsg)("wsim: region name at %#lx is not readable; ignored\n", args[1]);
			return True;
		}
		if (args[0] == WS_REQ_REGION_BEGIN)
			region_begin(tid, name);
		else
			region_end(tid, name);
		return True;
	default:
		return False;
	}
}

/* ---- Process life ------------------------------------------------------------------------------------- */

/* The child gets a copy of the predictor's tables: they must not be changing as it is taken. */
static void atfork_parent(ThreadId tid)
{
	(void)tid;
	wsim_cond_quiesce();
}

/* A forked child counts from the fork: zero every count it inherited, keep the simulated machine's state. */
static void atfork_child(ThreadId tid)
{
	struct wsim_fn *fn;
	struct wsim_icc *ic;
	struct wsim_region *r;
	struct sbinfo *sb;
	UInt i;
	Int j;

	wsim_cond_forked();
	VG_(memset)(wsim_packed, 0, sizeof(wsim_packed));
	VG_(memset)(wsim_total, 0, sizeof(wsim_total));
	wsim_core_forked();
	VG_(memset)(base, 0, sizeof(base));
	VG_(HT_ResetIter)(fn_table);
	while ((fn = VG_(HT_Next)(fn_table)))
		VG_(memset)(fn->c, 0, sizeof(fn->c));
	VG_(HT_ResetIter)(icc_table);
	while ((ic = VG_(HT_Next)(icc_table)))
		ic->exec = ic->dmiss = ic->bmiss = ic->cmiss = 0;
	VG_(HT_ResetIter)(region_table);
	while ((r = VG_(HT_Next)(region_table))) {
		r->entries = 0;
		VG_(memset)(r->c, 0, sizeof(r->c));
	}
	VG_(HT_ResetIter)(sb_table);
	while ((sb = VG_(HT_Next)(sb_table)))
		for (j = 0; j < sb->n_seg; j++)
			*seg_count(sb, j) = sb->segs[j].totaled = 0;
	/* Only the forking thread lives on in the child; its open regions count from the fork. */
	threads_seen = 0;
	brief_threads = 0; /* the parent's threads are the parent's to report */
	if (retired_c) {
		VG_(memset)(retired_c, 0, wsim_cfg.cores * sizeof(*retired_c));
		VG_(memset)(retired_n, 0, wsim_cfg.cores * sizeof(*retired_n));
	}
	for (i = 0; i < n_threads_alloc; i++) {
		if (!threads[i])
			continue;
		if (i != tid) {
			VG_(free)(threads[i]->act);
			VG_(free)(threads[i]);
			threads[i] = NULL;
			continue;
		}
		/* The child's first thread, and its report's thread 1 (the contention lines name it). */
		threads[i]->serial = ++threads_seen;
		threads[i]->slices = 1;
		VG_(memset)(threads[i]->acc, 0, sizeof(threads[i]->acc));
		for (j = 0; j < threads[i]->n_act; j++)
			VG_(memset)(threads[i]->act[j].snap, 0, sizeof(threads[i]->act[j].snap));
	}
	cur_tid = tid;
	thread_of(tid);
	wsim_core_switch(threads[tid]->core, threads[tid]->serial);
	wsim_calls_forked(tid);
	/* The child's open regions are its one thread's; the translations stay as they are until a boundary. */
	regions_open = threads[tid]->n_act;
}

static void ws_fini(Int exitcode)
{
	struct wsim_icc *ic;
	struct sbinfo *sb;
	struct wsim_tables tables;
	UInt i;

	wsim_cond_flush();
	if (VG_(clo_verbosity) > 1) {
		ULong watched, unwatched, dropped;

		wsim_cond_report();
		wsim_lines_stats(&watched, &unwatched, &dropped);
		if (wsim_cores_used() > 1)
			VG_(umsg)("wsim: %d cores ran; %llu lines were watched for sharing (%llu of them given up as "
				  "not contended), %llu more were shared but not watched (no room)\n",
				  wsim_cores_used(), watched, unwatched, dropped);
		if (wsim_opt.tier > 0)
			VG_(umsg)("wsim: %llu blocks ran %lld times and were translated again with inline hit tests "
				  "(--ws-tier)\n", tier_ups, wsim_opt.tier);
	}
	VG_(HT_ResetIter)(sb_table);
	while ((sb = VG_(HT_Next)(sb_table)))
		sb_fold(sb);
	VG_(HT_ResetIter)(icc_table);
	while ((ic = VG_(HT_Next)(icc_table)))
		wsim_fold_cond_misses(ic);
	/* Regions still open at exit end there. */
	for (i = 0; i < n_threads_alloc; i++)
		while (threads[i] && threads[i]->n_act > 0)
			region_close(i, threads[i], threads[i]->n_act - 1);
	tables.fns = ht_array(fn_table, &tables.n_fn);
	tables.regions = ht_array(region_table, &tables.n_regions);
	tables.iccs = ht_array(icc_table, &tables.n_iccs);
	tables.threads = threads_seen;
	tables.n_cores = 0;
	tables.core_c = NULL;
	tables.core_threads = NULL;
	if (wsim_cores_used() > 1) {
		tables.n_cores = wsim_cfg.cores;
		tables.core_c = VG_(calloc)("wsim.cores", wsim_cfg.cores, sizeof(*tables.core_c));
		tables.core_threads = VG_(calloc)("wsim.cores", wsim_cfg.cores, sizeof(Int));
		for (i = 0; i < n_threads_alloc; i++) {
			ULong now[WC_N];
			Int k;

			if (!threads[i])
				continue;
			thread_now(i, now);
			note_brief(threads[i], now[WC_INSTR]);
			tables.core_threads[threads[i]->core]++;
			for (k = 0; k < WC_N; k++)
				tables.core_c[threads[i]->core][k] += now[k];
		}
		for (i = 0; retired_c && i < (UInt)wsim_cfg.cores; i++) {
			Int k;

			tables.core_threads[i] += retired_n[i];
			for (k = 0; k < WC_N; k++)
				tables.core_c[i][k] += retired_c[i][k];
		}
	}
	tables.brief_threads = brief_threads;
	tables.n_nodes = wsim_calls_fini(&tables.nodes, &tables.dropped);
	wsim_write_output(exitcode, &tables);
	if (tables.nodes)
		VG_(free)(tables.nodes);
	if (tables.fns)
		VG_(free)(tables.fns);
	if (tables.regions)
		VG_(free)(tables.regions);
	if (tables.iccs)
		VG_(free)(tables.iccs);
	if (tables.core_c) {
		VG_(free)(tables.core_c);
		VG_(free)(tables.core_threads);
	}
}

static void ws_post_clo_init(void)
{
	wsim_config_finish();
	/*
	 * Superblocks are VEX's basic blocks, whatever the command line says. Chasing also turns an
	 * "if (a && b)" shape into straight code, whose instruction marks then count as run whichever way
	 * the first branch went (tests/programs/andor.S: 40,328 instructions counted for 30,660 run), and
	 * unrolling makes the fetch count depend on how far a loop was unrolled. Without either, every count
	 * is the program's own; and with fewer instructions translated twice, translation is cheaper too.
	 */
	VG_(clo_vex_control).guest_chase = False;
	VG_(clo_vex_control).iropt_unroll_thresh = 0;
	/*
	 * Names stay as the symbol tables have them: whyslow demangles (see fn_for), and Valgrind's demangler,
	 * run on every new instruction's function name to find its entry, had cost 4-5% of a C++ compiler's
	 * run (its allocations most of it).
	 */
	VG_(clo_demangle) = False;
	str_table = VG_(HT_construct)("wsim.strings");
	fn_table = VG_(HT_construct)("wsim.functions");
	icc_table = VG_(HT_construct)("wsim.instructions");
	sb_table = VG_(HT_construct)("wsim.superblocks");
	hot_table = VG_(HT_construct)("wsim.hot");
	region_table = VG_(HT_construct)("wsim.regions");
	/* The call tracker charges counts at every change of context: the totals must be exact there. */
	if (wsim_opt.callers)
		totals_inline = True;
	wsim_calls_init();
	wsim_sim_init();
	wsim_cond_start(wsim_opt.async, wsim_opt.cpu_pred);
	/* After the predictor thread starts: it needs a second CPU in the process's mask. */
	if (wsim_opt.cpu_prog >= 0 && !wsim_pin(0, wsim_opt.cpu_prog))
		VG_(umsg)("wsim: warning: could not hold the program's thread to CPU %d\n", wsim_opt.cpu_prog);
	if (VG_(clo_verbosity) > 1) {
		if (wsim_opt.cpu_prog >= 0 && wsim_cond_async())
			VG_(umsg)("wsim: branches are predicted on a second host thread, on CPU %d; the program's "
				  "thread is on CPU %d\n",
				  wsim_opt.cpu_pred, wsim_opt.cpu_prog);
		else if (wsim_opt.cpu_prog >= 0)
			VG_(umsg)("wsim: branches are predicted on this thread, on CPU %d\n", wsim_opt.cpu_prog);
		else
			VG_(umsg)("wsim: branches are predicted on %s\n", wsim_cond_where());
	}
	wsim_l1_info(False, &l1i_info);
	wsim_l1_info(True, &l1d_info);
	/* With a scope, nothing is simulated until a region opens. */
	scope_full = wsim_opt.scope == WSIM_SCOPE_ALL;
	scope_start_ms = VG_(read_millisecond_timer)();
}

static void ws_pre_clo_init(void)
{
	VG_(details_name)("wsim");
	VG_(details_version)("0.1");
	VG_(details_description)("whyslow's cache and branch-predictor simulator");
	VG_(details_copyright_author)("Copyright (C) the whyslow authors; GNU GPL'd.");
	VG_(details_bug_reports_to)("the whyslow issue tracker");
	VG_(details_avg_translation_sizeB)(500);

	/* As cachegrind, so that both see the same IR and count the same events. */
	VG_(clo_vex_control).iropt_register_updates_default = VG_(clo_px_file_backed) = VexRegUpdSpAtMemAccess;

	VG_(basic_tool_funcs)(ws_post_clo_init, ws_instrument, ws_fini);
	VG_(needs_superblock_discards)(discard_superblock_info);
	VG_(needs_command_line_options)(wsim_config_option, wsim_config_usage, wsim_config_debug_usage);
	VG_(needs_client_requests)(handle_client_request);
	VG_(track_start_client_code)(start_client_code);
	VG_(track_pre_thread_ll_create)(thread_created);
	VG_(track_pre_thread_ll_exit)(thread_exited);
	VG_(atfork)(atfork_parent, NULL, atfork_child);
}

VG_DETERMINE_INTERFACE_VERSION(ws_pre_clo_init)
