/* SPDX-License-Identifier: GPL-2.0-or-later */
/* regions-run.c - test driver: run a marked program as whyslow would (lib/regions/regions.c) and print its regions. */
#include "core/log.h"
#include "core/util.h"
#include "regions/regions.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * usage: regions-run [--sim] [-e EVENT,...] -d DIR [-o SUMMARY] -- PROG [ARGS...]
 *
 * Builds the environment with ws_marker_env_build(), runs PROG with it, then (perf mode) reads DIR with
 * ws_region_set_read() and writes one line per region to SUMMARY (default stdout), in key=value form:
 *
 *	processes=2 threads=3 failed=0
 *	region=outer entries=10 wall=0.012345678 unmatched=0 task-clock=V task-clock.enabled=E task-clock.running=R
 *
 * EVENT is one of the names below, optionally with :u (user only) or :k (kernel only). Exits with PROG's
 * status when it failed, 2 when reading the regions failed, else 0. Until whyslow's own commands drive the
 * markers, this is how the tests and the benchmark exercise both halves of the protocol.
 */

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} known[] = {
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
};

static int parse_event(char *spec, struct ws_marker_event *ev)
{
	char *mod = strchr(spec, ':');

	memset(ev, 0, sizeof(*ev));
	if (mod) {
		*mod++ = '\0';
		if (!strcmp(mod, "u"))
			ev->exclude_kernel = ev->exclude_hv = 1;
		else if (!strcmp(mod, "k"))
			ev->exclude_user = ev->exclude_hv = 1;
		else
			return -1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(known); i++) {
		if (!strcmp(spec, known[i].name)) {
			ev->type = known[i].type;
			ev->config = known[i].config;
			ev->name = known[i].name;
			return 0;
		}
	}
	return -1;
}

static void print_set(FILE *f, const struct ws_region_set *set)
{
	fprintf(f, "processes=%zu threads=%llu failed=%llu\n", set->nr_processes,
		(unsigned long long)set->nr_threads, (unsigned long long)set->nr_failed);
	if (set->error)
		fprintf(f, "error=%s\n", set->error);
	for (size_t i = 0; i < set->nr_regions; i++) {
		const struct ws_region_data *r = &set->regions[i];

		fprintf(f, "region=%s entries=%llu wall=%.9f unmatched=%llu", r->name,
			(unsigned long long)r->entries, r->wall_seconds, (unsigned long long)r->unmatched);
		for (size_t j = 0; j < set->nr_events; j++)
			fprintf(f, " %s=%llu %s.enabled=%llu %s.running=%llu", set->events[j],
				(unsigned long long)r->counts[j].value, set->events[j],
				(unsigned long long)r->counts[j].time_enabled, set->events[j],
				(unsigned long long)r->counts[j].time_running);
		fputc('\n', f);
	}
}

static int usage(void)
{
	fprintf(stderr, "usage: regions-run [--sim] [-e EVENT,...] -d DIR [-o SUMMARY] -- PROG [ARGS...]\n");
	return 129;
}

int main(int argc, char **argv)
{
	struct ws_marker_event events[WS_MARKERS_MAX_EVENTS];
	struct ws_region_set set = WS_REGION_SET_INIT;
	enum ws_markers_mode mode = WS_MARKERS_PERF;
	const char *dir = NULL, *summary = NULL;
	char *evlist = xstrdup("task-clock"), **env = NULL;
	size_t nr = 0;
	int i, status, rc = 0;
	pid_t pid;
	FILE *f;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "--sim")) {
			mode = WS_MARKERS_SIM;
		} else if (!strcmp(argv[i], "-e") && i + 1 < argc) {
			free(evlist);
			evlist = xstrdup(argv[++i]);
		} else if (!strcmp(argv[i], "-d") && i + 1 < argc) {
			dir = argv[++i];
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			summary = argv[++i];
		} else {
			return usage();
		}
	}
	if (i >= argc || (mode == WS_MARKERS_PERF && !dir))
		return usage();
	for (char *tok = strtok(evlist, ","); tok; tok = strtok(NULL, ",")) {
		if (nr == ARRAY_SIZE(events) || parse_event(tok, &events[nr]) < 0) {
			fprintf(stderr, "regions-run: unknown event '%s'\n", tok);
			return 129;
		}
		nr++;
	}
	if (dir && mkdir(dir, 0777) < 0 && errno != EEXIST) {
		perror(dir);
		return 1;
	}
	if (ws_marker_env_build(mode, events, nr, dir, &env) < 0)
		return 1;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		for (char **e = env; *e; e++)
			putenv(*e);
		execvp(argv[i], argv + i);
		perror(argv[i]);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		return 1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "regions-run: %s failed (status 0x%x)\n", argv[i], status);
		rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	if (mode == WS_MARKERS_PERF) {
		if (ws_region_set_read(&set, dir) < 0) {
			rc = rc ? rc : 2;
		} else {
			f = summary ? fopen(summary, "w") : stdout;
			if (!f) {
				perror(summary);
				return 1;
			}
			print_set(f, &set);
			if (summary)
				fclose(f);
		}
	}
	ws_region_set_release(&set);
	ws_marker_env_free(env);
	free(evlist);
	return rc;
}
