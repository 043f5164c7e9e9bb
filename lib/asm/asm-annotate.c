/* SPDX-License-Identifier: GPL-2.0-or-later */
/* asm-annotate.c - read the simulator's per-instruction counts (variants[].hot_code) from a result file. */
#include "asm/asm-internal.h"
#include "core/log.h"
#include "core/util.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * The part of the "whyslow/1" result this reads, as the simulator backend writes it:
 *   "variants": [ { "name": "sv4", ..., "hot_code": [
 *       { "function": "lc_insert", "object": "/abs/path/to/binary",
 *         "insns": [ { "addr": "0x401230", "executions": 1200, "L1-dcache-misses": 3, ... } ] } ] } ]
 * Addresses are ELF virtual addresses of the object (as in its symbol table), not runtime ones.
 */

static int key_index(struct ws_asm_counts *c, const char *key, size_t *alloc)
{
	for (size_t i = 0; i < c->nkeys; i++)
		if (!strcmp(c->keys[i], key))
			return (int)i;
	WS_ALLOC_GROW(c->keys, c->nkeys + 1, *alloc);
	c->keys[c->nkeys] = xstrdup(key);
	return (int)c->nkeys++;
}

static bool parse_addr(json_t *v, uint64_t *out)
{
	const char *s;
	char *end;

	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return true;
	}
	if (!json_is_string(v))
		return false;
	s = json_string_value(v);
	errno = 0;
	*out = strtoull(s, &end, 0);
	return !errno && end != s && !*end;
}

static bool same_object(const struct ws_asm_bin *bin, const char *object)
{
	char *real = realpath(object, NULL), *id;
	bool same = false;

	if (real && bin->real)
		same = !strcmp(real, bin->real);
	/* Moved or copied since the measurement: the same build-id is the same code. */
	if (!same && real && bin->build_id) {
		id = asm_read_build_id(real);
		same = id && !strcmp(id, bin->build_id);
		free(id);
	}
	free(real);
	return same;
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct ws_asm_count_row *a = pa, *b = pb;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* Register the metric names of one hot_code entry's instructions. */
static void add_keys(struct ws_asm_counts *c, json_t *insns, size_t *keys_alloc)
{
	size_t i;
	json_t *insn, *v;
	const char *k;

	json_array_foreach(insns, i, insn)
		json_object_foreach(insn, k, v)
			if (json_is_number(v) && strcmp(k, "addr"))
				key_index(c, k, keys_alloc);
}

/* Add one hot_code entry's instructions, once every key is known. */
static void add_insns(struct ws_asm_counts *c, json_t *insns, size_t *keys_alloc, size_t *rows_alloc)
{
	size_t i;
	json_t *insn;

	json_array_foreach(insns, i, insn) {
		const char *k;
		json_t *v;
		uint64_t addr;
		struct ws_asm_count_row *row;

		if (!json_is_object(insn) || !parse_addr(json_object_get(insn, "addr"), &addr))
			continue;
		WS_ALLOC_GROW(c->rows, c->n + 1, *rows_alloc);
		row = &c->rows[c->n++];
		row->addr = addr;
		row->v = xmalloc((c->nkeys ? c->nkeys : 1) * sizeof(double));
		for (size_t j = 0; j < c->nkeys; j++)
			row->v[j] = NAN;
		json_object_foreach(insn, k, v)
			if (json_is_number(v) && strcmp(k, "addr"))
				row->v[key_index(c, k, keys_alloc)] = json_number_value(v);
	}
}

/* Sort by address and merge duplicates (one address listed under two hot_code entries). */
static void merge_rows(struct ws_asm_counts *c)
{
	size_t w = 0;

	if (c->n)
		qsort(c->rows, c->n, sizeof(*c->rows), cmp_rows);
	for (size_t r = 0; r < c->n; r++) {
		if (w && c->rows[w - 1].addr == c->rows[r].addr) {
			for (size_t k = 0; k < c->nkeys; k++) {
				double *dst = &c->rows[w - 1].v[k], src = c->rows[r].v[k];

				if (!isnan(src))
					*dst = isnan(*dst) ? src : *dst + src;
			}
			free(c->rows[r].v);
			continue;
		}
		c->rows[w++] = c->rows[r];
	}
	c->n = w;
}

/* "executions" leads: it says how hot a line is, the misses say why. */
static void executions_first(struct ws_asm_counts *c)
{
	size_t e = c->nkeys;

	for (size_t i = 0; i < c->nkeys; i++)
		if (!strcmp(c->keys[i], "executions"))
			e = i;
	if (e == c->nkeys || e == 0)
		return;
	for (size_t i = e; i > 0; i--) {
		char *t = c->keys[i];

		c->keys[i] = c->keys[i - 1];
		c->keys[i - 1] = t;
		for (size_t r = 0; r < c->n; r++) {
			double d = c->rows[r].v[i];

			c->rows[r].v[i] = c->rows[r].v[i - 1];
			c->rows[r].v[i - 1] = d;
		}
	}
}

int ws_asm_counts_load(const char *path, const struct ws_asm_bin *bin, size_t nth, struct ws_asm_counts *out)
{
	json_error_t jerr;
	json_t *root, *variants, *variant, *schema;
	json_t **entries = NULL;
	size_t i, keys_alloc = 0, rows_alloc = 0, nvariants = 0, nentries = 0, entries_alloc = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (ws_not_regular(path)) {
		ws_error("%s: it is %s, not a result file", path, ws_not_regular(path));
		return -EINVAL;
	}
	root = json_load_file(path, 0, &jerr);
	if (!root) {
		FILE *f = fopen(path, "re");

		if (!f) {
			ret = -errno;
			ws_error("%s: %s", path, strerror(errno));
			return ret;
		}
		fclose(f);
		{
			char *esc = ws_escape_ctl(jerr.text);

			ws_error("%s:%d: not JSON: %s", path, jerr.line, esc);
			free(esc);
		}
		return -EINVAL;
	}
	schema = json_object_get(root, "schema");
	if (!json_is_string(schema) || strcmp(json_string_value(schema), "whyslow/1")) {
		ws_error("%s: not a whyslow result (\"schema\": \"whyslow/1\" expected)", path);
		ret = -EINVAL;
		goto done;
	}
	variants = json_object_get(root, "variants");
	/* Which entries are about this binary: those of the nth variant that ran it, else of the first. */
	for (int pass = 0; pass < 2 && !nentries; pass++) {
		size_t want = pass ? 0 : nth;

		nvariants = 0;
		json_array_foreach(variants, i, variant) {
			json_t *hot = json_object_get(variant, "hot_code"), *entry;
			const char *vname = json_string_value(json_object_get(variant, "name"));
			size_t j;
			bool ran = false;

			json_array_foreach(hot, j, entry) {
				const char *object = json_string_value(json_object_get(entry, "object"));
				json_t *insns = json_object_get(entry, "insns");

				if (!object || !json_is_array(insns) || !same_object(bin, object))
					continue;
				ran = true;
				if (nvariants != want)
					break;
				WS_ALLOC_GROW(entries, nentries + 1, entries_alloc);
				entries[nentries++] = insns;
			}
			if (ran && nvariants++ == want)
				out->variant = xstrdup(vname ? vname : "?");
		}
	}
	out->nvariants = nvariants;
	for (size_t e = 0; e < nentries; e++)
		add_keys(out, entries[e], &keys_alloc);
	for (size_t e = 0; e < nentries; e++)
		add_insns(out, entries[e], &keys_alloc, &rows_alloc);
	merge_rows(out);
	executions_first(out);
done:
	free(entries);
	json_decref(root);
	return ret;
}

const double *ws_asm_counts_find(const struct ws_asm_counts *c, uint64_t addr)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->rows[mid].addr == addr)
			return c->rows[mid].v;
		if (c->rows[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void ws_asm_counts_release(struct ws_asm_counts *c)
{
	for (size_t i = 0; i < c->nkeys; i++)
		free(c->keys[i]);
	free(c->keys);
	for (size_t r = 0; r < c->n; r++)
		free(c->rows[r].v);
	free(c->rows);
	free(c->variant);
	memset(c, 0, sizeof(*c));
}
