/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backends.c - the backend table: the one place that lists the backends (a new one is a file and a line). */
#include "backend/backend.h"

extern const struct ws_backend_ops ws_backend_perf;
extern const struct ws_backend_ops ws_backend_sim;

/*
 * perf first: where the PMU counts an event, it is measured rather than simulated. The simulator then
 * takes what is left (caches and branches on a machine without a PMU).
 */
const struct ws_backend_entry ws_backend_table[] = {
	{ &ws_backend_perf, true },
	{ &ws_backend_sim, true },
	{ NULL, false },
};
