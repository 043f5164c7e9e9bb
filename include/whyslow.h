/* SPDX-License-Identifier: GPL-2.0-or-later */
/* whyslow.h - region markers: let whyslow report every metric per named phase of your program. */
#ifndef WHYSLOW_H
#define WHYSLOW_H

/*
 * Mark the phases of a program, and whyslow reports each region's metrics, statistics and comparisons next
 * to the whole-process figures:
 *
 *	WS_REGION_BEGIN("enforce");
 *	...
 *	WS_REGION_END("enforce");
 *
 * On a hot path, register the name once and use the handle, which skips the string look-up:
 *
 *	static ws_region_t eval_region;
 *	WS_REGION_INIT(eval_region, "eval");   (once; thread-safe, idempotent)
 *	WS_REGION_BEGIN_H(eval_region);
 *	...
 *	WS_REGION_END_H(eval_region);
 *
 * Regions nest; an outer region's counts include its inner regions. Each thread keeps its own counts, and
 * they are merged when the program exits. Link with libwhyslow (pkg-config whyslow).
 *
 * Outside whyslow each marker costs one predictable branch on a process-wide flag. Define WHYSLOW_DISABLE
 * before including this header and every marker compiles to nothing, with no reference to the library.
 * The library never aborts the program: if its set-up fails it says so in one line and does nothing.
 */

#ifdef __cplusplus
extern "C" {
#endif

/* A registered region; 0 is "not registered" and makes the handle markers do nothing. */
typedef int ws_region_t;

#ifndef WHYSLOW_DISABLE

/* Non-zero while whyslow is measuring this process. Read by the macros; set only by the library. */
extern int ws_markers_active;

/* The functions behind the macros; callable directly (e.g. from Rust FFI). `name` is copied. */
void ws_region_begin(const char *name);
void ws_region_end(const char *name);
ws_region_t ws_region_register(const char *name);
void ws_region_begin_id(ws_region_t id);
void ws_region_end_id(ws_region_t id);

#define WS_REGION_BEGIN(name)                                  \
	do {                                                   \
		if (__builtin_expect(ws_markers_active, 0))    \
			ws_region_begin(name);                 \
	} while (0)
#define WS_REGION_END(name)                                    \
	do {                                                   \
		if (__builtin_expect(ws_markers_active, 0))    \
			ws_region_end(name);                   \
	} while (0)
#define WS_REGION_INIT(handle, name)                           \
	do {                                                   \
		if (__builtin_expect(ws_markers_active, 0) && !(handle)) \
			(handle) = ws_region_register(name);   \
	} while (0)
#define WS_REGION_BEGIN_H(handle)                              \
	do {                                                   \
		if (__builtin_expect(ws_markers_active, 0))    \
			ws_region_begin_id(handle);            \
	} while (0)
#define WS_REGION_END_H(handle)                                \
	do {                                                   \
		if (__builtin_expect(ws_markers_active, 0))    \
			ws_region_end_id(handle);              \
	} while (0)

#else /* WHYSLOW_DISABLE */

#define WS_REGION_BEGIN(name) ((void)0)
#define WS_REGION_END(name) ((void)0)
#define WS_REGION_INIT(handle, name) ((void)(handle))
#define WS_REGION_BEGIN_H(handle) ((void)(handle))
#define WS_REGION_END_H(handle) ((void)(handle))

#endif /* WHYSLOW_DISABLE */

#ifdef __cplusplus
}
#endif

#endif /* WHYSLOW_H */
