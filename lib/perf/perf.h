/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perf.h - perf_event_open helpers: errno triage, multiplexing scaling, machine facts, fault injection. */
#ifndef WS_PERF_H
#define WS_PERF_H

#include <linux/perf_event.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * A hybrid CPU's core PMU in a generic event's config (Linux 5.13's uapi): defined here for older headers
 * (Debian 11's 5.10), where a kernel that knows them answers as well.
 */
#ifndef PERF_PMU_TYPE_SHIFT
#define PERF_PMU_TYPE_SHIFT 32
#endif
#ifndef PERF_HW_EVENT_MASK
#define PERF_HW_EVENT_MASK 0xffffffffULL
#endif

/*
 * Scale a multiplexed count: value = raw * enabled / running, share = running / enabled. Returns false,
 * with *value NAN, when the counter never ran (running == 0): "not counted", never 0.
 */
bool ws_perf_scale(uint64_t raw, uint64_t enabled, uint64_t running, double *value, double *share);

enum ws_perf_errclass {
	WS_PERF_UNSUPPORTED, /* this machine cannot count it: ENOENT, ENODEV, EOPNOTSUPP, EINVAL, EBUSY, ... */
	WS_PERF_DENIED,      /* EACCES, EPERM: perf_event_paranoid or a security policy */
	WS_PERF_RETRY,       /* EINTR */
	WS_PERF_FATAL,       /* EMFILE, ENFILE, ENOMEM: nothing else can open either */
};

/*
 * The one place where perf_event_open's errno is sorted. *reason (caller frees) gets one line for the user
 * that names the fix where there is one (the exact sysctl, the file limit).
 */
enum ws_perf_errclass ws_perf_triage(int err, const struct perf_event_attr *attr, char **reason);

/*
 * Whether `a` is a software event the kernel counts with its own registers (context-switches,
 * cpu-migrations): with exclude_kernel it always reads 0, whatever the command does.
 */
bool ws_perf_kernel_only(const struct perf_event_attr *a);

/* /proc/sys/kernel/perf_event_paranoid, or INT32_MIN when it cannot be read. */
int ws_perf_paranoid(void);

/*
 * How often, in ms, the kernel rotates the counter groups it multiplexes on the cores: the longest
 * perf_event_mux_interval_ms of the core PMUs in sysfs, else 10 (the longest default, HZ=100). Read once.
 */
unsigned ws_perf_mux_interval_ms(void);

/* True when a hardware event (instructions) opens on this process: there is a usable PMU. */
bool ws_perf_pmu_usable(void);

/*
 * perf_event_open with EINTR retried, through the fault injector. `name` is the metric name, used to
 * match injected faults. Returns the fd, or -errno.
 */
int ws_perf_open(const char *name, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		 unsigned long flags);
/* Read {value, time_enabled, time_running} (read_format TOTAL_TIME_ENABLED|RUNNING). 0 or -errno. */
int ws_perf_read(const char *name, int fd, uint64_t v[3]);

/*
 * Fault injection for tests. Each fault applies to the event of that metric name:
 *   open_errno > 0   perf_event_open fails with it (after `eintr` EINTR failures, if any);
 *   share >= 0       reads report time_running = share * time_enabled (0: never ran);
 *   fake             the event opens as a software task-clock counter instead, so that the paths only a
 *                    PMU reaches (hardware groups, splitting, scaling) run on a machine without one;
 *   ingroup          EINVAL, but only when the event joins a group (a group the PMU cannot fit);
 *   user_only        EACCES unless attr.exclude_kernel is set, as under perf_event_paranoid=2 (which
 *                    ws_perf_paranoid() then reads, whatever this machine's setting).
 * A fault with `pmu` set applies only to the event's copy on that core PMU of a hybrid CPU (the extended
 * type in config, or the event's own type); its open_errno and eintr come before the event's own faults.
 * Several faults may name the same event; they combine. ws_perf_inject(NULL, 0) clears.
 * ws_perf_inject_env() parses WHYSLOW_TEST_PERF_FAULTS, a list like
 * "cycles=fake,cycles=share:0.5,page-faults=never,branches=EINTR:2,LLC-loads=ENOENT,slots=user-only" where
 * "EVENT@PMU=FAULT" names one copy ("L1-dcache-load-misses@cpu_atom=ENOENT"), and sets the fake hybrid
 * CPU below from WHYSLOW_TEST_HYBRID=1 (test interfaces, not for users).
 */
struct ws_perf_fault {
	const char *event;
	const char *pmu;  /* NULL: every copy */
	int open_errno;
	int eintr;
	double share;   /* < 0: none */
	bool fake;
	bool ingroup;
	bool user_only;
};

void ws_perf_inject(const struct ws_perf_fault *faults, size_t n);
int ws_perf_inject_env(void);

/*
 * Hybrid CPUs (Intel P+E cores): the core PMUs' perf types, e.g. cpu_core and cpu_atom. Returns the count.
 * The names are static strings.
 */
int ws_perf_hybrid_pmus(unsigned types[], const char *names[], int max);

/* The most core PMUs a hybrid CPU has: cpu_core, cpu_atom and Arrow Lake-H's cpu_lowpower. */
#define WS_PERF_MAX_CORE_TYPES 3

/*
 * The CPUs of hybrid core PMU `name` ("cpu_atom"), from sysfs, into *set. Returns 0, or -1 where they
 * cannot be read. Under the test hook below, cpu_core has CPU 0 and cpu_atom every other.
 */
int ws_perf_hybrid_pmu_cpus(const char *name, cpu_set_t *set);

/*
 * The test hook for a hybrid CPU: while on, ws_perf_hybrid_pmus() answers cpu_core (type 4, PERF_TYPE_RAW)
 * and cpu_atom (type 10), as on Alder Lake, so that the per-core-type paths run with faked events.
 */
void ws_perf_inject_hybrid(bool on);

/* The test hook for ws_perf_mux_interval_ms(): answer `ms` from now on. */
void ws_perf_inject_mux_interval(unsigned ms);

#endif
