/* SPDX-License-Identifier: GPL-2.0-or-later */
/* runner.c - run one command once: fork, hold before exec, exec, time, reap, kill on timeout or Ctrl-C. */
#include "backend/runner.h"
#include "core/log.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t interrupted;

void ws_runner_interrupt(void)
{
	interrupted = 1;
}

bool ws_runner_interrupted(void)
{
	return interrupted;
}

void ws_runner_reset(void)
{
	interrupted = 0;
}

int ws_parse_cpu_list(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	if (!*s)
		return -EINVAL;
	while (*s) {
		char *end;
		long lo = strtol(s, &end, 10), hi;

		if (end == s || lo < 0 || lo >= CPU_SETSIZE)
			return -EINVAL;
		hi = lo;
		s = end;
		if (*s == '-') {
			hi = strtol(s + 1, &end, 10);
			if (end == s + 1 || hi < lo || hi >= CPU_SETSIZE)
				return -EINVAL;
			s = end;
		}
		for (long c = lo; c <= hi; c++)
			CPU_SET((int)c, set);
		if (*s == ',')
			s++;
		else if (*s)
			return -EINVAL;
	}
	return 0;
}

/*
 * The child's three streams, opened in the parent before the spawn (the child of a fork may only make
 * async-signal-safe calls, and an output file that cannot be opened is the parent's to report).
 */
struct streams {
	int fd[3];   /* what becomes the child's 0, 1 and 2; -1: whyslow's own, inherited */
	int file;    /* WS_OUTPUT_FILE: this run's file, closed in the parent after the spawn */
	int pipe_r;  /* WS_OUTPUT_PIPE: the parent's end, read and discarded while the child runs */
	int pipe_w;  /* the child's end, closed in the parent after the spawn */
};

static int devnull = -1;

/* /dev/null is opened once, and only dup2'd in each child: two system calls fewer per run. */
static int devnull_fd(void)
{
	int fd;

	if (devnull >= 0)
		return devnull;
	if ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0) {
		fd = -errno;
		ws_error("cannot open /dev/null: %s", strerror(errno));
		return fd;
	}
	/* Started with a standard stream closed, it could get 0, 1 or 2, which the child's dup2 would skip. */
	if (fd <= 2) {
		int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);

		close(fd);
		if (high < 0) {
			ws_error("cannot open /dev/null: %s", strerror(errno));
			return -errno;
		}
		fd = high;
	}
	return devnull = fd;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* After the spawn: the parent's copies of what only the child needs. */
static void close_child_ends(struct streams *st)
{
	close_fd(&st->file);
	close_fd(&st->pipe_w);
}

static int open_streams(const struct ws_exec *ex, struct streams *st)
{
	int null = devnull_fd(), p[2], ret;

	st->file = st->pipe_r = st->pipe_w = -1;
	if (null < 0)
		return null;
	st->fd[0] = st->fd[1] = st->fd[2] = null;
	if (ex->input_fd > 2) {
		/* Every run reads the whole input: the previous one left the shared offset at its end. */
		if (lseek(ex->input_fd, 0, SEEK_SET) < 0) {
			ret = -errno;
			ws_error("cannot read the input again from its start: %s", strerror(errno));
			return ret;
		}
		st->fd[0] = ex->input_fd;
	}
	switch (ex->output) {
	case WS_OUTPUT_NULL:
		break;
	case WS_OUTPUT_INHERIT:
		st->fd[1] = st->fd[2] = -1;
		break;
	case WS_OUTPUT_PIPE:
		if (pipe2(p, O_CLOEXEC) < 0) {
			ret = -errno;
			ws_error("cannot create a pipe for the output: %s", strerror(errno));
			return ret;
		}
		/* Only our end: the command's stdout stays blocking, as a terminal's or a file's would be. */
		fcntl(p[0], F_SETFL, O_NONBLOCK);
		st->pipe_r = p[0];
		st->fd[1] = st->pipe_w = p[1];
		break;
	case WS_OUTPUT_FILE:
		st->file = open(ex->output_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (st->file < 0) {
			ret = -errno;
			ws_error("cannot write the output to '%s': %s", ex->output_path, strerror(errno));
			return ret;
		}
		st->fd[1] = st->file;
		break;
	}
	return 0;
}

/*
 * Read and discard what the command wrote into the pipe, at most 1 MiB a call so that a fast writer
 * cannot keep the wait from its timeout. At the end of the stream (every writer gone) the pipe is closed.
 */
static void drain(int *fd)
{
	static char buf[1 << 16];

	for (int i = 0; *fd >= 0 && i < 16; i++) {
		ssize_t n = read(*fd, buf, sizeof(buf));

		if (n == 0)
			close_fd(fd);
		else if (n < 0 && errno != EINTR)
			return; /* EAGAIN: nothing more for now */
	}
}

/* The child between fork and exec: only async-signal-safe calls from here on. */
static void __attribute__((noreturn)) child(const struct ws_exec *ex, const struct streams *st, char **envp,
					     int go_fd, int err_fd)
{
	char c;
	int err;

	/* Its own process group, so that a timeout can kill everything it started. */
	setpgid(0, 0);
	for (int i = 0; i < 3; i++)
		if (st->fd[i] >= 0)
			dup2(st->fd[i], i);
	/* whyslow ignores nothing the child should see; reset what the parent changed. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	if (ex->cpus && sched_setaffinity(0, sizeof(*ex->cpus), ex->cpus) < 0) {
		err = errno;
		goto fail;
	}
	/*
	 * Whatever whyslow has open (symbol files, sockets of the libraries, the streams just copied) is none
	 * of the command's business. The two pipes are CLOEXEC and go at the exec.
	 */
	{
		int lo = go_fd < err_fd ? go_fd : err_fd, hi = go_fd < err_fd ? err_fd : go_fd;

		if (lo > 3)
			syscall(SYS_close_range, 3, lo - 1, 0);
		if (hi > lo + 1)
			syscall(SYS_close_range, lo + 1, hi - 1, 0);
		syscall(SYS_close_range, hi + 1, ~0U, 0);
	}
	/* Wait until the parent has attached its counters; EOF means it gave up. */
	if (read(go_fd, &c, 1) != 1)
		_exit(127);
	execvpe(ex->argv[0], ex->argv, envp);
	err = errno;
fail:
	if (write(err_fd, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

/*
 * The child's environment: ours plus ex->env_add, an added entry replacing one of the same name. Built
 * before fork, because the child may only make async-signal-safe calls.
 */
static char **build_env(const struct ws_exec *ex)
{
	extern char **environ;
	size_t n = 0, k = 0, extra = 0;
	char **envp;

	for (char **e = environ; *e; e++)
		n++;
	if (ex->env_add)
		for (char *const *e = ex->env_add; *e; e++)
			extra++;
	envp = xcalloc(n + extra + 1, sizeof(*envp));
	for (char **e = environ; *e; e++) {
		size_t len = strcspn(*e, "=");
		bool replaced = false;

		for (size_t j = 0; j < extra; j++)
			if (!strncmp(ex->env_add[j], *e, len) && ex->env_add[j][len] == '=')
				replaced = true;
		if (!replaced)
			envp[k++] = *e;
	}
	for (size_t j = 0; j < extra; j++)
		envp[k++] = ex->env_add[j];
	envp[k] = NULL;
	return envp;
}

static void kill_group(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}

/* Reap a child we killed or that failed before exec, whatever signal arrives meanwhile. */
static void reap(pid_t pid)
{
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

static int pidfd_for(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* The signals that stop a measurement (src/ installs their handlers), blocked but inside ppoll. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/*
 * Block the stop signals, keeping the mask to restore in *old and the one to wait with in *unblocked, so
 * that an interrupt can only arrive inside ppoll, never between checking the flag and going to sleep.
 */
static void block_interrupts(sigset_t *old, sigset_t *unblocked)
{
	sigset_t block;

	sigemptyset(&block);
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaddset(&block, stop_signals[i]);
	sigprocmask(SIG_BLOCK, &block, old);
	*unblocked = *old;
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigdelset(unblocked, stop_signals[i]);
}

/*
 * Wait for `pid` with the timeout and interrupt rules; the stop signals are blocked except inside ppoll
 * (block_interrupts). Meanwhile what the command writes into `*pipe_r` (if >= 0) is read and discarded, so
 * that it never blocks on a full pipe.
 */
static int wait_child(pid_t pid, const struct ws_exec *ex, const struct ws_run_hooks *hooks, double t_start,
		      int *pipe_r, int *status, struct rusage *ru, struct ws_run_outcome *out)
{
	sigset_t old, unblocked;
	int pfd = pidfd_for(pid);
	int ret = 0;

	block_interrupts(&old, &unblocked);
	for (;;) {
		double wait_s = hooks && hooks->poll ? 0.1 : 3600;
		struct pollfd p[2] = { { .fd = pfd, .events = POLLIN }, { .fd = *pipe_r, .events = POLLIN } };
		struct timespec ts;
		int r;

		if (interrupted) {
			kill_group(pid);
			out->interrupted = true;
			ret = -EINTR;
			break;
		}
		if (ex->timeout > 0) {
			double left = t_start + ex->timeout - ws_now();

			if (left <= 0) {
				kill_group(pid);
				out->timed_out = true;
				break;
			}
			if (left < wait_s)
				wait_s = left;
		}
		if (pfd < 0) {
			/* No pidfd (kernel < 5.3): poll the child's state every millisecond. */
			pid_t w = wait4(pid, status, WNOHANG, ru);

			if (w == pid) {
				out->wall = ws_now() - t_start;
				drain(pipe_r);
				sigprocmask(SIG_SETMASK, &old, NULL);
				return 0;
			}
			drain(pipe_r);
			if (wait_s > 0.001)
				wait_s = 0.001;
			ts.tv_sec = 0;
			ts.tv_nsec = (long)(wait_s * 1e9);
			pselect(0, NULL, NULL, NULL, &ts, &unblocked);
			if (hooks && hooks->poll)
				hooks->poll(hooks->ctx);
			continue;
		}
		ts.tv_sec = (time_t)wait_s;
		ts.tv_nsec = (long)((wait_s - (double)ts.tv_sec) * 1e9);
		r = ppoll(p, *pipe_r >= 0 ? 2 : 1, &ts, &unblocked);
		if (r > 0 && p[1].revents)
			drain(pipe_r);
		if (r > 0 && p[0].revents) {
			out->wall = ws_now() - t_start;
			break;
		}
		if (hooks && hooks->poll)
			hooks->poll(hooks->ctx);
	}
	if (pfd >= 0)
		close(pfd);
	/* What it wrote last, before it exited. */
	drain(pipe_r);
	/* The child has exited or was just killed: reap it. */
	for (;;) {
		if (wait4(pid, status, 0, ru) >= 0)
			break;
		if (errno != EINTR) {
			/* ECHILD: someone reaped it for us (SIGCHLD ignored); its status is lost. */
			ret = -errno;
			ws_error("cannot collect the exit status of '%s': %s", ex->argv[0], strerror(-ret));
			break;
		}
	}
	if (out->timed_out || out->interrupted)
		out->wall = ws_now() - t_start;
	/* Kill-and-reap the rest of its group on a timeout or interrupt, so nothing outlives the run. */
	if (out->timed_out || out->interrupted)
		kill(-pid, SIGKILL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static void fill_outcome(struct ws_run_outcome *out, int status, const struct rusage *ru)
{
	if (WIFEXITED(status))
		out->exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		out->signal = WTERMSIG(status);
	out->user = (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec * 1e-6;
	out->sys = (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec * 1e-6;
	out->max_rss = (double)ru->ru_maxrss * 1024.0;
}

static void exec_error(const char *cmd, int err)
{
	if (err == ENOENT)
		ws_error("cannot run '%s': command not found (check the name, or PATH)", cmd);
	else
		ws_error("cannot run '%s': %s", cmd, strerror(err));
}

int ws_run_check(const char *cmd)
{
	char *path = ws_find_in_path(cmd);
	int err;

	if (path) {
		free(path);
		return 0;
	}
	/* A name not in PATH is "not found"; a path that exists but cannot run says why. */
	err = strchr(cmd, '/') && access(cmd, F_OK) == 0 ? EACCES : ENOENT;
	exec_error(cmd, err);
	return -err;
}

/*
 * posix_spawn (vfork + exec), no handshake, with the streams `st` opened: the child's pid and the time its
 * clock starts. Returns 0 or the error (said once).
 */
static int spawn_child(const struct ws_exec *ex, char **envp, struct streams *st, pid_t *pid, double *t_start)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t def, none;
	cpu_set_t saved;
	bool pinned = false;
	int err, ret = 0;

	posix_spawn_file_actions_init(&fa);
	for (int i = 0; i < 3; i++)
		if (st->fd[i] >= 0)
			posix_spawn_file_actions_adddup2(&fa, st->fd[i], i);
	/* Nothing of whyslow's stays open in the command (see child()); after the dup2s that need the streams. */
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	posix_spawnattr_init(&attr);
	sigemptyset(&def);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGPIPE);
	sigemptyset(&none);
	posix_spawnattr_setsigdefault(&attr, &def);
	posix_spawnattr_setsigmask(&attr, &none);
	/* Its own process group, so that a timeout can kill everything it started. */
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK |
						POSIX_SPAWN_USEVFORK);
	/* posix_spawn has no affinity attribute: the child inherits ours, set just around the spawn. */
	if (ex->cpus) {
		if (sched_getaffinity(0, sizeof(saved), &saved) < 0 ||
		    sched_setaffinity(0, sizeof(*ex->cpus), ex->cpus) < 0) {
			ret = -errno;
			ws_error("cannot pin to the CPUs of --cpu: %s", strerror(errno));
			goto out;
		}
		pinned = true;
	}
	fflush(NULL);
	/*
	 * The clock starts before the spawn: taken when posix_spawn returns, it would start whenever the
	 * scheduler next runs us, on a busy machine after much of a short child's life (wall times below its
	 * CPU time were seen). This counts the exec too, a small cost the same for every variant.
	 */
	*t_start = ws_now();
	err = posix_spawnp(pid, ex->argv[0], &fa, &attr, ex->argv, envp);
	if (pinned)
		sched_setaffinity(0, sizeof(saved), &saved);
	/* Before the wait: the pipe must see its end when the command's last writer goes, not ours. */
	close_child_ends(st);
	if (err) {
		exec_error(ex->argv[0], err);
		ret = -err;
	}
out:
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return ret;
}

/* The fast path, for counters armed on ourselves. */
static int run_spawn(const struct ws_exec *ex, const struct ws_run_hooks *hooks, char **envp,
		     struct ws_run_outcome *out)
{
	struct streams st;
	struct rusage ru;
	int status = 0, ret;
	double t_start;
	pid_t pid;

	memset(&ru, 0, sizeof(ru));
	if ((ret = open_streams(ex, &st)) < 0)
		goto out;
	if ((ret = spawn_child(ex, envp, &st, &pid, &t_start)) < 0)
		goto out;
	ret = wait_child(pid, ex, hooks, t_start, &st.pipe_r, &status, &ru, out);
	fill_outcome(out, status, &ru);
out:
	close_child_ends(&st);
	close_fd(&st.pipe_r);
	return ret;
}

/* The attach path: fork, hold the child on a pipe while counters are opened on its pid, then exec. */
static int run_fork(const struct ws_exec *ex, const struct ws_run_hooks *hooks, char **envp,
		    struct ws_run_outcome *out)
{
	int go[2] = { -1, -1 }, errp[2] = { -1, -1 };
	int status = 0, child_errno = 0, ret = 0;
	struct streams st;
	struct rusage ru;
	double t_start;
	ssize_t n;
	pid_t pid;

	memset(&ru, 0, sizeof(ru));
	if ((ret = open_streams(ex, &st)) < 0)
		goto out;
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
		ret = -errno;
		ws_error("cannot create a pipe: %s", strerror(errno));
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		ws_error("cannot fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0)
		child(ex, &st, envp, go[0], errp[1]);
	close_child_ends(&st);
	close(go[0]);
	close(errp[1]);
	go[0] = errp[1] = -1;
	/* Both sides set the group, so that it exists whichever runs first. */
	setpgid(pid, pid);
	ret = hooks->attach(hooks->ctx, pid);
	if (ret) {
		kill_group(pid);
		reap(pid);
		goto out;
	}
	/* Release the child; the error pipe closes on a successful exec (CLOEXEC), or carries errno. The clock
	 * starts now, for the reason given in run_spawn(). */
	t_start = ws_now();
	if (write(go[1], "g", 1) != 1) {
		/* The child died before its release (EPIPE): its error pipe may say why. */
		ret = -errno;
		kill_group(pid);
		reap(pid);
		if (read(errp[0], &child_errno, sizeof(child_errno)) == sizeof(child_errno))
			ret = -child_errno;
		ws_error("cannot start '%s': %s", ex->argv[0], strerror(-ret));
		goto out;
	}
	close(go[1]);
	go[1] = -1;
	while ((n = read(errp[0], &child_errno, sizeof(child_errno))) < 0 && errno == EINTR)
		;
	if (n == sizeof(child_errno)) {
		reap(pid);
		ret = -child_errno;
		exec_error(ex->argv[0], child_errno);
		goto out;
	}
	ret = wait_child(pid, ex, hooks, t_start, &st.pipe_r, &status, &ru, out);
	fill_outcome(out, status, &ru);
out:
	close_child_ends(&st);
	close_fd(&st.pipe_r);
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	return ret;
}

int ws_run(const struct ws_exec *ex, const struct ws_run_hooks *hooks, struct ws_run_outcome *out)
{
	char **envp;
	int ret;

	memset(out, 0, sizeof(*out));
	out->exit_code = -1;
	if (interrupted)
		return -EINTR;
	envp = build_env(ex);
	if (hooks && hooks->attach)
		ret = run_fork(ex, hooks, envp, out);
	else
		ret = run_spawn(ex, hooks, envp, out);
	free(envp);
	return ret;
}

/* A run started by ws_job_start(), until ws_job_wait_any() reaps it. */
struct ws_job {
	pid_t pid;
	int pidfd;      /* -1 without pidfd_open (kernel < 5.3): polled with WNOHANG */
	int pipe_r;     /* WS_OUTPUT_PIPE: read and discarded while it runs */
	double t_start, timeout;
	char *cmd;      /* argv[0], for messages */
};

/*
 * Several runs share whyslow's open --input, and an open file's offset is shared by everyone who holds it:
 * each job reads the file through a description of its own, opened anew from /proc, from its start.
 */
static int reopen_input(int fd)
{
	char path[64];
	int own;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	own = open(path, O_RDONLY | O_CLOEXEC);
	if (own < 0) {
		own = -errno;
		ws_error("cannot open the input again for a run of its own (is /proc mounted?): %s", strerror(-own));
		return own;
	}
	if (own <= 2) {
		int high = fcntl(own, F_DUPFD_CLOEXEC, 3);

		close(own);
		if (high < 0)
			return -errno;
		own = high;
	}
	return own;
}

int ws_job_start(const struct ws_exec *ex, struct ws_job **out)
{
	struct ws_exec own = *ex;
	struct streams st = { .file = -1, .pipe_r = -1, .pipe_w = -1 };
	struct ws_job *job;
	char **envp;
	int ret, input = -1;

	*out = NULL;
	if (interrupted)
		return -EINTR;
	if (ex->input_fd > 2) {
		if ((input = reopen_input(ex->input_fd)) < 0)
			return input;
		own.input_fd = input;
	}
	envp = build_env(&own);
	job = xcalloc(1, sizeof(*job));
	job->pidfd = job->pipe_r = -1;
	if ((ret = open_streams(&own, &st)) == 0)
		ret = spawn_child(&own, envp, &st, &job->pid, &job->t_start);
	close_child_ends(&st);
	free(envp);
	if (input >= 0)
		close(input);
	if (ret < 0) {
		close_fd(&st.pipe_r);
		free(job);
		return ret;
	}
	job->pipe_r = st.pipe_r;
	job->pidfd = pidfd_for(job->pid);
	job->timeout = ex->timeout;
	job->cmd = xstrdup(ex->argv[0]);
	*out = job;
	return 0;
}

static void job_free(struct ws_job *job)
{
	if (job->pidfd >= 0)
		close(job->pidfd);
	close_fd(&job->pipe_r);
	free(job->cmd);
	free(job);
}

/* Reap a job that has exited or was just killed, and free it; `out` has its flags set already. */
static int job_reap(struct ws_job *job, struct ws_run_outcome *out)
{
	struct rusage ru;
	int status = 0, ret = 0;

	memset(&ru, 0, sizeof(ru));
	drain(&job->pipe_r);
	while (wait4(job->pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			ret = -errno;
			ws_error("cannot collect the exit status of '%s': %s", job->cmd, strerror(-ret));
			break;
		}
	}
	out->wall = ws_now() - job->t_start;
	/* Nothing it started outlives a run we killed. */
	if (out->timed_out || out->interrupted)
		kill(-job->pid, SIGKILL);
	fill_outcome(out, status, &ru);
	job_free(job);
	return ret;
}

void ws_job_kill(struct ws_job *job)
{
	struct ws_run_outcome out = { .interrupted = true };

	if (!job)
		return;
	kill_group(job->pid);
	job_reap(job, &out);
}

int ws_job_wait_any(struct ws_job **jobs, size_t n, size_t *which, struct ws_run_outcome *out)
{
	struct pollfd *p = xcalloc(2 * n + 1, sizeof(*p));
	size_t *owner = xcalloc(2 * n + 1, sizeof(*owner));
	sigset_t old, unblocked;
	size_t live = 0;
	bool done = false;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->exit_code = -1;
	for (size_t i = 0; i < n; i++)
		live += jobs[i] != NULL;
	if (!live) {
		free(p);
		free(owner);
		return -ECHILD;
	}
	block_interrupts(&old, &unblocked);
	while (!done) {
		double wait_s = 3600, now = ws_now();
		bool no_pidfd = false;
		struct timespec ts;
		size_t np = 0, hit = n;
		int r;

		if (interrupted) {
			/* Every job goes: killed and reaped, and none of their counts kept. */
			for (size_t i = 0; i < n; i++) {
				ws_job_kill(jobs[i]);
				jobs[i] = NULL;
			}
			out->interrupted = true;
			ret = -EINTR;
			break;
		}
		for (size_t i = 0; i < n && hit == n; i++) {
			double left;

			if (!jobs[i] || jobs[i]->timeout <= 0)
				continue;
			left = jobs[i]->t_start + jobs[i]->timeout - now;
			if (left <= 0) {
				kill_group(jobs[i]->pid);
				out->timed_out = true;
				hit = i;
			} else if (left < wait_s) {
				wait_s = left;
			}
		}
		for (size_t i = 0; i < n && hit == n; i++) {
			if (!jobs[i])
				continue;
			if (jobs[i]->pidfd >= 0) {
				p[np] = (struct pollfd){ .fd = jobs[i]->pidfd, .events = POLLIN };
				owner[np++] = 2 * i;
			} else {
				no_pidfd = true;
			}
			if (jobs[i]->pipe_r >= 0) {
				p[np] = (struct pollfd){ .fd = jobs[i]->pipe_r, .events = POLLIN };
				owner[np++] = 2 * i + 1;
			}
		}
		if (hit == n) {
			/* No pidfd (kernel < 5.3): look every millisecond, as wait_child() does. */
			if (no_pidfd && wait_s > 0.001)
				wait_s = 0.001;
			ts.tv_sec = (time_t)wait_s;
			ts.tv_nsec = (long)((wait_s - (double)ts.tv_sec) * 1e9);
			r = ppoll(p, np, &ts, &unblocked);
			for (size_t k = 0; r > 0 && k < np; k++) {
				size_t i = owner[k] / 2;

				if (!p[k].revents)
					continue;
				if (owner[k] % 2)
					drain(&jobs[i]->pipe_r);
				else if (hit == n)
					hit = i;
			}
			for (size_t i = 0; no_pidfd && hit == n && i < n; i++) {
				siginfo_t si = { 0 };

				if (jobs[i] && jobs[i]->pidfd < 0 &&
				    waitid(P_PID, (id_t)jobs[i]->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid)
					hit = i;
			}
		}
		if (hit < n) {
			struct ws_job *job = jobs[hit];

			jobs[hit] = NULL;
			*which = hit;
			ret = job_reap(job, out);
			done = true;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(p);
	free(owner);
	return ret;
}
