/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wsim-model.h - what whyslow and its wsim tool agree on: the presets, the cache rules, the file version. */
#ifndef WSIM_MODEL_H
#define WSIM_MODEL_H

/*
 * Included by both: the Valgrind tool (sim/, compiled without a C library) and whyslow's engine and program
 * (lib/sim/, src/). Hence plain C with no library call: the presets as data, and the rules a cache
 * hierarchy must follow as functions that only compute. whyslow checks --sim-cache with the same rules the
 * tool applies, so that a geometry the tool would refuse is a usage error before any run. The model itself
 * is documented in docs/simulator.md.
 */

/* The version of the tool's per-process result file (its format: lib/sim/sim-output.h). */
#define WSIM_FORMAT_VERSION 3

/* The preset used when none is asked for. */
#define WSIM_PRESET_DEFAULT "zen4"

/* At most two levels beyond L1: L2 and L3, or the cachegrind preset's LL alone. */
#define WSIM_MAX_OUTER 2

/* The full model finds a way among a set's tags with a 64-bit mask, two bits a way. */
#define WSIM_MAX_WAYS 32
#define WSIM_MIN_LINE 16
#define WSIM_MAX_CACHE_BYTES (1L << 30)

enum wsim_cond { WSIM_COND_BIMODAL, WSIM_COND_GSHARE, WSIM_COND_TAGE };

struct wsim_level {
	long size, assoc, line;
	int inclusive; /* evicting a line here evicts it from the levels nearer the core */
};

struct wsim_preset {
	const char *name;  /* as --sim-preset and the tool's --ws-preset take it */
	const char *desc;  /* one line for `whyslow list` */
	/*
	 * The cachegrind preset: count exactly as cachegrind 3.19 does (an access straddling two lines looks
	 * up both in LL on a first-level miss, a read-modify-write counts as a read only, no return stack).
	 */
	int cg;
	struct wsim_level l1i, l1d;
	struct wsim_level outer[WSIM_MAX_OUTER]; /* L2, L3; or LL alone in the cachegrind preset */
	int n_outer;
	int pf_nextline, pf_stride;
	enum wsim_cond cond;
	int ind_bits;  /* log2 of the indirect target cache's entries */
	int ras;       /* return-address stack entries; 0: returns are not modelled */
	/* Estimated cycles: latency of a hit in each outer level and in memory, and the mispredict penalty. */
	unsigned lat_outer[WSIM_MAX_OUTER], lat_mem, mispredict;
	/*
	 * Cores: how many (threads get one each, round-robin beyond), how many share one last level (a CCX),
	 * and the latency of a line moving from another core's private cache (a coherence miss). One core
	 * models every thread on one hierarchy, as the tool did before it had cores.
	 */
	int cores, ccx_cores;
	unsigned lat_core;
};

/* --sim-cores: at most this many virtual cores. */
#define WSIM_MAX_CORES 256

/*
 * Every preset, the default first. Each is one line per part, so that docs/simulator.md can be checked
 * against it at a glance.
 */
static const struct wsim_preset wsim_presets[] = {
	{
		/* Zen 4: L2 is inclusive of L1; L3 is a victim cache, modelled as non-inclusive. */
		.name = WSIM_PRESET_DEFAULT,
		.desc = "AMD Zen 4: L1d 32K 8-way, L1i 32K 8-way, L2 1M 8-way, L3 32M 16-way",
		.l1i = { 32768, 8, 64, 0 }, .l1d = { 32768, 8, 64, 0 },
		.outer = { { 1048576, 8, 64, 1 }, { 33554432, 16, 64, 0 } }, .n_outer = 2,
		.pf_nextline = 1, .pf_stride = 1,
		.cond = WSIM_COND_TAGE, .ind_bits = 12, .ras = 32,
		.lat_outer = { 14, 50 }, .lat_mem = 350, .mispredict = 13,
		/* A Ryzen 9 7950X: two CCDs of 8 cores, each with its 32M L3. */
		.cores = 16, .ccx_cores = 8, .lat_core = 100,
	},
	{
		/*
		 * Golden Cove as in Sapphire Rapids (2M 16-way L2; a client Alder Lake P-core has 1.25M 10-way,
		 * --sim-cache L2=1280K,10,64), with the i9-12900K's 30M 12-way L3; both non-inclusive.
		 */
		.name = "golden-cove",
		.desc = "Intel Golden Cove: L1d 48K 12-way, L1i 32K 8-way, L2 2M 16-way, L3 30M 12-way",
		.l1i = { 32768, 8, 64, 0 }, .l1d = { 49152, 12, 64, 0 },
		.outer = { { 2097152, 16, 64, 0 }, { 31457280, 12, 64, 0 } }, .n_outer = 2,
		.pf_nextline = 1, .pf_stride = 1,
		.cond = WSIM_COND_TAGE, .ind_bits = 12, .ras = 32,
		.lat_outer = { 15, 65 }, .lat_mem = 400, .mispredict = 17,
		/* The i9-12900K's 8 P-cores around one L3. */
		.cores = 8, .ccx_cores = 8, .lat_core = 150,
	},
	{
		/*
		 * cachegrind's geometry comes from the host's CPUID; this default is what --I1/--D1/--LL replace.
		 * Latencies: callgrind's cycle estimate, Ir + 10 per L1 miss + 100 more per LL miss + 10 per
		 * mispredict.
		 */
		.name = "cachegrind", .cg = 1,
		.desc = "cachegrind's model exactly: I1, D1, LL; bimodal branch predictor",
		.l1i = { 32768, 8, 64, 0 }, .l1d = { 32768, 8, 64, 0 },
		.outer = { { 8388608, 16, 64, 0 } }, .n_outer = 1,
		.cond = WSIM_COND_BIMODAL, .ras = 0, /* and cachegrind's 512-entry indirect table, fixed */
		.lat_outer = { 10 }, .lat_mem = 110, .mispredict = 10,
		/* cachegrind feeds every thread to one cache. */
		.cores = 1, .ccx_cores = 1, .lat_core = 0,
	},
};

#define WSIM_NPRESETS ((int)(sizeof(wsim_presets) / sizeof(wsim_presets[0])))

static inline int wsim_streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* The preset called `name`, or NULL. */
static inline const struct wsim_preset *wsim_preset_find(const char *name)
{
	for (int i = 0; i < WSIM_NPRESETS; i++)
		if (wsim_streq(wsim_presets[i].name, name))
			return &wsim_presets[i];
	return 0;
}

/* The levels a preset has, as --sim-cache names them: "L1i, L1d, L2, L3 and LL" or "L1i, L1d and LL". */
static inline const char *wsim_preset_levels(const struct wsim_preset *p)
{
	return p->n_outer == 2 ? "L1i, L1d, L2, L3 and LL" : "L1i, L1d and LL";
}

/*
 * The level `name` (L1i, L1d, L2, L3, or LL, the last level) of hierarchy `h`, or NULL when it has none
 * such: a two-level hierarchy (the cachegrind preset) has no L2 or L3.
 */
static inline struct wsim_level *wsim_level_named(struct wsim_preset *h, const char *name)
{
	if (wsim_streq(name, "L1i"))
		return &h->l1i;
	if (wsim_streq(name, "L1d"))
		return &h->l1d;
	if (wsim_streq(name, "LL"))
		return &h->outer[h->n_outer - 1];
	if (wsim_streq(name, "L2") && h->n_outer == 2)
		return &h->outer[0];
	if (wsim_streq(name, "L3") && h->n_outer == 2)
		return &h->outer[1];
	return 0;
}

static inline int wsim_is_level_name(const char *name)
{
	return wsim_streq(name, "L1i") || wsim_streq(name, "L1d") || wsim_streq(name, "L2") ||
	       wsim_streq(name, "L3") || wsim_streq(name, "LL");
}

/* One level on its own: NULL, or what is wrong with it (a phrase that completes "--sim-cache ...: "). */
static inline const char *wsim_level_check(const struct wsim_level *l, int cg)
{
	if (l->size <= 0 || l->assoc <= 0 || l->line <= 0 || l->size > WSIM_MAX_CACHE_BYTES)
		return "SIZE, ASSOC and LINE must be positive, and the size at most 1G";
	if (!cg && l->assoc > WSIM_MAX_WAYS)
		return "at most 32 ways (only the cachegrind preset takes more)";
	if (l->line < WSIM_MIN_LINE || (l->line & (l->line - 1)))
		return "the line size must be a power of two, 16 or more";
	if (l->assoc > l->size || l->line > l->size)
		return "more ways or a longer line than the cache has bytes";
	if (l->size % (l->assoc * l->line))
		return "the size must be a multiple of ways times line size";
	return 0;
}

/*
 * The whole hierarchy, once every override is applied: NULL, or what is wrong. The full model fills outward
 * line by line, so an outer line must hold whole inner lines; cachegrind's (the cg preset) looks up LL by
 * its own line and takes any sizes.
 */
static inline const char *wsim_hierarchy_check(const struct wsim_preset *h)
{
	const char *why;

	if ((why = wsim_level_check(&h->l1i, h->cg)) || (why = wsim_level_check(&h->l1d, h->cg)))
		return why;
	for (int i = 0; i < h->n_outer; i++) {
		long inner = i ? h->outer[i - 1].line : h->l1i.line > h->l1d.line ? h->l1i.line : h->l1d.line;

		if ((why = wsim_level_check(&h->outer[i], h->cg)))
			return why;
		if (!h->cg && h->outer[i].line < inner)
			return "line sizes must not shrink going outward from L1";
	}
	return 0;
}

#endif
