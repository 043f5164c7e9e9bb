/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rerun.c - work that grows with each run (a count kept in a file), on a second thread or not: counts that move. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * A program whose simulated counts differ between runs, by design rather than by Valgrind's thread schedule
 * or a hash seed, so that the warnings of such counts (lib/sim/backend-sim.c, warn_spread) are tested the
 * same way every time: a spin-wait moves them too, but by how much depends on where the time slices fall
 * (t4109).
 */
static volatile long sink;
static long units;

static void *work(void *arg)
{
	for (long i = 0; i < units * 200000; i++)
		sink += i;
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: rerun COUNT-FILE [single]\n");
		return 2;
	}
	/* This run's number: one more than the file says (a missing file: the first run). */
	if ((f = fopen(argv[1], "r"))) {
		if (fscanf(f, "%ld", &units) != 1)
			units = 0;
		fclose(f);
	}
	units++;
	if (!(f = fopen(argv[1], "w")) || fprintf(f, "%ld\n", units) < 0 || fclose(f)) {
		perror(argv[1]);
		return 1;
	}
	/* "single": the same work on the main thread, no second one. */
	if (argc > 2) {
		work(NULL);
		return 0;
	}
	if (pthread_create(&t, NULL, work, NULL) || pthread_join(t, NULL))
		return 1;
	return 0;
}
