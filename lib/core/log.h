/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.h - how the engine explains itself: a logging callback set by the program, never stdout. */
#ifndef WS_LOG_H
#define WS_LOG_H

enum ws_log_level {
	WS_LOG_ERROR,
	WS_LOG_WARN,
	WS_LOG_INFO,  /* one-line notes the user should see ("simulating cache counters: no PMU") */
	WS_LOG_DEBUG, /* shown with -v */
};

/* Receives one complete message, without a trailing newline. `data` is what ws_log_set() was given. */
typedef void (*ws_log_fn)(enum ws_log_level level, const char *msg, void *data);

/*
 * Route engine messages to `fn`. Until it is called, messages go to stderr prefixed "whyslow: ". Not thread
 * safe: set it once at start-up.
 */
void ws_log_set(ws_log_fn fn, void *data);

void ws_log(enum ws_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Log an error and return -1, for `return ws_error("...")` in functions that return 0 / negative. */
int ws_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
