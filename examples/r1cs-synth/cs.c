/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cs.c - the proving assignment: growth of its vectors and trackers, alloc, the pool's release, digest. */
#include <stdio.h>
#include <string.h>

#include "cs.h"
#include "lc.h"

ws_region_t r1cs_region_synthesize;
ws_region_t r1cs_region_enforce;
ws_region_t r1cs_region_eval;
ws_region_t r1cs_region_alloc;

#ifdef R1CS_STATS
_Thread_local uint64_t r1cs_stats[ST__COUNT];
#endif

void r1cs_regions_init(void)
{
	WS_REGION_INIT(r1cs_region_synthesize, "synthesize");
	WS_REGION_INIT(r1cs_region_enforce, "enforce");
	WS_REGION_INIT(r1cs_region_eval, "eval");
	WS_REGION_INIT(r1cs_region_alloc, "alloc");
}

void r1cs_panic_bounds(size_t index, size_t len)
{
	fprintf(stderr, "r1cs-synth: index out of bounds: the len is %zu but the index is %zu\n", len, index);
	abort();
}

static void out_of_memory(size_t size)
{
	fprintf(stderr, "r1cs-synth: out of memory allocating %zu bytes; use a smaller --constraints\n", size);
	abort();
}

void *r1cs_alloc(size_t size)
{
	STAT(ST_MALLOC, 1);
	void *p = malloc(size);
	if (!p)
		out_of_memory(size);
	return p;
}

void *r1cs_realloc(void *p, size_t size)
{
	STAT(ST_MALLOC, 1);
	void *q = realloc(p, size);
	if (!q)
		out_of_memory(size);
	return q;
}

void frvec_grow(struct frvec *fv)
{
	size_t cap = fv->cap ? fv->cap * 2 : 4;
	fv->v = r1cs_realloc(fv->v, cap * sizeof(*fv->v));
	fv->cap = cap;
}

void density_grow(struct density *d)
{
	size_t cap = d->cap_words ? d->cap_words * 2 : 8;
	d->words = r1cs_realloc(d->words, cap * sizeof(*d->words));
	memset(d->words + d->cap_words, 0, (cap - d->cap_words) * sizeof(*d->words));
	d->cap_words = cap;
}

static void random_fr(struct rng *r, struct fr *out)
{
	/* Below 2^255 < 2r, so one conditional subtraction of r reduces it; fr_sub(x, r) is exactly that (it
	 * adds r back when x < r). Uniform enough for constants. */
	struct fr x;
	for (int i = 0; i < 4; i++)  /* a loop, not an initializer list: its order of calls is unspecified */
		x.l[i] = rng_next(r);
	x.l[3] >>= 1;
	fr_sub(out, &x, &FR_MODULUS);
}

void cs_init(struct cs *cs, uint64_t seed)
{
	memset(cs, 0, sizeof(*cs));
	rng_seed(&cs->rng, seed);
	for (size_t i = 0; i < POSEIDON_WIDTH * POSEIDON_WIDTH; i++)
		random_fr(&cs->rng, &cs->mds[i]);
	for (size_t i = 0; i < POSEIDON_ROUND_CONSTANTS; i++)
		random_fr(&cs->rng, &cs->round_constants[i]);
}

void cs_release(struct cs *cs)
{
	free(cs->a_aux_density.words);
	free(cs->b_input_density.words);
	free(cs->b_aux_density.words);
	free(cs->a.v);
	free(cs->b.v);
	free(cs->c.v);
	free(cs->inputs.v);
	free(cs->aux.v);
	for (size_t i = 0; i < cs->pool.n; i++)
		free(cs->pool.bufs[i].ptr);
	memset(cs, 0, sizeof(*cs));
}

size_t cs_alloc(struct cs *cs, const struct fr *value)
{
	WS_REGION_BEGIN_H(r1cs_region_alloc);
	frvec_push(&cs->aux, value);
	density_add_element(&cs->a_aux_density);
	density_add_element(&cs->b_aux_density);
	WS_REGION_END_H(r1cs_region_alloc);
	return cs->aux.len - 1;
}

size_t cs_alloc_input(struct cs *cs, const struct fr *value)
{
	frvec_push(&cs->inputs, value);
	density_add_element(&cs->b_input_density);
	return cs->inputs.len - 1;
}

/*
 * Four independent multiply-xorshift lanes, one per limb, so the hash runs at memory speed instead of at
 * one multiplication latency per word; folded and finalized with splitmix64 at the end.
 */
static inline uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x100000001b3;
	return h ^ (h >> 29);
}

static void hash_frvec(uint64_t lane[4], const struct frvec *fv)
{
	for (int j = 0; j < 4; j++)
		lane[j] = mix(lane[j], fv->len);
	for (size_t i = 0; i < fv->len; i++)
		for (int j = 0; j < 4; j++)
			lane[j] = mix(lane[j], fv->v[i].l[j]);
}

uint64_t cs_digest(const struct cs *cs)
{
	uint64_t lane[4] = { 0xcbf29ce484222325, 1, 2, 3 };
	hash_frvec(lane, &cs->a);
	hash_frvec(lane, &cs->b);
	hash_frvec(lane, &cs->c);
	uint64_t h = lane[0];
	for (int j = 1; j < 4; j++)
		h = mix(h, lane[j]);
	h = mix(h, cs->a_aux_density.total);
	h = mix(h, cs->b_input_density.total);
	h = mix(h, cs->b_aux_density.total);
	return splitmix64(&h);
}
