/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wsim-sim.c - the simulated core: caches, prefetchers, branch predictors, and the helpers generated code calls. */

/*
 * Everything on the per-access path lives in this one file so that the compiler can inline the cache look-ups
 * into the helpers; the caches are file-scope objects so their addresses are constants.
 *
 * Caches are set-associative with true LRU, kept as cachegrind keeps it: each set is an array of tags, most
 * recently used first, shifted on every reference that is not already the most recent. Two encodings exist:
 * the cachegrind preset stores block numbers exactly as cachegrind does, so that its counts can be checked
 * against cachegrind's to the unit; the full model stores (block << 1 | p), where p marks a line brought in
 * by a prefetch and not yet used. Caches are write-allocate and have no dirty state, again like cachegrind.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"

#include "wsim.h"

/* The process totals (wsim.h): the core's counts, added to here by generated code and the helpers. */
ULong wsim_total[WC_N];
ULong wsim_packed[2];

void wsim_unpack(void)
{
	wsim_total[WC_INSTR] += wsim_packed[0] & 0xffffffffULL;
	wsim_total[WC_LOAD] += wsim_packed[0] >> 32;
	wsim_total[WC_STORE] += wsim_packed[1] & 0xffffffffULL;
	wsim_total[WC_IFETCH] += wsim_packed[1] >> 32;
	wsim_packed[0] = wsim_packed[1] = 0;
}

#define NONE (~(UWord)0)

/* The per-access path must be inlined into each helper: called, it is markedly slower (cachegrind found 40%). */
#define HOT static inline __attribute__((always_inline))

/*
 * An event of `fn`'s: in the totals, the function, and the calling context it ran in (wsim-calls.c), which
 * takes loads and stores (the guarded ones counted here) from the totals with the others of its segments.
 */
#define CNT(fn, k)                                         \
	do {                                               \
		wsim_total[k]++;                           \
		(fn)->c[k]++;                              \
		if ((k) != WC_LOAD && (k) != WC_STORE)     \
			wsim_cs_node->c[k]++;              \
	} while (0)

struct cache {
	UWord *tags;
	UWord set_mask; /* sets - 1 when sets is a power of two */
	UInt sets, assoc, line_bits;
	Bool pow2, inclusive;
};

static struct cache L1I, L1D, OUTER[WSIM_MAX_OUTER];
static Int n_outer;

/*
 * The first levels' tag arrays live in the tool's own data, below 2 GB, when they fit: generated code then
 * reaches a set with the array's address as a 32-bit displacement, where a heap address costs a 64-bit
 * constant loaded and added at every access it tests inline.
 */
#define L1_STATIC_WORDS 8192 /* 64 KB each: up to 512 KB of 64-byte lines */
static UWord l1_static[2][L1_STATIC_WORDS] __attribute__((aligned(64)));

void *wsim_calloc64(const HChar *cc, SizeT n)
{
	UWord raw = (UWord)VG_(calloc)(cc, 1, n + 64);

	return (void *)((raw + 63) & ~(UWord)63);
}

void *wsim_tid_entry(void ***tab, UInt *n_alloc, ThreadId tid, const HChar *cc, SizeT size, Bool *fresh)
{
	*fresh = False;
	if (tid >= *n_alloc) {
		UInt n = tid + 16, i;

		*tab = VG_(realloc)(cc, *tab, n * sizeof(**tab));
		for (i = *n_alloc; i < n; i++)
			(*tab)[i] = NULL;
		*n_alloc = n;
	}
	if (!(*tab)[tid]) {
		(*tab)[tid] = VG_(calloc)(cc, 1, size);
		*fresh = True;
	}
	return (*tab)[tid];
}

/*
 * A tag array on the heap, aligned to host lines: an 8-way set is then one host line, not two in three
 * cases of four, and a 16-way set two.
 */
static UWord *tags_alloc(UWord n)
{
	return wsim_calloc64("wsim.cache", n * sizeof(UWord));
}

static void cache_init(struct cache *c, const struct wsim_cache_cfg *cfg, UWord *pool)
{
	UInt i, n;

	c->assoc = cfg->assoc;
	c->sets = cfg->size / (cfg->line * cfg->assoc);
	c->line_bits = VG_(log2)(cfg->line);
	c->pow2 = VG_(log2)(c->sets) >= 0;
	c->set_mask = c->sets - 1;
	c->inclusive = cfg->inclusive;
	n = c->sets * c->assoc;
	c->tags = pool && n <= L1_STATIC_WORDS ? pool : tags_alloc(n);
	for (i = 0; i < n; i++)
		c->tags[i] = NONE;
}

HOT UWord *set_of(const struct cache *c, UWord block)
{
	UWord s = LIKELY(c->pow2) ? (block & c->set_mask) : (block % c->sets);

	return c->tags + s * c->assoc;
}

/* ---- The cachegrind-exact caches ---------------------------------------------------------------------- */

/* One line: True on a miss. The block becomes the most recently used either way. */
HOT Bool cg_line(const struct cache *c, UWord block)
{
	UWord *set = set_of(c, block);
	UInt i, j;

	if (set[0] == block)
		return False;
	for (i = 1; i < c->assoc; i++) {
		if (set[i] == block) {
			for (j = i; j > 0; j--)
				set[j] = set[j - 1];
			set[0] = block;
			return False;
		}
	}
	for (j = c->assoc - 1; j > 0; j--)
		set[j] = set[j - 1];
	set[0] = block;
	return True;
}

/* An access of `size` bytes: one reference; both lines are looked up when it straddles, a miss in either
 * is one miss. */
HOT Bool cg_ref(const struct cache *c, Addr a, UWord size)
{
	UWord b1 = a >> c->line_bits, b2 = (a + size - 1) >> c->line_bits;

	if (LIKELY(b1 == b2))
		return cg_line(c, b1);
	if (cg_line(c, b1)) {
		cg_line(c, b2);
		return True;
	}
	return cg_line(c, b2);
}

/* The access itself is counted by the caller (inline, per segment); this simulates it and counts misses. */
HOT void cg_fetch(struct wsim_icc *ic)
{
	struct wsim_fn *fn = ic->fn;

	if (cg_ref(&L1I, ic->addr, ic->len)) {
		CNT(fn, WC_IFETCH_MISS);
		if (cg_ref(&OUTER[0], ic->addr, ic->len))
			CNT(fn, WC_LL_IFETCH_MISS);
	}
}

HOT void cg_data(struct wsim_icc *ic, Addr a, UWord size, Bool store)
{
	struct wsim_fn *fn = ic->fn;

	if (store) {
		if (cg_ref(&L1D, a, size)) {
			CNT(fn, WC_STORE_MISS);
			ic->dmiss++;
			if (cg_ref(&OUTER[0], a, size))
				CNT(fn, WC_LL_STORE_MISS);
		}
	} else {
		if (cg_ref(&L1D, a, size)) {
			CNT(fn, WC_LOAD_MISS);
			CNT(fn, WC_LL_LOAD);
			ic->dmiss++;
			if (cg_ref(&OUTER[0], a, size))
				CNT(fn, WC_LL_LOAD_MISS);
		}
	}
}

/* ---- The full model's caches -------------------------------------------------------------------------- */

/*
 * Look up `block`, making it the most recently used. A hit returns False and sets *pf when the line was an
 * unused prefetch (the mark is cleared: it has now been used). A miss returns True, installs the block and
 * leaves the block it displaced in *victim (NONE when that way was empty).
 */
/*
 * The ways of `set` whose tag is `key` (low bits compared as 1), as a mask with bit 2*w set for way w: two
 * ways per SSE2 compare (32-bit lanes; a way matches when both its halves do), and no early exit, which
 * the host would mispredict at every miss. Associativities up to 32.
 */
typedef ULong v2ul __attribute__((vector_size(16)));
typedef Int v4si __attribute__((vector_size(16)));
typedef float v4sf __attribute__((vector_size(16)));

HOT ULong match_pairs(const UWord *set, UInt assoc, UWord key)
{
	v2ul k = { key, key }, one = { 1, 1 };
	ULong m = 0;
	UInt i;

#pragma GCC unroll 16
	for (i = 0; i < assoc; i += 2) {
		v2ul v;

		__builtin_memcpy(&v, set + i, sizeof(v));
		v = v | one;
		m |= (ULong)__builtin_ia32_movmskps((v4sf)__builtin_ia32_pcmpeqd128((v4si)v, (v4si)k)) << (2 * i);
	}
	return m & (m >> 1) & 0x5555555555555555ULL;
}

HOT ULong match_ways(const UWord *set, UInt assoc, UWord key)
{
	ULong m = 0;
	UInt i;

	/* Constant trip counts for the usual associativities, so the compares are unrolled. */
	if (assoc == 8)
		return match_pairs(set, 8, key);
	if (assoc == 16)
		return match_pairs(set, 16, key);
	if (assoc % 2 == 0)
		return match_pairs(set, assoc, key);
	for (i = 0; i < assoc; i++)
		m |= (ULong)((set[i] | 1) == key) << (2 * i);
	return m;
}

/* Ways 0..n-1 move to 1..n (n odd): read in pairs first, then written one place on. */
HOT void shift_pairs(UWord *set, UInt n)
{
	v2ul v[8];
	UWord last = set[n - 1];
	UInt j;

#pragma GCC unroll 8
	for (j = 0; j + 1 < n; j += 2)
		__builtin_memcpy(&v[j / 2], set + j, sizeof(v2ul));
#pragma GCC unroll 8
	for (j = 0; j + 1 < n; j += 2)
		__builtin_memcpy(set + j + 1, &v[j / 2], sizeof(v2ul));
	set[n] = last;
}

/* Move ways 0..n-1 to 1..n, making room at the front: a whole set at once for the usual sizes. */
HOT void shift_down(UWord *set, UInt n)
{
	UInt j;

	if (n == 7) {
		shift_pairs(set, 7);
		return;
	}
	if (n == 15) {
		shift_pairs(set, 15);
		return;
	}
	for (j = n; j > 0; j--)
		set[j] = set[j - 1];
}

HOT Bool gen_line(const struct cache *c, UWord block, UWord *victim, Bool *pf)
{
	UWord *set = set_of(c, block), key = (block << 1) | 1, e;
	ULong m;
	UInt i;

	e = set[0];
	if ((e | 1) == key) {
		if (UNLIKELY(e & 1)) {
			set[0] = e & ~(UWord)1;
			*pf = True;
		}
		return False;
	}
	m = match_ways(set, c->assoc, key);
	if (m) {
		i = __builtin_ctzll(m) / 2;
		e = set[i];
		shift_down(set, i);
		if (e & 1)
			*pf = True;
		set[0] = e & ~(UWord)1;
		return False;
	}
	e = set[c->assoc - 1];
	*victim = e == NONE ? NONE : e >> 1;
	shift_down(set, c->assoc - 1);
	set[0] = block << 1;
	return True;
}

/* Remove `block` from `c` if present, keeping the order of the others. */
static void gen_invalidate(const struct cache *c, UWord block)
{
	UWord *set = set_of(c, block);
	ULong m = match_ways(set, c->assoc, (block << 1) | 1);
	UInt j;

	if (LIKELY(!m))
		return;
	for (j = __builtin_ctzll(m) / 2; j + 1 < c->assoc; j++)
		set[j] = set[j + 1];
	set[c->assoc - 1] = NONE;
}

/* Inclusion: `block` left outer level `lvl`, so it leaves every level nearer the core too. */
static void back_invalidate(Int lvl, UWord block)
{
	Addr lo = block << OUTER[lvl].line_bits, hi = lo + ((Addr)1 << OUTER[lvl].line_bits);
	Addr a;
	Int i;

	for (a = lo; a < hi; a += (Addr)1 << L1D.line_bits)
		gen_invalidate(&L1D, a >> L1D.line_bits);
	for (a = lo; a < hi; a += (Addr)1 << L1I.line_bits)
		gen_invalidate(&L1I, a >> L1I.line_bits);
	for (i = 0; i < lvl; i++)
		for (a = lo; a < hi; a += (Addr)1 << OUTER[i].line_bits)
			gen_invalidate(&OUTER[i], a >> OUTER[i].line_bits);
}

/*
 * Bring the line holding byte address `a` in from the outer levels, filling every level it missed on the
 * way (non-inclusive levels keep what they hold; inclusive ones evict from the levels above). Returns the
 * depth it was found at: 0 for the first outer level, n_outer for memory.
 */
static Int outer_fill(Addr a)
{
	Int i;

	/* The outer tag arrays are megabytes: start fetching every set this may visit at once, so that the
	 * host's cache misses on them overlap instead of queueing one behind the other. */
	for (i = 0; i < n_outer; i++) {
		const UWord *set = set_of(&OUTER[i], a >> OUTER[i].line_bits);
		UInt k;

		/* Every host line of the set: the second half of a 16-way set missed on its own. */
		for (k = 0; k < OUTER[i].assoc; k += 8)
			__builtin_prefetch(set + k);
		__builtin_prefetch(set + OUTER[i].assoc - 1);
	}
	for (i = 0; i < n_outer; i++) {
		const struct cache *c = &OUTER[i];
		UWord victim = NONE;
		Bool pf = False;

		if (!gen_line(c, a >> c->line_bits, &victim, &pf))
			return i;
		if (c->inclusive && victim != NONE)
			back_invalidate(i, victim);
	}
	return n_outer;
}

/* ---- Prefetchers ----------------------------------------------------------------------------------------- */

/*
 * Both prefetch into L1d and have no timing: a prefetched line is present at once, so "used" means a demand
 * access found it there before it was evicted. They train on L1d load misses and on the first use of a
 * prefetched line, as tagged prefetchers do, which keeps them off the hit path.
 *
 * The next-line prefetcher fetches line b+1 when a load misses line b right after one of the last four
 * misses was to line b-1 (an ascending stream, as Intel's L1 next-line prefetcher waits for), and keeps a
 * stream going on each first use of a line it prefetched. Random misses do not trigger it. The stride
 * prefetcher keeps, per load instruction (256 entries, by address), the last address and stride, and once
 * the same stride has been seen twice running it fetches the line one stride ahead.
 */
#define STRIDE_ENTRIES 256

struct stride_ent {
	Addr pc;
	Addr last;
	Long stride;
	UInt conf;
};

static struct stride_ent stride_tab[STRIDE_ENTRIES];

static void prefetch_line(struct wsim_fn *fn, UWord block)
{
	UWord *set = set_of(&L1D, block), key = (block << 1) | 1;

	if (match_ways(set, L1D.assoc, key))
		return;
	shift_down(set, L1D.assoc - 1);
	set[0] = key;
	outer_fill(block << L1D.line_bits);
	CNT(fn, WC_PF);
}

static void stride_train(struct wsim_icc *ic, Addr a)
{
	struct stride_ent *e = &stride_tab[(ic->addr ^ (ic->addr >> 8)) & (STRIDE_ENTRIES - 1)];
	Long d;

	if (e->pc != ic->addr) {
		e->pc = ic->addr;
		e->last = a;
		e->stride = 0;
		e->conf = 0;
		return;
	}
	d = (Long)(a - e->last);
	e->last = a;
	if (d == 0)
		return;
	if (d == e->stride) {
		if (e->conf < 3)
			e->conf++;
	} else {
		e->stride = d;
		e->conf = 0;
	}
	if (e->conf >= 2) {
		UWord next = (a + e->stride) >> L1D.line_bits;

		if (next != a >> L1D.line_bits)
			prefetch_line(ic->fn, next);
	}
}

static UWord recent_miss[4];
static UInt recent_next;

static void prefetch_trigger(struct wsim_icc *ic, Addr a, Bool pf_hit)
{
	UWord b = a >> L1D.line_bits;

	if (wsim_cfg.pf_nextline) {
		if (pf_hit || recent_miss[0] == b - 1 || recent_miss[1] == b - 1 || recent_miss[2] == b - 1 ||
		    recent_miss[3] == b - 1)
			prefetch_line(ic->fn, b + 1);
		if (!pf_hit) {
			recent_miss[recent_next] = b;
			recent_next = (recent_next + 1) & 3;
		}
	}
	if (wsim_cfg.pf_stride)
		stride_train(ic, a);
}

/* ---- The full model's accesses ------------------------------------------------------------------------ */

HOT void count_depth(struct wsim_fn *fn, Int depth, enum wsim_counter l2, enum wsim_counter ll)
{
	if (n_outer == 2 && depth >= 1)
		CNT(fn, l2);
	if (depth == n_outer)
		CNT(fn, ll);
}

/* The running thread's number (1 the first, then in creation order), for the contention report. */
static UInt line_tid;
static struct wsim_fn warm_fn;
static Bool coh_on; /* a second core has run: lines found in two cores' caches are watched */
static __attribute__((noinline)) void coh_data(struct wsim_icc *ic, Addr a, UWord size, Bool store, Bool rmw);

/* An access on the running core; True when it missed L1d. */
HOT Bool gen_data_body(struct wsim_icc *ic, Addr a, UWord size, Bool store)
{
	struct wsim_fn *fn = ic->fn;
	UWord b1 = a >> L1D.line_bits, b2 = (a + size - 1) >> L1D.line_bits, victim;
	Bool pf1 = False, pf2 = False, m1, m2 = False;
	Int depth = -1, d;

	m1 = gen_line(&L1D, b1, &victim, &pf1);
	if (UNLIKELY(b1 != b2))
		m2 = gen_line(&L1D, b2, &victim, &pf2);
	if (UNLIKELY(pf1))
		CNT(fn, WC_PF_USED);
	if (UNLIKELY(pf2))
		CNT(fn, WC_PF_USED);
	if (m1) {
		/*
		 * The guest's line is the host's too, and a load's helper runs before the load (wsim-main.c):
		 * fetching it now overlaps the program's own miss with the outer levels' tag look-ups. A
		 * prefetch never faults, so an address the load will fault on costs nothing more. A store's
		 * helper runs after the store, whose line is then in the host's cache already.
		 */
		if (!store)
			__builtin_prefetch((const void *)a);
		depth = outer_fill(b1 << L1D.line_bits);
	}
	if (m2) {
		d = outer_fill(b2 << L1D.line_bits);
		if (d > depth)
			depth = d;
	}
	if (store) {
		if (depth >= 0) {
			CNT(fn, WC_STORE_MISS);
			ic->dmiss++;
			count_depth(fn, depth, WC_L2_STORE_MISS, WC_LL_STORE_MISS);
		}
		return depth >= 0;
	}
	if (depth >= 0) {
		CNT(fn, WC_LOAD_MISS);
		ic->dmiss++;
		if (depth >= n_outer - 1)
			CNT(fn, WC_LL_LOAD);
		count_depth(fn, depth, WC_L2_LOAD_MISS, WC_LL_LOAD_MISS);
	}
	if ((depth >= 0 || pf1 || pf2) && (wsim_cfg.pf_nextline || wsim_cfg.pf_stride))
		prefetch_trigger(ic, a, depth < 0);
	return depth >= 0;
}

HOT void gen_data(struct wsim_icc *ic, Addr a, UWord size, Bool store)
{
	/* One core, or a single thread so far: nothing can be shared, and nothing else is done. */
	if (UNLIKELY(coh_on)) {
		coh_data(ic, a, size, store, False);
		return;
	}
	gen_data_body(ic, a, size, store);
}

HOT void gen_fetch(struct wsim_icc *ic)
{
	struct wsim_fn *fn = ic->fn;
	UWord b1 = ic->addr >> L1I.line_bits, b2 = (ic->addr + ic->len - 1) >> L1I.line_bits, victim;
	Bool pf = False, m1, m2 = False;
	Int depth = -1, d;

	m1 = gen_line(&L1I, b1, &victim, &pf);
	if (UNLIKELY(b1 != b2))
		m2 = gen_line(&L1I, b2, &victim, &pf);
	if (LIKELY(!m1 && !m2))
		return;
	if (m1)
		depth = outer_fill(b1 << L1I.line_bits);
	if (m2) {
		d = outer_fill(b2 << L1I.line_bits);
		if (d > depth)
			depth = d;
	}
	CNT(fn, WC_IFETCH_MISS);
	count_depth(fn, depth, WC_L2_IFETCH_MISS, WC_LL_IFETCH_MISS);
}

/* ---- Helpers called from generated code --------------------------------------------------------------- */

/*
 * Generated code counts every access itself (statically, per segment) and calls these only when the access
 * is not a certain hit: a hit on the most recently used line of its set changes no state, so it is tested
 * inline. The "_counted" ones are for guarded accesses, which are counted only when their guard holds.
 */

/*
 * The first thing they try: most of the accesses that reach them hit the second most recent way (on
 * bench/sim-speed.sh's workloads, 70-99% of the L1d hits that reached a helper: 69.6 of 70.4 million on the
 * mix, 9.0 of 12.9 million on xz). Such a hit on a line without the low bit (no unused prefetch, no line the
 * coherence model watches) only swaps the two ways, all that gen_line and its callers would do, in a few
 * instructions. Testing that way inline as well, with guarded stores, made every access's generated code
 * longer, and sort and xz slower for it.
 */
static inline Bool l1_way1_line(const struct cache *c, UWord b)
{
	UWord *set;

	if (c->assoc < 2)
		return False;
	set = set_of(c, b);
	if (set[1] != b << 1)
		return False;
	set[1] = set[0];
	set[0] = b << 1;
	return True;
}

static inline Bool l1_way1(const struct cache *c, Addr a, UWord size)
{
	UWord b = a >> c->line_bits;

	if (UNLIKELY((a + size - 1) >> c->line_bits != b))
		return False;
	return l1_way1_line(c, b);
}

VG_REGPARM(1) void wsim_h_fetch(struct wsim_icc *ic)
{
	if (l1_way1(&L1I, ic->addr, ic->len))
		return;
	gen_fetch(ic);
}

/* The same for an instruction within line `b`, given by the code: `ic` is read only on a miss. */
VG_REGPARM(2) void wsim_h_fetch_line(struct wsim_icc *ic, UWord b)
{
	if (l1_way1_line(&L1I, b))
		return;
	gen_fetch(ic);
}

/* Line `b` is the most recent of its set (no low bit), or is made so by l1_way1_line's swap. */
static inline Bool l1_way01_line(const struct cache *c, UWord b)
{
	return set_of(c, b)[0] == b << 1 || l1_way1_line(c, b);
}

/*
 * An instruction over lines `b` and b + 1, given by the code. wsim_h_fetch reads the record and sends
 * every such instruction to gen_fetch: on the Python loop of bench/sim-speed.sh it was 3% of the run,
 * most of it the record's cache miss. Where both lines are in the two most recent ways of their sets,
 * making each the most recent is all gen_fetch would do. Where the second is not, gen_fetch takes both,
 * and finds the first already the most recent, which changes nothing: the model sees the same either way.
 */
VG_REGPARM(2) void wsim_h_fetch_two(struct wsim_icc *ic, UWord b)
{
	if (l1_way01_line(&L1I, b) && l1_way01_line(&L1I, b + 1))
		return;
	gen_fetch(ic);
}

VG_REGPARM(3) void wsim_h_load(struct wsim_icc *ic, Addr a, UWord size)
{
	if (l1_way1(&L1D, a, size))
		return;
	gen_data(ic, a, size, False);
}

VG_REGPARM(3) void wsim_h_store(struct wsim_icc *ic, Addr a, UWord size)
{
	if (l1_way1(&L1D, a, size))
		return;
	gen_data(ic, a, size, True);
}

VG_REGPARM(3) void wsim_h_rmw(struct wsim_icc *ic, Addr a, UWord size)
{
	if (l1_way1(&L1D, a, size))
		return;
	if (UNLIKELY(coh_on))
		coh_data(ic, a, size, False, True);
	else
		gen_data_body(ic, a, size, False);
}

VG_REGPARM(2) void wsim_h_load_s(UWord ics, Addr a)
{
	wsim_h_load(WSIM_ICS_IC(ics), a, ics & WSIM_ICS_SIZE);
}

VG_REGPARM(2) void wsim_h_store_s(UWord ics, Addr a)
{
	wsim_h_store(WSIM_ICS_IC(ics), a, ics & WSIM_ICS_SIZE);
}

VG_REGPARM(2) void wsim_h_rmw_s(UWord ics, Addr a)
{
	wsim_h_rmw(WSIM_ICS_IC(ics), a, ics & WSIM_ICS_SIZE);
}

VG_REGPARM(3) void wsim_h_load_counted(struct wsim_icc *ic, Addr a, UWord size)
{
	CNT(ic->fn, WC_LOAD);
	gen_data(ic, a, size, False);
}

VG_REGPARM(3) void wsim_h_store_counted(struct wsim_icc *ic, Addr a, UWord size)
{
	CNT(ic->fn, WC_STORE);
	gen_data(ic, a, size, True);
}

VG_REGPARM(1) void wsim_h_cg_fetch(struct wsim_icc *ic)
{
	cg_fetch(ic);
}

VG_REGPARM(3) void wsim_h_cg_load(struct wsim_icc *ic, Addr a, UWord size)
{
	cg_data(ic, a, size, False);
}

VG_REGPARM(3) void wsim_h_cg_store(struct wsim_icc *ic, Addr a, UWord size)
{
	cg_data(ic, a, size, True);
}

VG_REGPARM(3) void wsim_h_cg_load_counted(struct wsim_icc *ic, Addr a, UWord size)
{
	CNT(ic->fn, WC_LOAD);
	cg_data(ic, a, size, False);
}

VG_REGPARM(3) void wsim_h_cg_store_counted(struct wsim_icc *ic, Addr a, UWord size)
{
	CNT(ic->fn, WC_STORE);
	cg_data(ic, a, size, True);
}

/*
 * Outside the regions with --ws-scope=regions-warm: the caches and prefetchers see every access, so that a
 * region starts with them as a whole simulation would have them, but nothing is counted (the access is
 * made on a cost centre of its own, and the totals it moves are put back). The branch predictors are not
 * trained there.
 */
static struct wsim_fn warm_fn;
static struct wsim_icc warm_icc = { .fn = &warm_fn };

/* The totals an access can move, from the fetch misses to the prefetches (wsim.h's order). */
#define WARM_FIRST WC_IFETCH_MISS
#define WARM_N (WC_PF_USED - WC_IFETCH_MISS + 1)

VG_REGPARM(2) void wsim_h_warm_fetch(UWord pc, UWord len)
{
	ULong saved[WARM_N];
	Int k;

	for (k = 0; k < WARM_N; k++)
		saved[k] = wsim_total[WARM_FIRST + k];
	warm_icc.addr = pc;
	warm_icc.len = (UChar)len;
	if (wsim_cfg.cg)
		cg_fetch(&warm_icc);
	else
		gen_fetch(&warm_icc);
	for (k = 0; k < WARM_N; k++)
		wsim_total[WARM_FIRST + k] = saved[k];
}

static void warm_data(UWord pc, Addr a, UWord size, Bool store)
{
	ULong saved[WARM_N];
	Int k;

	for (k = 0; k < WARM_N; k++)
		saved[k] = wsim_total[WARM_FIRST + k];
	warm_icc.addr = pc;
	if (wsim_cfg.cg)
		cg_data(&warm_icc, a, size, store);
	else
		gen_data(&warm_icc, a, size, store);
	for (k = 0; k < WARM_N; k++)
		wsim_total[WARM_FIRST + k] = saved[k];
}

VG_REGPARM(3) void wsim_h_warm_load(UWord pc, Addr a, UWord size)
{
	warm_data(pc, a, size, False);
}

VG_REGPARM(3) void wsim_h_warm_store(UWord pc, Addr a, UWord size)
{
	warm_data(pc, a, size, True);
}

void wsim_l1_info(Bool data, struct wsim_l1_info *info)
{
	const struct cache *c = data ? &L1D : &L1I;

	info->tags = c->tags;
	info->line_bits = c->line_bits;
	info->set_mask = c->set_mask;
	info->assoc = c->assoc;
	info->pow2 = c->pow2;
}

/* ---- Conditional branch predictors -------------------------------------------------------------------- */

/*
 * cachegrind's predictor, to the bit: 16384 2-bit counters indexed by 7 bits of global history above 7 bits
 * of the branch address (so strictly a gselect), all counters starting at 0.
 */
#define BIM_HIST_BITS 7
#define BIM_ADDR_BITS 7

/*
 * The predictors' scalars, which the predictor thread (below) writes all the time, on cache lines of their
 * own: sharing one with a variable that generated code writes would bounce it between the two CPUs.
 */
#define OWN_LINE __attribute__((aligned(64)))

static struct OWN_LINE {
	UWord bim_hist;
	UWord gs_hist;
	ULong tage_h0, tage_h1; /* the last 128 outcomes, newest in bit 0 of h0 */
	UInt tage_use_alt8; /* TAGE's use_alt counter (-8..7) plus 8 */
	UInt tage_lfsr;
	UInt tage_tick;
	ULong async_misses; /* mispredictions found on the predictor thread */
	ULong busy_ticks;   /* TSC ticks it spent predicting (for -v) */
	ULong *mark_target; /* where mispredictions go until the next marker (wsim_cond_mark) */
} ps = { .tage_lfsr = 0xACE1u };

/* Mispredictions before the first marker, which call tracking never leaves: none. */
static ULong unmarked;

static UChar bim_ctr[1 << (BIM_HIST_BITS + BIM_ADDR_BITS)];

/*
 * Saturating counters move through tables, not branches: simulated outcomes are as unpredictable to the
 * host as to the simulated core, and a host misprediction per update would cost more than the update.
 */
static const UChar sat2[2][4] = { { 0, 0, 1, 2 }, { 1, 2, 3, 3 } }; /* [taken][counter] */
#define sat2_flat (&sat2[0][0]) /* [taken << 2 | counter] */

static Bool bimodal_mispredict(Addr pc, Bool taken)
{
	UWord i = ((ps.bim_hist & ((1 << BIM_HIST_BITS) - 1)) << BIM_ADDR_BITS) | (pc & ((1 << BIM_ADDR_BITS) - 1));
	Bool pred = bim_ctr[i] >= 2;

	ps.bim_hist = (ps.bim_hist << 1) | taken;
	bim_ctr[i] = sat2[taken][bim_ctr[i]];
	return pred != taken;
}

/* gshare: 2^bits 2-bit counters indexed by the address xor as many bits of global history. */
static UChar *gs_ctr;
static UWord gs_mask;

static Bool gshare_mispredict(Addr pc, Bool taken)
{
	UWord i = (pc ^ ps.gs_hist) & gs_mask;
	Bool pred = gs_ctr[i] >= 2;

	ps.gs_hist = ((ps.gs_hist << 1) | taken) & gs_mask;
	gs_ctr[i] = sat2[taken][gs_ctr[i]];
	return pred != taken;
}

/*
 * A TAGE-like predictor (after Seznec and Michaud): a bimodal base table and four tagged tables indexed by
 * the address hashed with the last 4, 12, 36 and 108 outcomes of conditional branches (geometric lengths).
 * The longest matching table provides the prediction; a newly allocated entry defers to the next-longest
 * match while a global counter says that works better; a misprediction allocates an entry in a longer
 * table; the "useful" bits age by halving every 256K branches. Deterministic: allocation uses a fixed LFSR.
 *
 * Two departures keep it cheap to simulate. The history lives in two 64-bit words and each table hashes its
 * slice by multiplication, where TAGE's folded registers cost a dozen updates per branch. And a filter bit
 * per branch address (hashed), set when a tagged entry is allocated for it, lets the branches the base table
 * alone has predicted since the filter was last cleared skip the tagged tables. The filter is cleared with
 * each ageing, so that a branch which mispredicted once, long ago (a loop's exit) goes back to the base
 * table; its next misprediction sets the bit again. On a hash-table and binary-search mix this sends a
 * quarter of the branches to the base table alone, against a twentieth when the bits were never cleared,
 * for 8% less time per branch, and mispredicts no more.
 */
#define TAGE_NT 4
#define TAGE_BITS 10
#define TAGE_TAG_BITS 10
#define TAGE_BASE_BITS 13
#define TAGE_FILTER_BITS 16

/*
 * The counter (bits 0-2: 0..7, taken when >= 4; 3 and 4 are the weak states) and how useful the entry has
 * been (bits 3-4) share a byte, which is then tage_step's index as it stands.
 */
#define TAGE_CTR(cu) ((cu) & 7)
#define TAGE_U(cu) ((cu) >> 3)
#define TAGE_U1 8 /* the useful bits' unit */

struct tage_ent {
	UChar cu;
	UChar unused;
	UShort tag;
};

static const UChar sat3[2][8] = { { 0, 0, 1, 2, 3, 4, 5, 6 }, { 1, 2, 3, 4, 5, 6, 7, 7 } }; /* [taken][ctr] */

static struct tage_ent tage_tab[TAGE_NT][1 << TAGE_BITS];

/*
 * The provider's update as one table look-up: indexed by its counter and useful bits (bits 0-4, the entry's
 * cu), the alternate entry's prediction (5), whether an alternate entry matched (6), whether use_alt is
 * non-negative (7), the outcome (8) and the base counter (9-10), it gives the entry's new cu (bits 0-7),
 * the prediction (16), whether use_alt moves (17), whether the alternate was right (18) and the base
 * counter's new value (19-20). Made by tage_init from the rules spelt out there. Looked up, the rules cost
 * no host mispredictions of their own: the branches the compiler made of them, on bits as unpredictable to
 * the host as the simulated branches, cost 0.3 of one per branch (0.67 against 0.38, counted by wsim on a
 * replay of the workload's sort and binary searches), and the predictor thread's time on
 * bench/sim-speed.sh's workload fell by 5%. The loop is bound by its instructions (about four a cycle), so
 * each one folded in here counts: the base counter's update, 7 instructions a branch, another 2-3%.
 */
static UInt tage_step[1 << 11];
/*
 * And use_alt's next value, looked up too (3-4% less time per branch in a replay of the workload's second
 * half, with the base counter's, for 7 fewer instructions per branch), indexed by whether it moves and
 * whether up (bits 17-18 above) and its value now, all plus 8 (-8..7, saturating).
 */
static UChar use_alt_next[4 * 16];
static UChar tage_base[1 << TAGE_BASE_BITS];
static UChar tage_filter[1 << (TAGE_FILTER_BITS - 3)];

static void tage_init(void)
{
	Int i, j;

	for (i = 0; i < TAGE_NT; i++) {
		for (j = 0; j < (1 << TAGE_BITS); j++) {
			tage_tab[i][j].cu = 4; /* weakly taken, not useful */
			tage_tab[i][j].tag = 0xffff; /* never a valid tag */
		}
	}
	for (j = 0; j < (1 << TAGE_BASE_BITS); j++)
		tage_base[j] = 2; /* weakly taken */
	ps.tage_use_alt8 = 8; /* 0 */
	for (i = 0; i < 4; i++) {
		for (j = 0; j < 16; j++) {
			Int v = j - 8, up = i >> 1;

			use_alt_next[i * 16 + j] = 8 + (!(i & 1) ? v : up ? (v < 7 ? v + 1 : 7) : (v > -8 ? v - 1 : -8));
		}
	}
	for (j = 0; j < (1 << 11); j++) {
		UInt c = j & 7, u = (j >> 3) & 3, has_alt = (j >> 6) & 1, b = (j >> 9) & 3;
		UInt use_alt_on = (j >> 7) & 1, taken = (j >> 8) & 1, prov_pred = c >= 4;
		/* The alternate: the next-longest matching entry, else the base. */
		UInt alt_pred = has_alt ? (j >> 5) & 1 : b >= 2;
		/* A new entry (weak counter, not useful yet) defers to the alternate while use_alt says so. */
		UInt weak = (c == 3 || c == 4) && u == 0, differ = prov_pred != alt_pred;
		UInt pred = weak && use_alt_on ? alt_pred : prov_pred;
		/* Useful bits move only when provider and alternate disagree. */
		UInt nu = differ ? sat2[prov_pred == taken][u] : u;

		/* The base learns when it was the alternate of a new entry. */
		UInt nb = weak && !has_alt ? sat2[taken][b] : b;

		tage_step[j] = sat3[taken][c] | nu * TAGE_U1 | pred << 16 | (UInt)(weak && differ) << 17 |
			       (UInt)(alt_pred == taken) << 18 | nb << 19;
	}
}

/* Table i's entry and tag for the branch whose address's share of table i's hash is pch, under history (h0, h1). */
HOT struct tage_ent *tage_lookup(Int i, ULong pch, ULong h0, ULong h1, UInt *tag)
{
	ULong h;

	switch (i) {
	case 0: h = (h0 & 0xf) * 0x9E3779B97F4A7C15ULL; break;
	case 1: h = (h0 & 0xfff) * 0x9E3779B97F4A7C15ULL; break;
	case 2: h = (h0 & 0xfffffffffULL) * 0x9E3779B97F4A7C15ULL; break;
	default: h = h0 * 0x9E3779B97F4A7C15ULL + (h1 & 0xfffffffffffULL) * 0xC2B2AE3D27D4EB4FULL; break;
	}
	h ^= pch;
	*tag = (UInt)(h >> 20) & ((1 << TAGE_TAG_BITS) - 1);
	return &tage_tab[i][h >> (64 - TAGE_BITS)];
}

/*
 * What the predictor needs of a branch's address, worked out when its instruction record is made rather
 * than at each execution: the address's share of the tagged tables' hashes, its index in the base table
 * and its byte and bit in the filter.
 */
void wsim_tage_site(struct wsim_icc *ic)
{
	Addr pc = ic->addr;
	UWord f;
	Int i;

	/* Each table's share apart, rather than a 64-bit constant added per table and branch in tage_lookup. */
	for (i = 0; i < TAGE_NT; i++)
		ic->pc_hash[i] = pc * 0xff51afd7ed558ccdULL + (ULong)i * 0x632BE59BD9B4E019ULL;
	ic->base_ix = (pc ^ (pc >> TAGE_BASE_BITS)) & ((1 << TAGE_BASE_BITS) - 1);
	f = (pc ^ (pc >> TAGE_FILTER_BITS)) & ((1 << TAGE_FILTER_BITS) - 1);
	ic->filter_byte = f >> 3;
	ic->filter_bit = 1 << (f & 7);
}

/*
 * A misprediction: take an entry in a table longer than the provider's, or age the candidates. `e` and
 * `tag` are every table's entry and tag for this branch (those above the provider's are read).
 */
static __attribute__((noinline)) void tage_allocate(const struct wsim_icc *ic, Int prov, UInt taken,
						    struct tage_ent *const *e, const UInt *tag)
{
	Int i, start = prov + 1;

	/* Skip one candidate at random now and then, so that two branches do not fight over one table. */
	ps.tage_lfsr = (ps.tage_lfsr >> 1) ^ (-(ps.tage_lfsr & 1u) & 0xB400u);
	if ((ps.tage_lfsr & 3) == 0 && start < TAGE_NT - 1 && TAGE_U(e[start]->cu) == 0 &&
	    TAGE_U(e[start + 1]->cu) == 0)
		start++;
	for (i = start; i < TAGE_NT; i++) {
		if (TAGE_U(e[i]->cu) == 0) {
			e[i]->tag = tag[i];
			e[i]->cu = taken ? 4 : 3;
			tage_filter[ic->filter_byte] |= ic->filter_bit;
			return;
		}
	}
	for (i = prov + 1; i < TAGE_NT; i++)
		if (TAGE_U(e[i]->cu) > 0)
			e[i]->cu -= TAGE_U1;
}

/*
 * The same for a branch the base table alone predicted, whose entries are looked up only now. Apart, so that
 * the commoner call, from a branch with its entries in hand, passes five arguments in registers and needs
 * no registers saved for the look-ups.
 */
static __attribute__((noinline)) void tage_allocate_base(const struct wsim_icc *ic, ULong h0, ULong h1,
							 UInt taken)
{
	struct tage_ent *e[TAGE_NT];
	UInt tag[TAGE_NT];
	Int i;

	for (i = 0; i < TAGE_NT; i++)
		e[i] = tage_lookup(i, ic->pc_hash[i], h0, h1, &tag[i]);
	tage_allocate(ic, -1, taken, e, tag);
}

static __attribute__((noinline)) void tage_age(void)
{
	Int i, j;

	for (i = 0; i < TAGE_NT; i++)
		for (j = 0; j < (1 << TAGE_BITS); j++)
			tage_tab[i][j].cu = TAGE_CTR(tage_tab[i][j].cu) | (TAGE_U(tage_tab[i][j].cu) >> 1) * TAGE_U1;
	VG_(memset)(tage_filter, 0, sizeof(tage_filter));
}

/*
 * Predict and train the branch `ic`; returns True on a misprediction. *use_alt8 is TAGE's use_alt counter
 * (-8..7) plus 8, kept by the caller in a register across a run of branches.
 */
HOT Bool tage_one(const struct wsim_icc *ic, UInt taken, ULong h0, ULong h1, UInt *use_alt8)
{
	UChar *base = &tage_base[ic->base_ix];
	Bool base_pred = *base >= 2, pred;
	struct tage_ent *e[TAGE_NT];
	UInt tag[TAGE_NT], m;
	Int prov = -1;

	if (!(tage_filter[ic->filter_byte] & ic->filter_bit)) {
		pred = base_pred;
		*base = sat2_flat[taken << 2 | *base];
		if (UNLIKELY(pred != taken))
			tage_allocate_base(ic, h0, h1, taken);
		return pred != taken;
	}

	e[0] = tage_lookup(0, ic->pc_hash[0], h0, h1, &tag[0]);
	e[1] = tage_lookup(1, ic->pc_hash[1], h0, h1, &tag[1]);
	e[2] = tage_lookup(2, ic->pc_hash[2], h0, h1, &tag[2]);
	e[3] = tage_lookup(3, ic->pc_hash[3], h0, h1, &tag[3]);
	/* The two longest matches, found by bit scan rather than by branching. */
	m = (UInt)(e[0]->tag == tag[0]) | (UInt)(e[1]->tag == tag[1]) << 1 | (UInt)(e[2]->tag == tag[2]) << 2 |
	    (UInt)(e[3]->tag == tag[3]) << 3;
	if (m == 0) {
		pred = base_pred;
		*base = sat2_flat[taken << 2 | *base];
	} else {
		struct tage_ent *pe;
		UInt m2, has_alt, cu, st;
		UInt old = *use_alt8;

		prov = 31 ^ __builtin_clz(m); /* the highest bit: one BSR, where "31 -" costs two more */
		m2 = m & ~(1u << prov);
		pe = e[prov];
		/* The next-longest match, if any (e[0] stands in when none, and tage_step takes the base's). */
		has_alt = m2 != 0;
		cu = pe->cu;
		st = tage_step[cu | (TAGE_CTR(e[31 ^ __builtin_clz(m2 | 1)]->cu) >> 2) << 5 | has_alt << 6 |
			       (old >> 3) << 7 | (UInt)taken << 8 | (UInt)*base << 9];
		pe->cu = (UChar)st;
		pred = (st >> 16) & 1;
		*use_alt8 = use_alt_next[((st >> 13) & 0x30) | old];
		*base = (st >> 19) & 3;
	}
	if (UNLIKELY(pred != taken) && prov < TAGE_NT - 1)
		tage_allocate(ic, prov, taken, e, tag);
	return pred != taken;
}

/*
 * Conditional branches are not simulated one by one: generated code appends (instruction | taken) to a
 * buffer inline and calls wsim_h_cond_full() when it fills. The predictors' state depends on nothing else,
 * so predicting later, in a tight loop, gives the same counts without a helper call per branch. Whoever
 * reads the counts (regions, thread switches, fork, exit) calls wsim_cond_flush() first. The branches
 * themselves are counted with the instructions (per segment); only mispredictions are counted here, and
 * added rather than branched on: a simulated misprediction is as unpredictable to the host as to the
 * simulated core, and a host misprediction per simulated one cost more than the predictor itself (twice,
 * with gshare).
 */
#define COND_ICC(e) ((struct wsim_icc *)((e) & ~(UWord)1))

/* A marker (wsim_cond_mark): the mispredictions since the last one go to that one's target. */
static inline void take_mark(UWord e, ULong misses, ULong *marked)
{
	*ps.mark_target += misses - *marked;
	*marked = misses;
	ps.mark_target = (ULong *)(e & ~(UWord)WSIM_COND_MARK);
}

/* The loop of the two one-table predictors, inlined into predict() once for each so that `miss` is too. */
static inline __attribute__((always_inline)) ULong predict_simple(const UWord *p, const UWord *end, ULong *marked,
								  Bool (*miss)(Addr, Bool))
{
	ULong misses = 0;

	for (; p < end; p++) {
		struct wsim_icc *ic = COND_ICC(*p);
		UInt m;

		if (UNLIKELY(*p & WSIM_COND_MARK)) {
			take_mark(*p, misses, marked);
			continue;
		}
		m = miss(ic->addr, *p & 1);
		ic->cmiss += m;
		misses += m;
	}
	return misses;
}

static ULong predict(const UWord *p, const UWord *end)
{
	ULong misses = 0, marked = 0;

	if (!ps.mark_target)
		ps.mark_target = &unmarked;
	switch (wsim_cfg.cond) {
	case WSIM_COND_BIMODAL:
		misses = predict_simple(p, end, &marked, bimodal_mispredict);
		break;
	case WSIM_COND_GSHARE:
		misses = predict_simple(p, end, &marked, gshare_mispredict);
		break;
	case WSIM_COND_TAGE: {
		ULong h0 = ps.tage_h0, h1 = ps.tage_h1;
		UInt use_alt8 = ps.tage_use_alt8;
		/*
		 * The useful bits age after every 2^18th branch. Which one that is, is known ahead: the loop
		 * compares its pointer with that entry's address, where a counter kept in memory (the
		 * compiler has no register to spare for it) cost three instructions more per branch.
		 */
		UWord n = (UWord)(end - p), age_at = (UWord)p + ((1u << 18) - 1 - ps.tage_tick) * sizeof(*p);
		UWord marks = 0;

		ps.tage_tick = (UInt)((ps.tage_tick + n) & ((1u << 18) - 1));
		for (; p < end; p++) {
			struct wsim_icc *ic = COND_ICC(*p);
			UInt taken = *p & 1, m;

			/* A marker is no branch: it moves the ageing point (always at or after it) one entry on. */
			if (UNLIKELY(*p & WSIM_COND_MARK)) {
				take_mark(*p, misses, &marked);
				age_at += sizeof(*p);
				marks++;
				continue;
			}
			m = tage_one(ic, taken, h0, h1, &use_alt8);

			/*
			 * Stored only for a misprediction, unlike above: measured, that left the predictor
			 * 1-4% less busy than adding the outcome to the record at every branch. The test costs
			 * the host little, as it follows tage_one's own test of the same outcome.
			 */
			if (m)
				ic->cmiss++;
			misses += m;
			h1 = (h1 << 1) | (h0 >> 63);
			h0 = (h0 << 1) | taken;
			if (UNLIKELY((UWord)p == age_at)) {
				tage_age();
				age_at += (1u << 18) * sizeof(*p);
			}
		}
		ps.tage_h0 = h0;
		ps.tage_h1 = h1;
		ps.tage_use_alt8 = use_alt8;
		ps.tage_tick = (UInt)((ps.tage_tick - marks) & ((1u << 18) - 1));
		break;
	}
	}
	*ps.mark_target += misses - marked;
	return misses;
}

/*
 * The buffer is one slot of a ring. TAGE is about a third of the tool's time on the workload of
 * bench/sim-speed.sh, so when the process may use a second CPU it runs on a thread of its own
 * (wsim-async.c): generated code hands a full slot over and goes on into the next, and predicting overlaps
 * with simulating everything else. The predictor thread takes the slots strictly in order and nothing else
 * feeds the predictor, so the counts are those of predicting here, which --ws-async=no does. On that
 * workload TAGE went from 1.75 to 1.27 s. The cheaper predictors stay here: a thread saved them 2-3% of
 * their time (gshare 1.17 -> 1.15 s, the cachegrind preset 0.98 -> 0.95 s) for a tenth more CPU time.
 *
 * Handing slots between CPUs has a cost of its own, mostly their cache lines going back and forth (see
 * drop_slot). A ring of 64 slots (2 MB) gives the predictor room for its slow stretches: it measured
 * 1.27 s against 1.39 s for 8.
 *
 * Slots are aligned to their size, so that generated code finds the end of one by a mask (see
 * wsim-main.c). pub_seq counts the slots handed over and done_seq those predicted; both only grow, and
 * the slot a count names is that count modulo the ring's size. Each side sleeps on the other's count
 * with a futex when it has waited long enough, after raising its sleeping flag: the flag and the count are
 * written and read in the opposite order on the two sides, sequentially consistent, so that either the
 * sleeper sees the count move or the waker sees the flag.
 */
#define COND_RING 64 /* 2 MB: see above */
/*
 * Generated code's thread, waiting for slots the predictor thread is predicting, spins this many TSC ticks
 * (0.1-0.3 ms at the usual 2-5 GHz) before it sleeps: the wait is for work under way.
 */
#define COND_SPIN_TICKS (1ULL << 19)
/*
 * The predictor thread, out of work, spins only this long (about 5 us) and then sleeps until COND_WAKE_AT
 * slots wait for it, so that it costs CPU time for what it predicts and little more. It used to spin 0.1-0.3
 * ms, longer than a slot takes to fill, so that it never slept and took a whole CPU (1.45x cachegrind's CPU
 * time in bench/sim-speed.sh with a CPU idle). Sleeping that way had made a program that crosses a region
 * boundary every ~10000 branches slower than one thread (0.84 against 0.73 s), every boundary waiting for
 * a wake-up: now a boundary takes the slots left over itself (wait_done). Each wake-up is a system call
 * and, where the other CPU has gone idle, an interrupt to it: woken at 4 slots, the mix made 10,896 futex calls
 * (waits and wake-ups, `perf stat -e syscalls:sys_enter_futex`), for 0.3-0.7 s of system time; at 16,
 * 0.16-0.26 s.
 */
#define COND_IDLE_TICKS (1ULL << 14)
#define COND_WAKE_AT 16

static UWord wsim_cond_ring[COND_RING][WSIM_COND_BUF] __attribute__((aligned(WSIM_COND_BUF * sizeof(UWord))));
UWord *wsim_cond_ptr = wsim_cond_ring[0];
static UInt ring_n[COND_RING]; /* entries in each slot handed over */
static struct OWN_LINE {
	UInt v;
} pub_seq, done_seq, cons_sleeping, prod_sleeping, pred_lock;
static ULong async_misses_seen; /* how many of them wsim_total has */
static Bool async_on;
UInt wsim_cond_marks; /* markers in the slot being filled: entries that are no branches (wsim.h) */

/*
 * How long the program's thread waited for the predictor thread, for -v: where the predictor sets the
 * pace, time saved on the program's thread is only spent waiting (see wsim_cond_report).
 */
static struct {
	ULong ticks, count, start;
	UInt start_ms;
	ULong slots_thread, slots_self; /* slots the predictor thread predicted, and this thread (wait_done) */
	ULong self_ticks; /* TSC ticks this thread spent in predict(), wait_done's slots included */
} waited;

static void waited_reset(void)
{
	waited.ticks = waited.count = ps.busy_ticks = waited.slots_thread = waited.slots_self = waited.self_ticks = 0;
	waited.start = __builtin_ia32_rdtsc();
	waited.start_ms = VG_(read_millisecond_timer)();
}

static UWord *slot_of(UInt seq)
{
	return wsim_cond_ring[seq % COND_RING];
}

/* Wake the predictor thread if it sleeps: there is work for it. */
static void kick(void)
{
	if (__atomic_load_n(&cons_sleeping.v, __ATOMIC_SEQ_CST))
		wsim_futex_wake(&pub_seq.v);
}

/*
 * One turn of a spin: a pause, and every 256 turns (a few microseconds) the CPU offered to whatever else
 * waits for it. A spinning thread must not keep the other thread of the pair, or another program, off a
 * CPU it shares with them: with nothing else runnable, sched_yield returns at once.
 */
static inline void spin_once(UInt *spins)
{
	__builtin_ia32_pause();
	if ((++*spins & 255) == 0)
		wsim_yield();
}

/*
 * Whoever holds pred_lock predicts the next slot handed over: the predictor thread, or generated code's
 * thread when it needs the counts and finds the other asleep or idle (see wait_done). Either way the slots
 * are predicted in order, one at a time, so the counts are those of one thread. The lock's acquire and
 * release carry the predictor's state from one holder to the next.
 */
static Bool take_lock(void)
{
	return __atomic_load_n(&pred_lock.v, __ATOMIC_RELAXED) == 0 &&
	       __atomic_exchange_n(&pred_lock.v, 1, __ATOMIC_ACQUIRE) == 0;
}

static void drop_lock(void)
{
	__atomic_store_n(&pred_lock.v, 0, __ATOMIC_RELEASE);
}

static void drop_slot(const UWord *slot, UInt n);

/* Predict slot `d`, the next one (done_seq), holding the lock; `mine` on the predictor thread. */
static void predict_slot(UInt d, Bool mine)
{
	ULong t0 = __builtin_ia32_rdtsc(), m;

	m = predict(slot_of(d), slot_of(d) + ring_n[d % COND_RING]);
	if (mine) {
		drop_slot(slot_of(d), ring_n[d % COND_RING]);
		ps.busy_ticks += __builtin_ia32_rdtsc() - t0;
		waited.slots_thread++;
	} else {
		waited.self_ticks += __builtin_ia32_rdtsc() - t0;
		waited.slots_self++;
	}
	__atomic_store_n(&ps.async_misses, ps.async_misses + m, __ATOMIC_RELAXED);
	__atomic_store_n(&done_seq.v, d + 1, __ATOMIC_SEQ_CST);
}

/*
 * Generated code's side: wait until the slots before `target` are predicted. Every region boundary comes
 * here, and a program with markers can cross one every fifty branches (the r1cs-synth example does): where
 * the predictor thread is not at work, this thread predicts what is left itself, rather than wake it and
 * wait (a system call each time took that simulation from 0.89 to 1.41 s). Where it is at work, this
 * thread waits for it, spinning, then asleep.
 */
static void wait_done(UInt target)
{
	ULong t0, begin, self = waited.self_ticks;
	UInt d, spins = 0;
	Bool waits = False;

	if ((Int)(__atomic_load_n(&done_seq.v, __ATOMIC_ACQUIRE) - target) >= 0)
		return;
	t0 = begin = __builtin_ia32_rdtsc();
	while ((Int)((d = __atomic_load_n(&done_seq.v, __ATOMIC_ACQUIRE)) - target) < 0) {
		if (take_lock()) {
			while ((Int)((d = __atomic_load_n(&done_seq.v, __ATOMIC_ACQUIRE)) - target) < 0)
				predict_slot(d, False);
			drop_lock();
			break;
		}
		waits = True;
		if (__builtin_ia32_rdtsc() - t0 < COND_SPIN_TICKS) {
			spin_once(&spins);
			continue;
		}
		__atomic_store_n(&prod_sleeping.v, 1, __ATOMIC_SEQ_CST);
		d = __atomic_load_n(&done_seq.v, __ATOMIC_SEQ_CST);
		/* Asleep only while the lock is held: its holder wakes this thread when it lets go. */
		if ((Int)(d - target) < 0 && __atomic_load_n(&pred_lock.v, __ATOMIC_SEQ_CST))
			wsim_futex_wait(&done_seq.v, d);
		__atomic_store_n(&prod_sleeping.v, 0, __ATOMIC_SEQ_CST);
		t0 = __builtin_ia32_rdtsc();
	}
	/* Slots this thread predicted itself are predicting, not waiting (-v reports them apart). */
	if (waits) {
		waited.ticks += __builtin_ia32_rdtsc() - begin - (waited.self_ticks - self);
		waited.count++;
	}
}

static Bool have_clflushopt;

/*
 * Take a slot just predicted out of every cache. Otherwise its lines stay in the predictor's CPU, and when
 * generated code comes round the ring to write them again each write must first take its line back from
 * there: on the workload of bench/sim-speed.sh a predictor thread that only read the slots cost the other
 * 0.12 s (1.28 against 1.16 s for one that did nothing); flushing them brought that to 0.02 s.
 */
static void drop_slot(const UWord *slot, UInt n)
{
	const UChar *p = (const UChar *)slot, *end = (const UChar *)(slot + n);

	if (have_clflushopt) {
		for (; p < end; p += 64)
			__asm__ volatile("clflushopt (%0)" : : "r"(p) : "memory");
	} else {
		for (; p < end; p += 64)
			__asm__ volatile("clflush (%0)" : : "r"(p) : "memory");
	}
}

static void predictor_thread(void)
{
	UInt d, p, spins = 0;

	for (;;) {
		ULong t0 = __builtin_ia32_rdtsc();

		while (__atomic_load_n(&done_seq.v, __ATOMIC_ACQUIRE) == __atomic_load_n(&pub_seq.v, __ATOMIC_ACQUIRE)) {
			if (__builtin_ia32_rdtsc() - t0 < COND_IDLE_TICKS) {
				spin_once(&spins);
				continue;
			}
			__atomic_store_n(&cons_sleeping.v, 1, __ATOMIC_SEQ_CST);
			/* Asleep on the count just read: a slot handed over since makes the wait return at once. */
			p = __atomic_load_n(&pub_seq.v, __ATOMIC_SEQ_CST);
			if (p - __atomic_load_n(&done_seq.v, __ATOMIC_SEQ_CST) < COND_WAKE_AT)
				wsim_futex_wait(&pub_seq.v, p);
			__atomic_store_n(&cons_sleeping.v, 0, __ATOMIC_SEQ_CST);
			t0 = __builtin_ia32_rdtsc();
		}
		if (!take_lock()) {
			spin_once(&spins); /* generated code's thread is predicting: it will be done soon */
			continue;
		}
		while ((d = __atomic_load_n(&done_seq.v, __ATOMIC_ACQUIRE)) !=
		       __atomic_load_n(&pub_seq.v, __ATOMIC_ACQUIRE))
			predict_slot(d, True);
		drop_lock();
		if (__atomic_load_n(&prod_sleeping.v, __ATOMIC_SEQ_CST))
			wsim_futex_wake(&done_seq.v);
	}
}

static Int async_cpu = -1; /* the CPU the predictor thread is held to, or -1 (see --ws-cpus) */
static Long pred_tid;      /* the predictor thread, once started in this process; 0 before */
static Bool async_auto;    /* --ws-async=auto: async_on follows the load */

/*
 * --ws-async=auto: the predictor thread only while it pays. It pays where predicting takes a good share of
 * the program's thread's time: the thread saves at most that share, and costs CPU time of its own (waking,
 * slots and records moving between caches, two busy CPUs that may share a core). bench/sim-speed.sh, idle,
 * with the thread against without: the mix (predicting 29% of the time alone) 4.72 against 6.58 s
 * elapsed; python (5%) 2.59 against 2.29 s elapsed and 2.77 against 2.28 CPU; by hand, r1cs-synth (14%)
 * 0.70 against 0.68 elapsed, 0.80 against 0.68 CPU.
 *
 * And it pays where it gets a share of a CPU other than the program's thread's; an idle one is not needed.
 * Out of work it sleeps, so half of a CPU that another program keeps busy does for a thread that predicts
 * a third of the time. With a spinning process at nice 0 held to the other of two CPUs, the mix took 6.3-7.8
 * s with the thread held to the spinner's CPU and the program's thread to the other (--ws-cpus=0,1),
 * against 8.4-11.5 s on one thread, for the same CPU time (3 rounds, interleaved; cachegrind 5.6-8.8 s).
 * Left to the scheduler, the pair shared one CPU now and then, the program's thread waiting runnable a
 * fifth to a third of a window, and the thread won less than half of that. So, in auto, the predictor
 * thread is kept off the CPU the program's thread runs on (the program's thread itself is not held: the
 * program could see that), checked again at every look. The rule this replaces, an idle CPU to start (0.75
 * of one, /proc/stat), kept the thread off wherever another program ran.
 *
 * The program's thread predicts on its own at first, and every LOAD_WINDOW_MS (the first after
 * LOAD_FIRST_MS, which a short program never reaches) looks at the window just past:
 * - off: the thread comes on when the program's thread spent LOAD_SHARE_ON thousandths of the window or
 *   more predicting, and waited runnable for a CPU less than LOAD_STOLEN thousandths of it (its run delay,
 *   schedstat: a machine that keeps this thread waiting has no share of a CPU to give);
 * - on: it goes off when it was busy less than LOAD_SHARE_OFF thousandths of the window (about 13% of the
 *   program's thread's time, had it predicted: the window is shorter by what the thread took over), held
 *   off for LOAD_HOLD_MS; or when the program's thread waited runnable for a CPU more than LOAD_STOLEN
 *   thousandths of the window, or spent waiting for the predictor thread, or predicting in its place, more
 *   than half of what predicting took it in the last window it predicted alone (the thread gets too
 *   little of its CPU to keep up: on an idle machine the mix keeps the thread busy 80-95% of a window,
 *   and the program's thread waits up to a fifth of one, for two fifths saved), held off for LOAD_HOLD_MS
 *   doubled each time in a row (at most 8 s), so that a machine too busy for it costs a window now and
 *   then.
 * Going off, the program's thread waits until the predictor is idle, then predicts on its own. The
 * predictor takes the stream in order whichever thread predicts, so switching changes no count. Each look
 * costs three system calls; every 16 slots the clock is read (a slot holds 4096 branches).
 */
#define LOAD_FIRST_MS 100
#define LOAD_WINDOW_MS 200
#define LOAD_HOLD_MS 1000
#define LOAD_HOLD_MAX_SHIFT 3
#define LOAD_STOLEN 100
#define LOAD_SHARE_ON 200
#define LOAD_SHARE_OFF 150

static struct {
	UInt slots;            /* slots since the clock was last read */
	Bool looked;           /* the first window is past */
	UInt since_ms;         /* the window's start */
	UInt hold_until_ms;    /* not on again before this */
	UInt failed;           /* times in a row it went off for want of a CPU, at most LOAD_HOLD_MAX_SHIFT */
	Int away;              /* the CPU the predictor thread is kept off, or -1 */
	ULong off_share;       /* share_pm in the last window the program's thread predicted alone */
	Long tid, delay;       /* the program's thread then, and its run delay */
	ULong tsc, self, busy; /* the TSC, waited.self_ticks and ps.busy_ticks then */
	ULong waited;          /* waited.ticks then */
	UInt on_since_ms;
	ULong on_ms;           /* for -v: how long the thread predicted */
	UInt switches;
	UInt moves;            /* for -v: times it was kept off another CPU */
} load = { .away = -1 };

static void load_baseline(UInt now)
{
	load.since_ms = now;
	load.tid = wsim_gettid();
	load.delay = wsim_run_delay(load.tid);
	load.tsc = __builtin_ia32_rdtsc();
	load.self = waited.self_ticks;
	load.waited = waited.ticks;
	load.busy = __atomic_load_n(&ps.busy_ticks, __ATOMIC_RELAXED);
}

/* Thousandths of a window of `ms` that a run delay moved by (from -1 or a changed thread: 0). */
static Long stolen(Long before, Long after, UInt ms)
{
	return before >= 0 && after >= before ? (after - before) / 1000 / (Long)ms : 0;
}

static void async_switch(Bool on, UInt now, UInt hold_ms)
{
	if (on) {
		if (!pred_tid && !(pred_tid = wsim_spawn(predictor_thread, async_cpu))) {
			async_auto = False; /* no thread to be had: this one predicts */
			return;
		}
		async_on = True;
		load.on_since_ms = now;
	} else {
		wsim_cond_quiesce();
		async_on = False;
		load.on_ms += now - load.on_since_ms;
		load.hold_until_ms = now + hold_ms;
	}
	load.switches++;
}

/* Keep the predictor thread off the CPU this thread runs on now, where it is not held to one (--ws-cpus). */
static void keep_away(void)
{
	Int cpu;

	if (!pred_tid || async_cpu >= 0 || (cpu = wsim_cpu_now()) < 0 || cpu == load.away)
		return;
	load.away = wsim_pin_except(pred_tid, cpu) ? cpu : -1;
	if (load.away >= 0)
		load.moves++;
}

static void load_look(void)
{
	UInt now = VG_(read_millisecond_timer)(), ms = now - load.since_ms;
	Long tid, delay, stole;
	ULong ticks, share_pm, lag_pm;

	if (ms < (load.looked ? LOAD_WINDOW_MS : LOAD_FIRST_MS))
		return;
	load.looked = True;
	tid = wsim_gettid();
	delay = wsim_run_delay(tid);
	if (tid != load.tid)
		delay = -1; /* another guest thread runs now: its delay says nothing of this window */
	stole = stolen(load.delay, delay, ms);
	/* Thousandths of the window spent predicting, by whichever thread predicted. */
	ticks = __builtin_ia32_rdtsc() - load.tsc;
	share_pm = async_on ? __atomic_load_n(&ps.busy_ticks, __ATOMIC_RELAXED) - load.busy
			    : waited.self_ticks - load.self;
	share_pm = ticks >= 1000 ? share_pm / (ticks / 1000) : 0;
	/* With the thread on: what it cost this one, waiting for it or predicting in its place. */
	lag_pm = waited.ticks - load.waited + waited.self_ticks - load.self;
	lag_pm = ticks >= 1000 ? lag_pm / (ticks / 1000) : 0;
	if (!async_on) {
		load.off_share = share_pm;
		if (now >= load.hold_until_ms && share_pm >= LOAD_SHARE_ON && stole < LOAD_STOLEN)
			async_switch(True, now, 0);
	} else if (stole > LOAD_STOLEN || lag_pm * 2 > load.off_share) {
		async_switch(False, now, LOAD_HOLD_MS << load.failed);
		if (load.failed < LOAD_HOLD_MAX_SHIFT)
			load.failed++;
	} else {
		load.failed = 0;
		if (share_pm < LOAD_SHARE_OFF)
			async_switch(False, now, LOAD_HOLD_MS);
	}
	if (async_on)
		keep_away();
	load_baseline(now);
}

/* Every 16 slots, on either path of a full slot: is it time to look at the load? */
static inline void load_tick(void)
{
	if (LIKELY(!async_auto))
		return;
	load.slots++;
	if (UNLIKELY(wsim_opt.async_flip)) {
		if (load.slots % (UInt)wsim_opt.async_flip == 0) {
			async_switch(!async_on, VG_(read_millisecond_timer)(), LOAD_HOLD_MS);
			if (async_on)
				keep_away();
		}
		return;
	}
	if ((load.slots & 15) == 0)
		load_look();
}

/*
 * Start the predictor thread if asked, worth it and there is a CPU for it; otherwise predict on this one.
 * The thread is held to `cpu` unless it is negative. With auto, it starts when the load says so.
 */
void wsim_cond_start(Int async, Int cpu)
{
	UInt a = 0, b, c = 0, d;
	Bool can = wsim_cfg.cond == WSIM_COND_TAGE && wsim_host_cpus() >= 2;

	/* CLFLUSHOPT is CPUID leaf 7, EBX bit 23, where leaf 7 exists. */
	__asm__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	if (a >= 7) {
		a = 7;
		c = 0;
		__asm__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
		have_clflushopt = (b >> 23) & 1;
	}
	waited_reset();
	async_cpu = cpu;
	/* --ws-cpus names the predictor thread's CPU: that asks for the thread. */
	if (async == WSIM_ASYNC_AUTO && cpu >= 0)
		async = WSIM_ASYNC_YES;
	async_auto = async == WSIM_ASYNC_AUTO && can;
	async_on = async == WSIM_ASYNC_YES && can && (pred_tid = wsim_spawn(predictor_thread, cpu)) != 0;
	if (async_auto)
		load_baseline(load.on_since_ms = VG_(read_millisecond_timer)());
}

const HChar *wsim_cond_where(void)
{
	if (async_auto)
		return "this thread, and on a second host thread while predicting takes a fifth of this one's time "
		       "and the other keeps up (--ws-async=auto)";
	return async_on ? "a second host thread" : "this thread";
}

/*
 * One line for -v, after a quiesce: how busy the predictor thread was and how long the program's thread
 * waited for it, in milliseconds. Both are TSC ticks, turned into thousandths of the run's ticks (which
 * cannot overflow) and then into its milliseconds. With auto, a line before it says how long the thread
 * predicted.
 */
void wsim_cond_report(void)
{
	ULong ticks = __builtin_ia32_rdtsc() - waited.start, ms = VG_(read_millisecond_timer)() - waited.start_ms;
	ULong busy, wait;

	if (async_auto) {
		VG_(umsg)("wsim: the predictor thread predicted for %llu of %llu ms (switched %u times)\n",
			  load.on_ms + (async_on ? VG_(read_millisecond_timer)() - load.on_since_ms : 0), ms,
			  load.switches);
		if (load.moves)
			VG_(umsg)("wsim: the predictor thread was kept off the program's thread's CPU, moved %u "
				  "times\n", load.moves);
	}
	if ((async_auto || pred_tid) && ticks >= 1000)
		VG_(umsg)("wsim: the program's thread predicted for %llu ms\n",
			  waited.self_ticks / (ticks / 1000) * ms / 1000);
	if (!pred_tid || ticks < 1000)
		return;
	busy = ps.busy_ticks / (ticks / 1000);
	wait = waited.ticks / (ticks / 1000);
	VG_(umsg)("wsim: of %llu ms, the predictor thread was busy %llu ms and the program's thread waited for "
		  "it %llu ms (%llu times)\n",
		  ms, busy * ms / 1000, wait * ms / 1000, waited.count);
	VG_(umsg)("wsim: slots of branches predicted: %llu by the predictor thread, %llu by the program's thread "
		  "while the other was idle\n", waited.slots_thread, waited.slots_self);
}

Bool wsim_cond_async(void)
{
	return async_on;
}

/* predict() on the program's thread, timed for auto's look at the share and -v (two TSC reads a slot). */
static ULong predict_here(const UWord *p, const UWord *end)
{
	ULong t0, m;

	t0 = __builtin_ia32_rdtsc();
	m = predict(p, end);
	waited.self_ticks += __builtin_ia32_rdtsc() - t0;
	return m;
}

void wsim_h_cond_full(void)
{
	UWord *start = slot_of(pub_seq.v);
	UInt n = (UInt)(wsim_cond_ptr - start), pending;

	wsim_total[WC_COND] += n - wsim_cond_marks;
	wsim_cond_marks = 0;
	if (!async_on) {
		wsim_total[WC_COND_MISS] += predict_here(start, wsim_cond_ptr);
		wsim_cond_ptr = start;
		wsim_unpack();
		load_tick();
		return;
	}
	ring_n[pub_seq.v % COND_RING] = n;
	__atomic_store_n(&pub_seq.v, pub_seq.v + 1, __ATOMIC_SEQ_CST);
	pending = pub_seq.v - __atomic_load_n(&done_seq.v, __ATOMIC_ACQUIRE);
	if (pending >= COND_WAKE_AT)
		kick();
	if (pending == COND_RING)
		wait_done(pub_seq.v - COND_RING + 1);
	wsim_cond_ptr = slot_of(pub_seq.v);
	wsim_unpack();
	load_tick();
}

/* Wait until the predictor thread is idle: its tables and counts are then this thread's to read. */
void wsim_cond_quiesce(void)
{
	if (!async_on)
		return;
	wait_done(pub_seq.v);
	wsim_total[WC_COND_MISS] += ps.async_misses - async_misses_seen;
	async_misses_seen = ps.async_misses;
}

void wsim_cond_flush(void)
{
	UWord *start = slot_of(pub_seq.v);

	/* What the predictor thread has not seen is predicted here, while it waits for the next slot. */
	wsim_cond_quiesce();
	wsim_total[WC_COND] += (ULong)(wsim_cond_ptr - start) - wsim_cond_marks;
	wsim_cond_marks = 0;
	wsim_total[WC_COND_MISS] += predict_here(start, wsim_cond_ptr);
	wsim_cond_ptr = start;
	wsim_unpack();
}


/* Move an instruction's conditional-branch mispredictions into its function's counts and its own total. */
void wsim_fold_cond_misses(struct wsim_icc *ic)
{
	ic->fn->c[WC_COND_MISS] += ic->cmiss;
	ic->bmiss += ic->cmiss;
	ic->cmiss = 0;
}

/*
 * In a forked child: forget branches recorded but not yet predicted (the parent predicts its copy of
 * them), and the parent's mispredictions not yet counted. The parent quiesced the predictor thread before
 * the fork, and the child has none: start its own.
 */
void wsim_cond_forked(void)
{
	wsim_cond_ptr = slot_of(pub_seq.v);
	wsim_cond_marks = 0;
	async_misses_seen = ps.async_misses;
	waited_reset();
	/* The parent's thread is not the child's: with auto, the child starts its own when the load says so. */
	pred_tid = 0;
	load.away = -1;
	cons_sleeping.v = prod_sleeping.v = pred_lock.v = 0;
	if (async_on) {
		pred_tid = wsim_spawn(predictor_thread, async_cpu);
		async_on = pred_tid != 0;
	}
	if (async_auto)
		load_baseline(VG_(read_millisecond_timer)());
}

/* ---- Indirect branches and returns -------------------------------------------------------------------- */

/* cachegrind's: 512 entries indexed by the branch address, each the last target seen there. */
static Addr cg_btac[512];

VG_REGPARM(2) void wsim_h_ind_cg(struct wsim_icc *ic, UWord target)
{
	Addr *e = &cg_btac[ic->addr & 511];
	Bool miss = *e != target;

	*e = target;
	CNT(ic->fn, WC_IND);
	if (miss) {
		CNT(ic->fn, WC_IND_MISS);
		ic->bmiss++;
	}
}

/*
 * The full model's target cache: a table indexed by the branch address, and a tagged one indexed by the
 * address hashed with the last few indirect targets (path history), which is consulted first. An entry in
 * the second is allocated when the first mispredicts, so a branch whose target depends on the path learns it.
 */
struct ind_ent {
	Addr pc;
	Addr target;
};

static Addr *ind_pc_tab;
static struct ind_ent *ind_path_tab;
static UWord ind_mask, ind_path;

static Bool ind_mispredict(Addr pc, Addr target)
{
	Addr *pe = &ind_pc_tab[(pc ^ (pc >> 12)) & ind_mask];
	struct ind_ent *te = &ind_path_tab[(pc ^ (pc >> 12) ^ ind_path) & ind_mask];
	Addr pred = te->pc == pc ? te->target : *pe;
	Bool miss = pred != target;

	if (te->pc == pc || *pe != target) {
		te->pc = pc;
		te->target = target;
	}
	*pe = target;
	ind_path = (ind_path << 4) ^ (target >> 2) ^ (target >> 9);
	return miss;
}

static inline void ind_count(struct wsim_icc *ic, Bool miss)
{
	CNT(ic->fn, WC_IND);
	if (miss) {
		CNT(ic->fn, WC_IND_MISS);
		ic->bmiss++;
	}
}

VG_REGPARM(2) void wsim_h_ind(struct wsim_icc *ic, UWord target)
{
	ind_count(ic, ind_mispredict(ic->addr, target));
}

/* The return-address stack: a circular buffer, so deep recursion overwrites the oldest entries, as in hardware. */
static Addr *ras;
static UInt ras_top, ras_n;

VG_REGPARM(1) void wsim_h_call(struct wsim_icc *ic)
{
	ras_top = ras_top + 1 == ras_n ? 0 : ras_top + 1;
	ras[ras_top] = ic->addr + ic->len;
}

VG_REGPARM(2) void wsim_h_ind_call(struct wsim_icc *ic, UWord target)
{
	ind_count(ic, ind_mispredict(ic->addr, target));
	wsim_h_call(ic);
}

VG_REGPARM(2) void wsim_h_ret(struct wsim_icc *ic, UWord target)
{
	Addr pred = ras[ras_top];

	ras_top = ras_top == 0 ? ras_n - 1 : ras_top - 1;
	CNT(ic->fn, WC_RET);
	if (pred != target) {
		CNT(ic->fn, WC_RET_MISS);
		ic->bmiss++;
	}
}

/* ---- Virtual cores and coherence ---------------------------------------------------------------------- */

/*
 * With --ws-cores above one, each thread runs on a virtual core of its own (round-robin beyond the count):
 * private L1i, L1d, L2 and prefetcher state per core, a last level shared by the cores of one CCX. The
 * branch predictors stay shared. Generated code tests the running core's L1 inline at fixed addresses, so
 * a switch of core copies the L1 tags out and the new core's in (64 KB for zen4, at a thread switch,
 * every 100000 blocks at most); the outer levels are switched by pointer.
 *
 * Coherence. A line a core fills into its L1d while the directory (a direct-mapped table of the last core
 * to fill each line) names another is shared from then on, and "watched": its tags in every core's L1d
 * carry the low bit, which fails the inline test, so every access to it reaches coh_data(). There a write
 * invalidates the line in the other cores' L1d and L2, whose next access misses, and the access is counted
 * by the interleaving model below. Lines used by one core at a time stay on the inline path.
 *
 * Valgrind runs one thread at a time for a whole time slice, so two threads never touch a line "at once",
 * and invalidation alone gives one miss per slice where hardware would bounce the line thousands of times.
 * The model puts each core's accesses on its own clock (the instructions it ran; a new thread's core starts
 * at its creator's clock) and cuts it into epochs of 2^EPOCH_BITS instructions. Within one epoch the
 * accesses of the cores to a line are taken as interleaved evenly: a core making n accesses while the
 * other cores make W writes misses min(n, W) times, at most cap times, cap = epoch / (2 x the cross-core
 * latency), as the line cannot move faster than once per latency, each way in turn. Each core keeps, per
 * watched line that was written, a ring of its last RING epochs' counts, so the slices of different cores
 * that cover the same epochs meet whichever ran first; the count is kept up to date as either side's
 * accesses arrive.
 */
#define DIR_BITS 20
#define DIR_CORE_BITS 9
#define WL_MAX 4096   /* lines watched at most; more shared lines are left alone (counted) */
#define WL_CORES 8    /* cores tracked per line */
#define WL_THREADS 32 /* threads tracked per line; the others share the last row, thread 0 */
#define WL_FNS 8      /* functions named per line */
#define EPOCH_BITS 14
#define RING 1024     /* epochs of history per core and line: 16M instructions of skew between cores */

struct core {
	Bool used;
	UWord *l1i, *l1d; /* its L1 tags while another core runs */
	UWord *l2;        /* three levels: its L2's tags (OUTER[0].tags while it runs) */
	struct stride_ent *stride;
	UWord recent_miss[4];
	UInt recent_next;
	ULong clock;      /* instructions it ran, up to the start of its slice while it runs */
};

struct eslot {
	UInt epoch1; /* the epoch + 1 whose counts these are; 0: none */
	UShort n, w; /* accesses and writes in it */
};

/*
 * A core's state for one line: the coherence model is per core, as caches are. What each thread did there
 * is kept apart (struct wthread): with more threads than cores, several run on one core, and spans merged
 * over them overlap where the threads' own do not (false sharing read as true sharing).
 */
struct wcore {
	Int core;
	Int last;     /* the row (struct wline's t[]) of the thread that last accessed the line here; -1 none */
	Bool holds;   /* may have the line in its private caches */
	struct eslot *ring; /* once the line is written */
};

/* One thread's accesses to a line; tid 0 holds those of the threads past WL_THREADS - 1, merged. */
struct wthread {
	UInt tid;
	Int core;
	ULong reads, writes, misses;
	Int rlo, rhi, wlo, whi;
};

struct wline {
	UWord block;
	ULong misses;
	ULong watched_at; /* core_switches when it was watched */
	Int last_core;    /* the core of its latest access */
	Bool alternated;  /* a second core accessed it since it was watched */
	Bool written;
	Int n_cores, n_fns, n_threads;
	struct wcore c[WL_CORES];
	struct wthread t[WL_THREADS];
	struct wsim_fn *fns[WL_FNS];
};

static struct core *cores;
static Int cur_core, n_used;
static ULong slice_instr; /* the instruction total when the running core's slice began */
static UWord **ll_tags;   /* per CCX */
static UWord *dir;
static struct wline **wl_tab; /* open addressing, 2 x WL_MAX slots */
static Int wl_n;
static ULong wl_dropped, wl_ever, wl_unwatched;
static ULong core_switches; /* changes of the running core */
/* A watched line that no second core touched, or none wrote, over this many switches goes back inline. */
#define UNWATCH_SWITCHES 8
static UInt coh_cap;

static UWord *tags_new(const struct cache *c)
{
	UWord n = (UWord)c->sets * c->assoc, i;
	UWord *t = tags_alloc(n);

	for (i = 0; i < n; i++)
		t[i] = NONE;
	return t;
}

static inline ULong instr_now(void)
{
	return wsim_total[WC_INSTR] + (wsim_packed[0] & 0xffffffffULL);
}

static ULong core_now(Int c)
{
	return c == cur_core ? cores[c].clock + (instr_now() - slice_instr) : cores[c].clock;
}

static void core_bring_up(Int c)
{
	struct core *k = &cores[c];
	Int x = c / wsim_cfg.ccx_cores;

	if (k->used)
		return;
	k->used = True;
	n_used++;
	k->l1i = tags_new(&L1I);
	k->l1d = tags_new(&L1D);
	if (n_outer == 2)
		k->l2 = c == 0 ? OUTER[0].tags : tags_new(&OUTER[0]);
	k->stride = VG_(calloc)("wsim.core", STRIDE_ENTRIES, sizeof(struct stride_ent));
	if (!ll_tags[x])
		ll_tags[x] = tags_new(&OUTER[n_outer - 1]);
}

static void cores_init(void)
{
	if (wsim_cfg.cores <= 1)
		return;
	cores = VG_(calloc)("wsim.cores", wsim_cfg.cores, sizeof(struct core));
	ll_tags = VG_(calloc)("wsim.cores", (wsim_cfg.cores + wsim_cfg.ccx_cores - 1) / wsim_cfg.ccx_cores,
			      sizeof(UWord *));
	ll_tags[0] = OUTER[n_outer - 1].tags;
	core_bring_up(0);
	coh_cap = (1u << EPOCH_BITS) / (2 * (wsim_cfg.lat_core ? wsim_cfg.lat_core : 1));
	if (coh_cap < 1)
		coh_cap = 1;
}

/*
 * The directory learns fills only once a second core has run (before, gen_data skips the coherence model).
 * A line the first core filled until then and kept in its L1d was unknown to it, so a second core's fill
 * did not watch it, and the first core went on hitting its stale copy: a flag that the main thread sets and
 * a thread it started polls was never seen as shared (0 coherence misses in a 200-turn ping-pong). At the
 * first switch the first core's L1d is entered as filled by it.
 */
static inline UWord wl_hash(UWord block);

static void dir_seed(void)
{
	UWord n = (UWord)L1D.sets * L1D.assoc, i;

	for (i = 0; i < n; i++)
		if (L1D.tags[i] != NONE)
			dir[wl_hash(L1D.tags[i] >> 1) & (((UWord)1 << DIR_BITS) - 1)] =
				((L1D.tags[i] >> 1) << DIR_CORE_BITS) | (UWord)(cur_core + 1);
}

void wsim_core_switch(Int c, UInt tid)
{
	struct core *from, *to;
	ULong now;
	UWord n;

	line_tid = tid;
	if (!cores)
		return;
	now = instr_now();
	from = &cores[cur_core];
	from->clock += now - slice_instr;
	slice_instr = now;
	if (c == cur_core)
		return;
	if (!coh_on)
		dir_seed();
	core_bring_up(c);
	to = &cores[c];
	n = (UWord)L1I.sets * L1I.assoc;
	VG_(memcpy)(from->l1i, L1I.tags, n * sizeof(UWord));
	VG_(memcpy)(L1I.tags, to->l1i, n * sizeof(UWord));
	n = (UWord)L1D.sets * L1D.assoc;
	VG_(memcpy)(from->l1d, L1D.tags, n * sizeof(UWord));
	VG_(memcpy)(L1D.tags, to->l1d, n * sizeof(UWord));
	VG_(memcpy)(from->stride, stride_tab, sizeof(stride_tab));
	VG_(memcpy)(stride_tab, to->stride, sizeof(stride_tab));
	VG_(memcpy)(from->recent_miss, recent_miss, sizeof(recent_miss));
	VG_(memcpy)(recent_miss, to->recent_miss, sizeof(recent_miss));
	from->recent_next = recent_next;
	recent_next = to->recent_next;
	if (n_outer == 2)
		OUTER[0].tags = to->l2;
	OUTER[n_outer - 1].tags = ll_tags[c / wsim_cfg.ccx_cores];
	cur_core = c;
	core_switches++;
	coh_on = True;
}

void wsim_core_created(Int parent, Int child)
{
	ULong t;

	if (!cores || child == cur_core)
		return;
	core_bring_up(child);
	t = core_now(parent);
	if (cores[child].clock < t)
		cores[child].clock = t;
}

void wsim_core_forked(void)
{
	slice_instr = 0;
}

Int wsim_cores_used(void)
{
	return cores ? n_used : 1;
}

ULong wsim_core_clock(Int c)
{
	if (!cores)
		return c == 0 ? wsim_total[WC_INSTR] : 0;
	return cores[c].used ? core_now(c) : 0;
}

/* Core c's L1d tags, wherever they are now. */
static UWord *core_l1d(Int c)
{
	return c == cur_core ? L1D.tags : cores[c].l1d;
}

/* Set (on) or clear the watch bit of `block` in an L1d's tags, if the line is there. */
static void l1_mark(UWord *tags, UWord block, Bool on)
{
	struct cache t = L1D;
	UWord *set;
	ULong m;

	t.tags = tags;
	set = set_of(&t, block);
	m = match_ways(set, t.assoc, (block << 1) | 1);
	if (m)
		set[__builtin_ctzll(m) / 2] = (block << 1) | (on ? 1 : 0);
}

/* A write elsewhere: the line leaves core c's private caches. */
static void core_invalidate(Int c, UWord block)
{
	struct cache t;

	if (c == cur_core)
		return;
	t = L1D;
	t.tags = cores[c].l1d;
	gen_invalidate(&t, block);
	if (n_outer == 2) {
		t = OUTER[0];
		t.tags = cores[c].l2;
		gen_invalidate(&t, (block << L1D.line_bits) >> OUTER[0].line_bits);
	}
}

static inline UWord wl_hash(UWord block)
{
	return (block * 0x9E3779B97F4A7C15ULL) >> 40;
}

static struct wline *wl_find(UWord block)
{
	UWord i;

	if (!wl_n)
		return NULL;
	for (i = wl_hash(block) & (2 * WL_MAX - 1);; i = (i + 1) & (2 * WL_MAX - 1)) {
		struct wline *w = wl_tab[i];

		if (!w)
			return NULL;
		if (w->block == block)
			return w;
	}
}

static struct wcore *wl_core(struct wline *w, Int core)
{
	struct wcore *x;
	Int i;

	for (i = 0; i < w->n_cores; i++)
		if (w->c[i].core == core)
			return &w->c[i];
	if (w->n_cores == WL_CORES)
		return NULL;
	x = &w->c[w->n_cores++];
	x->core = core;
	x->last = -1;
	return x;
}

/* The row of thread `tid` (running on `core`) in line w: its own, else the shared one of thread 0. */
static Int wl_thread(struct wline *w, UInt tid, Int core)
{
	struct wthread *t;
	Int i;

	for (i = 0; i < w->n_threads; i++)
		if (w->t[i].tid == tid)
			return i;
	if (w->n_threads == WL_THREADS) {
		/* Full: the last row is thread 0's already. */
		w->t[WL_THREADS - 1].core = core;
		return WL_THREADS - 1;
	}
	t = &w->t[w->n_threads++];
	t->tid = w->n_threads == WL_THREADS ? 0 : tid;
	t->core = core;
	t->rlo = t->wlo = -1;
	t->rhi = t->whi = -1;
	return w->n_threads - 1;
}

/* The line is in the caches of the running core and of `other`: watch it from now on. */
static void watch(UWord block, Int other)
{
	struct wline *w;
	struct wcore *x;
	UWord i;

	if (wl_n == WL_MAX) {
		wl_dropped++;
		return;
	}
	w = VG_(calloc)("wsim.line", 1, sizeof(*w));
	w->block = block;
	w->watched_at = core_switches;
	w->last_core = cur_core;
	wl_ever++;
	for (i = wl_hash(block) & (2 * WL_MAX - 1); wl_tab[i]; i = (i + 1) & (2 * WL_MAX - 1))
		;
	wl_tab[i] = w;
	wl_n++;
	x = wl_core(w, other);
	x->holds = True;
	x = wl_core(w, cur_core);
	x->holds = True;
	l1_mark(core_l1d(other), block, True);
	l1_mark(L1D.tags, block, True);
}

/*
 * Stop watching a line that turned out not to be contended: the marks go, the line is forgotten, and the
 * directory names the running core, so that another core's next fill watches it again. Backward-shift
 * deletion keeps the probe sequences whole.
 */
static void unwatch(struct wline *w)
{
	UWord i, j, k, mask = 2 * WL_MAX - 1;
	Int c;

	/* The running core keeps the line, as if it now held it exclusively; the others lose their copies. */
	for (c = 0; c < w->n_cores; c++) {
		if (w->c[c].core != cur_core && w->c[c].holds)
			core_invalidate(w->c[c].core, w->block);
		l1_mark(core_l1d(w->c[c].core), w->block, False);
		if (w->c[c].ring)
			VG_(free)(w->c[c].ring);
	}
	dir[wl_hash(w->block) & (((UWord)1 << DIR_BITS) - 1)] = (w->block << DIR_CORE_BITS) | (UWord)(cur_core + 1);
	for (i = wl_hash(w->block) & mask; wl_tab[i] != w; i = (i + 1) & mask)
		;
	wl_tab[i] = NULL;
	for (j = (i + 1) & mask; wl_tab[j]; j = (j + 1) & mask) {
		k = wl_hash(wl_tab[j]->block) & mask;
		/* Move the entry back into the hole unless its home lies cyclically in (i, j]. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		wl_tab[i] = wl_tab[j];
		wl_tab[j] = NULL;
		i = j;
	}
	wl_n--;
	wl_unwatched++;
	VG_(free)(w);
}

/* The running core filled `block` into L1d: a line another core filled last is shared. */
static void dir_fill(UWord block)
{
	UWord *e = &dir[wl_hash(block) & (((UWord)1 << DIR_BITS) - 1)];
	UWord me = (block << DIR_CORE_BITS) | (UWord)(cur_core + 1);

	if (*e && (*e >> DIR_CORE_BITS) == block && *e != me)
		watch(block, (Int)(*e & ((1 << DIR_CORE_BITS) - 1)) - 1);
	*e = me;
}

static inline ULong min3(ULong a, ULong b, ULong c)
{
	ULong m = a < b ? a : b;

	return m < c ? m : c;
}

static void range_add(Int *lo, Int *hi, Int from, Int to)
{
	if (*lo < 0 || from < *lo)
		*lo = from;
	if (to > *hi)
		*hi = to;
}

/* An access of the running core to a watched line. */
static void coh_access(struct wline *w, struct wsim_icc *ic, Addr a, UWord size, Bool store)
{
	struct wcore *x = wl_core(w, cur_core);
	struct wthread *me;
	Int line = 1 << L1D.line_bits, off = (Int)(a & (line - 1)), end = off + (Int)size - 1, i;
	struct eslot *s;
	ULong e, wo = 0, old, d;
	UInt tag;

	if (!x)
		return;
	x->last = wl_thread(w, line_tid, cur_core);
	me = &w->t[x->last];
	x->holds = True;
	if (end >= line)
		end = line - 1;
	if (store) {
		me->writes++;
		range_add(&me->wlo, &me->whi, off, end);
		w->written = True;
		for (i = 0; i < w->n_cores; i++)
			if (&w->c[i] != x && w->c[i].holds) {
				core_invalidate(w->c[i].core, w->block);
				w->c[i].holds = False;
			}
	} else {
		me->reads++;
		range_add(&me->rlo, &me->rhi, off, end);
	}
	for (i = 0; i < w->n_fns && w->fns[i] != ic->fn; i++)
		;
	if (i == w->n_fns && i < WL_FNS)
		w->fns[w->n_fns++] = ic->fn;
	if (!w->written)
		return;
	if (!x->ring)
		x->ring = VG_(calloc)("wsim.line", RING, sizeof(struct eslot));
	e = core_now(cur_core) >> EPOCH_BITS;
	tag = (UInt)e + 1;
	s = &x->ring[e % RING];
	if (s->epoch1 != tag) {
		s->epoch1 = tag;
		s->n = s->w = 0;
	}
	/* The other cores' writes in this epoch: this access misses while it is not outnumbered by them. */
	for (i = 0; i < w->n_cores; i++) {
		struct wcore *y = &w->c[i];

		if (y != x && y->ring && y->ring[e % RING].epoch1 == tag)
			wo += y->ring[e % RING].w;
	}
	old = min3(s->n, wo, coh_cap);
	if (s->n < 0xffff)
		s->n++;
	d = min3(s->n, wo, coh_cap) - old;
	me->misses += d;
	/* A write: each other core that accessed the line in this epoch may now miss once more. */
	if (store) {
		for (i = 0; i < w->n_cores; i++) {
			struct wcore *y = &w->c[i];
			struct eslot *t;
			ULong wy, dy;

			if (y == x || !y->ring || (t = &y->ring[e % RING])->epoch1 != tag)
				continue;
			wy = wo - t->w + s->w;
			dy = min3(t->n, wy + 1, coh_cap) - min3(t->n, wy, coh_cap);
			/* Charged to the thread that last used the line on that core: its accesses are the ring's. */
			if (y->last >= 0)
				w->t[y->last].misses += dy;
			d += dy;
		}
		if (s->w < 0xffff)
			s->w++;
	}
	if (d) {
		w->misses += d;
		wsim_total[WC_COH_MISS] += d;
		ic->fn->c[WC_COH_MISS] += d;
		wsim_cs_node->c[WC_COH_MISS] += d;
	}
}

static __attribute__((noinline)) void coh_data(struct wsim_icc *ic, Addr a, UWord size, Bool store, Bool rmw)
{
	UWord b = a >> L1D.line_bits, b2 = (a + size - 1) >> L1D.line_bits;
	struct wline *w = wl_find(b), *w2 = b2 != b ? wl_find(b2) : NULL;
	Bool missed;

	/*
	 * Without their marks for the look-up, so that they are not taken for unused prefetches; only the line
	 * of the first byte is counted (an access straddling two lines is rare, and one access).
	 */
	if (w)
		l1_mark(L1D.tags, b, False);
	if (w2)
		l1_mark(L1D.tags, b2, False);
	missed = gen_data_body(ic, a, size, store);
	if (w2)
		l1_mark(L1D.tags, b2, True);
	/* Warming outside the regions moves no count, and no line. */
	if (ic->fn == &warm_fn) {
		if (w)
			l1_mark(L1D.tags, b, True);
		return;
	}
	if (w) {
		l1_mark(L1D.tags, b, True);
		if (w->last_core != cur_core) {
			w->alternated = True;
			w->last_core = cur_core;
		}
		/*
		 * A handoff (one core used the line, then another alone), or data only read: nothing to bounce.
		 * Counted in switches of core, since Valgrind runs one thread a whole time slice.
		 */
		if (core_switches - w->watched_at >= UNWATCH_SWITCHES && !w->misses && (!w->alternated || !w->written)) {
			unwatch(w);
			return;
		}
		if (rmw)
			coh_access(w, ic, a, size, False);
		coh_access(w, ic, a, size, store || rmw);
	} else if (missed) {
		dir_fill(b);
	}
}

static Int wline_cmp(const void *pa, const void *pb)
{
	const struct wline *a = *(const struct wline *const *)pa, *b = *(const struct wline *const *)pb;

	if (a->misses != b->misses)
		return a->misses > b->misses ? -1 : 1;
	return a->block < b->block ? -1 : a->block > b->block;
}

Int wsim_lines(struct wsim_line **out, Int max)
{
	struct wline **v;
	struct wsim_line *r;
	Int n = 0, i, j, k;

	*out = NULL;
	if (!wl_n)
		return 0;
	v = VG_(malloc)("wsim.lines", wl_n * sizeof(*v));
	for (i = 0; i < 2 * WL_MAX; i++)
		if (wl_tab[i] && wl_tab[i]->misses)
			v[n++] = wl_tab[i];
	VG_(ssort)(v, n, sizeof(*v), wline_cmp);
	if (n > max)
		n = max;
	r = n ? VG_(calloc)("wsim.lines", n, sizeof(*r)) : NULL;
	for (i = 0; i < n; i++) {
		r[i].addr = v[i]->block << L1D.line_bits;
		r[i].misses = v[i]->misses;
		r[i].cores = VG_(calloc)("wsim.lines", WL_THREADS, sizeof(struct wsim_line_core));
		for (j = 0, k = 0; j < v[i]->n_threads; j++) {
			const struct wthread *x = &v[i]->t[j];

			if (!x->reads && !x->writes)
				continue;
			r[i].cores[k].core = x->core;
			r[i].cores[k].tid = x->tid;
			r[i].cores[k].reads = x->reads;
			r[i].cores[k].writes = x->writes;
			r[i].cores[k].misses = x->misses;
			r[i].cores[k].rlo = x->rlo;
			r[i].cores[k].rhi = x->rhi;
			r[i].cores[k].wlo = x->wlo;
			r[i].cores[k].whi = x->whi;
			k++;
		}
		r[i].n_cores = k;
		r[i].n_fns = v[i]->n_fns;
		r[i].fns = v[i]->fns;
	}
	VG_(free)(v);
	*out = r;
	return n;
}

void wsim_lines_stats(ULong *watched, ULong *unwatched, ULong *dropped)
{
	*watched = wl_ever;
	*unwatched = wl_unwatched;
	*dropped = wl_dropped;
}

void wsim_sim_init(void)
{
	Int i;
	UWord n;

	cache_init(&L1I, &wsim_cfg.l1i, l1_static[0]);
	cache_init(&L1D, &wsim_cfg.l1d, l1_static[1]);
	n_outer = wsim_cfg.n_outer;
	for (i = 0; i < n_outer; i++)
		cache_init(&OUTER[i], &wsim_cfg.outer[i], NULL);
	if (wsim_cfg.cores > 1 && !wsim_cfg.cg) {
		cores_init();
		dir = VG_(calloc)("wsim.dir", (UWord)1 << DIR_BITS, sizeof(UWord));
		wl_tab = VG_(calloc)("wsim.lines", 2 * WL_MAX, sizeof(*wl_tab));
	}

	if (wsim_cfg.cond == WSIM_COND_GSHARE) {
		n = (UWord)1 << wsim_cfg.gshare_bits;
		gs_mask = n - 1;
		gs_ctr = VG_(calloc)("wsim.gshare", n, 1);
	} else if (wsim_cfg.cond == WSIM_COND_TAGE) {
		tage_init();
	}
	if (!wsim_cfg.cg) {
		n = (UWord)1 << wsim_cfg.ind_bits;
		ind_mask = n - 1;
		ind_pc_tab = VG_(calloc)("wsim.ind", n, sizeof(Addr));
		ind_path_tab = VG_(calloc)("wsim.ind", n, sizeof(struct ind_ent));
	}
	if (wsim_cfg.ras > 0) {
		ras_n = wsim_cfg.ras;
		ras = VG_(calloc)("wsim.ras", ras_n, sizeof(Addr));
	}
}
