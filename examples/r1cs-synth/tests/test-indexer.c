/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-indexer.c - insert_or_update, growth/spilling, eval and the pool, for every LC storage variant. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../lc.h"

static struct cs test_cs;

#define LC_NAME vec
#define LC_INLINE 0
#include "test-indexer-impl.h"
#undef LC_NAME
#undef LC_INLINE

#define LC_NAME vecpool
#define LC_INLINE 0
#include "test-indexer-impl.h"
#undef LC_NAME
#undef LC_INLINE

#define LC_NAME smallvec1
#define LC_INLINE 1
#include "test-indexer-impl.h"
#undef LC_NAME
#undef LC_INLINE

#define LC_NAME smallvec2
#define LC_INLINE 2
#include "test-indexer-impl.h"
#undef LC_NAME
#undef LC_INLINE

#define LC_NAME smallvec4
#define LC_INLINE 4
#include "test-indexer-impl.h"
#undef LC_NAME
#undef LC_INLINE

/* vec-pool: enforce's zero LCs reuse the buffers that dropped LCs gave back, up to 6. */
static void test_pool_recycles(void **state)
{
	(void)state;
	struct cs cs;
	cs_init(&cs, 1);
	struct vecpool_lc lc = vecpool_lc_zero(&cs);
	assert_int_equal(lc.aux.values.cap, 0);        /* empty pool: a plain empty Vec */
	lc = vecpool_lc_add(lc, FR_ONE, aux_var(7));
	assert_int_equal(lc.aux.values.cap, 4);
	struct term *buf = lc.aux.values.ptr;
	vecpool_lc_drop(&cs, &lc);
	assert_int_equal(cs.pool.n, 1);                /* the aux buffer; the empty inputs one has none */

	lc = vecpool_lc_zero(&cs);
	assert_int_equal(cs.pool.n, 0);
	assert_ptr_equal(lc.inputs.values.ptr, buf);   /* handed out again, empty, with its capacity */
	assert_int_equal(lc.inputs.values.cap, 4);
	assert_int_equal(lc.inputs.values.len, 0);
	vecpool_lc_drop(&cs, &lc);

	/* At most LC_POOL_MAX buffers are kept; the rest are freed (ASan would flag a leak or double free). */
	struct vecpool_lc many[LC_POOL_MAX];
	for (int i = 0; i < LC_POOL_MAX; i++) {
		many[i] = vecpool_lc_new();
		many[i] = vecpool_lc_add(many[i], FR_ONE, input_var(0));
		many[i] = vecpool_lc_add(many[i], FR_ONE, aux_var(1));
	}
	for (int i = 0; i < LC_POOL_MAX; i++)
		vecpool_lc_drop(&cs, &many[i]);
	assert_int_equal(cs.pool.n, LC_POOL_MAX);
	cs_release(&cs);
}

/* The plain vec never pools. */
static void test_vec_does_not_pool(void **state)
{
	(void)state;
	struct cs cs;
	cs_init(&cs, 1);
	struct vec_lc lc = vec_lc_zero(&cs);
	lc = vec_lc_add(lc, FR_ONE, aux_var(7));
	vec_lc_drop(&cs, &lc);
	assert_int_equal(cs.pool.n, 0);
	cs_release(&cs);
}

/* The sizes the case is about: Vec 24 bytes, SmallVec<[term; N]> 16 + 40 N, Option<(usize, usize)> 24. */
static void test_sizes(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct vec_lc), 2 * (24 + 24));
	assert_int_equal(sizeof(struct vecpool_lc), 2 * (24 + 24));
	assert_int_equal(sizeof(struct smallvec1_lc), 2 * (16 + 40 * 1 + 24));
	assert_int_equal(sizeof(struct smallvec2_lc), 2 * (16 + 40 * 2 + 24));
	assert_int_equal(sizeof(struct smallvec4_lc), 2 * (16 + 40 * 4 + 24));
	assert_int_equal(lc_variant_count, 5);
	assert_ptr_equal(lc_variant_find("smallvec2")->synthesize, smallvec2_synthesize);
	assert_null(lc_variant_find("smallvec3"));
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
#define VARIANT_TESTS(p)                                                  \
	T(p##_test_update_last_key), T(p##_test_adjacent),                \
	T(p##_test_binary_search_insert), T(p##_test_merge_equal_keys),   \
	T(p##_test_upstream_sequence), T(p##_test_growth_and_spill),      \
	T(p##_test_eval)

static int setup(void **state)
{
	(void)state;
	cs_init(&test_cs, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	cs_release(&test_cs);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		VARIANT_TESTS(vec),
		VARIANT_TESTS(vecpool),
		VARIANT_TESTS(smallvec1),
		VARIANT_TESTS(smallvec2),
		VARIANT_TESTS(smallvec4),
		cmocka_unit_test(test_pool_recycles),
		cmocka_unit_test(test_vec_does_not_pool),
		cmocka_unit_test(test_sizes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
