/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * profile-driver.c - run a command under the sampling profiler and print its per-function shares.
 *
 *	profile-driver [options] -- CMD [ARGS...]
 *
 *	-F HZ              sampling rate (default 4000)
 *	-e EVENT           the sampled event (default: cycles, else cpu-clock)
 *	--functions=EVENT  also sample EVENT per function
 *	--period=N         sample the second event every N events (default: frequency mode)
 *	--lines=N          hottest lines for the N hottest functions (default 3)
 *	--ring-pages=N     data pages per CPU ring (default 128; 1024 with -g dwarf)
 *	-g fp|dwarf|none   record call chains (default none)
 *	--poll-ms=N        drain the rings when one is half full or every N ms (default 100; 0: only at the end)
 *	--sleep-ms=N       drain the rings every N ms, ignoring their wakeups (so that a small ring overflows)
 *	--fake-pmu         pretend hardware and raw events exist: open cpu-clock in their place (tests the PMU paths)
 *	--fake-hybrid      with --fake-pmu: pretend to be Alder Lake, CPU 0 a cpu_core and the others cpu_atom,
 *	                   whose PMU lacks L1-dcache-load-misses and refuses cpu_core's raw events (ENOENT there,
 *	                   as the kernel says)
 *	--fail=N[+]:ERRNO  make the Nth perf_event_open (and with +, every later one) fail with ERRNO
 *	--max-rate-drop=HZ the kernel lowers its sampling limit to HZ at the first open above it, which it
 *	                   refuses with EINVAL (as after "perf: interrupt took too long")
 *	-v                 debug lines from the engine on stderr
 *
 * It does what the runner will: fork, hold the child before exec on a pipe, open the profile, release the
 * child, poll the rings while it runs, reap it, finish. Output, one record per line, tab-separated:
 *
 *	event	cpu-clock	4000		sampled event, rate in Hz
 *	extra	L1-dcache-load-misses	(only with --functions)
 *	skipped	cpu_atom		(only where a core PMU lacks the second event)
 *	total	SAMPLES	PERIOD	EXTRA_SAMPLES	EXTRA_PERIOD	LOST	THROTTLED	FULL_RINGS
 *	fn	SHARE	SAMPLES	EXTRA_SHARE	EXTRA_SAMPLES	NAME	OBJECT
 *	line	NAME	FILE:LINE	SAMPLES
 *	chains	MODE	CHAIN_SAMPLES	STACKS           (only with -g fp or dwarf)
 *	status	EXIT_STATUS	WALL_SECONDS
 *
 * Exit status: 0, 1 when the profile could not be opened, 2 when the command could not run, 129 for usage.
 */
#include "core/log.h"
#include "core/util.h"
#include "perf/perf.h"
#include "perf/profile.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int verbose;
static int fake_pmu;
static int fake_hybrid;
static long drop_to;
static long fail_at, fail_errno;
static int fail_after;
static long open_calls;

static void log_stderr(enum ws_log_level level, const char *msg, void *data)
{
	static const char *const prefix[] = { "error: ", "warning: ", "", "debug: " };

	(void)data;
	if (level == WS_LOG_DEBUG && !verbose)
		return;
	fprintf(stderr, "profile-driver: %s%s\n", prefix[level], msg);
}

/* The fault injector and fake PMU, through the profile's open hook. */
static int test_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	struct perf_event_attr a = *attr;
	int fd;

	open_calls++;
	if (drop_to && a.freq && a.sample_freq > (unsigned long)drop_to) {
		ws_profile_inject_max_rate((unsigned)drop_to);
		errno = EINVAL;
		return -1;
	}
	if (fail_at && (open_calls == fail_at || (fail_after && open_calls > fail_at))) {
		errno = (int)fail_errno;
		return -1;
	}
	/* A raw event is cpu_core's (PERF_TYPE_RAW): x86 refuses it on another type's CPU. */
	if (fake_hybrid && a.type == PERF_TYPE_RAW && cpu != 0) {
		errno = ENOENT;
		return -1;
	}
	if (fake_hybrid && (a.type == PERF_TYPE_HARDWARE || a.type == PERF_TYPE_HW_CACHE)) {
		unsigned type = (unsigned)(a.config >> PERF_PMU_TYPE_SHIFT);
		bool atom = cpu != 0;

		/* A generic event must name its core PMU, and the one of its CPU (x86's supported_cpus). */
		if (!type || (type == PERF_TYPE_RAW) == atom) {
			errno = ENOENT;
			return -1;
		}
		a.config &= PERF_HW_EVENT_MASK;
		if (atom && a.type == PERF_TYPE_HW_CACHE &&
		    a.config == (PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
				 PERF_COUNT_HW_CACHE_RESULT_MISS << 16)) {
			errno = ENOENT;
			return -1;
		}
	}
	if (fake_pmu && (a.type == PERF_TYPE_HARDWARE || a.type == PERF_TYPE_HW_CACHE || a.type == PERF_TYPE_RAW)) {
		/*
		 * A hardware event becomes cpu-clock with the same sampling settings. A period in events becomes
		 * a period in nanoseconds times 100, so that a test's period of 1000 samples every 100 us.
		 */
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_CPU_CLOCK;
		if (!a.freq)
			a.sample_period *= 100;
	}
	fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, group_fd, flags);
	return fd;
}

static int errno_by_name(const char *s)
{
	static const struct {
		const char *name;
		int value;
	} names[] = {
		{ "EACCES", EACCES }, { "EPERM", EPERM },   { "ENOENT", ENOENT }, { "EINVAL", EINVAL },
		{ "EMFILE", EMFILE }, { "ESRCH", ESRCH },   { "ENODEV", ENODEV }, { "EOPNOTSUPP", EOPNOTSUPP },
		{ "EBUSY", EBUSY },   { "ENOSPC", ENOSPC },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(names[i].name, s))
			return names[i].value;
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: profile-driver [-F HZ] [-e EVENT] [--functions=EVENT] [--period=N] [--lines=N]\n"
			"                      [--ring-pages=N] [--poll-ms=N] [--sleep-ms=N] [--fake-pmu [--fake-hybrid]]\n"
			"                      [--fail=N[+]:ERRNO] [--max-rate-drop=HZ]\n"
			"                      [-g fp|dwarf|none] [-v]"
			"                      -- CMD [ARGS...]\n");
	return 129;
}

static void print_profile(const struct ws_fn_profile *fp)
{
	size_t i, j;

	printf("event\t%s\t%u\n", fp->event, fp->freq);
	if (fp->extra_event)
		printf("extra\t%s\n", fp->extra_event);
	if (fp->extra_skipped)
		printf("skipped\t%s\n", fp->extra_skipped);
	printf("total\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%u\n", (unsigned long long)fp->samples,
	       (unsigned long long)fp->period, (unsigned long long)fp->extra_samples,
	       (unsigned long long)fp->extra_period, (unsigned long long)fp->lost,
	       (unsigned long long)fp->throttled, fp->full_rings);
	for (i = 0; i < fp->nr_fns; i++) {
		const struct ws_fn *f = &fp->fns[i];

		printf("fn\t%.6f\t%llu\t%.6f\t%llu\t%s\t%s\n", f->share, (unsigned long long)f->samples, f->extra_share,
		       (unsigned long long)f->extra_samples, f->name, f->object);
	}
	for (i = 0; i < fp->nr_fns; i++)
		for (j = 0; j < fp->fns[i].nr_lines; j++)
			printf("line\t%s\t%s:%u\t%llu\n", fp->fns[i].name, fp->fns[i].lines[j].file,
			       fp->fns[i].lines[j].line, (unsigned long long)fp->fns[i].lines[j].samples);
	if (fp->call_graph != WS_CALL_GRAPH_NONE)
		printf("chains\t%s\t%llu\t%zu\n", ws_call_graph_name(fp->call_graph),
		       (unsigned long long)fp->chain_samples, fp->nr_stacks);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "functions", required_argument, NULL, 'x' }, { "period", required_argument, NULL, 'p' },
		{ "lines", required_argument, NULL, 'l' },     { "fake-pmu", no_argument, NULL, 'P' },
		{ "fail", required_argument, NULL, 'f' },      { "ring-pages", required_argument, NULL, 'R' },
		{ "poll-ms", required_argument, NULL, 'T' },   { "sleep-ms", required_argument, NULL, 'S' },
		{ "fake-hybrid", no_argument, NULL, 'H' },     { "max-rate-drop", required_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 },
	};
	struct ws_profile_opts opts = WS_PROFILE_OPTS_INIT;
	struct ws_profile *prof = NULL;
	struct ws_fn_profile fp;
	int pipefd[2], c, status = 0, ret, nfds, poll_ms = 100, sleep_ms = 0, pages_given = 0;
	double start, wall;
	char *colon, *end;
	pid_t pid;

	ws_log_set(log_stderr, NULL);
	opts.line_fns = 3;
	opts.lines_per_fn = 3;
	while ((c = getopt_long(argc, argv, "+F:e:g:v", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			opts.freq = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'e':
			opts.event = optarg;
			break;
		case 'x':
			opts.extra_event = optarg;
			break;
		case 'p':
			opts.extra_period = strtoull(optarg, NULL, 10);
			break;
		case 'l':
			opts.line_fns = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'R':
			opts.ring_pages = (unsigned)strtoul(optarg, NULL, 10);
			pages_given = 1;
			break;
		case 'g':
			if (!strcmp(optarg, "fp"))
				opts.call_graph = WS_CALL_GRAPH_FP;
			else if (!strcmp(optarg, "dwarf"))
				opts.call_graph = WS_CALL_GRAPH_DWARF;
			else if (strcmp(optarg, "none"))
				return usage();
			break;
		case 'T':
			poll_ms = atoi(optarg);
			break;
		case 'S':
			sleep_ms = atoi(optarg);
			break;
		case 'P':
			fake_pmu = 1;
			opts.open_fn = test_open;
			break;
		case 'D':
			drop_to = strtol(optarg, &end, 10);
			if (drop_to <= 0 || *end)
				return usage();
			opts.open_fn = test_open;
			break;
		case 'H':
			fake_hybrid = 1;
			ws_perf_inject_hybrid(true);
			break;
		case 'f':
			fail_at = strtol(optarg, &end, 10);
			fail_after = *end == '+';
			colon = strchr(optarg, ':');
			fail_errno = colon ? errno_by_name(colon + 1) : 0;
			if (fail_at <= 0 || !fail_errno)
				return usage();
			opts.open_fn = test_open;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			return usage();
		}
	}
	if (optind >= argc)
		return usage();
	/* As the perf backend does: 8 KiB of stack per sample wants a larger ring. */
	if (opts.call_graph == WS_CALL_GRAPH_DWARF && !pages_given)
		opts.ring_pages = 1024;
	/* Names are checked before anything runs, as whyslow will: a typo is a usage error. */
	if ((opts.event && ws_profile_event_check(opts.event)) ||
	    (opts.extra_event && ws_profile_event_check(opts.extra_event)))
		return 129;

	/* The child waits for the parent to attach: until the write end closes, its read returns nothing. */
	if (pipe2(pipefd, O_CLOEXEC)) {
		perror("profile-driver: pipe");
		return 2;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("profile-driver: fork");
		return 2;
	}
	if (pid == 0) {
		char byte;

		close(pipefd[1]);
		if (read(pipefd[0], &byte, 1) != 1)
			_exit(126); /* the parent gave up: do not run the command unprofiled */
		close(pipefd[0]);
		execvp(argv[optind], &argv[optind]);
		fprintf(stderr, "profile-driver: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	close(pipefd[0]);
	ret = ws_profile_open(&prof, pid, &opts);
	if (ret) {
		close(pipefd[1]);
		waitpid(pid, NULL, 0);
		return 1;
	}

	start = ws_now();
	if (write(pipefd[1], "go", 1) != 1) {
		perror("profile-driver: write");
		kill(pid, SIGKILL);
	}
	close(pipefd[1]);

	/*
	 * Wait for the child while draining the rings: when one is half full, or every poll_ms. With
	 * --sleep-ms the wakeups are ignored and with --poll-ms=0 the rings are only read at the end, so that
	 * a small ring overflows (the lost-records tests).
	 */
	nfds = (int)ws_profile_fds(prof, NULL, 0);
	{
		struct pollfd *pfds = xcalloc((size_t)nfds, sizeof(*pfds));
		int *fds = xcalloc((size_t)nfds, sizeof(*fds));
		int i;

		ws_profile_fds(prof, fds, (size_t)nfds);
		for (i = 0; i < nfds; i++) {
			pfds[i].fd = fds[i];
			pfds[i].events = POLLIN;
		}
		for (;;) {
			pid_t w = waitpid(pid, &status, WNOHANG);

			if (w == pid)
				break;
			if (w < 0 && errno != EINTR) {
				perror("profile-driver: waitpid");
				break;
			}
			if (sleep_ms > 0) {
				usleep((useconds_t)sleep_ms * 1000);
				ws_profile_poll(prof);
			} else if (poll_ms > 0) {
				poll(pfds, (nfds_t)nfds, poll_ms);
				ws_profile_poll(prof);
			} else {
				usleep(10000);
			}
		}
		free(pfds);
		free(fds);
	}
	wall = ws_now() - start;

	ret = ws_profile_finish(prof, &fp);
	ws_profile_close(prof);
	if (ret)
		return 1;
	print_profile(&fp);
	printf("status\t%d\t%.6f\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), wall);
	ws_fn_profile_release(&fp);
	return WIFEXITED(status) && WEXITSTATUS(status) == 127 ? 2 : 0;
}
