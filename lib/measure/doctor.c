/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doctor.c - check what this machine can measure and what will disturb it, each finding with its fix. */
#include "measure/doctor.h"
#include "backend/runner.h"
#include "sim/cpu-features.h"
#include "core/util.h"
#include "event/pfm.h"
#include "perf/perf.h"
#include "ws-config.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *ws_check_status_name(enum ws_check_status s)
{
	static const char *const names[] = { "ok", "info", "warn", "bad" };

	return names[s];
}

static void add(struct ws_checks *c, const char *name, enum ws_check_status st, char *value, char *detail,
		char *fix)
{
	struct ws_check *k;

	WS_ALLOC_GROW(c->v, c->n + 1, c->alloc);
	k = &c->v[c->n++];
	k->name = name;
	k->status = st;
	k->value = value;
	k->detail = detail;
	k->fix = fix;
}

static bool cpu_flag(const char *flag)
{
	char *info = NULL, *flags, *end;
	bool found = false;
	size_t n = strlen(flag);

	if (ws_read_file("/proc/cpuinfo", &info, NULL) < 0)
		return false;
	flags = strstr(info, "\nflags");
	if (flags) {
		end = strchr(flags + 1, '\n');
		for (char *p = strchr(flags, ':'); p && (!end || p < end); p = strchr(p + 1, ' '))
			if (!strncmp(p + 1, flag, n) && (p[1 + n] == ' ' || p[1 + n] == '\n'))
				found = true;
	}
	free(info);
	return found;
}

static void check_pmu(struct ws_checks *c)
{
	struct ws_pfm_pmu pmu;
	bool usable = ws_perf_pmu_usable(), vm = cpu_flag("hypervisor");
	char *name = NULL;

	if (ws_pfm_core_pmu(&pmu) == 0) {
		name = xasprintf("%s, %d generic + %d fixed counters", pmu.desc, pmu.counters, pmu.fixed);
		free(pmu.name);
		free(pmu.desc);
	}
	if (usable)
		add(c, "pmu", WS_CHECK_OK, name ? name : xstrdup("present"),
		    xstrdup("hardware counters open: cycles, instructions, cache and branch events are measured"), NULL);
	else if (vm)
		add(c, "pmu", WS_CHECK_BAD, xstrdup(name ? name : "none usable"),
		    xstrdup("a virtual machine (hypervisor flag set) without a virtual PMU: hardware events fail, so "
			    "whyslow simulates caches and branches (--backend auto)"),
		    xstrdup("give the guest a vPMU (QEMU/KVM: -cpu host,pmu=on; cloud: a bare-metal or PMU-enabled "
			    "instance type), or rely on the simulator"));
	else
		add(c, "pmu", WS_CHECK_BAD, xstrdup(name ? name : "none usable"),
		    xstrdup("hardware events fail to open; whyslow simulates caches and branches instead"),
		    xstrdup("check that the kernel has CONFIG_PERF_EVENTS and a driver for this CPU's PMU"));
	if (name && !usable)
		free(name);
}

static void check_paranoid(struct ws_checks *c)
{
	int p = ws_perf_paranoid();
	bool root = geteuid() == 0;

	if (p == INT32_MIN) {
		add(c, "perf_event_paranoid", WS_CHECK_BAD, xstrdup("unreadable"),
		    xstrdup("/proc/sys/kernel/perf_event_paranoid is missing: no perf events (container?)"),
		    xstrdup("run on a kernel with perf events, or outside the container's restrictions"));
		return;
	}
	if (root || p <= 0)
		add(c, "perf_event_paranoid", WS_CHECK_OK, xasprintf("%d%s", p, root ? " (running as root)" : ""),
		    xstrdup("user space and the kernel can be counted"), NULL);
	else if (p <= 2)
		add(c, "perf_event_paranoid", WS_CHECK_INFO, xasprintf("%d", p),
		    xstrdup(p == 1 ? "user space and the kernel can be counted for your own processes"
				   : "your own processes can be counted in user space only; kernel time is excluded"),
		    p == 2 ? xstrdup("to count the kernel too: sudo sysctl -w kernel.perf_event_paranoid=1") : NULL);
	else
		add(c, "perf_event_paranoid", WS_CHECK_BAD, xasprintf("%d", p),
		    xstrdup("perf events are forbidden to unprivileged users"),
		    xstrdup("sudo sysctl -w kernel.perf_event_paranoid=2"));
}

static void check_nmi_watchdog(struct ws_checks *c)
{
	char *s = ws_read_line("/proc/sys/kernel/nmi_watchdog");

	if (!s)
		add(c, "nmi-watchdog", WS_CHECK_INFO, xstrdup("absent"), xstrdup("no NMI watchdog holds a counter"),
		    NULL);
	else if (atoi(s) > 0)
		add(c, "nmi-watchdog", WS_CHECK_WARN, xstrdup("on"),
		    xstrdup("the NMI watchdog holds one hardware counter, so fewer events fit before multiplexing"),
		    xstrdup("sudo sysctl -w kernel.nmi_watchdog=0"));
	else
		add(c, "nmi-watchdog", WS_CHECK_OK, xstrdup("off"), xstrdup("every hardware counter is free"), NULL);
	free(s);
}

static void check_governor(struct ws_checks *c)
{
	char *gov = ws_read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");

	if (!gov)
		add(c, "cpu-governor", WS_CHECK_INFO, xstrdup("not exposed"),
		    xstrdup("no cpufreq interface (common in VMs): the host decides the frequency"), NULL);
	else if (strcmp(gov, "performance"))
		add(c, "cpu-governor", WS_CHECK_WARN, xstrdup(gov),
		    xstrdup("the frequency follows the load, so the first runs and short programs run slower"),
		    xstrdup("sudo cpupower frequency-set -g performance"));
	else
		add(c, "cpu-governor", WS_CHECK_OK, xstrdup(gov), xstrdup("a steady frequency"), NULL);
	free(gov);
}

static void check_boost(struct ws_checks *c)
{
	char *boost = ws_read_line("/sys/devices/system/cpu/cpufreq/boost");
	char *no_turbo = ws_read_line("/sys/devices/system/cpu/intel_pstate/no_turbo");

	if (boost && atoi(boost))
		add(c, "turbo", WS_CHECK_WARN, xstrdup("boost on"),
		    xstrdup("boost clocks depend on temperature and on the other cores' load: timings drift"),
		    xstrdup("echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost"));
	else if (no_turbo && !atoi(no_turbo))
		add(c, "turbo", WS_CHECK_WARN, xstrdup("turbo on"),
		    xstrdup("turbo clocks depend on temperature and on the other cores' load: timings drift"),
		    xstrdup("echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo"));
	else if (boost || no_turbo)
		add(c, "turbo", WS_CHECK_OK, xstrdup("off"), xstrdup("a fixed maximum frequency"), NULL);
	else
		add(c, "turbo", WS_CHECK_INFO, xstrdup("not exposed"), xstrdup("no boost control visible here"), NULL);
	free(boost);
	free(no_turbo);
}

static void check_smt(struct ws_checks *c)
{
	char *smt = ws_read_line("/sys/devices/system/cpu/smt/active");

	/* An unreadable file says nothing about siblings: not knowing must not read as all clear. */
	if (!smt)
		add(c, "smt", WS_CHECK_INFO, xstrdup("unknown"),
		    xstrdup("the kernel does not say whether hyperthreads share cores (lscpu: Thread(s) per core)"),
		    NULL);
	else if (atoi(smt))
		add(c, "smt", WS_CHECK_WARN, xstrdup("active"),
		    xstrdup("a sibling hyperthread shares the core's caches and ports with the measured program"),
		    xstrdup("pin with --cpu to one thread per core and keep its sibling idle, or "
			    "echo off | sudo tee /sys/devices/system/cpu/smt/control"));
	else
		add(c, "smt", WS_CHECK_OK, xstrdup("inactive"), xstrdup("no hyperthread sibling shares a core"),
		    NULL);
	free(smt);
}

static void check_isolated(struct ws_checks *c)
{
	char *iso = ws_read_line("/sys/devices/system/cpu/isolated");

	if (iso && *iso)
		add(c, "isolated-cpus", WS_CHECK_OK, xstrdup(iso),
		    xasprintf("these CPUs run no other tasks: measure there with --cpu %s", iso), NULL);
	else
		add(c, "isolated-cpus", WS_CHECK_INFO, xstrdup("none"),
		    xstrdup("every CPU also runs other tasks"),
		    xstrdup("for the quietest runs boot with isolcpus=N nohz_full=N and use --cpu N"));
	free(iso);
}

static void check_rdpmc(struct ws_checks *c)
{
	static const char *const paths[] = { "/sys/bus/event_source/devices/cpu/rdpmc",
					     "/sys/bus/event_source/devices/cpu_core/rdpmc" };
	char *v = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(paths) && !v; i++)
		v = ws_read_line(paths[i]);
	if (!v)
		add(c, "rdpmc", WS_CHECK_INFO, xstrdup("not exposed"),
		    xstrdup("region markers read counters with read(), a system call per read"), NULL);
	else if (atoi(v) == 0)
		add(c, "rdpmc", WS_CHECK_WARN, xstrdup("0 (disabled)"),
		    xstrdup("region markers must read counters with a system call, which costs more per marker"),
		    xstrdup("echo 1 | sudo tee /sys/bus/event_source/devices/cpu/rdpmc"));
	else
		add(c, "rdpmc", WS_CHECK_OK, xasprintf("%s", v),
		    xstrdup("region markers read hardware counters in user space (rdpmc)"), NULL);
	free(v);
}

static void check_hybrid(struct ws_checks *c)
{
	unsigned types[WS_PERF_MAX_CORE_TYPES];
	const char *names[WS_PERF_MAX_CORE_TYPES];
	int n = ws_perf_hybrid_pmus(types, names, WS_PERF_MAX_CORE_TYPES);

	if (n > 1)
		add(c, "core-types", WS_CHECK_WARN,
		    xasprintf("hybrid: %s + %s%s%s", names[0], names[1], n > 2 ? " + " : "", n > 2 ? names[2] : ""),
		    xstrdup("performance and efficiency cores differ: a run that moves between them changes speed; "
			    "whyslow counts on both and sums"),
		    xstrdup("pin to one core type with --cpu (see lscpu --extended)"));
	else
		add(c, "core-types", WS_CHECK_OK, xstrdup("one"), xstrdup("all cores are of one kind"), NULL);
}

static char *valgrind_version(void)
{
	FILE *p = popen("valgrind --version 2>/dev/null", "r");
	char buf[128] = "";

	if (!p)
		return NULL;
	if (!fgets(buf, sizeof(buf), p))
		buf[0] = '\0';
	pclose(p);
	buf[strcspn(buf, "\n")] = '\0';
	return *buf ? xstrdup(buf) : NULL;
}

static void check_valgrind(struct ws_checks *c)
{
	char *v = valgrind_version();
	char *tool = xasprintf("%s/wsim-amd64-linux", WS_LIBEXECDIR);
	char *build_tool = xasprintf("%s/wsim-amd64-linux", WS_BUILD_SIMDIR);
	bool have_tool = access(tool, X_OK) == 0 || access(build_tool, X_OK) == 0;

	if (!v)
		add(c, "valgrind", WS_CHECK_BAD, xstrdup("missing"),
		    xstrdup("without valgrind there is no simulator: caches and branches need a PMU"),
		    xstrdup("sudo apt-get install valgrind"));
	else if (!have_tool)
		add(c, "valgrind", WS_CHECK_WARN, v,
		    xstrdup("valgrind is here but whyslow's simulator tool is not built or installed"),
		    xstrdup("rebuild whyslow with valgrind installed: make"));
	else
		add(c, "valgrind", WS_CHECK_OK, v, xstrdup("the simulator can run (backends sim and auto)"), NULL);
	free(tool);
	free(build_tool);
}

static void check_load(struct ws_checks *c)
{
	char *l = ws_read_line("/proc/loadavg");
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double load = l ? atof(l) : 0;

	if (!l)
		return;
	if (load > 0.5 * (double)cpus)
		add(c, "load", WS_CHECK_WARN, xasprintf("%.2f on %ld CPUs", load, cpus),
		    xstrdup("other work competes for CPUs and caches: expect noise (whyslow's interleaving and "
			    "statistics absorb some of it)"),
		    xstrdup("stop other work, or pin both with --cpu to different cores"));
	else
		add(c, "load", WS_CHECK_OK, xasprintf("%.2f on %ld CPUs", load, cpus), xstrdup("a quiet machine"),
		    NULL);
	free(l);
}

static void check_aslr(struct ws_checks *c)
{
	char *a = ws_read_line("/proc/sys/kernel/randomize_va_space");

	if (a && atoi(a))
		add(c, "aslr", WS_CHECK_INFO, xasprintf("%s", a),
		    xstrdup("addresses change between runs, so cache and alignment effects vary run to run; the "
			    "repeated runs average over layouts (Mytkowicz et al.), which is what you want"),
		    NULL);
	free(a);
}

/* What the simulated CPU hides: natively and simulated, CPUID-dispatched code can differ. */
static void check_sim_cpu(struct ws_checks *c)
{
	struct ws_cpu_features f = WS_CPU_FEATURES_INIT;
	char *hidden, *added, *unreached = NULL, *mask;

	if (ws_cpu_features_probe(&f) < 0) {
		ws_cpu_features_release(&f);
		return;
	}
	hidden = ws_cpu_features_join(f.hidden);
	added = ws_cpu_features_join(f.added);
	mask = ws_cpu_features_tunable(&f, &unreached);
	if (!hidden && !added)
		add(c, "sim-cpu", WS_CHECK_OK, xstrdup("the same"),
		    xstrdup("the simulated CPU reports the features this one has: native and simulated runs execute "
			    "the same code"),
		    NULL);
	else
		add(c, "sim-cpu", WS_CHECK_WARN, xasprintf("hides %s%s%s", hidden ? hidden : "nothing",
							   added ? "; adds " : "", added ? added : ""),
		    xasprintf("the simulator's CPU %s%s%s: glibc's string functions and code that dispatches on "
			      "CPUID run other implementations simulated than natively%s%s",
			      hidden ? "lacks features this CPU has" : "", hidden && added ? " and " : "",
			      added ? "shows features this CPU lacks" : "", unreached ? "; glibc cannot mask " : "",
			      unreached ? unreached : ""),
		    mask ? xstrdup("--sim-cpu-native (native runs mask them through GLIBC_TUNABLES)") : NULL);
	free(hidden);
	free(added);
	free(unreached);
	free(mask);
	ws_cpu_features_release(&f);
}

/* What ends the processes a run leaves behind (lib/backend/contain.c). */
static void check_processes(struct ws_checks *c)
{
	const char *line = ws_runner_containment();
	bool cgroup = !strncmp(line, "cgroup", 6);

	add(c, "processes", cgroup ? WS_CHECK_OK : WS_CHECK_INFO, xstrndup(line, strcspn(line, ":")),
	    xasprintf("%s%s", line,
		      cgroup ? "" : "; without a cgroup, what a run started in the background is not found again "
				    "if whyslow itself is killed with SIGKILL"),
	    cgroup ? NULL : xstrdup("run whyslow where it may make cgroups (a delegated cgroup v2 subtree)"));
}

/*
 * Whether a run's wait for a CPU is timed (lib/backend/contain.c, ws_contain_cpu_wait): its own cgroup
 * and the kernel's pressure stall accounting. Without it the mostly-off-CPU warning names no cause.
 */
static void check_cpu_wait(struct ws_checks *c)
{
	bool cgroup = !strncmp(ws_runner_containment(), "cgroup", 6);
	bool psi = access("/proc/pressure/cpu", R_OK) == 0;

	if (cgroup && psi)
		add(c, "cpu-wait", WS_CHECK_OK, xstrdup("timed per run"),
		    xstrdup("each run's wait for a CPU is timed in its cgroup (cpu.pressure), so a run mostly off the "
			    "CPU is told waiting for one from sleeping or I/O"),
		    NULL);
	else
		add(c, "cpu-wait", WS_CHECK_INFO, xstrdup("not timed"),
		    xstrdup(cgroup ? "the kernel has no pressure stall accounting (/proc/pressure/cpu)"
				   : "runs have no cgroup of their own"),
		    xstrdup(cgroup ? "a kernel with CONFIG_PSI, booted without psi=0 (or with psi=1)"
				   : "run whyslow where it may make cgroups (a delegated cgroup v2 subtree)"));
}

void ws_doctor(struct ws_checks *out)
{
	memset(out, 0, sizeof(*out));
	check_pmu(out);
	check_paranoid(out);
	check_nmi_watchdog(out);
	check_hybrid(out);
	check_rdpmc(out);
	check_governor(out);
	check_boost(out);
	check_smt(out);
	check_isolated(out);
	check_load(out);
	check_aslr(out);
	check_valgrind(out);
	check_sim_cpu(out);
	check_processes(out);
	check_cpu_wait(out);
}

void ws_checks_release(struct ws_checks *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].value);
		free(c->v[i].detail);
		free(c->v[i].fix);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}
