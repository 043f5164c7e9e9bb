/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz-event.c - libFuzzer target: -e's event specs, one spec and a comma-separated list, as stat reads them. */
#include "fuzz.h"

#include "event/event.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_setup();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *spec = fuzz_string(data, size);
	struct ws_event_list l = { 0 };
	struct ws_event ev = { 0 };

	if (ws_event_parse(spec, &ev) == 0)
		free(ev.name);
	/* A list of one spec is that spec again, and an unknown name costs its suggestions twice. */
	if (strchr(spec, ','))
		ws_event_list_parse(&l, spec);
	ws_event_list_release(&l);
	free(spec);
	return 0;
}
