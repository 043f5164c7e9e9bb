/* SPDX-License-Identifier: GPL-2.0-or-later */
/* asm-pair.c - which function of binary A is which of binary B: keys, clones, "did you mean", commands. */
#include "asm/asm-internal.h"
#include "core/util.h"
#include "symbols/names.h"
#include "symbols/pair.h"

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

static bool is_cold(const struct ws_asm_sym *s)
{
	return strstr(s->symbol, ".cold") != NULL;
}

static void pairable_of(const struct sym_list *l, struct ws_sym_pairable *out)
{
	for (size_t i = 0; i < l->n; i++)
		out[i] = (struct ws_sym_pairable){ .symbol = l->v[i]->symbol, .key = l->v[i]->key, .identity = l->v[i]->base,
						   .cold = is_cold(l->v[i]), .ambiguous = l->v[i]->ambiguous,
						   .addr = l->v[i]->addr, .size = l->v[i]->size };
}

/*
 * Pair two lists of symbols (each in address order, aliases already dropped); see ws_asm_pair_all(). The
 * rules are lib/symbols/pair.c's, which the profiles' function rows are paired by as well.
 */
static size_t pair_lists(const struct sym_list *la, const struct sym_list *lb, struct ws_asm_pair **out)
{
	struct ws_sym_pairable *pa = xmalloc((la->n + 1) * sizeof(*pa)), *pb = xmalloc((lb->n + 1) * sizeof(*pb));
	size_t *mate_a = xmalloc((la->n + 1) * sizeof(*mate_a));
	enum ws_sym_how *how_a = xmalloc((la->n + 1) * sizeof(*how_a)), *how_b = xmalloc((lb->n + 1) * sizeof(*how_b));
	bool *used_b = xcalloc(lb->n + 1, sizeof(*used_b));
	struct ws_asm_pair *pairs = xmalloc((la->n + lb->n + 1) * sizeof(*pairs));
	size_t np = 0;

	pairable_of(la, pa);
	pairable_of(lb, pb);
	ws_sym_pair(pa, la->n, pb, lb->n, mate_a, how_a, how_b);
	for (size_t i = 0; i < la->n; i++) {
		if (mate_a[i] != SIZE_MAX)
			used_b[mate_a[i]] = true;
		pairs[np++] = (struct ws_asm_pair){ la->v[i], mate_a[i] == SIZE_MAX ? NULL : lb->v[mate_a[i]],
						    how_a[i] };
	}
	for (size_t j = 0; j < lb->n; j++)
		if (!used_b[j])
			pairs[np++] = (struct ws_asm_pair){ NULL, lb->v[j], how_b[j] };
	free(pa);
	free(pb);
	free(mate_a);
	free(how_a);
	free(how_b);
	free(used_b);
	*out = pairs;
	return np;
}

/*
 * The functions of `bin` accepted by `want`, one per address: of aliases the first accepted, so the
 * public name ("printf", not "_IO_printf") unless another was asked for.
 */
static void collect(const struct ws_asm_bin *bin, struct sym_list *l,
		    bool (*want)(const struct ws_asm_sym *, const void *), const void *arg)
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

/* A function with a name: code without one ("[unknown] prog+0x1139") pairs only when asked for by name. */
static bool named(const struct ws_asm_sym *s, const void *arg)
{
	(void)arg;
	return !s->unnamed;
}

size_t ws_asm_pair_all(const struct ws_asm_bin *a, const struct ws_asm_bin *b, struct ws_asm_pair **out)
{
	struct sym_list la = { 0 }, lb = { 0 };
	size_t n;

	collect(a, &la, named, NULL);
	collect(b, &lb, named, NULL);
	n = pair_lists(&la, &lb, out);
	free(la.v);
	free(lb.v);
	return n;
}

static enum ws_sym_match match_sym(const struct ws_asm_sym *s, const char *pattern)
{
	struct ws_sym_forms f = { s->symbol, s->name, s->base, s->shortname, s->key };

	return ws_sym_match(pattern, &f);
}

struct want {
	const char *pattern;
	enum ws_sym_match kind;
	const struct ws_asm_sym **matched; /* the functions asked for, to take their clones along */
	size_t nmatched;
	/*
	 * The template keys (ws_sym_template_key()) of the functions asked for whose template has one instance
	 * in each binary, and whether each side has a function asked for: a side that has none takes that
	 * instance, which the pairing makes the mate of the one asked for (fill<std::map> in A,
	 * fill<std::unordered_map> in B).
	 */
	char **keys;
	size_t nkeys;
	bool side_matched[2];
	int side; /* the side being collected */
};

static bool wanted(const struct ws_asm_sym *s, const void *arg)
{
	const struct want *w = arg;

	if (s->unnamed && w->kind != WS_SYM_MATCH_EXACT)
		return false;
	if (match_sym(s, w->pattern) == w->kind)
		return true;
	/*
	 * A clone of a function asked for: the same identity ("scale" for "scale.constprop.0"), and the same
	 * instance where DWARF told instances apart (mono::fill::<u8> takes its .cold part, not fill::<u16>).
	 */
	for (size_t i = 0; i < w->nmatched; i++)
		if (!strcmp(s->base, w->matched[i]->base) &&
		    (!s->dwarf || !w->matched[i]->dwarf || !strcmp(s->dwarf, w->matched[i]->dwarf)))
			return true;
	if (w->nkeys && !w->side_matched[w->side] && !s->unnamed) {
		char *k = ws_sym_template_key(s->base);
		bool hit = false;

		for (size_t i = 0; k && i < w->nkeys && !hit; i++)
			hit = !strcmp(k, w->keys[i]);
		free(k);
		return hit;
	}
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Of the template keys (ws_sym_template_key()) of the functions asked for, keep those with one instance
 * in each binary (by address, .cold parts aside): the pairing takes a template's instances for one
 * function only there, and so must the functions a --function brings along. Each symbol's key is made
 * once per binary, whatever the number of keys (a glob may ask for many).
 */
static void keep_single_instances(struct want *w, const struct ws_asm_bin *const bins[2])
{
	size_t *count[2], kept = 0;

	if (!w->nkeys)	/* qsort() and bsearch() take no null array, even empty */
		return;
	qsort(w->keys, w->nkeys, sizeof(*w->keys), cmp_str);
	for (int side = 0; side < 2; side++) {
		uint64_t last = 0;
		bool any = false;

		count[side] = xcalloc(w->nkeys + 1, sizeof(size_t));
		for (size_t i = 0; bins[side] && i < bins[side]->nsyms; i++) {
			const struct ws_asm_sym *s = &bins[side]->syms[i];
			char *k, **hit;

			if (s->unnamed || is_cold(s) || (any && s->addr == last))
				continue;
			k = ws_sym_template_key(s->base);
			hit = k ? bsearch(&k, w->keys, w->nkeys, sizeof(*w->keys), cmp_str) : NULL;
			if (hit) {
				count[side][hit - w->keys]++;
				last = s->addr;
				any = true;
			}
			free(k);
		}
	}
	for (size_t i = 0; i < w->nkeys; i++) {
		/* The same key twice (two instances asked for) counts two instances already. */
		if (count[0][i] == 1 && count[1][i] == 1 && (!kept || strcmp(w->keys[kept - 1], w->keys[i])))
			w->keys[kept++] = w->keys[i];
		else
			free(w->keys[i]);
	}
	w->nkeys = kept;
	free(count[0]);
	free(count[1]);
}

static bool exact_anywhere(const struct ws_asm_bin *bin, const char *pattern)
{
	for (size_t i = 0; bin && i < bin->nsyms; i++)
		if (match_sym(&bin->syms[i], pattern) == WS_SYM_MATCH_EXACT)
			return true;
	return false;
}

/*
 * The split-off .cold parts after the rest, in order otherwise: a function's part that rarely runs (an
 * error path) came first where its address is lower, and its hot body, the one asked about, 80 lines on.
 */
static void cold_last(struct ws_asm_pair *v, size_t n)
{
	struct ws_asm_pair *tmp;
	size_t k = 0;

	if (n < 2)
		return;
	tmp = xcalloc(n, sizeof(*tmp));
	for (int cold = 0; cold < 2; cold++)
		for (size_t i = 0; i < n; i++)
			if (((v[i].a && is_cold(v[i].a)) || (v[i].b && is_cold(v[i].b))) == cold)
				tmp[k++] = v[i];
	memcpy(v, tmp, n * sizeof(*v));
	free(tmp);
}

size_t ws_asm_pair_named(const struct ws_asm_bin *a, const struct ws_asm_bin *b, const char *pattern,
			 struct ws_asm_pair **out, bool *glob)
{
	const struct ws_asm_bin *bins[2] = { a, b };
	struct sym_list la = { 0 }, lb = { 0 };
	struct want w = { pattern, WS_SYM_MATCH_EXACT, NULL, 0 };
	const struct ws_asm_sym **matched = NULL;
	size_t n = 0, nm = 0, am = 0;

	*out = NULL;
	if (glob)
		*glob = false;
	/* An exact name wins over a glob reading of it: C++ names hold '*' and '[' of their own. */
	if (!exact_anywhere(a, pattern) && !exact_anywhere(b, pattern)) {
		if (!ws_sym_is_glob(pattern))
			return 0;
		w.kind = WS_SYM_MATCH_GLOB;
		if (glob)
			*glob = true;
	}
	/* The functions matched on either side, so that a clone in one build meets its original. */
	for (int side = 0; side < 2; side++)
		for (size_t i = 0; bins[side] && i < bins[side]->nsyms; i++) {
			const struct ws_asm_sym *s = &bins[side]->syms[i];
			char *key;

			if (match_sym(s, pattern) != w.kind || (s->unnamed && w.kind != WS_SYM_MATCH_EXACT))
				continue;
			WS_ALLOC_GROW(matched, nm + 1, am);
			matched[nm++] = s;
			w.side_matched[side] = true;
			if ((key = ws_sym_template_key(s->base))) {
				w.keys = xrealloc(w.keys, (w.nkeys + 1) * sizeof(*w.keys));
				w.keys[w.nkeys++] = key;
			}
		}
	/* Only a side that matched nothing takes instances along (wanted()): else no key is needed. */
	if (w.side_matched[0] != w.side_matched[1])
		keep_single_instances(&w, bins);
	w.matched = matched;
	w.nmatched = nm;
	w.side = 0;
	collect(a, &la, wanted, &w);
	w.side = 1;
	collect(b, &lb, wanted, &w);
	for (size_t i = 0; i < w.nkeys; i++)
		free(w.keys[i]);
	free(w.keys);
	if (la.n || lb.n)
		n = pair_lists(&la, &lb, out);
	free(matched);
	free(la.v);
	free(lb.v);
	cold_last(*out, n);
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

size_t ws_asm_suggest(const struct ws_asm_bin *a, const struct ws_asm_bin *b, const char *pattern,
		      const char **out, size_t max)
{
	const struct ws_asm_bin *bins[2] = { a, b };
	struct candidate *v = NULL;
	size_t n = 0, alloc = 0, k;

	for (int i = 0; i < 2; i++)
		for (size_t j = 0; bins[i] && j < bins[i]->nsyms; j++) {
			const struct ws_asm_sym *s = &bins[i]->syms[j];
			size_t d, m;

			/* Unnamed code only for a name of that form: else a stripped binary's would crowd the list. */
			if (s->unnamed && strncmp(pattern, "[unknown]", 9))
				continue;
			d = ws_sym_distance(pattern, s->shortname);
			if (d == SIZE_MAX)
				continue;
			/* The short form: what matches exactly, and the least to read in a one-line error. */
			for (m = 0; m < n && strcmp(v[m].name, s->shortname); m++)
				;
			if (m < n) {
				if (d < v[m].dist)
					v[m].dist = d;
				continue;
			}
			WS_ALLOC_GROW(v, n + 1, alloc);
			v[n++] = (struct candidate){ s->shortname, d };
		}
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
