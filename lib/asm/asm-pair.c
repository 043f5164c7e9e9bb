/* SPDX-License-Identifier: GPL-2.0-or-later */
/* asm-pair.c - which function of binary A is which of binary B: keys, clones, "did you mean", commands. */
#include "asm/asm-internal.h"
#include "core/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct sym_list {
	const struct ws_asm_sym **v;
	size_t n, alloc;
};

static void list_add(struct sym_list *l, const struct ws_asm_sym *s)
{
	WS_ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = s;
}

static int cmp_by_key(const void *pa, const void *pb, void *data)
{
	const struct sym_list *l = data;

	return strcmp(l->v[*(const size_t *)pa]->key, l->v[*(const size_t *)pb]->key);
}

static bool is_cold(const struct ws_asm_sym *s)
{
	return strstr(s->name, ".cold") != NULL;
}

/* The group for clone pairing: the base name, with split-off cold parts kept apart from the rest. */
static int cmp_group(const struct ws_asm_sym *a, const struct ws_asm_sym *b)
{
	if (is_cold(a) != is_cold(b))
		return is_cold(a) ? 1 : -1;
	return strcmp(a->base, b->base);
}

struct member {
	const struct ws_asm_sym *s;
	size_t index;
	int side; /* 0: A, 1: B */
};

static int cmp_members(const void *pa, const void *pb)
{
	const struct member *a = pa, *b = pb;
	int c = cmp_group(a->s, b->s);

	return c ? c : a->side - b->side;
}

/* Pair two lists of symbols (each in address order, aliases already dropped); see ws_asm_pair_all(). */
static size_t pair_lists(const struct sym_list *la, const struct sym_list *lb, struct ws_asm_pair **out)
{
	size_t *bykey = xmalloc((lb->n + 1) * sizeof(*bykey));
	size_t *mate_a = xmalloc((la->n + 1) * sizeof(*mate_a));
	bool *used_b = xcalloc(lb->n + 1, sizeof(*used_b));
	struct member *left = xmalloc((la->n + lb->n + 1) * sizeof(*left));
	struct ws_asm_pair *pairs = xmalloc((la->n + lb->n + 1) * sizeof(*pairs));
	size_t np = 0, nleft = 0;

	for (size_t j = 0; j < lb->n; j++)
		bykey[j] = j;
	qsort_r(bykey, lb->n, sizeof(*bykey), cmp_by_key, (void *)lb);
	for (size_t i = 0; i < la->n; i++) {
		size_t lo = 0, hi = lb->n;

		mate_a[i] = SIZE_MAX;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int c = strcmp(lb->v[bykey[mid]]->key, la->v[i]->key);

			if (!c && !used_b[bykey[mid]]) {
				mate_a[i] = bykey[mid];
				used_b[bykey[mid]] = true;
				break;
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	/*
	 * Clones: "scale" in one build and "scale.constprop.0" in the other, with nothing else of that base
	 * name left over on either side, are the same function.
	 */
	for (size_t i = 0; i < la->n; i++)
		if (mate_a[i] == SIZE_MAX)
			left[nleft++] = (struct member){ la->v[i], i, 0 };
	for (size_t j = 0; j < lb->n; j++)
		if (!used_b[j])
			left[nleft++] = (struct member){ lb->v[j], j, 1 };
	qsort(left, nleft, sizeof(*left), cmp_members);
	for (size_t g = 0, e; g < nleft; g = e) {
		for (e = g + 1; e < nleft && !cmp_group(left[e].s, left[g].s); e++)
			;
		if (e - g == 2 && left[g].side == 0 && left[g + 1].side == 1) {
			mate_a[left[g].index] = left[g + 1].index;
			used_b[left[g + 1].index] = true;
		}
	}
	for (size_t i = 0; i < la->n; i++)
		pairs[np++] = (struct ws_asm_pair){ la->v[i], mate_a[i] == SIZE_MAX ? NULL : lb->v[mate_a[i]] };
	for (size_t j = 0; j < lb->n; j++)
		if (!used_b[j])
			pairs[np++] = (struct ws_asm_pair){ NULL, lb->v[j] };
	free(bykey);
	free(mate_a);
	free(used_b);
	free(left);
	*out = pairs;
	return np;
}

/*
 * The functions of `bin` accepted by `want`, one per address: of aliases the first accepted, so the
 * public name ("printf", not "_IO_printf") unless another was asked for.
 */
static void collect(const struct ws_asm_bin *bin, struct sym_list *l,
		    bool (*want)(const struct ws_asm_sym *, const char *), const char *arg)
{
	for (size_t i = 0; i < bin->nsyms; i++) {
		const struct ws_asm_sym *s = &bin->syms[i];

		if (want && !want(s, arg))
			continue;
		if (l->n && l->v[l->n - 1]->addr == s->addr)
			continue;
		list_add(l, s);
	}
}

size_t ws_asm_pair_all(const struct ws_asm_bin *a, const struct ws_asm_bin *b, struct ws_asm_pair **out)
{
	struct sym_list la = { 0 }, lb = { 0 };
	size_t n;

	collect(a, &la, NULL, NULL);
	collect(b, &lb, NULL, NULL);
	n = pair_lists(&la, &lb, out);
	free(la.v);
	free(lb.v);
	return n;
}

static bool matches_name(const struct ws_asm_sym *s, const char *name)
{
	return !strcmp(s->name, name) || !strcmp(s->key, name) || !strcmp(s->base, name);
}

static bool matches_base(const struct ws_asm_sym *s, const char *base)
{
	return !strcmp(s->base, base);
}

size_t ws_asm_pair_named(const struct ws_asm_bin *a, const struct ws_asm_bin *b, const char *name,
			 struct ws_asm_pair **out)
{
	struct sym_list la = { 0 }, lb = { 0 };
	size_t n = 0, kept = 0;

	*out = NULL;
	collect(a, &la, matches_name, name);
	collect(b, &lb, matches_name, name);
	if (!la.n && !lb.n)
		goto done;
	/* "scale.constprop.0" asked for, and one build has only "scale": show that as its counterpart. */
	if (!la.n || !lb.n) {
		char *base = ws_asm_base_name(name);

		if (strcmp(base, name)) {
			if (!la.n)
				collect(a, &la, matches_base, base);
			else
				collect(b, &lb, matches_base, base);
		}
		free(base);
	}
	n = pair_lists(&la, &lb, out);
	/* Keep what was asked for: a pair with no symbol of that name is a by-product of the fallback. */
	for (size_t i = 0; i < n; i++) {
		const struct ws_asm_pair *p = &(*out)[i];

		if ((p->a && matches_name(p->a, name)) || (p->b && matches_name(p->b, name)))
			(*out)[kept++] = *p;
	}
	n = kept;
done:
	free(la.v);
	free(lb.v);
	return n;
}

struct candidate {
	const char *name;
	size_t dist;
};

static int cmp_candidates(const void *pa, const void *pb)
{
	const struct candidate *a = pa, *b = pb;

	if (a->dist != b->dist)
		return a->dist < b->dist ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void consider(struct candidate **v, size_t *n, size_t *alloc, const char *want, const char *name)
{
	size_t lw = strlen(want), ln = strlen(name), limit = (lw > ln ? lw : ln) / 3;
	size_t d;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].name, name))
			return;
	/* Long names (Rust, C++) make the edit distance slow and meaningless; a substring is a better hint. */
	if (ln > 4 * lw + 16)
		d = strstr(name, want) ? 1 + lw / 3 : (size_t)-1;
	else
		d = ws_edit_distance(want, name);
	if (d > (limit < 2 ? 2 : limit) && !strstr(name, want))
		return;
	WS_ALLOC_GROW(*v, *n + 1, *alloc);
	(*v)[(*n)++] = (struct candidate){ name, d };
}

size_t ws_asm_suggest(const struct ws_asm_bin *a, const struct ws_asm_bin *b, const char *name,
		      const char **out, size_t max)
{
	const struct ws_asm_bin *bins[2] = { a, b };
	struct candidate *v = NULL;
	size_t n = 0, alloc = 0, k;

	for (int i = 0; i < 2; i++)
		for (size_t j = 0; bins[i] && j < bins[i]->nsyms; j++)
			consider(&v, &n, &alloc, name, bins[i]->syms[j].name);
	if (n)
		qsort(v, n, sizeof(*v), cmp_candidates);
	for (k = 0; k < n && k < max; k++)
		out[k] = v[k].name;
	free(v);
	return k;
}

/* `s` as one word for a POSIX shell: as it is when that is safe, else in single quotes. */
static char *shell_word(const char *s)
{
	size_t n = 0;
	char *q, *p;

	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+-:@,=%") ==
		      strlen(s))
		return xstrdup(s);
	for (const char *c = s; *c; c++)
		n += *c == '\'' ? 4 : 1;
	p = q = xmalloc(n + 3);
	*p++ = '\'';
	for (const char *c = s; *c; c++) {
		if (*c == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = *c;
		}
	}
	*p++ = '\'';
	*p = '\0';
	return q;
}

char *ws_asm_command(const char *bin_a, const char *bin_b, const char *function, const char *result)
{
	char *f = shell_word(function), *a = shell_word(bin_a), *b = shell_word(bin_b);
	char *r = result ? shell_word(result) : NULL;
	char *cmd = xasprintf("whyslow asm-diff --function %s%s%s %s %s", f, r ? " --result " : "", r ? r : "",
			      a, b);

	free(f);
	free(a);
	free(b);
	free(r);
	return cmd;
}
