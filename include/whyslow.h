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
 *	WS_REGION_INIT(eval_region, "eval");   (from main() on; thread-safe, idempotent)
 *	WS_REGION_BEGIN_H(eval_region);
 *	...
 *	WS_REGION_END_H(eval_region);
 *
 * Regions nest, and an outer region's counts include its inner regions'. A region entered again while it is
 * active in the same thread (recursion) is counted once, from its outermost begin to its outermost end.
 * Begin and end must be called by the same thread. Each thread keeps its own counts; they are merged when
 * the thread exits and when the program exits (exit() or a return from main; a program that ends in _exit(),
 * exec or a fatal signal reports no regions). A forked child reports its own regions.
 * Link with libwhyslow (pkg-config whyslow).
 *
 * Outside whyslow each marker costs one predictable branch on a process-wide flag. Define WHYSLOW_DISABLE
 * before including this header and every marker compiles to nothing, with no reference to the library (the
 * macros' arguments are then not evaluated). The library never aborts the program: if its set-up fails it
 * says so in one line on stderr and does nothing. Outside whyslow it never prints.
 *
 * whyslow drives the library through environment variables (WHYSLOW_MARKERS and friends, documented with
 * whyslow); a program has nothing to configure.
 */

#ifdef __cplusplus
extern "C" {
#endif

/* A registered region; 0 is "not registered" and makes the handle markers do nothing. */
typedef int ws_region_t;

#ifndef WHYSLOW_DISABLE

/*
 * Non-zero while whyslow is measuring this process. Read by the macros; set only by the library, before
 * main() and back to 0 at exit. Callers through FFI need not read it: every function below checks it too.
 */
extern int ws_markers_active;

/*
 * Begin / end the region called `name`, a NUL-terminated string of 1 to 4096 bytes that is read during the
 * call and not kept (copied on first use). An end without a matching begin in this thread is counted as
 * "unmatched" and otherwise ignored, as is a region still open when its thread or the program ends (the
 * simulator, --backend sim, ends a region still open at exit there and counts it).
 * Thread-safe; async-signal-unsafe (the first marker of a thread allocates). errno is preserved.
 */
void ws_region_begin(const char *name);
void ws_region_end(const char *name);

/*
 * Register `name` (as above) once and get its handle, for ws_region_begin_id() / ws_region_end_id(), which
 * do no string work. The same name always gives the same handle, from any thread. Returns 0, a handle that
 * does nothing, when the markers are off (not run by whyslow, or before the library's constructor ran), when
 * the name is NULL, empty or too long, or beyond 1023 distinct regions. Thread-safe.
 */
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
#define WS_REGION_INIT(handle, name)                                     \
	do {                                                             \
		if (__builtin_expect(ws_markers_active, 0) && !(handle)) \
			(handle) = ws_region_register(name);             \
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
