/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topdown.h - level-1 top-down analysis where the PMU has the events: frontend, bad speculation, backend, retiring. */
#ifndef WS_TOPDOWN_H
#define WS_TOPDOWN_H

#include "event/event.h"
#include "result/metrics.h"

/*
 * Two sources, chosen by what this machine's PMU offers:
 *   Intel (Ice Lake and later): the kernel's "slots" and "topdown-*" events (sysfs, cpu or cpu_core PMU),
 *     each metric read in slots: fraction = metric / slots.
 *   AMD Zen 4 (libpfm4's amd64_fam19h_zen4): 6 dispatch slots a cycle; frontend = DISPATCH_STALLS_1:
 *     FE_NO_OPS / slots, backend = DISPATCH_STALLS_1:BE_STALLS / slots, retiring = RETIRED_OPS / slots,
 *     bad speculation = (ops dispatched - RETIRED_OPS) / slots.
 * The raw events are counted like any other (named td-*, metrics.h); lib/result/derive.c turns them, per
 * run, into topdown-frontend-bound, topdown-bad-speculation, topdown-backend-bound and topdown-retiring.
 */

/*
 * Add the raw events of this machine's top-down method to `l`. Returns 0; -ENODEV when the PMU has none,
 * with *reason (caller frees) saying so. WHYSLOW_TEST_TOPDOWN=intel|zen4 forces a method, so that tests
 * can drive the arithmetic with the fault injector's fake counters on a machine without a PMU.
 */
int ws_topdown_add_events(struct ws_event_list *l, char **reason);

/*
 * Intel's raw events: WS_TOPDOWN_SLOTS, and four metric events that the kernel opens only as members of a
 * group WS_TOPDOWN_SLOTS leads (alone, EINVAL). True for the names of those four.
 */
bool ws_topdown_is_slots_metric(const char *name);

/* True for the names of Zen 4's five raw events (td-cycles, td-retired-ops, ...). */
bool ws_topdown_is_zen4(const char *name);

#endif
