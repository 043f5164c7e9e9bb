/* SPDX-License-Identifier: GPL-2.0-or-later */
/* marker.c - libwhyslow: the region markers, counting per thread inside the measured program. */

/*
 * The protocol with whyslow (environment in, one file per process out) is documented at the top of
 * protocol/ws-markers.h; this file is the program's side of it.
 *
 * Outside whyslow the constructor finds no WHYSLOW_MARKERS and returns: nothing is allocated, opened or
 * printed, ws_markers_active stays 0 and every macro is one untaken branch.
 *
 * perf mode: each thread owns its perf_event groups, its per-region accumulators and its snapshots, so the hot
 * path takes no lock and touches no shared cache line except the read-mostly registry. A thread's totals are
 * merged into the process's when it exits (pthread key destructor); at process exit the destructor adds the
 * threads still alive (a thread pool is rarely joined) and writes the file. Threads still running then are
 * read without stopping them, which is why every field another thread may read is accessed with relaxed
 * atomics: the values can be a marker stale, never torn.
 *
 * sim mode: each marker is one Valgrind client request carrying the region's name; the wsim tool counts.
 *
 * Failures never reach the host program: the library says one line on stderr (at most one per process),
 * records it in the file, and the affected thread, or the whole library, stops counting. errno is preserved
 * across every marker.
 */
#include "whyslow.h"

#include "ws-markers.h" /* the protocol's names and limits; nothing of the engine is linked in */
#include "x86-read.h"

#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef WS_HAVE_VALGRIND_H
#include <valgrind/valgrind.h>
#define SIM_REQUEST(req, arg) VALGRIND_DO_CLIENT_REQUEST_STMT((req), (arg), 0, 0, 0, 0)
#define SIM_PING() VALGRIND_DO_CLIENT_REQUEST_EXPR(0, WS_REQ_PING, 0, 0, 0, 0, 0)
#else
#define SIM_REQUEST(req, arg) ((void)(arg))
#define SIM_PING() 0
#endif


#define MAX_EVENTS WS_MARKERS_MAX_EVENTS
#define MAX_REGIONS 1024 /* ids 1 .. MAX_REGIONS - 1 */
#define HASH_SLOTS (2 * MAX_REGIONS)
#define CHUNK 64         /* accumulators are allocated 64 regions at a time and never moved */
#define NCHUNKS (MAX_REGIONS / CHUNK)
#define MAX_NAME 4096
#define MAX_EVENT_TOKEN 256

/* Single-writer fields that another thread may read at exit. A relaxed load+store is not an atomic add,
 * and needs not be: only the owner writes. */
#define LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define ADD(p, v) STORE((p), LOAD(p) + (v))
#define barrier() __asm__ __volatile__("" ::: "memory")

enum { MODE_OFF, MODE_PERF, MODE_SIM };

int ws_markers_active;
static int mode;

/* What to count and where to write, from the environment; fixed after the constructor. */
static struct {
	unsigned nr;
	struct perf_event_attr attr[MAX_EVENTS];
	char *name[MAX_EVENTS]; /* as given: percent-encoded, which is also the file's form */
	char *out;              /* path prefix */
	/*
	 * The events form ngroups groups, each led by its first event: group g holds events first[g] to
	 * first[g + 1] - 1. One group of all of them unless WHYSLOW_MARKERS_GROUPS says otherwise.
	 */
	unsigned ngroups;
	unsigned first[MAX_EVENTS + 1];
	unsigned rdpmc_candidate; /* per group (bit g): every event is one the PMU counts, so rdpmc may be allowed */
} cfg;

/*
 * The counters must not take the program's last file descriptors (each thread holds one per event): a group
 * whose descriptors would land in the top quarter of RLIMIT_NOFILE (at least 64 of them, or half of a small
 * limit) is not opened, and that thread goes uncounted instead of the program failing an open() of its own.
 * 0: no ceiling.
 */
static long fd_ceiling;

/* Capability bits of the mmap page, taken from the kernel header's own bit-field layout. */
static uint64_t cap_rdpmc, cap_time, cap_time_short;

/*
 * Region names -> ids. Ids are handed out under the lock and never withdrawn, so look-ups are lock-free: a
 * slot's name pointer is published last (release) and read first (acquire).
 */
static struct {
	pthread_mutex_t lock;
	unsigned nr;                   /* ids 1..nr are taken */
	const char *name[MAX_REGIONS]; /* by id */
	struct {
		const char *name;
		uint32_t hash, id;
	} slot[HASH_SLOTS];
} reg = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct counts {
	uint64_t val, ena, run;
};

/* One region in one thread (or, in proc.merged, of the exited threads). */
struct acc {
	uint32_t depth; /* how deep this region is nested in itself; counting runs from 0->1 to 1->0 */
	uint32_t pad;
	uint64_t t0;    /* wall ns at the outermost begin */
	uint64_t entries, wall_ns, unmatched;
	struct counts c[]; /* c[0..nr): the snapshot at the outermost begin; c[nr..2nr): the totals */
};

struct table {
	unsigned char *chunk[NCHUNKS];
};

static size_t acc_size;

struct thread {
	struct thread *prev, *next; /* proc.live, under proc.lock */
	int failed;
	unsigned rdpmc;             /* per group (bit g): every event's page allows rdpmc */
	unsigned nfd;
	int fd[MAX_EVENTS];
	uint64_t id[MAX_EVENTS];
	volatile struct perf_event_mmap_page *page[MAX_EVENTS];
	struct table acc;
};

/* NULL: this thread has not used a marker yet. &dead: it cannot count (out of memory, or exiting). */
static __thread struct thread *self;
static struct thread dead = { .failed = 1 };

static struct {
	pthread_mutex_t lock;
	pthread_key_t key;
	struct thread *live;  /* threads not yet merged */
	struct table merged;  /* the totals of threads that exited */
	uint64_t threads, failed;
	int done;             /* the file is written: later thread exits merge nothing */
	int fork_locked;
} proc = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The first failure, for the file's "error" line: 0 none, 1 being written, 2 ready. */
static int error_state;
static char error_msg[256];
static int said;

/* Record the first failure and say it on stderr: one line per process at most, so a program with a thousand
 * threads that all fail the same way prints one line, not a thousand. */
static void __attribute__((format(printf, 1, 2))) say(const char *fmt, ...)
{
	char buf[sizeof(error_msg) + 32];
	int expect = 0;
	size_t n;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(error_msg), fmt, ap);
	va_end(ap);
	if (__atomic_compare_exchange_n(&error_state, &expect, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
		memcpy(error_msg, buf, sizeof(error_msg));
		error_msg[sizeof(error_msg) - 1] = '\0';
		/* The file's error line ends at the newline; the messages have none, but be sure. */
		for (char *p = error_msg; *p; p++)
			if (*p == '\n')
				*p = ' ';
		__atomic_store_n(&error_state, 2, __ATOMIC_RELEASE);
	}
	if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		return;
	n = strlen(buf);
	memmove(buf + 17, buf, n + 1);
	memcpy(buf, "whyslow markers: ", 17);
	n += 17;
	if (n > sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	buf[n] = '\n';
	(void)!write(STDERR_FILENO, buf, n + 1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the registry ---- */

/* FNV-1a, and the length, in one pass that stops past MAX_NAME: the named markers pay this per call. */
static uint32_t hash_name(const char *s, size_t *len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; s[i] && i <= MAX_NAME; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	*len = i;
	return h;
}

static unsigned reg_lookup(const char *name, uint32_t h)
{
	/* Half the slots at most are used, so an empty one ends every probe. */
	for (unsigned i = h & (HASH_SLOTS - 1);; i = (i + 1) & (HASH_SLOTS - 1)) {
		const char *n = __atomic_load_n(&reg.slot[i].name, __ATOMIC_ACQUIRE);

		if (!n)
			return 0;
		if (reg.slot[i].hash == h && !strcmp(n, name))
			return reg.slot[i].id;
	}
}

static unsigned reg_register(const char *name)
{
	size_t len;
	uint32_t h;
	unsigned id, i;
	char *copy;

	if (!name)
		return 0;
	h = hash_name(name, &len);
	if (!len || len > MAX_NAME) {
		say("a region name is empty or longer than %d bytes; that region is not counted", MAX_NAME);
		return 0;
	}
	id = reg_lookup(name, h);
	if (id)
		return id;
	pthread_mutex_lock(&reg.lock);
	id = reg_lookup(name, h);
	if (id)
		goto out;
	if (reg.nr + 1 >= MAX_REGIONS) {
		say("more than %d regions; region \"%.64s\" is not counted", MAX_REGIONS - 1, name);
		goto out;
	}
	copy = malloc(len + 1);
	if (!copy) {
		say("out of memory; region \"%.64s\" is not counted", name);
		goto out;
	}
	memcpy(copy, name, len + 1);
	id = reg.nr + 1;
	__atomic_store_n(&reg.name[id], copy, __ATOMIC_RELEASE);
	for (i = h & (HASH_SLOTS - 1); reg.slot[i].name; i = (i + 1) & (HASH_SLOTS - 1))
		;
	reg.slot[i].hash = h;
	reg.slot[i].id = id;
	__atomic_store_n(&reg.slot[i].name, copy, __ATOMIC_RELEASE);
	__atomic_store_n(&reg.nr, id, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&reg.lock);
	return id;
}

/* ---- accumulators ---- */

static struct acc *table_at(const struct table *t, unsigned id)
{
	unsigned char *c = __atomic_load_n(&t->chunk[id / CHUNK], __ATOMIC_ACQUIRE);

	return c ? (struct acc *)(c + (id % CHUNK) * acc_size) : NULL;
}

/* The accumulator of region `id`, allocating its chunk on first use; NULL when out of memory. */
static struct acc *table_get(struct table *t, unsigned id)
{
	struct acc *a = table_at(t, id);
	unsigned char *c;

	if (a)
		return a;
	c = calloc(CHUNK, acc_size);
	if (!c)
		return NULL;
	__atomic_store_n(&t->chunk[id / CHUNK], c, __ATOMIC_RELEASE);
	return (struct acc *)(c + (id % CHUNK) * acc_size);
}

static void table_free(struct table *t)
{
	for (unsigned i = 0; i < NCHUNKS; i++) {
		free(t->chunk[i]);
		t->chunk[i] = NULL;
	}
}

/* Forget the totals (a fork child starts from zero) but keep the nesting and the snapshots. */
static void table_clear_totals(struct table *t)
{
	for (unsigned id = 1; id < MAX_REGIONS; id++) {
		struct acc *a = table_at(t, id);

		if (!a)
			continue;
		a->entries = a->wall_ns = a->unmatched = 0;
		memset(&a->c[cfg.nr], 0, cfg.nr * sizeof(struct counts));
	}
}

/* Add region `id` of `src` (a live thread or the merged totals) into `sum`; an open region is unmatched. */
static void acc_add(struct acc *sum, const struct table *src, unsigned id)
{
	const struct acc *a = table_at(src, id);

	if (!a)
		return;
	sum->entries += LOAD(&a->entries);
	sum->wall_ns += LOAD(&a->wall_ns);
	sum->unmatched += LOAD(&a->unmatched) + (LOAD(&a->depth) > 0);
	for (unsigned i = 0; i < cfg.nr; i++) {
		const struct counts *tot = &a->c[cfg.nr + i];

		sum->c[cfg.nr + i].val += LOAD(&tot->val);
		sum->c[cfg.nr + i].ena += LOAD(&tot->ena);
		sum->c[cfg.nr + i].run += LOAD(&tot->run);
	}
}

/* ---- counters ---- */

static void group_close(struct thread *t)
{
	long psz = sysconf(_SC_PAGESIZE);

	for (unsigned i = 0; i < t->nfd; i++) {
		if (t->page[i])
			munmap((void *)t->page[i], (size_t)psz);
		t->page[i] = NULL;
		close(t->fd[i]);
	}
	t->nfd = 0;
	t->rdpmc = 0;
}

#if HAVE_RDPMC
static void pages_unmap(struct thread *t, long psz)
{
	for (unsigned i = 0; i < t->nfd; i++) {
		if (t->page[i])
			munmap((void *)t->page[i], (size_t)psz);
		t->page[i] = NULL;
	}
}

/*
 * Map each event's first page (no ring buffer) to read it with rdpmc. Mapping is also what lets this
 * process use rdpmc at all: with the default /sys/bus/event_source/devices/cpu/rdpmc = 1, the kernel sets
 * CR4.PCE only for an mm that has a perf event mapped. Any failure (mlock limit, capabilities missing)
 * leaves the group on read(), which counts the same.
 */
static void pages_map(struct thread *t)
{
	long psz = sysconf(_SC_PAGESIZE);

	for (unsigned g = 0; g < cfg.ngroups; g++) {
		unsigned i;

		if (!(cfg.rdpmc_candidate & 1u << g))
			continue;
		for (i = cfg.first[g]; i < cfg.first[g + 1]; i++) {
			void *p = mmap(NULL, (size_t)psz, PROT_READ, MAP_SHARED, t->fd[i], 0);

			if (p == MAP_FAILED)
				break;
			t->page[i] = p;
			if (!(t->page[i]->capabilities & cap_rdpmc) || !(t->page[i]->capabilities & cap_time))
				break;
		}
		if (i == cfg.first[g + 1])
			t->rdpmc |= 1u << g;
	}
	/* A page that cannot serve its whole group serves nothing: unmapped, as every page if none can. */
	if (!t->rdpmc) {
		pages_unmap(t, psz);
		return;
	}
	for (unsigned g = 0; g < cfg.ngroups; g++) {
		for (unsigned i = cfg.first[g]; i < cfg.first[g + 1] && !(t->rdpmc & 1u << g); i++) {
			if (t->page[i])
				munmap((void *)t->page[i], (size_t)psz);
			t->page[i] = NULL;
		}
	}
}

/*
 * Intel's topdown metric events report index (1 << 29) + 1: rdpmc then returns the packed PERF_METRICS
 * register, not a count, which only the kernel's read() decodes.
 */
#define RDPMC_METRICS (1u << 29)

/* tests/marker/test-rdpmc.c puts fakes here: the machines that run the tests have no PMU to read. */
#ifndef WS_MARKER_RDPMC
#define WS_MARKER_RDPMC rd_pmc
#define WS_MARKER_RDTSC rd_tsc
#endif
/* And tests/marker/test-marker-groups.c watches the order of the read() calls and the rdpmc ones. */
#ifndef WS_MARKER_READ
#define WS_MARKER_READ read
#endif

/*
 * Read every event of the group from user space, as include/uapi/linux/perf_event.h describes for
 * struct perf_event_mmap_page. Per event: inside the page's sequence lock take index, offset, pmc_width,
 * the time fields and the capabilities; rdpmc(index - 1) and rdtsc; retry if the lock moved. The kernel
 * only updates the page on this CPU while this thread is not running user code, so compiler barriers
 * suffice and an odd lock value is never seen. Then:
 *	count   = offset + the rdpmc value sign-extended from pmc_width bits
 *	delta   = time_offset + cyc * time_mult >> time_shift   (ns since the page was last updated; with
 *	          cap_user_time_short, cyc = time_cycles + ((cyc - time_cycles) & time_mask) first)
 *	enabled = time_enabled + delta; running = time_running + delta (index != 0: the event is running).
 * Returns -1, and the caller reads the group with read(), when an event is not on the PMU right now
 * (index 0: multiplexed out), is a topdown metric, or the page no longer offers rdpmc or user time.
 */
static int read_rdpmc_events(const struct thread *t, unsigned first, unsigned end, struct counts *out)
{
	for (unsigned i = first; i < end; i++) {
		volatile struct perf_event_mmap_page *pc = t->page[i];
		uint64_t caps, ena, run, toff, tcyc, tmask, cyc, quot, rem, delta, pmc;
		uint32_t seq, idx, mult;
		uint16_t width, shift;
		int64_t offset;

		do {
			seq = pc->lock;
			barrier();
			caps = pc->capabilities;
			idx = pc->index;
			if (!(caps & cap_rdpmc) || !(caps & cap_time) || !idx || ((idx - 1) & RDPMC_METRICS))
				return -1;
			offset = pc->offset;
			width = pc->pmc_width;
			ena = pc->time_enabled;
			run = pc->time_running;
			mult = pc->time_mult;
			shift = pc->time_shift;
			toff = pc->time_offset;
			tcyc = 0;
			tmask = ~(uint64_t)0;
			if (caps & cap_time_short) {
				tcyc = pc->time_cycles;
				tmask = pc->time_mask;
			}
			cyc = WS_MARKER_RDTSC();
			pmc = WS_MARKER_RDPMC(idx - 1);
			barrier();
		} while (pc->lock != seq);
		if (width > 0 && width < 64)
			pmc = (uint64_t)((int64_t)(pmc << (64 - width)) >> (64 - width));
		cyc = tcyc + ((cyc - tcyc) & tmask);
		/* cyc * mult >> shift without a 96-bit product: split cyc at the shift. */
		quot = shift < 64 ? cyc >> shift : 0;
		rem = shift < 64 ? cyc & (((uint64_t)1 << shift) - 1) : cyc;
		delta = toff + quot * mult + ((rem * mult) >> shift);
		out[i].val = (uint64_t)offset + pmc;
		out[i].ena = ena + delta;
		out[i].run = run + delta;
	}
	return 0;
}

/* Every event, when they are one group (tests/marker/test-rdpmc.c reads this way). */
static int read_rdpmc(const struct thread *t, struct counts *out)
{
	return read_rdpmc_events(t, 0, cfg.nr, out);
}
#else
static void pages_map(struct thread *t)
{
	(void)t;
}

static int read_rdpmc_events(const struct thread *t, unsigned first, unsigned end, struct counts *out)
{
	(void)t;
	(void)first;
	(void)end;
	(void)out;
	return -1;
}

static int read_rdpmc(const struct thread *t, struct counts *out)
{
	return read_rdpmc_events(t, 0, cfg.nr, out);
}
#endif

/* Read group g with one read() of its leader: each event gets its own group's times. */
static int read_group(const struct thread *t, unsigned g, struct counts *out)
{
	uint64_t buf[3 + 2 * MAX_EVENTS]; /* nr, time_enabled, time_running, { value, id } * nr */
	unsigned first = cfg.first[g], nr = cfg.first[g + 1] - first;
	size_t want = (3 + 2 * (size_t)nr) * sizeof(uint64_t);
	ssize_t n;

	do
		n = WS_MARKER_READ(t->fd[first], buf, want);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)want || buf[0] != nr) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	for (unsigned i = 0; i < nr; i++) {
		if (buf[4 + 2 * i] != t->id[first + i]) {
			errno = EIO;
			return -1;
		}
		out[first + i].val = buf[3 + 2 * i];
		out[first + i].ena = buf[1];
		out[first + i].run = buf[2];
	}
	return 0;
}

/*
 * Every group, `begin` at a region's begin. A counter read before a system call at the begin, or after one
 * at the end, counts the call inside the region: a read() is about a microsecond, thousands of cycles per
 * entry where the kernel is counted too. So the groups read in user space come last at the begin and first
 * at the end, around those that need read(), and their counts leave the calls out; a software group's
 * count takes in an rdpmc read or two instead, tens of nanoseconds.
 */
static inline int read_counts(const struct thread *t, struct counts *out, int begin)
{
	if (cfg.ngroups <= 1) {
		if ((t->rdpmc & 1) && read_rdpmc(t, out) == 0)
			return 0;
		return read_group(t, 0, out);
	}
	/* Pass 0 reads the groups of one kind, pass 1 the others: begin, read() first; end, rdpmc first. */
	for (unsigned pass = 0; pass < 2; pass++) {
		for (unsigned g = 0; g < cfg.ngroups; g++) {
			int user = !!(t->rdpmc & 1u << g);

			if (user != (pass == (unsigned)begin))
				continue;
			if (user && read_rdpmc_events(t, cfg.first[g], cfg.first[g + 1], out) == 0)
				continue;
			if (read_group(t, g, out) < 0)
				return -1;
		}
	}
	return 0;
}

static const char *open_hint(int err)
{
	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return " (this machine cannot count it)";
	case EACCES:
	case EPERM:
		return " (see /proc/sys/kernel/perf_event_paranoid)";
	case EMFILE:
	case ENFILE:
		return " (too close to the file descriptor limit)";
	default:
		return "";
	}
}

/*
 * Open this thread's groups. On failure returns -errno and names the event in *bad.
 *
 * Each leader is opened disabled (cfg.attr[first].disabled) and its whole group enabled once every group is
 * complete: a sibling added to a leader that is already counting is not scheduled until the thread next
 * switches in, so it silently misses everything before that (seen on Linux 6.18 with task-clock +
 * page-faults: the sibling read 0 in about one run in four).
 */
static int group_open(struct thread *t, unsigned *bad)
{
	int leader = -1, err;
	unsigned g = 0;

	t->nfd = 0;
	t->rdpmc = 0;
	for (unsigned i = 0; i < cfg.nr; i++) {
		long fd;

		if (i == cfg.first[g]) {
			leader = -1; /* the first event of group g leads it */
			g++;
		}
		fd = syscall(SYS_perf_event_open, &cfg.attr[i], 0, -1, leader, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			err = errno;
			goto fail;
		}
		t->fd[t->nfd++] = (int)fd;
		if (fd_ceiling && fd >= fd_ceiling) {
			err = EMFILE;
			goto fail;
		}
		if (ioctl((int)fd, PERF_EVENT_IOC_ID, &t->id[i]) < 0) {
			err = errno;
			goto fail;
		}
		if (leader < 0)
			leader = (int)fd;
		continue;
fail:
		group_close(t);
		*bad = i;
		return -err;
	}
	for (g = 0; g < cfg.ngroups; g++) {
		if (ioctl(t->fd[cfg.first[g]], PERF_EVENT_IOC_ENABLE, 0) < 0) {
			err = errno;
			group_close(t);
			*bad = cfg.first[g];
			return -err;
		}
	}
	if (cfg.rdpmc_candidate)
		pages_map(t);
	return 0;
}

/* ---- threads ---- */

static void thread_failed(struct thread *t, const char *what, int err)
{
	t->failed = 1;
	__atomic_fetch_add(&proc.failed, 1, __ATOMIC_RELAXED);
	say("cannot %s in thread %ld: %s; its regions are no longer counted", what, (long)syscall(SYS_gettid),
	     strerror(err));
}

static void thread_link(struct thread *t)
{
	t->prev = NULL;
	t->next = proc.live;
	if (proc.live)
		proc.live->prev = t;
	proc.live = t;
}

static void thread_unlink(struct thread *t)
{
	if (t->prev)
		t->prev->next = t->next;
	else if (proc.live == t)
		proc.live = t->next;
	if (t->next)
		t->next->prev = t->prev;
	t->prev = t->next = NULL;
}

static struct thread *thread_new(void)
{
	struct thread *t = calloc(1, sizeof(*t));
	unsigned bad = 0;
	int err;

	if (!t) {
		self = &dead;
		__atomic_fetch_add(&proc.threads, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&proc.failed, 1, __ATOMIC_RELAXED);
		say("out of memory in thread %ld; its regions are not counted", (long)syscall(SYS_gettid));
		return NULL;
	}
	err = group_open(t, &bad);
	self = t;
	/* If this fails the key destructor will not run: the thread then stays "live" and is read at exit. */
	pthread_setspecific(proc.key, t);
	pthread_mutex_lock(&proc.lock);
	thread_link(t);
	pthread_mutex_unlock(&proc.lock);
	__atomic_fetch_add(&proc.threads, 1, __ATOMIC_RELAXED);
	if (err < 0) {
		t->failed = 1;
		__atomic_fetch_add(&proc.failed, 1, __ATOMIC_RELAXED);
		say("cannot open %s in thread %ld: %s%s; its regions are not counted", cfg.name[bad],
		     (long)syscall(SYS_gettid), strerror(-err), open_hint(-err));
		return NULL;
	}
	return t;
}

static inline struct thread *thread_get(void)
{
	struct thread *t = self;

	if (__builtin_expect(t != NULL, 1))
		return t->failed ? NULL : t;
	return thread_new();
}

/* The pthread key destructor: fold this thread's totals into the process's. */
static void thread_exit(void *arg)
{
	struct thread *t = arg;
	unsigned nr = __atomic_load_n(&reg.nr, __ATOMIC_ACQUIRE);

	self = &dead;
	pthread_mutex_lock(&proc.lock);
	if (!proc.done) {
		for (unsigned id = 1; id <= nr; id++) {
			struct acc *m;

			if (!table_at(&t->acc, id))
				continue;
			m = table_get(&proc.merged, id);
			if (m)
				acc_add(m, &t->acc, id);
		}
	}
	thread_unlink(t);
	pthread_mutex_unlock(&proc.lock);
	group_close(t);
	table_free(&t->acc);
	free(t);
}

/* ---- the markers ---- */

static void perf_begin(unsigned id)
{
	int saved = errno;
	struct thread *t;
	struct acc *a;
	uint32_t d;

	if (!id || !(t = thread_get()) || !(a = table_get(&t->acc, id)))
		goto out;
	d = a->depth;
	STORE(&a->depth, d + 1);
	if (d == 0) {
		/* The clock first and the counters last, so the region's counts exclude the clock call. */
		a->t0 = now_ns();
		if (read_counts(t, a->c, 1) < 0) {
			STORE(&a->depth, 0);
			thread_failed(t, "read the counters", errno);
		}
	}
out:
	errno = saved;
}

static void perf_end(unsigned id)
{
	int saved = errno;
	struct counts now[MAX_EVENTS];
	struct thread *t;
	struct acc *a;
	uint64_t t1;
	uint32_t d;

	if (!id || !(t = thread_get()) || !(a = table_get(&t->acc, id)))
		goto out;
	d = a->depth;
	if (d == 0) {
		ADD(&a->unmatched, 1);
		goto out;
	}
	STORE(&a->depth, d - 1);
	if (d > 1)
		goto out;
	/* The counters first, the clock last: the mirror of perf_begin(). */
	if (read_counts(t, now, 0) < 0) {
		thread_failed(t, "read the counters", errno);
		goto out;
	}
	t1 = now_ns();
	ADD(&a->entries, 1);
	ADD(&a->wall_ns, t1 > a->t0 ? t1 - a->t0 : 0);
	for (unsigned i = 0; i < cfg.nr; i++) {
		const struct counts *s = &a->c[i];
		struct counts *tot = &a->c[cfg.nr + i];

		/* Counts only grow; a smaller value would be a kernel or hardware glitch, not a negative count. */
		ADD(&tot->val, now[i].val > s->val ? now[i].val - s->val : 0);
		ADD(&tot->ena, now[i].ena > s->ena ? now[i].ena - s->ena : 0);
		ADD(&tot->run, now[i].run > s->run ? now[i].run - s->run : 0);
	}
out:
	errno = saved;
}

static inline const char *reg_name(ws_region_t id)
{
	if (id <= 0 || id >= MAX_REGIONS)
		return NULL;
	return __atomic_load_n(&reg.name[id], __ATOMIC_ACQUIRE);
}

void ws_region_begin(const char *name)
{
	switch (LOAD(&mode)) {
	case MODE_SIM:
		if (name)
			SIM_REQUEST(WS_REQ_REGION_BEGIN, name);
		break;
	case MODE_PERF:
		perf_begin(reg_register(name));
		break;
	}
}

void ws_region_end(const char *name)
{
	switch (LOAD(&mode)) {
	case MODE_SIM:
		if (name)
			SIM_REQUEST(WS_REQ_REGION_END, name);
		break;
	case MODE_PERF:
		perf_end(reg_register(name));
		break;
	}
}

ws_region_t ws_region_register(const char *name)
{
	if (LOAD(&mode) == MODE_OFF)
		return 0;
	return (ws_region_t)reg_register(name);
}

void ws_region_begin_id(ws_region_t id)
{
	const char *name;

	switch (LOAD(&mode)) {
	case MODE_SIM:
		name = reg_name(id);
		if (name)
			SIM_REQUEST(WS_REQ_REGION_BEGIN, name);
		break;
	case MODE_PERF:
		if (reg_name(id))
			perf_begin((unsigned)id);
		break;
	}
}

void ws_region_end_id(ws_region_t id)
{
	const char *name;

	switch (LOAD(&mode)) {
	case MODE_SIM:
		name = reg_name(id);
		if (name)
			SIM_REQUEST(WS_REQ_REGION_END, name);
		break;
	case MODE_PERF:
		if (reg_name(id))
			perf_end((unsigned)id);
		break;
	}
}

/* ---- fork ---- */

static void fork_prepare(void)
{
	if (LOAD(&mode) != MODE_PERF)
		return;
	pthread_mutex_lock(&reg.lock);
	pthread_mutex_lock(&proc.lock);
	proc.fork_locked = 1;
}

static void fork_parent(void)
{
	if (!proc.fork_locked)
		return;
	proc.fork_locked = 0;
	pthread_mutex_unlock(&proc.lock);
	pthread_mutex_unlock(&reg.lock);
}

/*
 * The child is a new process with one thread: the counters it inherited belong to the parent's thread, and
 * the totals are the parent's to report. Start over: empty totals, a new group, and the regions active at
 * the fork re-based on it, so that they count the child's share. Only system calls here, no allocation.
 */
static void child_restart(struct thread *t)
{
	unsigned bad = 0;
	uint64_t t0;
	int err;

	/* The parent's other threads do not exist here; their states are left unreachable, not freed. */
	proc.live = NULL;
	proc.threads = proc.failed = 0;
	__atomic_store_n(&error_state, 0, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < NCHUNKS; i++)
		if (proc.merged.chunk[i])
			memset(proc.merged.chunk[i], 0, CHUNK * acc_size);
	if (!t || t == &dead)
		return;
	thread_link(t);
	proc.threads = 1;
	group_close(t);
	table_clear_totals(&t->acc);
	if (t->failed) {
		proc.failed = 1;
		return;
	}
	err = group_open(t, &bad);
	if (err < 0) {
		t->failed = 1;
		proc.failed = 1;
		say("cannot open %s in the child %ld: %s; its regions are not counted", cfg.name[bad],
		     (long)getpid(), strerror(-err));
		return;
	}
	t0 = now_ns();
	for (unsigned id = 1; id < MAX_REGIONS; id++) {
		struct acc *a = table_at(&t->acc, id);

		if (!a || !a->depth)
			continue;
		a->t0 = t0;
		if (read_counts(t, a->c, 1) < 0) {
			thread_failed(t, "read the counters", errno);
			return;
		}
	}
}

static void fork_child(void)
{
	struct thread *t = self;
	int saved = errno;

	if (!proc.fork_locked)
		return;
	proc.fork_locked = 0;
	pthread_mutex_unlock(&proc.lock);
	pthread_mutex_unlock(&reg.lock);
	child_restart(t);
	errno = saved;
}

/* ---- the file ---- */

static void put_name(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x21 || *p > 0x7e || *p == '%' || *p == ',' || *p == ':')
			fprintf(f, "%%%02X", *p);
		else
			putc(*p, f);
	}
}

/* Every region, summed over the exited threads and the live ones, in registration order. */
static void write_regions(FILE *f)
{
	unsigned nr = __atomic_load_n(&reg.nr, __ATOMIC_ACQUIRE);
	union {
		struct acc a;
		unsigned char bytes[sizeof(struct acc) + 2 * MAX_EVENTS * sizeof(struct counts)];
	} sum;

	for (unsigned id = 1; id <= nr; id++) {
		memset(&sum, 0, sizeof(sum));
		acc_add(&sum.a, &proc.merged, id);
		for (struct thread *t = proc.live; t; t = t->next)
			acc_add(&sum.a, &t->acc, id);
		fputs("region ", f);
		put_name(f, __atomic_load_n(&reg.name[id], __ATOMIC_ACQUIRE));
		fprintf(f, " %llu %llu %llu", (unsigned long long)sum.a.entries,
			(unsigned long long)sum.a.wall_ns, (unsigned long long)sum.a.unmatched);
		for (unsigned i = 0; i < cfg.nr; i++) {
			const struct counts *c = &sum.a.c[cfg.nr + i];

			fprintf(f, " %llu %llu %llu", (unsigned long long)c->val, (unsigned long long)c->ena,
				(unsigned long long)c->run);
		}
		putc('\n', f);
	}
}

/*
 * Write PREFIX.PID through a temporary file, so whyslow never reads half a file. link() rather than
 * rename() publishes it: it refuses to replace an existing name, so a pid reused within one run takes
 * PREFIX.PID-1 instead of destroying the earlier process's file. No fsync: the reader is whyslow on this
 * machine after this process has exited, and fsync would add disk latency to the measured run.
 */
static void write_file(void)
{
	long pid = (long)getpid();
	size_t plen = strlen(cfg.out) + 48;
	char *tmp = malloc(plen), *path = malloc(plen);
	FILE *f = NULL;
	int err = 0;

	if (!tmp || !path) {
		err = ENOMEM;
		goto out;
	}
	snprintf(tmp, plen, "%s.%ld.tmp", cfg.out, pid);
	f = fopen(tmp, "we");
	if (!f) {
		err = errno;
		goto out;
	}
	pthread_mutex_lock(&proc.lock);
	proc.done = 1;
	fprintf(f, "%s %d\npid %ld\nthreads %llu\nfailed %llu\n", WS_MARKERS_FILE_MAGIC, WS_MARKERS_FILE_VERSION,
		pid, (unsigned long long)LOAD(&proc.threads), (unsigned long long)LOAD(&proc.failed));
	if (__atomic_load_n(&error_state, __ATOMIC_ACQUIRE) == 2)
		fprintf(f, "error %s\n", error_msg);
	fprintf(f, "events %u\n", cfg.nr);
	for (unsigned i = 0; i < cfg.nr; i++)
		fprintf(f, "event %s\n", cfg.name[i]);
	write_regions(f);
	pthread_mutex_unlock(&proc.lock);
	fputs("end\n", f);
	if (ferror(f))
		err = EIO;
	if (fclose(f) != 0 && !err)
		err = errno;
	if (err) {
		unlink(tmp);
		goto out;
	}
	for (unsigned n = 0;; n++) {
		if (n)
			snprintf(path, plen, "%s.%ld-%u", cfg.out, pid, n);
		else
			snprintf(path, plen, "%s.%ld", cfg.out, pid);
		if (link(tmp, path) == 0)
			break;
		if (errno == EEXIST && n < 1000)
			continue;
		/* A file system without hard links: rename, which does replace. */
		if (errno != EEXIST && rename(tmp, path) == 0)
			goto out;
		err = errno;
		break;
	}
	unlink(tmp);
out:
	if (err)
		say("cannot write %s.%ld: %s", cfg.out, pid, strerror(err));
	free(tmp);
	free(path);
}

/* ---- set-up and tear-down ---- */

/* Parse one number of an event token: decimal, or hexadecimal after "0x". */
static int parse_num(const char *s, size_t n, int hex, uint64_t *v)
{
	uint64_t x = 0;
	unsigned base = hex ? 16 : 10;

	if (hex) {
		if (n < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
			return -1;
		s += 2;
		n -= 2;
	}
	if (!n || n > 20)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned d;

		if (s[i] >= '0' && s[i] <= '9')
			d = (unsigned)(s[i] - '0');
		else if (hex && s[i] >= 'a' && s[i] <= 'f')
			d = (unsigned)(s[i] - 'a' + 10);
		else if (hex && s[i] >= 'A' && s[i] <= 'F')
			d = (unsigned)(s[i] - 'A' + 10);
		else
			return -1;
		if (x > (UINT64_MAX - d) / base)
			return -1;
		x = x * base + d;
	}
	*v = x;
	return 0;
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A percent-encoded name: printable, no separators, escapes well formed. */
static int valid_name(const char *s, size_t n)
{
	if (!n || n > MAX_EVENT_TOKEN)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x21 || c > 0x7e || c == ',' || c == ':')
			return 0;
		if (c == '%' && (i + 2 >= n || !is_hex(s[i + 1]) || !is_hex(s[i + 2])))
			return 0;
	}
	return 1;
}

/*
 * Make the events groups of sizes[0..n), in order: the leaders start disabled (group_open() enables each
 * group once all are complete), and a group of events the PMU counts may be read with rdpmc.
 */
static void groups_set(const unsigned *sizes, unsigned n)
{
	unsigned i = 0;

	cfg.ngroups = n;
	cfg.rdpmc_candidate = 0;
	for (unsigned g = 0; g < n; g++) {
		cfg.first[g] = i;
		if (HAVE_RDPMC)
			cfg.rdpmc_candidate |= 1u << g;
		for (unsigned k = 0; k < sizes[g]; k++, i++) {
			const struct perf_event_attr *a = &cfg.attr[i];

			cfg.attr[i].disabled = k == 0;
			/* Software, tracepoint and breakpoint events are never readable with rdpmc. */
			if (a->type == PERF_TYPE_SOFTWARE || a->type == PERF_TYPE_TRACEPOINT ||
			    a->type == PERF_TYPE_BREAKPOINT)
				cfg.rdpmc_candidate &= ~(1u << g);
		}
	}
	cfg.first[n] = i;
}

/* WHYSLOW_MARKERS_GROUPS: N[,N...], sizes adding up to the events'. Returns 0 or -1 (message set). */
static int parse_groups(const char *s, char *why, size_t whylen)
{
	unsigned sizes[MAX_EVENTS], n = 0, sum = 0;

	while (*s) {
		const char *end = strchr(s, ',');
		uint64_t v;

		if (!end)
			end = s + strlen(s);
		if (n == MAX_EVENTS || parse_num(s, (size_t)(end - s), 0, &v) < 0 || !v || v > cfg.nr - sum) {
			snprintf(why, whylen, "group %u is not a size from 1 to the events left", n + 1);
			return -1;
		}
		sizes[n++] = (unsigned)v;
		sum += (unsigned)v;
		s = *end ? end + 1 : end;
		if (*end && !*s) {
			snprintf(why, whylen, "a trailing comma");
			return -1;
		}
	}
	if (sum != cfg.nr) {
		snprintf(why, whylen, "the groups hold %u events, not %u", sum, cfg.nr);
		return -1;
	}
	groups_set(sizes, n);
	return 0;
}

/*
 * WHYSLOW_MARKERS_EVENTS: TYPE:CONFIG:CONFIG1:CONFIG2:EXCLUDE:NAME[,...], one group until parse_groups().
 * Returns 0 or -1 (message set).
 */
static int parse_events(const char *s, char *why, size_t whylen)
{
	cfg.nr = 0;
	cfg.ngroups = 0;
	while (*s) {
		const char *end = strchr(s, ','), *f[6];
		size_t len[6];
		uint64_t v[5];
		struct perf_event_attr *a;
		unsigned k = 0;

		if (!end)
			end = s + strlen(s);
		if (cfg.nr == MAX_EVENTS) {
			snprintf(why, whylen, "more than %d events", MAX_EVENTS);
			return -1;
		}
		for (const char *p = s; k < 6; k++) {
			const char *c = memchr(p, ':', (size_t)(end - p));

			f[k] = p;
			if (k == 5 || !c) {
				len[k] = (size_t)(end - p);
				k++;
				break;
			}
			len[k] = (size_t)(c - p);
			p = c + 1;
		}
		if (k != 6 || memchr(f[5], ':', len[5])) {
			snprintf(why, whylen, "event %u does not have the six fields TYPE:CONFIG:CONFIG1:CONFIG2:EXCLUDE:NAME",
				 cfg.nr + 1);
			return -1;
		}
		for (unsigned i = 0; i < 5; i++) {
			if (parse_num(f[i], len[i], i > 0, &v[i]) < 0) {
				snprintf(why, whylen, "event %u: field %u is not a %s number", cfg.nr + 1, i + 1,
					 i ? "0x-hexadecimal" : "decimal");
				return -1;
			}
		}
		if (v[0] > UINT32_MAX || v[4] > 7 || !valid_name(f[5], len[5])) {
			snprintf(why, whylen, "event %u: %s", cfg.nr + 1,
				 v[0] > UINT32_MAX ? "TYPE out of range"
				 : v[4] > 7      ? "EXCLUDE has bits other than 1, 2 and 4"
						 : "NAME is empty, too long or badly percent-encoded");
			return -1;
		}
		a = &cfg.attr[cfg.nr];
		memset(a, 0, sizeof(*a));
		a->size = sizeof(*a);
		a->type = (uint32_t)v[0];
		a->config = v[1];
		a->config1 = v[2];
		a->config2 = v[3];
		a->exclude_user = !!(v[4] & WS_MARKERS_EXCLUDE_USER);
		a->exclude_kernel = !!(v[4] & WS_MARKERS_EXCLUDE_KERNEL);
		a->exclude_hv = !!(v[4] & WS_MARKERS_EXCLUDE_HV);
		a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
				 PERF_FORMAT_TOTAL_TIME_RUNNING;
		cfg.name[cfg.nr] = strndup(f[5], len[5]);
		if (!cfg.name[cfg.nr]) {
			snprintf(why, whylen, "out of memory");
			return -1;
		}
		cfg.nr++;
		s = *end ? end + 1 : end;
		if (*end && !*s) {
			snprintf(why, whylen, "a trailing comma");
			return -1;
		}
	}
	if (!cfg.nr) {
		snprintf(why, whylen, "no events");
		return -1;
	}
	groups_set(&cfg.nr, 1);
	return 0;
}

static void caps_init(void)
{
	struct perf_event_mmap_page p;

	memset(&p, 0, sizeof(p));
	p.cap_user_rdpmc = 1;
	cap_rdpmc = p.capabilities;
	p.capabilities = 0;
	p.cap_user_time = 1;
	cap_time = p.capabilities;
	p.capabilities = 0;
	p.cap_user_time_short = 1;
	cap_time_short = p.capabilities;
}

static void cfg_release(void)
{
	for (unsigned i = 0; i < cfg.nr; i++) {
		free(cfg.name[i]);
		cfg.name[i] = NULL;
	}
	cfg.nr = 0;
	cfg.ngroups = 0;
	free(cfg.out);
	cfg.out = NULL;
}

static void init_perf(void)
{
	const char *events = secure_getenv(WS_MARKERS_ENV_EVENTS);
	const char *groups = secure_getenv(WS_MARKERS_ENV_GROUPS);
	const char *out = secure_getenv(WS_MARKERS_ENV_OUT);
	char why[200], *dir = NULL, *slash;
	struct thread *t = NULL;
	struct rlimit rl;
	unsigned bad = 0;
	int err;

	if (!events || !*events) {
		say("WHYSLOW_MARKERS=perf without %s; markers are off", WS_MARKERS_ENV_EVENTS);
		return;
	}
	if (parse_events(events, why, sizeof(why)) < 0) {
		say("bad %s: %s; markers are off", WS_MARKERS_ENV_EVENTS, why);
		goto fail;
	}
	if (groups && *groups && parse_groups(groups, why, sizeof(why)) < 0) {
		say("bad %s: %s; markers are off", WS_MARKERS_ENV_GROUPS, why);
		goto fail;
	}
	if (!out || !*out || strlen(out) >= PATH_MAX - 48) {
		say("WHYSLOW_MARKERS=perf without a usable %s; markers are off", WS_MARKERS_ENV_OUT);
		goto fail;
	}
	cfg.out = strdup(out);
	dir = strdup(out);
	if (!cfg.out || !dir) {
		say("out of memory; markers are off");
		goto fail;
	}
	/* Check now that the file can be written at exit, rather than lose the run then. */
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	if (access(dir, W_OK | X_OK) < 0) {
		say("cannot write to %s: %s; markers are off", dir, strerror(errno));
		goto fail;
	}
	caps_init();
	acc_size = sizeof(struct acc) + 2 * cfg.nr * sizeof(struct counts);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < LONG_MAX) {
		long lim = (long)rl.rlim_cur, reserve = lim / 4;

		if (reserve < 64)
			reserve = lim / 2 < 64 ? lim / 2 : 64;
		fd_ceiling = lim - reserve > 1 ? lim - reserve : 1;
	}
	err = pthread_key_create(&proc.key, thread_exit);
	if (err) {
		say("pthread_key_create: %s; markers are off", strerror(err));
		goto fail;
	}
	/* Open this thread's group now: if the events cannot be counted at all, say so before main(). */
	t = calloc(1, sizeof(*t));
	if (!t) {
		say("out of memory; markers are off");
		goto fail_key;
	}
	err = group_open(t, &bad);
	if (err < 0) {
		say("cannot count %s: %s%s; markers are off", cfg.name[bad], strerror(-err), open_hint(-err));
		goto fail_key;
	}
	err = pthread_atfork(fork_prepare, fork_parent, fork_child);
	if (err) {
		group_close(t);
		say("pthread_atfork: %s; markers are off", strerror(err));
		goto fail_key;
	}
	self = t;
	pthread_setspecific(proc.key, t);
	thread_link(t);
	proc.threads = 1;
	free(dir);
	STORE(&mode, MODE_PERF);
	STORE(&ws_markers_active, 1);
	return;
fail_key:
	free(t);
	pthread_key_delete(proc.key);
fail:
	free(dir);
	cfg_release();
}

static void init_sim(void)
{
	const char *force = secure_getenv(WS_MARKERS_ENV_FORCE);

	if (SIM_PING() != WS_REQ_MAGIC && !(force && !strcmp(force, "1"))) {
#ifdef WS_HAVE_VALGRIND_H
		say("WHYSLOW_MARKERS=sim but this process is not running under whyslow's simulator; markers are off");
#else
		say("WHYSLOW_MARKERS=sim but libwhyslow was built without <valgrind/valgrind.h>; markers are off");
#endif
		return;
	}
	STORE(&mode, MODE_SIM);
	STORE(&ws_markers_active, 1);
}

/*
 * secure_getenv: a set-uid program ignores the variables, so that nobody can make it write files where
 * its privileges allow and theirs do not.
 */
static void __attribute__((constructor)) ws_init(void)
{
	int saved = errno;
	const char *m = secure_getenv(WS_MARKERS_ENV_MODE);

	if (m && *m) {
		if (!strcmp(m, "perf"))
			init_perf();
		else if (!strcmp(m, "sim"))
			init_sim();
		else
			say("%s=%.32s is neither perf nor sim; markers are off", WS_MARKERS_ENV_MODE, m);
	}
	errno = saved;
}

/*
 * At exit (or dlclose): stop the markers first, so that code running after this, and other threads, find
 * them off; then write the file. Nothing a live thread may still touch is freed. Deleting the key keeps
 * glibc from calling thread_exit() in an unloaded library.
 */
static void __attribute__((destructor)) ws_fini(void)
{
	int saved = errno;
	int m = LOAD(&mode);

	if (m == MODE_OFF)
		return;
	STORE(&ws_markers_active, 0);
	STORE(&mode, MODE_OFF);
	if (m == MODE_PERF) {
		write_file();
		pthread_key_delete(proc.key);
	}
	errno = saved;
}
