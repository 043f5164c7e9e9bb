/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report-internal.h - what the renderers share: the ANSI colours (only on a terminal), and writing an export. */
#ifndef WS_REPORT_INTERNAL_H
#define WS_REPORT_INTERNAL_H

#define C_RESET "\033[0m"
#define C_DIM "\033[2m"
#define C_BOLD "\033[1m"
#define C_RED "\033[31m"
#define C_GREEN "\033[32m"
#define C_YELLOW "\033[33m"

#include "result/result.h"

#include <stdio.h>

/* Render `r` with `fn` into `path`, atomically (through a buffer). Returns 0 or -errno. */
int ws_export_with(const struct ws_result *r, const char *path, void (*fn)(FILE *, const struct ws_result *));

#endif
