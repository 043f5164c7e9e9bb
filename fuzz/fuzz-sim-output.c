/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-sim-output.c - libFuzzer target: wsim's output file as the simulator backend reads it: parsed, every
 * counter read from the totals, functions and regions, then added to itself as a process tree is summed.
 */
#include "fuzz.h"

#include "sim/sim-output.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_setup();
	return 0;
}

static void read_counts(const struct ws_sim_output *o, const struct ws_sim_counts *c)
{
	uint64_t v;

	for (int k = 0; k < WS_SIM_NR_COUNTERS; k++)
		ws_sim_get(o, c, ws_sim_counter_name((enum ws_sim_counter)k), &v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ws_sim_output o = WS_SIM_OUTPUT_INIT, sum = WS_SIM_OUTPUT_INIT;

	if (ws_sim_output_parse(&o, (const char *)data, size, "fuzz") == 0) {
		read_counts(&o, &o.total);
		for (size_t i = 0; i < o.nr_functions; i++)
			read_counts(&o, &o.functions[i].counts);
		for (size_t i = 0; i < o.nr_regions; i++)
			read_counts(&o, &o.regions[i].counts);
		ws_sim_config(&o, "preset");
		/* A process tree: the first file becomes the sum, the second adds into it. */
		if (ws_sim_output_add(&sum, &o) == 0)
			ws_sim_output_add(&sum, &o);
	}
	ws_sim_output_release(&o);
	ws_sim_output_release(&sum);
	return 0;
}
