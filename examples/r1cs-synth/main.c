/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c - r1cs-synth: Groth16 circuit synthesis as bellperson does it, with a choice of LC storage. */

/*
 *	$ r1cs-synth --lc smallvec4 --constraints 200k --threads 2
 *	digest d463368ec9c9ab25
 *	r1cs-synth: lc=smallvec4 partitions=2 constraints=400092 aux=416046 seed=1 <time> s, <n> ns/constraint/thread
 *
 * The digest (stdout) depends on --constraints, --threads and --seed only, never on --lc: that is the
 * test of correctness. The second line (stderr) is for people; its time covers synthesis only, not the
 * digest or freeing memory.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cs.h"
#include "lc.h"

#define DEFAULT_CONSTRAINTS 500000
#define MAX_CONSTRAINTS 1000000000
#define MAX_THREADS 256

static const char usage[] =
	"usage: r1cs-synth [--lc NAME] [--constraints N] [--threads T] [--seed S] [--sizes]\n"
	"\n"
	"Synthesize a Groth16 circuit the way bellperson does (linear combinations moved by value,\n"
	"insert_or_update, enforce with density trackers), storing LC terms as --lc says, and print a\n"
	"digest of the a/b/c vectors: the same for every --lc given the same N, T and S.\n"
	"\n"
	"    --lc NAME          vec, vec-pool, smallvec1, smallvec2 or smallvec4 (default vec-pool)\n"
	"    --constraints N    constraints per partition, k and M suffixes allowed (default 500k)\n"
	"    --threads T        partitions synthesized in parallel, one thread each (default 1)\n"
	"    --seed S           seed of the circuit generator (default 1)\n"
	"    --sizes            print the size of a LinearCombination per variant, and exit\n"
	"    -h, --help         show this help\n";

static void die_usage(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die_usage(const char *fmt, ...)
{
	va_list ap;
	fputs("r1cs-synth: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(129);
}

/* A decimal (or 0x hex) number with an optional k (10^3) or M (10^6) suffix, within [min, max]. */
static uint64_t parse_count(const char *opt, const char *s, uint64_t min, uint64_t max, int suffixes)
{
	char *end;
	errno = 0;
	if (*s == '-' || *s == '\0')
		goto bad;
	uint64_t v = strtoull(s, &end, 0);
	if (errno)
		goto bad;
	if (suffixes && (*end == 'k' || *end == 'K' || *end == 'M')) {
		uint64_t mul = *end == 'M' ? 1000000 : 1000;
		if (v > UINT64_MAX / mul)
			goto bad;
		v *= mul;
		end++;
	}
	if (*end)
		goto bad;
	if (v < min || v > max)
		die_usage("%s %s is out of range; use %" PRIu64 " to %" PRIu64, opt, s, min, max);
	return v;
bad:
	die_usage("%s '%s' is not a number; use e.g. %s %s", opt, s, opt,
		  suffixes ? "200k" : "2");
}

struct partition {
	const struct lc_variant *variant;
	size_t constraints;
	uint64_t seed;
	struct cs cs;
	pthread_t thread;
#ifdef R1CS_STATS
	uint64_t stats[ST__COUNT];
#endif
};

static void *run_partition(void *arg)
{
	struct partition *p = arg;
	cs_init(&p->cs, p->seed);
	p->variant->synthesize(&p->cs, p->constraints);
#ifdef R1CS_STATS
	memcpy(p->stats, r1cs_stats, sizeof(p->stats));
#endif
	return NULL;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void print_sizes(void)
{
	printf("%-10s %8s %8s  %s\n", "lc", "sizeof", "indexer", "storage");
	for (size_t i = 0; i < lc_variant_count; i++)
		printf("%-10s %8zu %8zu  %s\n", lc_variants[i].name, lc_variants[i].lc_size,
		       lc_variants[i].indexer_size, lc_variants[i].storage);
}

#ifdef R1CS_STATS
static void print_stats(const struct partition *parts, size_t n)
{
	static const char *const names[ST__COUNT] = {
		"c.boolean", "c.xor", "c.andlike", "c.multieq", "c.packing", "c.poseidon", "c.input",
		"iou.last_key_update", "iou.adjacent_push", "iou.adjacent_update", "iou.adjacent_insert",
		"iou.bsearch_update", "iou.bsearch_insert", "memmove_terms", "spills", "grows", "mallocs",
		"build.terms", "build.coeff_one", "eval.terms", "eval.coeff_one", "eval.coeff_zero",
		"aux_refs", "aux_refs_recent",
	};
	uint64_t sum[ST__COUNT] = { 0 };
	for (size_t p = 0; p < n; p++)
		for (int i = 0; i < ST__COUNT; i++)
			sum[i] += parts[p].stats[i];
	for (int i = 0; i < ST__COUNT; i++)
		fprintf(stderr, "stat %-22s %" PRIu64 "\n", names[i], sum[i]);
}
#endif

int main(int argc, char **argv)
{
	const char *lc_name = NULL;
	uint64_t constraints = DEFAULT_CONSTRAINTS, threads = 1, seed = 1;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = NULL, *eq;
		char opt[32];

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			fputs(usage, stdout);
			return 0;
		}
		if (!strcmp(arg, "--sizes")) {
			print_sizes();
			return 0;
		}
		if (strncmp(arg, "--", 2) || strlen(arg) >= sizeof(opt))
			die_usage("unknown argument '%s'; see r1cs-synth -h", arg);
		eq = strchr(arg, '=');
		if (eq) {
			snprintf(opt, sizeof(opt), "%.*s", (int)(eq - arg), arg);
			val = eq + 1;
		} else {
			snprintf(opt, sizeof(opt), "%s", arg);
		}
		if (strcmp(opt, "--lc") && strcmp(opt, "--constraints") && strcmp(opt, "--threads") &&
		    strcmp(opt, "--seed"))
			die_usage("unknown option '%s'; see r1cs-synth -h", opt);
		if (!val) {
			if (i + 1 >= argc)
				die_usage("%s needs a value; see r1cs-synth -h", opt);
			val = argv[++i];
		}
		if (!strcmp(opt, "--lc"))
			lc_name = val;
		else if (!strcmp(opt, "--constraints"))
			constraints = parse_count(opt, val, 1, MAX_CONSTRAINTS, 1);
		else if (!strcmp(opt, "--threads"))
			threads = parse_count(opt, val, 1, MAX_THREADS, 0);
		else
			seed = parse_count(opt, val, 0, UINT64_MAX, 0);
	}

	/* A single-variant build runs its own variant by default; the five-variant build, the production one. */
	if (!lc_name)
		lc_name = lc_variant_count == 1 ? lc_variants[0].name : "vec-pool";
	const struct lc_variant *variant = lc_variant_find(lc_name);
	if (!variant)
		die_usage("unknown --lc '%s'; use vec, vec-pool, smallvec1, smallvec2 or smallvec4", lc_name);

	r1cs_regions_init();

	struct partition *parts = calloc(threads, sizeof(*parts));
	if (!parts) {
		fprintf(stderr, "r1cs-synth: out of memory\n");
		return 1;
	}
	for (size_t p = 0; p < threads; p++) {
		uint64_t x = seed + p * 0xd1b54a32d192ed03;
		parts[p].variant = variant;
		parts[p].constraints = constraints;
		parts[p].seed = splitmix64(&x);
	}

	double t0 = now();
	if (threads == 1) {
		run_partition(&parts[0]);
	} else {
		for (size_t p = 0; p < threads; p++) {
			int err = pthread_create(&parts[p].thread, NULL, run_partition, &parts[p]);
			if (err) {
				fprintf(stderr, "r1cs-synth: cannot start thread %zu: %s\n", p, strerror(err));
				return 1;
			}
		}
		for (size_t p = 0; p < threads; p++)
			pthread_join(parts[p].thread, NULL);
	}
	double elapsed = now() - t0;

	uint64_t digest = 0, total_constraints = 0, total_aux = 0;
	for (size_t p = 0; p < threads; p++) {
		uint64_t x = digest ^ cs_digest(&parts[p].cs);
		digest = splitmix64(&x);
		total_constraints += parts[p].cs.a.len;
		total_aux += parts[p].cs.aux.len;
	}
	printf("digest %016" PRIx64 "\n", digest);
	fprintf(stderr,
		"r1cs-synth: lc=%s partitions=%" PRIu64 " constraints=%" PRIu64 " aux=%" PRIu64
		" seed=%" PRIu64 " %.3f s, %.0f ns/constraint/thread\n",
		variant->name, threads, total_constraints, total_aux, seed, elapsed,
		elapsed * 1e9 * threads / (double)total_constraints);
#ifdef R1CS_STATS
	print_stats(parts, threads);
#endif
	for (size_t p = 0; p < threads; p++)
		cs_release(&parts[p].cs);
	free(parts);
	return fflush(stdout) ? 1 : 0;
}
