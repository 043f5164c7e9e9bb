/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cs.h - the proving assignment that synthesis fills: assignments, density trackers, a/b/c, alloc. */
#ifndef R1CS_CS_H
#define R1CS_CS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "whyslow.h"

#include "fr.h"
#include "rng.h"

/*
 * Functions the profile must name, as they are function boundaries in the original: GCC may neither
 * inline them, nor clone them (.isra/.constprop), nor change how arguments cross the call. That keeps
 * per-function attribution honest and makes by-value LCs really be copied at each call, as Rust's moves
 * of large values are (see lc-impl.h).
 */
#define R1CS_BOUNDARY __attribute__((noipa))
/* Growth paths, out of line and cold as Rust's RawVec::grow_one and smallvec's reserve_one_unchecked. */
#define R1CS_COLD __attribute__((noinline, cold))

/* Rust's slice indexing panics out of bounds; we keep the (always predicted) check and abort instead. */
void r1cs_panic_bounds(size_t index, size_t len) __attribute__((noreturn, cold));
#define R1CS_BOUNDS(i, n)                                      \
	do {                                                   \
		if (__builtin_expect((i) >= (n), 0))           \
			r1cs_panic_bounds((i), (n));           \
	} while (0)

/* malloc/realloc that abort on failure, as Rust's global allocator does. */
void *r1cs_alloc(size_t size);
void *r1cs_realloc(void *p, size_t size);

/* Vec<Fr>: first push allocates 4, then doubles (RawVec's growth for 32-byte elements). */
struct frvec {
	struct fr *v;
	size_t len;
	size_t cap;
};

void frvec_grow(struct frvec *fv) R1CS_COLD;

static inline void frvec_push(struct frvec *fv, const struct fr *x)
{
	if (fv->len == fv->cap)
		frvec_grow(fv);
	fv->v[fv->len++] = *x;
}

/* ec_gpu_gen's DensityTracker: a bit vector with one bit per variable and a running count of set bits. */
struct density {
	uint64_t *words;
	size_t len;        /* bits in use */
	size_t cap_words;
	size_t total;      /* total_density */
};

void density_grow(struct density *d) R1CS_COLD;

static inline void density_add_element(struct density *d)
{
	if (d->len == d->cap_words * 64)
		density_grow(d);
	d->len++;          /* words are zeroed on growth, so the new bit is already false */
}

static inline void density_inc(struct density *d, size_t idx)
{
	R1CS_BOUNDS(idx, d->len);  /* bv.get(idx).unwrap() */
	uint64_t bit = (uint64_t)1 << (idx & 63);
	uint64_t *w = &d->words[idx >> 6];
	if (!(*w & bit)) {
		*w |= bit;
		d->total++;
	}
}

/*
 * The LC buffer pool of the production variant (`--lc vec-pool`): an enforce takes its 3 LCs x 2 indexers
 * = 6 buffers from here and gives them back when it drops the LCs, so steady-state synthesis stops calling
 * malloc and free. Only that variant uses it.
 */
#define LC_POOL_MAX 6
struct term;
struct lc_pool {
	struct {
		struct term *ptr;
		size_t cap;
	} bufs[LC_POOL_MAX];
	size_t n;
};

/* Constants the Poseidon-like constraints draw their coefficients from (fixed per run, like an MDS matrix). */
#define POSEIDON_WIDTH 12
#define POSEIDON_ROUND_CONSTANTS 64

/* One partition's ProvingAssignment, plus the generator state that drives its circuit. */
struct cs {
	struct density a_aux_density;
	struct density b_input_density;
	struct density b_aux_density;
	struct frvec a, b, c;
	struct frvec inputs;   /* input_assignment; input 0 is ONE */
	struct frvec aux;      /* aux_assignment */
	struct lc_pool pool;

	struct rng rng;
	struct fr mds[POSEIDON_WIDTH * POSEIDON_WIDTH];
	struct fr round_constants[POSEIDON_ROUND_CONSTANTS];
};

/* Set up an empty assignment whose generator is seeded with `seed`. Aborts on out-of-memory. */
void cs_init(struct cs *cs, uint64_t seed);
/* Free everything, including buffers still held by the pool. */
void cs_release(struct cs *cs);

/* ConstraintSystem::alloc: push `value` to the aux assignment, grow the aux density trackers. */
size_t cs_alloc(struct cs *cs, const struct fr *value) R1CS_BOUNDARY;
/* alloc_input: push to the input assignment and grow b_input_density. */
size_t cs_alloc_input(struct cs *cs, const struct fr *value);

/*
 * A 64-bit digest of everything synthesis produced: the a, b and c vectors (in order) and the three
 * densities' counts. Equal digests across --lc variants mean identical results. Not cryptographic.
 */
uint64_t cs_digest(const struct cs *cs);

/* Region handles for the whyslow markers, registered once by r1cs_regions_init() before any thread. */
extern ws_region_t r1cs_region_synthesize;
extern ws_region_t r1cs_region_enforce;
extern ws_region_t r1cs_region_eval;
extern ws_region_t r1cs_region_alloc;
void r1cs_regions_init(void);

/* Counters of the generator and indexer paths, compiled in only with -DR1CS_STATS (r1cs-synth-stats). */
#ifdef R1CS_STATS
enum r1cs_stat {
	/* constraints by kind (c.boolean includes the result bits of MultiEq's additions) */
	ST_C_BOOLEAN, ST_C_XOR, ST_C_ANDLIKE, ST_C_MULTIEQ, ST_C_PACKING, ST_C_POSEIDON, ST_C_INPUT,
	/* insert_or_update's paths, and what they cost */
	ST_IOU_LAST, ST_IOU_ADJ_PUSH, ST_IOU_ADJ_UPDATE, ST_IOU_ADJ_INSERT, ST_IOU_BS_UPDATE,
	ST_IOU_BS_INSERT, ST_MEMMOVE_TERMS, ST_SPILL, ST_GROW, ST_MALLOC,
	/* builder steps lc + (c, v) / lc - (c, v) / lc + (c, &lc) terms, and those with c == ONE */
	ST_BUILD_TERMS, ST_BUILD_ONE,
	/* terms evaluated, with coefficient ONE (no multiplication), skipped as zero */
	ST_EVAL_TERMS, ST_EVAL_ONE, ST_EVAL_ZERO,
	/* aux variables picked by the bit gadgets, and those among the last GEN_RECENT */
	ST_AUX_REFS, ST_AUX_RECENT,
	ST__COUNT
};
extern _Thread_local uint64_t r1cs_stats[ST__COUNT];
#define STAT(k, n) (r1cs_stats[k] += (n))
#else
#define STAT(k, n) ((void)0)
#endif

#endif /* R1CS_CS_H */
