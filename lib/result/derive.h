/* SPDX-License-Identifier: GPL-2.0-or-later */
/* derive.h - metrics computed per run from others: rates, IPC, MPKI and level-1 top-down. */
#ifndef WS_DERIVE_H
#define WS_DERIVE_H

#include "result/result.h"

/*
 * Compute the derived metrics for every run, where both parts exist with the same simulated flag: the
 * ratios of the registry (ipc, miss rates, MPKI; metrics.h's ws_derived_all) and the four level-1 top-down
 * fractions from the raw td-* events. Replaces earlier derivations. ws_result_derive() does it for the
 * whole process, each region and each function of every variant.
 */
void ws_metric_set_derive(struct ws_metric_set *s);
void ws_result_derive(struct ws_result *r);

#endif
