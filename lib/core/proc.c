/* SPDX-License-Identifier: GPL-2.0-or-later */
/* proc.c - a process's identity over time (pid and start time), and temporary folders named for their owner. */
#include "core/proc.h"
#include "core/log.h"
#include "core/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

unsigned long long ws_proc_start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* The name in parentheses may hold spaces and parentheses: the fields start after the last ')'. */
	if (!(p = strrchr(buf, ')')))
		return 0;
	/* Field 3 (state) is the first after it; the start time is field 22. */
	if (p[1] == ' ' && p[2] == 'Z')
		return 0;
	for (int field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &start) != 1)
		return 0;
	return start;
}

bool ws_proc_alive(pid_t pid, unsigned long long start)
{
	return pid > 0 && start && ws_proc_start_time(pid) == start;
}

static const char *tmp_root(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp && *tmp ? tmp : "/tmp";
}

char *ws_tmpdir_make(const char *what)
{
	static unsigned long long self_start;
	char *dir;

	if (!self_start)
		self_start = ws_proc_start_time(getpid());
	dir = xasprintf("%s/whyslow-%s.%d.%llu.XXXXXX", tmp_root(), what, (int)getpid(), self_start);
	if (!mkdtemp(dir)) {
		int err = errno;

		free(dir);
		errno = err;
		return NULL;
	}
	return dir;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/*
 * Valgrind makes valgrind_proc_PID_cmdline_XXXXXXXX and ..._auxv_... in TMPDIR as it starts each program,
 * and unlinks them a moment later: a run killed in that moment (a background child ended with its run, or
 * a whyslow killed with SIGKILL) leaves them behind. Whether `name` is one of those, of a process now gone.
 */
static bool valgrind_leftover(const char *name)
{
	char what[16], hex[16];
	int pid, end = 0;

	if (sscanf(name, "valgrind_proc_%d_%15[a-z]_%15[0-9a-f]%n", &pid, what, hex, &end) != 3 || name[end] ||
	    pid <= 0 || strlen(hex) != 8 || (strcmp(what, "cmdline") && strcmp(what, "auxv")))
		return false;
	return ws_proc_start_time(pid) == 0;
}

int ws_tmpdir_clean_stale(void)
{
	const char *root = tmp_root();
	DIR *d = opendir(root);
	struct dirent *e;
	int removed = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char what[32], suffix[8], *path;
		unsigned long long start;
		struct stat st;
		int pid, end = 0;

		if (valgrind_leftover(e->d_name)) {
			path = xasprintf("%s/%s", root, e->d_name);
			if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
			    unlink(path) == 0) {
				ws_log(WS_LOG_DEBUG, "removed '%s', left by a Valgrind killed as it started", path);
				removed++;
			}
			free(path);
			continue;
		}
		/* whyslow-WHAT.PID.START.XXXXXX and nothing else: a name of another form is not ours to judge. */
		if (strncmp(e->d_name, "whyslow-", 8) ||
		    sscanf(e->d_name + 8, "%31[a-z].%d.%llu.%6[A-Za-z0-9]%n", what, &pid, &start, suffix, &end) != 4 ||
		    e->d_name[8 + end] || strlen(suffix) != 6 || pid <= 0)
			continue;
		if (ws_proc_alive(pid, start))
			continue;
		path = xasprintf("%s/%s", root, e->d_name);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid()) {
			nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
			if (access(path, F_OK) < 0) {
				ws_log(WS_LOG_DEBUG, "removed '%s', left by whyslow process %d, which is gone", path, pid);
				removed++;
			}
		}
		free(path);
	}
	closedir(d);
	return removed;
}
