/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backends.c - the backend table of whyslow-fake: the real one (lib/measure/backends.c) plus the fake. */
#include "backend/backend.h"

extern const struct ws_backend_ops ws_backend_perf;
extern const struct ws_backend_ops ws_backend_sim;
extern const struct ws_backend_ops ws_backend_fake;

/*
 * Linked ahead of the engine's library, this table is the one the program uses: the linker then never takes
 * lib/measure/backends.c's object from the archive. The fake is offered by name only.
 */
const struct ws_backend_entry ws_backend_table[] = {
	{ &ws_backend_perf, true },
	{ &ws_backend_sim, true },
	{ &ws_backend_fake, false },
	{ NULL, false },
};
