/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lc-decl.h - one storage variant's types and functions; included once per variant with LC_NAME set. */

/*
 * Parameters (defined by the includer, undefined here at the end):
 *   LC_NAME    the prefix of every type and function (vec, vecpool, smallvec1, ...)
 *   LC_INLINE  0 for a Vec (pointer, capacity, length), N for a SmallVec<[term; N]>
 *   LC_POOL    1 when LC buffers come from and go back to the assignment's pool (vec-pool)
 * The same source thus yields one concrete, fully typed copy per variant, as Rust's generics do.
 */
#ifndef LCV
#define LCV__(p, n) p##_##n
#define LCV_(p, n) LCV__(p, n)
#define LCV(n) LCV_(LC_NAME, n)
#endif

#if LC_INLINE == 0
/* Vec<(usize, Fr)>: 24 bytes. */
struct LCV(store) {
	struct term *ptr;
	size_t cap;
	size_t len;
};
#else
/*
 * SmallVec<[(usize, Fr); N]> as smallvec 1.x lays it out without its `union` feature: `capacity` (the
 * length while inline, the heap capacity once spilled) and the SmallVecData enum, whose discriminant
 * takes 8 bytes before max(N * 40, 16) bytes of payload: 16 + 40 N bytes in all.
 */
struct LCV(store) {
	size_t capacity;
	size_t tag;          /* 0 Inline, 1 Heap: written as Rust writes it, never read (release build) */
	union {
		struct term inline_[LC_INLINE];
		struct {
			struct term *ptr;
			size_t len;
		} heap;
	} data;
};
#endif

/* Indexer { values, last_inserted } */
struct LCV(indexer) {
	struct LCV(store) values;
	struct last_inserted last_inserted;
};

/* LinearCombination { inputs, aux } */
struct LCV(lc) {
	struct LCV(indexer) inputs;
	struct LCV(indexer) aux;
};

/* Indexer::insert_or_update(key, || coeff, |v| *v += coeff). */
void LCV(insert_or_update)(struct LCV(indexer) *ix, size_t key, const struct fr *coeff);

/* LinearCombination::zero() as enforce makes it (from the pool in vec-pool), and a plain empty one. */
struct LCV(lc) LCV(lc_zero)(struct cs *cs);
struct LCV(lc) LCV(lc_new)(void);
/* lc + (coeff, var) and lc + (coeff, &other): take the LC by value, return it. (lc - (coeff, var) is
 * lc + (-coeff, var), as sub_unsimplified does.) */
struct LCV(lc) LCV(lc_add)(struct LCV(lc) lc, struct fr coeff, struct var var);
struct LCV(lc) LCV(lc_add_scaled)(struct LCV(lc) lc, struct fr coeff, const struct LCV(lc) *other);
struct LCV(lc) LCV(lc_clone)(const struct LCV(lc) *lc);
/* Drop: free the buffers (vec-pool: give them back to cs's pool while it has room). */
void LCV(lc_drop)(struct cs *cs, struct LCV(lc) *lc);

/* eval_with_trackers (skips zero coefficients, marks density) and eval (neither), as in bellperson. */
struct fr LCV(eval_with_trackers)(const struct LCV(lc) *lc, struct density *input_density,
				 struct density *aux_density, const struct frvec *inputs, const struct frvec *aux);
struct fr LCV(eval)(const struct LCV(lc) *lc, const struct frvec *inputs, const struct frvec *aux);

/* The prover's enforce(a, b, c): build, evaluate, track density, push to a/b/c, drop. */
void LCV(enforce)(struct cs *cs, const struct lc_closure *a, const struct lc_closure *b,
		const struct lc_closure *c);

/* Synthesize one partition of about `constraints` constraints (a gadget may overshoot by its size). */
void LCV(synthesize)(struct cs *cs, size_t constraints);

/* Inspection, for the unit tests. "spilled" means the values live on the heap. */
struct LCV(indexer) LCV(indexer_new)(void);
size_t LCV(indexer_len)(const struct LCV(indexer) *ix);
const struct term *LCV(indexer_terms)(const struct LCV(indexer) *ix);
size_t LCV(indexer_capacity)(const struct LCV(indexer) *ix);
bool LCV(indexer_spilled)(const struct LCV(indexer) *ix);
void LCV(indexer_drop)(struct cs *cs, struct LCV(indexer) *ix);

#undef LC_NAME
#undef LC_INLINE
#undef LC_POOL
