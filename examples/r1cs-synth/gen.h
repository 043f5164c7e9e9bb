/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gen.h - the seeded circuit generator's choices: which gadget, which variables, which constants. */
#ifndef R1CS_GEN_H
#define R1CS_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "cs.h"
#include "rng.h"

/*
 * Nothing here depends on the LC storage, and every choice comes from cs->rng in a fixed order, so all
 * variants draw the same circuit from the same seed.
 *
 * The mix (WORKLOAD.md, shares of constraints): boolean ~25%, xor ~53%, and/ch/maj ~20%, Poseidon ~1%,
 * packing ~0.2%, MultiEq ~0.1%. A MultiEq gadget also emits the boolean constraints of the ~240 result
 * bits of its additions (as UInt32::addmany does), which is where most boolean constraints come from in
 * SHA-256; so the per-draw weights below are solved for the per-constraint shares: with w_m MultiEq draws
 * per draw, constraints per draw E = 1 + 241 w_m, and share_x = w_x / E (boolean: (w_b + 241 w_m) / E).
 */
enum gadget {
	GADGET_BOOLEAN, GADGET_XOR, GADGET_ANDLIKE, GADGET_POSEIDON, GADGET_PACKING, GADGET_MULTIEQ,
};
static const uint32_t gen_weights[] = {   /* per 100000 draws */
	[GADGET_BOOLEAN] = 1186,
	[GADGET_XOR] = 70750,
	[GADGET_ANDLIKE] = 26350,
	[GADGET_POSEIDON] = 1318,
	[GADGET_PACKING] = 264,
	[GADGET_MULTIEQ] = 132,
};
#define GEN_WEIGHT_TOTAL 100000

#define GEN_PUBLIC_INPUTS 16     /* ONE and 15 public inputs */
#define GEN_PRELOAD 8192         /* witness bits allocated before the first constraint; >= 4128, the
                                    deepest word an addition reaches back for */
#define GEN_RECENT 4096          /* "recent": ~90% of aux references fall in the last 4K variables */
#define GEN_RECENT_PERCENT 90

#define POSEIDON_MIN_STATE 9     /* 9-12 aux terms plus the ONE term: 10-13 terms in A and B */
#define POSEIDON_MAX_STATE 12
#define PACKING_BITS 255
#define MULTIEQ_MAX_OPERANDS 5
#define FR_CAPACITY_BITS 254     /* Fr::CAPACITY: MultiEq accumulates below it */

static inline enum gadget gen_draw(struct cs *cs)
{
	uint32_t x = (uint32_t)rng_below(&cs->rng, GEN_WEIGHT_TOTAL);
	for (enum gadget g = GADGET_BOOLEAN; g < GADGET_MULTIEQ; g++) {
		if (x < gen_weights[g])
			return g;
		x -= gen_weights[g];
	}
	return GADGET_MULTIEQ;
}

static inline size_t gen_alloc_bit(struct cs *cs, bool bit)
{
	return cs_alloc(cs, bit ? &FR_ONE : &FR_ZERO);
}

/* The witness bit of a variable (anything but ONE counts as 0: only bit-valued ones matter). */
static inline bool gen_bit(const struct cs *cs, size_t v)
{
	return fr_eq(&cs->aux.v[v], &FR_ONE);
}

/* An aux variable: mostly among the last GEN_RECENT allocated, else anywhere (SHA-256's schedule, constants). */
static inline size_t gen_pick_aux(struct cs *cs)
{
	size_t n = cs->aux.len;
	size_t recent = n < GEN_RECENT ? n : GEN_RECENT;
	size_t v;
	if (rng_below(&cs->rng, 100) < GEN_RECENT_PERCENT)
		v = n - 1 - rng_below(&cs->rng, recent);
	else
		v = rng_below(&cs->rng, n);
	STAT(ST_AUX_REFS, 1);
	STAT(ST_AUX_RECENT, n - v <= GEN_RECENT);
	return v;
}

/* The first of `span` consecutive aux variables among the recent ones (needs aux.len >= span). */
static inline size_t gen_pick_window(struct cs *cs, size_t span)
{
	size_t room = cs->aux.len - span;
	return room - rng_below(&cs->rng, (room < GEN_RECENT ? room : GEN_RECENT) + 1);
}

/* 2^k in Montgomery form, by doubling as the gadgets do. */
static inline void gen_pow2(struct fr *out, size_t k)
{
	*out = FR_ONE;
	for (size_t i = 0; i < k; i++)
		fr_double(out, out);
}

/*
 * The operands of one UInt32::addmany: 3-5 words of 32 consecutive bit variables. One is the previous
 * addition's result (the newest variables) when there is one; half the time one is an older word (like
 * SHA-256's h, a few rounds back) and half the time one is a constant (K_t), whose set bits add to ONE;
 * the rest are recent. Their order is shuffled, so some words arrive below earlier ones.
 */
struct gen_operand {
	bool constant;
	uint32_t constant_value;
	size_t start;
};

static inline size_t gen_addmany_operands(struct cs *cs, struct gen_operand *ops, size_t prev_result)
{
	size_t n = cs->aux.len;
	size_t k = 3 + rng_below(&cs->rng, 3);

	for (size_t i = 0; i < k; i++) {
		ops[i].constant = false;
		ops[i].constant_value = 0;
		ops[i].start = n - 32 - rng_below(&cs->rng, 513);  /* recent: within the last ~544 */
	}
	if (prev_result != SIZE_MAX)
		ops[0].start = prev_result;
	if (rng_below(&cs->rng, 2))
		ops[1].start = n - 32 - 1024 - rng_below(&cs->rng, 3072);  /* older: 1K-4K back */
	if (rng_below(&cs->rng, 2)) {
		ops[2].constant = true;
		ops[2].constant_value = (uint32_t)rng_next(&cs->rng);
	}
	for (size_t i = k - 1; i > 0; i--) {  /* Fisher-Yates */
		size_t j = rng_below(&cs->rng, i + 1);
		struct gen_operand t = ops[i];
		ops[i] = ops[j];
		ops[j] = t;
	}
	return k;
}

/* ONE and the public inputs, then the preloaded witness bits (private inputs, constrained later). */
static inline void gen_begin(struct cs *cs)
{
	cs_alloc_input(cs, &FR_ONE);
	for (size_t i = 1; i < GEN_PUBLIC_INPUTS; i++) {
		struct fr x;
		fr_from_u64(&x, rng_next(&cs->rng));
		cs_alloc_input(cs, &x);
	}
	for (size_t i = 0; i < GEN_PRELOAD; i++)
		gen_alloc_bit(cs, rng_below(&cs->rng, 2));
}

#endif /* R1CS_GEN_H */
