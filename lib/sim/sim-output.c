/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim-output.c - the reader of wsim's result files (format in sim-output.h), and the sum of a process tree. */
#include "sim/sim-output.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"

static const char *const counter_names[WS_SIM_NR_COUNTERS] = {
	[WS_SIM_INSTRUCTIONS] = "instructions",
	[WS_SIM_ESTIMATED_CYCLES] = "estimated-cycles",
	[WS_SIM_BRANCHES] = "branches",
	[WS_SIM_BRANCH_MISSES] = "branch-misses",
	[WS_SIM_CONDITIONAL_BRANCHES] = "conditional-branches",
	[WS_SIM_CONDITIONAL_BRANCH_MISSES] = "conditional-branch-misses",
	[WS_SIM_INDIRECT_BRANCHES] = "indirect-branches",
	[WS_SIM_INDIRECT_BRANCH_MISSES] = "indirect-branch-misses",
	[WS_SIM_RETURN_BRANCHES] = "return-branches",
	[WS_SIM_RETURN_BRANCH_MISSES] = "return-branch-misses",
	[WS_SIM_L1_DCACHE_LOADS] = "L1-dcache-loads",
	[WS_SIM_L1_DCACHE_LOAD_MISSES] = "L1-dcache-load-misses",
	[WS_SIM_L1_DCACHE_STORES] = "L1-dcache-stores",
	[WS_SIM_L1_DCACHE_STORE_MISSES] = "L1-dcache-store-misses",
	[WS_SIM_L1_ICACHE_LOADS] = "L1-icache-loads",
	[WS_SIM_L1_ICACHE_LOAD_MISSES] = "L1-icache-load-misses",
	[WS_SIM_L2_MISSES] = "L2-misses",
	[WS_SIM_L2_LOAD_MISSES] = "L2-load-misses",
	[WS_SIM_L2_ICACHE_MISSES] = "L2-icache-misses",
	[WS_SIM_LLC_LOADS] = "LLC-loads",
	[WS_SIM_LLC_LOAD_MISSES] = "LLC-load-misses",
	[WS_SIM_LLC_STORE_MISSES] = "LLC-store-misses",
	[WS_SIM_LLC_ICACHE_MISSES] = "LLC-icache-misses",
	[WS_SIM_PREFETCHES] = "prefetches",
	[WS_SIM_PREFETCHES_USED] = "prefetches-used",
	[WS_SIM_COHERENCE_MISSES] = "coherence-misses",
};

const char *ws_sim_counter_name(enum ws_sim_counter c)
{
	return (unsigned)c < WS_SIM_NR_COUNTERS ? counter_names[c] : NULL;
}

int ws_sim_counter_from_name(const char *name)
{
	for (int i = 0; i < WS_SIM_NR_COUNTERS; i++)
		if (!strcmp(counter_names[i], name))
			return i;
	return -1;
}

bool ws_sim_has(const struct ws_sim_output *o, enum ws_sim_counter c)
{
	return (unsigned)c < WS_SIM_NR_COUNTERS && (o->present & (1u << c));
}

int ws_sim_get(const struct ws_sim_output *o, const struct ws_sim_counts *counts, const char *name,
	       uint64_t *value)
{
	int c = ws_sim_counter_from_name(name);

	if (c < 0 || !ws_sim_has(o, c))
		return -ENOENT;
	*value = counts->v[c];
	return 0;
}

const char *ws_sim_config(const struct ws_sim_output *o, const char *key)
{
	for (size_t i = 0; i < o->nr_config; i++)
		if (!strcmp(o->config[i].key, key))
			return o->config[i].value;
	return NULL;
}

void ws_sim_output_init(struct ws_sim_output *o)
{
	memset(o, 0, sizeof(*o));
}

static void function_release(struct ws_sim_function *f)
{
	free(f->name);
	free(f->file);
	free(f->object);
	free(f->insns);
}

static void lines_release(struct ws_sim_output *o)
{
	for (size_t i = 0; i < o->nr_lines; i++) {
		free(o->lines[i].symbol);
		for (size_t j = 0; j < o->lines[i].nr_functions; j++)
			free(o->lines[i].functions[j]);
		free(o->lines[i].functions);
		free(o->lines[i].function_ids);
		free(o->lines[i].cores);
	}
	free(o->lines);
}

void ws_sim_output_release(struct ws_sim_output *o)
{
	for (size_t i = 0; i < o->nr_config; i++) {
		free(o->config[i].key);
		free(o->config[i].value);
	}
	free(o->config);
	for (size_t i = 0; i < o->argc; i++)
		free(o->argv[i]);
	free(o->argv);
	for (size_t i = 0; i < o->nr_functions; i++)
		function_release(&o->functions[i]);
	free(o->functions);
	for (size_t i = 0; i < o->nr_regions; i++)
		free(o->regions[i].name);
	free(o->regions);
	free(o->nodes);
	lines_release(o);
	free(o->cores);
	ws_sim_output_init(o);
}

/* ---- Parsing ---------------------------------------------------------------------------------------------- */

/* "LO-HI" or "-" (none) */
static int parse_range(const char *s, int *lo, int *hi)
{
	char *end;
	long a, b;

	if (!strcmp(s, "-")) {
		*lo = *hi = -1;
		return 0;
	}
	a = strtol(s, &end, 10);
	if (end == s || *end != '-')
		return -EINVAL;
	s = end + 1;
	b = strtol(s, &end, 10);
	if (end == s || *end || a < 0 || b < a || b > 4095)
		return -EINVAL;
	*lo = (int)a;
	*hi = (int)b;
	return 0;
}

struct parser {
	const char *source;
	size_t line;
	char **field;
	size_t nr_fields, alloc_fields;
	int col[WS_SIM_NR_COUNTERS * 2]; /* counter of each column, or -1 for a column this reader ignores */
	size_t nr_cols;
	bool seen_counters, seen_total, seen_end;
};

static int __attribute__((format(printf, 2, 3))) bad(struct parser *p, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ws_log(WS_LOG_ERROR, "%s:%zu: %s", p->source, p->line, msg);
	return -EINVAL;
}

/* Undo the writer's escapes in place. Returns 0, or -1 for a backslash not followed by \, t or n. */
static int unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (*s != '\\') {
			*w++ = *s;
			continue;
		}
		switch (*++s) {
		case '\\': *w++ = '\\'; break;
		case 't': *w++ = '\t'; break;
		case 'n': *w++ = '\n'; break;
		default: return -1;
		}
	}
	*w = '\0';
	return 0;
}

static int parse_u64(struct parser *p, const char *s, const char *what, uint64_t *v)
{
	uint64_t x = 0;

	if (!*s)
		return bad(p, "empty %s", what);
	for (const char *c = s; *c; c++) {
		if (*c < '0' || *c > '9')
			return bad(p, "%s '%s' is not an unsigned decimal number", what, s);
		if (x > (UINT64_MAX - (uint64_t)(*c - '0')) / 10)
			return bad(p, "%s '%s' is too large", what, s);
		x = x * 10 + (uint64_t)(*c - '0');
	}
	*v = x;
	return 0;
}

static int parse_long(struct parser *p, const char *s, const char *what, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	if (!*s || *end || errno)
		return bad(p, "%s '%s' is not a decimal number", what, s);
	return 0;
}

static int parse_addr(struct parser *p, const char *s, uint64_t *v)
{
	uint64_t x = 0;
	size_t n = 0;

	if (s[0] != '0' || s[1] != 'x' || !s[2])
		return bad(p, "address '%s' is not 0x-prefixed hexadecimal", s);
	for (s += 2; *s; s++, n++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;

		if (d < 0 || n == 16)
			return bad(p, "address has a bad digit or more than 16 digits");
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return 0;
}

static int need_fields(struct parser *p, size_t n)
{
	if (p->nr_fields != n)
		return bad(p, "'%s' record has %zu fields, expected %zu", p->field[0], p->nr_fields, n);
	return 0;
}

/* Values for every column of the counters line, from field `first` on. */
static int parse_counts(struct parser *p, size_t first, struct ws_sim_counts *c)
{
	int err;

	if (!p->seen_counters)
		return bad(p, "'%s' record before the counters line", p->field[0]);
	if (p->nr_fields != first + p->nr_cols)
		return bad(p, "'%s' record has %zu values, the counters line names %zu", p->field[0],
			   p->nr_fields - first, p->nr_cols);
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < p->nr_cols; i++) {
		uint64_t v;

		err = parse_u64(p, p->field[first + i], "count", &v);
		if (err)
			return err;
		if (p->col[i] >= 0)
			c->v[p->col[i]] = v;
	}
	return 0;
}

static int parse_counters(struct parser *p, struct ws_sim_output *o)
{
	if (p->seen_counters)
		return bad(p, "a second counters line");
	if (p->nr_fields - 1 > ARRAY_SIZE(p->col))
		return bad(p, "too many counters");
	for (size_t i = 1; i < p->nr_fields; i++) {
		int c = ws_sim_counter_from_name(p->field[i]);

		if (c >= 0 && (o->present & (1u << c)))
			return bad(p, "counter '%s' listed twice", p->field[i]);
		if (c < 0)
			ws_log(WS_LOG_DEBUG, "%s:%zu: ignoring unknown counter '%s'", p->source, p->line, p->field[i]);
		else
			o->present |= 1u << c;
		p->col[i - 1] = c;
	}
	p->nr_cols = p->nr_fields - 1;
	p->seen_counters = true;
	return 0;
}

static int parse_record(struct parser *p, struct ws_sim_output *o)
{
	const char *type = p->field[0];
	int err;

	if (p->seen_end)
		return bad(p, "a record after 'end'");
	if (!strcmp(type, "config")) {
		struct ws_sim_config_item *it;

		if ((err = need_fields(p, 3)))
			return err;
		WS_ALLOC_GROW(o->config, o->nr_config + 1, o->alloc_config);
		it = &o->config[o->nr_config++];
		it->key = xstrdup(p->field[1]);
		it->value = xstrdup(p->field[2]);
	} else if (!strcmp(type, "command")) {
		if (o->argv)
			return bad(p, "a second command line");
		o->argv = xcalloc(p->nr_fields, sizeof(*o->argv));
		for (size_t i = 1; i < p->nr_fields; i++)
			o->argv[i - 1] = xstrdup(p->field[i]);
		o->argc = p->nr_fields - 1;
	} else if (!strcmp(type, "pid") || !strcmp(type, "ppid") || !strcmp(type, "exit")) {
		long v;

		if ((err = need_fields(p, 2)) || (err = parse_long(p, p->field[1], type, &v)))
			return err;
		if (type[0] == 'e')
			o->exit_status = (int)v;
		else if (type[1] == 'i')
			o->pid = v;
		else
			o->ppid = v;
	} else if (!strcmp(type, "threads")) {
		uint64_t v;

		if ((err = need_fields(p, 2)) || (err = parse_u64(p, p->field[1], "thread count", &v)))
			return err;
		o->threads = (unsigned)v;
	} else if (!strcmp(type, "counters")) {
		return parse_counters(p, o);
	} else if (!strcmp(type, "total")) {
		if (p->seen_total)
			return bad(p, "a second total");
		p->seen_total = true;
		return parse_counts(p, 1, &o->total);
	} else if (!strcmp(type, "function")) {
		struct ws_sim_function *f;
		uint64_t id;

		if (p->nr_fields < 5)
			return bad(p, "'function' record has %zu fields, expected at least 5", p->nr_fields);
		if ((err = parse_u64(p, p->field[1], "function id", &id)))
			return err;
		if (id != o->nr_functions)
			return bad(p, "function id %s out of sequence (expected %zu)", p->field[1], o->nr_functions);
		WS_ALLOC_GROW(o->functions, o->nr_functions + 1, o->alloc_functions);
		f = &o->functions[o->nr_functions];
		memset(f, 0, sizeof(*f));
		if ((err = parse_counts(p, 5, &f->counts)))
			return err;
		f->name = xstrdup(p->field[2]);
		f->file = xstrdup(p->field[3]);
		f->object = xstrdup(p->field[4]);
		o->nr_functions++;
	} else if (!strcmp(type, "region")) {
		struct ws_sim_region *r;
		uint64_t entries;

		if (p->nr_fields < 3)
			return bad(p, "'region' record has %zu fields, expected at least 3", p->nr_fields);
		if ((err = parse_u64(p, p->field[2], "region entries", &entries)))
			return err;
		WS_ALLOC_GROW(o->regions, o->nr_regions + 1, o->alloc_regions);
		r = &o->regions[o->nr_regions];
		if ((err = parse_counts(p, 3, &r->counts)))
			return err;
		r->name = xstrdup(p->field[1]);
		r->entries = entries;
		o->nr_regions++;
	} else if (!strcmp(type, "hot")) {
		struct ws_sim_insn in;
		struct ws_sim_function *f;
		uint64_t id;

		if ((err = need_fields(p, 6)) || (err = parse_u64(p, p->field[1], "function id", &id)) ||
		    (err = parse_addr(p, p->field[2], &in.addr)) ||
		    (err = parse_u64(p, p->field[3], "executions", &in.executions)) ||
		    (err = parse_u64(p, p->field[4], "L1d misses", &in.l1d_misses)) ||
		    (err = parse_u64(p, p->field[5], "mispredicts", &in.mispredicts)))
			return err;
		if (id >= o->nr_functions)
			return bad(p, "hot instruction of function %s, which has no row", p->field[1]);
		f = &o->functions[id];
		WS_ALLOC_GROW(f->insns, f->nr_insns + 1, f->alloc_insns);
		f->insns[f->nr_insns++] = in;
	} else if (!strcmp(type, "stacks")) {
		uint64_t limit, dropped;

		if (o->has_stacks)
			return bad(p, "a second 'stacks' record");
		if ((err = need_fields(p, 3)) || (err = parse_u64(p, p->field[1], "stack limit", &limit)) ||
		    (err = parse_u64(p, p->field[2], "dropped stacks", &dropped)))
			return err;
		o->has_stacks = true;
		o->stacks_dropped = dropped;
	} else if (!strcmp(type, "node")) {
		struct ws_sim_node *n;
		uint64_t id, parent = 0, fn = 0;

		if (!o->has_stacks)
			return bad(p, "'node' record before the 'stacks' record");
		if (p->nr_fields < 4)
			return bad(p, "'node' record has %zu fields, expected at least 4", p->nr_fields);
		if ((err = parse_u64(p, p->field[1], "node id", &id)))
			return err;
		if (id != o->nr_nodes)
			return bad(p, "node id %s out of sequence (expected %zu)", p->field[1], o->nr_nodes);
		if (strcmp(p->field[2], "-") && (err = parse_u64(p, p->field[2], "parent node", &parent)))
			return err;
		if (strcmp(p->field[2], "-") && parent >= id)
			return bad(p, "node %s has parent %s, which does not come before it", p->field[1], p->field[2]);
		if (strcmp(p->field[3], "-") && (err = parse_u64(p, p->field[3], "function id", &fn)))
			return err;
		if (strcmp(p->field[3], "-") && fn >= o->nr_functions)
			return bad(p, "node %s is in function %s, which has no row", p->field[1], p->field[3]);
		WS_ALLOC_GROW(o->nodes, o->nr_nodes + 1, o->alloc_nodes);
		n = &o->nodes[o->nr_nodes];
		if ((err = parse_counts(p, 4, &n->counts)))
			return err;
		n->parent = strcmp(p->field[2], "-") ? (long)parent : -1;
		n->function = strcmp(p->field[3], "-") ? (long)fn : -1;
		o->nr_nodes++;
	} else if (!strcmp(type, "core")) {
		struct ws_sim_core *c;
		uint64_t id, threads;

		if (p->nr_fields < 3)
			return bad(p, "'core' record has %zu fields, expected at least 3", p->nr_fields);
		if ((err = parse_u64(p, p->field[1], "core", &id)) ||
		    (err = parse_u64(p, p->field[2], "thread count", &threads)))
			return err;
		WS_ALLOC_GROW(o->cores, o->nr_cores + 1, o->alloc_cores);
		c = &o->cores[o->nr_cores];
		if ((err = parse_counts(p, 3, &c->counts)))
			return err;
		c->id = (int)id;
		c->threads = (unsigned)threads;
		o->nr_cores++;
	} else if (!strcmp(type, "line")) {
		struct ws_sim_line *l;
		uint64_t addr, symaddr = 0, misses;
		char *ids, *save = NULL, *tok;

		if ((err = need_fields(p, 6)) || (err = parse_addr(p, p->field[1], &addr)) ||
		    (strcmp(p->field[3], "-") && (err = parse_addr(p, p->field[3], &symaddr))) ||
		    (err = parse_u64(p, p->field[4], "coherence misses", &misses)))
			return err;
		WS_ALLOC_GROW(o->lines, o->nr_lines + 1, o->alloc_lines);
		l = &o->lines[o->nr_lines++];
		memset(l, 0, sizeof(*l));
		l->addr = addr;
		l->symbol = strcmp(p->field[2], "-") ? xstrdup(p->field[2]) : NULL;
		l->symbol_addr = symaddr;
		l->misses = misses;
		ids = xstrdup(p->field[5]);
		for (tok = strtok_r(ids, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			uint64_t id;

			if (!strcmp(tok, "-"))
				continue;
			if ((err = parse_u64(p, tok, "function id", &id)) || id >= o->nr_functions) {
				/* The message quotes tok, which lives in ids: free it after. */
				if (!err)
					err = bad(p, "line touched by function %s, which has no row", tok);
				free(ids);
				return err;
			}
			l->functions = xrealloc(l->functions, (l->nr_functions + 1) * sizeof(*l->functions));
			l->function_ids = xrealloc(l->function_ids, (l->nr_functions + 1) * sizeof(*l->function_ids));
			l->function_ids[l->nr_functions] = (size_t)id;
			l->functions[l->nr_functions++] = xstrdup(o->functions[id].name);
		}
		free(ids);
	} else if (!strcmp(type, "line-core")) {
		struct ws_sim_line *l;
		struct ws_sim_line_core c;
		uint64_t core, thread;

		if (!o->nr_lines)
			return bad(p, "'line-core' record before any 'line'");
		if ((err = need_fields(p, 8)) || (err = parse_u64(p, p->field[1], "core", &core)) ||
		    (err = parse_u64(p, p->field[2], "thread", &thread)) ||
		    (err = parse_u64(p, p->field[3], "reads", &c.reads)) ||
		    (err = parse_u64(p, p->field[4], "writes", &c.writes)) ||
		    (err = parse_u64(p, p->field[7], "coherence misses", &c.misses)))
			return err;
		if (parse_range(p->field[5], &c.read_lo, &c.read_hi) ||
		    parse_range(p->field[6], &c.write_lo, &c.write_hi))
			return bad(p, "byte ranges must be LO-HI or -");
		c.core = (int)core;
		c.thread = (unsigned)thread;
		l = &o->lines[o->nr_lines - 1];
		l->cores = xrealloc(l->cores, (l->nr_cores + 1) * sizeof(*l->cores));
		l->cores[l->nr_cores++] = c;
	} else if (!strcmp(type, "brief-threads")) {
		uint64_t n;

		if ((err = need_fields(p, 2)) || (err = parse_u64(p, p->field[1], "brief threads", &n)))
			return err;
		o->brief_threads = (unsigned)n;
	} else if (!strcmp(type, "end")) {
		if ((err = need_fields(p, 1)))
			return err;
		p->seen_end = true;
	} else if (!strcmp(type, "wsim")) {
		return bad(p, "a second 'wsim' header");
	} else {
		return bad(p, "unknown record '%s'", type);
	}
	return 0;
}

/* Split `line` (NUL-terminated, modified) at tabs and unescape each field. */
static int split(struct parser *p, char *line)
{
	p->nr_fields = 0;
	for (;;) {
		char *tab = strchr(line, '\t');

		WS_ALLOC_GROW(p->field, p->nr_fields + 1, p->alloc_fields);
		p->field[p->nr_fields++] = line;
		if (tab)
			*tab = '\0';
		if (unescape(line))
			return bad(p, "bad escape in field %zu", p->nr_fields);
		if (!tab)
			break;
		line = tab + 1;
	}
	return 0;
}

static int cmp_insn(const void *a, const void *b)
{
	uint64_t x = ((const struct ws_sim_insn *)a)->addr, y = ((const struct ws_sim_insn *)b)->addr;

	return x < y ? -1 : x > y;
}

int ws_sim_output_parse(struct ws_sim_output *o, const char *buf, size_t len, const char *source)
{
	struct parser p = { .source = source };
	const char *pos = buf, *end = buf + len;
	char *line = NULL;
	size_t alloc_line = 0;
	int err = 0;

	ws_sim_output_init(o);
	while (pos < end) {
		const char *nl = memchr(pos, '\n', (size_t)(end - pos));
		size_t n = nl ? (size_t)(nl - pos) : (size_t)(end - pos);

		p.line++;
		if (!nl) {
			err = bad(&p, "the last line has no newline: the file is truncated");
			goto out;
		}
		if (memchr(pos, '\0', n)) {
			err = bad(&p, "a NUL byte in the line");
			goto out;
		}
		WS_ALLOC_GROW(line, n + 1, alloc_line);
		memcpy(line, pos, n);
		line[n] = '\0';
		pos = nl + 1;
		if ((err = split(&p, line)))
			goto out;
		if (p.line == 1) {
			uint64_t v;

			if (strcmp(p.field[0], "wsim") || p.nr_fields != 2) {
				err = bad(&p, "not a wsim result file (no 'wsim VERSION' header)");
				goto out;
			}
			if ((err = parse_u64(&p, p.field[1], "format version", &v)))
				goto out;
			/* Version 2 added the calling contexts; a version 1 file is one without them. */
			if (v < 1 || v > WSIM_FORMAT_VERSION) {
				err = bad(&p, "format version %s, this reader knows versions 1 to %d", p.field[1],
					  WSIM_FORMAT_VERSION);
				goto out;
			}
			o->version = (int)v;
			continue;
		}
		if ((err = parse_record(&p, o)))
			goto out;
	}
	p.line++;
	if (p.line == 1)
		err = bad(&p, "the file is empty");
	else if (!p.seen_end)
		err = bad(&p, "no 'end' record: the file is truncated");
	else if (!p.seen_total)
		err = bad(&p, "no 'total' record");
	if (err)
		goto out;
	for (size_t i = 0; i < o->nr_functions; i++)
		if (o->functions[i].nr_insns > 1)
			qsort(o->functions[i].insns, o->functions[i].nr_insns, sizeof(struct ws_sim_insn), cmp_insn);
	o->processes = 1;
out:
	free(line);
	free(p.field);
	if (err)
		ws_sim_output_release(o);
	return err;
}

int ws_sim_output_read(struct ws_sim_output *o, const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	int err;

	ws_sim_output_init(o);
	err = ws_read_file(path, &buf, &len);
	if (err) {
		ws_log(WS_LOG_ERROR, "cannot read simulator output '%s': %s", path, strerror(-err));
		return err;
	}
	err = ws_sim_output_parse(o, buf, len, path);
	free(buf);
	return err;
}

/* ---- Adding files up ------------------------------------------------------------------------------------ */

static void counts_add(struct ws_sim_counts *d, const struct ws_sim_counts *s)
{
	for (int i = 0; i < WS_SIM_NR_COUNTERS; i++)
		d->v[i] += s->v[i];
}

static void function_copy(struct ws_sim_function *d, const struct ws_sim_function *s)
{
	d->name = xstrdup(s->name);
	d->file = xstrdup(s->file);
	d->object = xstrdup(s->object);
	d->counts = s->counts;
	d->nr_insns = d->alloc_insns = s->nr_insns;
	d->insns = s->nr_insns ? xmalloc(s->nr_insns * sizeof(*d->insns)) : NULL;
	if (s->nr_insns)
		memcpy(d->insns, s->insns, s->nr_insns * sizeof(*d->insns));
}

/* Both lists ascend by address: merge them, adding the counts of an address in both. */
static void insns_merge(struct ws_sim_function *d, const struct ws_sim_function *s)
{
	struct ws_sim_insn *m;
	size_t i = 0, j = 0, n = 0;

	if (!s->nr_insns)
		return;
	m = xmalloc((d->nr_insns + s->nr_insns) * sizeof(*m));
	while (i < d->nr_insns || j < s->nr_insns) {
		if (j == s->nr_insns || (i < d->nr_insns && d->insns[i].addr < s->insns[j].addr)) {
			m[n++] = d->insns[i++];
		} else if (i == d->nr_insns || s->insns[j].addr < d->insns[i].addr) {
			m[n++] = s->insns[j++];
		} else {
			m[n] = d->insns[i++];
			m[n].executions += s->insns[j].executions;
			m[n].l1d_misses += s->insns[j].l1d_misses;
			m[n++].mispredicts += s->insns[j++].mispredicts;
		}
	}
	free(d->insns);
	d->insns = m;
	d->nr_insns = d->alloc_insns = n;
}

static int cmp_function_key(const struct ws_sim_function *a, const struct ws_sim_function *b)
{
	int r = strcmp(a->object, b->object);

	if (!r)
		r = strcmp(a->name, b->name);
	if (!r)
		r = strcmp(a->file, b->file);
	return r;
}

static const struct ws_sim_function *sort_base;

static int cmp_index(const void *a, const void *b)
{
	return cmp_function_key(&sort_base[*(const size_t *)a], &sort_base[*(const size_t *)b]);
}

static int cmp_hottest(const void *pa, const void *pb)
{
	const struct ws_sim_function *a = pa, *b = pb;
	uint64_t x = a->counts.v[WS_SIM_ESTIMATED_CYCLES], y = b->counts.v[WS_SIM_ESTIMATED_CYCLES];

	if (x != y)
		return x > y ? -1 : 1;
	return cmp_function_key(a, b);
}

static int cmp_index_hottest(const void *a, const void *b)
{
	return cmp_hottest(&sort_base[*(const size_t *)a], &sort_base[*(const size_t *)b]);
}

static int same_model(const struct ws_sim_output *a, const struct ws_sim_output *b)
{
	if (a->version != b->version || a->present != b->present || a->nr_config != b->nr_config)
		return 0;
	for (size_t i = 0; i < a->nr_config; i++)
		if (strcmp(a->config[i].key, b->config[i].key) || strcmp(a->config[i].value, b->config[i].value))
			return 0;
	return 1;
}

/*
 * The contention report's lines of `s` after those of `d`, from process `process` of the sum; fmap (NULL:
 * the same) maps s's function indices to d's.
 */
static void lines_append(struct ws_sim_output *d, const struct ws_sim_output *s, unsigned process,
			 const size_t *fmap)
{
	for (size_t i = 0; i < s->nr_lines; i++) {
		const struct ws_sim_line *f = &s->lines[i];
		struct ws_sim_line *t;

		WS_ALLOC_GROW(d->lines, d->nr_lines + 1, d->alloc_lines);
		t = &d->lines[d->nr_lines++];
		*t = *f;
		t->symbol = f->symbol ? xstrdup(f->symbol) : NULL;
		t->functions = f->nr_functions ? xcalloc(f->nr_functions, sizeof(*t->functions)) : NULL;
		t->function_ids = f->nr_functions ? xcalloc(f->nr_functions, sizeof(*t->function_ids)) : NULL;
		for (size_t j = 0; j < f->nr_functions; j++) {
			t->functions[j] = xstrdup(f->functions[j]);
			t->function_ids[j] = fmap ? fmap[f->function_ids[j]] : f->function_ids[j];
		}
		t->cores = f->nr_cores ? xmalloc(f->nr_cores * sizeof(*t->cores)) : NULL;
		if (f->nr_cores)
			memcpy(t->cores, f->cores, f->nr_cores * sizeof(*t->cores));
		t->process = f->process + process;
	}
}

/* Per-core counts of `s` added into `d`'s, by core number. */
static void cores_add(struct ws_sim_output *d, const struct ws_sim_output *s)
{
	for (size_t j = 0; j < s->nr_cores; j++) {
		size_t i;

		for (i = 0; i < d->nr_cores && d->cores[i].id != s->cores[j].id; i++)
			;
		if (i == d->nr_cores) {
			WS_ALLOC_GROW(d->cores, d->nr_cores + 1, d->alloc_cores);
			memset(&d->cores[i], 0, sizeof(d->cores[i]));
			d->cores[i].id = s->cores[j].id;
			d->nr_cores++;
		}
		d->cores[i].threads += s->cores[j].threads;
		counts_add(&d->cores[i].counts, &s->cores[j].counts);
	}
}

static void output_copy(struct ws_sim_output *d, const struct ws_sim_output *s)
{
	*d = *s;
	d->config = s->nr_config ? xcalloc(s->nr_config, sizeof(*d->config)) : NULL;
	d->alloc_config = s->nr_config;
	for (size_t i = 0; i < s->nr_config; i++) {
		d->config[i].key = xstrdup(s->config[i].key);
		d->config[i].value = xstrdup(s->config[i].value);
	}
	d->argv = NULL;
	if (s->argv) {
		d->argv = xcalloc(s->argc + 1, sizeof(*d->argv));
		for (size_t i = 0; i < s->argc; i++)
			d->argv[i] = xstrdup(s->argv[i]);
	}
	d->functions = s->nr_functions ? xcalloc(s->nr_functions, sizeof(*d->functions)) : NULL;
	d->alloc_functions = s->nr_functions;
	for (size_t i = 0; i < s->nr_functions; i++)
		function_copy(&d->functions[i], &s->functions[i]);
	d->regions = s->nr_regions ? xcalloc(s->nr_regions, sizeof(*d->regions)) : NULL;
	d->alloc_regions = s->nr_regions;
	for (size_t i = 0; i < s->nr_regions; i++) {
		d->regions[i] = s->regions[i];
		d->regions[i].name = xstrdup(s->regions[i].name);
	}
	d->nodes = s->nr_nodes ? xmalloc(s->nr_nodes * sizeof(*d->nodes)) : NULL;
	d->alloc_nodes = s->nr_nodes;
	if (s->nr_nodes)
		memcpy(d->nodes, s->nodes, s->nr_nodes * sizeof(*d->nodes));
	d->lines = NULL;
	d->nr_lines = d->alloc_lines = 0;
	lines_append(d, s, 0, NULL);
	d->cores = NULL;
	d->nr_cores = d->alloc_cores = 0;
	cores_add(d, s);
}

/* Calling contexts by (parent, function): open addressing over node indexes, for merging process trees. */
struct node_table {
	size_t *slot; /* node index + 1; 0 is empty */
	size_t mask;
};

static uint64_t node_key_hash(long parent, long function)
{
	uint64_t h = ((uint64_t)(parent + 1) * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)(function + 1) * 0xC2B2AE3D27D4EB4FULL);

	return h ^ (h >> 31);
}

static size_t *node_slot(struct node_table *t, const struct ws_sim_node *nodes, long parent, long function)
{
	size_t i = node_key_hash(parent, function) & t->mask;

	while (t->slot[i]) {
		const struct ws_sim_node *n = &nodes[t->slot[i] - 1];

		if (n->parent == parent && n->function == function)
			break;
		i = (i + 1) & t->mask;
	}
	return &t->slot[i];
}

/*
 * Add src's contexts into dst's, their functions mapped by `fmap` (src function -> dst function, before dst's
 * functions are reordered): a context of the same path of functions adds up, a new one is appended.
 */
static void nodes_merge(struct ws_sim_output *dst, const struct ws_sim_output *src, const size_t *fmap)
{
	struct node_table t;
	size_t cap = 16, *nmap = xmalloc((src->nr_nodes + 1) * sizeof(*nmap));

	while (cap < 2 * (dst->nr_nodes + src->nr_nodes))
		cap *= 2;
	t.slot = xcalloc(cap, sizeof(*t.slot));
	t.mask = cap - 1;
	for (size_t i = 0; i < dst->nr_nodes; i++)
		*node_slot(&t, dst->nodes, dst->nodes[i].parent, dst->nodes[i].function) = i + 1;
	for (size_t j = 0; j < src->nr_nodes; j++) {
		const struct ws_sim_node *s = &src->nodes[j];
		long parent = s->parent < 0 ? -1 : (long)nmap[s->parent];
		long function = s->function < 0 ? -1 : (long)fmap[s->function];
		size_t *slot = node_slot(&t, dst->nodes, parent, function);

		if (!*slot) {
			WS_ALLOC_GROW(dst->nodes, dst->nr_nodes + 1, dst->alloc_nodes);
			dst->nodes[dst->nr_nodes].parent = parent;
			dst->nodes[dst->nr_nodes].function = function;
			memset(&dst->nodes[dst->nr_nodes].counts, 0, sizeof(dst->nodes[dst->nr_nodes].counts));
			*slot = ++dst->nr_nodes;
		}
		counts_add(&dst->nodes[*slot - 1].counts, &s->counts);
		nmap[j] = *slot - 1;
	}
	free(t.slot);
	free(nmap);
}

int ws_sim_output_add(struct ws_sim_output *dst, const struct ws_sim_output *src)
{
	size_t *index, *fmap, *order, *where, n_old;
	unsigned process;

	if (!src->processes)
		return 0;
	if (!dst->processes) {
		output_copy(dst, src);
		return 0;
	}
	if (!same_model(dst, src)) {
		ws_log(WS_LOG_ERROR, "cannot add simulator results of different models (preset %s and %s)",
		       ws_sim_config(dst, "preset") ? ws_sim_config(dst, "preset") : "?",
		       ws_sim_config(src, "preset") ? ws_sim_config(src, "preset") : "?");
		return -EINVAL;
	}
	counts_add(&dst->total, &src->total);
	process = dst->processes;
	cores_add(dst, src);
	dst->threads += src->threads;
	dst->brief_threads += src->brief_threads;
	dst->processes += src->processes;

	dst->has_stacks |= src->has_stacks;
	dst->stacks_dropped += src->stacks_dropped;
	n_old = dst->nr_functions;
	fmap = xmalloc((src->nr_functions + 1) * sizeof(*fmap));
	index = xmalloc((n_old + 1) * sizeof(*index));
	for (size_t i = 0; i < n_old; i++)
		index[i] = i;
	sort_base = dst->functions;
	if (n_old > 1)
		qsort(index, n_old, sizeof(*index), cmp_index);
	for (size_t j = 0; j < src->nr_functions; j++) {
		const struct ws_sim_function *s = &src->functions[j];
		size_t lo = 0, hi = n_old;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (cmp_function_key(&dst->functions[index[mid]], s) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < n_old && !cmp_function_key(&dst->functions[index[lo]], s)) {
			struct ws_sim_function *d = &dst->functions[index[lo]];

			counts_add(&d->counts, &s->counts);
			insns_merge(d, s);
			fmap[j] = index[lo];
		} else {
			WS_ALLOC_GROW(dst->functions, dst->nr_functions + 1, dst->alloc_functions);
			function_copy(&dst->functions[dst->nr_functions], s);
			fmap[j] = dst->nr_functions++;
		}
	}
	free(index);
	nodes_merge(dst, src, fmap);
	/* After the functions, whose indices its lines' function_ids are mapped to. */
	lines_append(dst, src, process, fmap);
	free(fmap);
	/* Hottest first again, through a permutation, so that the contexts follow their functions. */
	order = xmalloc((dst->nr_functions + 1) * sizeof(*order));
	where = xmalloc((dst->nr_functions + 1) * sizeof(*where));
	for (size_t i = 0; i < dst->nr_functions; i++)
		order[i] = i;
	sort_base = dst->functions;
	if (dst->nr_functions > 1)
		qsort(order, dst->nr_functions, sizeof(*order), cmp_index_hottest);
	{
		struct ws_sim_function *sorted = xmalloc((dst->nr_functions + 1) * sizeof(*sorted));

		for (size_t i = 0; i < dst->nr_functions; i++) {
			sorted[i] = dst->functions[order[i]];
			where[order[i]] = i;
		}
		free(dst->functions);
		dst->functions = sorted;
		dst->alloc_functions = dst->nr_functions;
	}
	for (size_t i = 0; i < dst->nr_nodes; i++)
		if (dst->nodes[i].function >= 0)
			dst->nodes[i].function = (long)where[dst->nodes[i].function];
	for (size_t i = 0; i < dst->nr_lines; i++)
		for (size_t j = 0; j < dst->lines[i].nr_functions; j++)
			dst->lines[i].function_ids[j] = where[dst->lines[i].function_ids[j]];
	free(order);
	free(where);

	for (size_t j = 0; j < src->nr_regions; j++) {
		size_t i;

		for (i = 0; i < dst->nr_regions; i++)
			if (!strcmp(dst->regions[i].name, src->regions[j].name))
				break;
		if (i == dst->nr_regions) {
			WS_ALLOC_GROW(dst->regions, dst->nr_regions + 1, dst->alloc_regions);
			memset(&dst->regions[i], 0, sizeof(dst->regions[i]));
			dst->regions[i].name = xstrdup(src->regions[j].name);
			dst->nr_regions++;
		}
		dst->regions[i].entries += src->regions[j].entries;
		counts_add(&dst->regions[i].counts, &src->regions[j].counts);
	}
	return 0;
}

/* Whether two byte ranges (-1: none) share a byte. */
static bool overlap(int alo, int ahi, int blo, int bhi)
{
	return alo >= 0 && blo >= 0 && alo <= bhi && blo <= ahi;
}

/*
 * Whether a thread takes part in line l's contention: more than 1% of the line's misses or of its accesses,
 * the tool's rule for naming the line's variable (sim/wsim-output.c). A miss is charged to whoever finds
 * the line gone, so a writer can have none; the main thread reading a result once has a trace of both.
 */
static bool takes_part(const struct ws_sim_line *l, const struct ws_sim_line_core *x)
{
	uint64_t all = 0;

	for (size_t k = 0; k < l->nr_cores; k++)
		all += l->cores[k].reads + l->cores[k].writes;
	return x->misses * 100 > l->misses || (x->reads + x->writes) * 100 > all;
}

/*
 * What the threads taking part in line l do there. Only writes to the same bytes by two of them are true
 * sharing: the 1% rule lets the main thread's final read of the results take part where a line has few
 * misses, and its read spans every thread's bytes, which must not make disjoint writers "write the same
 * bytes". Two or more writers on disjoint bytes are false sharing whoever else reads (padding them apart
 * removes their misses); a single writer whose bytes another thread reads is a writer and its readers (the
 * data itself is shared), one whose bytes nobody else reads is false sharing again. A row for the threads
 * past the tool's limit on one line (thread 0) merges spans, so a verdict it could change is withheld.
 */
enum ws_sharing ws_sim_line_verdict(const struct ws_sim_line *l)
{
	const struct ws_sim_line_core *writer = NULL;
	size_t writers = 0;
	bool merged = false, any_part = false;

	for (size_t k = 0; k < l->nr_cores; k++) {
		const struct ws_sim_line_core *x = &l->cores[k];

		if (!takes_part(l, x))
			continue;
		any_part = true;
		merged |= x->thread == 0;
		if (x->write_lo < 0)
			continue;
		writers++;
		writer = x;
		for (size_t j = 0; j < k; j++) {
			const struct ws_sim_line_core *y = &l->cores[j];

			if (takes_part(l, y) && overlap(x->write_lo, x->write_hi, y->write_lo, y->write_hi))
				return WS_SHARING_TRUE;
		}
	}
	/* A writer under 1% (a flag set once, read in a spin) is still the line's writer. */
	for (size_t k = 0; !writers && k < l->nr_cores; k++)
		if (l->cores[k].write_lo >= 0) {
			writers++;
			writer = &l->cores[k];
			merged |= writer->thread == 0;
		}
	if (merged || !any_part || !writers)
		return WS_SHARING_UNKNOWN;
	if (writers >= 2)
		return WS_SHARING_FALSE;
	for (size_t k = 0; k < l->nr_cores; k++) {
		const struct ws_sim_line_core *y = &l->cores[k];

		if (y != writer && takes_part(l, y) &&
		    overlap(writer->write_lo, writer->write_hi, y->read_lo, y->read_hi))
			return WS_SHARING_ONE_WRITER;
	}
	return WS_SHARING_FALSE;
}
