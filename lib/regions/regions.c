/* SPDX-License-Identifier: GPL-2.0-or-later */
/* regions.c - whyslow's side of the region markers: build a run's environment, read its region files. */
#include "regions/regions.h"

#include "core/log.h"
#include "core/util.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The protocol's rule (regions.h): printable ASCII except the three characters the formats use. */
static int needs_escape(unsigned char c)
{
	return c < 0x21 || c > 0x7e || c == '%' || c == ',' || c == ':';
}

char *ws_marker_name_encode(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;
	char *out, *p;

	for (const unsigned char *q = (const unsigned char *)s; *q; q++)
		n += needs_escape(*q) ? 3 : 1;
	p = out = xmalloc(n + 1);
	for (const unsigned char *q = (const unsigned char *)s; *q; q++) {
		if (needs_escape(*q)) {
			*p++ = '%';
			*p++ = hex[*q >> 4];
			*p++ = hex[*q & 15];
		} else {
			*p++ = (char)*q;
		}
	}
	*p = '\0';
	return out;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decode `n` bytes of a percent-encoded name; NULL if it is empty, badly escaped or decodes to a NUL. */
static char *name_decode(const char *s, size_t n)
{
	char *out, *p;

	if (!n)
		return NULL;
	p = out = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%') {
			int hi, lo;

			if (i + 2 >= n)
				goto bad;
			hi = hexval(s[i + 1]);
			lo = hexval(s[i + 2]);
			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
				goto bad;
			*p++ = (char)(hi << 4 | lo);
			i += 2;
		} else if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e) {
			goto bad;
		} else {
			*p++ = s[i];
		}
	}
	*p = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

int ws_marker_env_build(enum ws_markers_mode mode, const struct ws_marker_event *events, size_t nr,
			const char *outdir, char ***env)
{
	char **e = xcalloc(4, sizeof(*e));
	char *list = NULL;
	size_t len = 0;

	*env = NULL;
	if (mode == WS_MARKERS_SIM) {
		e[0] = xstrdup(WS_MARKERS_ENV_MODE "=sim");
		*env = e;
		return 0;
	}
	if (mode != WS_MARKERS_PERF) {
		ws_log(WS_LOG_ERROR, "markers: unknown mode %d", (int)mode);
		goto invalid;
	}
	if (!nr || nr > WS_MARKERS_MAX_EVENTS) {
		ws_log(WS_LOG_ERROR, "markers: %zu events; regions can count 1 to %d", nr, WS_MARKERS_MAX_EVENTS);
		goto invalid;
	}
	if (!outdir || !*outdir) {
		ws_log(WS_LOG_ERROR, "markers: no output directory for the region files");
		goto invalid;
	}
	for (size_t i = 0; i < nr; i++) {
		const struct ws_marker_event *ev = &events[i];
		unsigned excl = (ev->exclude_user ? WS_MARKERS_EXCLUDE_USER : 0) |
				(ev->exclude_kernel ? WS_MARKERS_EXCLUDE_KERNEL : 0) |
				(ev->exclude_hv ? WS_MARKERS_EXCLUDE_HV : 0);
		char *name, *item;

		if (!ev->name || !*ev->name) {
			ws_log(WS_LOG_ERROR, "markers: event %zu has no name", i);
			goto invalid;
		}
		name = ws_marker_name_encode(ev->name);
		item = xasprintf("%s%" PRIu32 ":0x%" PRIx64 ":0x%" PRIx64 ":0x%" PRIx64 ":0x%x:%s", i ? "," : "",
				 ev->type, ev->config, ev->config1, ev->config2, excl, name);
		free(name);
		list = xrealloc(list, len + strlen(item) + 1);
		memcpy(list + len, item, strlen(item) + 1);
		len += strlen(item);
		free(item);
	}
	e[0] = xstrdup(WS_MARKERS_ENV_MODE "=perf");
	e[1] = xasprintf(WS_MARKERS_ENV_EVENTS "=%s", list);
	e[2] = xasprintf(WS_MARKERS_ENV_OUT "=%s/" WS_MARKERS_FILE_BASE, outdir);
	free(list);
	*env = e;
	return 0;
invalid:
	free(list);
	ws_marker_env_free(e);
	return -EINVAL;
}

void ws_marker_env_free(char **env)
{
	if (!env)
		return;
	for (char **p = env; *p; p++)
		free(*p);
	free(env);
}

static void region_data_release(struct ws_region_data *r)
{
	free(r->name);
	free(r->counts);
}

void ws_region_set_release(struct ws_region_set *set)
{
	for (size_t i = 0; i < set->nr_events; i++)
		free(set->events[i]);
	free(set->events);
	for (size_t i = 0; i < set->nr_regions; i++)
		region_data_release(&set->regions[i]);
	free(set->regions);
	free(set->error);
	memset(set, 0, sizeof(*set));
}

const struct ws_region_data *ws_region_set_find(const struct ws_region_set *set, const char *name)
{
	for (size_t i = 0; i < set->nr_regions; i++)
		if (!strcmp(set->regions[i].name, name))
			return &set->regions[i];
	return NULL;
}

double ws_region_count_scaled(const struct ws_region_count *c)
{
	if (!c->time_running)
		return NAN;
	if (c->time_running >= c->time_enabled)
		return (double)c->value;
	return (double)c->value * ((double)c->time_enabled / (double)c->time_running);
}

/* The parser's cursor: the current line, split into space-separated fields in place. */
struct parse {
	const char *origin;
	unsigned line;
	char *field[3 + 3 + 3 * WS_MARKERS_MAX_EVENTS + 1];
	size_t nr;
};

static int malformed(const struct parse *p, const char *what)
{
	ws_log(WS_LOG_ERROR, "%s:%u: malformed region file: %s", p->origin, p->line, what);
	return -EINVAL;
}

/* Split `line` at single spaces; more fields than fit is an error (-1). */
static int split(struct parse *p, char *line)
{
	char *s = line;

	p->nr = 0;
	for (;;) {
		char *sp = strchr(s, ' ');

		if (p->nr == ARRAY_SIZE(p->field))
			return -1;
		p->field[p->nr++] = s;
		if (!sp)
			break;
		*sp = '\0';
		s = sp + 1;
	}
	return 0;
}

/* A field that must be an unsigned decimal number that fits 64 bits. */
static int get_u64(const struct parse *p, size_t i, uint64_t *v)
{
	const char *s = p->field[i];
	uint64_t x = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		unsigned d;

		if (*s < '0' || *s > '9')
			return -1;
		d = (unsigned)(*s - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

/* Add `b` to `*a`, failing (-1) instead of wrapping: a sum that overflows 64 bits is not a count. */
static int add_u64(uint64_t *a, uint64_t b)
{
	if (*a > UINT64_MAX - b)
		return -1;
	*a += b;
	return 0;
}

static struct ws_region_data *find_mut(struct ws_region_set *set, const char *name)
{
	return (struct ws_region_data *)ws_region_set_find(set, name);
}

/* Parse one whole file into the empty set `f`. */
static int parse_file(struct ws_region_set *f, char *text, struct parse *p)
{
	enum { HEAD, PID, THREADS, FAILED, EVENTS, EVENT, BODY, END } st = HEAD;
	size_t regions_alloc = 0, events_want = 0;
	char *line = text, *nl;

	for (p->line = 1; *line; line = nl + 1, p->line++) {
		const char *key;

		nl = strchr(line, '\n');
		if (!nl)
			return malformed(p, "the last line has no newline (truncated?)");
		*nl = '\0';
		if (st == END)
			return malformed(p, "text after \"end\"");
		/* Free text to the end of the line: taken before the line is split at its spaces. */
		if (st == EVENTS && ws_skip_prefix(line, "error ", &key)) {
			if (f->error)
				return malformed(p, "a second \"error\" line");
			f->error = xstrdup(key);
			continue;
		}
		if (split(p, line) < 0)
			return malformed(p, "too many fields");
		key = p->field[0];
		switch (st) {
		case HEAD: {
			uint64_t v;

			if (p->nr != 2 || strcmp(key, WS_MARKERS_FILE_MAGIC) || get_u64(p, 1, &v) < 0)
				return malformed(p, "not a region file (no \"" WS_MARKERS_FILE_MAGIC " 1\" line)");
			if (v != WS_MARKERS_FILE_VERSION)
				return malformed(p, "unknown version (this whyslow reads version 1)");
			st = PID;
			continue;
		}
		case PID:
		case THREADS:
		case FAILED: {
			static const char *const want[] = { [PID] = "pid", [THREADS] = "threads", [FAILED] = "failed" };
			uint64_t v;

			if (p->nr != 2 || strcmp(key, want[st]) || get_u64(p, 1, &v) < 0) {
				ws_log(WS_LOG_ERROR, "%s:%u: malformed region file: expected \"%s N\"", p->origin,
				       p->line, want[st]);
				return -EINVAL;
			}
			if (st == THREADS)
				f->nr_threads = v;
			else if (st == FAILED)
				f->nr_failed = v;
			st = st == PID ? THREADS : st == THREADS ? FAILED : EVENTS;
			continue;
		}
		case EVENTS: {
			uint64_t v;

			if (p->nr != 2 || strcmp(key, "events") || get_u64(p, 1, &v) < 0)
				return malformed(p, "expected \"events N\"");
			if (v < 1 || v > WS_MARKERS_MAX_EVENTS)
				return malformed(p, "the number of events is out of range");
			events_want = (size_t)v;
			f->events = xcalloc(events_want, sizeof(*f->events));
			st = EVENT;
			continue;
		}
		case EVENT:
			if (p->nr != 2 || strcmp(key, "event"))
				return malformed(p, "expected \"event NAME\" (fewer event lines than \"events\" said)");
			f->events[f->nr_events] = name_decode(p->field[1], strlen(p->field[1]));
			if (!f->events[f->nr_events])
				return malformed(p, "bad event name");
			if (++f->nr_events == events_want)
				st = BODY;
			continue;
		case BODY:
			break;
		case END:
			break;
		}
		/* BODY: region lines, then "end". */
		if (!strcmp(key, "end")) {
			if (p->nr != 1)
				return malformed(p, "\"end\" takes no fields");
			st = END;
			continue;
		}
		if (strcmp(key, "region"))
			return malformed(p, "expected \"region\" or \"end\"");
		if (p->nr != 5 + 3 * f->nr_events)
			return malformed(p, "a region line needs NAME ENTRIES WALL_NS UNMATCHED and 3 numbers per event");
		{
			struct ws_region_data r = { 0 };
			uint64_t wall;

			r.name = name_decode(p->field[1], strlen(p->field[1]));
			if (!r.name)
				return malformed(p, "bad region name");
			if (find_mut(f, r.name)) {
				free(r.name);
				return malformed(p, "the same region twice");
			}
			r.counts = xcalloc(f->nr_events, sizeof(*r.counts));
			if (get_u64(p, 2, &r.entries) < 0 || get_u64(p, 3, &wall) < 0 ||
			    get_u64(p, 4, &r.unmatched) < 0)
				goto bad_number;
			r.wall_seconds = (double)wall * 1e-9;
			for (size_t i = 0; i < f->nr_events; i++) {
				if (get_u64(p, 5 + 3 * i, &r.counts[i].value) < 0 ||
				    get_u64(p, 6 + 3 * i, &r.counts[i].time_enabled) < 0 ||
				    get_u64(p, 7 + 3 * i, &r.counts[i].time_running) < 0)
					goto bad_number;
			}
			WS_ALLOC_GROW(f->regions, f->nr_regions + 1, regions_alloc);
			f->regions[f->nr_regions++] = r;
			continue;
bad_number:
			region_data_release(&r);
			return malformed(p, "a number is not an unsigned decimal that fits 64 bits");
		}
	}
	if (st != END)
		return malformed(p, "no \"end\" line (truncated?)");
	return 0;
}

/* Add the parsed file `f` into `set`; -EINVAL (set unchanged) when their events differ or a sum overflows. */
static int merge(struct ws_region_set *set, const struct ws_region_set *f, const char *origin)
{
	size_t added = 0;

	if (set->nr_processes) {
		int same = set->nr_events == f->nr_events;

		for (size_t i = 0; same && i < f->nr_events; i++)
			same = !strcmp(set->events[i], f->events[i]);
		if (!same) {
			ws_log(WS_LOG_ERROR, "%s: its events differ from the other region files of the run", origin);
			return -EINVAL;
		}
	}
	/* Check every sum first, so that a failure leaves the set as it was. */
	for (size_t i = 0; i < f->nr_regions; i++) {
		const struct ws_region_data *r = &f->regions[i];
		const struct ws_region_data *s = ws_region_set_find(set, r->name);
		uint64_t a;

		if (!s)
			continue;
		a = s->entries;
		if (add_u64(&a, r->entries) < 0)
			goto overflow;
		a = s->unmatched;
		if (add_u64(&a, r->unmatched) < 0)
			goto overflow;
		for (size_t j = 0; j < f->nr_events; j++) {
			a = s->counts[j].value;
			if (add_u64(&a, r->counts[j].value) < 0)
				goto overflow;
			a = s->counts[j].time_enabled;
			if (add_u64(&a, r->counts[j].time_enabled) < 0)
				goto overflow;
			a = s->counts[j].time_running;
			if (add_u64(&a, r->counts[j].time_running) < 0)
				goto overflow;
		}
	}
	if (!set->nr_processes) {
		set->nr_events = f->nr_events;
		set->events = xcalloc(f->nr_events, sizeof(*set->events));
		for (size_t i = 0; i < f->nr_events; i++)
			set->events[i] = xstrdup(f->events[i]);
	}
	for (size_t i = 0; i < f->nr_regions; i++)
		added += !ws_region_set_find(set, f->regions[i].name);
	if (added)
		set->regions = xrealloc(set->regions, (set->nr_regions + added) * sizeof(*set->regions));
	for (size_t i = 0; i < f->nr_regions; i++) {
		const struct ws_region_data *r = &f->regions[i];
		struct ws_region_data *s = find_mut(set, r->name);

		if (!s) {
			s = &set->regions[set->nr_regions++];
			s->name = xstrdup(r->name);
			s->entries = s->unmatched = 0;
			s->wall_seconds = 0;
			s->counts = xcalloc(set->nr_events, sizeof(*s->counts));
		}
		s->entries += r->entries;
		s->unmatched += r->unmatched;
		s->wall_seconds += r->wall_seconds;
		for (size_t j = 0; j < set->nr_events; j++) {
			s->counts[j].value += r->counts[j].value;
			s->counts[j].time_enabled += r->counts[j].time_enabled;
			s->counts[j].time_running += r->counts[j].time_running;
		}
	}
	set->nr_processes++;
	set->nr_threads += f->nr_threads;
	set->nr_failed += f->nr_failed;
	if (f->error && !set->error)
		set->error = xstrdup(f->error);
	return 0;
overflow:
	ws_log(WS_LOG_ERROR, "%s: a region's sum over the run's files overflows 64 bits", origin);
	return -EINVAL;
}

int ws_region_set_parse(struct ws_region_set *set, const char *buf, size_t len, const char *origin)
{
	struct ws_region_set f = WS_REGION_SET_INIT;
	struct parse p = { .origin = origin };
	char *text;
	int err;

	if (memchr(buf, '\0', len)) {
		ws_log(WS_LOG_ERROR, "%s: malformed region file: it contains a NUL byte", origin);
		return -EINVAL;
	}
	text = xstrndup(buf, len);
	err = parse_file(&f, text, &p);
	if (!err)
		err = merge(set, &f, origin);
	free(text);
	ws_region_set_release(&f);
	return err;
}

/* DIR/regions.PID or DIR/regions.PID-N: the names processes publish (the .tmp files are not). */
static int is_region_file(const char *name)
{
	const char *s;

	if (!ws_skip_prefix(name, WS_MARKERS_FILE_BASE ".", &s) || !(*s >= '0' && *s <= '9'))
		return 0;
	while (*s >= '0' && *s <= '9')
		s++;
	if (*s == '-') {
		if (!(*++s >= '0' && *s <= '9'))
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ws_region_set_read(struct ws_region_set *set, const char *outdir)
{
	DIR *d = opendir(outdir);
	struct dirent *de;
	char **names = NULL;
	size_t nr = 0, alloc = 0;
	int err = 0;

	if (!d) {
		err = -errno;
		ws_log(WS_LOG_ERROR, "cannot read the region files in %s: %s", outdir, strerror(errno));
		return err;
	}
	while ((de = readdir(d)))
		if (is_region_file(de->d_name)) {
			WS_ALLOC_GROW(names, nr + 1, alloc);
			names[nr++] = xstrdup(de->d_name);
		}
	closedir(d);
	/* Directory order is arbitrary; sorting makes "regions in the order first seen" reproducible. */
	if (nr)
		qsort(names, nr, sizeof(*names), cmp_str);
	for (size_t i = 0; i < nr && !err; i++) {
		char *path = xasprintf("%s/%s", outdir, names[i]), *buf;
		size_t len;

		err = ws_read_file(path, &buf, &len);
		if (err < 0)
			ws_log(WS_LOG_ERROR, "cannot read %s: %s", path, strerror(-err));
		else
			err = ws_region_set_parse(set, buf, len, path);
		free(buf);
		free(path);
	}
	for (size_t i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	return err;
}
