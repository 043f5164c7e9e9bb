/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim-presets.h - the machine models of the simulator tool (sim/wsim-main.c), named once for the CLI. */
#ifndef WS_SIM_PRESETS_H
#define WS_SIM_PRESETS_H

#include <stddef.h>
#include <string.h>

/* The preset used when none is asked for; the tool's own default, so that "none" and "zen4" agree. */
#define WS_SIM_PRESET_DEFAULT "zen4"

struct ws_sim_preset {
	const char *name;  /* as --sim-preset and the tool's --ws-preset take it */
	const char *desc;  /* one line for `whyslow list` */
};

/* Every preset the tool knows, the default first; *n receives the count. */
static inline const struct ws_sim_preset *ws_sim_presets(size_t *n)
{
	static const struct ws_sim_preset presets[] = {
		{ WS_SIM_PRESET_DEFAULT, "AMD Zen 4: L1d 32K 8-way, L1i 32K 8-way, L2 1M 8-way, L3 32M 16-way" },
		{ "golden-cove", "Intel Golden Cove: L1d 48K 12-way, L1i 32K 8-way, L2 2M 16-way, L3 30M 12-way" },
		{ "cachegrind", "cachegrind's model exactly: I1, D1, LL; bimodal branch predictor" },
	};

	*n = sizeof(presets) / sizeof(presets[0]);
	return presets;
}

/* The preset named `name`, or NULL. */
static inline const struct ws_sim_preset *ws_sim_preset_find(const char *name)
{
	size_t n;
	const struct ws_sim_preset *p = ws_sim_presets(&n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(p[i].name, name))
			return &p[i];
	return NULL;
}

#endif
