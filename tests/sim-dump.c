/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sim-dump.c - print wsim result files through lib/sim/sim-output.c, so the CLI tests can check the tool with awk. */

/*
 *   sim-dump FILE...
 *
 * Adds the files up (ws_sim_output_add) and prints, one per line, TAB-separated:
 *	processes N / threads N / config KEY VALUE / command ARG...
 *	total COUNTER VALUE            for each counter the model produced
 *	fsum COUNTER VALUE             the same counter summed over the function rows
 *	region NAME entries N, then region NAME COUNTER VALUE
 *	function NAME OBJECT COUNTER VALUE
 *	hot FUNCTION OBJECT ADDRESS EXECUTIONS L1D-MISSES MISPREDICTS
 * Exits 1 when a file cannot be read or added.
 */
#include <inttypes.h>
#include <stdio.h>

#include "sim/sim-output.h"

static void print_counts(const struct ws_sim_output *o, const char *prefix, const struct ws_sim_counts *c)
{
	for (int k = 0; k < WS_SIM_NR_COUNTERS; k++)
		if (ws_sim_has(o, k))
			printf("%s\t%s\t%" PRIu64 "\n", prefix, ws_sim_counter_name(k), c->v[k]);
}

int main(int argc, char **argv)
{
	struct ws_sim_output sum = WS_SIM_OUTPUT_INIT;
	struct ws_sim_counts fsum = { { 0 } };
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: sim-dump FILE...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct ws_sim_output one;

		if (ws_sim_output_read(&one, argv[i]))
			return 1;
		rc = ws_sim_output_add(&sum, &one);
		ws_sim_output_release(&one);
		if (rc)
			return 1;
	}
	printf("processes\t%u\nthreads\t%u\n", sum.processes, sum.threads);
	for (size_t i = 0; i < sum.nr_config; i++)
		printf("config\t%s\t%s\n", sum.config[i].key, sum.config[i].value);
	printf("command");
	for (size_t i = 0; i < sum.argc; i++)
		printf("\t%s", sum.argv[i]);
	printf("\n");
	print_counts(&sum, "total", &sum.total);
	for (size_t i = 0; i < sum.nr_functions; i++)
		for (int k = 0; k < WS_SIM_NR_COUNTERS; k++)
			fsum.v[k] += sum.functions[i].counts.v[k];
	print_counts(&sum, "fsum", &fsum);
	for (size_t i = 0; i < sum.nr_regions; i++) {
		char prefix[600];

		printf("region\t%s\tentries\t%" PRIu64 "\n", sum.regions[i].name, sum.regions[i].entries);
		snprintf(prefix, sizeof(prefix), "region\t%s", sum.regions[i].name);
		print_counts(&sum, prefix, &sum.regions[i].counts);
	}
	for (size_t i = 0; i < sum.nr_functions; i++) {
		const struct ws_sim_function *f = &sum.functions[i];
		char prefix[4200];

		snprintf(prefix, sizeof(prefix), "function\t%s\t%s", f->name, f->object);
		print_counts(&sum, prefix, &f->counts);
		for (size_t j = 0; j < f->nr_insns; j++)
			printf("hot\t%s\t%s\t0x%" PRIx64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", f->name, f->object,
			       f->insns[j].addr, f->insns[j].executions, f->insns[j].l1d_misses,
			       f->insns[j].mispredicts);
	}
	ws_sim_output_release(&sum);
	return 0;
}
