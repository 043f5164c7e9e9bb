/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz.h - what the libFuzzer targets share: a silent engine log and a sink for renderers' output. */
#ifndef WS_FUZZ_H
#define WS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* libFuzzer's entry points, declared for -Wmissing-prototypes. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Once per process: the engine's messages go nowhere (millions of inputs would each print one), and the
 * stream renderers write to is opened on /dev/null, so that they format everything but cost no I/O.
 */
void fuzz_setup(void);

/* The stream for renderers, from fuzz_setup(). */
FILE *fuzz_sink(void);

/* A NUL-terminated copy of the input, for parsers that take strings. The caller frees it. */
char *fuzz_string(const uint8_t *data, size_t size);

#endif
