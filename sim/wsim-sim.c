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
#include "pub_tool_mallocfree.h"

#include "wsim.h"

#define NONE (~(UWord)0)

#define CNT(fn, k)                  \
	do {                        \
		wsim_total[k]++;    \
		(fn)->c[k]++;       \
	} while (0)

struct cache {
	UWord *tags;
	UWord set_mask; /* sets - 1 when sets is a power of two */
	UInt sets, assoc, line_bits;
	Bool pow2, inclusive;
};

static struct cache L1I, L1D, OUTER[WSIM_MAX_OUTER];
static Int n_outer;

static void cache_init(struct cache *c, const struct wsim_cache_cfg *cfg)
{
	UInt i, n;

	c->assoc = cfg->assoc;
	c->sets = cfg->size / (cfg->line * cfg->assoc);
	c->line_bits = VG_(log2)(cfg->line);
	c->pow2 = VG_(log2)(c->sets) >= 0;
	c->set_mask = c->sets - 1;
	c->inclusive = cfg->inclusive;
	n = c->sets * c->assoc;
	c->tags = VG_(malloc)("wsim.cache", n * sizeof(UWord));
	for (i = 0; i < n; i++)
		c->tags[i] = NONE;
}

static inline UWord *set_of(const struct cache *c, UWord block)
{
	UWord s = LIKELY(c->pow2) ? (block & c->set_mask) : (block % c->sets);

	return c->tags + s * c->assoc;
}

/* ---- The cachegrind-exact caches ---------------------------------------------------------------------- */

/* One line: True on a miss. The block becomes the most recently used either way. */
static inline Bool cg_line(const struct cache *c, UWord block)
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
static inline Bool cg_ref(const struct cache *c, Addr a, UWord size)
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
static inline void cg_fetch(struct wsim_icc *ic)
{
	struct wsim_fn *fn = ic->fn;

	if (cg_ref(&L1I, ic->addr, ic->len)) {
		CNT(fn, WC_IFETCH_MISS);
		if (cg_ref(&OUTER[0], ic->addr, ic->len))
			CNT(fn, WC_LL_IFETCH_MISS);
	}
}

static inline void cg_data(struct wsim_icc *ic, Addr a, UWord size, Bool store)
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
static inline Bool gen_line(const struct cache *c, UWord block, UWord *victim, Bool *pf)
{
	UWord *set = set_of(c, block), key = (block << 1) | 1, e;
	UInt i, j;

	e = set[0];
	if ((e | 1) == key) {
		if (UNLIKELY(e & 1)) {
			set[0] = e & ~(UWord)1;
			*pf = True;
		}
		return False;
	}
	for (i = 1; i < c->assoc; i++) {
		e = set[i];
		if ((e | 1) == key) {
			for (j = i; j > 0; j--)
				set[j] = set[j - 1];
			if (e & 1)
				*pf = True;
			set[0] = e & ~(UWord)1;
			return False;
		}
	}
	e = set[c->assoc - 1];
	*victim = e == NONE ? NONE : e >> 1;
	for (j = c->assoc - 1; j > 0; j--)
		set[j] = set[j - 1];
	set[0] = block << 1;
	return True;
}

/* Remove `block` from `c` if present, keeping the order of the others. */
static void gen_invalidate(const struct cache *c, UWord block)
{
	UWord *set = set_of(c, block), key = (block << 1) | 1;
	UInt i, j;

	for (i = 0; i < c->assoc; i++) {
		if ((set[i] | 1) == key) {
			for (j = i; j + 1 < c->assoc; j++)
				set[j] = set[j + 1];
			set[c->assoc - 1] = NONE;
			return;
		}
	}
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
	for (i = 0; i < n_outer; i++)
		__builtin_prefetch(set_of(&OUTER[i], a >> OUTER[i].line_bits));
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
	UInt i, j;

	for (i = 0; i < L1D.assoc; i++)
		if ((set[i] | 1) == key)
			return;
	for (j = L1D.assoc - 1; j > 0; j--)
		set[j] = set[j - 1];
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

static void prefetch_trigger(struct wsim_icc *ic, Addr a)
{
	if (wsim_cfg.pf_nextline)
		prefetch_line(ic->fn, (a >> L1D.line_bits) + 1);
	if (wsim_cfg.pf_stride)
		stride_train(ic, a);
}

/* ---- The full model's accesses ------------------------------------------------------------------------ */

static inline void count_depth(struct wsim_fn *fn, Int depth, enum wsim_counter l2, enum wsim_counter ll)
{
	if (n_outer == 2 && depth >= 1)
		CNT(fn, l2);
	if (depth == n_outer)
		CNT(fn, ll);
}

static inline void gen_data(struct wsim_icc *ic, Addr a, UWord size, Bool store)
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
	if (m1)
		depth = outer_fill(b1 << L1D.line_bits);
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
		return;
	}
	if (depth >= 0) {
		CNT(fn, WC_LOAD_MISS);
		ic->dmiss++;
		if (depth >= n_outer - 1)
			CNT(fn, WC_LL_LOAD);
		count_depth(fn, depth, WC_L2_LOAD_MISS, WC_LL_LOAD_MISS);
	}
	if ((depth >= 0 || pf1 || pf2) && (wsim_cfg.pf_nextline || wsim_cfg.pf_stride))
		prefetch_trigger(ic, a);
}

static inline void gen_fetch(struct wsim_icc *ic)
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
VG_REGPARM(1) void wsim_h_fetch(struct wsim_icc *ic)
{
	gen_fetch(ic);
}

VG_REGPARM(3) void wsim_h_load(struct wsim_icc *ic, Addr a, UWord size)
{
	gen_data(ic, a, size, False);
}

VG_REGPARM(3) void wsim_h_store(struct wsim_icc *ic, Addr a, UWord size)
{
	gen_data(ic, a, size, True);
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

static UChar bim_ctr[1 << (BIM_HIST_BITS + BIM_ADDR_BITS)];
static UWord bim_hist;

static Bool bimodal_mispredict(Addr pc, Bool taken)
{
	UWord i = ((bim_hist & ((1 << BIM_HIST_BITS) - 1)) << BIM_ADDR_BITS) | (pc & ((1 << BIM_ADDR_BITS) - 1));
	Bool pred = bim_ctr[i] >= 2;

	bim_hist = (bim_hist << 1) | taken;
	if (taken) {
		if (bim_ctr[i] < 3)
			bim_ctr[i]++;
	} else if (bim_ctr[i] > 0) {
		bim_ctr[i]--;
	}
	return pred != taken;
}

/* gshare: 2^bits 2-bit counters indexed by the address xor as many bits of global history. */
static UChar *gs_ctr;
static UWord gs_hist, gs_mask;

static Bool gshare_mispredict(Addr pc, Bool taken)
{
	UWord i = (pc ^ gs_hist) & gs_mask;
	Bool pred = gs_ctr[i] >= 2;

	gs_hist = ((gs_hist << 1) | taken) & gs_mask;
	if (taken) {
		if (gs_ctr[i] < 3)
			gs_ctr[i]++;
	} else if (gs_ctr[i] > 0) {
		gs_ctr[i]--;
	}
	return pred != taken;
}

/*
 * A TAGE-like predictor (after Seznec and Michaud): a bimodal base table and four tagged tables indexed by
 * the address hashed with the last 4, 12, 36 and 108 outcomes of conditional branches (geometric lengths).
 * The longest matching table provides the prediction; a newly allocated entry defers to the next-longest
 * match while a global counter says that works better; a misprediction allocates an entry in a longer
 * table; the "useful" bits age by halving every 256K branches. The history lives in two 64-bit words and
 * each table hashes its slice by multiplication, which costs a few instructions per table where TAGE's
 * usual folded registers cost a dozen updates per branch. Deterministic: allocation uses a fixed LFSR.
 */
#define TAGE_NT 4
#define TAGE_BITS 10
#define TAGE_TAG_BITS 10
#define TAGE_BASE_BITS 13

struct tage_ent {
	Char ctr; /* 3-bit signed: -4..3, taken when >= 0 */
	UChar u;
	UShort tag;
};

static struct tage_ent tage_tab[TAGE_NT][1 << TAGE_BITS];
static UChar tage_base[1 << TAGE_BASE_BITS];
static ULong tage_h0, tage_h1; /* the last 128 outcomes, newest in bit 0 of h0 */
static Int tage_use_alt;
static UInt tage_lfsr = 0xACE1u;
static UInt tage_tick;

static void tage_init(void)
{
	Int i, j;

	for (i = 0; i < TAGE_NT; i++) {
		for (j = 0; j < (1 << TAGE_BITS); j++) {
			tage_tab[i][j].ctr = 0;
			tage_tab[i][j].u = 0;
			tage_tab[i][j].tag = 0xffff; /* never a valid tag */
		}
	}
	for (j = 0; j < (1 << TAGE_BASE_BITS); j++)
		tage_base[j] = 2; /* weakly taken */
}

/* A 64-bit hash of the history slice a table uses (its length is fixed per table). */
static inline ULong tage_slice(Int i)
{
	switch (i) {
	case 0: return (tage_h0 & 0xf) * 0x9E3779B97F4A7C15ULL;
	case 1: return (tage_h0 & 0xfff) * 0x9E3779B97F4A7C15ULL;
	case 2: return (tage_h0 & 0xfffffffffULL) * 0x9E3779B97F4A7C15ULL;
	default: return tage_h0 * 0x9E3779B97F4A7C15ULL + (tage_h1 & 0xfffffffffffULL) * 0xC2B2AE3D27D4EB4FULL;
	}
}

static inline void sat_update(UChar *c, Bool taken)
{
	if (taken) {
		if (*c < 3)
			(*c)++;
	} else if (*c > 0) {
		(*c)--;
	}
}

static Bool tage_mispredict(Addr pc, Bool taken)
{
	UInt idx[TAGE_NT], tag[TAGE_NT];
	Int i, prov = -1, alt = -1;
	UChar *base = &tage_base[(pc ^ (pc >> TAGE_BASE_BITS)) & ((1 << TAGE_BASE_BITS) - 1)];
	Bool base_pred = *base >= 2, alt_pred, pred, prov_pred = False, weak = False;
	ULong p = pc * 0xff51afd7ed558ccdULL;

#pragma GCC unroll 4
	for (i = 0; i < TAGE_NT; i++) {
		ULong h = tage_slice(i) ^ (p + (ULong)i * 0x632BE59BD9B4E019ULL);

		idx[i] = (UInt)(h >> (64 - TAGE_BITS));
		tag[i] = (UInt)(h >> 20) & ((1 << TAGE_TAG_BITS) - 1);
	}
#pragma GCC unroll 4
	for (i = TAGE_NT - 1; i >= 0; i--) {
		if (tage_tab[i][idx[i]].tag == tag[i]) {
			if (prov < 0)
				prov = i;
			else if (alt < 0)
				alt = i;
		}
	}
	alt_pred = alt >= 0 ? tage_tab[alt][idx[alt]].ctr >= 0 : base_pred;
	if (prov >= 0) {
		struct tage_ent *e = &tage_tab[prov][idx[prov]];

		prov_pred = e->ctr >= 0;
		weak = (e->ctr == 0 || e->ctr == -1) && e->u == 0;
		pred = weak && tage_use_alt >= 0 ? alt_pred : prov_pred;

		if (weak && prov_pred != alt_pred) {
			if (alt_pred == taken) {
				if (tage_use_alt < 7)
					tage_use_alt++;
			} else if (tage_use_alt > -8) {
				tage_use_alt--;
			}
		}
		if (prov_pred != alt_pred) {
			if (prov_pred == taken) {
				if (e->u < 3)
					e->u++;
			} else if (e->u > 0) {
				e->u--;
			}
		}
		if (taken) {
			if (e->ctr < 3)
				e->ctr++;
		} else if (e->ctr > -4) {
			e->ctr--;
		}
		/* A provider that has not learnt yet keeps the base trained too. */
		if (weak && alt < 0)
			sat_update(base, taken);
	} else {
		pred = base_pred;
		sat_update(base, taken);
	}

	if (pred != taken && prov < TAGE_NT - 1) {
		Int start = prov + 1, chosen = -1;

		/* Skip one candidate at random now and then, so that two branches do not fight over one table. */
		tage_lfsr = (tage_lfsr >> 1) ^ (-(tage_lfsr & 1u) & 0xB400u);
		if ((tage_lfsr & 3) == 0 && start < TAGE_NT - 1 && tage_tab[start][idx[start]].u == 0 &&
		    tage_tab[start + 1][idx[start + 1]].u == 0)
			start++;
		for (i = start; i < TAGE_NT; i++) {
			if (tage_tab[i][idx[i]].u == 0) {
				chosen = i;
				break;
			}
		}
		if (chosen >= 0) {
			struct tage_ent *e = &tage_tab[chosen][idx[chosen]];

			e->tag = tag[chosen];
			e->ctr = taken ? 0 : -1;
			e->u = 0;
		} else {
			for (i = prov + 1; i < TAGE_NT; i++)
				if (tage_tab[i][idx[i]].u > 0)
					tage_tab[i][idx[i]].u--;
		}
	}
	if (UNLIKELY(++tage_tick == (1u << 18))) {
		Int j;

		tage_tick = 0;
		for (i = 0; i < TAGE_NT; i++)
			for (j = 0; j < (1 << TAGE_BITS); j++)
				tage_tab[i][j].u >>= 1;
	}

	tage_h1 = (tage_h1 << 1) | (tage_h0 >> 63);
	tage_h0 = (tage_h0 << 1) | taken;
	return pred != taken;
}

static inline void cond_count(struct wsim_icc *ic, Bool miss)
{
	CNT(ic->fn, WC_COND);
	if (miss) {
		CNT(ic->fn, WC_COND_MISS);
		ic->bmiss++;
	}
}

VG_REGPARM(2) void wsim_h_cond_bimodal(struct wsim_icc *ic, UWord taken)
{
	cond_count(ic, bimodal_mispredict(ic->addr, taken & 1));
}

VG_REGPARM(2) void wsim_h_cond_gshare(struct wsim_icc *ic, UWord taken)
{
	cond_count(ic, gshare_mispredict(ic->addr, taken & 1));
}

VG_REGPARM(2) void wsim_h_cond_tage(struct wsim_icc *ic, UWord taken)
{
	cond_count(ic, tage_mispredict(ic->addr, taken & 1));
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

void wsim_sim_init(void)
{
	Int i;
	UWord n;

	cache_init(&L1I, &wsim_cfg.l1i);
	cache_init(&L1D, &wsim_cfg.l1d);
	n_outer = wsim_cfg.n_outer;
	for (i = 0; i < n_outer; i++)
		cache_init(&OUTER[i], &wsim_cfg.outer[i]);

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
