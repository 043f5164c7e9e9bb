/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ws-requests.h - the client requests between libwhyslow (in the measured program) and the wsim tool. */
#ifndef WS_REQUESTS_H
#define WS_REQUESTS_H

/*
 * Included by both sides: marker/ (compiled into the measured program, with <valgrind/valgrind.h>) and the
 * tool in sim/ (with Valgrind's pub_tool headers). Natively, and under any other Valgrind tool, a request
 * costs a few instructions and returns its default value, so the markers can always issue them.
 */

#define WS_REQ_BASE (((unsigned int)'W' << 24) | ((unsigned int)'S' << 16)) /* VG_USERREQ_TOOL_BASE('W','S') */

enum ws_request {
	/* Returns WS_REQ_MAGIC when the wsim tool is running this process, else the default (0). */
	WS_REQ_PING = WS_REQ_BASE,
	/* arg1: const char *name, NUL-terminated, read by the tool in place. Regions nest per thread. */
	WS_REQ_REGION_BEGIN,
	WS_REQ_REGION_END,
};

#define WS_REQ_MAGIC 0x77736d31 /* "wsm1" */

#endif
