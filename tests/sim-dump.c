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
 * and, for files with calling contexts (--ws-callers):
 *	nodes N / dropped N / depth N  the contexts, those past the limit, the longest path in frames
 *	nsum COUNTER VALUE             a counter summed over the contexts
 *	nmismatch N                    functions whose contexts do not add up to their row
 *	stack FRAME;FRAME;... INSTRUCTIONS   each context with instructions of its own, outermost frame first
 * Exits 1 when a file cannot be read or added.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	if (sum.has_stacks) {
		struct ws_sim_counts nsum = { { 0 } }, *per_fn = calloc(sum.nr_functions + 1, sizeof(*per_fn));
		size_t mismatch = 0, depth = 0;

		for (size_t i = 0; i < sum.nr_nodes; i++) {
			const struct ws_sim_node *n = &sum.nodes[i];
			size_t d = 0;

			for (int k = 0; k < WS_SIM_NR_COUNTERS; k++) {
				nsum.v[k] += n->counts.v[k];
				if (n->function >= 0)
					per_fn[n->function].v[k] += n->counts.v[k];
			}
			for (long p = (long)i; p >= 0; p = sum.nodes[p].parent)
				d++;
			if (d > depth)
				depth = d;
		}
		for (size_t i = 0; i < sum.nr_functions; i++)
			if (memcmp(&per_fn[i], &sum.functions[i].counts, sizeof(per_fn[i])))
				mismatch++;
		printf("nodes\t%zu\ndropped\t%" PRIu64 "\ndepth\t%zu\n", sum.nr_nodes, sum.stacks_dropped, depth);
		print_counts(&sum, "nsum", &nsum);
		printf("nmismatch\t%zu\n", mismatch);
		for (size_t i = 0; i < sum.nr_nodes; i++) {
			long chain[4096];
			size_t n = 0;

			if (!sum.nodes[i].counts.v[WS_SIM_INSTRUCTIONS])
				continue;
			for (long p = (long)i; p >= 0 && n < 4096; p = sum.nodes[p].parent)
				chain[n++] = sum.nodes[p].function;
			printf("stack\t");
			while (n--)
				printf("%s%s", chain[n] >= 0 ? sum.functions[chain[n]].name : "[more stacks]", n ? ";" : "");
			printf("\t%" PRIu64 "\n", sum.nodes[i].counts.v[WS_SIM_INSTRUCTIONS]);
		}
		free(per_fn);
	}
	ws_sim_output_release(&sum);
	return 0;
}
