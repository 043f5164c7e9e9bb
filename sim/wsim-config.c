/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wsim-config.c - the tool's configuration: its options, the preset they start from, and their checks. */

/*
 * The one module that writes wsim_cfg and wsim_opt (wsim.h); the others only read them, after
 * wsim_config_finish(). The presets and the rules a hierarchy must follow are protocol/wsim-model.h,
 * shared with whyslow, which checks --sim-cache by the same rules before it starts the tool.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"

#include "wsim.h"

struct wsim_config wsim_cfg;
struct wsim_options wsim_opt = {
	.out = "wsim.out.%p",
	.hot = 20,
	.async = WSIM_ASYNC_AUTO,
	.cpu_prog = -1,
	.cpu_pred = -1,
	.max_stacks = 100000,
	.tier = WSIM_TIER_DEFAULT,
};

#define MAX_CACHE_OPTS 8

struct cache_opt {
	const HChar *level; /* as written: L1i, L1d, L2, L3 or LL */
	struct wsim_level lvl;
	Bool incl_given;
};

static const HChar *clo_preset = WSIM_PRESET_DEFAULT;
static struct cache_opt clo_cache[MAX_CACHE_OPTS];
static Int clo_n_cache;
static const HChar *clo_prefetch;     /* NULL: the preset's */
static const HChar *clo_cond;         /* NULL: the preset's */
static Long clo_gshare_bits = 16;
static Long clo_ras = -1;             /* -1: the preset's */
static Long clo_ind_entries = -1;     /* -1: the preset's */
static Long clo_hot = 20;
static Long clo_max_stacks = 100000;
static Long clo_cores = -1;           /* -1: the preset's */

static Bool is_pow2(Long x)
{
	return x > 0 && (x & (x - 1)) == 0;
}

/* "SIZE,ASSOC,LINE[,inclusive|non-inclusive]". Returns NULL or what is wrong. */
static const HChar *parse_cache_spec(const HChar *s, struct cache_opt *o)
{
	HChar *end;
	Long v[3];
	Int i;

	for (i = 0; i < 3; i++) {
		v[i] = VG_(strtoll10)(s, &end);
		if (end == s || v[i] <= 0 || v[i] > (1L << 30))
			return "expected SIZE,ASSOC,LINE in bytes, ways, bytes";
		if (i < 2 && *end != ',')
			return "expected SIZE,ASSOC,LINE in bytes, ways, bytes";
		s = end + 1;
	}
	o->incl_given = False;
	if (*end == ',') {
		if (VG_STREQ(end + 1, "inclusive"))
			o->lvl.inclusive = True;
		else if (VG_STREQ(end + 1, "non-inclusive"))
			o->lvl.inclusive = False;
		else
			return "the fourth field must be 'inclusive' or 'non-inclusive'";
		o->incl_given = True;
	} else if (*end != '\0') {
		return "expected SIZE,ASSOC,LINE in bytes, ways, bytes";
	}
	o->lvl.size = v[0];
	o->lvl.assoc = v[1];
	o->lvl.line = v[2];
	/* The rules of a level alone now; those of the whole hierarchy once every option is known. */
	return wsim_level_check(&o->lvl, True);
}

/* The index of `value` in the NULL-terminated `names`; otherwise the option is refused with `why`. */
static Int choice(const HChar *arg, const HChar *value, const HChar *const *names, const HChar *why)
{
	Int i;

	for (i = 0; names[i]; i++)
		if (!VG_(strcmp)(value, names[i]))
			return i;
	VG_(fmsg_bad_option)(arg, "%s", why);
	return 0;
}

Bool wsim_config_option(const HChar *arg)
{
	const HChar *spec;

	if VG_STR_CLO (arg, "--ws-preset", clo_preset) {
		if (!wsim_preset_find(clo_preset))
			VG_(fmsg_bad_option)(arg, "unknown preset; use zen4, golden-cove or cachegrind\n");
	} else if VG_STR_CLO (arg, "--ws-cache", spec) {
		const HChar *eq = VG_(strchr)(spec, '=');
		const HChar *why;
		struct cache_opt *o;
		HChar *lvl;

		if (clo_n_cache == MAX_CACHE_OPTS)
			VG_(fmsg_bad_option)(arg, "too many --ws-cache options\n");
		if (!eq)
			VG_(fmsg_bad_option)(arg, "expected LEVEL=SIZE,ASSOC,LINE (LEVEL: L1i, L1d, L2, L3, LL)\n");
		o = &clo_cache[clo_n_cache++];
		lvl = VG_(strdup)("wsim.clo", spec);
		lvl[eq - spec] = '\0';
		if (!wsim_is_level_name(lvl))
			VG_(fmsg_bad_option)(arg, "unknown cache level '%s' (use L1i, L1d, L2, L3 or LL)\n", lvl);
		o->level = lvl;
		why = parse_cache_spec(eq + 1, o);
		if (why)
			VG_(fmsg_bad_option)(arg, "%s\n", why);
	} else if VG_STR_CLO (arg, "--ws-prefetch", clo_prefetch) {
		if (!VG_STREQ(clo_prefetch, "yes") && !VG_STREQ(clo_prefetch, "no") &&
		    !VG_STREQ(clo_prefetch, "nextline") && !VG_STREQ(clo_prefetch, "stride"))
			VG_(fmsg_bad_option)(arg, "use yes, no, nextline or stride\n");
	} else if VG_STR_CLO (arg, "--ws-cond", clo_cond) {
		if (!VG_STREQ(clo_cond, "bimodal") && !VG_STREQ(clo_cond, "gshare") && !VG_STREQ(clo_cond, "tage"))
			VG_(fmsg_bad_option)(arg, "use bimodal, gshare or tage\n");
	} else if VG_BINT_CLO (arg, "--ws-gshare-bits", clo_gshare_bits, 4, 24) {
	} else if VG_BINT_CLO (arg, "--ws-ras", clo_ras, 0, 4096) {
	} else if VG_BINT_CLO (arg, "--ws-indirect", clo_ind_entries, 1, 1 << 20) {
		if (!is_pow2(clo_ind_entries))
			VG_(fmsg_bad_option)(arg, "the number of entries must be a power of two\n");
	} else if VG_STR_CLO (arg, "--ws-out", wsim_opt.out) {
	} else if VG_BINT_CLO (arg, "--ws-hot", clo_hot, 0, 100000) {
	} else if VG_STR_CLO (arg, "--ws-cpus", spec) {
		/*
		 * Where the two host threads run matters when the CPUs are unequal (hybrid cores; a virtual
		 * machine whose CPUs the host shares out unevenly): the program's thread does most of the work.
		 */
		HChar *end;
		Long p = VG_(strtoll10)(spec, &end), q = -1;

		if (end != spec && *end == ',') {
			const HChar *second = end + 1;

			q = VG_(strtoll10)(second, &end);
			if (end == second)
				q = -1;
		}
		if (p < 0 || q < 0 || *end != '\0' || p == q)
			VG_(fmsg_bad_option)(arg, "give two different CPU numbers: the program's thread's, then the "
						  "predictor thread's, e.g. --ws-cpus=0,1\n");
		if (!wsim_cpu_allowed((Int)p) || !wsim_cpu_allowed((Int)q))
			VG_(fmsg_bad_option)(arg, "CPU %lld is not one this process may run on (see taskset -p)\n",
					     wsim_cpu_allowed((Int)p) ? q : p);
		wsim_opt.cpu_prog = (Int)p;
		wsim_opt.cpu_pred = (Int)q;
	} else if VG_BOOL_CLO (arg, "--ws-callers", wsim_opt.callers) {
	} else if VG_BINT_CLO (arg, "--ws-max-stacks", clo_max_stacks, 1, 10000000) {
	} else if VG_BINT_CLO (arg, "--ws-cores", clo_cores, 1, WSIM_MAX_CORES) {
	} else if VG_STR_CLO (arg, "--ws-scope", spec) {
		static const HChar *const scopes[] = { "all", "regions", "regions-warm", NULL }; /* WSIM_SCOPE_* */

		wsim_opt.scope = choice(arg, spec, scopes, "give all, regions or regions-warm\n");
	} else if VG_BINT_CLO (arg, "--ws-tier", wsim_opt.tier, 0, 1000000000) {
	} else if VG_BINT_CLO (arg, "--ws-async-flip", wsim_opt.async_flip, 1, 1000000) {
	} else if VG_STR_CLO (arg, "--ws-async", spec) {
		static const HChar *const modes[] = { "no", "yes", "auto", NULL }; /* WSIM_ASYNC_* */

		wsim_opt.async = choice(arg, spec, modes, "give yes, no or auto\n");
	} else {
		return False;
	}
	return True;
}

void wsim_config_usage(void)
{
	VG_(printf)(
		"    --ws-preset=zen4|golden-cove|cachegrind   machine model [zen4]\n"
		"    --ws-cache=LEVEL=SIZE,ASSOC,LINE[,inclusive|non-inclusive]\n"
		"                                   override one level: L1i, L1d, L2, L3, or LL (the last level)\n"
		"    --ws-prefetch=yes|no|nextline|stride       L1d prefetchers [yes; no for cachegrind]\n"
		"    --ws-cond=bimodal|gshare|tage  conditional predictor [tage; bimodal for cachegrind]\n"
		"    --ws-gshare-bits=N             gshare table and history bits [16]\n"
		"    --ws-indirect=N                indirect target cache entries [4096]\n"
		"    --ws-ras=N                     return-address stack entries, 0 for none [32; 0 for cachegrind]\n"
		"    --ws-out=FILE                  output file, %%p is the pid [wsim.out.%%p]\n"
		"    --ws-hot=N                     per-instruction rows for the N hottest functions [20]\n"
		"    --ws-async=auto|yes|no         run the TAGE predictor on a second host thread when the\n"
		"                                   process may use two CPUs: auto while predicting takes a fifth\n"
		"                                   of the program's thread's time, it does not wait for a CPU and\n"
		"                                   the second thread keeps up; the counts are the same [auto]\n"
		"    --ws-scope=all|regions|regions-warm   simulate only while a region is open; outside, run\n"
		"                                   uninstrumented, or with the caches warmed and nothing counted [all]\n"
		"    --ws-cpus=P,Q                  hold the program's thread to CPU P and the predictor thread\n"
		"                                   to CPU Q, for CPUs of unequal speed [where the kernel puts them]\n"
		"    --ws-callers=yes|no            track calls: count per calling context, for callers, inclusive\n"
		"                                   counts and stacks; the other counts are the same [no]\n"
		"    --ws-max-stacks=N              calling contexts kept apart; more lose their callers [100000]\n"
		"    --ws-cores=N                   virtual cores: each thread on one of its own (round-robin\n"
		"                                   beyond N), private L1/L2, coherence misses [the preset's]\n"
		"    --ws-tier=N                    translate code without inline hit tests (smaller, quicker to\n"
		"                                   make) until it has run N times, then with them; 0: with them\n"
		"                                   from the start; the counts are the same [%d]\n", WSIM_TIER_DEFAULT);
}

void wsim_config_debug_usage(void)
{
	VG_(printf)("    --ws-async-flip=N              with --ws-async=auto, switch the predictor thread on and off\n"
		    "                                   every N slots of branches instead of by the load (tests)\n");
}

static void level_from(struct wsim_cache_cfg *to, const struct wsim_level *from)
{
	to->size = (Int)from->size;
	to->assoc = (Int)from->assoc;
	to->line = (Int)from->line;
	to->inclusive = from->inclusive ? True : False;
}

/* The preset, then the overrides, checked together once every option is known. */
void wsim_config_finish(void)
{
	struct wsim_config *c = &wsim_cfg;
	struct wsim_preset h = *wsim_preset_find(clo_preset); /* checked when the option was parsed */
	const HChar *why;
	Int i;

	for (i = 0; i < clo_n_cache; i++) {
		struct cache_opt *o = &clo_cache[i];
		struct wsim_level *t = wsim_level_named(&h, o->level);

		if (!t) {
			VG_(fmsg)("--ws-cache=%s=...: the %s preset has no %s (its levels: %s)\n", o->level, clo_preset,
				  o->level, wsim_preset_levels(&h));
			VG_(exit)(1);
		}
		if (!o->incl_given)
			o->lvl.inclusive = t->inclusive;
		*t = o->lvl;
	}
	if ((why = wsim_hierarchy_check(&h))) {
		VG_(fmsg)("--ws-cache: %s\n", why);
		VG_(exit)(1);
	}

	VG_(memset)(c, 0, sizeof(*c));
	c->preset = clo_preset;
	c->cg = h.cg ? True : False;
	level_from(&c->l1i, &h.l1i);
	level_from(&c->l1d, &h.l1d);
	c->n_outer = h.n_outer;
	for (i = 0; i < h.n_outer; i++) {
		level_from(&c->outer[i], &h.outer[i]);
		c->lat_outer[i] = h.lat_outer[i];
	}
	c->pf_nextline = h.pf_nextline ? True : False;
	c->pf_stride = h.pf_stride ? True : False;
	c->cond = h.cond;
	c->ind_bits = h.ind_bits;
	c->ras = h.ras;
	c->lat_mem = h.lat_mem;
	c->mispredict = h.mispredict;
	wsim_opt.hot = (Int)clo_hot;
	wsim_opt.max_stacks = (Int)clo_max_stacks;
	if (clo_prefetch) {
		c->pf_nextline = VG_STREQ(clo_prefetch, "yes") || VG_STREQ(clo_prefetch, "nextline");
		c->pf_stride = VG_STREQ(clo_prefetch, "yes") || VG_STREQ(clo_prefetch, "stride");
	}
	if (c->cg && (c->pf_nextline || c->pf_stride)) {
		/* The cachegrind encoding of the caches has no room for prefetch marks. */
		VG_(fmsg)("--ws-prefetch: the cachegrind preset models no prefetcher\n");
		VG_(exit)(1);
	}
	if (clo_cond)
		c->cond = VG_STREQ(clo_cond, "bimodal") ? WSIM_COND_BIMODAL
			  : VG_STREQ(clo_cond, "gshare") ? WSIM_COND_GSHARE
							 : WSIM_COND_TAGE;
	c->gshare_bits = (Int)clo_gshare_bits;
	if (clo_ras >= 0)
		c->ras = (Int)clo_ras;
	if (clo_ind_entries > 0) {
		if (c->cg) {
			VG_(fmsg)("--ws-indirect: the cachegrind preset's indirect predictor is fixed at 512 entries\n");
			VG_(exit)(1);
		}
		c->ind_bits = VG_(log2)((UInt)clo_ind_entries);
	}

	c->cores = clo_cores > 0 ? (Int)clo_cores : h.cores;
	c->ccx_cores = h.ccx_cores;
	c->lat_core = h.lat_core;
	if (c->cg && c->cores > 1) {
		/* cachegrind feeds every thread to one cache, and this preset counts what it counts. */
		VG_(fmsg)("--ws-cores: the cachegrind preset models one core\n");
		VG_(exit)(1);
	}

	c->min_line = c->l1i.line < c->l1d.line ? c->l1i.line : c->l1d.line;
	for (i = 0; i < c->n_outer; i++)
		if (c->outer[i].line < c->min_line)
			c->min_line = c->outer[i].line;
}
