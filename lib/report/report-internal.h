/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report-internal.h - what the terminal renderers share: the ANSI colours, used only on a terminal. */
#ifndef WS_REPORT_INTERNAL_H
#define WS_REPORT_INTERNAL_H

#define C_RESET "\033[0m"
#define C_DIM "\033[2m"
#define C_BOLD "\033[1m"
#define C_RED "\033[31m"
#define C_GREEN "\033[32m"
#define C_YELLOW "\033[33m"

#endif
