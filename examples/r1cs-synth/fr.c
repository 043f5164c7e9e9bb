/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fr.c - BLS12-381 Fr arithmetic in Montgomery form: add, sub, neg, CIOS multiplication, conversions. */
#include "fr.h"

typedef unsigned __int128 u128;

/* The constants were computed with Python's big integers and agree with blst's (see tests/test-fr.c). */
const struct fr FR_MODULUS = { { 0xffffffff00000001, 0x53bda402fffe5bfe,
				 0x3339d80809a1d805, 0x73eda753299d7d48 } };
const struct fr FR_ZERO = { { 0, 0, 0, 0 } };
const struct fr FR_ONE = { { 0x00000001fffffffe, 0x5884b7fa00034802,
			     0x998c4fefecbc4ff5, 0x1824b159acc5056f } };
const struct fr FR_R2 = { { 0xc999e990f3f29c6d, 0x2b6cedcb87925c23,
			    0x05d314967254398f, 0x0748d9d99f59ff11 } };
/* -r^-1 mod 2^64, the Montgomery reduction factor. */
static const uint64_t FR_INV = 0xfffffffeffffffff;

/*
 * Written out limb by limb on scalars: with arrays and loops, GCC -O2 neither unrolls nor keeps the
 * accumulator in registers, and a multiplication costs ~700 instructions instead of ~150. blst does the
 * same work in hand-written assembly.
 */
#define R0 0xffffffff00000001
#define R1 0x53bda402fffe5bfe
#define R2 0x3339d80809a1d805
#define R3 0x73eda753299d7d48

#if defined(__x86_64__)
#include <x86intrin.h>
/* The carry-flag intrinsics give GCC straight adc/sbb chains; with 128-bit sums it shuffles flags through
 * registers and doubles the instruction count. */
static inline uint64_t adc(uint64_t a, uint64_t b, uint64_t *carry)
{
	unsigned long long s;
	*carry = _addcarry_u64((unsigned char)*carry, a, b, &s);
	return s;
}

static inline uint64_t sbb(uint64_t a, uint64_t b, uint64_t *borrow)
{
	unsigned long long d;
	*borrow = _subborrow_u64((unsigned char)*borrow, a, b, &d);
	return d;
}
#else
/* a + b + carry, returning the low word and leaving the carry (0 or 1) in *carry. */
static inline uint64_t adc(uint64_t a, uint64_t b, uint64_t *carry)
{
	u128 s = (u128)a + b + *carry;
	*carry = (uint64_t)(s >> 64);
	return (uint64_t)s;
}

/* a - b - borrow, leaving the borrow (0 or 1) in *borrow. */
static inline uint64_t sbb(uint64_t a, uint64_t b, uint64_t *borrow)
{
	u128 d = (u128)a - b - *borrow;
	*borrow = (uint64_t)(d >> 64) & 1;
	return (uint64_t)d;
}
#endif

/* a + b * c + carry, low word returned, high word in *carry (cannot overflow 128 bits). */
static inline uint64_t mac(uint64_t a, uint64_t b, uint64_t c, uint64_t *carry)
{
	u128 s = (u128)b * c + a + *carry;
	*carry = (uint64_t)(s >> 64);
	return (uint64_t)s;
}

/* out = t - r when t (with t_hi above it) is >= r, else t; a mask, not a branch, as in blst. */
static inline void reduce_once(struct fr *out, uint64_t t0, uint64_t t1, uint64_t t2, uint64_t t3,
			       uint64_t t_hi)
{
	uint64_t borrow = 0;
	uint64_t s0 = sbb(t0, R0, &borrow);
	uint64_t s1 = sbb(t1, R1, &borrow);
	uint64_t s2 = sbb(t2, R2, &borrow);
	uint64_t s3 = sbb(t3, R3, &borrow);
	/* Keep t when the subtraction borrowed past the carry word, i.e. t < r. */
	uint64_t keep = 0 - (uint64_t)(borrow > t_hi);
	out->l[0] = (t0 & keep) | (s0 & ~keep);
	out->l[1] = (t1 & keep) | (s1 & ~keep);
	out->l[2] = (t2 & keep) | (s2 & ~keep);
	out->l[3] = (t3 & keep) | (s3 & ~keep);
}

void fr_add(struct fr *out, const struct fr *a, const struct fr *b)
{
	uint64_t carry = 0;
	uint64_t t0 = adc(a->l[0], b->l[0], &carry);
	uint64_t t1 = adc(a->l[1], b->l[1], &carry);
	uint64_t t2 = adc(a->l[2], b->l[2], &carry);
	uint64_t t3 = adc(a->l[3], b->l[3], &carry);
	reduce_once(out, t0, t1, t2, t3, carry);
}

void fr_double(struct fr *out, const struct fr *a)
{
	fr_add(out, a, a);
}

void fr_sub(struct fr *out, const struct fr *a, const struct fr *b)
{
	uint64_t borrow = 0;
	uint64_t t0 = sbb(a->l[0], b->l[0], &borrow);
	uint64_t t1 = sbb(a->l[1], b->l[1], &borrow);
	uint64_t t2 = sbb(a->l[2], b->l[2], &borrow);
	uint64_t t3 = sbb(a->l[3], b->l[3], &borrow);
	/* On borrow the difference wrapped by 2^256: add r back. */
	uint64_t mask = 0 - borrow, carry = 0;
	out->l[0] = adc(t0, R0 & mask, &carry);
	out->l[1] = adc(t1, R1 & mask, &carry);
	out->l[2] = adc(t2, R2 & mask, &carry);
	out->l[3] = adc(t3, R3 & mask, &carry);
}

void fr_neg(struct fr *out, const struct fr *a)
{
	/* r - a, except that -0 must stay 0 (not r, which is not reduced). */
	uint64_t nz = 0 - (uint64_t)!fr_is_zero(a), borrow = 0;
	uint64_t t0 = sbb(R0, a->l[0], &borrow);
	uint64_t t1 = sbb(R1, a->l[1], &borrow);
	uint64_t t2 = sbb(R2, a->l[2], &borrow);
	uint64_t t3 = sbb(R3, a->l[3], &borrow);
	out->l[0] = t0 & nz;
	out->l[1] = t1 & nz;
	out->l[2] = t2 & nz;
	out->l[3] = t3 & nz;
}

/*
 * One CIOS step: add a * b_i into the accumulator t0..t3 and, interleaved, m * r with m = t0 * -r^-1
 * mod 2^64 (which zeroes the lowest word), shifting the accumulator down one word. Because r's top limb
 * is below (2^64 - 1) / 2 - 1, the accumulator never needs a fifth word (the "no-carry" form of CIOS
 * used by gnark-crypto), and stays below 2r.
 */
#define CIOS_STEP(bi)                                                                  \
	do {                                                                           \
		uint64_t A = 0, C = 0;                                                 \
		t0 = mac(t0, a0, (bi), &A);                                            \
		uint64_t m = t0 * FR_INV;                                              \
		(void)mac(t0, m, R0, &C);                                              \
		t1 = mac(t1, a1, (bi), &A);                                            \
		t0 = mac(t1, m, R1, &C);                                               \
		t2 = mac(t2, a2, (bi), &A);                                            \
		t1 = mac(t2, m, R2, &C);                                               \
		t3 = mac(t3, a3, (bi), &A);                                            \
		t2 = mac(t3, m, R3, &C);                                               \
		t3 = C + A;                                                            \
	} while (0)

void fr_mul(struct fr *out, const struct fr *a, const struct fr *b)
{
	const uint64_t a0 = a->l[0], a1 = a->l[1], a2 = a->l[2], a3 = a->l[3];
	const uint64_t b0 = b->l[0], b1 = b->l[1], b2 = b->l[2], b3 = b->l[3];
	uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0;

	CIOS_STEP(b0);
	CIOS_STEP(b1);
	CIOS_STEP(b2);
	CIOS_STEP(b3);
	/* The result is below 2r, so one conditional subtraction reduces it. */
	reduce_once(out, t0, t1, t2, t3, 0);
}

void fr_sqr(struct fr *out, const struct fr *a)
{
	fr_mul(out, a, a);
}

void fr_inv(struct fr *out, const struct fr *a)
{
	/* Exponent r - 2: r's lowest limb is 0xffffffff00000001, so r - 2 only changes that limb. */
	const uint64_t e[4] = { R0 - 2, R1, R2, R3 };
	struct fr acc = FR_ONE, base = *a;
	for (int i = 0; i < 4; i++) {
		for (int bit = 0; bit < 64; bit++) {
			if ((e[i] >> bit) & 1)
				fr_mul(&acc, &acc, &base);
			fr_sqr(&base, &base);
		}
	}
	*out = acc;
}

void fr_from_canonical(struct fr *out, const uint64_t canon[4])
{
	struct fr c = { { canon[0], canon[1], canon[2], canon[3] } };
	fr_mul(out, &c, &FR_R2);
}

void fr_to_canonical(uint64_t canon[4], const struct fr *a)
{
	static const struct fr one_canonical = { { 1, 0, 0, 0 } };
	struct fr c;
	fr_mul(&c, a, &one_canonical);
	for (int i = 0; i < 4; i++)
		canon[i] = c.l[i];
}

void fr_from_u64(struct fr *out, uint64_t v)
{
	const uint64_t canon[4] = { v, 0, 0, 0 };
	fr_from_canonical(out, canon);
}
