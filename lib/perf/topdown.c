/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topdown.c - level-1 top-down from the PMU's own events: Intel's slots and metrics, Zen 4's dispatch slots. */
#include "perf/topdown.h"
#include "core/log.h"
#include "core/util.h"
#include "event/pfm.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name, *pfm;
} zen4_events[] = {
	{ "td-fe-no-ops", "amd64_fam19h_zen4::DISPATCH_STALLS_1:FE_NO_OPS" },
	{ "td-be-stalls", "amd64_fam19h_zen4::DISPATCH_STALLS_1:BE_STALLS" },
	{ "td-retired-ops", "amd64_fam19h_zen4::RETIRED_OPS" },
	{ "td-dispatched-ops", "amd64_fam19h_zen4::OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER" },
	{ "td-cycles", "amd64_fam19h_zen4::CYCLES_NOT_IN_HALT" },
};

static const struct {
	const char *name, *sysfs;
} intel_events[] = {
	{ WS_TOPDOWN_SLOTS, "slots" }, /* first: the leader; the others are its metric events */
	{ "td-retiring", "topdown-retiring" },
	{ "td-bad-spec", "topdown-bad-spec" },
	{ "td-fe-bound", "topdown-fe-bound" },
	{ "td-be-bound", "topdown-be-bound" },
};

bool ws_topdown_is_slots_metric(const char *name)
{
	for (size_t i = 1; i < ARRAY_SIZE(intel_events); i++)
		if (!strcmp(intel_events[i].name, name))
			return true;
	return false;
}

bool ws_topdown_is_zen4(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(zen4_events); i++)
		if (!strcmp(zen4_events[i].name, name))
			return true;
	return false;
}

static void add_event(struct ws_event_list *l, const char *name, const struct perf_event_attr *attr)
{
	struct ws_event *ev;

	if (ws_event_list_find(l, name))
		return;
	WS_ALLOC_GROW(l->v, l->n + 1, l->alloc);
	ev = &l->v[l->n++];
	memset(ev, 0, sizeof(*ev));
	ev->name = xstrdup(name);
	ev->kind = WS_EVENT_PERF;
	ev->attr = *attr;
	ev->attr.size = sizeof(ev->attr);
	ev->hardware = true;
}

/*
 * A sysfs event of a core PMU, "event=0x00,umask=0x81": x86 core PMUs put the event in config bits 0-7 and
 * the umask in bits 8-15 (the PMU's format directory says so; those two are all the top-down events use).
 */
static int sysfs_event(const char *pmu, const char *event, struct perf_event_attr *a)
{
	char *p = xasprintf("/sys/bus/event_source/devices/%s/events/%s", pmu, event), *spec, *t;
	char *type_path = xasprintf("/sys/bus/event_source/devices/%s/type", pmu), *type;

	spec = ws_read_line(p);
	type = ws_read_line(type_path);
	free(p);
	free(type_path);
	if (!spec || !type) {
		free(spec);
		free(type);
		return -ENOENT;
	}
	memset(a, 0, sizeof(*a));
	a->type = (unsigned)atoi(type);
	for (t = strtok(spec, ","); t; t = strtok(NULL, ",")) {
		if (ws_skip_prefix(t, "event=", NULL))
			a->config |= strtoull(t + 6, NULL, 0) & 0xff;
		else if (ws_skip_prefix(t, "umask=", NULL))
			a->config |= (strtoull(t + 6, NULL, 0) & 0xff) << 8;
	}
	free(spec);
	free(type);
	return 0;
}

static int add_intel(struct ws_event_list *l, bool forced)
{
	static const char *const pmus[] = { "cpu", "cpu_core" };

	for (size_t k = 0; k < ARRAY_SIZE(pmus); k++) {
		struct perf_event_attr a[ARRAY_SIZE(intel_events)];
		size_t i;

		for (i = 0; i < ARRAY_SIZE(intel_events); i++)
			if (sysfs_event(pmus[k], intel_events[i].sysfs, &a[i]) < 0)
				break;
		if (i < ARRAY_SIZE(intel_events) && !forced)
			continue;
		for (i = 0; i < ARRAY_SIZE(intel_events); i++) {
			if (forced) {
				/* The test hook: any attr will do, the fault injector opens software counters. */
				memset(&a[i], 0, sizeof(a[i]));
				a[i].type = PERF_TYPE_RAW;
				a[i].config = 0x8000 + i;
			}
			add_event(l, intel_events[i].name, &a[i]);
		}
		return 0;
	}
	return -ENODEV;
}

static int add_zen4(struct ws_event_list *l, bool forced)
{
	struct perf_event_attr a[ARRAY_SIZE(zen4_events)];

	for (size_t i = 0; i < ARRAY_SIZE(zen4_events); i++) {
		if (forced) {
			memset(&a[i], 0, sizeof(a[i]));
			a[i].type = PERF_TYPE_RAW;
			a[i].config = 0x9000 + i;
		} else if (ws_pfm_encode(zen4_events[i].pfm, true, true, &a[i], sizeof(a[i]), NULL) < 0) {
			return -ENODEV;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(zen4_events); i++)
		add_event(l, zen4_events[i].name, &a[i]);
	return 0;
}

int ws_topdown_add_events(struct ws_event_list *l, char **reason)
{
	const char *force = getenv("WHYSLOW_TEST_TOPDOWN");
	struct ws_pfm_pmu pmu;

	*reason = NULL;
	if (force && !strcmp(force, "intel"))
		return add_intel(l, true);
	if (force && !strcmp(force, "zen4"))
		return add_zen4(l, true);
	if (add_intel(l, false) == 0)
		return 0;
	if (ws_pfm_core_pmu(&pmu) == 0) {
		bool zen4 = !strcmp(pmu.name, "amd64_fam19h_zen4");

		free(pmu.name);
		free(pmu.desc);
		if (zen4 && add_zen4(l, false) == 0)
			return 0;
	}
	*reason = xstrdup("this CPU's PMU has no top-down events here (Intel Ice Lake or later, or AMD Zen 4, "
			  "with a PMU the kernel exposes)");
	return -ENODEV;
}
