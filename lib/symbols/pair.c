/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pair.c - which function of one build is which of another, for asm-diff and the profiles' rows alike. */
#include "symbols/pair.h"
#include "core/util.h"
#include "symbols/names.h"

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

static int cmp_by_symbol(const void *pa, const void *pb, void *data)
{
	const struct side *s = data;

	return strcmp(s->v[*(const size_t *)pa].symbol, s->v[*(const size_t *)pb].symbol);
}

/* The indices of the functions of `s` that have a symbol, sorted by it; returns how many. */
static size_t by_symbol(const struct side *s, size_t *idx)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].symbol)
			idx[n++] = i;
	qsort_r(idx, n, sizeof(*idx), cmp_by_symbol, (void *)s);
	return n;
}

/*
 * The first round: a symbol that one function of each side has, hash and all, is the same function. Two
 * of one symbol on a side (local functions of two files) are left to the keys, which tell them apart.
 */
static void pair_by_symbol(const struct side *sa, const struct side *sb, size_t *mate_a, enum ws_sym_how *how_a,
			   bool *used_b)
{
	size_t *ia = xmalloc((sa->n + 1) * sizeof(*ia)), *ib = xmalloc((sb->n + 1) * sizeof(*ib));
	size_t na = by_symbol(sa, ia), nb = by_symbol(sb, ib), i = 0, j = 0;

	while (i < na && j < nb) {
		const char *sym = sa->v[ia[i]].symbol;
		int c = strcmp(sym, sb->v[ib[j]].symbol);
		size_t ei = i + 1, ej = j + 1;

		if (c < 0) {
			i++;
			continue;
		}
		if (c > 0) {
			j++;
			continue;
		}
		while (ei < na && !strcmp(sa->v[ia[ei]].symbol, sym))
			ei++;
		while (ej < nb && !strcmp(sb->v[ib[ej]].symbol, sym))
			ej++;
		if (ei - i == 1 && ej - j == 1) {
			mate_a[ia[i]] = ib[j];
			how_a[ia[i]] = WS_SYM_BY_NAME;
			used_b[ib[j]] = true;
		}
		i = ei;
		j = ej;
	}
	free(ia);
	free(ib);
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

/*
 * A function with a lambda in its identity, for the last round: its identity without " (inlined)", and
 * that without the lambdas' numbers.
 */
struct lambda_member {
	const struct ws_sym_pairable *s;
	size_t index;
	int side; /* 0: A, 1: B */
	bool inlined;
	char *own;
	char *unnumbered;
};

/*
 * Whether two members may be one lambda: one identity without the numbers, cold parts apart. Its inlined
 * code is in the group too, for its move between inlined and called (WS_SYM_LAMBDA_INLINED).
 */
static bool same_lambda_group(const struct lambda_member *x, const struct lambda_member *y)
{
	return !strcmp(x->unnumbered, y->unnumbered) && x->s->cold == y->s->cold;
}

static int cmp_lambda_members(const void *pa, const void *pb)
{
	const struct lambda_member *a = pa, *b = pb;
	int c = strcmp(a->unnumbered, b->unnumbered);

	if (c)
		return c;
	if (a->s->cold != b->s->cold)
		return a->s->cold ? 1 : -1;
	return a->side - b->side;
}

/*
 * Whether two members are one lambda's spellings, or one spelling: ws_sym_lambda_same(), cold parts apart;
 * both its own code or both inlined code, but for `moved`.
 */
static bool lambda_same(const struct lambda_member *x, const struct lambda_member *y, bool moved)
{
	return x->s->cold == y->s->cold && (moved || x->inlined == y->inlined) && ws_sym_lambda_same(x->own, y->own);
}

/*
 * The one member of g[0..n) on side `side` that is the same lambda as `x` (lambda_same()), or NULL when none
 * or several are.
 */
static const struct lambda_member *only_same(const struct lambda_member *g, size_t n, int side,
					     const struct lambda_member *x, bool moved)
{
	const struct lambda_member *found = NULL;

	for (size_t k = 0; k < n; k++) {
		if (g[k].side != side || !lambda_same(x, &g[k], moved))
			continue;
		if (found)
			return NULL;
		found = &g[k];
	}
	return found;
}

/*
 * Whether `x` of A and `y` of B, each the only one of that lambda in the other build (only_same()), are two
 * spellings of it: one without a number and one with it.
 */
static bool only_spellings(const struct lambda_member *g, size_t n, const struct lambda_member *x,
			   const struct lambda_member *y, bool moved)
{
	return y && strcmp(x->own, y->own) && only_same(g, n, 0, y, moved) == x;
}

/*
 * The last round: a lambda inlined where no symbol of its build names it has no number
 * ("f(int)::{lambda(long)}", symbols.c), where another build's symbol gives it one
 * ("f(int)::{lambda(long)#1}"). Among those left, two whose identities differ only so pair
 * (WS_SYM_BY_LAMBDA), as a clone and its original do, where each is the only one of its kind in the other
 * build (counting those already paired: a number is no tie-breaker): one lambda with those parameters in that function. Where there are
 * several ("{lambda(long)#1}" and "{lambda(long)#2}" against "{lambda(long)}"), which is which is not
 * known: they stay unpaired, WS_SYM_AMBIGUOUS. Only here, not in the identity: two lambdas of one build
 * must keep two names, and "{lambda(long)}" is no name of "{lambda(long)#1}" where that build has both.
 *
 * Then a lambda called in one build and inlined in the other. A plain function's names say so as they are
 * ("f" and "f (inlined)"), a lambda's only where both spellings have the number or neither has: its own row
 * "...{lambda(long)#1}::operator()(long) const" and the other build's "...{lambda(long)}::operator()(long)
 * const (inlined)", both left, are mates (WS_SYM_LAMBDA_INLINED) where each is the only row of that lambda
 * in the other build, its own code's or inlined, with the same care as above.
 */
static void pair_lambdas(const struct ws_sym_pairable *a, size_t na, const struct ws_sym_pairable *b, size_t nb,
			 size_t *mate_a, enum ws_sym_how *how_a, enum ws_sym_how *how_b, bool *used_b)
{
	struct lambda_member *m = xmalloc((na + nb + 1) * sizeof(*m));
	size_t n = 0;

	for (size_t i = 0; i < na + nb; i++) {
		const struct ws_sym_pairable *s = i < na ? &a[i] : &b[i - na];
		size_t len;
		bool inlined;

		if (!strstr(s->identity, "{lambda("))
			continue;
		inlined = ws_sym_inlined_row(s->identity, &len);
		m[n] = (struct lambda_member){ s, i < na ? i : i - na, i >= na, inlined, xstrndup(s->identity, len),
					       NULL };
		m[n].unnumbered = ws_sym_lambda_unnumbered(m[n].own);
		n++;
	}
	qsort(m, n, sizeof(*m), cmp_lambda_members);
	for (size_t g = 0, e; g < n; g = e) {
		for (e = g + 1; e < n && same_lambda_group(&m[e], &m[g]); e++)
			;
		for (size_t k = g; k < e && m[k].side == 0; k++) {
			const struct lambda_member *x = &m[k], *y;

			if (mate_a[x->index] != SIZE_MAX)
				continue;
			/* One spelling on both sides is the identity's: the round before said all there is. */
			y = only_same(m + g, e - g, 1, x, false);
			if (only_spellings(m + g, e - g, x, y, false) && !used_b[y->index]) {
				mate_a[x->index] = y->index;
				used_b[y->index] = true;
				how_a[x->index] = WS_SYM_BY_LAMBDA;
				continue;
			}
			/* Several that may be this one, or this one of several that may be another: never guessed. */
			for (size_t l = g; l < e; l++) {
				if (m[l].side != 1 || !lambda_same(x, &m[l], false) || !strcmp(x->own, m[l].own))
					continue;
				how_a[x->index] = WS_SYM_AMBIGUOUS;
				if (!used_b[m[l].index])
					how_b[m[l].index] = WS_SYM_AMBIGUOUS;
			}
		}
		/* After those: a row with a mate of its own kind (called in both builds, or inlined) did not move. */
		for (size_t k = g; k < e && m[k].side == 0; k++) {
			const struct lambda_member *x = &m[k], *y = only_same(m + g, e - g, 1, x, true);

			if (mate_a[x->index] == SIZE_MAX && only_spellings(m + g, e - g, x, y, true) &&
			    y->inlined != x->inlined && !used_b[y->index]) {
				mate_a[x->index] = y->index;
				used_b[y->index] = true;
				how_a[x->index] = WS_SYM_LAMBDA_INLINED;
			}
		}
	}
	for (size_t k = 0; k < n; k++) {
		free(m[k].own);
		free(m[k].unnumbered);
	}
	free(m);
}

/* A function for one of the last rounds: the key it pairs by there (a new string). */
struct keyed_member {
	const struct ws_sym_pairable *s;
	size_t index;
	int side; /* 0: A, 1: B */
	char *key;
};

static int cmp_keyed_members(const void *pa, const void *pb)
{
	const struct keyed_member *a = pa, *b = pb;
	int c = strcmp(a->key, b->key);

	if (c)
		return c;
	if (a->s->cold != b->s->cold)
		return a->s->cold ? 1 : -1;
	return a->side - b->side;
}

/*
 * One of the last rounds: where `key` (NULL for a function not in this round) gives one function in each
 * build (cold parts apart), both left, and `fits` takes them (NULL: any two), they pair (`how`). Counted
 * among every function, paired or not: where a build has two of one key, which one the other build's stands
 * for is not known, and nothing is paired.
 */
static void pair_only_ones(const struct ws_sym_pairable *a, size_t na, const struct ws_sym_pairable *b, size_t nb,
			   char *(*key)(const char *identity),
			   bool (*fits)(const struct ws_sym_pairable *x, const struct ws_sym_pairable *y),
			   enum ws_sym_how how, size_t *mate_a, enum ws_sym_how *how_a, bool *used_b)
{
	struct keyed_member *m = xmalloc((na + nb + 1) * sizeof(*m));
	size_t n = 0;

	for (size_t i = 0; i < na + nb; i++) {
		const struct ws_sym_pairable *s = i < na ? &a[i] : &b[i - na];
		char *k = key(s->identity);

		if (k)
			m[n++] = (struct keyed_member){ s, i < na ? i : i - na, i >= na, k };
	}
	qsort(m, n, sizeof(*m), cmp_keyed_members);
	for (size_t g = 0, e; g < n; g = e) {
		for (e = g + 1; e < n && !strcmp(m[e].key, m[g].key) && m[e].s->cold == m[g].s->cold; e++)
			;
		if (e - g != 2 || m[g].side != 0 || m[g + 1].side != 1)
			continue;
		if (mate_a[m[g].index] != SIZE_MAX || used_b[m[g + 1].index] || (fits && !fits(m[g].s, m[g + 1].s)))
			continue;
		mate_a[m[g].index] = m[g + 1].index;
		used_b[m[g + 1].index] = true;
		how_a[m[g].index] = how;
	}
	for (size_t k = 0; k < n; k++)
		free(m[k].key);
	free(m);
}

/* The key of the round of moves: the function a row is of, its own code or inlined (" (inlined)" left out). */
static char *moved_key(const char *identity)
{
	size_t len;

	ws_sym_inlined_row(identity, &len);
	return xstrndup(identity, len);
}

/*
 * Whether `x` and `y`, of one function, are a clone's own row ("step(long) [clone .constprop.0]", by its key:
 * the row's name) and the other build's row of its inlined code ("step(long) (inlined)"), either way round.
 * Not a row of the function's own name: "step(long)" and "step(long) (inlined)" say the move already.
 */
static bool clone_and_inlined(const struct ws_sym_pairable *x, const struct ws_sym_pairable *y)
{
	size_t len;
	bool xi = ws_sym_inlined_row(x->identity, &len), yi = ws_sym_inlined_row(y->identity, &len);

	return xi != yi && ws_sym_clone_row(xi ? y->key : x->key, &len);
}

/*
 * The round of moves: a function called in one build as a GCC clone ("mv::step(long, long) [clone
 * .constprop.0]", its identity "mv::step(long, long)", clone suffixes left out) and inlined in the other
 * ("mv::step(long, long) (inlined)", DWARF's name for its inlined code) is one function that moved, as
 * "step" and "step (inlined)" are (WS_SYM_CLONE_INLINED), where each build has one row of that function, its
 * own code's or inlined, and no other: two clones against one inlined row, or the function called and
 * inlined in one build, stay apart.
 */
static void pair_moved_clones(const struct ws_sym_pairable *a, size_t na, const struct ws_sym_pairable *b,
			      size_t nb, size_t *mate_a, enum ws_sym_how *how_a, bool *used_b)
{
	pair_only_ones(a, na, b, nb, moved_key, clone_and_inlined, WS_SYM_CLONE_INLINED, mate_a, how_a, used_b);
}

/*
 * The last round: where a template (or a generic function, in Rust's v0 names) has one instance in each
 * build, the two are one function of the program, whatever their arguments. A variant that changes a type
 * (a std::map made a std::unordered_map, a Vec a SmallVec) changes the instances of the functions that use
 * it, and those are what the comparison is about: unpaired, each would be one "gone" and one "new" row,
 * their difference nowhere. Counted among every function, paired or not: where a build has two instances
 * (fill<map> and fill<set>), which one the other build's stands for is not known, and nothing is paired.
 */
static void pair_templates(const struct ws_sym_pairable *a, size_t na, const struct ws_sym_pairable *b,
			   size_t nb, size_t *mate_a, enum ws_sym_how *how_a, bool *used_b)
{
	pair_only_ones(a, na, b, nb, ws_sym_template_key, NULL, WS_SYM_BY_TEMPLATE, mate_a, how_a, used_b);
}

void ws_sym_pair(const struct ws_sym_pairable *a, size_t na, const struct ws_sym_pairable *b, size_t nb,
		 size_t *mate_a, enum ws_sym_how *how_a, enum ws_sym_how *how_b)
{
	struct side sa = { a, na }, sb = { b, nb };
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
		mate_a[i] = SIZE_MAX;
		how_a[i] = WS_SYM_ONLY;
	}
	pair_by_symbol(&sa, &sb, mate_a, how_a, used_b);
	for (size_t i = 0; i < na; i++) {
		size_t lo = 0, hi = nb;

		/* "name #2" says nothing told the copies apart: the number is no identity across builds. */
		if (a[i].ambiguous || mate_a[i] != SIZE_MAX)
			continue;
		/* The first of that key, then the first of those still free (the symbols took some). */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (strcmp(b[bykey[mid]].key, a[i].key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < nb && !strcmp(b[bykey[lo]].key, a[i].key); lo++)
			if (!used_b[bykey[lo]] && !b[bykey[lo]].ambiguous) {
				mate_a[i] = bykey[lo];
				used_b[bykey[lo]] = true;
				how_a[i] = WS_SYM_BY_NAME;
				break;
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
	pair_lambdas(a, na, b, nb, mate_a, how_a, how_b, used_b);
	pair_moved_clones(a, na, b, nb, mate_a, how_a, used_b);
	pair_templates(a, na, b, nb, mate_a, how_a, used_b);
	free(bykey);
	free(used_b);
	free(left);
}
