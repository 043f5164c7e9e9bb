/* SPDX-License-Identifier: GPL-2.0-or-later */
/* waiting.c - two threads doing the same work, where the variant holds a lock while it sleeps: a slowdown that is waiting. */

/*
 *   waiting quick|held [ITERS]
 *
 * ITERS defaults to 200. Each of two threads runs w(), which makes ITERS rounds of: some arithmetic
 * outside the lock (the CPU work, the same in both modes), then a short critical section that folds the
 * result into a total under a mutex.
 *   quick  the critical section only adds;
 *   held   the critical section also sleeps 1 ms with the mutex held, so the other thread blocks on it.
 * The instructions executed are the same but for the sleep call, and the CPU time too; the variant's
 * wall time grows by about 2 x ITERS ms, spent waiting (asleep, or blocked on the mutex, with context
 * switches), which no cache or branch model can see. The output is a checksum that depends only on ITERS.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The arithmetic per round: enough to be seen next to the lock, small enough for the simulator. */
#define WORK_STEPS 20000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t total;
static uint64_t n_rounds;
static int held;

static __attribute__((noinline)) uint64_t work(uint64_t seed)
{
	uint64_t x = seed | 1;
	int i;

	for (i = 0; i < WORK_STEPS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

static __attribute__((noinline)) void *w(void *arg)
{
	uint64_t id = (uintptr_t)arg, r;
	struct timespec ms = { 0, 1000000 };

	for (r = 0; r < n_rounds; r++) {
		uint64_t v = work(id * 1000003 + r);

		pthread_mutex_lock(&lock);
		/* Addition commutes: the total does not depend on which thread takes the lock first. */
		total += v;
		if (held)
			nanosleep(&ms, NULL);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	char *end;
	int i;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: waiting quick|held [ITERS]\n");
		return 2;
	}
	if (!strcmp(argv[1], "quick")) {
		held = 0;
	} else if (!strcmp(argv[1], "held")) {
		held = 1;
	} else {
		fprintf(stderr, "waiting: unknown mode '%s': use quick or held\n", argv[1]);
		return 2;
	}
	n_rounds = 200;
	if (argc == 3 && (n_rounds = strtoull(argv[2], &end, 10), *end || !*argv[2])) {
		fprintf(stderr, "waiting: ITERS must be a count, not '%s'\n", argv[2]);
		return 2;
	}
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, w, (void *)(uintptr_t)(i + 1))) {
			fprintf(stderr, "waiting: pthread_create failed\n");
			return 1;
		}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("waiting: rounds %llu checksum %016llx\n", (unsigned long long)n_rounds,
	       (unsigned long long)total);
	return 0;
}
