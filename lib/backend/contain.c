/* SPDX-License-Identifier: GPL-2.0-or-later */
/* contain.c - no process outlives its run: a cgroup v2 leaf per run where one can be made, else whyslow as subreaper. */
#include "backend/contain.h"
#include "core/log.h"
#include "core/proc.h"
#include "core/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct ws_cgroup {
	char *path;
	int fd;        /* the directory: what clone3 places a child in */
	int events;    /* cgroup.events, for "populated" */
	bool busy;
	/*
	 * Killed with cgroup.kill: never used again. On Linux 6.18 a child that clone3 places into a cgroup
	 * killed before was seen killed at its start (SIGKILL before its exec), every time.
	 */
	bool spent;
};

static struct {
	bool ready, keep;
	enum ws_contain_kind kind;
	char *session;      /* <whyslow's cgroup>/whyslow.PID.START, or NULL */
	char *why_not;      /* why there is no cgroup, for -v and doctor */
	char *line;         /* ws_contain_describe() */
	struct ws_cgroup **leaves;
	size_t nleaves, aleaves;
	unsigned made;      /* leaves made so far, for their names */
	pid_t *tracked;
	size_t ntracked, atracked;
	pid_t *kept;        /* left by a run that may leave them (hooks): spared until exit */
	size_t nkept, akept;
} cs;

void ws_contain_keep_children(bool keep)
{
	cs.keep = keep;
}

enum ws_contain_kind ws_contain_kind(void)
{
	ws_contain_init();
	return cs.kind;
}

int ws_contain_leaf_fd(const struct ws_cgroup *cg)
{
	return cg->fd;
}

/* Write a short string into a cgroup file; 0 or -errno. */
static int cg_write(const char *dir, const char *file, const char *s)
{
	char *path = xasprintf("%s/%s", dir, file);
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	free(path);
	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static bool events_populated(int fd)
{
	char buf[256];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return false;
	buf[n] = '\0';
	return strstr(buf, "populated 1") != NULL;
}

/*
 * Wait until nothing is left in the cgroup (cgroup.kill only sends the signals), at most about two seconds;
 * the kernel signals a change of cgroup.events with POLLPRI. The killed processes that were our children
 * are reaped by the caller: a zombie no longer counts as populated.
 */
static void wait_empty(int events)
{
	for (int i = 0; i < 20 && events_populated(events); i++) {
		struct pollfd p = { .fd = events, .events = POLLPRI };

		poll(&p, 1, 100);
	}
}

/* Kill a whole cgroup subtree and remove its folders, deepest first (a cgroup with children cannot go). */
static void cg_remove(const char *dir, bool kill_first)
{
	DIR *d;
	struct dirent *e;

	if (kill_first && cg_write(dir, "cgroup.kill", "1") == 0) {
		char *path = xasprintf("%s/cgroup.events", dir);
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		free(path);
		if (fd >= 0) {
			wait_empty(fd);
			close(fd);
		}
	}
	if ((d = opendir(dir))) {
		while ((e = readdir(d))) {
			char *sub;

			if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			sub = xasprintf("%s/%s", dir, e->d_name);
			cg_remove(sub, false);
			free(sub);
		}
		closedir(d);
	}
	rmdir(dir);
}

/* Where cgroup v2 is mounted (the first cgroup2 line of mountinfo), or NULL. */
static char *cgroup2_mount(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, *mnt = NULL;
	size_t cap = 0;

	if (!f)
		return NULL;
	while (!mnt && getline(&line, &cap, f) > 0) {
		char point[4096], type[64];
		const char *dash = strstr(line, " - ");

		if (dash && sscanf(dash, " - %63s", type) == 1 && !strcmp(type, "cgroup2") &&
		    sscanf(line, "%*s %*s %*s %*s %4095s", point) == 1 && !strchr(point, '\\'))
			mnt = xstrdup(point);
	}
	free(line);
	fclose(f);
	return mnt;
}

/* whyslow's own cgroup v2 folder: the mount and the "0::" line of /proc/self/cgroup. */
static char *own_cgroup(void)
{
	char *mnt = cgroup2_mount(), *text = NULL, *dir = NULL;
	const char *p;

	if (!mnt || ws_read_file("/proc/self/cgroup", &text, NULL) < 0) {
		free(mnt);
		return NULL;
	}
	if ((p = strstr(text, "0::/")) && (p == text || p[-1] == '\n')) {
		size_t len = strcspn(p + 3, "\n");

		dir = xasprintf("%s%.*s", mnt, (int)(len == 1 ? 0 : len), p + 3);
	}
	free(text);
	free(mnt);
	return dir;
}

/* The cgroups of whyslow sessions whose process is gone (killed with SIGKILL): kill what is left, remove them. */
static void clean_stale_cgroups(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		unsigned long long start;
		int pid, end = 0;
		char *dir;

		if (sscanf(e->d_name, "whyslow.%d.%llu%n", &pid, &start, &end) != 2 || e->d_name[end] ||
		    ws_proc_alive(pid, start))
			continue;
		dir = xasprintf("%s/%s", base, e->d_name);
		cg_remove(dir, true);
		ws_log(WS_LOG_DEBUG, "removed the cgroup '%s' of whyslow process %d, which is gone, and what it held",
		       dir, pid);
		free(dir);
	}
	closedir(d);
}

static struct ws_cgroup *leaf_new(void)
{
	struct ws_cgroup *cg = xcalloc(1, sizeof(*cg));
	char *events;

	cg->path = xasprintf("%s/run-%u", cs.session, cs.made++);
	cg->fd = cg->events = -1;
	if (mkdir(cg->path, 0755) < 0 && errno != EEXIST)
		goto fail;
	if ((cg->fd = open(cg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		goto fail;
	events = xasprintf("%s/cgroup.events", cg->path);
	cg->events = open(events, O_RDONLY | O_CLOEXEC);
	free(events);
	if (cg->events < 0)
		goto fail;
	WS_ALLOC_GROW(cs.leaves, cs.nleaves + 1, cs.aleaves);
	cs.leaves[cs.nleaves++] = cg;
	return cg;
fail:
	ws_log(WS_LOG_DEBUG, "cannot make the cgroup '%s': %s", cg->path, strerror(errno));
	if (cg->fd >= 0)
		close(cg->fd);
	rmdir(cg->path);
	free(cg->path);
	free(cg);
	return NULL;
}

double ws_contain_cpu_wait(const struct ws_cgroup *cg)
{
	char *path, *text = NULL;
	const char *p;
	double s = NAN;

	if (!cg)
		return NAN;
	path = xasprintf("%s/cpu.pressure", cg->path);
	if (ws_read_file(path, &text, NULL) >= 0 && !strncmp(text, "some ", 5) && (p = strstr(text, " total=")) &&
	    p < text + strcspn(text, "\n"))
		s = strtod(p + 7, NULL) * 1e-6; /* microseconds */
	free(text);
	free(path);
	return s;
}

/* Whether a child can be started in `cg` (the permission to move it there is checked only then). */
static int probe(struct ws_cgroup *cg)
{
	struct clone_args ca = { .flags = CLONE_INTO_CGROUP, .exit_signal = SIGCHLD, .cgroup = (__u64)cg->fd };
	pid_t pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return -errno;
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return 0;
}

static void contain_exit(void)
{
	if (cs.kind == WS_CONTAIN_OFF)
		return;
	cs.ntracked = cs.nkept = 0;
	/* Whatever runs are still in flight at exit go with us (an error path that did not wait for them). */
	if (cs.session)
		cg_write(cs.session, "cgroup.kill", "1");
	ws_contain_sweep(NULL, 0, true);
	if (cs.session) {
		for (size_t i = 0; i < cs.nleaves; i++) {
			wait_empty(cs.leaves[i]->events);
			close(cs.leaves[i]->fd);
			close(cs.leaves[i]->events);
		}
		cg_remove(cs.session, false);
	}
	/* What a Valgrind killed as it started left in TMPDIR: its processes are gone now. */
	ws_tmpdir_clean_stale();
}

static void try_cgroup(void)
{
	unsigned long long start = ws_proc_start_time(getpid());
	char *base, *kill;
	struct ws_cgroup *cg;
	int ret;

	if (!(base = own_cgroup())) {
		cs.why_not = xstrdup("no cgroup v2 hierarchy is mounted");
		return;
	}
	/* What a whyslow killed with SIGKILL left in its cgroup goes, whichever mechanism this one uses. */
	clean_stale_cgroups(base);
	/* The test interface, and a way out where cgroups misbehave. */
	if (getenv("WHYSLOW_NO_CGROUP") && *getenv("WHYSLOW_NO_CGROUP")) {
		cs.why_not = xstrdup("WHYSLOW_NO_CGROUP is set");
		free(base);
		return;
	}
	cs.session = xasprintf("%s/whyslow.%d.%llu", base, (int)getpid(), start);
	if (mkdir(cs.session, 0755) < 0) {
		cs.why_not = xasprintf("cannot make a cgroup in %s: %s", base, strerror(errno));
		goto fail;
	}
	/* cgroup.kill came with Linux 5.14; without it a cgroup would only say what is left, not end it. */
	kill = xasprintf("%s/cgroup.kill", cs.session);
	ret = access(kill, W_OK) < 0 ? -errno : 0;
	free(kill);
	if (ret < 0) {
		cs.why_not = xasprintf("the cgroups of %s have no cgroup.kill (Linux 5.14 or later)", base);
		goto fail;
	}
	if (!(cg = leaf_new())) {
		cs.why_not = xasprintf("cannot make a cgroup in %s: %s", cs.session, strerror(errno));
		goto fail;
	}
	if ((ret = probe(cg)) < 0) {
		cs.why_not = xasprintf("cannot start a process in a cgroup of %s: %s", base, strerror(-ret));
		goto fail;
	}
	free(base);
	cs.kind = WS_CONTAIN_CGROUP;
	return;
fail:
	for (size_t i = 0; i < cs.nleaves; i++) {
		close(cs.leaves[i]->fd);
		close(cs.leaves[i]->events);
		free(cs.leaves[i]->path);
		free(cs.leaves[i]);
	}
	cs.nleaves = 0;
	if (cs.session)
		cg_remove(cs.session, false);
	free(cs.session);
	cs.session = NULL;
	free(base);
}

static void contain_setup(void)
{
	if (cs.keep) {
		cs.kind = WS_CONTAIN_OFF;
		cs.line = xstrdup("none (--keep-children): what a run starts in the background may outlive it");
		return;
	}
	/* Orphans of a run come to us, not to init: we can kill them, whatever their session or group. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		cs.kind = WS_CONTAIN_OFF;
		cs.line = xasprintf("none: cannot become a child subreaper: %s", strerror(errno));
		return;
	}
	cs.kind = WS_CONTAIN_SUBREAPER;
	try_cgroup();
	if (cs.kind == WS_CONTAIN_CGROUP)
		cs.line = xasprintf("cgroup v2: each run in a cgroup of %s, ended with cgroup.kill; whyslow is the "
				    "subreaper of what the runs leave", cs.session);
	else
		cs.line = xasprintf("subreaper: whyslow adopts what each run leaves and kills it (no cgroup: %s)",
				    cs.why_not);
	atexit(contain_exit);
	ws_log(WS_LOG_DEBUG, "processes: %s", cs.line);
}

void ws_contain_init(void)
{
	if (cs.ready)
		return;
	cs.ready = true;
	contain_setup();
	/*
	 * The folders a whyslow killed with SIGKILL left are removed whatever this one does with its runs, and
	 * only now: the processes it left in its cgroup are gone (try_cgroup), and until then a Valgrind
	 * starting the next program of a run could open its log there again, after the folder was emptied
	 * (t0450 saw two folders stay, under load).
	 */
	ws_tmpdir_clean_stale();
}

const char *ws_contain_describe(void)
{
	ws_contain_init();
	return cs.line;
}

struct ws_cgroup *ws_contain_leaf_get(void)
{
	ws_contain_init();
	if (cs.kind != WS_CONTAIN_CGROUP)
		return NULL;
	for (size_t i = 0; i < cs.nleaves; i++)
		if (!cs.leaves[i]->busy && !cs.leaves[i]->spent) {
			cs.leaves[i]->busy = true;
			return cs.leaves[i];
		}
	{
		struct ws_cgroup *cg = leaf_new();

		if (cg)
			cg->busy = true;
		return cg;
	}
}

void ws_contain_leaf_put(struct ws_cgroup *cg)
{
	if (!cg)
		return;
	cg->busy = false;
	if (!cg->spent)
		return;
	/* A killed leaf goes (see `spent`); the next run that needs one makes a fresh one. */
	wait_empty(cg->events);
	close(cg->fd);
	close(cg->events);
	rmdir(cg->path);
	for (size_t i = 0; i < cs.nleaves; i++)
		if (cs.leaves[i] == cg)
			cs.leaves[i] = cs.leaves[--cs.nleaves];
	free(cg->path);
	free(cg);
}

void ws_contain_cgroup_failed(int err)
{
	if (cs.kind != WS_CONTAIN_CGROUP)
		return;
	cs.kind = WS_CONTAIN_SUBREAPER;
	free(cs.line);
	cs.line = xasprintf("subreaper: whyslow adopts what each run leaves and kills it (a run could not start "
			    "in its cgroup: %s)", strerror(-err));
	ws_log(WS_LOG_WARN, "a run could not start in its cgroup (%s): whyslow kills what runs leave as their "
	       "subreaper instead", strerror(-err));
}

void ws_contain_kill(struct ws_cgroup *cg)
{
	if (cg && cs.kind == WS_CONTAIN_CGROUP) {
		cg_write(cg->path, "cgroup.kill", "1");
		cg->spent = true;
	}
}

void ws_contain_track(pid_t pid)
{
	WS_ALLOC_GROW(cs.tracked, cs.ntracked + 1, cs.atracked);
	cs.tracked[cs.ntracked++] = pid;
}

void ws_contain_untrack(pid_t pid)
{
	for (size_t i = 0; i < cs.ntracked; i++)
		if (cs.tracked[i] == pid) {
			cs.tracked[i] = cs.tracked[--cs.ntracked];
			return;
		}
}

static bool tracked(pid_t pid)
{
	for (size_t i = 0; i < cs.ntracked; i++)
		if (cs.tracked[i] == pid)
			return true;
	return false;
}

/* Whether `pid` was kept; one that has ended is reaped and forgotten (false). */
static bool kept(pid_t pid)
{
	for (size_t i = 0; i < cs.nkept; i++)
		if (cs.kept[i] == pid) {
			if (waitpid(pid, NULL, WNOHANG) != pid)
				return true;
			cs.kept[i] = cs.kept[--cs.nkept];
			return false;
		}
	return false;
}

/* Append the pids of a children file ("12 34 ") to *pids. */
static void add_children(const char *path, pid_t **pids, size_t *n, size_t *alloc)
{
	char *text = NULL, *p, *end;

	if (ws_read_file(path, &text, NULL) < 0)
		return;
	for (p = text;; p = end) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		WS_ALLOC_GROW(*pids, *n + 1, *alloc);
		(*pids)[(*n)++] = (pid_t)v;
	}
	free(text);
}

/*
 * whyslow's children: the children files of its threads, or where the kernel has none
 * (CONFIG_PROC_CHILDREN), every process whose parent (field 4 of /proc/PID/stat) is whyslow.
 */
static size_t list_children(pid_t **pids)
{
	size_t n = 0, alloc = 0;
	bool have_files = false;
	struct dirent *e;
	DIR *d;

	*pids = NULL;
	if ((d = opendir("/proc/self/task"))) {
		while ((e = readdir(d))) {
			char *path;

			if (e->d_name[0] == '.')
				continue;
			path = xasprintf("/proc/self/task/%s/children", e->d_name);
			if (access(path, R_OK) == 0) {
				have_files = true;
				add_children(path, pids, &n, &alloc);
			}
			free(path);
		}
		closedir(d);
	}
	if (have_files || !(d = opendir("/proc")))
		return n;
	while ((e = readdir(d))) {
		char *path, *text = NULL, *p;
		int ppid;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		path = xasprintf("/proc/%s/stat", e->d_name);
		if (ws_read_file(path, &text, NULL) == 0 && (p = strrchr(text, ')')) &&
		    sscanf(p + 1, " %*c %d", &ppid) == 1 && ppid == getpid()) {
			WS_ALLOC_GROW(*pids, n + 1, alloc);
			(*pids)[n++] = (pid_t)atoi(e->d_name);
		}
		free(text);
		free(path);
	}
	closedir(d);
	return n;
}

/* Whether whyslow has no child at all, running or not yet reaped: then nothing was left. */
static bool no_children(void)
{
	siginfo_t si;

	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 && errno == ECHILD;
}

void ws_contain_keep_orphans(void)
{
	pid_t *pids;
	size_t n;

	if (cs.kind == WS_CONTAIN_OFF || no_children())
		return;
	n = list_children(&pids);
	for (size_t i = 0; i < n; i++)
		if (!tracked(pids[i]) && !kept(pids[i])) {
			WS_ALLOC_GROW(cs.kept, cs.nkept + 1, cs.akept);
			cs.kept[cs.nkept++] = pids[i];
		}
	free(pids);
}

void ws_contain_sweep(struct ws_cgroup *cg, pid_t pgid, bool all)
{
	if (cs.kind == WS_CONTAIN_OFF || (!cs.ntracked && no_children()))
		return;
	if (cg && cs.kind == WS_CONTAIN_CGROUP && events_populated(cg->events)) {
		ws_log(WS_LOG_DEBUG, "a run left processes behind: killing its cgroup");
		cg_write(cg->path, "cgroup.kill", "1");
		cg->spent = true;
		wait_empty(cg->events);
	}
	/*
	 * The orphans: killing one hands its own children to us, found in the next round. A process that forks
	 * faster than we kill is bounded by the rounds; the cgroup, where there is one, has ended it already.
	 */
	for (int round = 0; round < 1000; round++) {
		pid_t *pids;
		size_t n = list_children(&pids), killed = 0;

		for (size_t i = 0; i < n; i++) {
			if (tracked(pids[i]) || kept(pids[i]))
				continue;
			if (!all && getpgid(pids[i]) != pgid) {
				/* Another run's: only reaped if it has ended. */
				waitpid(pids[i], NULL, WNOHANG);
				continue;
			}
			if (round == 0 && !cg)
				ws_log(WS_LOG_DEBUG, "a run left process %d behind: killing it", (int)pids[i]);
			kill(pids[i], SIGKILL);
			pids[killed++] = pids[i];
		}
		for (size_t i = 0; i < killed; i++)
			while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
				;
		free(pids);
		if (!killed)
			break;
	}
}

/*
 * The program `pid` runs, for a message: the base name of its argv[0], or under Valgrind (argv[0] is
 * valgrind.bin, or the tool's "<tool>-<arch>-linux"), of the first argument that is not an option; its
 * comm where /proc has no command line (a zombie), else "a process it started". Into name, `size` bytes.
 */
void ws_contain_proc_name(pid_t pid, char *name, size_t size)
{
	char path[48], *text = NULL, *arg, *base;
	size_t len = 0;

	snprintf(name, size, "a process it started");
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if (ws_read_file(path, &text, &len) < 0 || !len) {
		free(text);
		text = NULL;
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		if (ws_read_file(path, &text, &len) == 0 && len > 1) {
			text[strcspn(text, "\n")] = '\0';
			snprintf(name, size, "%s", text);
		}
		goto out;
	}
	arg = text;
	base = strrchr(arg, '/') ? strrchr(arg, '/') + 1 : arg;
	if (!strcmp(base, "valgrind.bin") || (strlen(base) > 6 && !strcmp(base + strlen(base) - 6, "-linux"))) {
		for (char *p = arg + strlen(arg) + 1; p < text + len; p += strlen(p) + 1)
			if (*p != '-') {
				arg = p;
				break;
			}
		base = strrchr(arg, '/') ? strrchr(arg, '/') + 1 : arg;
	}
	snprintf(name, size, "%s", base);
out:
	free(text);
}

/* The context switches of `pid` so far (voluntary and not), or 0 where /proc does not say. */
static unsigned long long proc_switches(pid_t pid)
{
	char path[48], *text = NULL, *p;
	unsigned long long n = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (ws_read_file(path, &text, NULL) < 0)
		return 0;
	for (p = text; (p = strstr(p, "ctxt_switches:")); p += 14)
		n += strtoull(p + 14, NULL, 10);
	free(text);
	return n;
}

/* Whether process `pid` is stopped (state T, not a tracer's t); its start time and switches into *look. */
static bool proc_stopped(pid_t pid, struct ws_stop_look *look)
{
	char path[48], *text = NULL, *close_p;
	unsigned long long start = 0;
	char state = 0;
	bool stopped;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (ws_read_file(path, &text, NULL) < 0)
		return false;
	/*
	 * "PID (NAME) STATE PPID ... STARTTIME(22) ...": the name may hold spaces and parentheses, so the last
	 * ')' ends it.
	 */
	stopped = (close_p = strrchr(text, ')')) &&
		  sscanf(close_p + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
			 &state, &start) == 2 &&
		  state == 'T';
	free(text);
	if (stopped) {
		look->pid = pid;
		look->start = start;
		look->switches = proc_switches(pid);
	}
	return stopped;
}

/* Every thread's children file of `pid`, appended to *pids. */
static void add_descendants_of(pid_t pid, pid_t **pids, size_t *n, size_t *alloc)
{
	char path[48];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return;
	while ((e = readdir(d))) {
		char *file;

		if (e->d_name[0] == '.')
			continue;
		file = xasprintf("/proc/%d/task/%s/children", (int)pid, e->d_name);
		add_children(file, pids, n, alloc);
		free(file);
	}
	closedir(d);
}

/*
 * Looked for every half second while a run goes on (runner.c), so it reads no more than the run's own
 * processes: the leaf's list, or the tree below `pid` (the kernel's children files; without them,
 * CONFIG_PROC_CHILDREN, nothing is found and only `pid` itself is watched, by the runner).
 */
bool ws_contain_find_stopped(const struct ws_cgroup *cg, pid_t pid, struct ws_stop_look *look)
{
	pid_t *pids = NULL;
	size_t n = 0, alloc = 0;
	bool found = false;

	memset(look, 0, sizeof(*look));
	if (cg && cg->path) {
		char *procs = xasprintf("%s/cgroup.procs", cg->path);

		add_children(procs, &pids, &n, &alloc);
		free(procs);
	}
	/* Without a leaf, or where the run could not be placed in it (its list is empty then). */
	if (!n) {
		add_descendants_of(pid, &pids, &n, &alloc);
		/* Breadth first; the list grows as it is read. A bound keeps a fork bomb from making it slow. */
		for (size_t i = 0; i < n && n < 4096; i++)
			add_descendants_of(pids[i], &pids, &n, &alloc);
	}
	for (size_t i = 0; i < n && !found; i++)
		found = pids[i] != pid && proc_stopped(pids[i], look);
	free(pids);
	return found;
}
