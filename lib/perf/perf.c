/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perf.c - perf_event_open helpers: errno triage, scaling, paranoid, hybrid PMUs and fault injection. */
#include "perf/perf.h"
#include "backend/runner.h"
#include "core/log.h"
#include "core/util.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

bool ws_perf_scale(uint64_t raw, uint64_t enabled, uint64_t running, double *value, double *share)
{
	if (running == 0 || enabled == 0) {
		*value = NAN;
		*share = 0.0;
		return false;
	}
	if (running >= enabled) {
		*value = (double)raw;
		*share = 1.0;
		return true;
	}
	*value = (double)raw * ((double)enabled / (double)running);
	*share = (double)running / (double)enabled;
	return true;
}

bool ws_perf_kernel_only(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CONTEXT_SWITCHES || a->config == PERF_COUNT_SW_CPU_MIGRATIONS);
}

static bool any_user_only(void);

int ws_perf_paranoid(void)
{
	char *s;
	int v = INT32_MIN;

	/* An injected user-only fault stands for perf_event_paranoid=2: the messages must say it, here too. */
	if (any_user_only())
		return 2;
	s = ws_read_line("/proc/sys/kernel/perf_event_paranoid");
	if (s) {
		v = atoi(s);
		free(s);
	}
	return v;
}

static unsigned mux_ms; /* 0 until read */

unsigned ws_perf_mux_interval_ms(void)
{
	DIR *d;
	struct dirent *e;

	if (mux_ms)
		return mux_ms;
	if ((d = opendir("/sys/bus/event_source/devices"))) {
		while ((e = readdir(d))) {
			char *path, *s;

			/* The core PMUs only (x86's, hybrid ones, ARM's): an uncore PMU may rotate far slower. */
			if (strcmp(e->d_name, "cpu") && strncmp(e->d_name, "cpu_", 4) && strncmp(e->d_name, "armv", 4))
				continue;
			path = xasprintf("/sys/bus/event_source/devices/%s/perf_event_mux_interval_ms", e->d_name);
			if ((s = ws_read_line(path)) && atoi(s) > 0 && (unsigned)atoi(s) > mux_ms)
				mux_ms = (unsigned)atoi(s);
			free(s);
			free(path);
		}
		closedir(d);
	}
	if (!mux_ms)
		mux_ms = 10;
	return mux_ms;
}

void ws_perf_inject_mux_interval(unsigned ms)
{
	mux_ms = ms;
}

enum ws_perf_errclass ws_perf_triage(int err, const struct perf_event_attr *attr, char **reason)
{
	int paranoid;

	switch (err) {
	case EINTR:
		*reason = xstrdup("interrupted");
		return WS_PERF_RETRY;
	case EACCES:
	case EPERM:
		paranoid = ws_perf_paranoid();
		if (paranoid == INT32_MIN) {
			*reason = xstrdup("permission denied, and perf_event_paranoid cannot be read: perf events "
					  "may be disabled in this container or by a security policy");
		} else if (!attr->exclude_kernel && paranoid >= 2) {
			*reason = xasprintf("permission denied: perf_event_paranoid is %d, which forbids counting the "
					    "kernel; run 'sudo sysctl -w kernel.perf_event_paranoid=1', or count user "
					    "space only with the ':u' modifier",
					    paranoid);
		} else if (paranoid >= 3) {
			*reason = xasprintf("permission denied: perf_event_paranoid is %d, which forbids perf events "
					    "to unprivileged users; run 'sudo sysctl -w kernel.perf_event_paranoid=2'",
					    paranoid);
		} else {
			*reason = xasprintf("permission denied (perf_event_paranoid is %d): a security policy "
					    "(lockdown, SELinux, seccomp) blocks perf events; run as root or grant "
					    "CAP_PERFMON",
					    paranoid);
		}
		return WS_PERF_DENIED;
	case EMFILE:
		*reason = xstrdup("too many open files: raise the limit with 'ulimit -n 4096'");
		return WS_PERF_FATAL;
	case ENFILE:
		*reason = xstrdup("the system's open-file table is full");
		return WS_PERF_FATAL;
	case ENOMEM:
		*reason = xstrdup("out of memory opening the counter");
		return WS_PERF_FATAL;
	case EBUSY:
		*reason = xstrdup("the counter is taken by another user of the PMU (another profiler, or the "
				  "NMI watchdog: 'sudo sysctl -w kernel.nmi_watchdog=0')");
		return WS_PERF_UNSUPPORTED;
	case E2BIG:
		*reason = xstrdup("this kernel does not know this perf_event_attr");
		return WS_PERF_UNSUPPORTED;
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
	case EINVAL:
		if (attr->type == PERF_TYPE_SOFTWARE)
			*reason = xstrdup("not supported by this kernel");
		else if (!ws_perf_pmu_usable())
			*reason = xstrdup("not supported on this machine: no usable PMU (a VM without a virtual PMU?)");
		else
			*reason = xstrdup("not supported by this CPU's PMU");
		return WS_PERF_UNSUPPORTED;
	default:
		*reason = xasprintf("perf_event_open failed: %s", strerror(err));
		return WS_PERF_UNSUPPORTED;
	}
}

/* --- fault injection --- */

struct fault {
	char *event;
	char *pmu;      /* NULL: every copy of the event; else only its copy on this core PMU (hybrid) */
	int open_errno;
	int eintr;
	double share;
	bool fake;
	bool ingroup;   /* open_errno only when joining a group */
	bool user_only; /* EACCES unless it excludes the kernel, as perf_event_paranoid=2 has it */
};

static struct fault *faults;
static size_t nfaults;
static bool fake_hybrid;

static bool any_user_only(void)
{
	for (size_t i = 0; i < nfaults; i++)
		if (faults[i].user_only)
			return true;
	return false;
}

static bool same_pmu(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

void ws_perf_inject(const struct ws_perf_fault *f, size_t n)
{
	for (size_t i = 0; i < nfaults; i++) {
		free(faults[i].event);
		free(faults[i].pmu);
	}
	free(faults);
	faults = NULL;
	nfaults = 0;
	if (!f || !n)
		return;
	faults = xcalloc(n, sizeof(*faults));
	for (size_t i = 0; i < n; i++) {
		struct fault *t = NULL;

		/* Faults naming the same event combine into one. */
		for (size_t j = 0; j < nfaults; j++)
			if (!strcmp(faults[j].event, f[i].event) && same_pmu(faults[j].pmu, f[i].pmu))
				t = &faults[j];
		if (!t) {
			t = &faults[nfaults++];
			t->event = xstrdup(f[i].event);
			t->pmu = f[i].pmu ? xstrdup(f[i].pmu) : NULL;
			t->share = -1;
		}
		if (f[i].open_errno)
			t->open_errno = f[i].open_errno;
		t->ingroup |= f[i].ingroup;
		t->user_only |= f[i].user_only;
		if (f[i].eintr)
			t->eintr = f[i].eintr;
		if (f[i].share >= 0)
			t->share = f[i].share;
		t->fake |= f[i].fake;
	}
}

void ws_perf_inject_hybrid(bool on)
{
	fake_hybrid = on;
}

static struct fault *fault_for(const char *name, const char *pmu)
{
	for (size_t i = 0; i < nfaults; i++)
		if (!strcmp(faults[i].event, name) && same_pmu(faults[i].pmu, pmu))
			return &faults[i];
	return NULL;
}

/*
 * The core PMU a hybrid copy of an event is bound to: the extended type in config's upper 32 bits of a
 * generic hardware or cache event, else the event's own type when it is a core PMU's (PERF_TYPE_RAW is
 * cpu_core's). NULL on other machines and for other events.
 */
static const char *copy_pmu(const struct perf_event_attr *attr)
{
	unsigned types[WS_PERF_MAX_CORE_TYPES], want = attr->type;
	const char *names[WS_PERF_MAX_CORE_TYPES];
	int n = ws_perf_hybrid_pmus(types, names, WS_PERF_MAX_CORE_TYPES);

	if (attr->type == PERF_TYPE_HARDWARE || attr->type == PERF_TYPE_HW_CACHE)
		want = (unsigned)(attr->config >> PERF_PMU_TYPE_SHIFT);
	for (int t = 0; t < n; t++)
		if (types[t] == want)
			return names[t];
	return NULL;
}

static const struct {
	const char *name;
	int err;
} errno_names[] = {
	{ "ENOENT", ENOENT }, { "ENODEV", ENODEV }, { "EOPNOTSUPP", EOPNOTSUPP }, { "EINVAL", EINVAL },
	{ "EACCES", EACCES }, { "EPERM", EPERM },   { "EMFILE", EMFILE },         { "EBUSY", EBUSY },
	{ "ENFILE", ENFILE }, { "E2BIG", E2BIG },   { "ENOMEM", ENOMEM },
};

int ws_perf_inject_env(void)
{
	const char *env = getenv("WHYSLOW_TEST_PERF_FAULTS"), *hybrid = getenv("WHYSLOW_TEST_HYBRID");
	struct ws_perf_fault *list = NULL;
	size_t n = 0, alloc = 0;
	char *copy, *save = NULL, *tok;
	int ret = 0;

	ws_perf_inject_hybrid(hybrid && *hybrid && strcmp(hybrid, "0"));
	if (!env || !*env)
		return 0;
	copy = xstrdup(env);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *at;
		struct ws_perf_fault f = { .share = -1 };
		const char *what;

		if (!eq) {
			ret = ws_error("WHYSLOW_TEST_PERF_FAULTS: '%s' is not EVENT=FAULT", tok);
			break;
		}
		*eq = '\0';
		f.event = tok;
		what = eq + 1;
		/* EVENT@PMU=FAULT: only the event's copy on that core PMU of a hybrid CPU. */
		if ((at = strchr(tok, '@'))) {
			*at = '\0';
			f.pmu = at + 1;
		}
		if (!strcmp(what, "never")) {
			f.share = 0;
		} else if (!strcmp(what, "fake")) {
			f.fake = true;
		} else if (!strcmp(what, "user-only")) {
			f.user_only = true;
		} else if (!strcmp(what, "ingroup")) {
			/* The PMU refuses it as a group member only, as x86 does when a group cannot fit. */
			f.open_errno = EINVAL;
			f.ingroup = true;
		} else if (ws_skip_prefix(what, "share:", &what)) {
			f.share = atof(what);
		} else if (ws_skip_prefix(what, "EINTR:", &what)) {
			f.eintr = atoi(what);
		} else {
			for (size_t i = 0; i < ARRAY_SIZE(errno_names); i++)
				if (!strcmp(what, errno_names[i].name))
					f.open_errno = errno_names[i].err;
			if (!f.open_errno) {
				ret = ws_error("WHYSLOW_TEST_PERF_FAULTS: unknown fault '%s'", what);
				break;
			}
		}
		WS_ALLOC_GROW(list, n + 1, alloc);
		list[n++] = f;
	}
	if (!ret)
		ws_perf_inject(list, n);
	free(list);
	free(copy);
	return ret;
}

int ws_perf_open(const char *name, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		 unsigned long flags)
{
	const char *pmu = name && nfaults ? copy_pmu(attr) : NULL;
	struct fault *any = name ? fault_for(name, NULL) : NULL, *one = pmu ? fault_for(name, pmu) : NULL;
	long fd;

	for (;;) {
		/* The fault of this copy's PMU first, then the event's own. */
		struct fault *f = one && one->eintr > 0 ? one : any;
		struct fault *e = one && one->open_errno ? one : any;

		if (f && f->eintr > 0) {
			f->eintr--;
			errno = EINTR;
			fd = -1;
		} else if (e && e->open_errno && (!e->ingroup || group_fd >= 0)) {
			errno = e->open_errno;
			fd = -1;
		} else if (((any && any->user_only) || (one && one->user_only)) && !attr->exclude_kernel) {
			errno = EACCES;
			fd = -1;
		} else if ((any && any->fake) || (one && one->fake)) {
			struct perf_event_attr a = *attr;

			a.type = PERF_TYPE_SOFTWARE;
			a.config = PERF_COUNT_SW_TASK_CLOCK;
			fd = syscall(SYS_perf_event_open, &a, pid, cpu, group_fd, flags);
		} else {
			fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
		}
		if (fd >= 0)
			return (int)fd;
		if (errno != EINTR)
			return -errno;
		ws_log(WS_LOG_DEBUG, "perf_event_open(%s) interrupted; retrying", name ? name : "?");
	}
}

int ws_perf_read(const char *name, int fd, uint64_t v[3])
{
	struct fault *f = name ? fault_for(name, NULL) : NULL;
	ssize_t n;

	do
		n = read(fd, v, 3 * sizeof(uint64_t));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n != 3 * sizeof(uint64_t))
		return -EIO;
	if (f && f->share >= 0)
		v[2] = (uint64_t)((double)v[1] * f->share);
	return 0;
}

bool ws_perf_pmu_usable(void)
{
	static int cached = -1;
	struct perf_event_attr attr;
	int fd;

	if (cached >= 0)
		return cached;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = ws_perf_open("instructions", &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	cached = fd >= 0;
	if (fd >= 0)
		close(fd);
	return cached;
}

int ws_perf_hybrid_pmu_cpus(const char *name, cpu_set_t *set)
{
	char *path, *s;
	int ret;

	if (fake_hybrid) {
		CPU_ZERO(set);
		for (int c = 0; c < CPU_SETSIZE; c++)
			if ((c == 0) == !strcmp(name, "cpu_core"))
				CPU_SET(c, set);
		return 0;
	}
	path = xasprintf("/sys/bus/event_source/devices/%s/cpus", name);
	s = ws_read_line(path);
	ret = s ? ws_parse_cpu_list(s, set) : -1;
	free(s);
	free(path);
	return ret ? -1 : 0;
}

int ws_perf_hybrid_pmus(unsigned types[], const char *names[], int max)
{
	static const char *const hybrid[WS_PERF_MAX_CORE_TYPES] = { "cpu_core", "cpu_atom", "cpu_lowpower" };
	int n = 0;

	if (fake_hybrid) {
		/* The test hook: Alder Lake's numbers (cpu_core registers as PERF_TYPE_RAW, cpu_atom as a new type). */
		static const unsigned fake_types[] = { PERF_TYPE_RAW, 10 };

		for (; n < max && n < (int)ARRAY_SIZE(fake_types); n++) {
			types[n] = fake_types[n];
			names[n] = hybrid[n];
		}
		return n;
	}
	for (size_t i = 0; i < ARRAY_SIZE(hybrid) && n < max; i++) {
		char *path = xasprintf("/sys/bus/event_source/devices/%s/type", hybrid[i]);
		char *s = ws_read_line(path);

		free(path);
		if (!s)
			continue;
		types[n] = (unsigned)atoi(s);
		names[n] = hybrid[i];
		n++;
		free(s);
	}
	return n;
}
