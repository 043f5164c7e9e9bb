/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lc.h - linear combinations: the types shared by all storage variants, and each variant's declarations. */
#ifndef R1CS_LC_H
#define R1CS_LC_H

#include <stdbool.h>
#include <stddef.h>

#include "cs.h"
#include "fr.h"

/* A term `(usize, Fr)`: variable index and coefficient, 40 bytes as in the original. */
struct term {
	size_t key;
	struct fr coeff;
};
_Static_assert(sizeof(struct term) == 40, "a term is (usize, Fr): 40 bytes");

/* Option<(usize, usize)>: Rust gives it an 8-byte discriminant, so 24 bytes. */
struct last_inserted {
	size_t is_some;
	size_t index;
	size_t key;
};

/* Variable(Index::Input(i)) or Variable(Index::Aux(i)): 16 bytes. */
enum index_kind { INDEX_INPUT = 0, INDEX_AUX = 1 };
struct var {
	size_t kind;
	size_t index;
};

static inline struct var input_var(size_t i) { return (struct var){ INDEX_INPUT, i }; }
static inline struct var aux_var(size_t i) { return (struct var){ INDEX_AUX, i }; }

/*
 * What a gadget's closure `|lc| lc + (c0, v0) - (c1, v1) ...` does, as data: enforce() applies the steps in
 * order to the zero LC it made, one by-value builder call each. Or, for `|_| lc`, `take` points at an LC
 * built beforehand, which the closure moves out (the zero LC is dropped); the caller must not drop it then.
 */
struct lc_op {
	struct fr coeff;
	struct var var;
	size_t sub;          /* lc - (coeff, var) instead of lc + (coeff, var) */
};
struct lc_closure {
	const struct lc_op *ops;
	size_t n;
	void *take;          /* a struct <variant>_lc * to move out, or NULL */
};

static inline struct lc_op op_add(struct var v) { return (struct lc_op){ FR_ONE, v, 0 }; }
static inline struct lc_op op_sub(struct var v) { return (struct lc_op){ FR_ONE, v, 1 }; }
static inline struct lc_op op_add_coeff(const struct fr *c, struct var v) { return (struct lc_op){ *c, v, 0 }; }

#ifdef R1CS_ONLY_NAME
/* A one-variant build (lc-variants.c): one declaration set, named r1cs_*. */
#define LC_NAME r1cs
#define LC_INLINE R1CS_ONLY_INLINE
#define LC_POOL R1CS_ONLY_POOL
#include "lc-decl.h"
#else
/* One declaration set per storage variant: vec_*, vecpool_*, smallvec1_*, smallvec2_*, smallvec4_*. */
#define LC_NAME vec
#define LC_INLINE 0
#define LC_POOL 0
#include "lc-decl.h"
#define LC_NAME vecpool
#define LC_INLINE 0
#define LC_POOL 1
#include "lc-decl.h"
#define LC_NAME smallvec1
#define LC_INLINE 1
#define LC_POOL 0
#include "lc-decl.h"
#define LC_NAME smallvec2
#define LC_INLINE 2
#define LC_POOL 0
#include "lc-decl.h"
#define LC_NAME smallvec4
#define LC_INLINE 4
#define LC_POOL 0
#include "lc-decl.h"
#endif

/* The variants by their --lc name. The one indirect call per partition is in main, outside synthesis. */
struct lc_variant {
	const char *name;
	void (*synthesize)(struct cs *cs, size_t constraints);
	size_t lc_size;         /* sizeof(LinearCombination) */
	size_t indexer_size;    /* sizeof(Indexer) */
	const char *storage;    /* a few words on the storage */
};
extern const struct lc_variant lc_variants[];
extern const size_t lc_variant_count;
/* NULL when no variant has that name. */
const struct lc_variant *lc_variant_find(const char *name);

#endif /* R1CS_LC_H */
