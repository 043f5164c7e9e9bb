/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lc-variants.c - the five LC storage variants, each a concrete copy of lc-impl.h, and their table. */
#include <string.h>

#include "gen.h"
#include "lc.h"

#define VARIANT(name, prefix, what)                                                            \
	{ name, prefix##_synthesize, sizeof(struct prefix##_lc), sizeof(struct prefix##_indexer), what }

#ifdef R1CS_ONLY_NAME
/*
 * One variant per binary, its functions named alike in every build (r1cs_insert_or_update, ...): the
 * builds of the original case, where Vec and SmallVec were two compilations of the same crate. Profiles
 * then match function by function, and asm-diff compares one function between two builds.
 */
#define LC_NAME r1cs
#define LC_INLINE R1CS_ONLY_INLINE
#define LC_POOL R1CS_ONLY_POOL
#include "lc-impl.h"

const struct lc_variant lc_variants[] = {
	VARIANT(R1CS_ONLY_NAME, r1cs, R1CS_ONLY_WHAT),
};
#else
#define LC_NAME vec
#define LC_INLINE 0
#define LC_POOL 0
#include "lc-impl.h"

#define LC_NAME vecpool
#define LC_INLINE 0
#define LC_POOL 1
#include "lc-impl.h"

#define LC_NAME smallvec1
#define LC_INLINE 1
#define LC_POOL 0
#include "lc-impl.h"

#define LC_NAME smallvec2
#define LC_INLINE 2
#define LC_POOL 0
#include "lc-impl.h"

#define LC_NAME smallvec4
#define LC_INLINE 4
#define LC_POOL 0
#include "lc-impl.h"

const struct lc_variant lc_variants[] = {
	VARIANT("vec", vec, "Vec: heap pointer, capacity, length; malloc on first push, free on drop"),
	VARIANT("vec-pool", vecpool, "Vec with buffers recycled through a pool, 6 per enforce (production)"),
	VARIANT("smallvec1", smallvec1, "SmallVec with 1 term inline, spilling to the heap"),
	VARIANT("smallvec2", smallvec2, "SmallVec with 2 terms inline, spilling to the heap"),
	VARIANT("smallvec4", smallvec4, "SmallVec with 4 terms inline, spilling to the heap"),
};
#endif
const size_t lc_variant_count = sizeof(lc_variants) / sizeof(lc_variants[0]);

const struct lc_variant *lc_variant_find(const char *name)
{
	for (size_t i = 0; i < lc_variant_count; i++)
		if (!strcmp(lc_variants[i].name, name))
			return &lc_variants[i];
	return NULL;
}
