/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report-internal.h - what the renderers share: the ANSI colours (only on a terminal), the header's notes. */
#ifndef WS_REPORT_INTERNAL_H
#define WS_REPORT_INTERNAL_H

#include "result/result.h"

#include <string.h>

#define C_RESET "\033[0m"
#define C_DIM "\033[2m"
#define C_BOLD "\033[1m"
#define C_RED "\033[31m"
#define C_GREEN "\033[32m"
#define C_YELLOW "\033[33m"

/* For a header: how much of the programs was simulated (--sim-scope), or "". */
static inline const char *scope_note(const struct ws_result *r)
{
	if (!r->settings.sim_scope)
		return "";
	return strcmp(r->settings.sim_scope, "regions-warm") ? ", simulated inside regions only"
							     : ", simulated inside regions only (caches warmed outside)";
}

#endif
