/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile.h - per-function sampling profiles of a command and all its threads and children, as perf record. */
#ifndef WS_PROFILE_H
#define WS_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct perf_event_attr;
struct ws_symbols;
struct ws_inline;

/*
 * How a run is profiled: one sampling event per online CPU, attached to the child's pid with inherit=1 (so
 * every thread and every descendant is sampled), disabled until the child's exec (enable_on_exec), each with
 * its own ring buffer, as `perf record -F HZ -- CMD` does. MMAP2/COMM/FORK records track which object is
 * mapped where in each process, so every sample lands in an object; after the run the samples are
 * symbolized with elfutils and summed per function.
 *
 * The call order, in a runner that forks the child and keeps it stopped before exec:
 *
 *	pid = fork();                        child: wait on a pipe, then execvp()
 *	ws_profile_open(&p, pid, &opts);     before the child is released
 *	(release the child; it execs and sampling starts at the exec)
 *	while the child runs:
 *		ws_profile_poll(p);              every ~100 ms, or when ws_profile_fds() are readable
 *	wait4(pid, ...);                     reap it (all its records are written by then)
 *	ws_profile_finish(p, &fp);           drain, symbolize, aggregate into fp
 *	ws_profile_close(p);
 *	... use fp ...; ws_fn_profile_release(&fp);
 *
 * When the run fails before finish (exec failed, Ctrl-C), ws_profile_close() alone releases everything.
 * A profile is used by one thread. Nothing here prints or exits: failures return -errno and are explained
 * in one ws_log() line.
 */
struct ws_profile;

/*
 * The perf_event_open(2) system call, or a stand-in for fault injection in tests (a fake PMU, an errno on the
 * Nth open). Same contract as the system call: a file descriptor or -1 with errno set.
 */
typedef int (*ws_perf_open_fn)(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			       unsigned long flags);

/* How a profile records call chains (ws_profile_opts.call_graph). */
enum ws_call_graph {
	WS_CALL_GRAPH_NONE,  /* samples only: no callers, no inclusive shares */
	WS_CALL_GRAPH_FP,    /* the kernel's frame-pointer walk, a frameless leaf's caller put back (callchain.h) */
	WS_CALL_GRAPH_DWARF, /* DWARF unwinding of a copy of the user stack, as perf record --call-graph dwarf */
};

/* "none", "fp", "dwarf". */
const char *ws_call_graph_name(enum ws_call_graph cg);

#define WS_PROFILE_DEFAULT_FREQ 4000 /* perf record's default rate */
#define WS_PROFILE_DEFAULT_PAGES 128 /* 512 KiB per CPU: perf's default for an unprivileged user */

struct ws_profile_opts {
	/*
	 * Samples per second of CPU time (per CPU), in frequency mode; 0 means WS_PROFILE_DEFAULT_FREQ. Lowered,
	 * with an info line, to kernel.perf_event_max_sample_rate when above it, unless `freq_checked`.
	 */
	unsigned freq;
	/* `freq` is within the kernel's limit already: ws_profile_clip_freq() said so once for many profiles. */
	bool freq_checked;
	/*
	 * The CPUs to sample on, one ring each (borrowed): ws_profile_online_cpus() read once for many profiles.
	 * NULL (or nr_cpus 0) reads the online CPUs at each open.
	 */
	const int *cpus;
	size_t nr_cpus;
	/*
	 * The sampled event: NULL for the default, "cycles" where the PMU counts it and "cpu-clock" otherwise
	 * (the fallback is logged at debug level). An explicit name (cycles, cpu-clock, task-clock,
	 * instructions, ...) is used as given, without fallback.
	 */
	const char *event;
	/*
	 * A second event to attribute per function (--functions=EVENT), e.g. "L1-dcache-load-misses" or
	 * "branch-misses"; NULL for none. Generic perf names, or any name libpfm4 knows. Its samples share the
	 * rings of the first event and are told apart by sample id.
	 */
	const char *extra_event;
	/*
	 * The second event's sampling period in events; 0 samples it in frequency mode at `freq` instead, which
	 * keeps the sample rate bounded whatever the event's rate (a fixed period small enough for a rare event
	 * gets a frequent one throttled by the kernel, and throttling biases the profile). Either way a
	 * function's estimate is the sum of its samples' periods.
	 */
	uint64_t extra_period;
	/* Data pages per CPU ring, a power of two; 0 means WS_PROFILE_DEFAULT_PAGES. Halved on EPERM/ENOMEM. */
	unsigned ring_pages;
	/* Line tables for the `line_fns` hottest functions, their `lines_per_fn` hottest lines each (0: none). */
	unsigned line_fns;
	unsigned lines_per_fn;
	/*
	 * A symbol cache to use and keep filling (borrowed, must outlive the profile), so that successive runs
	 * read each object once; NULL for a private cache freed with the profile.
	 */
	struct ws_symbols *symbols;
	/* perf_event_open stand-in for tests; NULL for the system call. */
	ws_perf_open_fn open_fn;
	/*
	 * Call chains of the first event's samples. DWARF copies 8 KiB of stack per sample: give it more ring
	 * pages (ring_pages; the backend gives 1024).
	 */
	enum ws_call_graph call_graph;
};

#define WS_PROFILE_OPTS_INIT \
	{ .freq = WS_PROFILE_DEFAULT_FREQ, .ring_pages = WS_PROFILE_DEFAULT_PAGES, .line_fns = 10, .lines_per_fn = 5 }

/* The hottest source lines of a function. */
struct ws_fn_line {
	char *file;       /* source file as the DWARF line table names it */
	unsigned line;
	uint64_t samples; /* first-event samples at this line */
	/* The inline chain of the line's hottest address, innermost first (copies, owned here); may be empty. */
	struct ws_inline *inlined;
	size_t nr_inlined;
};

/* One function's part of a run's samples. */
struct ws_fn {
	/*
	 * The function's name, demangled (lib/symbols/names.h), "memcpy@plt" for a PLT stub; or for addresses no
	 * symbol covers in `object` (a stripped object) "[unknown]+0x1f2a0", the link address of the .eh_frame
	 * frame holding them (lib/symbols/symbols.h, ws_symobj_unnamed), or "[unknown]" where no frame does; or
	 * "[kernel]" for samples taken in the kernel. Symbols of one object that demangle to one name are one function here.
	 */
	char *name;
	char **symbols;   /* those symbols as in the object (mangled), distinct; none for the bracketed rows */
	size_t nr_symbols;
	/*
	 * The mapped object: the path from the MMAP2 record ("/usr/lib/x86_64-linux-gnu/libc.so.6"), a kernel
	 * name for a non-file mapping ("[vdso]", "//anon"), "[kernel.kallsyms]" for kernel samples, or
	 * "[unknown]" for a user address outside every known mapping.
	 */
	char *object;
	uint64_t samples;       /* samples of the first event */
	uint64_t period;        /* the sum of their periods: cycles, or nanoseconds for cpu-clock */
	double share;           /* period / ws_fn_profile.period: the quantity whyslow compares across runs */
	uint64_t extra_samples; /* samples of the second event, when one was asked for */
	uint64_t extra_period;  /* the sum of their periods: the estimated count of that event here */
	double extra_share;     /* extra_period / ws_fn_profile.extra_period */
	bool unknown;           /* name is one of the bracketed buckets, not a symbol */
	struct ws_fn_line *lines; /* hottest lines first; NULL unless among the line_fns hottest */
	size_t nr_lines;
	/*
	 * With call chains: the first event's samples with this function anywhere on the stack (once per
	 * sample, however deep it recurses), and those split by the function that called its outermost
	 * activation. `caller` indexes ws_fn_profile.fns. A function seen only as a caller has samples 0.
	 */
	uint64_t inclusive_samples, inclusive_period;
	double inclusive_share; /* inclusive_period / ws_fn_profile.period */
	struct ws_fn_caller {
		size_t caller;
		uint64_t samples, period;
		double share;   /* period / ws_fn_profile.period: of all the run's samples, as inclusive_share */
	} *callers;         /* most period first */
	size_t nr_callers;
};

/* A whole call stack and the first event's samples taken with it (call chains only). */
struct ws_fn_stack {
	size_t *fns;        /* indexes into ws_fn_profile.fns, outermost first */
	size_t n;
	uint64_t samples, period;
};

/* A run's profile: every sample attributed to a function, none dropped. */
struct ws_fn_profile {
	char *event;          /* the event sampled: "cycles" or "cpu-clock" (after fallback) */
	char *extra_event;    /* the second event, or NULL */
	/*
	 * On a hybrid CPU, the core PMUs whose CPUs lack the second event (Alder Lake's cpu_atom has no L1d
	 * read miss), or whose CPUs another core PMU's own event cannot count ("cpu_atom", "cpu_atom and
	 * cpu_lowpower"), so that it was sampled on the others only: its shares are of the time there. Else NULL.
	 */
	char *extra_skipped;
	unsigned freq;        /* the effective rate, after clipping */
	uint64_t samples;     /* first-event samples, all of them in fns[] */
	uint64_t period;      /* the sum of their periods */
	uint64_t extra_samples;
	uint64_t extra_period;
	/*
	 * Records the kernel could not write because a ring was full (PERF_RECORD_LOST and LOST_SAMPLES): almost
	 * all samples. Nonzero means the shares are from a subset; poll more often or give more ring pages.
	 */
	uint64_t lost;
	/*
	 * Rings found full at a read and not followed by a LOST record: they dropped records that `lost` does
	 * not count (the kernel reports a loss only at a ring's next write, and a run that ends with a full
	 * ring has none). Nonzero means the shares are from an unknown subset.
	 */
	unsigned full_rings;
	uint64_t throttled;   /* times the kernel throttled sampling (PERF_RECORD_THROTTLE): rate too high */
	struct ws_fn *fns;    /* by period, highest first; ties by object, then name */
	size_t nr_fns;
	/*
	 * Functions inlined into others, from DWARF inline information (as perf report --inline): each one's
	 * samples are those whose address lies in code inlined from it, wherever it was inlined. They are also
	 * in the fns[] row of the function holding that code, so these rows overlap fns[] and do not add up
	 * with it. Same order; `symbols` empty, `lines` none.
	 */
	struct ws_fn *inlined;
	size_t nr_inlined;
	enum ws_call_graph call_graph; /* how the chains were recorded (NONE: not at all) */
	uint64_t chain_samples;        /* first-event samples with more than their own frame */
	struct ws_fn_stack *stacks;    /* distinct stacks, most period first */
	size_t nr_stacks;
};

/*
 * Open the sampling events for `pid`, a child that has not exec'd yet, and map their rings. Sampling starts
 * when the child execs (enable_on_exec); its threads and children are followed (inherit). `opts` may be
 * NULL for the defaults; it is copied, except `symbols`, which is borrowed.
 *
 * Returns 0 with *out set (free it with ws_profile_close()), or -errno with *out NULL, after one ws_log()
 * error line: -EOPNOTSUPP when this machine cannot sample the event asked for ("unsupported on this
 * machine", e.g. a hardware event without a PMU), -EINVAL for an event name nobody knows, -EACCES when
 * kernel.perf_event_paranoid forbids it (the line names the sysctl), -ESRCH when pid is gone, -EMFILE when out
 * of file descriptors (one per CPU per event).
 */
int ws_profile_open(struct ws_profile **out, pid_t pid, const struct ws_profile_opts *opts);

/*
 * `freq` lowered to kernel.perf_event_max_sample_rate when above it, with an info line saying so: what
 * ws_profile_open() does unless told `freq_checked`, for a caller that opens a profile per run.
 */
unsigned ws_profile_clip_freq(unsigned freq);

/* The test hook for the kernel's sampling limit: ws_profile_clip_freq() reads `hz` (0: the kernel's again). */
void ws_profile_inject_max_rate(unsigned hz);

/*
 * The online CPUs (sysfs, else 0..n-1 from sysconf) into *cpus, which the caller frees; returns how many
 * (at least one). What ws_profile_open() reads unless given `cpus`.
 */
size_t ws_profile_online_cpus(int **cpus);

/*
 * Move the records waiting in the rings into the profile, so that the rings do not fill on a long run (a full
 * ring drops samples, counted in `lost`). Cheap when there is nothing to read. A 512 KiB ring holds about
 * 2.5 s of samples at 4 kHz, so every 100 ms leaves a wide margin. Returns 0; never fails.
 */
int ws_profile_poll(struct ws_profile *p);

/*
 * The ring file descriptors, for a runner that poll(2)s them with POLLIN beside its own: each becomes readable
 * when its ring is half full, and reports POLLHUP for good once the child has exited (so stop polling them
 * then, or the poll never sleeps). Copies at most `max` into fds and returns how many there are (one per
 * online CPU). The descriptors stay owned by the profile.
 */
size_t ws_profile_fds(const struct ws_profile *p, int *fds, size_t max);

/*
 * After the child was reaped: read what is left in the rings, symbolize and sum per function into *out.
 * Call once. Returns 0, with *out owned by the caller (ws_fn_profile_release()); a run without samples
 * (it exited at once, or its exec failed) is a valid, empty profile. Never fails otherwise: objects that
 * cannot be read give "[unknown]" rows, and a stripped object gets one info line suggesting symbols.
 */
int ws_profile_finish(struct ws_profile *p, struct ws_fn_profile *out);

/* Close the events, unmap the rings, free the profile (and its private symbol cache). NULL is a no-op. */
void ws_profile_close(struct ws_profile *p);

/* Free what a ws_fn_profile holds and zero it. */
void ws_fn_profile_release(struct ws_fn_profile *fp);

/*
 * Check an event name before any run, so that a typo is a usage error, not a failed measurement. Returns 0
 * when the name is known (it may still be unsupported on this machine), or -EINVAL after logging one line
 * with the closest known names.
 */
int ws_profile_event_check(const char *name);

#endif
