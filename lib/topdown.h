/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topdown.h - level-1 top-down analysis where the PMU has the events: frontend, bad speculation, backend, retiring. */
#ifndef WS_TOPDOWN_H
#define WS_TOPDOWN_H

#include "event.h"
#include "result.h"

/*
 * Two sources, chosen by what this machine's PMU offers:
 *   Intel (Ice Lake and later): the kernel's "slots" and "topdown-*" events (sysfs, cpu or cpu_core PMU),
 *     each metric read in slots: fraction = metric / slots.
 *   AMD Zen 4 (libpfm4's amd64_fam19h_zen4): 6 dispatch slots a cycle; frontend = DISPATCH_STALLS_1:
 *     FE_NO_OPS / slots, backend = DISPATCH_STALLS_1:BE_STALLS / slots, retiring = RETIRED_OPS / slots,
 *     bad speculation = (ops dispatched - RETIRED_OPS) / slots.
 * The raw events are counted like any other (named td-*); ws_topdown_derive() turns them, per run, into
 * topdown-frontend-bound, topdown-bad-speculation, topdown-backend-bound and topdown-retiring (fractions).
 */

/*
 * Add the raw events of this machine's top-down method to `l`. Returns 0; -ENODEV when the PMU has none,
 * with *reason (caller frees) saying so. WHYSLOW_TEST_TOPDOWN=intel|zen4 forces a method, so that tests
 * can drive the arithmetic with the fault injector's fake counters on a machine without a PMU.
 */
int ws_topdown_add_events(struct ws_event_list *l, char **reason);

/* Per run, the four level-1 fractions from the raw events in `s` (replacing earlier ones). */
void ws_topdown_derive(struct ws_metric_set *s);

/*
 * Intel's raw events: WS_TOPDOWN_SLOTS, and four metric events that the kernel opens only as members of a
 * group WS_TOPDOWN_SLOTS leads (alone, EINVAL). True for the names of those four.
 */
#define WS_TOPDOWN_SLOTS "td-slots"
bool ws_topdown_is_slots_metric(const char *name);

/* The four derived metric names, in display order. */
extern const char *const ws_topdown_metrics[4];

#endif
