/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backend-perf.c - count a command and all its threads and children with perf_event_open. */
#include "backend/backend.h"
#include "core/log.h"
#include "core/proc.h"
#include "core/util.h"
#include "event/pfm.h"
#include "perf/perf.h"
#include "perf/profile.h"
#include "perf/topdown.h"
#include "regions/regions.h"
#include "symbols/names.h"
#include "symbols/symbols.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Every counter is opened before the run on whyslow itself, disabled, with inherit (the child and its
 * threads and children are counted) and enable_on_exec on the group leader (counting starts at the
 * child's exec, not in our spawn code). Each event is read on its own fd with TOTAL_TIME_ENABLED/RUNNING, because the kernel refuses
 * PERF_FORMAT_GROUP reads together with inherit. Hardware events are opened in groups no larger than the
 * PMU's counters, so that each group is scheduled whole and the ratios inside it are consistent; a group
 * the kernel never managed to schedule, in a run where it rotated the groups long enough for each to have
 * had its turn, is split in two for the next run (perf_collect()).
 */

struct counter {
	size_t ev;                  /* index into the event list */
	struct perf_event_attr attr;
	int group;                  /* counters of one group are adjacent, leader first */
	int tidx;                   /* hybrid: the core type (index into perf_priv.types) it counts on, or -1 */
	int fd;
};

struct perf_priv {
	const struct ws_event_list *events;
	bool *mine;                 /* per event: claimed by this backend */
	struct perf_event_attr *attr; /* per event: the attr that probed successfully */
	struct counter *c;
	size_t nc, alloc;
	int ngroups;
	/*
	 * Hybrid CPUs: the core PMUs' perf types and names, and per event the core types that count it (bit t
	 * for types[t]), as probed; 0 for an event bound to no core PMU (software, or another PMU's).
	 */
	unsigned types[WS_PERF_MAX_CORE_TYPES];
	const char *type_names[WS_PERF_MAX_CORE_TYPES];
	int ntypes;
	unsigned *cover;
	bool warned_copy;           /* said once that a core type's copy failed to open for a run */
	bool told_user_only;        /* said once that the kernel is not counted (perf_event_paranoid) */
	bool *split;                /* per group: never scheduled last run, split before the next */
	size_t slots;               /* the event td-slots (Intel top-down), or SIZE_MAX */
	/* --regions: the markers count in the program itself; each run writes into its own directory. */
	struct ws_marker_event mev[WS_MARKERS_MAX_EVENTS];
	size_t nmev;
	unsigned mgroup[WS_MARKERS_MAX_EVENTS]; /* the markers' groups: their sizes, in mev's order */
	size_t nmgroups;
	int cap;                    /* hardware events a group may hold (group_capacity()); 0 before layout() */
	char *outdir;
	char **env;
	/* --functions: a sampling profile of each run; symbols, CPUs and the checked rate kept across runs. */
	struct ws_profile *prof;
	struct ws_symbols *syms;
	int *cpus;
	size_t ncpus;
	unsigned freq;
	bool warned_loss;
	bool told_extra_skipped;    /* said once that a core type lacks --functions' second event */
	/* Call chains: the program the next run executes, and how each program's chains are recorded. */
	char *program;
	struct program_cg {
		char *path;
		enum ws_call_graph cg;
	} *cgs;
	size_t ncgs;
	/* What each run gave the regions and functions it did not report (0 or not counted). */
	struct ws_group_fills fills;
	/* Per event at set-up: a disabled copy on ourselves, held for the session (keep_switched_on()), or -1. */
	int *keep;
	size_t nkeep;
	/* Per event, perf_collect()'s sums: allocated by the first run (again if the list grew), cleared each run. */
	double *sum, *share, *enabled;
	bool *counted;
	unsigned *opened;           /* hybrid: the core types whose copy of the event was read this run */
	size_t nsums;
};

static int group_capacity(void)
{
	struct ws_pfm_pmu pmu;
	int cap = 4; /* every x86 PMU since Nehalem has at least 4 generic counters */
	char *wd;

	if (ws_pfm_core_pmu(&pmu) == 0) {
		if (pmu.counters > 0)
			cap = pmu.counters;
		free(pmu.name);
		free(pmu.desc);
	}
	/* The NMI watchdog holds one counter for as long as it runs. */
	wd = ws_read_line("/proc/sys/kernel/nmi_watchdog");
	if (wd && atoi(wd) > 0 && cap > 1)
		cap--;
	free(wd);
	return cap;
}

static void add_counter(struct perf_priv *p, size_t ev, const struct perf_event_attr *attr, int group, int tidx)
{
	struct counter *c;

	WS_ALLOC_GROW(p->c, p->nc + 1, p->alloc);
	c = &p->c[p->nc++];
	c->ev = ev;
	c->attr = *attr;
	c->group = group;
	c->tidx = tidx;
	c->fd = -1;
}

/*
 * perf's generic hardware and cache events: on a hybrid CPU each names its core PMU in config's upper 32
 * bits (PERF_PMU_TYPE_SHIFT), one copy per core type. Every other event names its PMU in its type.
 */
static bool per_core_type(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE;
}

/* The attr of `a`'s copy on core type t. */
static struct perf_event_attr on_core_type(const struct perf_priv *p, const struct perf_event_attr *a, int t)
{
	struct perf_event_attr c = *a;

	c.config = (c.config & PERF_HW_EVENT_MASK) | (unsigned long long)p->types[t] << PERF_PMU_TYPE_SHIFT;
	return c;
}

/*
 * The core type an event that is not per_core_type() counts on: the one whose PMU its type names (a raw
 * event's PERF_TYPE_RAW is cpu_core's own type), or -1 (software, another PMU's, or not hybrid).
 */
static int core_type_of(const struct perf_priv *p, const struct perf_event_attr *a)
{
	for (int t = 0; t < p->ntypes; t++)
		if (a->type == p->types[t])
			return t;
	return -1;
}

/* All the core types of this hybrid CPU, as a mask of perf_priv.cover. */
static unsigned all_core_types(const struct perf_priv *p)
{
	return (1u << p->ntypes) - 1;
}

/* Intel's top-down metric events, when their leader td-slots was asked for too. */
static bool is_topdown_metric(const struct perf_priv *p, size_t i)
{
	return p->slots != SIZE_MAX && ws_topdown_is_slots_metric(p->events->v[i].name);
}

/*
 * How layout() and the markers group a claimed hardware event: Zen 4's five top-down inputs form groups of
 * their own, so that they are counted over the same time and the four fractions add up (mixed with the
 * generic events they straddled groups that multiplexing counted at different times); then the others.
 */
enum { HW_TOPDOWN, HW_OTHER };

static int hw_class(const struct perf_priv *p, size_t i)
{
	return ws_topdown_is_zen4(p->events->v[i].name) ? HW_TOPDOWN : HW_OTHER;
}

/*
 * Lay out the counters: software events alone, hardware ones in groups of at most the PMU's counters per core
 * PMU. The capacity is asked for only when there are hardware events: libpfm4 learns it at its start-up,
 * which runs cpuid for every PMU it knows, and each cpuid traps to the hypervisor in a VM (5 ms a start-up
 * of whyslow on the 2-core KVM guest, for a session that counts software events only).
 */
static void layout(struct perf_priv *p)
{
	int cap = 0;

	p->nc = 0;
	p->ngroups = 0;
	for (size_t i = 0; i < p->events->n; i++) {
		if (!p->mine[i] || p->attr[i].type != PERF_TYPE_SOFTWARE)
			continue;
		add_counter(p, i, &p->attr[i], p->ngroups++, -1);
	}
	/* Intel's top-down metrics count only in a group that "slots" leads: one group of their own. */
	if (p->slots != SIZE_MAX && p->mine[p->slots]) {
		add_counter(p, p->slots, &p->attr[p->slots], p->ngroups, core_type_of(p, &p->attr[p->slots]));
		for (size_t i = 0; i < p->events->n; i++)
			if (p->mine[i] && is_topdown_metric(p, i))
				add_counter(p, i, &p->attr[i], p->ngroups, core_type_of(p, &p->attr[i]));
		p->ngroups++;
	}
	/*
	 * On a hybrid CPU the task is counted by one copy of a generic hardware event per core type that
	 * counts it (perf_setup() probed each), and collect() sums them; a copy's groups hold that core type's
	 * events only, as the kernel keeps a group on one PMU.
	 */
	for (size_t i = 0; i < p->events->n && !cap; i++)
		if (p->mine[i] && p->attr[i].type != PERF_TYPE_SOFTWARE && i != p->slots && !is_topdown_metric(p, i))
			cap = group_capacity();
	p->cap = cap;
	for (int k = 0; k < (p->ntypes ? p->ntypes : 1) * 2; k++) {
		int t = k / 2, in_group = cap;

		for (size_t i = 0; i < p->events->n; i++) {
			struct perf_event_attr a;
			int tidx;

			if (!p->mine[i] || p->attr[i].type == PERF_TYPE_SOFTWARE || i == p->slots ||
			    is_topdown_metric(p, i) || hw_class(p, i) != k % 2)
				continue;
			a = p->attr[i];
			if (p->ntypes && per_core_type(&a)) {
				if (!(p->cover[i] & 1u << t))
					continue; /* that core type cannot count it */
				a = on_core_type(p, &a, t);
				tidx = t;
			} else {
				/* Raw and PMU-specific events name their PMU already: open once, with its type's. */
				tidx = core_type_of(p, &a);
				if (tidx >= 0 ? tidx != t : t > 0)
					continue;
			}
			if (in_group >= cap) {
				p->ngroups++;
				in_group = 0;
			}
			add_counter(p, i, &a, p->ngroups - 1, tidx);
			in_group++;
		}
	}
	free(p->split);
	p->split = xcalloc((size_t)p->ngroups + 1, sizeof(*p->split));
}

/* The markers' kinds of group, in their order (choose_marker_events()). */
enum { MG_TOPDOWN, MG_HARDWARE, MG_SLOTS, MG_SOFTWARE, MG_KINDS };

static int marker_kind(const struct perf_priv *p, size_t i)
{
	if (i == p->slots || is_topdown_metric(p, i))
		return MG_SLOTS;
	/* Tracepoints and breakpoints take no PMU counter either, and no rdpmc: with the software events. */
	if (p->attr[i].type == PERF_TYPE_SOFTWARE || p->attr[i].type == PERF_TYPE_TRACEPOINT ||
	    p->attr[i].type == PERF_TYPE_BREAKPOINT)
		return MG_SOFTWARE;
	return hw_class(p, i) == HW_TOPDOWN ? MG_TOPDOWN : MG_HARDWARE;
}

/*
 * The events the markers count, at most WS_MARKERS_MAX_EVENTS, in groups the PMU can take: x86 refuses at
 * open a group that cannot fit its counters (EINVAL), which with one group of every event lost every
 * region on AMD (6 counters) and on Intel with Hyper-Threading before Ice Lake (4). Hardware events in
 * groups of at most the backend's capacity, Zen 4's top-down inputs in their own (as layout()); Intel's
 * top-down metric events only in the group td-slots leads, first, as the kernel wants; software events in
 * one group of their own, which takes no counter and leaves the hardware groups readable with rdpmc.
 */
static void choose_marker_events(struct perf_priv *p)
{
	char *left = NULL;

	p->nmev = 0;
	p->nmgroups = 0;
	for (int kind = 0; kind < MG_KINDS; kind++) {
		unsigned in_group = 0;

		for (size_t k = 0; k <= p->events->n; k++) {
			/* td-slots before its metric events. */
			size_t i = kind != MG_SLOTS ? k : k == 0 ? p->slots : k - 1;
			struct ws_marker_event *m;

			if (i >= p->events->n || (kind == MG_SLOTS && k > 0 && i == p->slots) || !p->mine[i] ||
			    marker_kind(p, i) != kind)
				continue;
			if (p->nmev == WS_MARKERS_MAX_EVENTS) {
				char *l = xasprintf("%s%s%s", left ? left : "", left ? ", " : "", p->events->v[i].name);

				free(left);
				left = l;
				continue;
			}
			if (!in_group || ((kind == MG_HARDWARE || kind == MG_TOPDOWN) && p->cap > 0 &&
					  in_group == (unsigned)p->cap)) {
				p->mgroup[p->nmgroups++] = 0;
				in_group = 0;
			}
			p->mgroup[p->nmgroups - 1]++;
			in_group++;
			m = &p->mev[p->nmev++];
			m->type = p->attr[i].type;
			m->config = p->attr[i].config;
			m->config1 = p->attr[i].config1;
			m->config2 = p->attr[i].config2;
			m->exclude_user = p->attr[i].exclude_user;
			m->exclude_kernel = p->attr[i].exclude_kernel;
			m->exclude_hv = p->attr[i].exclude_hv;
			m->name = p->events->v[i].name;
		}
	}
	if (left)
		ws_log(WS_LOG_INFO, "--regions: the markers count at most %d events; not counted in regions: %s",
		       WS_MARKERS_MAX_EVENTS, left);
	free(left);
}

/* The markers' groups, for the environment: "WHYSLOW_MARKERS_GROUPS=N,N,..." (caller frees). */
static char *marker_groups_env(const struct perf_priv *p)
{
	char *s = xstrdup(WS_MARKERS_ENV_GROUPS "=");

	for (size_t g = 0; g < p->nmgroups; g++) {
		char *n = xasprintf("%s%s%u", s, g ? "," : "", p->mgroup[g]);

		free(s);
		s = n;
	}
	return s;
}

static void remove_outdir(struct perf_priv *p)
{
	ws_remove_tree(p->outdir);
	free(p->outdir);
	p->outdir = NULL;
	ws_marker_env_free(p->env);
	p->env = NULL;
}

/* --regions: a fresh directory for this run's region files, and the environment that points there. */
static int perf_prepare(struct ws_backend *be, struct ws_exec *ex)
{
	struct perf_priv *p = be->priv;
	const char *tmp = getenv("TMPDIR");
	char *dir;
	size_t n;
	int ret;

	/* Which program runs: its frame pointers decide how call chains are recorded (perf_attach()). */
	free(p->program);
	p->program = be->opts.functions ? ws_find_in_path(ex->argv[0]) : NULL;
	if (!be->opts.regions)
		return 0;
	if (!p->nmev) {
		bool asked = false;

		for (size_t i = 0; i < p->events->n; i++)
			asked |= p->mine[i];
		/* -e wall-time alone: the markers count perf events and time regions beside them, never alone. */
		if (!asked)
			return ws_error("--regions: the markers count perf events, and none was asked for: add one "
					"(-e wall-time,task-clock)"), -ENODEV;
		return ws_error("--regions: no perf event opens here for the markers to count"), -ENODEV;
	}
	remove_outdir(p);
	/* Named for this process: if it is killed (SIGKILL), the next whyslow removes the folder. */
	if (!(dir = ws_tmpdir_make("regions"))) {
		ret = -errno;
		ws_error("cannot create a directory for region files in %s: %s", tmp && *tmp ? tmp : "/tmp",
			 strerror(errno));
		return ret;
	}
	p->outdir = dir;
	if ((ret = ws_marker_env_build(WS_MARKERS_PERF, p->mev, p->nmev, p->outdir, &p->env)) < 0)
		return ret;
	/* The groups the markers open: one more entry (ws_marker_env_free() frees every one). */
	for (n = 0; p->env[n]; n++)
		;
	p->env = xrealloc(p->env, (n + 2) * sizeof(*p->env));
	p->env[n] = marker_groups_env(p);
	p->env[n + 1] = NULL;
	ex->env_add = p->env;
	return 0;
}

/*
 * Read the run's region files into the variant: entries, wall time and every event, per region. A region
 * the files do not name counted nothing (0); a run that wrote no file at all (killed by --timeout, markers
 * that failed to start, a program without them) counted nothing we know of (NAN).
 */
static int collect_regions(struct perf_priv *p, struct ws_variant *v, size_t run)
{
	struct ws_region_set set = WS_REGION_SET_INIT;
	int ret = ws_region_set_read(&set, p->outdir);

	if (ret < 0) {
		remove_outdir(p);
		return ret;
	}
	if (set.error)
		ws_log(WS_LOG_WARN, "the region markers of '%s' failed in %" PRIu64 " thread(s): %s", v->name,
		       set.nr_failed, set.error);
	for (size_t i = 0; i < set.nr_regions; i++) {
		const struct ws_region_data *rd = &set.regions[i];
		struct ws_group *g = ws_group_list_get(&v->regions, rd->name, NULL);

		ws_group_push(&p->fills, &v->regions, g, "entries", 0, run, (double)rd->entries, -1);
		/*
		 * A region that no thread both began and ended (an end without a begin, or one left open at
		 * exit) timed nothing: its events read as not counted, and so must its wall time, not 0 s.
		 */
		ws_group_push(&p->fills, &v->regions, g, "wall-time", 0, run, rd->entries ? rd->wall_seconds : NAN,
			      -1);
		for (size_t e = 0; e < set.nr_events; e++) {
			const struct ws_region_count *c = &rd->counts[e];
			double share = c->time_enabled ? (double)c->time_running / (double)c->time_enabled : 0;

			ws_group_push(&p->fills, &v->regions, g, set.events[e], 0, run, ws_region_count_scaled(c),
				      c->time_enabled ? share : -1);
		}
	}
	ws_group_list_pad(&p->fills, &v->regions, NULL, run, set.nr_processes ? 0 : NAN);
	ws_region_set_release(&set);
	remove_outdir(p);
	return 0;
}

/* --functions samples the child, which needs its pid before its exec. */
static bool perf_wants_pid(const struct ws_backend *be)
{
	return be->opts.functions;
}

/*
 * How the program's call chains are recorded: as --call-graph says, else frame pointers where most of its
 * functions keep one (their CFI computes the frame from rbp), else DWARF unwinding, which works without
 * them at the cost of 8 KiB of stack per sample. Decided once per program and said in one line.
 */
static enum ws_call_graph program_call_graph(struct perf_priv *p, const struct ws_backend_opts *opts)
{
	const char *path = p->program ? p->program : "";
	struct ws_symobj *o;
	enum ws_call_graph cg;
	double fp = NAN;

	if (opts->call_graph)
		return !strcmp(opts->call_graph, "fp") ? WS_CALL_GRAPH_FP
		       : !strcmp(opts->call_graph, "dwarf") ? WS_CALL_GRAPH_DWARF : WS_CALL_GRAPH_NONE;
	for (size_t i = 0; i < p->ncgs; i++)
		if (!strcmp(p->cgs[i].path, path))
			return p->cgs[i].cg;
	if (p->program && ws_symbols_get(p->syms, p->program, &o) == 0)
		fp = ws_symobj_frame_pointer_share(o);
	cg = fp >= 0.5 ? WS_CALL_GRAPH_FP : WS_CALL_GRAPH_DWARF;
	if (isnan(fp))
		ws_log(WS_LOG_INFO, "callers of %s: DWARF unwinding (no call frame information to tell whether it "
		       "keeps frame pointers); --call-graph fp to use them", path);
	else
		ws_log(WS_LOG_INFO, "callers of %s: %s (%.0f%% of its functions keep a frame pointer); --call-graph "
		       "%s to use %s", path, cg == WS_CALL_GRAPH_FP ? "frame pointers" : "DWARF unwinding", 100 * fp,
		       cg == WS_CALL_GRAPH_FP ? "dwarf" : "fp", cg == WS_CALL_GRAPH_FP ? "DWARF unwinding"
											  : "frame pointers");
	p->cgs = xrealloc(p->cgs, (p->ncgs + 1) * sizeof(*p->cgs));
	p->cgs[p->ncgs++] = (struct program_cg){ xstrdup(path), cg };
	return cg;
}

/* --functions: start sampling the child before it execs (one event per CPU, inherit, rings per CPU). */
static int perf_attach(struct ws_backend *be, pid_t pid)
{
	struct perf_priv *p = be->priv;
	struct ws_profile_opts o = WS_PROFILE_OPTS_INIT;

	if (!be->opts.functions)
		return 0;
	/* A run that never started (exec failed) left its profile open. */
	if (p->prof) {
		ws_profile_close(p->prof);
		p->prof = NULL;
	}
	/*
	 * The first run reads what every run's profile needs (and says once if the rate is lowered); not at
	 * set-up, where a session that leaves the functions to the simulator would still say it.
	 */
	if (!p->syms) {
		p->syms = ws_symbols_new();
		p->ncpus = ws_profile_online_cpus(&p->cpus);
		p->freq = be->opts.freq > 0 ? (unsigned)be->opts.freq : o.freq;
	}
	/*
	 * Every run: the kernel lowers perf_event_max_sample_rate while a session runs when its sampling
	 * interrupts take too long ("perf: interrupt took too long", in VMs and with DWARF stacks), and then
	 * refuses a higher frequency with EINVAL, which reads as "no PMU". Said only when it goes lower.
	 */
	p->freq = ws_profile_clip_freq(p->freq);
	o.freq = p->freq;
	o.freq_checked = true;
	o.cpus = p->cpus;
	o.nr_cpus = p->ncpus;
	o.extra_event = be->opts.functions_event;
	o.symbols = p->syms;
	o.call_graph = program_call_graph(p, &be->opts);
	/* 8 KiB of stack per sample: a ring of 4 MiB per CPU holds a quarter of a second at 4 kHz. */
	if (o.call_graph == WS_CALL_GRAPH_DWARF)
		o.ring_pages = 1024;
	return ws_profile_open(&p->prof, pid, &o);
}

static void perf_poll(struct ws_backend *be)
{
	struct perf_priv *p = be->priv;

	if (p->prof)
		ws_profile_poll(p->prof);
}

/*
 * A function is named by its demangled name; the same name in two objects, and the "[unknown]" rows of each
 * stripped object (one per function where its frames tell them apart), are told apart by the object's file
 * name. Code inlined from a function is a row of its
 * own, "NAME (inlined)", beside the function's own row when it also exists out of line.
 */
static char *function_key(const struct ws_fn *fn, const struct ws_fn_profile *fp, bool inlined)
{
	const char *base = strrchr(fn->object, '/') ? strrchr(fn->object, '/') + 1 : fn->object;
	const struct ws_fn *v = inlined ? fp->inlined : fp->fns;
	size_t n = inlined ? fp->nr_inlined : fp->nr_fns;

	if (fn->unknown)
		return ws_sym_unknown_row(fn->name, fn->object);
	for (size_t i = 0; i < n; i++)
		if (&v[i] != fn && !strcmp(v[i].name, fn->name) && strcmp(v[i].object, fn->object))
			return xasprintf("%s (%s)%s", fn->name, base, inlined ? " (inlined)" : "");
	return inlined ? xasprintf("%s (inlined)", fn->name) : xstrdup(fn->name);
}

/* Whether run `run` of `v` had samples: its functions' shares are numbers then, NAN otherwise. */
static bool run_had_samples(const struct ws_variant *v, size_t run)
{
	for (size_t i = 0; i < v->functions.n; i++) {
		const struct ws_metric *m = ws_metric_set_find(&v->functions.v[i].metrics, "share");

		if (m && m->n > run && !isnan(m->samples[run]))
			return true;
	}
	return false;
}

/* Append `value` to `name` of `set` at run `run`, the runs it missed taking 0 where they had samples, else NAN. */
static void push_run(const struct ws_variant *v, struct ws_metric_set *set, const char *name, size_t run,
		     double value)
{
	struct ws_metric *m = ws_metric_set_get(set, name, 0);

	while (m->n < run)
		ws_metric_push(m, run_had_samples(v, m->n) ? 0 : NAN, -1);
	if (m->n == run)
		ws_metric_push(m, value, -1);
}

/*
 * A run's call graph into the result (docs/result-schema.md, Call graphs): each function's inclusive share
 * and its callers' shares, all of the run's samples; every function and caller the run did not see gets 0
 * (NAN for a run without samples); and the whole stacks, summed over the runs, for flame graphs.
 */
static void collect_call_graph(struct perf_priv *p, struct ws_variant *v, const struct ws_fn_profile *fp, size_t run)
{
	char **keys = xcalloc(fp->nr_fns + 1, sizeof(*keys));

	(void)p;
	for (size_t i = 0; i < fp->nr_fns; i++)
		keys[i] = function_key(&fp->fns[i], fp, false);
	for (size_t i = 0; i < fp->nr_fns; i++) {
		const struct ws_fn *fn = &fp->fns[i];
		struct ws_group *g = ws_group_list_find(&v->functions, keys[i]);

		if (!g)
			continue;
		push_run(v, &g->inclusive, "share", run, fp->period ? fn->inclusive_share : NAN);
		for (size_t k = 0; k < fn->nr_callers; k++) {
			const struct ws_fn *c = &fp->fns[fn->callers[k].caller];
			struct ws_group *cg = ws_group_list_get(&g->callers, keys[fn->callers[k].caller], c->object);

			push_run(v, &cg->metrics, "share", run, fn->callers[k].share);
		}
	}
	/* Bring every function's inclusive and callers' shares up to this run. */
	for (size_t i = 0; i < v->functions.n; i++) {
		struct ws_group *g = &v->functions.v[i];

		if (g->inlined)
			continue;
		push_run(v, &g->inclusive, "share", run, fp->period ? 0 : NAN);
		for (size_t k = 0; k < g->callers.n; k++)
			push_run(v, &g->callers.v[k].metrics, "share", run, fp->period ? 0 : NAN);
	}
	/* Stacks, summed over the runs: one entry per stack of function names. */
	if (!v->stacks_metric)
		v->stacks_metric = xstrdup("samples");
	v->stacks_runs++;
	for (size_t k = 0; k < fp->nr_stacks; k++) {
		const struct ws_fn_stack *st = &fp->stacks[k];
		const char **frames = xcalloc(st->n + 1, sizeof(*frames));
		size_t j;

		for (size_t f = 0; f < st->n; f++)
			frames[f] = keys[st->fns[f]];
		for (j = 0; j < v->nstacks; j++) {
			struct ws_stack *o = &v->stacks[j];
			size_t f;

			if (o->nframes != st->n)
				continue;
			for (f = 0; f < st->n && !strcmp(o->frames[f], frames[f]); f++)
				;
			if (f == st->n)
				break;
		}
		if (j < v->nstacks)
			v->stacks[j].count += (double)st->samples;
		else
			ws_variant_add_stack(v, frames, st->n, (double)st->samples);
		free(frames);
	}
	for (size_t i = 0; i < fp->nr_fns; i++)
		free(keys[i]);
	free(keys);
}

/*
 * A function this run's profile did not sample took no share of it (0); a run without samples of an event
 * has no shares of it at all (NAN), for every function.
 */
static int collect_profile(struct perf_priv *p, struct ws_variant *v, size_t run)
{
	struct ws_fn_profile fp;
	char *extra = NULL;
	int ret = ws_profile_finish(p->prof, &fp);

	ws_profile_close(p->prof);
	p->prof = NULL;
	if (ret < 0)
		return ret;
	if ((fp.lost || fp.full_rings) && !p->warned_loss) {
		ws_log(WS_LOG_WARN, "the profile of '%s' lost samples (ring buffers full): lower the rate with -F",
		       v->name);
		p->warned_loss = true;
	}
	/* The rate the profile ended up at: lowered at an open, it is not said again at the next run's. */
	if (fp.freq && fp.freq < p->freq)
		p->freq = fp.freq;
	if (fp.extra_skipped && !p->told_extra_skipped) {
		ws_log(WS_LOG_INFO, "%s is not sampled on the CPUs of %s, which do not count it: its shares are of "
		       "the time the command ran on the other core types", fp.extra_event, fp.extra_skipped);
		p->told_extra_skipped = true;
	}
	if (fp.extra_event)
		extra = xasprintf("%s-share", fp.extra_event);
	for (size_t i = 0; i < fp.nr_fns + fp.nr_inlined; i++) {
		bool inl = i >= fp.nr_fns;
		const struct ws_fn *fn = inl ? &fp.inlined[i - fp.nr_fns] : &fp.fns[i];
		char *key = function_key(fn, &fp, inl);
		struct ws_group *g = ws_group_list_get(&v->functions, key, fn->object);

		g->inlined = inl;
		for (size_t k = 0; k < fn->nr_symbols; k++)
			ws_group_add_symbol(g, fn->symbols[k]);
		ws_group_push(&p->fills, &v->functions, g, "share", 0, run, fp.period ? fn->share : NAN, -1);
		for (size_t l = 0; l < fn->nr_lines; l++) {
			const struct ws_fn_line *ln = &fn->lines[l];
			struct ws_inline_frame *chain = xcalloc(ln->nr_inlined + 1, sizeof(*chain));

			for (size_t k = 0; k < ln->nr_inlined; k++)
				chain[k] = (struct ws_inline_frame){ ln->inlined[k].name, ln->inlined[k].call_file,
								     ln->inlined[k].call_line };
			ws_group_add_line(g, ln->file, ln->line, (double)ln->samples, chain, ln->nr_inlined);
			free(chain);
		}
		if (extra)
			ws_group_push(&p->fills, &v->functions, g, extra, 0, run,
				      fp.extra_period ? fn->extra_share : NAN, -1);
		free(key);
	}
	/* The second event's record first: the list's own pads every metric without one. */
	if (extra)
		ws_group_list_pad(&p->fills, &v->functions, extra, run, fp.extra_period ? 0 : NAN);
	ws_group_list_pad(&p->fills, &v->functions, NULL, run, fp.period ? 0 : NAN);
	if (fp.call_graph != WS_CALL_GRAPH_NONE)
		collect_call_graph(p, v, &fp, run);
	free(extra);
	ws_fn_profile_release(&fp);
	return 0;
}

/*
 * Open `a` on ourselves, as the child will get it: the same PMU and permissions. When the kernel may not be
 * counted (EACCES or EPERM under perf_event_paranoid 2), retry user space only, as perf does, unless
 * `user_only_ok` is false or the event counts the kernel alone (":k": user space only, it would count
 * nothing); say so once. `a` keeps the exclude bits of the last try. Returns the fd or -errno.
 */
static int probe_open(struct perf_priv *p, const char *name, struct perf_event_attr *a, bool user_only_ok)
{
	int fd = ws_perf_open(name, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd >= 0 || (fd != -EACCES && fd != -EPERM) || a->exclude_kernel || a->exclude_user || !user_only_ok)
		return fd;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	fd = ws_perf_open(name, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0 && !p->told_user_only) {
		ws_log(WS_LOG_INFO, "counting user space only: perf_event_paranoid is %d (to count the kernel too: "
		       "sudo sysctl -w kernel.perf_event_paranoid=1)", ws_perf_paranoid());
		p->told_user_only = true;
	}
	return fd;
}

/* The errors after which nothing else opens either (ws_perf_triage()'s WS_PERF_FATAL). */
static bool fatal_errno(int err)
{
	return err == -EMFILE || err == -ENFILE || err == -ENOMEM;
}

/*
 * A generic hardware or cache event on a hybrid CPU: probe its copy on each core type, with the type in
 * config. Without one the kernel reads PERF_TYPE_RAW, cpu_core's type (perf_init_event()), so a probe of
 * the bare event says nothing of cpu_atom, whose PMU lacks some events (its cache table has no L1d read
 * miss: ENOENT). p->cover[i] gets the core types that opened; `a` the exclude bits that did. Returns the
 * descriptor of one copy that opened (the caller closes it), else the first core type's error.
 */
static int probe_core_types(struct perf_priv *p, size_t i, struct perf_event_attr *a)
{
	const char *name = p->events->v[i].name;
	int fd = -1, err = 0;

	for (int t = 0; t < p->ntypes; t++) {
		struct perf_event_attr c = on_core_type(p, a, t);
		int f = probe_open(p, name, &c, true);

		if (f < 0) {
			/* The first error, but one that stops everything (EMFILE: ulimit -n) over any other. */
			if (!err || (fatal_errno(f) && !fatal_errno(err)))
				err = f;
			ws_log(WS_LOG_DEBUG, "'%s' does not open on %s: %s", name, p->type_names[t], strerror(-f));
			continue;
		}
		a->exclude_kernel = c.exclude_kernel;
		a->exclude_hv = c.exclude_hv;
		p->cover[i] |= 1u << t;
		if (fd < 0)
			fd = f;
		else
			close(f);
	}
	if (p->cover[i] && !fatal_errno(err))
		return fd;
	if (fd >= 0)
		close(fd);
	return err;
}

/* On a hybrid CPU, say once which events only one core type counts, and what their counts then cover. */
static void tell_one_core_type(const struct perf_priv *p)
{
	/* Each set of core types short of all of them (bit t for types[t]): its events in one line. */
	for (unsigned mask = 1; p->ntypes > 1 && mask < all_core_types(p); mask++) {
		char *list = NULL, *where = NULL;

		for (size_t i = 0; i < p->events->n; i++) {
			char *l;

			if (!p->mine[i] || p->cover[i] != mask)
				continue;
			l = xasprintf("%s%s%s", list ? list : "", list ? ", " : "", p->events->v[i].name);
			free(list);
			list = l;
		}
		for (int t = 0; list && t < p->ntypes; t++) {
			char *w;

			if (!(mask & 1u << t))
				continue;
			w = xasprintf("%s%s%s", where ? where : "", where ? " and " : "", p->type_names[t]);
			free(where);
			where = w;
		}
		if (list)
			ws_log(WS_LOG_INFO, "counted on %s only, where this hybrid CPU's other core types lack them or "
			       "they name one PMU: %s (their counts cover the time the command ran on those CPUs, not "
			       "scaled to the rest)", where, list);
		free(list);
		free(where);
	}
}


/*
 * Intel's top-down metric events open only as members of a group that "slots" leads (the kernel refuses
 * them alone with EINVAL): probe them that way, slots first. Under perf_event_paranoid 2 slots opens user
 * space only, as every other event, and its members take its exclude bits, as the kernel wants a group's
 * members to count what their leader counts.
 */
static void probe_topdown(struct perf_priv *p, struct ws_claim *claims)
{
	const struct ws_event_list *events = p->events;
	struct perf_event_attr a;
	char *reason = NULL;
	int lead;

	if (p->slots == SIZE_MAX || claims[p->slots].claimed)
		return;
	a = events->v[p->slots].attr;
	a.disabled = 1;
	a.inherit = 1;
	lead = probe_open(p, events->v[p->slots].name, &a, true);
	if (lead < 0) {
		ws_perf_triage(-lead, &a, &reason);
		/* The metric events open only under slots: they fail for its reason, not for lack of support. */
		for (size_t i = 0; i < events->n; i++) {
			if (!is_topdown_metric(p, i) || claims[i].claimed)
				continue;
			free(claims[i].reason);
			claims[i].reason = xasprintf("opens only in a group that %s leads, which did not open: %s",
						     events->v[p->slots].name, reason);
		}
		free(claims[p->slots].reason);
		claims[p->slots].reason = reason;
		return;
	}
	p->mine[p->slots] = claims[p->slots].claimed = true;
	p->attr[p->slots] = a;
	p->cover[p->slots] = core_type_of(p, &a) >= 0 ? 1u << core_type_of(p, &a) : 0;
	for (size_t i = 0; i < events->n; i++) {
		struct perf_event_attr m;
		int fd;

		if (!is_topdown_metric(p, i) || claims[i].claimed)
			continue;
		m = events->v[i].attr;
		m.disabled = 0;
		m.inherit = 1;
		m.exclude_kernel = a.exclude_kernel;
		m.exclude_hv = a.exclude_hv;
		fd = ws_perf_open(events->v[i].name, &m, 0, -1, lead, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			ws_perf_triage(-fd, &m, &reason);
			free(claims[i].reason);
			claims[i].reason = reason;
			continue;
		}
		close(fd);
		p->mine[i] = claims[i].claimed = true;
		p->attr[i] = m;
		p->cover[i] = p->cover[p->slots];
	}
	close(lead);
}

/*
 * The kernel switches a software event's code on in its scheduler and fault paths (a static key) when the
 * first event of that kind is created, and off when the last one goes: each switch rewrites kernel text on
 * every CPU, with IPIs and, in a VM, trapped MSR writes. Opened and closed for each run, page-faults,
 * context-switches and cpu-migrations flipped their keys twice a run: 280 us of whyslow's own CPU a run on
 * the 2-core KVM guest (smp_call_function_many_cond and native_write_msr in a cpu-clock profile). A disabled
 * copy of each, held for the session and not inherited, keeps the key on. task-clock and cpu-clock have no
 * key of their own, but every event on a task holds the scheduler's (perf_sched_events), which the kernel
 * lets go a second after the last such event closes, and takes again with a wait for an RCU grace period
 * (milliseconds) when the next one opens: with task-clock alone, 3,000 runs of /bin/true saw that release
 * (perf_sched_delayed, a workqueue tracepoint) twice, and once, after the session, with this copy held.
 */
static void keep_switched_on(struct perf_priv *p, size_t i, const struct perf_event_attr *probed)
{
	struct perf_event_attr a = *probed;

	if (a.type != PERF_TYPE_SOFTWARE)
		return;
	a.disabled = 1;
	a.inherit = 0;
	a.enable_on_exec = 0;
	/* Unnamed: no injected fault is spent on it. Without it the runs are only slower: nothing to report. */
	p->keep[i] = ws_perf_open(NULL, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int perf_setup(struct ws_backend *be, const struct ws_event_list *events, struct ws_claim *claims)
{
	struct perf_priv *p = xcalloc(1, sizeof(*p));
	int ret;

	be->priv = p;
	p->events = events;
	p->mine = xcalloc(events->n + 1, sizeof(*p->mine));
	p->attr = xcalloc(events->n + 1, sizeof(*p->attr));
	p->cover = xcalloc(events->n + 1, sizeof(*p->cover));
	p->keep = xcalloc(events->n + 1, sizeof(*p->keep));
	p->nkeep = events->n;
	for (size_t i = 0; i < events->n; i++)
		p->keep[i] = -1;
	if ((ret = ws_perf_inject_env()) < 0)
		return ret;
	p->ntypes = ws_perf_hybrid_pmus(p->types, p->type_names, WS_PERF_MAX_CORE_TYPES);
	p->slots = SIZE_MAX;
	for (size_t i = 0; i < events->n; i++)
		if (!strcmp(events->v[i].name, WS_TOPDOWN_SLOTS))
			p->slots = i;
	probe_topdown(p, claims);
	for (size_t i = 0; i < events->n; i++) {
		const struct ws_event *ev = &events->v[i];
		struct perf_event_attr a;
		char *reason = NULL;
		int fd;

		if (claims[i].claimed || ev->kind != WS_EVENT_PERF || i == p->slots || is_topdown_metric(p, i))
			continue;
		a = ev->attr;
		a.disabled = 1;
		a.inherit = 1;
		if (ws_perf_kernel_only(&a) && a.exclude_kernel) {
			/* ":u" on an event the kernel counts opens, and reads 0 whatever the command does. */
			free(claims[i].reason);
			claims[i].reason = xasprintf("counted in the kernel, so user space only (:u) counts nothing: "
						     "drop the :u");
			continue;
		}
		if (p->ntypes && per_core_type(&a)) {
			fd = probe_core_types(p, i, &a);
		} else {
			/* Events the scheduler counts, in the kernel: user space only would read 0, a lie. */
			fd = probe_open(p, ev->name, &a, !ws_perf_kernel_only(&a));
			if (fd >= 0 && core_type_of(p, &a) >= 0)
				p->cover[i] = 1u << core_type_of(p, &a);
		}
		/* Where paranoid is not what forbids it (SELinux, seccomp), ws_perf_triage() below says what does. */
		if (fd < 0 && (fd == -EACCES || fd == -EPERM) && !a.exclude_kernel &&
		    (ws_perf_kernel_only(&a) || a.exclude_user) && ws_perf_paranoid() >= 2) {
			free(claims[i].reason);
			claims[i].reason = xasprintf("%s in the kernel, which perf_event_paranoid=%d forbids here: "
						     "sudo sysctl -w kernel.perf_event_paranoid=1",
						     a.exclude_user ? "counts only" : "counted", ws_perf_paranoid());
			continue;
		}
		if (fd >= 0) {
			close(fd);
			keep_switched_on(p, i, &a);
			p->mine[i] = true;
			p->attr[i] = a;
			claims[i].claimed = true;
			continue;
		}
		switch (ws_perf_triage(-fd, &a, &reason)) {
		case WS_PERF_FATAL:
			ws_error("cannot open '%s': %s", ev->name, reason);
			free(reason);
			return fd;
		case WS_PERF_DENIED:
			ws_log(WS_LOG_WARN, "'%s': %s", ev->name, reason);
			/* fall through */
		default:
			free(claims[i].reason);
			claims[i].reason = reason;
			break;
		}
	}
	tell_one_core_type(p);
	layout(p);
	choose_marker_events(p);
	return 0;
}

static void close_all(struct perf_priv *p)
{
	for (size_t i = 0; i < p->nc; i++) {
		if (p->c[i].fd >= 0)
			close(p->c[i].fd);
		p->c[i].fd = -1;
	}
}

/* Split each group that was never scheduled into two; a group of one stays (it will say "not counted"). */
static void apply_splits(struct perf_priv *p)
{
	bool any = false;
	int next = 0, prev = -1, members = 0, size = 0, cur = -1;

	for (int g = 0; g < p->ngroups; g++)
		any |= p->split[g];
	if (!any)
		return;
	for (size_t i = 0; i < p->nc; i++) {
		int g = p->c[i].group;

		if (g != prev) {
			prev = g;
			members = 0;
			size = 0;
			for (size_t j = i; j < p->nc && p->c[j].group == g; j++)
				size++;
			cur = next++;
		} else if (p->split[g] && size > 1 && members == (size + 1) / 2) {
			cur = next++;
		}
		members++;
		p->c[i].group = cur;
	}
	ws_log(WS_LOG_DEBUG, "split hardware groups the PMU could not schedule: %d groups now", next);
	p->ngroups = next;
	free(p->split);
	p->split = xcalloc((size_t)p->ngroups + 1, sizeof(*p->split));
}

/*
 * Open every counter on ourselves, disabled, with inherit and enable_on_exec: the child that is spawned
 * next inherits them and the kernel enables them at its exec, so the counts are the child's alone (and
 * its threads' and children's), folded back into our fds when they exit. Nothing of whyslow is counted:
 * our own copies stay disabled, as we never exec.
 */
static int perf_arm(struct ws_backend *be)
{
	struct perf_priv *p = be->priv;
	int leader_fd = -1, leader_group = -1;

	/* A run that never started (exec failed) left its counters open: start clean. */
	close_all(p);
	apply_splits(p);
	for (size_t i = 0; i < p->nc; i++) {
		struct counter *c = &p->c[i];
		struct perf_event_attr a = c->attr;
		const char *name = p->events->v[c->ev].name;
		bool leader = c->group != leader_group;
		char *reason = NULL;

		a.size = sizeof(a);
		a.inherit = 1;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		a.disabled = leader;
		a.enable_on_exec = leader;
		c->fd = ws_perf_open(name, &a, 0, -1, leader ? -1 : leader_fd, PERF_FLAG_FD_CLOEXEC);
		if (c->fd < 0 && !leader && c->fd != -EMFILE && !is_topdown_metric(p, c->ev)) {
			/*
			 * x86 checks a group's counter constraints as each member joins, and refuses one that
			 * cannot fit (EINVAL): count it alone this run, and split the group for the next.
			 */
			a.disabled = 1;
			a.enable_on_exec = 1;
			c->fd = ws_perf_open(name, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
			if (c->fd >= 0) {
				p->split[c->group] = true;
				ws_log(WS_LOG_DEBUG, "'%s' did not fit its group; counted alone", name);
			}
		}
		if (c->fd < 0 && c->tidx >= 0 && (p->cover[c->ev] & ~(1u << c->tidx)) && !fatal_errno(c->fd)) {
			/*
			 * A hybrid CPU's other core type counts the event too: this run counts it there only
			 * (collect() does not scale it to the rest). A group whose leader this was is led by its
			 * next member.
			 */
			ws_perf_triage(-c->fd, &a, &reason);
			ws_log(p->warned_copy ? WS_LOG_DEBUG : WS_LOG_WARN, "cannot open '%s' on %s for this run (%s): "
			       "counted on the other core type only", name, p->type_names[c->tidx], reason);
			p->warned_copy = true;
			free(reason);
			continue;
		}
		if (c->fd < 0) {
			int err = c->fd;

			ws_perf_triage(-err, &a, &reason);
			ws_error("cannot open '%s' on the command: %s", name, reason);
			free(reason);
			close_all(p);
			return err;
		}
		if (leader) {
			leader_fd = c->fd;
			leader_group = c->group;
		}
	}
	return 0;
}

static int perf_collect(struct ws_backend *be, const struct ws_run_outcome *o, struct ws_variant *v, size_t run)
{
	struct perf_priv *p = be->priv;
	size_t n = p->events->n;
	double *sum = p->sum, *share = p->share, *enabled = p->enabled;
	bool *counted = p->counted;
	unsigned *opened = p->opened;
	int ret = 0;

	/*
	 * A group enabled but never scheduled did not fit, and is split for the next run, only where the run
	 * shows that the kernel rotated the groups (one ran part of the time) for long enough that every group
	 * had its turn. The kernel rotates a task's groups once per perf_event_mux_interval_ms while that task
	 * runs, and a child inherits its parent's order: in a quick command, or in each of many quick processes
	 * (a shell script, make), the later groups wait every time, however small. Splitting them then would
	 * halve every group of such a command, run after run, and events meant to be counted together would be
	 * counted apart. An inherited counter's enabled time adds up its tasks', so the run's wall time bounds
	 * it too; and a run in which another perf user held a counter says nothing of the group's size either.
	 */
	double turns_ns = (double)(p->ngroups + 1) * ws_perf_mux_interval_ms() * 1e6;
	double wall_ns = o ? o->wall * 1e9 : 0;
	bool rotated = false, *starved = xcalloc((size_t)p->ngroups + 1, sizeof(*starved));

	if (p->nsums < n + 1) {
		p->nsums = n + 1;
		p->sum = sum = xrealloc(p->sum, p->nsums * sizeof(*sum));
		p->share = share = xrealloc(p->share, p->nsums * sizeof(*share));
		p->enabled = enabled = xrealloc(p->enabled, p->nsums * sizeof(*enabled));
		p->counted = counted = xrealloc(p->counted, p->nsums * sizeof(*counted));
		p->opened = opened = xrealloc(p->opened, p->nsums * sizeof(*opened));
	}
	memset(sum, 0, (n + 1) * sizeof(*sum));
	memset(share, 0, (n + 1) * sizeof(*share));
	memset(enabled, 0, (n + 1) * sizeof(*enabled));
	memset(counted, 0, (n + 1) * sizeof(*counted));
	memset(opened, 0, (n + 1) * sizeof(*opened));
	for (size_t i = 0; i < p->nc; i++) {
		struct counter *c = &p->c[i];
		const char *name = p->events->v[c->ev].name;
		uint64_t val[3];
		double value, sh;

		if (c->fd < 0)
			continue;
		if ((ret = ws_perf_read(name, c->fd, val)) < 0) {
			ws_error("cannot read '%s': %s", name, strerror(-ret));
			break;
		}
		if (c->tidx >= 0) {
			/*
			 * One counter per core type: each is enabled for the whole run but runs only while the
			 * task is on its type, so the running times add up to the enabled time, and scaling
			 * each alone would count the other type's time twice. Sum the raw counts and the
			 * running times; scale the sum only by what is missing from the whole (multiplexing).
			 */
			opened[c->ev] |= 1u << c->tidx;
			if (val[2] > 0) {
				sum[c->ev] += (double)val[0];
				counted[c->ev] = true;
			}
			share[c->ev] += (double)val[2];
			if ((double)val[1] > enabled[c->ev])
				enabled[c->ev] = (double)val[1];
			continue;
		}
		if (val[2] > 0 && val[2] < val[1] && c->attr.type != PERF_TYPE_SOFTWARE)
			rotated = true;
		if (ws_perf_scale(val[0], val[1], val[2], &value, &sh)) {
			sum[c->ev] += value;
			counted[c->ev] = true;
		} else if (val[1] > 0 && c->ev != p->slots && !is_topdown_metric(p, c->ev) &&
			   (double)val[1] >= turns_ns && wall_ns >= turns_ns) {
			/* Never the group "slots" leads: its metric events open only with their leader. */
			starved[c->group] = true;
		}
		share[c->ev] = sh;
		enabled[c->ev] = 1.0;
	}
	for (int g = 0; rotated && g < p->ngroups; g++)
		p->split[g] |= starved[g];
	free(starved);
	close_all(p);
	if (!ret && be->opts.regions && p->outdir)
		ret = collect_regions(p, v, run);
	if (!ret && p->prof)
		ret = collect_profile(p, v, run);
	for (size_t i = 0; i < n && !ret; i++) {
		double sh;

		if (!p->mine[i])
			continue;
		sh = enabled[i] > 0 ? share[i] / enabled[i] : 0.0;
		if (opened[i] && opened[i] != all_core_types(p)) {
			/*
			 * Counted on one core type: its counter does not run while the task is on the other, which
			 * reads as multiplexing but is not. The count is that type's, exact where it was not also
			 * multiplexed; scaled, it would be extrapolated over the other type's time (setup said so).
			 */
			sh = -1;
		} else if (opened[i]) {
			if (sh > 1.0)
				sh = 1.0;
			else if (sh > 0)
				sum[i] /= sh; /* multiplexed: the part of the run no type counted */
		}
		/* A count that never ran is "not counted" (NAN), never 0. */
		ws_push_at(&v->metrics, p->events->v[i].name,
			   opened[i] && opened[i] != all_core_types(p) ? WS_M_CORE_SUBSET : 0, run,
			   counted[i] ? sum[i] : NAN, counted[i] ? sh : 0.0, NAN);
	}
	return ret;
}

static void perf_teardown(struct ws_backend *be)
{
	struct perf_priv *p = be->priv;

	if (!p)
		return;
	close_all(p);
	remove_outdir(p);
	if (p->prof)
		ws_profile_close(p->prof);
	if (p->syms)
		ws_symbols_free(p->syms);
	free(p->program);
	for (size_t i = 0; i < p->ncgs; i++)
		free(p->cgs[i].path);
	free(p->cgs);
	free(p->cpus);
	ws_group_fills_release(&p->fills);
	for (size_t i = 0; i < p->nkeep; i++)
		if (p->keep[i] >= 0)
			close(p->keep[i]);
	free(p->keep);
	free(p->sum);
	free(p->share);
	free(p->enabled);
	free(p->counted);
	free(p->opened);
	free(p->cover);
	free(p->c);
	free(p->mine);
	free(p->attr);
	free(p->split);
	free(p);
	be->priv = NULL;
}

static bool perf_could_count(const struct ws_event *ev)
{
	return ev->kind == WS_EVENT_PERF;
}

const struct ws_backend_ops ws_backend_perf = {
	.name = "perf",
	.summary = "run the command natively and count with perf_event_open, from its exec, children included",
	.traits = WS_BE_NATIVE,
	.running_where = "",
	.could_count = perf_could_count,
	.setup = perf_setup,
	.prepare = perf_prepare,
	.arm = perf_arm,
	.wants_pid = perf_wants_pid,
	.attach = perf_attach,
	.poll = perf_poll,
	.collect = perf_collect,
	.teardown = perf_teardown,
};
