/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz-common.c - the libFuzzer targets' shared set-up: the engine's log silenced, a /dev/null sink. */
#include "fuzz.h"

#include "core/log.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

static FILE *sink;

static void log_nowhere(enum ws_log_level level, const char *msg, void *data)
{
	(void)level;
	(void)msg;
	(void)data;
}

void fuzz_setup(void)
{
	if (sink)
		return;
	ws_log_set(log_nowhere, NULL);
	sink = fopen("/dev/null", "w");
	if (!sink)
		abort();
}

FILE *fuzz_sink(void)
{
	return sink;
}

char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size + 1);

	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}
