/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tool.h - where the wsim tool is: its VALGRIND_LIB directory, and the programs installed beside it. */
#ifndef WS_SIM_TOOL_H
#define WS_SIM_TOOL_H

/*
 * The tool's VALGRIND_LIB directory: $WHYSLOW_SIM_LIB when set (a test and packaging interface), else the
 * build tree's when whyslow runs from it, else the installed one. A new string the caller frees, or NULL
 * when the tool is neither built nor installed.
 */
char *ws_sim_libdir(void);

/*
 * A program installed beside the tool (e.g. "wsim-cpuid"), found the same way: the build tree's, else the
 * installed one. A new string, or NULL.
 */
char *ws_sim_helper(const char *name);

#endif
