/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-command.c - libFuzzer target: compare's command line up to the programs it would run: -L and -P
 * joined and parsed, hyperfine's parameters expanded into every command and hook, each split into words.
 *
 * The input is compare's arguments, one per line (a NUL also ends one). The code under test is the program's
 * (src/), whose usage errors exit: this file includes src/cmd-compare.c for its static functions, and the
 * fuzzer is linked with --wrap=exit so that an exit inside the target returns here (exit_jump).
 * A usage error leaves what the parse had allocated, as a process about to exit may. Millions of inputs
 * would pile that up, and libFuzzer would scan the heap for leaks after each one; so the blocks allocated
 * during a run, by its thread, are tracked (the sanitizer's malloc hooks), and those a usage error left
 * are freed. A run that ends normally is left to libFuzzer's leak check, as in the other targets.
 */
#include "fuzz.h"

#include "../src/cmd-compare.c"

#include <sanitizer/allocator_interface.h>
#include <setjmp.h>

static jmp_buf exit_jump;
static bool in_target;

/*
 * The blocks a run holds: an open-addressing set of pointers, its slots valid in the generation (the run)
 * that filled them, freed ones left as tombstones; `order` lists the slots filled, to walk after a usage
 * error. A run that allocates more than it holds room for is not tracked further (its blocks then stay).
 */
#define LIVE_BITS 20
#define LIVE_CAP (1u << LIVE_BITS)
#define TOMBSTONE ((const volatile void *)1)
static struct {
	const volatile void *p;
	unsigned gen;
} live[LIVE_CAP];
static uint32_t order[LIVE_CAP / 2];
static size_t norder;
static unsigned gen;
/*
 * Per thread: only the blocks the fuzzed code allocates are tracked. libFuzzer's own threads (its RSS
 * watcher) allocate and free at any time, and one of their blocks freed after a usage error was a double
 * free in that thread (pthread_getattr_np's, seen under load).
 */
static __thread bool tracking;

static size_t live_hash(const volatile void *p)
{
	return (size_t)(((uint64_t)(uintptr_t)p >> 4) * 0x9e3779b97f4a7c15ULL >> (64 - LIVE_BITS));
}

static void on_malloc(const volatile void *p, size_t size)
{
	size_t i = live_hash(p);

	(void)size;
	if (!tracking || norder == LIVE_CAP / 2)
		return;
	while (live[i].gen == gen && live[i].p != TOMBSTONE)
		i = (i + 1) & (LIVE_CAP - 1);
	live[i].p = p;
	live[i].gen = gen;
	order[norder++] = (uint32_t)i;
}

static void on_free(const volatile void *p)
{
	if (!tracking)
		return;
	for (size_t i = live_hash(p); live[i].gen == gen; i = (i + 1) & (LIVE_CAP - 1))
		if (live[i].p == p) {
			live[i].p = TOMBSTONE;
			return;
		}
}

void __wrap_exit(int status) __attribute__((noreturn));
void __real_exit(int status) __attribute__((noreturn));

void __wrap_exit(int status)
{
	if (in_target)
		longjmp(exit_jump, 1);
	__real_exit(status);
}

/* What main.c gives the commands; main.c itself is not linked (it has main()). */
void setup_logging(int verbose)
{
	(void)verbose;
}

void record_invocation(struct ws_result *r)
{
	(void)r;
}

/* Enough programs to exercise every path; more only cost time (compare itself sets no bound here). */
#define FUZZ_MAX_PROGRAMS 256

/* compare_main() up to the runs: returns normally, or through exit_jump on a usage error. */
static void compare_programs(int argc, char **argv)
{
	struct cli_measure c = CLI_MEASURE_INIT;
	struct string_list names = { 0 };
	struct params params = { 0 };
	struct option_spec options[] = {
		OPT_LIST('n', "name", &names, "NAME", ""),
		OPT_CALLBACK('L', "parameter-list", &params, "VAR a,b,c", "", parameter_cb),
		OPT_CALLBACK('P', "parameter-scan", &params, "VAR MIN MAX", "", scan_cb),
		OPT_STRING('D', "parameter-step-size", &params.step, "STEP", ""),
		CLI_MEASURE_OPTIONS(&c),
		OPT_END(),
	};
	struct program_list progs = { 0 };
	char **args;
	int nargs, n;
	size_t combos = 1;

	args = join_parameter_lists(&params, argc, argv, &nargs);
	n = parse_options(nargs, args, "whyslow compare", compare_usage, options, 0);
	for (size_t i = 0; i < params.n; i++)
		if (params.v[i].min)
			scan_values(&params.v[i], params.step);
	for (size_t i = 0; i < params.n && combos <= FUZZ_MAX_PROGRAMS; i++)
		combos *= params.v[i].n ? params.v[i].n : 1;
	if (n > 0 && combos * (size_t)n <= FUZZ_MAX_PROGRAMS)
		expand(&progs, &params, args, (size_t)n, &names, &c);
	program_list_release(&progs);
	string_list_clear(&names);
	cli_measure_release(&c);
	params_release(&params);
	free(args);
}

/* Each argument on its own, as a command and a hook are split (cli_split_command) or kept for sh -c. */
static void split_each(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		cli_free_argv(cli_command_argv(argv[i], false));
		cli_free_argv(cli_command_argv(argv[i], true));
	}
}

/* compare_programs() on a copy of argv; after a usage error, the blocks it left are freed. */
static void run_once(int argc, char **argv)
{
	/* getopt permutes its argv: each run gets a fresh copy of the pointers. */
	char **copy = xcalloc((size_t)argc + 1, sizeof(*copy));

	memcpy(copy, argv, (size_t)argc * sizeof(*copy));
	gen++;
	norder = 0;
	in_target = tracking = true;
	if (!setjmp(exit_jump)) {
		compare_programs(argc, copy);
		in_target = tracking = false;
	} else {
		in_target = tracking = false;
		/* A slot freed and filled again is listed twice: each block is freed once, then marked. */
		for (size_t k = 0; k < norder; k++)
			if (live[order[k]].gen == gen && live[order[k]].p != TOMBSTONE) {
				free((void *)live[order[k]].p);
				live[order[k]].p = TOMBSTONE;
			}
	}
	free(copy);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	__sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
	/* -h prints the usage: with stdout unbuffered, stdio allocates no buffer a run would seem to leave. */
	setvbuf(stdout, NULL, _IONBF, 0);
	fuzz_setup();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size), **argv;
	int argc = 1;
	size_t alloc = 0;

	/* argv[0] is the command's name, as getopt expects; then one argument per line (a last newline ends
	 * the last line, it does not start an empty one). */
	argv = NULL;
	WS_ALLOC_GROW(argv, 2, alloc);
	argv[0] = "compare";
	for (char *p = text, *end = text + size; p < end; argc++) {
		char *nl = p;

		while (nl < end && *nl != '\n' && *nl != '\0')
			nl++;
		*nl = '\0';
		WS_ALLOC_GROW(argv, (size_t)argc + 2, alloc);
		argv[argc] = p;
		p = nl + 1;
	}
	argv[argc] = NULL;

	split_each(argc, argv);
	run_once(argc, argv);
	free(argv);
	free(text);
	return 0;
}
