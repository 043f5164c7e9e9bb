/* SPDX-License-Identifier: GPL-2.0-or-later */
/* runner.c - run one command once: fork, hold before exec, exec, time, reap, kill on timeout or Ctrl-C. */
#include "backend/runner.h"
#include "backend/contain.h"
#include "core/log.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t interrupted;
/* The run wait_plain() blocks on (its process group), which an interrupt kills itself; 0 when none. */
static volatile sig_atomic_t waiting_on;

void ws_runner_interrupt(void)
{
	pid_t pid = waiting_on;

	interrupted = 1;
	/* wait_plain() sleeps in waitid without a signal mask: end the run here, or it could sleep on. */
	if (pid > 0) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
}

bool ws_runner_interrupted(void)
{
	return interrupted;
}

void ws_runner_reset(void)
{
	interrupted = 0;
}

void ws_runner_keep_children(bool keep)
{
	ws_contain_keep_children(keep);
}

const char *ws_runner_containment(void)
{
	return ws_contain_describe();
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
	int null;    /* the run's own /dev/null (open_null()), closed in the parent after the spawn; else -1 */
};

/*
 * A /dev/null of the run's own: an open file description's flags are shared by everyone who holds it, and a
 * program that sets O_NONBLOCK on its stdout (xz does, and clears it at its exit) would change what a run
 * beside it does, or one after it where a program left the flag set: xz -6's simulated instructions came
 * out 95 more or less depending on which run of two in flight set it first. Its descriptor, or a negative
 * errno (said).
 */
static int open_null(void)
{
	int fd;

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
	return fd;
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
	close_fd(&st->null);
}

static int open_streams(const struct ws_exec *ex, struct streams *st)
{
	int null = open_null(), p[2], ret;

	st->file = st->pipe_r = st->pipe_w = st->null = -1;
	if (null < 0)
		return null;
	st->null = st->fd[0] = st->fd[1] = st->fd[2] = null;
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

/* What the child needs between its start and its exec; built in the parent, read-only in the child. */
struct child_args {
	const struct ws_exec *ex;
	const struct streams *st;
	char **envp;
	pid_t parent;       /* whyslow's pid, taken before the child started */
	int go_fd;          /* the attach path: exec once a byte arrives; -1: at once */
	int err_fd;         /* the attach path: errno goes into this pipe; -1: into *err */
	volatile int *err;  /* a page shared with the parent (MAP_SHARED), or our own memory (CLONE_VM) */
};

/*
 * The child between its start and exec: only async-signal-safe calls from here on. Not instrumented by
 * ASan: it may run on a stack of its own that ASan never saw start (clone3_vm()).
 */
static int __attribute__((noreturn, no_sanitize_address)) child_main(void *arg)
{
	const struct child_args *a = arg;
	const struct ws_exec *ex = a->ex;
	sigset_t none;
	int err;
	char c;

	/*
	 * The command dies with whyslow, even by SIGKILL. If whyslow died before this line, the signal never
	 * comes: then our parent is already someone else, and there is nothing to run for.
	 */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != a->parent)
		_exit(127);
	/* Its own process group, so that a timeout can kill everything it started. */
	setpgid(0, 0);
	for (int i = 0; i < 3; i++)
		if (a->st->fd[i] >= 0)
			dup2(a->st->fd[i], i);
	/* whyslow ignores nothing the child should see; reset what the parent changed, then unblock all. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (ex->cpus && sched_setaffinity(0, sizeof(*ex->cpus), ex->cpus) < 0) {
		err = errno;
		goto fail;
	}
	/*
	 * Whatever whyslow has open (symbol files, sockets of the libraries, the streams just copied) is none
	 * of the command's business. The pipes of the attach path are CLOEXEC and go at the exec.
	 */
	{
		int lo = a->go_fd < a->err_fd ? a->go_fd : a->err_fd, hi = a->go_fd < a->err_fd ? a->err_fd : a->go_fd;

		if (lo < 3)
			lo = hi;
		if (lo < 3) {
			syscall(SYS_close_range, 3, ~0U, 0);
		} else {
			if (lo > 3)
				syscall(SYS_close_range, 3, lo - 1, 0);
			if (hi > lo + 1)
				syscall(SYS_close_range, lo + 1, hi - 1, 0);
			syscall(SYS_close_range, hi + 1, ~0U, 0);
		}
	}
	/* Wait until the parent has attached its counters; EOF means it gave up. */
	if (a->go_fd >= 0 && read(a->go_fd, &c, 1) != 1)
		_exit(127);
	execvpe(ex->argv[0], ex->argv, a->envp);
	err = errno;
fail:
	if (a->err_fd >= 0) {
		if (write(a->err_fd, &err, sizeof(err)) < 0)
			_exit(127);
	} else {
		*a->err = err;
	}
	_exit(127);
}

/*
 * Where a child started by clone() with CLONE_VM runs until its exec: a stack of its own (it shares our
 * memory, and we are suspended meanwhile, CLONE_VFORK). One is enough, as children start one at a time.
 * Also the page through which a child started with a copy of our memory reports a failed exec.
 */
static char *child_stack;
static volatile int *shared_err;
/*
 * 1 MiB: execvp() of a script without "#!" copies the whole argument list onto this stack (8 bytes an
 * argument), so a command of ~100,000 arguments still fits. Below it a guard page, so that one that does
 * not fit faults in the child rather than writing over the page of errors and our memory below it.
 */
#define CHILD_STACK_SIZE (1 << 20)

static int child_memory(void)
{
	char *p;

	if (child_stack)
		return 0;
	/* [errors][guard][stack...]: the stack grows down towards the guard. */
	p = mmap(NULL, 2 * 4096 + CHILD_STACK_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_STACK, -1,
		 0);
	if (p == MAP_FAILED) {
		ws_error("cannot map memory to start a run: %s", strerror(errno));
		return -errno;
	}
	if (mprotect(p + 4096, 4096, PROT_NONE) < 0) {
		int err = errno;

		munmap(p, 2 * 4096 + CHILD_STACK_SIZE);
		ws_error("cannot map memory to start a run: %s", strerror(err));
		return -err;
	}
	shared_err = (volatile int *)p;
	child_stack = p + 2 * 4096;
	return 0;
}

#if defined(__x86_64__)
/*
 * clone3 with CLONE_VM and a stack of its own: the child starts on that stack, calls fn(arg), which never
 * returns (it execs or exits). The C library has no clone3 wrapper (glibc's own, behind posix_spawn, is
 * private), and a child on a new stack cannot return from syscall(): this is glibc's clone() for clone3.
 */
static long clone3_vm(struct clone_args *ca, int (*fn)(void *), void *arg)
{
	register long rax asm("rax") = SYS_clone3;
	register struct clone_args *rdi asm("rdi") = ca;
	register long rsi asm("rsi") = sizeof(*ca);

	asm volatile("syscall\n\t"
		     "test %%rax, %%rax\n\t"
		     "jnz 1f\n\t"
		     /*
		      * The child: fn and arg into registers of their own first (the compiler may have given
		      * either one rbp), then the outermost frame of its stack, fn(arg) and, should it return, exit.
		      */
		     "mov %[fn], %%rax\n\t"
		     "mov %[arg], %%rdi\n\t"
		     "xor %%ebp, %%ebp\n\t"
		     "call *%%rax\n\t"
		     "mov %%eax, %%edi\n\t"
		     "mov $60, %%eax\n\t"
		     "syscall\n\t"
		     "hlt\n"
		     "1:"
		     : "+r"(rax)
		     : "r"(rdi), "r"(rsi), [fn] "r"(fn), [arg] "r"(arg)
		     : "rcx", "r11", "memory", "cc");
	return rax;
}
#define HAVE_CLONE3_VM 1
#endif

/*
 * Start the child of `a`: in the cgroup leaf `cg` when there is one (clone3 with CLONE_INTO_CGROUP, which
 * places it there before it runs: writing its pid into cgroup.procs would wait for an RCU grace period,
 * milliseconds); else with clone. Without the attach path's hold it shares our memory until its exec
 * (CLONE_VM and CLONE_VFORK, as posix_spawn does: no page tables copied, no copy-on-write faults for us
 * afterwards; clone3 needs clone3_vm() for that, on x86-64, else it costs a fork); with the hold, where
 * the child waits for the counters, it is a fork.
 * Without a go pipe we return once it has exec'd or failed to, with *a->err set. All signals are blocked
 * meanwhile, so that none of our handlers runs in the child. Returns its pid or -errno.
 */
static pid_t start_child(struct child_args *a, struct ws_cgroup *cg)
{
	bool hold = a->go_fd >= 0;
	sigset_t all, old;
	pid_t pid;

	if (child_memory() < 0)
		return -ENOMEM;
	*shared_err = 0;
	a->err = shared_err;
	a->parent = getpid();
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	if (cg) {
		struct clone_args ca = { .flags = CLONE_INTO_CGROUP | (hold ? 0 : CLONE_VFORK),
					 .exit_signal = SIGCHLD,
					 .cgroup = (__u64)ws_contain_leaf_fd(cg) };

#ifdef HAVE_CLONE3_VM
		if (!hold) {
			ca.flags |= CLONE_VM;
			ca.stack = (__u64)(uintptr_t)child_stack;
			ca.stack_size = CHILD_STACK_SIZE;
			pid = (pid_t)clone3_vm(&ca, child_main, a);
			if (pid < 0) {
				errno = -pid;
				pid = -1;
			}
		} else
#endif
		{
			pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
			if (pid == 0)
				child_main(a);
		}
		if (pid < 0) {
			/* Refused (the cgroup went, or a policy): this run and the later ones go without. */
			ws_contain_cgroup_failed(-errno);
			cg = NULL;
		}
	}
	if (!cg) {
		if (hold) {
			pid = fork();
			if (pid == 0)
				child_main(a);
		} else {
			pid = clone(child_main, child_stack + CHILD_STACK_SIZE, CLONE_VM | CLONE_VFORK | SIGCHLD, a);
		}
	}
	if (pid < 0)
		pid = -errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return pid;
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

/*
 * End a run at once (a timeout, an interrupt): its process group, and its cgroup where it has one, which
 * holds also what left the group (setsid, setpgid).
 */
static void kill_run(pid_t pid, struct ws_cgroup *cg)
{
	kill_group(pid);
	ws_contain_kill(cg);
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

/*
 * The stop signal of `pid` when it is stopped, else 0. Nothing would continue it: a run has a process group
 * of its own, never the terminal's, so a program that reads the terminal (a password prompt) gets SIGTTIN
 * and would wait for ever, and whyslow with it. The run is killed and said to have stopped.
 */
static int stop_signal(pid_t pid)
{
	siginfo_t si = { 0 };

	if (waitid(P_PID, (id_t)pid, &si, WSTOPPED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid &&
	    si.si_code == CLD_STOPPED)
		return si.si_status;
	return 0;
}

/* How often a wait that sleeps on a pidfd, which a stop does not wake, looks for one (stop_signal). */
#define STOP_CHECK_S 0.5

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

/* Reap `pid`, which has exited or was just killed: its status and rusage. 0 or -errno (said). */
static int reap_status(pid_t pid, const struct ws_exec *ex, int *status, struct rusage *ru)
{
	for (;;) {
		if (wait4(pid, status, 0, ru) >= 0)
			return 0;
		if (errno != EINTR) {
			/* ECHILD: someone reaped it for us (SIGCHLD ignored); its status is lost. */
			int ret = -errno;

			ws_error("cannot collect the exit status of '%s': %s", ex->argv[0], strerror(-ret));
			return ret;
		}
	}
}

/*
 * Whether the run started as `pid` has stopped where nothing would continue it: `pid` itself (its stop
 * signal), or a process below it found stopped at two looks in a row without having run between them
 * (WS_STOPPED_BELOW: a shell pipeline's ssh asking for a password stops the ssh, and the shell waits for
 * it). One that its parent stops and continues (a CPU limiter, a job-control harness) has switched context
 * between the looks, and is left alone. *last carries what the last look found.
 */
static int run_stopped(pid_t pid, const struct ws_cgroup *cg, struct ws_stop_look *last, struct ws_run_outcome *out)
{
	struct ws_stop_look now;
	int sig = stop_signal(pid);

	if (sig)
		return sig;
	if (ws_contain_find_stopped(cg, pid, &now) && now.pid == last->pid && now.start == last->start &&
	    now.switches == last->switches) {
		ws_contain_proc_name(now.pid, out->stopped_name, sizeof(out->stopped_name));
		return WS_STOPPED_BELOW;
	}
	*last = now;
	return 0;
}

/*
 * The common case, with no timeout, no output to drain and nothing to poll: asleep on a pidfd, woken every
 * STOP_CHECK_S to look for a stop (run_stopped), which wakes no wait. Five system calls a run where
 * wait_child() makes six; an interrupt cannot be missed between the check and the sleep, because
 * ws_runner_interrupt() kills the run itself while `waiting_on` names it, which wakes the poll. The child
 * is left unreaped (WNOWAIT) until `waiting_on` is cleared, so that a signal can never reach a pid the
 * kernel has handed to another process.
 */
static int wait_plain(pid_t pid, const struct ws_exec *ex, struct ws_cgroup *cg, double t_start, int *status,
		      struct rusage *ru, struct ws_run_outcome *out)
{
	siginfo_t si = { 0 }; /* stays 0 where waitid fails (ECHILD): no stop */
	struct ws_stop_look seen = { 0 };
	int pfd, ret;

	waiting_on = pid;
	pfd = pidfd_for(pid);
	while (pfd >= 0 && !interrupted) {
		struct pollfd p = { .fd = pfd, .events = POLLIN };
		int r = poll(&p, 1, (int)(STOP_CHECK_S * 1000));

		/* A poll that fails for good (ENOMEM) leaves the wait to waitid, as without a pidfd. */
		if (r > 0 || (r < 0 && errno != EINTR) || (r == 0 && (out->stopped = run_stopped(pid, cg, &seen, out))))
			break;
	}
	if (pfd >= 0)
		close(pfd);
	/* Without a pidfd (kernel < 5.3) the wait itself sees the child stop, and nothing below it. */
	while (!interrupted && !out->stopped && waitid(P_PID, (id_t)pid, &si, WEXITED | WSTOPPED | WNOWAIT) < 0 &&
	       errno == EINTR)
		;
	out->wall = ws_now() - t_start;
	waiting_on = 0;
	if (interrupted) {
		/* Killed by the handler, or about to be: what left its group goes too (cgroup.kill). */
		kill_run(pid, cg);
		out->interrupted = true;
		out->stopped = 0;
	} else if (out->stopped || si.si_code == CLD_STOPPED) {
		if (!out->stopped)
			out->stopped = si.si_status;
		kill_run(pid, cg);
	}
	ret = reap_status(pid, ex, status, ru);
	if (out->interrupted || out->stopped)
		kill(-pid, SIGKILL);
	return out->interrupted ? -EINTR : ret;
}

/*
 * Wait for `pid` with the timeout and interrupt rules; the stop signals are blocked except inside ppoll
 * (block_interrupts). Meanwhile what the command writes into `*pipe_r` (if >= 0) is read and discarded, so
 * that it never blocks on a full pipe.
 */
static int wait_child(pid_t pid, const struct ws_exec *ex, const struct ws_run_hooks *hooks, struct ws_cgroup *cg,
		      double t_start, int *pipe_r, int *status, struct rusage *ru, struct ws_run_outcome *out)
{
	sigset_t old, unblocked;
	double stop_checked;
	struct ws_stop_look seen = { 0 };
	int pfd, ret = 0;

	if (ex->timeout <= 0 && *pipe_r < 0 && !(hooks && hooks->poll))
		return wait_plain(pid, ex, cg, t_start, status, ru, out);
	pfd = pidfd_for(pid);
	block_interrupts(&old, &unblocked);
	stop_checked = ws_now();
	for (;;) {
		double wait_s = hooks && hooks->poll ? 0.1 : STOP_CHECK_S;
		struct pollfd p[2] = { { .fd = pfd, .events = POLLIN }, { .fd = *pipe_r, .events = POLLIN } };
		struct timespec ts;
		int r;

		if (interrupted) {
			kill_run(pid, cg);
			out->interrupted = true;
			ret = -EINTR;
			break;
		}
		if (ex->timeout > 0) {
			double left = t_start + ex->timeout - ws_now();

			if (left <= 0) {
				kill_run(pid, cg);
				out->timed_out = true;
				break;
			}
			if (left < wait_s)
				wait_s = left;
		}
		/* Every STOP_CHECK_S, whatever woke the wait: a chatty pipe must not keep the check from running. */
		if (ws_now() - stop_checked >= STOP_CHECK_S) {
			stop_checked = ws_now();
			if ((out->stopped = run_stopped(pid, cg, &seen, out))) {
				out->wall = stop_checked - t_start;
				kill_run(pid, cg);
				break;
			}
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
	{
		int r = reap_status(pid, ex, status, ru);

		if (r)
			ret = r;
	}
	if (out->timed_out || out->interrupted)
		out->wall = ws_now() - t_start;
	/*
	 * Kill the rest of its group on a timeout, an interrupt or a stop, so nothing outlives the run; what
	 * left the group (setsid, setpgid) the caller's sweep ends, even with --keep-children.
	 */
	if (out->timed_out || out->interrupted || out->stopped)
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
	out->cpu_wait = NAN;
}

/*
 * The peak resident size (VmHWM) of process `pid`, 0 for ourselves, in bytes; 0 where /proc does not say.
 * The exec takes the peak of the memory the child leaves into its max-rss: where a run starts with
 * CLONE_VM that memory is ours, and our peak is the floor (once --functions has loaded symbol tables,
 * 25-30 MiB, above what `xz -1` or `sort` use); a forked child, held before its exec, is asked its own.
 */
static double peak_of(pid_t pid)
{
	char path[64], *buf = NULL, *p;
	double peak = 0;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/status");
	if (ws_read_file(path, &buf, NULL) < 0)
		return 0;
	if ((p = strstr(buf, "\nVmHWM:")))
		peak = strtod(p + 7, NULL) * 1024.0;
	free(buf);
	return peak;
}

/*
 * A child's peak a little above the floor may still be the floor's. The floor was read before the exec; a
 * forked child faults in pages of code until then (its copy of our page tables leaves out file pages); and
 * the kernel keeps a process's page counts per CPU, folding them in batches, so that what it reports is
 * approximate. xz -1 under --functions, 10 runs, held child's VmHWM against its max-rss: 224 KiB above it
 * in six runs, 880-1176 KiB in four, where xz itself needs 6 MiB.
 */
#define RSS_FLOOR_SLACK (2048.0 * 1024)

double ws_run_rss(const struct ws_run_outcome *out)
{
	if (out->rss_floor > 0 && out->max_rss <= out->rss_floor + RSS_FLOOR_SLACK)
		return NAN;
	return out->max_rss;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* `what` (or NULL) says whose command it is: "the --prepare of 'xz -1'". */
static void exec_error(const char *cmd, const char *what, int err)
{
	char *whose = what ? xasprintf(" (%s)", what) : xstrdup("");

	if (err == ENOENT)
		ws_error("cannot run '%s'%s: command not found (check the name, or PATH)", cmd, whose);
	else if (err == EISDIR)
		ws_error("cannot run '%s'%s: it is a directory, not a program", cmd, whose);
	else
		ws_error("cannot run '%s'%s: %s", cmd, whose, strerror(err));
	free(whose);
}

int ws_run_check(const char *cmd, const char *what)
{
	char *path = ws_find_in_path(cmd);
	int err;

	if (path) {
		free(path);
		return 0;
	}
	/*
	 * A name not in PATH is "not found"; a path that exists but cannot run says why: a directory (execve's
	 * EACCES, "Permission denied", would send one to chmod), else not executable.
	 */
	err = !strchr(cmd, '/') || access(cmd, F_OK) < 0 ? ENOENT : is_dir(cmd) ? EISDIR : EACCES;
	exec_error(cmd, what, err);
	return -err;
}

/*
 * Start the command with no handshake (start_child(): sharing our memory until its exec, or in its cgroup),
 * with the streams `st` opened: the child's pid and the time its clock starts. Returns 0 or the error
 * (said once).
 */
static int spawn_child(const struct ws_exec *ex, char **envp, struct streams *st, struct ws_cgroup *cg,
		       pid_t *pid, double *t_start)
{
	struct child_args a = { .ex = ex, .st = st, .envp = envp, .go_fd = -1, .err_fd = -1 };
	int err;

	fflush(NULL);
	/*
	 * The clock starts before the spawn: taken when the spawn returns, it would start whenever the
	 * scheduler next runs us, on a busy machine after much of a short child's life (wall times below its
	 * CPU time were seen). This counts the exec too, a small cost the same for every variant.
	 */
	*t_start = ws_now();
	*pid = start_child(&a, cg);
	/* Before the wait: the pipe must see its end when the command's last writer goes, not ours. */
	close_child_ends(st);
	if (*pid < 0) {
		err = -*pid;
		ws_error("cannot start '%s': %s", ex->argv[0], strerror(err));
		return -err;
	}
	if ((err = *a.err)) {
		/* It exited 127 without exec'ing: reap it, and say why, as a failed exec. */
		reap(*pid);
		exec_error(ex->argv[0], ex->what, err);
		return -err;
	}
	return 0;
}

/* The fast path, for counters armed on ourselves. */
static int run_spawn(const struct ws_exec *ex, const struct ws_run_hooks *hooks, char **envp,
		     struct ws_cgroup *cg, struct ws_run_outcome *out)
{
	struct streams st;
	struct rusage ru;
	int status = 0, ret;
	double t_start;
	pid_t pid;

	memset(&ru, 0, sizeof(ru));
	if ((ret = open_streams(ex, &st)) < 0)
		goto out;
	if ((ret = spawn_child(ex, envp, &st, cg, &pid, &t_start)) < 0)
		goto out;
	ret = wait_child(pid, ex, hooks, cg, t_start, &st.pipe_r, &status, &ru, out);
	fill_outcome(out, status, &ru);
	if (ex->keep_children && !out->timed_out && !out->interrupted)
		ws_contain_keep_orphans();
	else
		ws_contain_sweep(cg, pid, true);
out:
	close_child_ends(&st);
	close_fd(&st.pipe_r);
	return ret;
}

/* The attach path: fork, hold the child on a pipe while counters are opened on its pid, then exec. */
static int run_fork(const struct ws_exec *ex, const struct ws_run_hooks *hooks, char **envp,
		    struct ws_cgroup *cg, struct ws_run_outcome *out)
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
	{
		struct child_args a = { .ex = ex, .st = &st, .envp = envp, .go_fd = go[0], .err_fd = errp[1] };

		pid = start_child(&a, cg);
	}
	if (pid < 0) {
		ret = pid;
		ws_error("cannot fork: %s", strerror(-ret));
		goto out;
	}
	close_child_ends(&st);
	close(go[0]);
	close(errp[1]);
	go[0] = errp[1] = -1;
	/* Both sides set the group, so that it exists whichever runs first. */
	setpgid(pid, pid);
	ret = hooks->attach(hooks->ctx, pid);
	/* The copy of our memory it holds now is what its exec will leave: a fork copies less than our peak. */
	if (!ret)
		out->rss_floor = peak_of(pid);
	if (ret) {
		kill_group(pid);
		reap(pid);
		ws_contain_sweep(cg, pid, true);
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
		exec_error(ex->argv[0], ex->what, child_errno);
		goto out;
	}
	ret = wait_child(pid, ex, hooks, cg, t_start, &st.pipe_r, &status, &ru, out);
	fill_outcome(out, status, &ru);
	ws_contain_sweep(cg, pid, true);
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
	struct ws_cgroup *cg;
	char **envp;
	double wait0;
	int ret;

	memset(out, 0, sizeof(*out));
	out->exit_code = -1;
	if (interrupted)
		return -EINTR;
	envp = build_env(ex);
	/* Set up before the first run, whichever it is: a subreaper only adopts what is orphaned later. */
	ws_contain_init();
	cg = ex->keep_children ? NULL : ws_contain_leaf_get();
	out->rss_floor = peak_of(0);
	/* A leaf serves run after run: its stall total before this one is subtracted. */
	wait0 = ws_contain_cpu_wait(cg);
	if (hooks && hooks->attach)
		ret = run_fork(ex, hooks, envp, cg, out);
	else
		ret = run_spawn(ex, hooks, envp, cg, out);
	out->cpu_wait = ws_contain_cpu_wait(cg) - wait0;
	ws_contain_leaf_put(cg);
	free(envp);
	return ret;
}

/* A run started by ws_job_start(), until ws_job_wait_any() reaps it. */
struct ws_job {
	pid_t pid;
	int pidfd;      /* -1 without pidfd_open (kernel < 5.3): polled with WNOHANG */
	int pipe_r;     /* WS_OUTPUT_PIPE: read and discarded while it runs */
	double t_start, timeout;
	double rss_floor; /* see ws_run_outcome */
	char *cmd;      /* argv[0], for messages */
	struct ws_cgroup *cg; /* its cgroup leaf, or NULL */
	struct ws_stop_look stop_seen; /* a process below it found stopped at the last look (run_stopped) */
};

/* Jobs started and not yet reaped: while others run, what one leaves is told apart by its process group. */
static size_t live_jobs;

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
	struct streams st = { .file = -1, .pipe_r = -1, .pipe_w = -1, .null = -1 };
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
	job->cg = ws_contain_leaf_get();
	job->rss_floor = peak_of(0);
	if ((ret = open_streams(&own, &st)) == 0)
		ret = spawn_child(&own, envp, &st, job->cg, &job->pid, &job->t_start);
	close_child_ends(&st);
	free(envp);
	if (input >= 0)
		close(input);
	if (ret < 0) {
		close_fd(&st.pipe_r);
		ws_contain_leaf_put(job->cg);
		free(job);
		return ret;
	}
	ws_contain_track(job->pid);
	live_jobs++;
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
	if (out->timed_out || out->interrupted || out->stopped)
		kill(-job->pid, SIGKILL);
	fill_outcome(out, status, &ru);
	out->rss_floor = job->rss_floor;
	ws_contain_untrack(job->pid);
	live_jobs--;
	/* Nor what it left running in the background (a simulated run the same as a native one). */
	ws_contain_sweep(job->cg, job->pid, live_jobs == 0);
	ws_contain_leaf_put(job->cg);
	job_free(job);
	return ret;
}

void ws_job_kill(struct ws_job *job)
{
	struct ws_run_outcome out = { .interrupted = true };

	if (!job)
		return;
	kill_run(job->pid, job->cg);
	job_reap(job, &out);
}

int ws_job_wait_any(struct ws_job **jobs, size_t n, size_t *which, struct ws_run_outcome *out)
{
	struct pollfd *p = xcalloc(2 * n + 1, sizeof(*p));
	size_t *owner = xcalloc(2 * n + 1, sizeof(*owner));
	sigset_t old, unblocked;
	size_t live = 0;
	bool done = false;
	/* 0: the jobs are looked at on the first wake of each call, so that other jobs' exits cannot delay it. */
	double stop_checked = 0;
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
		double wait_s = STOP_CHECK_S, now = ws_now();
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
				kill_run(jobs[i]->pid, jobs[i]->cg);
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
			/* Every STOP_CHECK_S, whatever woke ppoll: other jobs' exits must not keep it from running. */
			if (hit == n && ws_now() - stop_checked >= STOP_CHECK_S) {
				stop_checked = ws_now();
				for (size_t i = 0; hit == n && i < n; i++) {
					if (jobs[i] &&
					    (out->stopped = run_stopped(jobs[i]->pid, jobs[i]->cg, &jobs[i]->stop_seen, out))) {
						kill_run(jobs[i]->pid, jobs[i]->cg);
						hit = i;
					}
				}
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
