/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-fr.c - BLS12-381 Fr arithmetic against values computed independently with Python's big integers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../fr.h"

/*
 * Every expected value below was computed when the test was written with Python 3 integers, e.g.
 *	r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001; R = 1 << 256
 *	hex(R % r), hex(R * R % r), hex(a * b % r), hex(a * b * pow(R, -1, r) % r), hex(pow(a, -1, r))
 * and written as 64-bit limbs, least significant first. None comes from this implementation.
 */
static const uint64_t R_MOD_r[4] = { 0x00000001fffffffe, 0x5884b7fa00034802,
				     0x998c4fefecbc4ff5, 0x1824b159acc5056f };
static const uint64_t R2_MOD_r[4] = { 0xc999e990f3f29c6d, 0x2b6cedcb87925c23,
				      0x05d314967254398f, 0x0748d9d99f59ff11 };
static const uint64_t MODULUS[4] = { 0xffffffff00000001, 0x53bda402fffe5bfe,
				     0x3339d80809a1d805, 0x73eda753299d7d48 };
static const uint64_t R_MINUS_1[4] = { 0xffffffff00000000, 0x53bda402fffe5bfe,
				       0x3339d80809a1d805, 0x73eda753299d7d48 };
static const uint64_t R_MINUS_2[4] = { 0xfffffffeffffffff, 0x53bda402fffe5bfe,
				       0x3339d80809a1d805, 0x73eda753299d7d48 };

/* a = 0x1b2f9f0a6c4e3d5a7e8c1f2d3b4a59687766554433221100ffeeddccbbaa9988, b below: two elements < r. */
static const uint64_t A[4] = { 0xffeeddccbbaa9988, 0x7766554433221100, 0x7e8c1f2d3b4a5968, 0x1b2f9f0a6c4e3d5a };
static const uint64_t B[4] = { 0xabcdef0123456789, 0xbcdeff0123456789, 0x3645546372819fa0, 0x5e4d3c2b1a091827 };
static const uint64_t A_TIMES_B[4] = { 0xdeafefffad364a03, 0xf7e08cb837d6b169,
				       0x0dc5bfcd25add7a5, 0x19003ae4b0af1e49 };
/* a * b * R^-1 mod r: what the Montgomery product of the raw (not converted) limbs must be. */
static const uint64_t A_B_MONTGOMERY[4] = { 0xe5a949ba49c38971, 0x742bb0b8583b2723,
					    0x476a08cf58f92d74, 0x6004703d8b5104a5 };
static const uint64_t A_PLUS_B[4] = { 0xabbccccedef00110, 0xe087b04256691c8b,  /* a + b wraps past r */
				      0x81979b88a42a2103, 0x058f33e25cb9d839 };
static const uint64_t A_MINUS_B[4] = { 0x5420eeca98653200, 0x0e44fa460fdb0576, /* a - b wraps below 0 */
				       0x7b80a2d1d26a91cd, 0x30d00a327be2a27b };
static const uint64_t B_MINUS_A[4] = { 0xabdf1134679ace01, 0x4578a9bcf0235688,
				       0xb7b9353637374638, 0x431d9d20adbadacc };
static const uint64_t A_INVERSE[4] = { 0xa90c10f25c32c424, 0x5eaa067d4464c72b,
				       0x364596c0dcb7d4f0, 0x73c24390682cb60b };
static const uint64_t TWO_POW_255[4] = { 0x00000000ffffffff, 0xac425bfd0001a401,
					 0xccc627f7f65e27fa, 0x0c1258acd66282b7 };
static const uint64_t HALF[4] = { 0x7fffffff80000001, 0xa9ded2017fff2dff,  /* 2^-1 = (r + 1) / 2 */
				  0x199cec0404d0ec02, 0x39f6d3a994cebea4 };

static void assert_limbs(const uint64_t got[4], const uint64_t want[4])
{
	for (int i = 0; i < 4; i++)
		assert_int_equal(got[i], want[i]);
}

static void assert_canonical(const struct fr *x, const uint64_t want[4])
{
	uint64_t c[4];
	fr_to_canonical(c, x);
	assert_limbs(c, want);
}

static struct fr from(const uint64_t canon[4])
{
	struct fr x;
	fr_from_canonical(&x, canon);
	return x;
}

static void test_constants(void **state)
{
	(void)state;
	assert_limbs(FR_ONE.l, R_MOD_r);       /* ONE in Montgomery form is R mod r */
	assert_limbs(FR_R2.l, R2_MOD_r);
	assert_limbs(FR_MODULUS.l, MODULUS);
	assert_true(fr_is_zero(&FR_ZERO));

	const uint64_t one[4] = { 1, 0, 0, 0 };
	assert_canonical(&FR_ONE, one);
	struct fr x;
	fr_from_u64(&x, 1);
	assert_true(fr_eq(&x, &FR_ONE));
	assert_limbs(x.l, R_MOD_r);
}

static void test_mul_known_product(void **state)
{
	(void)state;
	struct fr a = from(A), b = from(B), p;

	fr_mul(&p, &a, &b);
	assert_canonical(&p, A_TIMES_B);
	fr_mul(&p, &b, &a);
	assert_canonical(&p, A_TIMES_B);

	/* The raw Montgomery product: limbs in, a * b * R^-1 mod r out. */
	struct fr ra = { { A[0], A[1], A[2], A[3] } }, rb = { { B[0], B[1], B[2], B[3] } };
	fr_mul(&p, &ra, &rb);
	assert_limbs(p.l, A_B_MONTGOMERY);

	/* ONE is the identity; (r - 1)^2 = 1; x * 0 = 0 */
	fr_mul(&p, &a, &FR_ONE);
	assert_true(fr_eq(&p, &a));
	struct fr m1 = from(R_MINUS_1);
	fr_sqr(&p, &m1);
	assert_true(fr_eq(&p, &FR_ONE));
	fr_mul(&p, &a, &FR_ZERO);
	assert_true(fr_is_zero(&p));
}

static void test_add_sub_wrap(void **state)
{
	(void)state;
	struct fr a = from(A), b = from(B), s;

	fr_add(&s, &a, &b);
	assert_canonical(&s, A_PLUS_B);
	fr_sub(&s, &a, &b);
	assert_canonical(&s, A_MINUS_B);
	fr_sub(&s, &b, &a);
	assert_canonical(&s, B_MINUS_A);

	/* (r - 1) + (r - 1) = r - 2; (r - 1) + 1 = 0 */
	struct fr m1 = from(R_MINUS_1);
	fr_add(&s, &m1, &m1);
	assert_canonical(&s, R_MINUS_2);
	fr_add(&s, &m1, &FR_ONE);
	assert_true(fr_is_zero(&s));

	fr_double(&s, &a);
	struct fr t;
	fr_add(&t, &a, &a);
	assert_true(fr_eq(&s, &t));
}

static void test_neg(void **state)
{
	(void)state;
	struct fr a = from(A), n, s;

	fr_neg(&n, &FR_ONE);
	assert_canonical(&n, R_MINUS_1);
	fr_neg(&n, &FR_ZERO);                  /* -0 is 0, not r */
	assert_true(fr_is_zero(&n));
	fr_neg(&n, &a);
	fr_add(&s, &a, &n);
	assert_true(fr_is_zero(&s));
	fr_neg(&s, &n);
	assert_true(fr_eq(&s, &a));
}

static void test_inverse(void **state)
{
	(void)state;
	struct fr a = from(A), inv, p;

	fr_inv(&inv, &a);
	assert_canonical(&inv, A_INVERSE);
	fr_mul(&p, &a, &inv);
	assert_true(fr_eq(&p, &FR_ONE));

	struct fr two;
	fr_from_u64(&two, 2);
	fr_inv(&inv, &two);
	assert_canonical(&inv, HALF);
}

static void test_powers_of_two(void **state)
{
	(void)state;
	/* The gadgets' coefficients 2^i come from repeated doubling of ONE. */
	struct fr x = FR_ONE;
	for (int i = 0; i < 255; i++)
		fr_double(&x, &x);
	assert_canonical(&x, TWO_POW_255);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constants),
		cmocka_unit_test(test_mul_known_product),
		cmocka_unit_test(test_add_sub_wrap),
		cmocka_unit_test(test_neg),
		cmocka_unit_test(test_inverse),
		cmocka_unit_test(test_powers_of_two),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
