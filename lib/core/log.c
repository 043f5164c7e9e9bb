/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.c - the engine's logging callback. */
#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>

static void default_log(enum ws_log_level level, const char *msg, void *data)
{
	static const char *const prefix[] = { "error: ", "warning: ", "", "debug: " };

	(void)data;
	if (level == WS_LOG_DEBUG)
		return;
	fprintf(stderr, "whyslow: %s%s\n", prefix[level], msg);
}

static ws_log_fn log_fn = default_log;
static void *log_data;

void ws_log_set(ws_log_fn fn, void *data)
{
	log_fn = fn ? fn : default_log;
	log_data = data;
}

static __attribute__((format(printf, 2, 0))) void vlog(enum ws_log_level level, const char *fmt, va_list ap)
{
	char buf[2048];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	log_fn(level, buf, log_data);
}

void ws_log(enum ws_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

int ws_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(WS_LOG_ERROR, fmt, ap);
	va_end(ap);
	return -1;
}
