/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pair.c - which function of one build is which of another, for asm-diff and the profiles' rows alike. */
#include "symbols/pair.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

struct side {
	const struct ws_sym_pairable *v;
	size_t n;
};

static int cmp_by_key(const void *pa, const void *pb, void *data)
{
	const struct side *s = data;

	return strcmp(s->v[*(const size_t *)pa].key, s->v[*(const size_t *)pb].key);
}

/* The group for the second round: the identity, with split-off cold parts kept apart from the rest. */
static int cmp_group(const struct ws_sym_pairable *a, const struct ws_sym_pairable *b)
{
	if (a->cold != b->cold)
		return a->cold ? 1 : -1;
	return strcmp(a->identity, b->identity);
}

struct member {
	const struct ws_sym_pairable *s;
	size_t index;
	int side; /* 0: A, 1: B */
};

static int cmp_members(const void *pa, const void *pb)
{
	const struct member *a = pa, *b = pb;
	int c = cmp_group(a->s, b->s);

	if (c)
		return c;
	if (a->side != b->side)
		return a->side - b->side;
	return (a->s->addr > b->s->addr) - (a->s->addr < b->s->addr);
}

/* Rank of each of `n` members by size, into rank[]; false when two have one size (no order to trust). */
static bool size_ranks(const struct member *m, size_t n, size_t *rank)
{
	for (size_t i = 0; i < n; i++) {
		rank[i] = 0;
		for (size_t j = 0; j < n; j++) {
			if (j != i && m[j].s->size == m[i].s->size)
				return false;
			rank[i] += m[j].s->size < m[i].s->size;
		}
	}
	return true;
}

/*
 * Several functions of one identity on each side (monomorphizations or overloads nothing else told apart):
 * pair them only when there are as many on each side and their sizes rank alike in address order, so that
 * the nearest size and the order agree. Returns true when paired.
 */
static bool pair_by_size(const struct member *g, size_t na, size_t nb, size_t *mate_a, bool *used_b)
{
	size_t *ra, *rb;
	bool ok;

	if (na != nb || na < 2)
		return false;
	ra = xmalloc(na * sizeof(*ra));
	rb = xmalloc(nb * sizeof(*rb));
	ok = size_ranks(g, na, ra) && size_ranks(g + na, nb, rb);
	for (size_t i = 0; ok && i < na; i++)
		ok = ra[i] == rb[i];
	for (size_t i = 0; ok && i < na; i++) {
		mate_a[g[i].index] = g[na + i].index;
		used_b[g[na + i].index] = true;
	}
	free(ra);
	free(rb);
	return ok;
}

void ws_sym_pair(const struct ws_sym_pairable *a, size_t na, const struct ws_sym_pairable *b, size_t nb,
		 size_t *mate_a, enum ws_sym_how *how_a, enum ws_sym_how *how_b)
{
	struct side sb = { b, nb };
	size_t *bykey = xmalloc((nb + 1) * sizeof(*bykey));
	bool *used_b = xcalloc(nb + 1, sizeof(*used_b));
	struct member *left = xmalloc((na + nb + 1) * sizeof(*left));
	size_t nleft = 0;

	for (size_t j = 0; j < nb; j++) {
		bykey[j] = j;
		how_b[j] = WS_SYM_ONLY;
	}
	qsort_r(bykey, nb, sizeof(*bykey), cmp_by_key, &sb);
	for (size_t i = 0; i < na; i++) {
		size_t lo = 0, hi = nb;

		mate_a[i] = SIZE_MAX;
		how_a[i] = WS_SYM_ONLY;
		/* "name #2" says nothing told the copies apart: the number is no identity across builds. */
		if (a[i].ambiguous)
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int c = strcmp(b[bykey[mid]].key, a[i].key);

			if (!c && !used_b[bykey[mid]] && !b[bykey[mid]].ambiguous) {
				mate_a[i] = bykey[mid];
				used_b[bykey[mid]] = true;
				how_a[i] = WS_SYM_BY_NAME;
				break;
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	/* The second round, per identity, among those left over. */
	for (size_t i = 0; i < na; i++)
		if (mate_a[i] == SIZE_MAX)
			left[nleft++] = (struct member){ &a[i], i, 0 };
	for (size_t j = 0; j < nb; j++)
		if (!used_b[j])
			left[nleft++] = (struct member){ &b[j], j, 1 };
	qsort(left, nleft, sizeof(*left), cmp_members);
	for (size_t g = 0, e; g < nleft; g = e) {
		size_t ga = 0, gb;

		for (e = g + 1; e < nleft && !cmp_group(left[e].s, left[g].s); e++)
			;
		while (g + ga < e && left[g + ga].side == 0)
			ga++;
		gb = e - g - ga;
		if (ga == 1 && gb == 1) {
			mate_a[left[g].index] = left[g + 1].index;
			used_b[left[g + 1].index] = true;
			how_a[left[g].index] = WS_SYM_BY_CLONE;
		} else if (pair_by_size(left + g, ga, gb, mate_a, used_b)) {
			for (size_t k = g; k < g + ga; k++)
				how_a[left[k].index] = WS_SYM_BY_SIZE;
		} else if (ga && gb) {
			for (size_t k = g; k < e; k++) {
				if (left[k].side == 0)
					how_a[left[k].index] = WS_SYM_AMBIGUOUS;
				else
					how_b[left[k].index] = WS_SYM_AMBIGUOUS;
			}
		}
	}
	free(bykey);
	free(used_b);
	free(left);
}
