/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-indexer-impl.h - the indexer and LC tests, instantiated once per storage variant by test-indexer.c. */

/* Included with LC_NAME and LC_INLINE set; LCV(x) names the variant's x, as in lc-impl.h. Indexers are
 * dropped through test_cs, whose pool vec-pool's drop fills (set up and released around each test). */

static struct LCV(indexer) LCV(ix_with)(const size_t *keys, size_t n)
{
	struct LCV(indexer) ix = LCV(indexer_new)();
	for (size_t i = 0; i < n; i++)
		LCV(insert_or_update)(&ix, keys[i], &FR_ONE);
	return ix;
}

/* Keys in order and coefficients as small integers (0 for "don't check"). */
static void LCV(check)(const struct LCV(indexer) *ix, const size_t *keys, const uint64_t *coeffs, size_t n)
{
	assert_int_equal(LCV(indexer_len)(ix), n);
	const struct term *t = LCV(indexer_terms)(ix);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(t[i].key, keys[i]);
		if (coeffs && coeffs[i]) {
			struct fr want;
			fr_from_u64(&want, coeffs[i]);
			assert_true(fr_eq(&t[i].coeff, &want));
		}
	}
}

static void LCV(check_last)(const struct LCV(indexer) *ix, size_t index, size_t key)
{
	assert_int_equal(ix->last_inserted.is_some, 1);
	assert_int_equal(ix->last_inserted.index, index);
	assert_int_equal(ix->last_inserted.key, key);
}

/* The same key again updates values[last_index] in place; last_inserted does not move. */
static void LCV(test_update_last_key)(void **state)
{
	(void)state;
	struct LCV(indexer) ix = LCV(indexer_new)();
	assert_int_equal(ix.last_inserted.is_some, 0);
	LCV(insert_or_update)(&ix, 5, &FR_ONE);
	LCV(check_last)(&ix, 0, 5);
	LCV(insert_or_update)(&ix, 5, &FR_ONE);
	LCV(insert_or_update)(&ix, 5, &FR_ONE);
	LCV(check)(&ix, (size_t[]){ 5 }, (uint64_t[]){ 3 }, 1);
	LCV(check_last)(&ix, 0, 5);
	LCV(indexer_drop)(&test_cs, &ix);
}

/* key == last key + 1: push past the end, update the next slot, or insert into it. */
static void LCV(test_adjacent)(void **state)
{
	(void)state;
	struct LCV(indexer) ix = LCV(ix_with)((size_t[]){ 2, 3, 4 }, 3);
	LCV(check)(&ix, (size_t[]){ 2, 3, 4 }, (uint64_t[]){ 1, 1, 1 }, 3);
	LCV(check_last)(&ix, 2, 4);
	LCV(indexer_drop)(&test_cs, &ix);

	/* [3] then 1 (binary search, front) then 2: slot 1 holds 3, so 2 is inserted there */
	ix = LCV(ix_with)((size_t[]){ 3, 1, 2 }, 3);
	LCV(check)(&ix, (size_t[]){ 1, 2, 3 }, NULL, 3);
	LCV(check_last)(&ix, 1, 2);
	/* now 3 == last key + 1 and slot 2 holds 3: an update, last_inserted unchanged */
	LCV(insert_or_update)(&ix, 3, &FR_ONE);
	LCV(check)(&ix, (size_t[]){ 1, 2, 3 }, (uint64_t[]){ 1, 1, 2 }, 3);
	LCV(check_last)(&ix, 1, 2);
	LCV(indexer_drop)(&test_cs, &ix);
}

/* Neither shortcut applies: binary search, then a memmove insert on a miss. */
static void LCV(test_binary_search_insert)(void **state)
{
	(void)state;
	struct LCV(indexer) ix = LCV(ix_with)((size_t[]){ 10, 20, 30 }, 3);
	LCV(check_last)(&ix, 2, 30);
	LCV(insert_or_update)(&ix, 15, &FR_ONE);
	LCV(check)(&ix, (size_t[]){ 10, 15, 20, 30 }, NULL, 4);
	LCV(check_last)(&ix, 1, 15);
	LCV(insert_or_update)(&ix, 5, &FR_ONE);   /* at the front: everything moves */
	LCV(insert_or_update)(&ix, 40, &FR_ONE);  /* at the end: nothing moves */
	LCV(check)(&ix, (size_t[]){ 5, 10, 15, 20, 30, 40 }, (uint64_t[]){ 1, 1, 1, 1, 1, 1 }, 6);
	LCV(check_last)(&ix, 5, 40);
	LCV(indexer_drop)(&test_cs, &ix);
}

/* Equal keys merge: coefficients add, on a binary-search hit too, and last_inserted stays. */
static void LCV(test_merge_equal_keys)(void **state)
{
	(void)state;
	struct LCV(indexer) ix = LCV(ix_with)((size_t[]){ 10, 20, 30 }, 3);
	struct fr five;
	fr_from_u64(&five, 5);
	LCV(insert_or_update)(&ix, 10, &FR_ONE);
	LCV(insert_or_update)(&ix, 20, &five);
	LCV(check)(&ix, (size_t[]){ 10, 20, 30 }, (uint64_t[]){ 2, 6, 1 }, 3);
	LCV(check_last)(&ix, 2, 30);

	/* a - a: the coefficient becomes zero but the term stays (as in the original) */
	struct fr minus_one;
	fr_neg(&minus_one, &FR_ONE);
	LCV(insert_or_update)(&ix, 30, &minus_one);
	assert_int_equal(LCV(indexer_len)(&ix), 3);
	assert_true(fr_is_zero(&LCV(indexer_terms)(&ix)[2].coeff));
	LCV(indexer_drop)(&test_cs, &ix);
}

/* bellpepper-core's own insert_or_update scenario: 2, 3, 1, 2. */
static void LCV(test_upstream_sequence)(void **state)
{
	(void)state;
	struct LCV(indexer) ix = LCV(indexer_new)();
	LCV(insert_or_update)(&ix, 2, &FR_ONE);
	LCV(check)(&ix, (size_t[]){ 2 }, (uint64_t[]){ 1 }, 1);
	LCV(check_last)(&ix, 0, 2);
	LCV(insert_or_update)(&ix, 3, &FR_ONE);
	LCV(check)(&ix, (size_t[]){ 2, 3 }, (uint64_t[]){ 1, 1 }, 2);
	LCV(check_last)(&ix, 1, 3);
	LCV(insert_or_update)(&ix, 1, &FR_ONE);
	LCV(check)(&ix, (size_t[]){ 1, 2, 3 }, (uint64_t[]){ 1, 1, 1 }, 3);
	LCV(check_last)(&ix, 0, 1);
	LCV(insert_or_update)(&ix, 2, &FR_ONE);
	LCV(check)(&ix, (size_t[]){ 1, 2, 3 }, (uint64_t[]){ 1, 2, 1 }, 3);
	LCV(check_last)(&ix, 0, 1);
	LCV(indexer_drop)(&test_cs, &ix);
}

/* Growth: Vec allocates 4 then doubles; SmallVec stays inline up to N, then spills to the next power of 2. */
static void LCV(test_growth_and_spill)(void **state)
{
	(void)state;
	struct LCV(indexer) ix = LCV(indexer_new)();
	size_t keys[40];
	assert_false(LCV(indexer_spilled)(&ix));

	for (size_t k = 0; k < 40; k++) {
		LCV(insert_or_update)(&ix, k, &FR_ONE);
		keys[k] = k;
		size_t len = k + 1;
#if LC_INLINE == 0
		size_t want = 4;
		while (want < len)
			want *= 2;
		assert_true(LCV(indexer_spilled)(&ix));
		assert_int_equal(LCV(indexer_capacity)(&ix), want);
#else
		if (len <= LC_INLINE) {
			assert_false(LCV(indexer_spilled)(&ix));
			assert_int_equal(LCV(indexer_capacity)(&ix), LC_INLINE);
			assert_ptr_equal(LCV(indexer_terms)(&ix), (const void *)ix.values.data.inline_);
		} else {
			size_t want = 1;
			while (want < len)
				want *= 2;
			assert_true(LCV(indexer_spilled)(&ix));
			assert_int_equal(LCV(indexer_capacity)(&ix), want);
			assert_int_equal(ix.values.tag, 1);
		}
#endif
		LCV(check)(&ix, keys, NULL, len);
	}
	LCV(indexer_drop)(&test_cs, &ix);

	/* Descending keys: every insert lands at the front, across the spill, and the order holds. */
	ix = LCV(indexer_new)();
	for (size_t k = 10; k-- > 0;)
		LCV(insert_or_update)(&ix, k, &FR_ONE);
	LCV(check)(&ix, (size_t[]){ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 }, (uint64_t[]){ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 },
		   10);
	assert_true(LCV(indexer_spilled)(&ix));
	LCV(indexer_drop)(&test_cs, &ix);
}

/* eval_with_trackers and eval against values computed here; density marks only non-zero terms. */
static void LCV(test_eval)(void **state)
{
	(void)state;
	struct cs cs;
	cs_init(&cs, 1);
	struct fr v[6];
	for (int i = 0; i < 6; i++)
		fr_from_u64(&v[i], 100 + (uint64_t)i);
	cs_alloc_input(&cs, &FR_ONE);
	for (int i = 0; i < 6; i++)
		cs_alloc(&cs, &v[i]);

	/* 3*ONE + 2*x1 + x2 - x4, and x5 - x5 (a zero coefficient) */
	struct fr two, three, minus_one;
	fr_from_u64(&two, 2);
	fr_from_u64(&three, 3);
	fr_neg(&minus_one, &FR_ONE);
	struct LCV(lc) lc = LCV(lc_zero)(&cs);
	lc = LCV(lc_add)(lc, three, input_var(0));
	lc = LCV(lc_add)(lc, FR_ONE, aux_var(5));
	lc = LCV(lc_add)(lc, two, aux_var(1));
	lc = LCV(lc_add)(lc, FR_ONE, aux_var(2));
	lc = LCV(lc_add)(lc, minus_one, aux_var(4));
	lc = LCV(lc_add)(lc, minus_one, aux_var(5));

	struct fr want, t;                      /* 3 + 2*101 + 102 - 104 = 203 */
	fr_from_u64(&want, 203);
	struct fr got = LCV(eval_with_trackers)(&lc, &cs.b_input_density, &cs.b_aux_density, &cs.inputs, &cs.aux);
	assert_true(fr_eq(&got, &want));
	got = LCV(eval)(&lc, &cs.inputs, &cs.aux);
	assert_true(fr_eq(&got, &want));
	assert_int_equal(cs.b_input_density.total, 1);
	assert_int_equal(cs.b_aux_density.total, 3); /* x1, x2, x4; not x5 (zero), not x0, x3 */
	assert_int_equal(cs.b_aux_density.words[0], (1u << 1) | (1u << 2) | (1u << 4));

	/* lc + (c, &other): every coefficient of other times c */
	struct LCV(lc) other = LCV(lc_new)();
	other = LCV(lc_add)(other, two, aux_var(3));
	other = LCV(lc_add)(other, FR_ONE, aux_var(1));
	lc = LCV(lc_add_scaled)(lc, three, &other);   /* + 6*x3 + 3*x1: 203 + 618 + 303 = 1124 */
	got = LCV(eval)(&lc, &cs.inputs, &cs.aux);
	fr_from_u64(&want, 1124);
	assert_true(fr_eq(&got, &want));
	fr_from_u64(&t, 5);
	assert_true(fr_eq(&LCV(indexer_terms)(&lc.aux)[0].coeff, &t));  /* x1: 2 + 3 */

	/* enforce pushes the three evaluations */
	struct lc_op a[] = { op_add(aux_var(0)), op_add(aux_var(0)) };
	struct lc_op b[] = { op_add(input_var(0)), op_sub(aux_var(1)) };
	struct lc_closure ca = { a, 2, NULL }, cb = { b, 2, NULL }, cc = { NULL, 0, &other };
	LCV(enforce)(&cs, &ca, &cb, &cc);             /* other moved in: not dropped here */
	assert_int_equal(cs.a.len, 1);
	fr_from_u64(&want, 200);
	assert_true(fr_eq(&cs.a.v[0], &want));
	fr_from_u64(&t, 100);                         /* 1 - 101 = -100 */
	fr_neg(&want, &t);
	assert_true(fr_eq(&cs.b.v[0], &want));
	fr_from_u64(&want, 2 * 103 + 101);
	assert_true(fr_eq(&cs.c.v[0], &want));
	assert_int_equal(cs.a_aux_density.total, 1);

	LCV(lc_drop)(&cs, &lc);
	cs_release(&cs);
}
