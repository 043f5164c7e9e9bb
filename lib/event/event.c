/* SPDX-License-Identifier: GPL-2.0-or-later */
/* event.c - parse event specs: perf's generic names and modifiers, raw codes, libpfm4 names, metrics. */
#include "event/event.h"
#include "core/log.h"
#include "core/util.h"
#include "event/pfm.h"
#include "result/metrics.h"

#include <ctype.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct generic {
	const char *name;
	const char *alias; /* perf's other spelling, or NULL */
	unsigned type;
	unsigned long long config;
};

static const struct generic hw_sw[] = {
	{ "cycles", "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", "idle-cycles-frontend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", "idle-cycles-backend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
};

/* The PERF_TYPE_HW_CACHE names are built as perf builds them: CACHE-OP(s) and CACHE-OP-misses. */
static const char *const cache_names[] = {
	[PERF_COUNT_HW_CACHE_L1D] = "L1-dcache", [PERF_COUNT_HW_CACHE_L1I] = "L1-icache",
	[PERF_COUNT_HW_CACHE_LL] = "LLC",        [PERF_COUNT_HW_CACHE_DTLB] = "dTLB",
	[PERF_COUNT_HW_CACHE_ITLB] = "iTLB",     [PERF_COUNT_HW_CACHE_BPU] = "branch",
	[PERF_COUNT_HW_CACHE_NODE] = "node",
};
static const char *const cache_ops[][2] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = { "loads", "load" },
	[PERF_COUNT_HW_CACHE_OP_WRITE] = { "stores", "store" },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = { "prefetches", "prefetch" },
};

static void generic_cache_name(unsigned cache, unsigned op, bool miss, char *buf, size_t n)
{
	snprintf(buf, n, "%s-%s%s", cache_names[cache], miss ? cache_ops[op][1] : cache_ops[op][0],
		 miss ? "-misses" : "");
}

void ws_event_for_each_generic(void (*fn)(const char *, const struct perf_event_attr *, bool, void *),
			       void *data)
{
	struct perf_event_attr a;
	char name[64];

	for (size_t i = 0; i < ARRAY_SIZE(hw_sw); i++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = hw_sw[i].type;
		a.config = hw_sw[i].config;
		fn(hw_sw[i].name, &a, hw_sw[i].type == PERF_TYPE_HARDWARE, data);
	}
	for (unsigned c = 0; c < ARRAY_SIZE(cache_names); c++) {
		for (unsigned op = 0; op < ARRAY_SIZE(cache_ops); op++) {
			for (int miss = 0; miss < 2; miss++) {
				generic_cache_name(c, op, miss, name, sizeof(name));
				memset(&a, 0, sizeof(a));
				a.size = sizeof(a);
				a.type = PERF_TYPE_HW_CACHE;
				a.config = c | (op << 8) |
					   ((unsigned long long)(miss ? PERF_COUNT_HW_CACHE_RESULT_MISS
								      : PERF_COUNT_HW_CACHE_RESULT_ACCESS)
					    << 16);
				fn(name, &a, true, data);
			}
		}
	}
}

struct lookup {
	const char *want;
	struct perf_event_attr attr;
	bool hw, found;
	const char *canonical;
	char buf[64];
};

static void lookup_cb(const char *name, const struct perf_event_attr *attr, bool hw, void *data)
{
	struct lookup *l = data;

	if (l->found || strcmp(name, l->want))
		return;
	l->found = true;
	l->attr = *attr;
	l->hw = hw;
	snprintf(l->buf, sizeof(l->buf), "%s", name);
	l->canonical = l->buf;
}

static bool find_generic(const char *name, struct lookup *l)
{
	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < ARRAY_SIZE(hw_sw); i++) {
		if (hw_sw[i].alias && !strcmp(name, hw_sw[i].alias)) {
			name = hw_sw[i].name;
			break;
		}
	}
	l->want = name;
	ws_event_for_each_generic(lookup_cb, l);
	return l->found;
}

/* Collect names for "did you mean". */
struct suggest {
	const char *want;
	const char *best[3];
	size_t dist[3];
	char *owned[3];
};

static void suggest_add(struct suggest *s, const char *name)
{
	size_t d = ws_edit_distance(s->want, name);

	for (int i = 0; i < 3; i++)
		if (s->best[i] && !strcmp(s->best[i], name))
			return;

	/* Case-insensitive containment is a strong hint for libpfm4's long upper-case names. */
	if (strcasestr(name, s->want) && strlen(s->want) >= 4 && d > 2)
		d = 2;
	for (int i = 0; i < 3; i++) {
		if (!s->best[i] || d < s->dist[i]) {
			free(s->owned[2]);
			for (int j = 2; j > i; j--) {
				s->best[j] = s->best[j - 1];
				s->dist[j] = s->dist[j - 1];
				s->owned[j] = s->owned[j - 1];
			}
			s->owned[i] = xstrdup(name);
			s->best[i] = s->owned[i];
			s->dist[i] = d;
			return;
		}
	}
}

static void suggest_generic_cb(const char *name, const struct perf_event_attr *a, bool hw, void *data)
{
	(void)a;
	(void)hw;
	suggest_add(data, name);
}

static void suggest_pfm_cb(const char *pmu, const char *event, const char *desc, void *data)
{
	char *full = xasprintf("%s::%s", pmu, event);

	(void)desc;
	suggest_add(data, full);
	free(full);
}

static void report_unknown(const char *spec)
{
	struct suggest s = { .want = spec };
	size_t n;
	const struct ws_metric_info *mi = ws_metric_all(&n);

	ws_event_for_each_generic(suggest_generic_cb, &s);
	for (size_t i = 0; i < n; i++)
		suggest_add(&s, mi[i].name);
	ws_pfm_for_each(suggest_pfm_cb, &s);
	if (s.best[0] && s.dist[0] <= strlen(spec) / 2 + 2)
		ws_error("unknown event '%s'; did you mean %s%s%s%s%s? ('whyslow list' shows them all)", spec,
			 s.best[0], s.best[1] ? ", " : "", s.best[1] ? s.best[1] : "", s.best[2] ? ", " : "",
			 s.best[2] ? s.best[2] : "");
	else
		ws_error("unknown event '%s' ('whyslow list' shows the events of this machine)", spec);
	for (int i = 0; i < 3; i++)
		free(s.owned[i]);
}

static int parse_modifier(const char *mod, bool *user, bool *kernel)
{
	*user = *kernel = false;
	for (const char *p = mod; *p; p++) {
		if (*p == 'u')
			*user = true;
		else if (*p == 'k')
			*kernel = true;
		else
			return -EINVAL;
	}
	return *user || *kernel ? 0 : -EINVAL;
}

int ws_event_parse(const char *spec, struct ws_event *out)
{
	const struct ws_metric_info *mi;
	struct lookup l;
	char *base = NULL, *colon, *mod = NULL;
	bool user = true, kernel = true, has_mod = false;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!*spec)
		return ws_error("empty event name in the event list"), -EINVAL;

	/* libpfm4's syntax has "::" and its own ":u=1" modifiers; hand it over whole. */
	if (strstr(spec, "::")) {
		char *fq = NULL;

		ret = ws_pfm_encode(spec, true, true, &out->attr, sizeof(out->attr), &fq);
		if (ret == -ENOENT || ret == -ENODEV) {
			report_unknown(spec);
			return -ENOENT;
		}
		if (ret < 0)
			return ws_error("invalid attribute in event '%s' (see 'whyslow list')", spec), -EINVAL;
		free(fq);
		out->attr.size = sizeof(out->attr);
		out->name = xstrdup(spec);
		out->kind = WS_EVENT_PERF;
		out->hardware = out->attr.type != PERF_TYPE_SOFTWARE;
		return 0;
	}

	base = xstrdup(spec);
	colon = strchr(base, ':');
	if (colon) {
		*colon = '\0';
		mod = xstrdup(colon + 1);
		if (parse_modifier(mod, &user, &kernel) < 0) {
			ws_error("bad modifier ':%s' in event '%s': use :u (user), :k (kernel) or :uk", colon + 1,
				 spec);
			ret = -EINVAL;
			goto out;
		}
		has_mod = true;
	}

	if (base[0] == 'r' && base[1] && strspn(base + 1, "0123456789abcdefABCDEF") == strlen(base + 1)) {
		out->kind = WS_EVENT_PERF;
		out->attr.type = PERF_TYPE_RAW;
		out->attr.config = strtoull(base + 1, NULL, 16);
		out->hardware = true;
	} else if (find_generic(base, &l)) {
		out->kind = WS_EVENT_PERF;
		out->attr = l.attr;
		out->hardware = l.hw;
		free(base);
		base = xstrdup(l.canonical);
		/* Only the unmodified names mean the same thing to the simulator. */
		mi = ws_metric_info(base);
		out->simulable = !has_mod && mi && (mi->sources & WS_SRC_SIM);
	} else if ((mi = ws_metric_info(base))) {
		if (has_mod) {
			ws_error("event '%s' takes no modifier", base);
			ret = -EINVAL;
			goto out;
		}
		if (mi->sources & WS_SRC_RUSAGE)
			out->kind = WS_EVENT_RUSAGE;
		else if (mi->sources & WS_SRC_DERIVED)
			out->kind = WS_EVENT_DERIVED;
		else
			out->kind = WS_EVENT_SIM;
		out->simulable = (mi->sources & WS_SRC_SIM) != 0;
	} else {
		report_unknown(spec);
		ret = -ENOENT;
		goto out;
	}
	if (out->kind == WS_EVENT_PERF) {
		out->attr.size = sizeof(out->attr);
		out->attr.exclude_user = !user;
		out->attr.exclude_kernel = !kernel;
		out->attr.exclude_hv = !kernel;
	}
	out->name = has_mod ? xasprintf("%s:%s", base, mod) : xstrdup(base);
out:
	free(mod);
	free(base);
	return ret;
}

struct ws_event *ws_event_list_find(const struct ws_event_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return &l->v[i];
	return NULL;
}

static int list_add(struct ws_event_list *l, const char *spec)
{
	struct ws_event ev;
	int ret = ws_event_parse(spec, &ev);

	if (ret < 0)
		return ret;
	if (ws_event_list_find(l, ev.name)) {
		free(ev.name);
		return 0;
	}
	WS_ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = ev;
	if (ev.kind == WS_EVENT_DERIVED) {
		size_t nd;
		const struct ws_derived *d = ws_derived_all(&nd);

		for (size_t i = 0; i < nd; i++) {
			if (strcmp(d[i].name, ev.name))
				continue;
			if ((ret = list_add(l, d[i].num)) < 0 || (ret = list_add(l, d[i].den)) < 0)
				return ret;
		}
	}
	return 0;
}

int ws_event_list_parse(struct ws_event_list *l, const char *list)
{
	char *copy = xstrdup(list), *save = NULL, *tok;
	int ret = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*tok))
			tok++;
		ret = list_add(l, tok);
		if (ret < 0)
			break;
	}
	free(copy);
	return ret;
}

void ws_event_list_default(struct ws_event_list *l)
{
	size_t n;
	const struct ws_metric_info *mi = ws_metric_all(&n);

	for (size_t i = 0; i < n; i++)
		if (mi[i].required)
			list_add(l, mi[i].name);
}

void ws_event_list_release(struct ws_event_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	memset(l, 0, sizeof(*l));
}
