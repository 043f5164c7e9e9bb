/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sharing.c - two threads each bump a counter N times: private lines, false sharing, or true sharing. */

/*
 *   sharing private|false|true [N]
 *
 * N defaults to 20000000. Each of two threads runs w(), which increments a counter N times:
 *   private  each thread's counter is in its own cache line (the two are 128 bytes apart);
 *   false    the counters are adjacent 8-byte fields of one global struct `shared`, in one cache line;
 *            the threads never touch each other's bytes, but every write invalidates the other core's copy;
 *   true     both threads increment the same counter, shared.a, with an atomic add.
 * The instructions executed are the same in private and false (the loop body is one load and one store
 * of a volatile counter), so the only cause of a slowdown between them is the line the counters share.
 * The output is a checksum that depends only on N, the same in every mode, so digests can be compared.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum mode { MODE_PRIVATE, MODE_FALSE, MODE_TRUE };

/* The two counters of the false-sharing mode: adjacent fields, one 64-byte line (the struct is aligned). */
struct shared {
	volatile uint64_t a;
	volatile uint64_t b;
} __attribute__((aligned(64)));

/* The private mode's counters: 128 bytes apart, so they never share a line, nor an adjacent-line prefetch pair. */
struct apart {
	volatile uint64_t a;
	char pad[120];
	volatile uint64_t b;
} __attribute__((aligned(64)));

struct shared shared;
struct apart apart;

static uint64_t n_iter;
static enum mode mode;

struct job {
	volatile uint64_t *counter;
};

static __attribute__((noinline)) void *w(void *arg)
{
	struct job *job = arg;
	volatile uint64_t *c = job->counter;
	uint64_t i;

	if (mode == MODE_TRUE) {
		for (i = 0; i < n_iter; i++)
			__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
	} else {
		for (i = 0; i < n_iter; i++)
			*c = *c + 1;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct job jobs[2];
	pthread_t t[2];
	uint64_t total;
	char *end;
	int i;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: sharing private|false|true [N]\n");
		return 2;
	}
	if (!strcmp(argv[1], "private")) {
		mode = MODE_PRIVATE;
	} else if (!strcmp(argv[1], "false")) {
		mode = MODE_FALSE;
	} else if (!strcmp(argv[1], "true")) {
		mode = MODE_TRUE;
	} else {
		fprintf(stderr, "sharing: unknown mode '%s': use private, false or true\n", argv[1]);
		return 2;
	}
	n_iter = 20000000;
	if (argc == 3 && (n_iter = strtoull(argv[2], &end, 10), *end || !*argv[2])) {
		fprintf(stderr, "sharing: N must be a count, not '%s'\n", argv[2]);
		return 2;
	}
	switch (mode) {
	case MODE_PRIVATE:
		jobs[0].counter = &apart.a;
		jobs[1].counter = &apart.b;
		break;
	case MODE_FALSE:
		jobs[0].counter = &shared.a;
		jobs[1].counter = &shared.b;
		break;
	case MODE_TRUE:
		jobs[0].counter = jobs[1].counter = &shared.a;
		break;
	}
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, w, &jobs[i])) {
			fprintf(stderr, "sharing: pthread_create failed\n");
			return 1;
		}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	/* In every mode the counters add up to 2N; the checksum mixes it so a lost update shows. */
	total = mode == MODE_PRIVATE ? apart.a + apart.b : mode == MODE_FALSE ? shared.a + shared.b : shared.a;
	printf("sharing: total %llu checksum %016llx\n", (unsigned long long)total,
	       (unsigned long long)(total * 0x9E3779B97F4A7C15ULL));
	return total == 2 * n_iter ? 0 : 1;
}
