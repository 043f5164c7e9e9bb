/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fr.h - the BLS12-381 scalar field Fr: 4 x 64-bit limbs in Montgomery form (R = 2^256). */
#ifndef R1CS_FR_H
#define R1CS_FR_H

#include <stdbool.h>
#include <stdint.h>

/*
 * An element of Fr, r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001 (255 bits),
 * held as a*R mod r with R = 2^256, least significant limb first: 32 bytes, like blstrs' Scalar
 * (blst_fr). Every function accepts and returns reduced values (< r); outputs may alias inputs.
 */
struct fr {
	uint64_t l[4];
};

extern const struct fr FR_ZERO;
extern const struct fr FR_ONE;      /* 1 in Montgomery form, i.e. R mod r */
extern const struct fr FR_R2;       /* R^2 mod r, converts canonical values into Montgomery form */
extern const struct fr FR_MODULUS;  /* r itself (not a field element; for tests and reduction) */

/*
 * The arithmetic lives out of line in fr.c on purpose: in the original, blstrs calls blst's assembly
 * (blst_fr_add, blst_fr_mul, ...), which are real calls that a profile names. Equality and the zero test
 * are inline, as derived PartialEq is in Rust.
 */
void fr_add(struct fr *out, const struct fr *a, const struct fr *b);
void fr_sub(struct fr *out, const struct fr *a, const struct fr *b);
void fr_double(struct fr *out, const struct fr *a);
void fr_neg(struct fr *out, const struct fr *a);
/* Montgomery product a*b*R^-1 mod r, by coarsely integrated operand scanning (CIOS). */
void fr_mul(struct fr *out, const struct fr *a, const struct fr *b);
void fr_sqr(struct fr *out, const struct fr *a);
/* a^(r-2), the inverse of a non-zero a (Fermat); 0 for 0. Slow: for tests and set-up only. */
void fr_inv(struct fr *out, const struct fr *a);

/* Conversions between canonical integers (< r, limbs least significant first) and Montgomery form. */
void fr_from_canonical(struct fr *out, const uint64_t canon[4]);
void fr_to_canonical(uint64_t canon[4], const struct fr *a);
void fr_from_u64(struct fr *out, uint64_t v);

static inline bool fr_eq(const struct fr *a, const struct fr *b)
{
	return ((a->l[0] ^ b->l[0]) | (a->l[1] ^ b->l[1]) | (a->l[2] ^ b->l[2]) | (a->l[3] ^ b->l[3])) == 0;
}

static inline bool fr_is_zero(const struct fr *a)
{
	return (a->l[0] | a->l[1] | a->l[2] | a->l[3]) == 0;
}

#endif /* R1CS_FR_H */
