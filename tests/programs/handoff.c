/* SPDX-License-Identifier: GPL-2.0-or-later */
/* handoff.c - two threads hand a turn back and forth through one flag, which main wrote before the other started. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

/*
 * main fills the flag's line into its cache before a second thread exists, when the simulator's coherence
 * model is not yet looking: the line must still be seen as shared once the other thread polls it (t4107).
 * The waits are spin-waits with a pause, which ends a Valgrind time slice early, so that a turn costs a
 * thousand blocks rather than a whole slice.
 */
static atomic_int turn;
static long rounds = 50;

static void *other(void *arg)
{
	for (long i = 0; i < rounds; i++) {
		while (atomic_load_explicit(&turn, memory_order_acquire) != 1)
			__builtin_ia32_pause();
		atomic_store_explicit(&turn, 0, memory_order_release);
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		rounds = atol(argv[1]);
	atomic_store_explicit(&turn, 0, memory_order_release);
	if (pthread_create(&t, NULL, other, NULL))
		return 1;
	for (long i = 0; i < rounds; i++) {
		atomic_store_explicit(&turn, 1, memory_order_release);
		while (atomic_load_explicit(&turn, memory_order_acquire) != 0)
			__builtin_ia32_pause();
	}
	return pthread_join(t, NULL) != 0;
}
