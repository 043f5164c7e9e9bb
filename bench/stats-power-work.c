/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats-power-work.c - a fixed amount of CPU work for bench/stats-power.sh; --extra PCT does exactly PCT% more. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The work is one dependent chain of 64-bit multiply-adds (an LCG): its latency per step is fixed, it touches
 * no memory, and the compiler cannot fold it into a closed form, so the time is proportional to the number of
 * steps. The step count is read at run time (base * (100 + extra) / 100), so the "A+2%" program is the same
 * binary doing 2% more steps: a real, known effect on the loop, diluted only by the fixed cost of exec and exit.
 */
#define BASE_STEPS 20000000ULL

static volatile uint64_t sink;

int main(int argc, char **argv)
{
	uint64_t steps = BASE_STEPS, extra = 0, x = 1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--extra") && i + 1 < argc)
			extra = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--steps") && i + 1 < argc)
			steps = strtoull(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "usage: stats-power-work [--steps N] [--extra PCT]\n");
			return 129;
		}
	}
	steps = steps * (100 + extra) / 100;
	for (uint64_t i = 0; i < steps; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
	return 0;
}
