/* SPDX-License-Identifier: GPL-2.0-or-later */
/* asm-diff.c - a minimal line diff (Myers, linear space) laid out as side-by-side rows. */
#include "asm/asm.h"
#include "core/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * E. W. Myers, "An O(ND) Difference Algorithm and Its Variations", Algorithmica 1 (1986): the greedy search
 * for the furthest-reaching D-path, run from both ends at once until the two meet on a "middle snake",
 * then the same on the two halves. Time O((N+M)D), memory O(N+M), which matters for big functions that
 * changed a lot (an -O0 build against an -O3 one). The result is one changed flag per line of each side.
 */
struct diff_ctx {
	const int *a, *b;
	bool *del_a, *ins_b; /* line i of a is not in the common subsequence; likewise for b */
	long *vf, *vb;       /* furthest x per diagonal, forward and backward; indexed k + off */
	long off;
};

struct snake {
	long x0, y0, x1, y1; /* relative to the sub-problem's origin */
};

static void middle_snake(struct diff_ctx *c, long xo, long n, long yo, long m, struct snake *s)
{
	const int *a = c->a + xo, *b = c->b + yo;
	long delta = n - m, maxd = (n + m + 1) / 2;
	bool odd = delta & 1;
	long *vf = c->vf + c->off, *vb = c->vb + c->off;

	vf[1] = 0;
	vb[1] = 0;
	for (long d = 0; d <= maxd; d++) {
		for (long k = -d; k <= d; k += 2) {
			long x, y, sx, sy, kr;

			x = (k == -d || (k != d && vf[k - 1] < vf[k + 1])) ? vf[k + 1] : vf[k - 1] + 1;
			y = x - k;
			sx = x, sy = y;
			while (x < n && y < m && a[x] == b[y])
				x++, y++;
			vf[k] = x;
			kr = delta - k;
			if (odd && kr >= -(d - 1) && kr <= d - 1 && vf[k] + vb[kr] >= n) {
				*s = (struct snake){ sx, sy, x, y };
				return;
			}
		}
		for (long k = -d; k <= d; k += 2) {
			long x, y, sx, sy, kf;

			/* The same walk on the reversed sequences: x, y count lines from the ends. */
			x = (k == -d || (k != d && vb[k - 1] < vb[k + 1])) ? vb[k + 1] : vb[k - 1] + 1;
			y = x - k;
			sx = x, sy = y;
			while (x < n && y < m && a[n - 1 - x] == b[m - 1 - y])
				x++, y++;
			vb[k] = x;
			kf = delta - k;
			if (!odd && kf >= -d && kf <= d && vb[k] + vf[kf] >= n) {
				*s = (struct snake){ n - x, m - y, n - sx, m - sy };
				return;
			}
		}
	}
	/* Unreachable: the two searches meet by d = ceil((n + m) / 2). Mark everything changed. */
	*s = (struct snake){ n, 0, n, 0 };
}

static void compare(struct diff_ctx *c, long xo, long xl, long yo, long yl)
{
	struct snake s;

	while (xo < xl && yo < yl && c->a[xo] == c->b[yo])
		xo++, yo++;
	while (xl > xo && yl > yo && c->a[xl - 1] == c->b[yl - 1])
		xl--, yl--;
	if (xo == xl || yo == yl) {
		for (long x = xo; x < xl; x++)
			c->del_a[x] = true;
		for (long y = yo; y < yl; y++)
			c->ins_b[y] = true;
		return;
	}
	middle_snake(c, xo, xl - xo, yo, yl - yo, &s);
	/*
	 * After stripping the common ends both sides differ at both ends, so D >= 2 and each half costs
	 * less than D: the recursion ends. The guard keeps a broken snake from recursing forever.
	 */
	if ((s.x0 == 0 && s.y0 == 0 && s.x1 == xl - xo && s.y1 == yl - yo) ||
	    (s.x0 == xl - xo && s.y0 == 0)) {
		for (long x = xo; x < xl; x++)
			c->del_a[x] = true;
		for (long y = yo; y < yl; y++)
			c->ins_b[y] = true;
		return;
	}
	compare(c, xo, xo + s.x0, yo, yo + s.y0);
	compare(c, xo + s.x1, xl, yo + s.y1, yl);
}

static void add_row(struct ws_asm_row **rows, size_t *n, size_t *alloc, enum ws_asm_op op, long a, long b)
{
	WS_ALLOC_GROW(*rows, *n + 1, *alloc);
	(*rows)[(*n)++] = (struct ws_asm_row){ op, a, b };
}

size_t ws_diff_ints(const int *a, size_t na, const int *b, size_t nb, struct ws_asm_row **rows)
{
	struct diff_ctx c = { .a = a, .b = b };
	size_t n = 0, alloc = 0, i = 0, j = 0;
	long maxd = (long)(na + nb + 1) / 2 + 2;

	c.del_a = xcalloc(na + 1, sizeof(bool));
	c.ins_b = xcalloc(nb + 1, sizeof(bool));
	c.vf = xcalloc(2 * (size_t)maxd + 3, sizeof(long));
	c.vb = xcalloc(2 * (size_t)maxd + 3, sizeof(long));
	c.off = maxd + 1;
	compare(&c, 0, (long)na, 0, (long)nb);

	*rows = NULL;
	while (i < na || j < nb) {
		size_t di = i, dj = j;

		if (i < na && j < nb && !c.del_a[i] && !c.ins_b[j]) {
			add_row(rows, &n, &alloc, WS_ASM_EQUAL, (long)i++, (long)j++);
			continue;
		}
		while (di < na && c.del_a[di])
			di++;
		while (dj < nb && c.ins_b[dj])
			dj++;
		if (di == i && dj == j) {
			/* One side ran out while the other has common lines left: cannot happen; stay safe. */
			if (i < na)
				di = i + 1;
			else
				dj = j + 1;
		}
		/* Pair the block's deletions with its insertions in order, then the surplus on its own. */
		while (i < di && j < dj)
			add_row(rows, &n, &alloc, WS_ASM_CHANGE, (long)i++, (long)j++);
		while (i < di)
			add_row(rows, &n, &alloc, WS_ASM_DELETE, (long)i++, -1);
		while (j < dj)
			add_row(rows, &n, &alloc, WS_ASM_INSERT, -1, (long)j++);
	}
	free(c.del_a);
	free(c.ins_b);
	free(c.vf);
	free(c.vb);
	return n;
}

/* Interning strings as small integers, so that the diff compares ints. */
struct intern {
	const char **keys;
	size_t cap, n;
	int *ids;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int intern_id(struct intern *t, const char *s)
{
	size_t i = hash_str(s) & (t->cap - 1);

	while (t->keys[i]) {
		if (!strcmp(t->keys[i], s))
			return t->ids[i];
		i = (i + 1) & (t->cap - 1);
	}
	t->keys[i] = s;
	t->ids[i] = (int)t->n++;
	return t->ids[i];
}

size_t ws_diff_strings(const char *const *a, size_t na, const char *const *b, size_t nb,
		       struct ws_asm_row **rows)
{
	struct intern t = { 0 };
	int *ia = xmalloc((na + 1) * sizeof(*ia)), *ib = xmalloc((nb + 1) * sizeof(*ib));
	size_t n;

	t.cap = 16;
	while (t.cap < 2 * (na + nb))
		t.cap *= 2;
	t.keys = xcalloc(t.cap, sizeof(*t.keys));
	t.ids = xcalloc(t.cap, sizeof(*t.ids));
	for (size_t i = 0; i < na; i++)
		ia[i] = intern_id(&t, a[i]);
	for (size_t j = 0; j < nb; j++)
		ib[j] = intern_id(&t, b[j]);
	n = ws_diff_ints(ia, na, ib, nb, rows);
	free(t.keys);
	free(t.ids);
	free(ia);
	free(ib);
	return n;
}

static const char **norms(const struct ws_asm_func *f)
{
	const char **v = xmalloc(((f ? f->n : 0) + 1) * sizeof(*v));

	for (size_t i = 0; f && i < f->n; i++)
		v[i] = f->insns[i].norm;
	return v;
}

size_t ws_asm_diff(const struct ws_asm_func *a, const struct ws_asm_func *b, struct ws_asm_row **rows,
		   size_t *changed)
{
	const char **na = norms(a), **nb = norms(b);
	size_t n = ws_diff_strings(na, a ? a->n : 0, nb, b ? b->n : 0, rows);

	if (changed) {
		*changed = 0;
		for (size_t i = 0; i < n; i++) {
			const struct ws_asm_row *r = &(*rows)[i];
			bool pad_a = r->a < 0 || (a->insns[r->a].flags & WS_ASM_NOP);
			bool pad_b = r->b < 0 || (b->insns[r->b].flags & WS_ASM_NOP);

			/* Alignment nops come and go with addresses; they are not a change of code. */
			if (r->op != WS_ASM_EQUAL && !(pad_a && pad_b))
				(*changed)++;
		}
	}
	free(na);
	free(nb);
	return n;
}
