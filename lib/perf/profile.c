/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile.c - per-CPU inherited sampling events, their rings, mmap tracking and per-function aggregation. */
#include "perf/profile.h"
#include "perf/callchain.h"
#include "backend/runner.h"
#include "core/log.h"
#include "core/util.h"
#include "event/pfm.h"
#include "perf/perf.h"
#include "symbols/symbols.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * Every record carries the same trailer, so that one parser serves both events: which event (IDENTIFIER,
 * first in a sample and last in other records, so found without knowing the record), pid/tid, time for
 * ordering across rings, and the period so that a sample weighs what it stands for (the first samples of a
 * frequency-mode hardware event have tiny periods while the kernel adapts).
 */
#define SAMPLE_TYPE \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)
/* struct sample_id at the end of non-sample records: { pid, tid } { time } { identifier }. */
#define SAMPLE_ID_SIZE 24
/* Free space below which a ring counts as full: more than any sample or task record needs. */
#define RING_FULL_SLACK 512

/* ------------------------------------------------------------------------------------------------------ */
/* Event names                                                                                             */

struct evname {
	const char *name;
	uint32_t type;
	uint64_t config;
};

#define HWC(cache, op, result) \
	(PERF_COUNT_HW_CACHE_##cache | (PERF_COUNT_HW_CACHE_OP_##op << 8) | \
	 (PERF_COUNT_HW_CACHE_RESULT_##result << 16))

/* perf's generic names: what `perf list` shows as Hardware, Hardware cache and Software events. */
static const struct evname evnames[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "L1-dcache-loads", PERF_TYPE_HW_CACHE, HWC(L1D, READ, ACCESS) },
	{ "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, HWC(L1D, READ, MISS) },
	{ "L1-dcache-stores", PERF_TYPE_HW_CACHE, HWC(L1D, WRITE, ACCESS) },
	{ "L1-dcache-store-misses", PERF_TYPE_HW_CACHE, HWC(L1D, WRITE, MISS) },
	{ "L1-icache-loads", PERF_TYPE_HW_CACHE, HWC(L1I, READ, ACCESS) },
	{ "L1-icache-load-misses", PERF_TYPE_HW_CACHE, HWC(L1I, READ, MISS) },
	{ "LLC-loads", PERF_TYPE_HW_CACHE, HWC(LL, READ, ACCESS) },
	{ "LLC-load-misses", PERF_TYPE_HW_CACHE, HWC(LL, READ, MISS) },
	{ "LLC-stores", PERF_TYPE_HW_CACHE, HWC(LL, WRITE, ACCESS) },
	{ "LLC-store-misses", PERF_TYPE_HW_CACHE, HWC(LL, WRITE, MISS) },
	{ "dTLB-loads", PERF_TYPE_HW_CACHE, HWC(DTLB, READ, ACCESS) },
	{ "dTLB-load-misses", PERF_TYPE_HW_CACHE, HWC(DTLB, READ, MISS) },
	{ "iTLB-loads", PERF_TYPE_HW_CACHE, HWC(ITLB, READ, ACCESS) },
	{ "iTLB-load-misses", PERF_TYPE_HW_CACHE, HWC(ITLB, READ, MISS) },
	{ "branch-loads", PERF_TYPE_HW_CACHE, HWC(BPU, READ, ACCESS) },
	{ "branch-load-misses", PERF_TYPE_HW_CACHE, HWC(BPU, READ, MISS) },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
};

/*
 * Fill type and config of `attr` for `name`: the generic names, then anything libpfm4 can encode.
 * The table above stays rather than ws_event_parse(): that one logs an error for an unknown name, takes
 * metric names and :u/:k modifiers, and hands libpfm4 only names with "::", so "INST_RETIRED:ANY_P" would
 * stop working here; its alias-aware lookup of the generic names is private to event.c.
 */
static int event_resolve(const char *name, struct perf_event_attr *attr)
{
	struct perf_event_attr pa;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(evnames); i++) {
		if (!strcmp(evnames[i].name, name)) {
			attr->type = evnames[i].type;
			attr->config = evnames[i].config;
			return 0;
		}
	}
	if (ws_pfm_encode(name, true, true, &pa, sizeof(pa), NULL) < 0)
		return -EINVAL;
	attr->type = pa.type;
	attr->config = pa.config;
	attr->config1 = pa.config1;
	attr->config2 = pa.config2;
	/* Its :u or :k, added to what the caller excludes (the kernel, where the profile may not see it). */
	attr->exclude_user |= pa.exclude_user;
	attr->exclude_kernel |= pa.exclude_kernel;
	attr->exclude_hv |= pa.exclude_hv;
	return 0;
}

int ws_profile_event_check(const char *name)
{
	struct perf_event_attr attr;
	const char *best[3] = { NULL, NULL, NULL };
	size_t dist[3] = { SIZE_MAX, SIZE_MAX, SIZE_MAX };
	size_t i, j, limit;

	memset(&attr, 0, sizeof(attr));
	if (event_resolve(name, &attr) == 0)
		return 0;
	/* "did you mean": the three closest generic names within a third of the name's length. */
	limit = strlen(name) / 3 + 1;
	for (i = 0; i < ARRAY_SIZE(evnames); i++) {
		size_t d = ws_edit_distance(name, evnames[i].name);

		if (d > limit)
			continue;
		for (j = 0; j < 3; j++) {
			if (d < dist[j]) {
				memmove(&dist[j + 1], &dist[j], (2 - j) * sizeof(dist[0]));
				memmove(&best[j + 1], &best[j], (2 - j) * sizeof(best[0]));
				dist[j] = d;
				best[j] = evnames[i].name;
				break;
			}
		}
	}
	if (best[0])
		ws_log(WS_LOG_ERROR, "unknown event '%s'; did you mean %s%s%s%s%s?", name, best[0],
		       best[1] ? ", " : "", best[1] ? best[1] : "", best[2] ? ", " : "", best[2] ? best[2] : "");
	else
		ws_log(WS_LOG_ERROR, "unknown event '%s'; `whyslow list` shows the events this machine offers", name);
	return -EINVAL;
}

/* ------------------------------------------------------------------------------------------------------ */
/* State                                                                                                   */

/* One CPU's ring: the first event owns it, the second event's output is redirected into it. */
struct ring {
	int cpu;
	int fd;
	int extra_fd;
	void *base; /* the control page, then the data pages */
	size_t map_len;
	unsigned char *data;
	uint64_t data_size; /* a power of two */
	/*
	 * A read found the ring (nearly) full and no PERF_RECORD_LOST has come since. The kernel reports a loss
	 * only at the ring's next successful write, so a ring that filled up just before the task exited loses
	 * records that no LOST record will ever count.
	 */
	bool suspect_full;
};

/* An executable mapping of one process: [start, end) maps object `obj` from file offset pgoff. */
struct map {
	uint64_t start, end, pgoff;
	uint32_t obj;
};

struct proc {
	pid_t pid; /* 0: free slot (no user process has pid 0) */
	struct map *maps; /* sorted by start, never overlapping */
	size_t nr;
	unsigned gen;     /* bumped when the maps change, so that the DWARF unwinder is made anew */
	unsigned unw_gen;
	struct ws_cc_unwinder *unw;
};

enum { OBJ_KERNEL, OBJ_UNKNOWN, OBJ_FIRST_MAPPED };

struct object {
	char *path;
	bool file;            /* a path we can open, not "[vdso]" or "//anon" */
	bool looked_up;
	struct ws_symobj *so; /* NULL when it could not be read */
	uint64_t unknown_period;
};

enum pev_kind { PEV_SAMPLE, PEV_MMAP, PEV_EXEC, PEV_FORK };

/* A record taken out of a ring, waiting to be processed in time order. */
struct pev {
	uint64_t time;
	uint64_t seq; /* read order: keeps the sort stable for records with the same time */
	uint64_t a, b, c; /* sample: ip, period; mmap: start, len, pgoff */
	uint32_t pid, ppid;
	uint32_t obj;
	uint8_t kind;
	uint8_t cpumode;
	uint8_t which; /* sample: 0 first event, 1 second event */
	struct ws_cc_sample *cc; /* the sample's chain, registers and stack, copied out of the ring; or NULL */
};

/* One frame of a recorded stack: an object and a file offset (0 where the object is not symbolized). */
struct frame {
	uint32_t obj;
	uint64_t addr;
};

/* A distinct stack of frames, leaf first, and the first event's samples taken with it. */
struct stk {
	struct frame *f;
	uint32_t n;
	uint64_t hash;
	uint64_t samples, period;
};

/* Samples summed per (object, file offset); addr is 0 for objects that are not symbolized. */
struct agg {
	uint32_t obj; /* UINT32_MAX: free slot */
	uint64_t addr;
	uint64_t samples[2], period[2];
};

struct ws_profile {
	struct ws_profile_opts opts;
	pid_t pid;
	char *event;
	char *extra_event;
	unsigned freq;

	struct ring *rings;
	size_t nr_rings;
	uint64_t *ids[2]; /* sample ids of the first and second event, one per CPU */
	size_t nr_ids[2];
	uint64_t last_id; /* the id matched last, and which event it was (-1: none yet) */
	int last_which;
	unsigned char *scratch; /* a record that wraps around the end of its ring, made contiguous */

	struct pev *pending;
	size_t nr_pending, alloc_pending;
	uint64_t seq;
	uint64_t seen_max;  /* the latest time read so far */
	uint64_t flush_max; /* the latest time read by the end of the previous poll */

	struct object *objs;
	size_t nr_objs, alloc_objs;
	struct proc *procs; /* open addressing on pid */
	size_t procs_cap, procs_nr;
	struct agg *agg; /* open addressing on (obj, addr) */
	size_t agg_cap, agg_nr;

	struct stk *stks;   /* distinct stacks (call chains on) */
	size_t nr_stks, alloc_stks;
	size_t *stk_slots;  /* open addressing: index + 1 into stks, 0 free */
	size_t stk_cap;
	uint64_t chain_samples;

	bool exclude_kernel; /* decided by the first event's open, kept for the second */
	/* A hybrid CPU's core PMUs and their CPUs (on_cpu_pmu()); ntypes 0 elsewhere. */
	unsigned types[WS_PERF_MAX_CORE_TYPES];
	const char *type_names[WS_PERF_MAX_CORE_TYPES];
	cpu_set_t type_cpus[WS_PERF_MAX_CORE_TYPES];
	int ntypes;
	unsigned extra_skipped;  /* the core types (bit t: types[t]) whose CPUs the second event is not on */
	int pmu;             /* 1: a hardware first event opened; 0: cycles was unsupported; -1: not known */
	uint64_t lost, throttled, unknown_ids, bad_records;
	struct ws_symbols *symbols;
	bool own_symbols;
	bool finished;
};

static uint64_t mix64(uint64_t x)
{
	/* splitmix64's finalizer: good enough spread for addresses that differ in a few low bits. */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* ------------------------------------------------------------------------------------------------------ */
/* Objects, processes and their maps                                                                       */

static uint32_t object_intern(struct ws_profile *p, const char *path)
{
	static const char deleted[] = " (deleted)";
	size_t len = strlen(path), i;
	char *name;

	/* A binary replaced while it ran: the cache may still hold it, and the name should not change. */
	if (len > sizeof(deleted) - 1 && !strcmp(path + len - (sizeof(deleted) - 1), deleted))
		len -= sizeof(deleted) - 1;
	for (i = OBJ_FIRST_MAPPED; i < p->nr_objs; i++)
		if (!strncmp(p->objs[i].path, path, len) && p->objs[i].path[len] == '\0')
			return (uint32_t)i;
	name = xstrndup(path, len);
	WS_ALLOC_GROW(p->objs, p->nr_objs + 1, p->alloc_objs);
	memset(&p->objs[p->nr_objs], 0, sizeof(p->objs[0]));
	p->objs[p->nr_objs].path = name;
	p->objs[p->nr_objs].file = name[0] == '/';
	return (uint32_t)p->nr_objs++;
}

static struct proc *proc_slot(struct ws_profile *p, pid_t pid)
{
	size_t mask = p->procs_cap - 1, i = mix64((uint64_t)pid) & mask;

	while (p->procs[i].pid && p->procs[i].pid != pid)
		i = (i + 1) & mask;
	return &p->procs[i];
}

static struct proc *proc_find(struct ws_profile *p, pid_t pid)
{
	struct proc *pr;

	if (!p->procs_cap)
		return NULL;
	pr = proc_slot(p, pid);
	return pr->pid ? pr : NULL;
}

/* The process `pid`, created empty when it is new. */
static struct proc *proc_get(struct ws_profile *p, pid_t pid)
{
	struct proc *pr;

	if ((p->procs_nr + 1) * 2 > p->procs_cap) {
		struct proc *old = p->procs;
		size_t i, old_cap = p->procs_cap;

		p->procs_cap = old_cap ? old_cap * 2 : 64;
		p->procs = xcalloc(p->procs_cap, sizeof(*p->procs));
		for (i = 0; i < old_cap; i++)
			if (old[i].pid)
				*proc_slot(p, old[i].pid) = old[i];
		free(old);
	}
	pr = proc_slot(p, pid);
	if (!pr->pid) {
		pr->pid = pid;
		p->procs_nr++;
	}
	return pr;
}

/*
 * Add a mapping, replacing whatever it overlaps, as the kernel does (an mmap over an old range unmaps it).
 * No munmap record exists, so a later mapping is the only way an old one goes away.
 */
static void maps_insert(struct proc *pr, uint64_t start, uint64_t end, uint64_t pgoff, uint32_t obj)
{
	struct map *out = xmalloc((pr->nr + 2) * sizeof(*out));
	size_t i, n = 0;
	bool placed = false;

	for (i = 0; i < pr->nr; i++) {
		struct map m = pr->maps[i];

		if (m.end <= start || m.start >= end) {
			if (!placed && m.start >= end) {
				out[n++] = (struct map){ start, end, pgoff, obj };
				placed = true;
			}
			out[n++] = m;
			continue;
		}
		/* Overlap: keep the parts of the old mapping left and right of the new one. */
		if (m.start < start)
			out[n++] = (struct map){ m.start, start, m.pgoff, m.obj };
		if (!placed) {
			out[n++] = (struct map){ start, end, pgoff, obj };
			placed = true;
		}
		if (m.end > end)
			out[n++] = (struct map){ end, m.end, m.pgoff + (end - m.start), m.obj };
	}
	if (!placed)
		out[n++] = (struct map){ start, end, pgoff, obj };
	free(pr->maps);
	pr->maps = out;
	pr->nr = n;
	pr->gen++;
}

static const struct map *maps_find(const struct proc *pr, uint64_t ip)
{
	size_t lo = 0, hi = pr->nr;

	/* The last mapping that starts at or below ip. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pr->maps[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || ip >= pr->maps[lo - 1].end)
		return NULL;
	return &pr->maps[lo - 1];
}

/* ------------------------------------------------------------------------------------------------------ */
/* Aggregation                                                                                             */

static struct agg *agg_slot(struct agg *tab, size_t cap, uint32_t obj, uint64_t addr)
{
	size_t mask = cap - 1, i = mix64(addr ^ ((uint64_t)obj << 40)) & mask;

	while (tab[i].obj != UINT32_MAX && (tab[i].obj != obj || tab[i].addr != addr))
		i = (i + 1) & mask;
	return &tab[i];
}

static void agg_add(struct ws_profile *p, uint32_t obj, uint64_t addr, unsigned which, uint64_t period)
{
	struct agg *a;

	if ((p->agg_nr + 1) * 2 > p->agg_cap) {
		struct agg *old = p->agg;
		size_t i, old_cap = p->agg_cap;

		p->agg_cap = old_cap ? old_cap * 2 : 1024;
		p->agg = xmalloc(p->agg_cap * sizeof(*p->agg));
		for (i = 0; i < p->agg_cap; i++)
			p->agg[i].obj = UINT32_MAX;
		for (i = 0; i < old_cap; i++)
			if (old[i].obj != UINT32_MAX)
				*agg_slot(p->agg, p->agg_cap, old[i].obj, old[i].addr) = old[i];
		free(old);
	}
	a = agg_slot(p->agg, p->agg_cap, obj, addr);
	if (a->obj == UINT32_MAX) {
		memset(a, 0, sizeof(*a));
		a->obj = obj;
		a->addr = addr;
		p->agg_nr++;
	}
	a->samples[which]++;
	a->period[which] += period;
}

static struct ws_symobj *object_symbols(struct ws_profile *p, uint32_t obj);

static uint64_t frames_hash(const struct frame *f, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i < n; i++)
		h = mix64(h ^ f[i].addr ^ ((uint64_t)f[i].obj << 48)) + i;
	return h;
}

/* Field by field, not memcmp(): the padding after `obj` is whatever the stack held (memcheck). */
static bool frames_equal(const struct frame *a, const struct frame *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].obj != b[i].obj || a[i].addr != b[i].addr)
			return false;
	return true;
}

static size_t *stk_slot(struct ws_profile *p, const struct frame *f, size_t n, uint64_t h)
{
	size_t mask = p->stk_cap - 1, i = h & mask;

	while (p->stk_slots[i]) {
		const struct stk *k = &p->stks[p->stk_slots[i] - 1];

		if (k->hash == h && k->n == n && frames_equal(k->f, f, n))
			break;
		i = (i + 1) & mask;
	}
	return &p->stk_slots[i];
}

/* Count one sample of the first event with stack `f` (leaf first). */
static void stack_add(struct ws_profile *p, const struct frame *f, size_t n, uint64_t period)
{
	uint64_t h = frames_hash(f, n);
	size_t *slot;

	if ((p->nr_stks + 1) * 2 > p->stk_cap) {
		p->stk_cap = p->stk_cap ? p->stk_cap * 2 : 1024;
		free(p->stk_slots);
		p->stk_slots = xcalloc(p->stk_cap, sizeof(*p->stk_slots));
		for (size_t i = 0; i < p->nr_stks; i++)
			*stk_slot(p, p->stks[i].f, p->stks[i].n, p->stks[i].hash) = i + 1;
	}
	slot = stk_slot(p, f, n, h);
	if (!*slot) {
		WS_ALLOC_GROW(p->stks, p->nr_stks + 1, p->alloc_stks);
		p->stks[p->nr_stks] = (struct stk){ xmalloc(n * sizeof(*f)), (uint32_t)n, h, 0, 0 };
		memcpy(p->stks[p->nr_stks].f, f, n * sizeof(*f));
		*slot = ++p->nr_stks;
	}
	p->stks[*slot - 1].samples++;
	p->stks[*slot - 1].period += period;
	if (n > 1)
		p->chain_samples++;
}

/* A user address of process `pr` as a frame: its object and file offset. */
static struct frame frame_at(struct ws_profile *p, const struct proc *pr, uint64_t ip)
{
	const struct map *m = pr ? maps_find(pr, ip) : NULL;
	struct frame f = { OBJ_UNKNOWN, 0 };

	if (m) {
		f.obj = m->obj;
		if (p->objs[f.obj].file)
			f.addr = ws_map_file_offset(m->start, m->pgoff, ip);
	}
	return f;
}

/* The DWARF unwinder of `pr`, made anew when its mappings changed since; NULL when none can be made. */
static struct ws_cc_unwinder *unwinder(struct ws_profile *p, struct proc *pr)
{
	struct ws_cc_map *maps;
	size_t n = 0;

	if (pr->unw && pr->unw_gen == pr->gen)
		return pr->unw;
	ws_cc_unwinder_free(pr->unw);
	maps = xcalloc(pr->nr + 1, sizeof(*maps));
	for (size_t i = 0; i < pr->nr; i++) {
		const struct map *m = &pr->maps[i];

		if (!p->objs[m->obj].file)
			continue;
		maps[n++] = (struct ws_cc_map){ m->start, m->end, m->pgoff, p->objs[m->obj].path,
						object_symbols(p, m->obj) };
	}
	pr->unw = ws_cc_unwinder_new(pr->pid, maps, n);
	pr->unw_gen = pr->gen;
	free(maps);
	return pr->unw;
}

/*
 * A first-event sample's stack, leaf first: the frames of its chain, each return address taken one byte
 * back so that it names the call, not what follows it (a call that ends a function would name the next
 * one). A sample in the kernel is one [kernel] frame on top of its process's user frames.
 */
static void sample_stack(struct ws_profile *p, const struct pev *e, struct frame leaf)
{
	struct frame f[WS_CC_MAX_FRAMES + 1];
	uint64_t pcs[WS_CC_MAX_FRAMES];
	struct proc *pr = proc_find(p, (pid_t)e->pid);
	size_t n = 0, npcs = 0, k = 0;
	bool kernel = leaf.obj == OBJ_KERNEL;

	if (p->opts.call_graph == WS_CALL_GRAPH_FP) {
		struct frame user = { OBJ_UNKNOWN, 0 };
		struct ws_symobj *so = NULL;
		uint64_t vaddr = 0;

		/* The frameless-leaf fix needs the leaf's CFI: the user ip's object, from the registers. */
		if (e->cc->have_regs) {
			user = frame_at(p, pr, e->cc->regs[WS_CC_REG_IP]);
			so = user.addr ? object_symbols(p, user.obj) : NULL;
			if (so && ws_symobj_vaddr(so, user.addr, &vaddr))
				so = NULL;
		}
		npcs = ws_cc_fp(e->cc, so, vaddr, pcs, WS_CC_MAX_FRAMES);
	} else if (p->opts.call_graph == WS_CALL_GRAPH_DWARF && pr) {
		npcs = ws_cc_dwarf(unwinder(p, pr), e->cc, pcs, WS_CC_MAX_FRAMES);
	}
	if (kernel)
		f[n++] = leaf;
	/* A user sample's own frame is its ip, already in `leaf`: the chain's first entry is that ip. */
	for (k = 0; k < npcs && n < WS_CC_MAX_FRAMES; k++) {
		if (!kernel && k == 0) {
			f[n++] = leaf;
			continue;
		}
		f[n++] = frame_at(p, pr, kernel || k ? pcs[k] - 1 : pcs[k]);
	}
	if (!n)
		f[n++] = leaf;
	stack_add(p, f, n, e->b);
}

static void process_sample(struct ws_profile *p, const struct pev *e)
{
	const struct proc *pr;
	const struct map *m;
	uint32_t obj = OBJ_UNKNOWN;
	uint64_t addr = 0;

	switch (e->cpumode) {
	case PERF_RECORD_MISC_KERNEL:
	case PERF_RECORD_MISC_HYPERVISOR:
	case PERF_RECORD_MISC_GUEST_KERNEL:
		obj = OBJ_KERNEL;
		break;
	default:
		/* User mode, or a mode the kernel did not say: try the maps; [unknown] when none holds it. */
		pr = proc_find(p, (pid_t)e->pid);
		m = pr ? maps_find(pr, e->a) : NULL;
		if (m) {
			obj = m->obj;
			if (p->objs[obj].file)
				addr = ws_map_file_offset(m->start, m->pgoff, e->a);
		}
		break;
	}
	agg_add(p, obj, addr, e->which, e->b);
	if (e->cc && e->which == 0)
		sample_stack(p, e, (struct frame){ obj, addr });
}

static void process(struct ws_profile *p, const struct pev *e)
{
	struct proc *pr, *parent;

	switch (e->kind) {
	case PEV_SAMPLE:
		process_sample(p, e);
		break;
	case PEV_MMAP:
		if (e->b)
			maps_insert(proc_get(p, (pid_t)e->pid), e->a, e->a + e->b, e->c, e->obj);
		break;
	case PEV_EXEC:
		/* exec replaced the address space: the mappings that follow are the new program's. */
		pr = proc_get(p, (pid_t)e->pid);
		pr->nr = 0;
		pr->gen++;
		break;
	case PEV_FORK:
		/* A new thread shares its process's maps; a new process starts with a copy of its parent's. */
		if (e->pid == e->ppid)
			break;
		pr = proc_get(p, (pid_t)e->pid);
		parent = proc_find(p, (pid_t)e->ppid);
		/* proc_get() may have moved the table: look the parent up after it. */
		pr->nr = 0;
		pr->gen++;
		if (parent && parent->nr) {
			pr->maps = xrealloc(pr->maps, parent->nr * sizeof(*pr->maps));
			memcpy(pr->maps, parent->maps, parent->nr * sizeof(*pr->maps));
			pr->nr = parent->nr;
		}
		break;
	}
}

static int pev_cmp(const void *a, const void *b)
{
	const struct pev *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Process, in time order, the records no later than `limit`, keeping the rest for the next round. Rings are
 * per CPU, so a process's mmap can sit in one ring while its first samples sit in another; perf's rule makes
 * this safe: once every ring has been read again, nothing older than the latest record of the previous round
 * can still arrive.
 */
static void flush(struct ws_profile *p, uint64_t limit)
{
	size_t i, n;

	if (!p->nr_pending)
		return;
	qsort(p->pending, p->nr_pending, sizeof(*p->pending), pev_cmp);
	for (n = 0; n < p->nr_pending && p->pending[n].time <= limit; n++) {
		process(p, &p->pending[n]);
		free(p->pending[n].cc);
	}
	for (i = n; i < p->nr_pending; i++)
		p->pending[i - n] = p->pending[i];
	p->nr_pending -= n;
}

/* ------------------------------------------------------------------------------------------------------ */
/* Reading the rings                                                                                       */

static struct pev *pev_new(struct ws_profile *p, uint64_t time)
{
	struct pev *e;

	WS_ALLOC_GROW(p->pending, p->nr_pending + 1, p->alloc_pending);
	e = &p->pending[p->nr_pending++];
	memset(e, 0, sizeof(*e));
	e->time = time;
	e->seq = p->seq++;
	if (time > p->seen_max)
		p->seen_max = time;
	return e;
}

static int which_event(struct ws_profile *p, uint64_t id)
{
	size_t w, i;

	/* Consecutive samples mostly come from the same CPU's event: a hit here skips the scan of 2 x CPUs. */
	if (p->last_which >= 0 && id == p->last_id)
		return p->last_which;
	for (w = 0; w < 2; w++) {
		for (i = 0; i < p->nr_ids[w]; i++) {
			if (p->ids[w][i] == id) {
				p->last_id = id;
				p->last_which = (int)w;
				return (int)w;
			}
		}
	}
	return -1;
}

/* The registers a sample's sample_regs_user asked for. */
static uint64_t regs_mask(const struct ws_profile *p)
{
	switch (p->opts.call_graph) {
	case WS_CALL_GRAPH_FP: return WS_CC_FP_REGS;
	case WS_CALL_GRAPH_DWARF: return WS_CC_DWARF_REGS;
	default: return 0;
	}
}

/*
 * The call-chain part of a first-event sample, from `b` (after the period) to `end`, copied into one block
 * that lives until the sample is processed: { nr, ips[nr] } (fp), then { abi, regs[] }, then { size,
 * data[size], dyn_size }. NULL when the record is malformed.
 */
static struct ws_cc_sample *sample_chain(struct ws_profile *p, const unsigned char *b, const unsigned char *end)
{
	uint64_t nips = 0, mask = regs_mask(p), regs[WS_CC_NR_REGS] = { 0 }, abi, size, dyn = 0;
	const unsigned char *ips = NULL, *stack = NULL;
	struct ws_cc_sample *cc;
	unsigned char *blob;

	if (p->opts.call_graph == WS_CALL_GRAPH_FP) {
		if (end - b < 8 || (nips = ws_get64(b)) > (uint64_t)(end - b - 8) / 8)
			return NULL;
		ips = b + 8;
		b += 8 + 8 * nips;
	}
	if (end - b < 8)
		return NULL;
	abi = ws_get64(b);
	b += 8;
	/* abi 0: no user registers (a kernel thread): none follow. */
	for (int r = 0; abi && r < WS_CC_NR_REGS; r++) {
		if (!(mask & (1ULL << r)))
			continue;
		if (end - b < 8)
			return NULL;
		regs[r] = ws_get64(b);
		b += 8;
	}
	if (end - b < 8 || (size = ws_get64(b)) > (uint64_t)(end - b - 8))
		return NULL;
	stack = b + 8;
	if (size) {
		if ((uint64_t)(end - stack) < size + 8)
			return NULL;
		/* dyn_size: how much of the copy the kernel could fill. */
		dyn = ws_get64(stack + size);
		if (dyn > size)
			dyn = size;
	}
	blob = xmalloc(sizeof(*cc) + nips * 8 + dyn);
	cc = (struct ws_cc_sample *)blob;
	memset(cc, 0, sizeof(*cc));
	memcpy(cc->regs, regs, sizeof(regs));
	cc->have_regs = abi != 0;
	cc->nips = nips;
	cc->ips = (const uint64_t *)(blob + sizeof(*cc));
	if (nips)
		memcpy((uint64_t *)cc->ips, ips, nips * 8);
	cc->stack = blob + sizeof(*cc) + nips * 8;
	memcpy((unsigned char *)cc->stack, stack, dyn);
	cc->stack_len = dyn;
	return cc;
}

static void handle_record(struct ws_profile *p, struct ring *r, const unsigned char *rec,
			  const struct perf_event_header *h)
{
	const unsigned char *body = rec + sizeof(*h), *end = rec + h->size;
	size_t len = h->size - sizeof(*h);
	struct pev *e;
	int w;

	switch (h->type) {
	case PERF_RECORD_SAMPLE: {
		/* { identifier } { ip } { pid, tid } { time } { period } and, with call chains, what they need */
		struct ws_cc_sample *cc = NULL;

		if (len < 40)
			goto bad;
		w = which_event(p, ws_get64(body));
		if (w < 0) {
			p->unknown_ids++;
			return;
		}
		if (w == 0 && p->opts.call_graph != WS_CALL_GRAPH_NONE && !(cc = sample_chain(p, body + 40, end)))
			goto bad;
		e = pev_new(p, ws_get64(body + 24));
		e->kind = PEV_SAMPLE;
		e->which = (uint8_t)w;
		e->cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
		e->a = ws_get64(body + 8);
		e->pid = ws_get32(body + 16);
		/* A zero period (never seen, but the ABI allows it) must still count as a sample. */
		e->b = ws_get64(body + 32) ? ws_get64(body + 32) : 1;
		e->cc = cc;
		return;
	}
	case PERF_RECORD_MMAP2: {
		/* pid, tid, addr, len, pgoff, 24 bytes of maj/min/ino or build id, prot, flags, filename, sample_id */
		const unsigned char *fn = body + 64;

		if (len < 64 + SAMPLE_ID_SIZE || !memchr(fn, '\0', (size_t)(end - SAMPLE_ID_SIZE - fn)))
			goto bad;
		e = pev_new(p, ws_get64(end - 16));
		e->kind = PEV_MMAP;
		e->pid = ws_get32(body);
		e->a = ws_get64(body + 8);
		e->b = ws_get64(body + 16);
		e->c = ws_get64(body + 24);
		e->obj = object_intern(p, (const char *)fn);
		return;
	}
	case PERF_RECORD_COMM:
		if (len < 8 + SAMPLE_ID_SIZE)
			goto bad;
		/* A thread renaming itself changes nothing; an exec does. */
		if (!(h->misc & PERF_RECORD_MISC_COMM_EXEC))
			return;
		e = pev_new(p, ws_get64(end - 16));
		e->kind = PEV_EXEC;
		e->pid = ws_get32(body);
		return;
	case PERF_RECORD_FORK:
		/* pid, ppid, tid, ptid, time */
		if (len < 24)
			goto bad;
		e = pev_new(p, ws_get64(body + 16));
		e->kind = PEV_FORK;
		e->pid = ws_get32(body);
		e->ppid = ws_get32(body + 4);
		return;
	case PERF_RECORD_LOST:
		if (len < 16)
			goto bad;
		p->lost += ws_get64(body + 8);
		r->suspect_full = false;
		return;
	case PERF_RECORD_LOST_SAMPLES:
		if (len < 8)
			goto bad;
		p->lost += ws_get64(body);
		return;
	case PERF_RECORD_THROTTLE:
		p->throttled++;
		return;
	default:
		/* EXIT, UNTHROTTLE and whatever a newer kernel adds: nothing to attribute. */
		return;
	}
bad:
	p->bad_records++;
}

static void ring_drain(struct ws_profile *p, struct ring *r)
{
	struct perf_event_mmap_page *pc = r->base;
	/* Acquire: the records before data_head are visible once data_head is (perf_event.h's protocol). */
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pc->data_tail, mask = r->data_size - 1;

	if (r->data_size - (head - tail) < RING_FULL_SLACK)
		r->suspect_full = true;
	while (head - tail >= sizeof(struct perf_event_header)) {
		const unsigned char *rec = r->data + (tail & mask);
		struct perf_event_header h;
		uint64_t at = tail & mask;

		/* Records are 8-byte aligned in a power-of-two ring, so a header never straddles its end. */
		memcpy(&h, rec, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail) {
			/* Cannot happen with a sane kernel; skipping everything is safer than misparsing. */
			p->bad_records++;
			tail = head;
			break;
		}
		if (at + h.size > r->data_size) {
			size_t first = (size_t)(r->data_size - at);

			memcpy(p->scratch, rec, first);
			memcpy(p->scratch + first, r->data, h.size - first);
			rec = p->scratch;
		}
		handle_record(p, r, rec, &h);
		tail += h.size;
	}
	/* Release: our reads of the records are done before the kernel may overwrite them. */
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
}

static void drain_all(struct ws_profile *p)
{
	size_t i;

	for (i = 0; i < p->nr_rings; i++)
		if (p->rings[i].base)
			ring_drain(p, &p->rings[i]);
}

int ws_profile_poll(struct ws_profile *p)
{
	if (p->finished)
		return 0;
	drain_all(p);
	flush(p, p->flush_max);
	p->flush_max = p->seen_max;
	return 0;
}

size_t ws_profile_fds(const struct ws_profile *p, int *fds, size_t max)
{
	size_t i;

	for (i = 0; i < p->nr_rings && i < max; i++)
		fds[i] = p->rings[i].fd;
	return p->nr_rings;
}

/* ------------------------------------------------------------------------------------------------------ */
/* Opening                                                                                                 */

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			       unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

/* The online CPUs from sysfs ("0-3,6,8-9"), or 0..n-1 from sysconf when sysfs is not there. */
size_t ws_profile_online_cpus(int **out)
{
	char *line = ws_read_line("/sys/devices/system/cpu/online");
	size_t n = 0, alloc = 0;
	int *cpus = NULL;
	cpu_set_t set;
	long i;

	if (line && ws_parse_cpu_list(line, &set) == 0) {
		for (i = 0; i < CPU_SETSIZE; i++) {
			if (!CPU_ISSET((int)i, &set))
				continue;
			WS_ALLOC_GROW(cpus, n + 1, alloc);
			cpus[n++] = (int)i;
		}
	}
	free(line);
	if (!n) {
		long nr = sysconf(_SC_NPROCESSORS_ONLN);

		for (i = 0; i < (nr > 0 ? nr : 1); i++) {
			WS_ALLOC_GROW(cpus, n + 1, alloc);
			cpus[n++] = (int)i;
		}
	}
	*out = cpus;
	return n;
}

static unsigned injected_max_rate; /* ws_profile_inject_max_rate(); 0: the kernel's */

void ws_profile_inject_max_rate(unsigned hz)
{
	injected_max_rate = hz;
}

unsigned ws_profile_clip_freq(unsigned freq)
{
	char *s = injected_max_rate ? NULL : ws_read_line("/proc/sys/kernel/perf_event_max_sample_rate");
	long max = injected_max_rate ? (long)injected_max_rate : s ? strtol(s, NULL, 10) : 0;

	free(s);
	if (max > 0 && freq > (unsigned long)max) {
		ws_log(WS_LOG_INFO, "sampling at %ld Hz, not %u: kernel.perf_event_max_sample_rate is %ld", max, freq,
		       max);
		return (unsigned)max;
	}
	return freq;
}

static bool errno_unsupported(int err)
{
	/* What perf_event_open says for an event this machine lacks: no PMU, no such event, not per-task. */
	return err == ENOENT || err == EOPNOTSUPP || err == ENODEV || err == EINVAL || err == ENOSYS;
}

/* kernel.perf_event_paranoid for a message: its value, or "unknown" where it cannot be read. */
static const char *paranoid_str(char *buf, size_t n)
{
	int v = ws_perf_paranoid();

	if (v == INT32_MIN)
		return "unknown";
	snprintf(buf, n, "%d", v);
	return buf;
}

/* Say why an event could not be opened, in one line, and turn errno into what ws_profile_open() returns. */
static int open_error(const struct ws_profile *p, const char *what, int err)
{
	const char *why;
	char level[16];

	switch (err) {
	case EACCES:
	case EPERM:
		ws_log(WS_LOG_ERROR,
		       "cannot sample %s: permission denied (kernel.perf_event_paranoid=%s); run `sysctl -w "
		       "kernel.perf_event_paranoid=1` as root, or give whyslow CAP_PERFMON",
		       what, paranoid_str(level, sizeof(level)));
		return -EACCES;
	case EMFILE:
	case ENFILE:
		ws_log(WS_LOG_ERROR, "cannot sample %s: out of file descriptors (one per CPU per event); raise "
				     "`ulimit -n`", what);
		return -EMFILE;
	case ESRCH:
		ws_log(WS_LOG_ERROR, "cannot sample %s: the process is gone", what);
		return -ESRCH;
	default:
		if (errno_unsupported(err)) {
			/* Whether the machine has a PMU at all changes what the user can do about it. */
			if (p->pmu == 0)
				why = "this machine has no PMU (VMs and CI runners usually lack one)";
			else if (p->pmu == 1)
				why = "this CPU's PMU does not count it; `whyslow list` shows what it does";
			else
				why = "hardware events need a PMU, which VMs and CI runners usually lack";
			ws_log(WS_LOG_ERROR, "cannot sample %s: unsupported on this machine (%s); %s", what,
			       strerror(err), why);
			return -EOPNOTSUPP;
		}
		ws_log(WS_LOG_ERROR, "cannot sample %s: %s", what, strerror(err));
		return -err;
	}
}

static void close_fds(struct ws_profile *p, int which)
{
	size_t i;

	for (i = 0; i < p->nr_rings; i++) {
		int *fd = which ? &p->rings[i].extra_fd : &p->rings[i].fd;

		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
}

/*
 * On a hybrid CPU, the core type of CPU `cpu` (its index in p->types), or -1 elsewhere. A generic hardware
 * or cache event opened there names that type's PMU in its config's upper bits, as the counting backend's
 * copies do: bare, it is cpu_core's (PERF_TYPE_RAW), which refuses a CPU of another core type, and what
 * the kernel tries then depends on its version. An event of one core PMU's own (a raw rNNNN is cpu_core's,
 * a libpfm4 adl_grt:: event cpu_atom's) stays as it is, and *elsewhere says whether `cpu` is of another
 * type, where the kernel refuses it (ENOENT) whatever the event.
 */
static int on_cpu_pmu(const struct ws_profile *p, struct perf_event_attr *a, int cpu, bool *elsewhere)
{
	int here = -1;

	*elsewhere = false;
	for (int t = 0; t < p->ntypes && here < 0; t++)
		if (CPU_ISSET(cpu, &p->type_cpus[t]))
			here = t;
	if (here < 0)
		return -1;
	if (a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE) {
		if (!(a->config >> PERF_PMU_TYPE_SHIFT))
			a->config |= (uint64_t)p->types[here] << PERF_PMU_TYPE_SHIFT;
		return here;
	}
	for (int t = 0; t < p->ntypes; t++)
		if (a->type == p->types[t] && t != here)
			*elsewhere = true;
	return here;
}

/* A hybrid CPU's core PMUs and their CPUs, for on_cpu_pmu(); none where any is unknown. */
static void read_core_types(struct ws_profile *p)
{
	p->ntypes = ws_perf_hybrid_pmus(p->types, p->type_names, WS_PERF_MAX_CORE_TYPES);
	for (int t = 0; t < p->ntypes; t++)
		if (ws_perf_hybrid_pmu_cpus(p->type_names[t], &p->type_cpus[t]))
			p->ntypes = 0;
	if (p->ntypes < 2)
		p->ntypes = 0;
}

/*
 * Open `attr` on every CPU for the profiled task, into rings[].fd or rings[].extra_fd. The first CPU decides
 * whether the kernel's part of the profile is allowed: on EACCES/EPERM the event is opened again without it,
 * as perf_event_paranoid >= 2 requires of an unprivileged user. The second event (`which`) may be missing
 * from a core type of a hybrid CPU, or be another type's own: it is left out of that type's CPUs (extra_fd
 * -1, said in p->extra_skipped) where another type has it. Returns 0 or the errno of the failed open, with nothing left open for this event.
 */
static int open_on_cpus(struct ws_profile *p, struct perf_event_attr *attr, int which, const char *name)
{
	ws_perf_open_fn open_fn = p->opts.open_fn ? p->opts.open_fn : sys_perf_event_open;
	size_t i, opened = 0;
	int fd, err = EINVAL;
	char level[16];

	for (i = 0; i < p->nr_rings; i++) {
		struct perf_event_attr a = *attr;
		bool elsewhere;
		int t = on_cpu_pmu(p, &a, p->rings[i].cpu, &elsewhere);
		const char *pmu = t >= 0 ? p->type_names[t] : NULL;

		if (which && elsewhere) {
			p->extra_skipped |= 1u << t;
			continue;
		}
		fd = open_fn(&a, p->pid, p->rings[i].cpu, -1, PERF_FLAG_FD_CLOEXEC);
		/*
		 * Not for an event of the kernel alone (":k") or one the kernel counts (context-switches):
		 * user space only, it would sample nothing.
		 */
		if (fd < 0 && i == 0 && (errno == EACCES || errno == EPERM) && !attr->exclude_kernel &&
		    !attr->exclude_user && !ws_perf_kernel_only(attr)) {
			attr->exclude_kernel = a.exclude_kernel = 1;
			attr->exclude_hv = a.exclude_hv = 1;
			fd = open_fn(&a, p->pid, p->rings[i].cpu, -1, PERF_FLAG_FD_CLOEXEC);
			if (fd >= 0)
				ws_log(WS_LOG_DEBUG, "profile: %s: user space only (kernel.perf_event_paranoid=%s)",
				       name, paranoid_str(level, sizeof(level)));
		}
		if (fd < 0) {
			err = errno ? errno : EINVAL;
			ws_log(WS_LOG_DEBUG, "profile: %s on cpu %d%s%s: %s", name, p->rings[i].cpu, pmu ? " of " : "",
			       pmu ? pmu : "", strerror(err));
			if (which && pmu && errno_unsupported(err)) {
				p->extra_skipped |= 1u << t;
				continue;
			}
			close_fds(p, which);
			return err;
		}
		opened++;
		if (which)
			p->rings[i].extra_fd = fd;
		else
			p->rings[i].fd = fd;
	}
	if (!opened) {
		p->extra_skipped = 0;
		close_fds(p, which);
		return err;
	}
	p->exclude_kernel = attr->exclude_kernel;
	return 0;
}

static void base_attr(struct perf_event_attr *attr, bool exclude_kernel)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->sample_type = SAMPLE_TYPE;
	attr->sample_id_all = 1;
	/* Off until the child's exec, then on in it and everything it starts. */
	attr->disabled = 1;
	attr->enable_on_exec = 1;
	attr->inherit = 1;
	attr->exclude_kernel = exclude_kernel;
	attr->exclude_hv = exclude_kernel;
}

/*
 * What the first event's samples carry for their call chains: the kernel's user chain (its frame-pointer
 * walk; the kernel's own part is not wanted) with the registers and the few stack bytes that put a frameless
 * leaf's caller back; or, for DWARF unwinding, every register the CFI may use and 8 KiB of stack.
 */
static void call_graph_attr(const struct ws_profile *p, struct perf_event_attr *attr)
{
	switch (p->opts.call_graph) {
	case WS_CALL_GRAPH_FP:
		attr->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		attr->exclude_callchain_kernel = 1;
		attr->sample_regs_user = WS_CC_FP_REGS;
		attr->sample_stack_user = WS_CC_FP_STACK;
		break;
	case WS_CALL_GRAPH_DWARF:
		attr->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		attr->sample_regs_user = WS_CC_DWARF_REGS;
		attr->sample_stack_user = WS_CC_DWARF_STACK;
		break;
	case WS_CALL_GRAPH_NONE:
		break;
	}
}

const char *ws_call_graph_name(enum ws_call_graph cg)
{
	switch (cg) {
	case WS_CALL_GRAPH_FP: return "fp";
	case WS_CALL_GRAPH_DWARF: return "dwarf";
	default: return "none";
	}
}

/* The first event: the named one, or cycles falling back to cpu-clock. Side-band records come from it. */
static int open_main(struct ws_profile *p)
{
	static const char *const auto_events[] = { "cycles", "cpu-clock" };
	const char *const *names = p->opts.event ? &p->opts.event : auto_events;
	size_t n = p->opts.event ? 1 : ARRAY_SIZE(auto_events), k;
	struct perf_event_attr attr;
	int err = EINVAL;

	for (k = 0; k < n; k++) {
		base_attr(&attr, false);
		if (event_resolve(names[k], &attr))
			return ws_profile_event_check(names[k]);
		attr.freq = 1;
		attr.sample_freq = p->freq;
		attr.mmap = 1;
		attr.mmap2 = 1;
		attr.comm = 1;
		attr.comm_exec = 1;
		attr.task = 1;
		/* Wake a poll(2)er when a ring is half full (wakeup_watermark 0 means half). */
		attr.watermark = 1;
		call_graph_attr(p, &attr);
		err = open_on_cpus(p, &attr, 0, names[k]);
		/*
		 * The kernel lowers its sampling limit when sampling interrupts take too long, and refuses a
		 * higher frequency with EINVAL: where it did so since the limit was read, retry at the new one.
		 */
		if (err == EINVAL && attr.freq) {
			unsigned lower = ws_profile_clip_freq(p->freq);

			if (lower < p->freq) {
				p->freq = lower;
				attr.sample_freq = lower;
				err = open_on_cpus(p, &attr, 0, names[k]);
			}
		}
		if (!err) {
			p->event = xstrdup(names[k]);
			if (attr.type != PERF_TYPE_SOFTWARE)
				p->pmu = 1;
			return 0;
		}
		/* cycles is the one event every PMU counts: when it is unsupported, there is no PMU. */
		if (attr.type == PERF_TYPE_HARDWARE && attr.config == PERF_COUNT_HW_CPU_CYCLES &&
		    errno_unsupported(err))
			p->pmu = 0;
		if (k + 1 < n && errno_unsupported(err)) {
			ws_log(WS_LOG_DEBUG, "profile: cannot sample %s (%s); sampling %s instead", names[k],
			       strerror(err), names[k + 1]);
			continue;
		}
		break;
	}
	return open_error(p, names[k < n ? k : n - 1], err);
}

/* The second event: sampled like the first, into the same rings, without side-band records of its own. */
static int open_extra(struct ws_profile *p)
{
	const char *name = p->opts.extra_event;
	struct perf_event_attr attr;
	size_t i;
	int err;

	/* Kernel samples for both or for neither, so that the two profiles cover the same code. */
	base_attr(&attr, p->exclude_kernel);
	if (event_resolve(name, &attr))
		return ws_profile_event_check(name);
	if (attr.exclude_kernel && (attr.exclude_user || ws_perf_kernel_only(&attr))) {
		char level[16];

		/* The first event could not see the kernel (paranoid): this one, seen only there, would read 0. */
		ws_log(WS_LOG_ERROR, "cannot sample %s: it counts in the kernel, which kernel.perf_event_paranoid=%s "
		       "keeps from this profile; run `sysctl -w kernel.perf_event_paranoid=1` as root, or give "
		       "whyslow CAP_PERFMON", name, paranoid_str(level, sizeof(level)));
		return -EACCES;
	}
	if (p->opts.extra_period) {
		attr.sample_period = p->opts.extra_period;
	} else {
		attr.freq = 1;
		attr.sample_freq = p->freq;
	}
	err = open_on_cpus(p, &attr, 1, name);
	if (err)
		return open_error(p, name, err);
	for (i = 0; i < p->nr_rings; i++) {
		if (p->rings[i].extra_fd >= 0 &&
		    ioctl(p->rings[i].extra_fd, PERF_EVENT_IOC_SET_OUTPUT, p->rings[i].fd)) {
			err = errno;
			ws_log(WS_LOG_ERROR, "cannot sample %s: cannot share the ring of cpu %d: %s", name,
			       p->rings[i].cpu, strerror(err));
			close_fds(p, 1);
			return -err;
		}
	}
	p->extra_event = xstrdup(name);
	return 0;
}

static void unmap_rings(struct ws_profile *p)
{
	size_t i;

	for (i = 0; i < p->nr_rings; i++) {
		if (p->rings[i].base)
			munmap(p->rings[i].base, p->rings[i].map_len);
		p->rings[i].base = NULL;
	}
}

/*
 * Map one ring per CPU. The locked-memory allowance (kernel.perf_event_mlock_kb per CPU, plus RLIMIT_MEMLOCK)
 * may be smaller than asked: halve the size and try again, down to 8 pages (or what was asked, if less).
 */
static int map_rings(struct ws_profile *p)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned pages = p->opts.ring_pages, least;
	size_t i;
	int err = 0;

	/* The kernel wants a power of two. */
	while (pages & (pages - 1))
		pages &= pages - 1;
	least = pages < 8 ? pages : 8;
	for (; pages >= least; pages /= 2) {
		for (i = 0; i < p->nr_rings; i++) {
			struct ring *r = &p->rings[i];

			r->map_len = (size_t)(pages + 1) * (size_t)page;
			r->base = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
			if (r->base == MAP_FAILED) {
				r->base = NULL;
				err = errno;
				break;
			}
			r->data = (unsigned char *)r->base + page;
			r->data_size = (uint64_t)pages * (uint64_t)page;
		}
		if (i == p->nr_rings) {
			if (pages != p->opts.ring_pages)
				ws_log(WS_LOG_DEBUG, "profile: rings of %u pages per CPU", pages);
			return 0;
		}
		unmap_rings(p);
		if (err != EPERM && err != ENOMEM)
			break;
	}
	ws_log(WS_LOG_ERROR, "cannot map the sampling rings: %s%s", strerror(err),
	       err == EPERM || err == ENOMEM ? "; raise kernel.perf_event_mlock_kb or `ulimit -l`" : "");
	return -err;
}

static int read_ids(struct ws_profile *p, int which)
{
	size_t i;

	p->ids[which] = xcalloc(p->nr_rings, sizeof(uint64_t));
	for (i = 0; i < p->nr_rings; i++) {
		int fd = which ? p->rings[i].extra_fd : p->rings[i].fd;

		/* A CPU the second event is not on (open_on_cpus()): id 0, which the kernel gives no event. */
		if (fd < 0)
			continue;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &p->ids[which][i])) {
			int err = errno;

			ws_log(WS_LOG_ERROR, "cannot read a sampling event's id: %s", strerror(err));
			return -err;
		}
	}
	p->nr_ids[which] = p->nr_rings;
	return 0;
}

int ws_profile_open(struct ws_profile **out, pid_t pid, const struct ws_profile_opts *opts)
{
	static const struct ws_profile_opts defaults = WS_PROFILE_OPTS_INIT;
	struct ws_profile *p = xcalloc(1, sizeof(*p));
	int *cpus = NULL;
	size_t i;
	int ret;

	*out = NULL;
	p->opts = opts ? *opts : defaults;
	if (!p->opts.freq)
		p->opts.freq = WS_PROFILE_DEFAULT_FREQ;
	if (!p->opts.ring_pages)
		p->opts.ring_pages = WS_PROFILE_DEFAULT_PAGES;
	p->pid = pid;
	p->pmu = -1;
	p->last_which = -1;
	p->freq = p->opts.freq_checked ? p->opts.freq : ws_profile_clip_freq(p->opts.freq);
	p->scratch = xmalloc(UINT16_MAX + 1);
	p->nr_objs = OBJ_FIRST_MAPPED;
	p->alloc_objs = 16;
	p->objs = xcalloc(p->alloc_objs, sizeof(*p->objs));
	p->objs[OBJ_KERNEL].path = xstrdup("[kernel.kallsyms]");
	p->objs[OBJ_UNKNOWN].path = xstrdup("[unknown]");
	if (p->opts.symbols) {
		p->symbols = p->opts.symbols;
	} else {
		p->symbols = ws_symbols_new();
		p->own_symbols = true;
	}

	p->nr_rings = p->opts.cpus && p->opts.nr_cpus ? p->opts.nr_cpus : ws_profile_online_cpus(&cpus);
	p->rings = xcalloc(p->nr_rings, sizeof(*p->rings));
	for (i = 0; i < p->nr_rings; i++) {
		p->rings[i].cpu = cpus ? cpus[i] : p->opts.cpus[i];
		p->rings[i].fd = -1;
		p->rings[i].extra_fd = -1;
	}
	free(cpus);

	read_core_types(p);
	ret = open_main(p);
	if (!ret)
		ret = map_rings(p);
	if (!ret)
		ret = read_ids(p, 0);
	if (!ret && p->opts.extra_event) {
		ret = open_extra(p);
		if (!ret)
			ret = read_ids(p, 1);
	}
	if (ret) {
		ws_profile_close(p);
		return ret;
	}
	ws_log(WS_LOG_DEBUG, "profile: sampling %s%s%s at %u Hz on %zu CPUs", p->event, p->extra_event ? " and " : "",
	       p->extra_event ? p->extra_event : "", p->freq, p->nr_rings);
	*out = p;
	return 0;
}

void ws_profile_close(struct ws_profile *p)
{
	size_t i;

	if (!p)
		return;
	unmap_rings(p);
	if (p->rings) {
		close_fds(p, 1);
		close_fds(p, 0);
	}
	free(p->rings);
	free(p->ids[0]);
	free(p->ids[1]);
	free(p->scratch);
	for (i = 0; i < p->nr_pending; i++)
		free(p->pending[i].cc);
	free(p->pending);
	for (i = 0; i < p->nr_objs; i++)
		free(p->objs[i].path);
	free(p->objs);
	for (i = 0; i < p->procs_cap; i++) {
		free(p->procs[i].maps);
		ws_cc_unwinder_free(p->procs[i].unw);
	}
	free(p->procs);
	for (i = 0; i < p->nr_stks; i++)
		free(p->stks[i].f);
	free(p->stks);
	free(p->stk_slots);
	free(p->agg);
	if (p->own_symbols)
		ws_symbols_free(p->symbols);
	free(p->event);
	free(p->extra_event);
	free(p);
}

/* ------------------------------------------------------------------------------------------------------ */
/* Symbolizing and summing per function                                                                    */

/* A function being summed: (object, name), name NULL for the object's [unknown] bucket. */
struct fnacc {
	uint32_t obj;
	const char *name; /* demangled, borrowed from the symbol cache */
	const char **symbols; /* the distinct symbols summed here, borrowed from the cache */
	size_t nr_symbols;
	uint64_t samples[2], period[2];
};

struct fntab {
	struct fnacc *v;
	size_t nr, alloc;
	size_t *slots; /* open addressing: index + 1 into v, 0 free */
	size_t cap;
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (s && *s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static bool fn_same(const struct fnacc *f, uint32_t obj, const char *name)
{
	if (f->obj != obj)
		return false;
	if (!f->name || !name)
		return f->name == name;
	return f->name == name || !strcmp(f->name, name);
}

static size_t *fntab_slot(struct fntab *t, uint32_t obj, const char *name)
{
	size_t mask = t->cap - 1, i = mix64(str_hash(name) ^ obj) & mask;

	while (t->slots[i] && !fn_same(&t->v[t->slots[i] - 1], obj, name))
		i = (i + 1) & mask;
	return &t->slots[i];
}

/* Same (object, name) is the same function, so that two static functions of one name are one row. */
static size_t fntab_get(struct fntab *t, uint32_t obj, const char *name)
{
	size_t *slot;

	if ((t->nr + 1) * 2 > t->cap) {
		size_t i;

		t->cap = t->cap ? t->cap * 2 : 256;
		free(t->slots);
		t->slots = xcalloc(t->cap, sizeof(*t->slots));
		for (i = 0; i < t->nr; i++)
			*fntab_slot(t, t->v[i].obj, t->v[i].name) = i + 1;
	}
	slot = fntab_slot(t, obj, name);
	if (!*slot) {
		WS_ALLOC_GROW(t->v, t->nr + 1, t->alloc);
		memset(&t->v[t->nr], 0, sizeof(t->v[0]));
		t->v[t->nr].obj = obj;
		t->v[t->nr].name = name;
		*slot = ++t->nr;
	}
	return *slot - 1;
}

static int fn_cmp(const void *a, const void *b)
{
	const struct ws_fn *x = a, *y = b;
	int c;

	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	if (x->extra_period != y->extra_period)
		return x->extra_period > y->extra_period ? -1 : 1;
	c = strcmp(x->object, y->object);
	return c ? c : strcmp(x->name, y->name);
}

static int line_cmp(const void *a, const void *b)
{
	const struct ws_fn_line *x = a, *y = b;
	int c;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	c = strcmp(x->file, y->file);
	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static struct ws_symobj *object_symbols(struct ws_profile *p, uint32_t obj)
{
	struct object *o = &p->objs[obj];

	if (!o->file)
		return NULL;
	if (!o->looked_up) {
		o->looked_up = true;
		ws_symbols_get(p->symbols, o->path, &o->so);
	}
	return o->so;
}

/* The hottest lines of function `fi`: every address summed into it, looked up in the line table. */
static void hot_lines(struct ws_profile *p, struct ws_fn *fn, size_t fi, const size_t *agg_fn,
		      const uint64_t *agg_vaddr)
{
	struct ws_fn_line *lines = NULL;
	uint64_t *best = NULL; /* per line: the samples of the address whose inline chain it shows */
	size_t nr = 0, alloc = 0, balloc = 0, i, j;

	for (i = 0; i < p->agg_cap; i++) {
		const struct agg *a = &p->agg[i];
		struct ws_symobj *so;
		const struct ws_inline *chain;
		const char *file;
		unsigned line;
		size_t nchain;

		if (a->obj == UINT32_MAX || agg_fn[i] != fi || !a->samples[0])
			continue;
		so = object_symbols(p, a->obj);
		if (!so || ws_symobj_srcline(so, agg_vaddr[i], &file, &line))
			continue;
		for (j = 0; j < nr; j++)
			if (lines[j].line == line && !strcmp(lines[j].file, file))
				break;
		if (j == nr) {
			WS_ALLOC_GROW(lines, nr + 1, alloc);
			WS_ALLOC_GROW(best, nr + 1, balloc);
			memset(&lines[nr], 0, sizeof(lines[nr]));
			lines[nr].file = (char *)file; /* borrowed until copied below */
			lines[nr].line = line;
			best[nr] = 0;
			nr++;
		}
		lines[j].samples += a->samples[0];
		/* One line may be inlined at several places: show the chain of its hottest address. */
		if (a->samples[0] > best[j]) {
			best[j] = a->samples[0];
			nchain = ws_symobj_inlines(so, agg_vaddr[i], &chain);
			lines[j].inlined = (struct ws_inline *)chain; /* borrowed until copied below */
			lines[j].nr_inlined = nchain;
		}
	}
	free(best);
	if (!nr)
		return;
	qsort(lines, nr, sizeof(*lines), line_cmp);
	for (j = p->opts.lines_per_fn; j < nr; j++) {
		lines[j].inlined = NULL;
		lines[j].nr_inlined = 0;
	}
	if (nr > p->opts.lines_per_fn)
		nr = p->opts.lines_per_fn;
	for (j = 0; j < nr; j++) {
		const struct ws_inline *chain = lines[j].inlined;

		lines[j].file = xstrdup(lines[j].file);
		lines[j].inlined = lines[j].nr_inlined ? xcalloc(lines[j].nr_inlined, sizeof(*chain)) : NULL;
		for (size_t k = 0; k < lines[j].nr_inlined; k++) {
			lines[j].inlined[k].name = xstrdup(chain[k].name);
			lines[j].inlined[k].call_file = xstrdup(chain[k].call_file);
			lines[j].inlined[k].call_line = chain[k].call_line;
		}
	}
	fn->lines = lines;
	fn->nr_lines = nr;
}

/*
 * The name of the function holding link address `vaddr` of `so`, *sym filled; for code no symbol covers, its
 * frame's "[unknown]+0x1f2a0" with sym->symbol NULL; NULL when not even a frame covers it (the object's
 * [unknown] bucket).
 */
static const char *fn_name_at(struct ws_symobj *so, uint64_t vaddr, struct ws_sym *sym)
{
	if (!ws_symobj_lookup(so, vaddr, sym))
		return sym->name;
	sym->symbol = NULL;
	return ws_symobj_unnamed(so, vaddr);
}

static void fnacc_add_symbol(struct fnacc *f, const char *symbol)
{
	for (size_t i = 0; i < f->nr_symbols; i++)
		if (f->symbols[i] == symbol || !strcmp(f->symbols[i], symbol))
			return;
	f->symbols = xrealloc(f->symbols, (f->nr_symbols + 1) * sizeof(*f->symbols));
	f->symbols[f->nr_symbols++] = symbol;
}

static void fnacc_add(struct fnacc *f, const struct agg *a)
{
	f->samples[0] += a->samples[0];
	f->samples[1] += a->samples[1];
	f->period[0] += a->period[0];
	f->period[1] += a->period[1];
}

/* A summed function as a ws_fn of `out` (whose totals are final). */
static void fn_from_acc(struct ws_profile *p, struct ws_fn *fn, const struct fnacc *f, const struct ws_fn_profile *out)
{
	fn->unknown = !f->name || !strncmp(f->name, "[unknown]+", 10);
	fn->name = xstrdup(f->name ? f->name : f->obj == OBJ_KERNEL ? "[kernel]" : "[unknown]");
	fn->object = xstrdup(p->objs[f->obj].path);
	fn->symbols = f->nr_symbols ? xcalloc(f->nr_symbols, sizeof(*fn->symbols)) : NULL;
	for (size_t k = 0; k < f->nr_symbols; k++)
		fn->symbols[k] = xstrdup(f->symbols[k]);
	fn->nr_symbols = f->nr_symbols;
	fn->samples = f->samples[0];
	fn->period = f->period[0];
	fn->extra_samples = f->samples[1];
	fn->extra_period = f->period[1];
	fn->share = out->period ? (double)fn->period / (double)out->period : 0;
	fn->extra_share = out->extra_period ? (double)fn->extra_period / (double)out->extra_period : 0;
}

/* One info line per stripped object that holds a visible part of the profile; once per symbol cache. */
static void stripped_hints(struct ws_profile *p, uint64_t total)
{
	size_t i;

	for (i = OBJ_FIRST_MAPPED; i < p->nr_objs; i++) {
		struct object *o = &p->objs[i];
		double pct = total ? 100.0 * (double)o->unknown_period / (double)total : 0;
		enum ws_symsrc src;

		if (!o->file || !o->unknown_period)
			continue;
		if (!o->so) {
			ws_log(pct >= 1.0 ? WS_LOG_INFO : WS_LOG_DEBUG,
			       "%s: cannot read its symbols; %.1f%% of the samples are [unknown] there", o->path, pct);
			continue;
		}
		src = ws_symobj_symsrc(o->so);
		if (src == WS_SYMSRC_SYMTAB || src == WS_SYMSRC_DEBUG || pct < 1.0) {
			ws_log(WS_LOG_DEBUG, "%s: %.1f%% of the samples fall outside its symbols", o->path, pct);
			continue;
		}
		if (ws_symobj_first_hint(o->so)) {
			char *hint = ws_symobj_debug_hint(o->so);

			ws_log(WS_LOG_INFO, "%s has no symbol table (stripped) and no debug file was found: %.1f%% of "
			       "the samples show as [unknown]; %s", o->path, pct, hint);
			free(hint);
		}
	}
}

/* ---- call graphs ---- */

/* A frame's function: the summed function (fntab index) a stack frame resolves to, one lookup per frame. */
struct frame_fn {
	struct frame f;
	size_t fi;
	bool used;
};

static size_t frame_function(struct ws_profile *p, struct fntab *t, struct frame_fn *cache, size_t cap,
			     struct frame f)
{
	size_t mask = cap - 1, i = mix64(f.addr ^ ((uint64_t)f.obj << 40)) & mask;
	struct ws_symobj *so;
	struct ws_sym sym = { 0 };
	uint64_t vaddr;
	const char *name = NULL;

	while (cache[i].used && (cache[i].f.obj != f.obj || cache[i].f.addr != f.addr))
		i = (i + 1) & mask;
	if (cache[i].used)
		return cache[i].fi;
	so = object_symbols(p, f.obj);
	if (so && !ws_symobj_vaddr(so, f.addr, &vaddr))
		name = fn_name_at(so, vaddr, &sym);
	cache[i] = (struct frame_fn){ f, fntab_get(t, f.obj, name), true };
	if (name && sym.symbol)
		fnacc_add_symbol(&t->v[cache[i].fi], sym.symbol);
	return cache[i].fi;
}

/* Call edges being summed: (function, its caller) by fntab index. */
struct edge {
	size_t fn, caller;
	uint64_t samples, period;
};

struct edges {
	struct edge *v;
	size_t nr, alloc;
	size_t *slots; /* index + 1 */
	size_t cap;
};

static size_t *edge_slot(struct edges *e, size_t fn, size_t caller)
{
	size_t mask = e->cap - 1, i = mix64(((uint64_t)fn << 32) ^ caller) & mask;

	while (e->slots[i] && (e->v[e->slots[i] - 1].fn != fn || e->v[e->slots[i] - 1].caller != caller))
		i = (i + 1) & mask;
	return &e->slots[i];
}

static void edge_add(struct edges *e, size_t fn, size_t caller, uint64_t samples, uint64_t period)
{
	size_t *slot;

	if ((e->nr + 1) * 2 > e->cap) {
		e->cap = e->cap ? e->cap * 2 : 256;
		free(e->slots);
		e->slots = xcalloc(e->cap, sizeof(*e->slots));
		for (size_t i = 0; i < e->nr; i++)
			*edge_slot(e, e->v[i].fn, e->v[i].caller) = i + 1;
	}
	slot = edge_slot(e, fn, caller);
	if (!*slot) {
		WS_ALLOC_GROW(e->v, e->nr + 1, e->alloc);
		e->v[e->nr] = (struct edge){ fn, caller, 0, 0 };
		*slot = ++e->nr;
	}
	e->v[*slot - 1].samples += samples;
	e->v[*slot - 1].period += period;
}

/*
 * The stacks as functions: each stack's frames resolved (fnstk[k] = its fntab indexes, leaf first), then
 * for every function on a stack, once at its outermost activation, the stack's samples go to its inclusive
 * count and to the edge from the function that called that activation. Functions seen only as callers get
 * their (self-less) rows here, so this runs before the rows are made.
 */
static void stacks_to_functions(struct ws_profile *p, struct fntab *t, size_t ***fnstk, struct edges *e,
				uint64_t **incl)
{
	size_t cap = 1024, total = 0;
	struct frame_fn *cache;
	size_t **fs = xcalloc(p->nr_stks + 1, sizeof(*fs));

	for (size_t k = 0; k < p->nr_stks; k++)
		total += p->stks[k].n;
	while (cap < 2 * total)
		cap *= 2;
	cache = xcalloc(cap, sizeof(*cache));
	for (size_t k = 0; k < p->nr_stks; k++) {
		fs[k] = xmalloc(p->stks[k].n * sizeof(**fs));
		for (size_t j = 0; j < p->stks[k].n; j++)
			fs[k][j] = frame_function(p, t, cache, cap, p->stks[k].f[j]);
	}
	free(cache);
	/* incl[0]: samples, incl[1]: period, by fntab index, now that the table has every function. */
	incl[0] = xcalloc(t->nr + 1, sizeof(**incl));
	incl[1] = xcalloc(t->nr + 1, sizeof(**incl));
	for (size_t k = 0; k < p->nr_stks; k++) {
		const struct stk *st = &p->stks[k];

		for (size_t j = st->n; j-- > 0;) {
			bool outer_seen = false;

			/* Outermost activation only: skip j when the function is on the stack further out. */
			for (size_t o = j + 1; o < st->n && !outer_seen; o++)
				outer_seen = fs[k][o] == fs[k][j];
			if (outer_seen)
				continue;
			incl[0][fs[k][j]] += st->samples;
			incl[1][fs[k][j]] += st->period;
			if (j + 1 < st->n)
				edge_add(e, fs[k][j], fs[k][j + 1], st->samples, st->period);
		}
	}
	*fnstk = fs;
}

static int caller_cmp(const void *a, const void *b)
{
	const struct ws_fn_caller *x = a, *y = b;

	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	return (x->caller > y->caller) - (x->caller < y->caller);
}

static int fnstack_cmp(const void *a, const void *b)
{
	const struct ws_fn_stack *x = a, *y = b;

	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	return (x->n > y->n) - (x->n < y->n);
}

/*
 * Put the call graph on the rows, `inv` mapping fntab indexes to their place in out->fns: inclusive counts,
 * callers, and the stacks as functions (outermost first), stacks that are the same as functions merged.
 */
static void graph_to_rows(struct ws_profile *p, struct ws_fn_profile *out, const size_t *inv, size_t **fnstk,
			  const struct edges *e, uint64_t *const *incl, size_t nt)
{
	struct ws_fn_stack *st = xcalloc(p->nr_stks + 1, sizeof(*st));
	size_t nst = 0;

	for (size_t i = 0; i < nt; i++) {
		struct ws_fn *fn = &out->fns[inv[i]];

		fn->inclusive_samples = incl[0][i];
		fn->inclusive_period = incl[1][i];
		fn->inclusive_share = out->period ? (double)fn->inclusive_period / (double)out->period : 0;
	}
	for (size_t k = 0; k < e->nr; k++) {
		struct ws_fn *fn = &out->fns[inv[e->v[k].fn]];

		fn->callers = xrealloc(fn->callers, (fn->nr_callers + 1) * sizeof(*fn->callers));
		fn->callers[fn->nr_callers++] = (struct ws_fn_caller){
			inv[e->v[k].caller], e->v[k].samples, e->v[k].period,
			out->period ? (double)e->v[k].period / (double)out->period : 0,
		};
	}
	for (size_t i = 0; i < out->nr_fns; i++)
		if (out->fns[i].nr_callers > 1)
			qsort(out->fns[i].callers, out->fns[i].nr_callers, sizeof(*out->fns[i].callers), caller_cmp);
	for (size_t k = 0; k < p->nr_stks; k++) {
		size_t n = p->stks[k].n, j;
		size_t *fns = xmalloc(n * sizeof(*fns));

		for (j = 0; j < n; j++)
			fns[j] = inv[fnstk[k][n - 1 - j]];
		/* Stacks of distinct frames can be one stack of functions (two call sites of one caller). */
		for (j = 0; j < nst && !(st[j].n == n && !memcmp(st[j].fns, fns, n * sizeof(*fns))); j++)
			;
		if (j == nst)
			st[nst++] = (struct ws_fn_stack){ fns, n, 0, 0 };
		else
			free(fns);
		st[j].samples += p->stks[k].samples;
		st[j].period += p->stks[k].period;
	}
	qsort(st, nst, sizeof(*st), fnstack_cmp);
	out->stacks = st;
	out->nr_stacks = nst;
}

static const struct ws_fn *sort_base;

static int perm_cmp(const void *a, const void *b)
{
	return fn_cmp(&sort_base[*(const size_t *)a], &sort_base[*(const size_t *)b]);
}

int ws_profile_finish(struct ws_profile *p, struct ws_fn_profile *out)
{
	struct fntab t = { 0 }, ti = { 0 };
	size_t *agg_fn = NULL, i, nlines, **fnstk = NULL, *perm, *inv;
	uint64_t *agg_vaddr = NULL, *incl[2] = { NULL, NULL };
	struct edges edges = { 0 };
	struct ws_fn *sorted;

	memset(out, 0, sizeof(*out));
	if (p->finished)
		return -EINVAL;
	p->finished = true;
	drain_all(p);
	flush(p, UINT64_MAX);

	/* Each distinct (object, offset) is looked up once, however many samples it holds. */
	agg_fn = xcalloc(p->agg_cap ? p->agg_cap : 1, sizeof(*agg_fn));
	agg_vaddr = xcalloc(p->agg_cap ? p->agg_cap : 1, sizeof(*agg_vaddr));
	for (i = 0; i < p->agg_cap; i++) {
		struct agg *a = &p->agg[i];
		struct ws_symobj *so;
		struct ws_sym sym = { 0 };
		const char *name = NULL;
		struct fnacc *f;
		size_t fi;

		if (a->obj == UINT32_MAX)
			continue;
		so = object_symbols(p, a->obj);
		if (so && !ws_symobj_vaddr(so, a->addr, &agg_vaddr[i])) {
			const struct ws_inline *chain;
			size_t n = ws_symobj_inlines(so, agg_vaddr[i], &chain);

			name = fn_name_at(so, agg_vaddr[i], &sym);
			/* Also to each function inlined here, once however often it recurs in the chain. */
			for (size_t k = 0; k < n; k++) {
				bool seen = false;

				for (size_t j = 0; j < k && !seen; j++)
					seen = !strcmp(chain[j].name, chain[k].name);
				if (!seen) {
					size_t ii = fntab_get(&ti, a->obj, chain[k].name);

					fnacc_add(&ti.v[ii], a);
				}
			}
		}
		if (!name || !sym.symbol)
			p->objs[a->obj].unknown_period += a->period[0];
		fi = fntab_get(&t, a->obj, name);
		agg_fn[i] = fi;
		f = &t.v[fi];
		if (name && sym.symbol)
			fnacc_add_symbol(f, sym.symbol);
		fnacc_add(f, a);
		out->samples += a->samples[0];
		out->period += a->period[0];
		out->extra_samples += a->samples[1];
		out->extra_period += a->period[1];
	}

	if (p->opts.call_graph != WS_CALL_GRAPH_NONE)
		stacks_to_functions(p, &t, &fnstk, &edges, incl);

	out->event = xstrdup(p->event);
	out->extra_event = p->extra_event ? xstrdup(p->extra_event) : NULL;
	out->extra_skipped = NULL;
	for (int k = 0; k < p->ntypes; k++) {
		char *l;

		if (!(p->extra_skipped & 1u << k))
			continue;
		l = xasprintf("%s%s%s", out->extra_skipped ? out->extra_skipped : "", out->extra_skipped ? " and " : "",
			      p->type_names[k]);
		free(out->extra_skipped);
		out->extra_skipped = l;
	}
	out->call_graph = p->opts.call_graph;
	out->chain_samples = p->chain_samples;
	out->freq = p->freq;
	out->lost = p->lost;
	out->throttled = p->throttled;
	for (i = 0; i < p->nr_rings; i++)
		out->full_rings += p->rings[i].suspect_full;
	out->nr_fns = t.nr;
	out->fns = xcalloc(t.nr ? t.nr : 1, sizeof(*out->fns));
	for (i = 0; i < t.nr; i++)
		fn_from_acc(p, &out->fns[i], &t.v[i], out);
	out->nr_inlined = ti.nr;
	out->inlined = xcalloc(ti.nr ? ti.nr : 1, sizeof(*out->inlined));
	for (i = 0; i < ti.nr; i++)
		fn_from_acc(p, &out->inlined[i], &ti.v[i], out);
	qsort(out->inlined, out->nr_inlined, sizeof(*out->inlined), fn_cmp);

	/* Lines for the hottest named functions, found before sorting while index i still matches t.v[i]. */
	if (p->opts.line_fns && p->opts.lines_per_fn && t.nr) {
		size_t *order = xmalloc(t.nr * sizeof(*order)), k, j;

		for (k = 0; k < t.nr; k++)
			order[k] = k;
		/* A partial selection sort: line_fns is small. */
		nlines = 0;
		for (k = 0; k < t.nr && nlines < p->opts.line_fns; k++) {
			size_t best = k;

			for (j = k + 1; j < t.nr; j++)
				if (t.v[order[j]].period[0] > t.v[order[best]].period[0])
					best = j;
			j = order[k];
			order[k] = order[best];
			order[best] = j;
			if (out->fns[order[k]].unknown || !t.v[order[k]].period[0])
				continue;
			hot_lines(p, &out->fns[order[k]], order[k], agg_fn, agg_vaddr);
			nlines++;
		}
		free(order);
	}
	/* Sorted through a permutation: the call graph refers to rows by their place before the sort. */
	perm = xmalloc((t.nr + 1) * sizeof(*perm));
	inv = xmalloc((t.nr + 1) * sizeof(*inv));
	for (i = 0; i < t.nr; i++)
		perm[i] = i;
	sort_base = out->fns;
	qsort(perm, t.nr, sizeof(*perm), perm_cmp);
	sort_base = NULL;
	sorted = xcalloc(t.nr ? t.nr : 1, sizeof(*sorted));
	for (i = 0; i < t.nr; i++) {
		sorted[i] = out->fns[perm[i]];
		inv[perm[i]] = i;
	}
	free(out->fns);
	out->fns = sorted;
	if (fnstk)
		graph_to_rows(p, out, inv, fnstk, &edges, incl, t.nr);
	free(perm);
	free(inv);

	stripped_hints(p, out->period);
	if (p->lost)
		ws_log(WS_LOG_WARN, "profile: %s%llu records lost to full sampling rings: the shares are from the rest; "
				    "poll more often or give the rings more pages",
		       out->full_rings ? "at least " : "", (unsigned long long)p->lost);
	else if (out->full_rings)
		ws_log(WS_LOG_WARN, "profile: a sampling ring filled up and dropped records the kernel did not count: "
				    "the shares are from the rest; poll more often or give the rings more pages");
	if (p->unknown_ids || p->bad_records)
		ws_log(WS_LOG_DEBUG, "profile: %llu samples of unknown events, %llu malformed records skipped",
		       (unsigned long long)p->unknown_ids, (unsigned long long)p->bad_records);
	ws_log(WS_LOG_DEBUG, "profile: %llu samples in %zu functions, %zu distinct addresses",
	       (unsigned long long)out->samples, out->nr_fns, p->agg_nr);

	if (out->call_graph != WS_CALL_GRAPH_NONE)
		ws_log(WS_LOG_DEBUG, "profile: call graph %s: %llu of %llu samples have their callers, %zu distinct stacks",
		       ws_call_graph_name(out->call_graph), (unsigned long long)p->chain_samples,
		       (unsigned long long)out->samples, p->nr_stks);
	for (i = 0; fnstk && i < p->nr_stks; i++)
		free(fnstk[i]);
	free(fnstk);
	free(incl[0]);
	free(incl[1]);
	free(edges.v);
	free(edges.slots);
	free(agg_fn);
	free(agg_vaddr);
	for (i = 0; i < t.nr; i++)
		free(t.v[i].symbols);
	free(t.v);
	free(t.slots);
	free(ti.v);
	free(ti.slots);
	return 0;
}

static void fns_release(struct ws_fn *fns, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(fns[i].name);
		free(fns[i].object);
		for (size_t k = 0; k < fns[i].nr_symbols; k++)
			free(fns[i].symbols[k]);
		free(fns[i].symbols);
		for (size_t j = 0; j < fns[i].nr_lines; j++) {
			struct ws_fn_line *l = &fns[i].lines[j];

			free(l->file);
			for (size_t k = 0; k < l->nr_inlined; k++) {
				free(l->inlined[k].name);
				free(l->inlined[k].call_file);
			}
			free(l->inlined);
		}
		free(fns[i].lines);
		free(fns[i].callers);
	}
	free(fns);
}

void ws_fn_profile_release(struct ws_fn_profile *fp)
{
	if (!fp)
		return;
	fns_release(fp->fns, fp->nr_fns);
	fns_release(fp->inlined, fp->nr_inlined);
	for (size_t i = 0; i < fp->nr_stacks; i++)
		free(fp->stacks[i].fns);
	free(fp->stacks);
	free(fp->event);
	free(fp->extra_event);
	free(fp->extra_skipped);
	memset(fp, 0, sizeof(*fp));
}
