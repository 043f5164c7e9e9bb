/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-list.c - `whyslow list`: metrics, perf's generic events, libpfm4's events, backends and presets. */
#include "builtin.h"
#include "backend/backend.h"
#include "core/util.h"
#include "event/event.h"
#include "event/pfm.h"
#include "perf/perf.h"
#include "result/metrics.h"
#include "parse-options.h"
#include "wsim-model.h"

#include <fnmatch.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const list_usage[] = {
	"whyslow list [--json | --names] [--kind KIND[,KIND...]] [--no-probe] [<pattern>]",
	NULL,
};

/* What --kind takes: the kinds `emit` is given, and two groups of them. */
static const char *const kinds[] = { "runner", "perf", "simulator", "derived", "hardware", "software", "pfm",
				     "backend", "preset" };
static const struct {
	const char *name, *members;
} kind_groups[] = {
	{ "metric", "runner,perf,simulator,derived" },
	{ "event", "hardware,software,pfm" },
};

struct listing {
	const char *pattern;
	bool probe;
	bool names;      /* --names: the names alone, one per line */
	char *kinds;     /* --kind: ",k1,k2," expanded, or NULL for every kind */
	json_t *arr;     /* with --json */
	const char *section;
	size_t shown;
	/*
	 * --names: the plain names printed so far. A metric and perf's event of one name (task-clock) are two
	 * rows of the table but one name to a script; libpfm4's PMU::EVENT names never clash with them.
	 */
	char **seen;
	size_t nseen, aseen;
};

/* Whether --names printed `name` already (and, if not, that it now has). */
static bool seen_before(struct listing *l, const char *name)
{
	if (strstr(name, "::"))
		return false;
	for (size_t i = 0; i < l->nseen; i++)
		if (!strcmp(l->seen[i], name))
			return true;
	WS_ALLOC_GROW(l->seen, l->nseen + 1, l->aseen);
	l->seen[l->nseen++] = xstrdup(name);
	return false;
}

static bool matches(const struct listing *l, const char *name)
{
	return !l->pattern || !fnmatch(l->pattern, name, FNM_CASEFOLD) || strcasestr(name, l->pattern);
}

static int kind_cb(const struct option_spec *opt, const char *arg)
{
	struct listing *l = opt->value;
	char *copy = xstrdup(arg), *save = NULL;

	/* No kind at all ('' or ','): not "every kind", which is what leaving --kind out says. */
	if (!arg[strspn(arg, ", ")])
		usage_error("--kind needs a kind: use metric, event, runner, perf, simulator, derived, hardware, "
			    "software, pfm, backend or preset (leave --kind out for all of them)");

	for (char *k = strtok_r(copy, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		const char *add = NULL;
		char *next;

		for (size_t i = 0; i < ARRAY_SIZE(kind_groups); i++)
			if (!strcmp(k, kind_groups[i].name))
				add = kind_groups[i].members;
		for (size_t i = 0; !add && i < ARRAY_SIZE(kinds); i++)
			if (!strcmp(k, kinds[i]))
				add = k;
		if (!add)
			usage_error("--kind: unknown kind '%s': use metric, event, runner, perf, simulator, derived, "
				    "hardware, software, pfm, backend or preset", k);
		next = xasprintf("%s%s,", l->kinds ? l->kinds : ",", add);
		free(l->kinds);
		l->kinds = next;
	}
	free(copy);
	return 0;
}

static bool kind_wanted(const struct listing *l, const char *kind)
{
	char *key;
	bool yes;

	if (!l->kinds)
		return true;
	key = xasprintf(",%s,", kind);
	yes = strstr(l->kinds, key) != NULL;
	free(key);
	return yes;
}

/* Does this event open on this process, here, now? */
static const char *opens(const struct listing *l, const struct perf_event_attr *attr)
{
	struct perf_event_attr a = *attr;
	int fd;

	if (!l->probe)
		return NULL;
	a.size = sizeof(a);
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = ws_perf_open(NULL, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return "no";
	close(fd);
	return "yes";
}

static void emit(struct listing *l, const char *name, const char *kind, const char *here, const char *desc)
{
	if (!matches(l, name) || !kind_wanted(l, kind))
		return;
	l->shown++;
	if (l->names) {
		if (!seen_before(l, name))
			puts(name);
		return;
	}
	if (l->arr) {
		json_array_append_new(l->arr, json_pack("{s:s,s:s,s:s?,s:s?}", "name", name, "kind", kind, "opens",
							here, "description", desc));
		return;
	}
	if (l->section) {
		printf("\n%s\n", l->section);
		l->section = NULL;
	}
	printf("  %-40s %-9s %-4s %s\n", name, kind, here ? here : "", desc ? desc : "");
}

static void generic_cb(const char *name, const struct perf_event_attr *attr, bool hw, void *data)
{
	struct listing *l = data;

	if (matches(l, name) && kind_wanted(l, hw ? "hardware" : "software"))
		emit(l, name, hw ? "hardware" : "software", opens(l, attr), NULL);
}

static void pfm_cb(const char *pmu, const char *event, const char *desc, void *data)
{
	struct listing *l = data;
	char *full = xasprintf("%s::%s", pmu, event);
	struct perf_event_attr a;

	if (matches(l, full) && kind_wanted(l, "pfm")) {
		const char *here = NULL;

		if (ws_pfm_encode(full, true, false, &a, sizeof(a), NULL) == 0)
			here = opens(l, &a);
		emit(l, full, "pfm", here, desc);
	}
	free(full);
}

int cmd_list(int argc, char **argv)
{
	bool as_json = false, no_probe = false;
	struct listing l = { 0 };
	struct option_spec options[] = {
		OPT_BOOL(0, "json", &as_json, "the list as data"),
		OPT_BOOL(0, "names", &l.names, "the names alone, one per line (for scripts and shell completion)"),
		OPT_CALLBACK(0, "kind", &l, "KIND", "only these kinds: metric, event, backend, preset, or one of "
			     "--json's kinds; comma-separated", kind_cb),
		OPT_BOOL(0, "no-probe", &no_probe, "do not try to open each event to mark those that work here"),
		OPT_END(),
	};
	const struct ws_metric_info *mi;
	size_t n;
	int rest;

	rest = parse_options(argc, argv, "whyslow list", list_usage, options, 0);
	if (rest > 1)
		usage_error("give at most one pattern");
	if (as_json && l.names)
		usage_error("choose one of --json and --names");
	l.pattern = rest ? argv[0] : NULL;
	/* A name opens or not; a list of names does not say, so it need not try. */
	l.probe = !no_probe && !l.names;
	if (as_json)
		l.arr = json_array();

	l.section = "Metrics: the names whyslow reports, and what measures them";
	mi = ws_metric_all(&n);
	for (size_t i = 0; i < n; i++) {
		const char *src = mi[i].sources & WS_SRC_RUSAGE    ? "runner"
				  : mi[i].sources & WS_SRC_DERIVED ? "derived"
				  : mi[i].sources & (WS_SRC_PERF_HW | WS_SRC_PERF_SW) ? "perf"
								     : "simulator";

		emit(&l, mi[i].name, src, NULL, mi[i].desc);
	}
	l.section = "perf generic events (yes/no: whether it opens on this machine)";
	ws_event_for_each_generic(generic_cb, &l);
	l.section = "libpfm4 events of this machine's PMUs (pmu::EVENT[:UMASK])";
	ws_pfm_for_each(pfm_cb, &l);
	l.section = "Backends (--backend; auto: those marked, in this order)";
	for (const struct ws_backend_entry *e = ws_backend_table; e->ops; e++)
		emit(&l, e->ops->name, "backend", e->in_auto ? "auto" : NULL, e->ops->summary);
	l.section = "Simulator presets (--sim-preset)";
	for (int i = 0; i < WSIM_NPRESETS; i++)
		emit(&l, wsim_presets[i].name, "preset", NULL, wsim_presets[i].desc);
	if (as_json) {
		json_dumpf(l.arr, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(l.arr);
	}
	for (size_t i = 0; i < l.nseen; i++)
		free(l.seen[i]);
	free(l.seen);
	free(l.kinds);
	if (!as_json && !l.shown && l.pattern) {
		fprintf(stderr, "whyslow list: nothing matches '%s'\n", l.pattern);
		return WS_EXIT_FAIL;
	}
	return WS_EXIT_OK;
}
