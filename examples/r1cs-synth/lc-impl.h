/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lc-impl.h - one storage variant's indexer, LC builders, eval, enforce and circuit; included per variant. */

/*
 * Included by lc-variants.c once per variant, after lc.h, with LC_NAME, LC_INLINE and LC_POOL defined (see
 * lc-decl.h). Everything after the storage primitives section is written once against those few
 * primitives; only they differ between variants, like the Vec -> SmallVec change in the
 * original, where the algorithm stayed put and only the type of `values` changed. The compiler sees the
 * concrete type in every copy: no indirection that Rust's monomorphised generics would not have.
 *
 * Moves. Rust moves the LC into every `lc + (coeff, var)` and back out. For a call that is not inlined,
 * rustc passes a large argument as a pointer to a caller-made copy and returns through a hidden pointer,
 * so each builder step copies the whole LinearCombination (96 bytes with Vec, 160 to 400 with SmallVec)
 * once or twice. The C calling convention does the same for a struct passed and returned by value: the
 * caller copies the argument to the stack, the callee writes the result through a hidden pointer. lc_add
 * takes and returns `struct lc` by value and is R1CS_BOUNDARY (noipa), so GCC can neither inline it away
 * nor rewrite its arguments (IPA-SRA) into something cheaper than the move; apply() is arranged so that
 * GCC returns straight into the running LC: two copies per step, the unelided Rust pattern, not three.
 * Whether rustc inlines `Add::add` into the closures in a given build is not known here; keeping the call
 * keeps the copies, which are the cost that grows with the size of the LC.
 */

#include <string.h>

/* ------------------------------------------------------------------------------------------------------ */
/* storage primitives                                                                                     */
/* ------------------------------------------------------------------------------------------------------ */

#if LC_INLINE == 0

/* Vec<(usize, Fr)> */

static inline size_t LCV(st_len)(const struct LCV(store) *s) { return s->len; }
static inline struct term *LCV(st_ptr)(const struct LCV(store) *s) { return s->ptr; }
static inline size_t LCV(st_cap)(const struct LCV(store) *s) { return s->cap; }
static inline bool LCV(st_spilled)(const struct LCV(store) *s) { return s->cap != 0; }

/* RawVec::grow_one: max(2 * cap, len + 1, 4) for 40-byte elements; realloc keeps the contents. */
static R1CS_COLD void LCV(st_grow_one)(struct LCV(store) *s)
{
	size_t cap = s->cap * 2;
	if (cap < s->len + 1)
		cap = s->len + 1;
	if (cap < 4)
		cap = 4;
	STAT(ST_GROW, 1);
	s->ptr = r1cs_realloc(s->cap ? s->ptr : NULL, cap * sizeof(struct term));
	s->cap = cap;
}

static inline void LCV(st_push)(struct LCV(store) *s, size_t key, const struct fr *coeff)
{
	if (s->len == s->cap)
		LCV(st_grow_one)(s);
	s->ptr[s->len].key = key;
	s->ptr[s->len].coeff = *coeff;
	s->len++;
}

static inline void LCV(st_insert)(struct LCV(store) *s, size_t index, size_t key, const struct fr *coeff)
{
	size_t len = s->len;
	if (index > len)  /* Vec::insert panics: "insertion index should be <= len" */
		r1cs_panic_bounds(index, len);
	if (len == s->cap)
		LCV(st_grow_one)(s);
	struct term *p = s->ptr + index;
	if (index < len) {
		STAT(ST_MEMMOVE_TERMS, len - index);
		memmove(p + 1, p, (len - index) * sizeof(*p));
	}
	p->key = key;
	p->coeff = *coeff;
	s->len = len + 1;
}

static inline void LCV(st_init)(struct cs *cs, struct LCV(store) *s, bool pooled)
{
	s->ptr = NULL;
	s->cap = 0;
	s->len = 0;
#if LC_POOL
	/* The pool hands out a previously used buffer with its capacity: the first push does not allocate. */
	if (pooled && cs->pool.n) {
		cs->pool.n--;
		s->ptr = cs->pool.bufs[cs->pool.n].ptr;
		s->cap = cs->pool.bufs[cs->pool.n].cap;
	}
#else
	(void)cs;
	(void)pooled;
#endif
}

static inline void LCV(st_drop)(struct cs *cs, struct LCV(store) *s)
{
	if (!s->cap)
		return;
#if LC_POOL
	if (cs->pool.n < LC_POOL_MAX) {
		cs->pool.bufs[cs->pool.n].ptr = s->ptr;
		cs->pool.bufs[cs->pool.n].cap = s->cap;
		cs->pool.n++;
		return;
	}
#else
	(void)cs;
#endif
	free(s->ptr);
}

/* Vec::clone: exactly `len` elements of capacity, none when empty. */
static inline void LCV(st_clone)(struct LCV(store) *dst, const struct LCV(store) *src)
{
	dst->ptr = NULL;
	dst->cap = src->len;
	dst->len = src->len;
	if (src->len) {
		dst->ptr = r1cs_alloc(src->len * sizeof(struct term));
		memcpy(dst->ptr, src->ptr, src->len * sizeof(struct term));
	}
}

#else /* LC_INLINE > 0 */

/* SmallVec<[(usize, Fr); LC_INLINE]>: every access first asks whether the values spilled to the heap. */

static inline bool LCV(st_spilled)(const struct LCV(store) *s) { return s->capacity > LC_INLINE; }

static inline size_t LCV(st_len)(const struct LCV(store) *s)
{
	return LCV(st_spilled)(s) ? s->data.heap.len : s->capacity;
}

static inline struct term *LCV(st_ptr)(const struct LCV(store) *s)
{
	return LCV(st_spilled)(s) ? s->data.heap.ptr : (struct term *)s->data.inline_;
}

static inline size_t LCV(st_cap)(const struct LCV(store) *s)
{
	return LCV(st_spilled)(s) ? s->capacity : LC_INLINE;
}

/* triple_mut(): (pointer, where the length lives, capacity) */
static inline struct term *LCV(st_triple_mut)(struct LCV(store) *s, size_t **len_ptr, size_t *cap)
{
	if (LCV(st_spilled)(s)) {
		*len_ptr = &s->data.heap.len;
		*cap = s->capacity;
		return s->data.heap.ptr;
	}
	*len_ptr = &s->capacity;
	*cap = LC_INLINE;
	return s->data.inline_;
}

static inline size_t LCV(next_pow2)(size_t x)
{
	return x <= 1 ? 1 : (size_t)1 << (64 - __builtin_clzll((unsigned long long)(x - 1)));
}

/* reserve_one_unchecked + try_grow: the next power of two; spilling copies the inline values out. */
static R1CS_COLD void LCV(st_reserve_one_unchecked)(struct LCV(store) *s)
{
	size_t *len_ptr, cap;
	bool unspilled = !LCV(st_spilled)(s);
	struct term *ptr = LCV(st_triple_mut)(s, &len_ptr, &cap);
	size_t len = *len_ptr;
	size_t new_cap = LCV(next_pow2)(len + 1);
	struct term *p;

	STAT(ST_GROW, 1);
	if (unspilled) {
		STAT(ST_SPILL, 1);
		p = r1cs_alloc(new_cap * sizeof(struct term));
		memcpy(p, ptr, len * sizeof(struct term));
	} else {
		p = r1cs_realloc(ptr, new_cap * sizeof(struct term));
	}
	s->tag = 1;
	s->data.heap.ptr = p;
	s->data.heap.len = len;
	s->capacity = new_cap;
}

static inline void LCV(st_push)(struct LCV(store) *s, size_t key, const struct fr *coeff)
{
	size_t *len_ptr, cap;
	struct term *ptr = LCV(st_triple_mut)(s, &len_ptr, &cap);
	if (*len_ptr == cap) {
		LCV(st_reserve_one_unchecked)(s);
		ptr = s->data.heap.ptr;
		len_ptr = &s->data.heap.len;
	}
	ptr[*len_ptr].key = key;
	ptr[*len_ptr].coeff = *coeff;
	(*len_ptr)++;
}

static inline void LCV(st_insert)(struct LCV(store) *s, size_t index, size_t key, const struct fr *coeff)
{
	size_t *len_ptr, cap;
	struct term *ptr = LCV(st_triple_mut)(s, &len_ptr, &cap);
	if (*len_ptr == cap) {
		LCV(st_reserve_one_unchecked)(s);
		ptr = s->data.heap.ptr;
		len_ptr = &s->data.heap.len;
	}
	size_t len = *len_ptr;
	if (index > len)  /* SmallVec::insert asserts index <= len */
		r1cs_panic_bounds(index, len);
	struct term *p = ptr + index;
	if (index < len) {
		STAT(ST_MEMMOVE_TERMS, len - index);
		memmove(p + 1, p, (len - index) * sizeof(*p));
	}
	*len_ptr = len + 1;
	p->key = key;
	p->coeff = *coeff;
}

static inline void LCV(st_init)(struct cs *cs, struct LCV(store) *s, bool pooled)
{
	(void)cs;
	(void)pooled;
	/* SmallVec::new(): length 0, Inline(MaybeUninit::uninit()); the inline slots are left unwritten. */
	s->capacity = 0;
	s->tag = 0;
}

static inline void LCV(st_drop)(struct cs *cs, struct LCV(store) *s)
{
	(void)cs;
	if (LCV(st_spilled)(s))
		free(s->data.heap.ptr);
}

/* Clone collects from the slice: inline when it fits, else the next power of two on the heap. */
static inline void LCV(st_clone)(struct LCV(store) *dst, const struct LCV(store) *src)
{
	size_t len = LCV(st_len)(src);
	const struct term *from = LCV(st_ptr)(src);
	if (len <= LC_INLINE) {
		dst->capacity = len;
		dst->tag = 0;
		memcpy(dst->data.inline_, from, len * sizeof(struct term));
		return;
	}
	size_t cap = LCV(next_pow2)(len);
	dst->capacity = cap;
	dst->tag = 1;
	dst->data.heap.ptr = r1cs_alloc(cap * sizeof(struct term));
	dst->data.heap.len = len;
	memcpy(dst->data.heap.ptr, from, len * sizeof(struct term));
}

#endif /* LC_INLINE */

/* ------------------------------------------------------------------------------------------------------ */
/* the indexer (bellpepper-core lc.rs), written once                                                      */
/* ------------------------------------------------------------------------------------------------------ */

static inline void LCV(set_last)(struct LCV(indexer) *ix, size_t index, size_t key)
{
	ix->last_inserted.is_some = 1;
	ix->last_inserted.index = index;
	ix->last_inserted.key = key;
}

/* slice::binary_search_by_key(&key, |(k, _)| *k): Ok(i) -> true and *at = i; Err(i) -> false and *at = i. */
static inline bool LCV(binary_search)(const struct term *v, size_t len, size_t key, size_t *at)
{
	size_t lo = 0, hi = len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		size_t k = v[mid].key;
		if (k == key) {
			*at = mid;
			return true;
		}
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return false;
}

R1CS_BOUNDARY void LCV(insert_or_update)(struct LCV(indexer) *ix, size_t key, const struct fr *coeff)
{
	struct LCV(store) *values = &ix->values;

	if (ix->last_inserted.is_some) {
		size_t last_index = ix->last_inserted.index;
		size_t last_key = ix->last_inserted.key;
		if (last_key == key) {
			/* update the same key again */
			STAT(ST_IOU_LAST, 1);
			R1CS_BOUNDS(last_index, LCV(st_len)(values));
			struct term *t = &LCV(st_ptr)(values)[last_index];
			fr_add(&t->coeff, &t->coeff, coeff);
			return;
		} else if (last_key + 1 == key) {
			/* the next key: look only at the slot after the last insertion */
			size_t i = last_index + 1;
			if (i >= LCV(st_len)(values)) {
				STAT(ST_IOU_ADJ_PUSH, 1);
				LCV(st_push)(values, key, coeff);
				LCV(set_last)(ix, i, key);
			} else if (LCV(st_ptr)(values)[i].key == key) {
				STAT(ST_IOU_ADJ_UPDATE, 1);
				struct term *t = &LCV(st_ptr)(values)[i];
				fr_add(&t->coeff, &t->coeff, coeff);
			} else {
				STAT(ST_IOU_ADJ_INSERT, 1);
				LCV(st_insert)(values, i, key, coeff);
				LCV(set_last)(ix, i, key);
			}
			return;
		}
	}

	size_t i;
	if (LCV(binary_search)(LCV(st_ptr)(values), LCV(st_len)(values), key, &i)) {
		STAT(ST_IOU_BS_UPDATE, 1);
		struct term *t = &LCV(st_ptr)(values)[i];
		fr_add(&t->coeff, &t->coeff, coeff);
	} else {
		STAT(ST_IOU_BS_INSERT, 1);
		LCV(st_insert)(values, i, key, coeff);
		LCV(set_last)(ix, i, key);
	}
}

struct LCV(indexer) LCV(indexer_new)(void)
{
	struct LCV(indexer) ix;
	LCV(st_init)(NULL, &ix.values, false);
	ix.last_inserted = (struct last_inserted){ 0, 0, 0 };
	return ix;
}

size_t LCV(indexer_len)(const struct LCV(indexer) *ix) { return LCV(st_len)(&ix->values); }
const struct term *LCV(indexer_terms)(const struct LCV(indexer) *ix) { return LCV(st_ptr)(&ix->values); }
size_t LCV(indexer_capacity)(const struct LCV(indexer) *ix) { return LCV(st_cap)(&ix->values); }
bool LCV(indexer_spilled)(const struct LCV(indexer) *ix) { return LCV(st_spilled)(&ix->values); }
void LCV(indexer_drop)(struct cs *cs, struct LCV(indexer) *ix) { LCV(st_drop)(cs, &ix->values); }

/* ------------------------------------------------------------------------------------------------------ */
/* linear combinations                                                                                    */
/* ------------------------------------------------------------------------------------------------------ */

static inline struct LCV(lc) LCV(lc_make)(struct cs *cs, bool pooled)
{
	struct LCV(lc) lc;
	/* None also gets its payload zeroed (two stores Rust skips) so that no uninitialized value is copied
	 * by the moves that follow; the inline slots of a SmallVec do stay unwritten, as in Rust. */
	LCV(st_init)(cs, &lc.inputs.values, pooled);
	lc.inputs.last_inserted = (struct last_inserted){ 0, 0, 0 };
	LCV(st_init)(cs, &lc.aux.values, pooled);
	lc.aux.last_inserted = (struct last_inserted){ 0, 0, 0 };
	return lc;
}

struct LCV(lc) LCV(lc_zero)(struct cs *cs) { return LCV(lc_make)(cs, true); }
struct LCV(lc) LCV(lc_new)(void) { return LCV(lc_make)(NULL, false); }

R1CS_BOUNDARY struct LCV(lc) LCV(lc_add)(struct LCV(lc) lc, struct fr coeff, struct var var)
{
	STAT(ST_BUILD_TERMS, 1);
	STAT(ST_BUILD_ONE, fr_eq(&coeff, &FR_ONE));
	if (var.kind == INDEX_INPUT)
		LCV(insert_or_update)(&lc.inputs, var.index, &coeff);
	else
		LCV(insert_or_update)(&lc.aux, var.index, &coeff);
	return lc;
}

R1CS_BOUNDARY struct LCV(lc) LCV(lc_add_scaled)(struct LCV(lc) lc, struct fr coeff,
						 const struct LCV(lc) *other)
{
	const struct term *t = LCV(st_ptr)(&other->inputs.values);
	size_t n = LCV(st_len)(&other->inputs.values);
	for (size_t i = 0; i < n; i++) {
		struct fr c;
		fr_mul(&c, &t[i].coeff, &coeff);
		STAT(ST_BUILD_TERMS, 1);
		STAT(ST_BUILD_ONE, fr_eq(&c, &FR_ONE));
		LCV(insert_or_update)(&lc.inputs, t[i].key, &c);
	}
	t = LCV(st_ptr)(&other->aux.values);
	n = LCV(st_len)(&other->aux.values);
	for (size_t i = 0; i < n; i++) {
		struct fr c;
		fr_mul(&c, &t[i].coeff, &coeff);
		STAT(ST_BUILD_TERMS, 1);
		STAT(ST_BUILD_ONE, fr_eq(&c, &FR_ONE));
		LCV(insert_or_update)(&lc.aux, t[i].key, &c);
	}
	return lc;
}

struct LCV(lc) LCV(lc_clone)(const struct LCV(lc) *lc)
{
	struct LCV(lc) out;
	LCV(st_clone)(&out.inputs.values, &lc->inputs.values);
	out.inputs.last_inserted = lc->inputs.last_inserted;
	LCV(st_clone)(&out.aux.values, &lc->aux.values);
	out.aux.last_inserted = lc->aux.last_inserted;
	return out;
}

void LCV(lc_drop)(struct cs *cs, struct LCV(lc) *lc)
{
	LCV(st_drop)(cs, &lc->inputs.values);
	LCV(st_drop)(cs, &lc->aux.values);
}

/* ------------------------------------------------------------------------------------------------------ */
/* the prover (bellperson's ProvingAssignment)                                                            */
/* ------------------------------------------------------------------------------------------------------ */

R1CS_BOUNDARY struct fr LCV(eval_with_trackers)(const struct LCV(lc) *lc, struct density *input_density,
						 struct density *aux_density, const struct frvec *inputs,
						 const struct frvec *aux)
{
	WS_REGION_BEGIN_H(r1cs_region_eval);
	struct fr acc = FR_ZERO;

	const struct term *t = LCV(st_ptr)(&lc->inputs.values);
	size_t n = LCV(st_len)(&lc->inputs.values);
	for (size_t i = 0; i < n; i++) {
		if (fr_is_zero(&t[i].coeff)) {
			STAT(ST_EVAL_ZERO, 1);
			continue;
		}
		R1CS_BOUNDS(t[i].key, inputs->len);
		struct fr tmp = inputs->v[t[i].key];
		STAT(ST_EVAL_TERMS, 1);
		if (!fr_eq(&t[i].coeff, &FR_ONE))
			fr_mul(&tmp, &tmp, &t[i].coeff);
		else
			STAT(ST_EVAL_ONE, 1);
		fr_add(&acc, &acc, &tmp);
		if (input_density)
			density_inc(input_density, t[i].key);
	}

	t = LCV(st_ptr)(&lc->aux.values);
	n = LCV(st_len)(&lc->aux.values);
	for (size_t i = 0; i < n; i++) {
		if (fr_is_zero(&t[i].coeff)) {
			STAT(ST_EVAL_ZERO, 1);
			continue;
		}
		R1CS_BOUNDS(t[i].key, aux->len);
		struct fr tmp = aux->v[t[i].key];
		STAT(ST_EVAL_TERMS, 1);
		if (!fr_eq(&t[i].coeff, &FR_ONE))
			fr_mul(&tmp, &tmp, &t[i].coeff);
		else
			STAT(ST_EVAL_ONE, 1);
		fr_add(&acc, &acc, &tmp);
		if (aux_density)
			density_inc(aux_density, t[i].key);
	}
	WS_REGION_END_H(r1cs_region_eval);
	return acc;
}

R1CS_BOUNDARY struct fr LCV(eval)(const struct LCV(lc) *lc, const struct frvec *inputs,
				   const struct frvec *aux)
{
	WS_REGION_BEGIN_H(r1cs_region_eval);
	struct fr acc = FR_ZERO;

	const struct term *t = LCV(st_ptr)(&lc->inputs.values);
	size_t n = LCV(st_len)(&lc->inputs.values);
	for (size_t i = 0; i < n; i++) {
		R1CS_BOUNDS(t[i].key, inputs->len);
		struct fr tmp = inputs->v[t[i].key];
		STAT(ST_EVAL_TERMS, 1);
		if (!fr_eq(&t[i].coeff, &FR_ONE))
			fr_mul(&tmp, &tmp, &t[i].coeff);
		else
			STAT(ST_EVAL_ONE, 1);
		fr_add(&acc, &acc, &tmp);
	}

	t = LCV(st_ptr)(&lc->aux.values);
	n = LCV(st_len)(&lc->aux.values);
	for (size_t i = 0; i < n; i++) {
		R1CS_BOUNDS(t[i].key, aux->len);
		struct fr tmp = aux->v[t[i].key];
		STAT(ST_EVAL_TERMS, 1);
		if (!fr_eq(&t[i].coeff, &FR_ONE))
			fr_mul(&tmp, &tmp, &t[i].coeff);
		else
			STAT(ST_EVAL_ONE, 1);
		fr_add(&acc, &acc, &tmp);
	}
	WS_REGION_END_H(r1cs_region_eval);
	return acc;
}

/*
 * Calling a gadget's closure on the zero LC: the builder steps, or a move of a prebuilt LC. Out of line,
 * as a closure body `gadget::{{closure}}` often is in Rust; inside it, the running LC is never
 * address-taken, so GCC returns each step's result straight into it: one copy into the argument, one out
 * of the callee, per step (inlined into enforce, GCC added a third, through a temporary).
 */
R1CS_BOUNDARY static struct LCV(lc) LCV(apply)(struct cs *cs, const struct lc_closure *f, struct LCV(lc) lc)
{
	if (f->take) {
		LCV(lc_drop)(cs, &lc);
		return *(struct LCV(lc) *)f->take;
	}
	/*
	 * `lc - (c, v)` is sub_unsimplified, which adds -c: here the negation happens before a single call
	 * site, because with two (lc_add and an lc_sub) GCC returned one of them through a temporary and
	 * copied it back, a third copy per step. `cur` is a local, not the parameter, for the same reason.
	 */
	struct LCV(lc) cur = lc;
	for (size_t i = 0; i < f->n; i++) {
		const struct lc_op *op = &f->ops[i];
		struct fr coeff = op->coeff;
		if (op->sub)
			fr_neg(&coeff, &coeff);
		cur = LCV(lc_add)(cur, coeff, op->var);
	}
	return cur;
}

R1CS_BOUNDARY void LCV(enforce)(struct cs *cs, const struct lc_closure *fa, const struct lc_closure *fb,
				const struct lc_closure *fc)
{
	WS_REGION_BEGIN_H(r1cs_region_enforce);
	struct LCV(lc) a = LCV(apply)(cs, fa, LCV(lc_zero)(cs));
	struct LCV(lc) b = LCV(apply)(cs, fb, LCV(lc_zero)(cs));
	struct LCV(lc) c = LCV(apply)(cs, fc, LCV(lc_zero)(cs));

	/* Inputs have full density in the A query, and there is no C query: only these three are tracked. */
	struct fr a_res = LCV(eval_with_trackers)(&a, NULL, &cs->a_aux_density, &cs->inputs, &cs->aux);
	struct fr b_res = LCV(eval_with_trackers)(&b, &cs->b_input_density, &cs->b_aux_density,
						  &cs->inputs, &cs->aux);
	struct fr c_res = LCV(eval)(&c, &cs->inputs, &cs->aux);

	frvec_push(&cs->a, &a_res);
	frvec_push(&cs->b, &b_res);
	frvec_push(&cs->c, &c_res);

	/* Rust drops locals in reverse order of declaration. */
	LCV(lc_drop)(cs, &c);
	LCV(lc_drop)(cs, &b);
	LCV(lc_drop)(cs, &a);
	WS_REGION_END_H(r1cs_region_enforce);
}

/* ------------------------------------------------------------------------------------------------------ */
/* the circuit: gadgets drawn in WORKLOAD.md's proportions (see gen.h)                                    */
/* ------------------------------------------------------------------------------------------------------ */

#define LC_CLOSURE(arr) ((struct lc_closure){ (arr), sizeof(arr) / sizeof((arr)[0]), NULL })
#define LC_EMPTY ((struct lc_closure){ NULL, 0, NULL })
#define LC_TAKE(lcp) ((struct lc_closure){ NULL, 0, (lcp) })

/* AllocatedBit::alloc's constraint: (1 - v) * v = 0. */
static void LCV(enforce_boolean)(struct cs *cs, size_t v)
{
	STAT(ST_C_BOOLEAN, 1);
	struct lc_op a[] = { op_add(input_var(0)), op_sub(aux_var(v)) };
	struct lc_op b[] = { op_add(aux_var(v)) };
	LCV(enforce)(cs, &LC_CLOSURE(a), &LC_CLOSURE(b), &LC_EMPTY);
}

static void LCV(gadget_boolean)(struct cs *cs)
{
	size_t v = gen_alloc_bit(cs, rng_below(&cs->rng, 2));
	LCV(enforce_boolean)(cs, v);
}

/* AllocatedBit::xor: (a + a) * b = a + b - c, with a and b in either order. */
static void LCV(gadget_xor)(struct cs *cs)
{
	STAT(ST_C_XOR, 1);
	size_t x = gen_pick_aux(cs), y = gen_pick_aux(cs);
	size_t r = gen_alloc_bit(cs, gen_bit(cs, x) ^ gen_bit(cs, y));
	struct lc_op a[] = { op_add(aux_var(x)), op_add(aux_var(x)) };
	struct lc_op b[] = { op_add(aux_var(y)) };
	struct lc_op c[] = { op_add(aux_var(x)), op_add(aux_var(y)), op_sub(aux_var(r)) };
	LCV(enforce)(cs, &LC_CLOSURE(a), &LC_CLOSURE(b), &LC_CLOSURE(c));
}

/* and, and_not, nor, SHA-256's ch, or: 0-1 input and 1-2 aux terms per LC. */
static void LCV(gadget_andlike)(struct cs *cs)
{
	STAT(ST_C_ANDLIKE, 1);
	size_t x = gen_pick_aux(cs), y = gen_pick_aux(cs);
	bool bx = gen_bit(cs, x), by = gen_bit(cs, y);
	struct var one = input_var(0);

	switch (rng_below(&cs->rng, 5)) {
	case 0: { /* and: a * b = r */
		size_t r = gen_alloc_bit(cs, bx & by);
		struct lc_op a[] = { op_add(aux_var(x)) };
		struct lc_op b[] = { op_add(aux_var(y)) };
		struct lc_op c[] = { op_add(aux_var(r)) };
		LCV(enforce)(cs, &LC_CLOSURE(a), &LC_CLOSURE(b), &LC_CLOSURE(c));
		break;
	}
	case 1: { /* and_not: a * (1 - b) = r */
		size_t r = gen_alloc_bit(cs, bx & !by);
		struct lc_op a[] = { op_add(aux_var(x)) };
		struct lc_op b[] = { op_add(one), op_sub(aux_var(y)) };
		struct lc_op c[] = { op_add(aux_var(r)) };
		LCV(enforce)(cs, &LC_CLOSURE(a), &LC_CLOSURE(b), &LC_CLOSURE(c));
		break;
	}
	case 2: { /* nor: (1 - a) * (1 - b) = r */
		size_t r = gen_alloc_bit(cs, !bx & !by);
		struct lc_op a[] = { op_add(one), op_sub(aux_var(x)) };
		struct lc_op b[] = { op_add(one), op_sub(aux_var(y)) };
		struct lc_op c[] = { op_add(aux_var(r)) };
		LCV(enforce)(cs, &LC_CLOSURE(a), &LC_CLOSURE(b), &LC_CLOSURE(c));
		break;
	}
	case 3: { /* ch: (b - c) * a = r - c */
		size_t z = gen_pick_aux(cs);
		size_t r = gen_alloc_bit(cs, bx ? by : gen_bit(cs, z));
		struct lc_op a[] = { op_add(aux_var(y)), op_sub(aux_var(z)) };
		struct lc_op b[] = { op_add(aux_var(x)) };
		struct lc_op c[] = { op_add(aux_var(r)), op_sub(aux_var(z)) };
		LCV(enforce)(cs, &LC_CLOSURE(a), &LC_CLOSURE(b), &LC_CLOSURE(c));
		break;
	}
	default: { /* or: (1 - a) * (1 - b) = 1 - r */
		size_t r = gen_alloc_bit(cs, bx | by);
		struct lc_op a[] = { op_add(one), op_sub(aux_var(x)) };
		struct lc_op b[] = { op_add(one), op_sub(aux_var(y)) };
		struct lc_op c[] = { op_add(one), op_sub(aux_var(r)) };
		LCV(enforce)(cs, &LC_CLOSURE(a), &LC_CLOSURE(b), &LC_CLOSURE(c));
		break;
	}
	}
}

/* A Poseidon S-box's first square: x * x = x2, x a mix of the state: ONE + 9-12 aux terms, random coefficients. */
static void LCV(gadget_poseidon)(struct cs *cs)
{
	STAT(ST_C_POSEIDON, 1);
	struct lc_op ops[1 + POSEIDON_MAX_STATE];
	size_t k = POSEIDON_MIN_STATE + rng_below(&cs->rng, POSEIDON_MAX_STATE - POSEIDON_MIN_STATE + 1);
	size_t row = rng_below(&cs->rng, POSEIDON_WIDTH);
	size_t idx = gen_pick_window(cs, 3 * POSEIDON_MAX_STATE + 1);

	ops[0] = op_add_coeff(&cs->round_constants[rng_below(&cs->rng, POSEIDON_ROUND_CONSTANTS)], input_var(0));
	for (size_t j = 0; j < k; j++) {
		idx += 1 + rng_below(&cs->rng, 3);
		ops[1 + j] = op_add_coeff(&cs->mds[row * POSEIDON_WIDTH + j], aux_var(idx));
	}
	struct fr x2;
	fr_sqr(&x2, &cs->aux.v[ops[1].var.index]);
	size_t r = cs_alloc(cs, &x2);

	struct lc_closure x = { ops, 1 + k, NULL };
	struct lc_op c[] = { op_add(aux_var(r)) };
	LCV(enforce)(cs, &x, &x, &LC_CLOSURE(c));
}

/* Packing 255 bits into a number: 0 * 0 = sum(2^i bit_i) - num, the LC built outside enforce. */
static void LCV(gadget_packing)(struct cs *cs)
{
	STAT(ST_C_PACKING, 1);
	struct lc_op ops[PACKING_BITS + 1];
	size_t start = gen_pick_window(cs, PACKING_BITS);
	struct fr coeff = FR_ONE, value = FR_ZERO;

	for (size_t i = 0; i < PACKING_BITS; i++) {
		if (gen_bit(cs, start + i))
			fr_add(&value, &value, &coeff);
		ops[i] = op_add_coeff(&coeff, aux_var(start + i));
		fr_double(&coeff, &coeff);
	}
	size_t num = cs_alloc(cs, &value);
	ops[PACKING_BITS] = op_sub(aux_var(num));

	/* lc = zero + (1, b0) + (2, b1) + ... - num: the same builder steps a closure makes */
	struct lc_closure build = { ops, PACKING_BITS + 1, NULL };
	struct LCV(lc) lc = LCV(apply)(cs, &build, LCV(lc_new)());
	LCV(enforce)(cs, &LC_EMPTY, &LC_EMPTY, &LC_TAKE(&lc));  /* lc moved into enforce */
}

/*
 * SHA-256's additions through MultiEq: each UInt32::addmany builds the operands' bits into an LC (powers
 * of two; constant operands add to ONE), allocates its result bits (a boolean constraint each), and hands
 * both sides to MultiEq::enforce_equal, which folds them into the running lhs/rhs scaled by 2^bits_used:
 * `self.lhs = self.lhs.clone() + (coeff, lhs)`. When the next addition would exceed Fr's 254-bit
 * capacity, one constraint lhs * ONE = rhs is enforced: about 1000 terms in A and 240 in C.
 */
static void LCV(gadget_multieq)(struct cs *cs)
{
	STAT(ST_C_MULTIEQ, 1);
	struct LCV(lc) lhs = LCV(lc_new)(), rhs = LCV(lc_new)();
	size_t bits_used = 0;
	size_t prev_result = SIZE_MAX;

	for (;;) {
		struct gen_operand operands[MULTIEQ_MAX_OPERANDS];
		struct lc_op ops[MULTIEQ_MAX_OPERANDS * 32];
		size_t k = gen_addmany_operands(cs, operands, prev_result);
		size_t num_bits = 32 + (k > 4 ? 3 : 2);  /* ceil(log2(k * (2^32 - 1))) for k = 3..5 */
		if (bits_used + num_bits >= FR_CAPACITY_BITS)
			break;

		size_t n = 0;
		for (size_t o = 0; o < k; o++) {
			struct fr coeff = FR_ONE;
			for (size_t bit = 0; bit < 32; bit++) {
				if (!operands[o].constant)
					ops[n++] = op_add_coeff(&coeff, aux_var(operands[o].start + bit));
				else if ((operands[o].constant_value >> bit) & 1)
					ops[n++] = op_add_coeff(&coeff, input_var(0));
				fr_double(&coeff, &coeff);
			}
		}
		struct lc_closure build = { ops, n, NULL };
		struct LCV(lc) lc = LCV(apply)(cs, &build, LCV(lc_new)());

		struct fr coeff = FR_ONE;
		prev_result = cs->aux.len;
		for (size_t bit = 0; bit < num_bits; bit++) {
			size_t b = gen_alloc_bit(cs, rng_below(&cs->rng, 2));
			LCV(enforce_boolean)(cs, b);
			ops[bit] = op_add_coeff(&coeff, aux_var(b));
			fr_double(&coeff, &coeff);
		}
		build = (struct lc_closure){ ops, num_bits, NULL };
		struct LCV(lc) result_lc = LCV(apply)(cs, &build, LCV(lc_new)());

		/* enforce_equal(num_bits, &lc, &result_lc) */
		struct fr scale;
		gen_pow2(&scale, bits_used);
		struct LCV(lc) next = LCV(lc_add_scaled)(LCV(lc_clone)(&lhs), scale, &lc);
		LCV(lc_drop)(cs, &lhs);
		lhs = next;
		next = LCV(lc_add_scaled)(LCV(lc_clone)(&rhs), scale, &result_lc);
		LCV(lc_drop)(cs, &rhs);
		rhs = next;
		bits_used += num_bits;

		LCV(lc_drop)(cs, &result_lc);
		LCV(lc_drop)(cs, &lc);
	}

	/* accumulate(): enforce on clones, then reset lhs and rhs to zero (dropping them) */
	struct LCV(lc) lhs_moved = LCV(lc_clone)(&lhs), rhs_moved = LCV(lc_clone)(&rhs);
	struct lc_op b[] = { op_add(input_var(0)) };
	LCV(enforce)(cs, &LC_TAKE(&lhs_moved), &LC_CLOSURE(b), &LC_TAKE(&rhs_moved));
	LCV(lc_drop)(cs, &lhs);
	LCV(lc_drop)(cs, &rhs);
}

R1CS_BOUNDARY void LCV(synthesize)(struct cs *cs, size_t constraints)
{
	WS_REGION_BEGIN_H(r1cs_region_synthesize);
	gen_begin(cs);
	while (cs->a.len + cs->inputs.len < constraints) {
		switch (gen_draw(cs)) {
		case GADGET_BOOLEAN: LCV(gadget_boolean)(cs); break;
		case GADGET_XOR: LCV(gadget_xor)(cs); break;
		case GADGET_ANDLIKE: LCV(gadget_andlike)(cs); break;
		case GADGET_POSEIDON: LCV(gadget_poseidon)(cs); break;
		case GADGET_PACKING: LCV(gadget_packing)(cs); break;
		case GADGET_MULTIEQ: LCV(gadget_multieq)(cs); break;
		}
	}
	/* As bellperson's synthesize_circuits_batch: one constraint input_i * 0 = 0 per input. */
	for (size_t i = 0; i < cs->inputs.len; i++) {
		STAT(ST_C_INPUT, 1);
		struct lc_op a[] = { op_add(input_var(i)) };
		LCV(enforce)(cs, &LC_CLOSURE(a), &LC_EMPTY, &LC_EMPTY);
	}
	WS_REGION_END_H(r1cs_region_synthesize);
}

#undef LC_CLOSURE
#undef LC_EMPTY
#undef LC_TAKE
#undef LC_NAME
#undef LC_INLINE
#undef LC_POOL
