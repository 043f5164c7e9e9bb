/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.h - allocation, growable arrays and small helpers shared by the whole engine. */
#ifndef WS_UTIL_H
#define WS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Allocation that cannot fail: on exhaustion it logs one line and aborts. A measurement tool that has run
 * out of memory has nothing sensible left to report, and checking every small allocation would bury the
 * error paths that matter (a failed exec, a counter that will not open) under ones that never happen.
 */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a new string; the caller frees it. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Grow array `x` (with `alloc` slots) so that it holds at least `nr` elements, as git's ALLOC_GROW:
 * amortised doubling, and `alloc` is updated.
 */
#define WS_ALLOC_GROW(x, nr, alloc)                                                  \
	do {                                                                          \
		if ((size_t)(nr) > (size_t)(alloc)) {                                 \
			size_t ws_ag_n_ = (size_t)(alloc) < 8 ? 8 : (size_t)(alloc) * 2; \
			while (ws_ag_n_ < (size_t)(nr))                               \
				ws_ag_n_ *= 2;                                        \
			(x) = xrealloc((x), ws_ag_n_ * sizeof(*(x)));                 \
			(alloc) = ws_ag_n_;                                           \
		}                                                                     \
	} while (0)

/* A word at any alignment, in the host's byte order: perf's rings, the x86-64 ELF tables whyslow reads. */
static inline uint32_t ws_get32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t ws_get64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* CLOCK_MONOTONIC in seconds. */
double ws_now(void);

/* True when `s` starts with `prefix`; *rest (if given) then points past it. */
int ws_skip_prefix(const char *s, const char *prefix, const char **rest);

/* Levenshtein distance, for "did you mean" suggestions. */
size_t ws_edit_distance(const char *a, const char *b);

/*
 * Read a whole file into a NUL-terminated buffer (the caller frees it). Returns 0, or -errno and leaves *out
 * NULL. Used for small /proc and /sys files and the simulator's per-run output.
 */
int ws_read_file(const char *path, char **out, size_t *len);

/* The first line of a small file with the newline stripped, or NULL (caller frees). */
char *ws_read_line(const char *path);

/*
 * Write `len` bytes to `path` atomically: a temporary file in the same directory, fsync, rename. Readers
 * see the old file or the new one, never half of one. "-" is standard output, written as it is. Returns 0
 * or -errno.
 */
int ws_write_atomic(const char *path, const void *buf, size_t len);

/*
 * For a stop signal's handler (async-signal-safe): a write to a pipe, device or standard output under way
 * gives up with -EINTR, as one whose reader stops reading would otherwise wait for ever and Ctrl-C would
 * not end it. Writes begun after the signal are made as usual (the finished runs are still saved).
 */
void ws_write_interrupt(void);

/*
 * The measurement is over: a stop signal from now on also ends the writes to a pipe, device or standard
 * output begun after it, at once, rather than the one under way alone (a second export to a FIFO that
 * nobody reads would wait for a second Ctrl-C). Regular files are written as before.
 */
void ws_write_arm(void);

/* Why a write failed, for "cannot write 'F': %s": strerror, but a write a stop signal ended is said as such. */
const char *ws_write_error(int err);

/* Remove the files in `dir` (not recursively) and then `dir`; NULL is allowed. Errors are ignored. */
void ws_remove_tree(const char *dir);

/*
 * Find `prog` as execvp would: a path with a slash is taken as is, a name is looked up in PATH. Returns a
 * new string (caller frees) naming an executable file, or NULL.
 */
char *ws_find_in_path(const char *prog);

/*
 * Check, before any measurement, that `path` can later be written by ws_write_atomic: by making (and
 * removing) the temporary file it would make, with `reserve` bytes (the write's estimated size; 0: none)
 * allocated in it where the filesystem allows (posix_fallocate: a full disk is found before the runs), or
 * for a device or FIFO by access(); "-" (standard output) by whether it is open for writing. Returns 0 or
 * -errno (ENOENT, EACCES, EISDIR, ENAMETOOLONG, ENOSPC, EDQUOT, EBADF, ...).
 */
int ws_check_writable(const char *path, size_t reserve);

/*
 * Write `len` bytes to a new file `dir`/`stem`-XXXXXX.json (unique, never replacing one), fsync'd, mode
 * 0666 minus the umask; *out gets its path (caller frees). Returns 0 or -errno (and *out NULL).
 */
int ws_write_new(const char *dir, const char *stem, const void *buf, size_t len, char **out);

/*
 * Whether two paths name one regular file, existing or to be made (by device and inode, or by real
 * directory and name): a result written to both would be replaced by the other. Devices and FIFOs never do;
 * "-" (standard output) only with itself.
 */
bool ws_same_file(const char *a, const char *b);

/*
 * Join argv into one line a POSIX shell reads back as the same words: words holding a space, a quote or a
 * character special to the shell are single-quoted. The caller frees it.
 */
char *ws_join_command(char *const *argv);

/*
 * A name as a message quotes it, once: in single quotes, or where it holds one (a command line joined by
 * ws_join_command(), whose words carry their own shell quoting) in double quotes, or bare where it holds
 * both. Single quotes around 'sh -c '\''x'\''' would be a second layer of quoting. Control characters are
 * written \xNN (ws_escape_ctl). The caller frees it.
 */
char *ws_quote_name(const char *name);

/*
 * What `path` is when it exists and is not a regular file ("a directory", "a FIFO", "a character device",
 * ...), for "cannot read PATH: it is a FIFO"; NULL for a regular file or one that cannot be looked at (the
 * open says why). An input file is checked so before it is opened: opening a FIFO without a writer blocks.
 */
const char *ws_not_regular(const char *path);

/*
 * `s` with its control bytes (below 0x20, and DEL) written as \xNN and its bidi overrides (U+202A-U+202E,
 * U+2066-U+2069) as \uNNNN, for a message or a table that shows what a file or the user gave: an escape
 * sequence (ESC ] 0; ... BEL sets the window title, CR LF forges a line) must not reach the terminal, nor an
 * override turn "exe.png" into "gnp.exe". NULL reads as "". The caller frees it.
 */
char *ws_escape_ctl(const char *s);

/* `fd` made blocking again, once opened with O_NONBLOCK so that the open could not wait; 0 or -errno. */
int ws_clear_nonblock(int fd);

/* Whether ws_escape_ctl() would change `s`. */
bool ws_needs_escape(const char *s);

#endif
