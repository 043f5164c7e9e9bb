/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-runner.c - unit tests of the runner: exit status, signals, exec errors, timeout, environment, hooks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "backend/runner.h"
#include "core/log.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void quiet(enum ws_log_level level, const char *msg, void *data)
{
	(void)level;
	(void)msg;
	(void)data;
}

static int setup(void **state)
{
	(void)state;
	ws_log_set(quiet, NULL);
	ws_runner_reset();
	return 0;
}

static void test_exit_codes(void **state)
{
	char *t[] = { "true", NULL }, *f[] = { "sh", "-c", "exit 7", NULL };
	struct ws_exec ex = { .argv = t };
	struct ws_run_outcome out;

	(void)state;
	assert_int_equal(ws_run(&ex, NULL, &out), 0);
	assert_int_equal(out.exit_code, 0);
	assert_int_equal(out.signal, 0);
	assert_true(out.wall > 0 && out.wall < 5);
	assert_true(out.max_rss > 0);
	ex.argv = f;
	assert_int_equal(ws_run(&ex, NULL, &out), 0);
	assert_int_equal(out.exit_code, 7);
}

static void test_signal(void **state)
{
	char *a[] = { "sh", "-c", "kill -SEGV $$", NULL };
	struct ws_exec ex = { .argv = a };
	struct ws_run_outcome out;

	(void)state;
	assert_int_equal(ws_run(&ex, NULL, &out), 0);
	assert_int_equal(out.signal, SIGSEGV);
	assert_int_equal(out.exit_code, -1);
}

static void test_exec_errors(void **state)
{
	char *a[] = { "/nonexistent/whyslow-test", NULL }, *b[] = { "/etc/passwd", NULL };
	struct ws_exec ex = { .argv = a };
	struct ws_run_outcome out;

	(void)state;
	assert_int_equal(ws_run(&ex, NULL, &out), -ENOENT);
	ex.argv = b;
	assert_int_equal(ws_run(&ex, NULL, &out), -EACCES);
	/* Checked before any run, with the same errors. */
	assert_int_equal(ws_run_check(a[0], NULL), -ENOENT);
	assert_int_equal(ws_run_check("whyslow-no-such-command", NULL), -ENOENT);
	assert_int_equal(ws_run_check(b[0], NULL), -EACCES);
	assert_int_equal(ws_run_check("true", NULL), 0);
}

static void test_timeout_kills_group(void **state)
{
	/* The grandchild sleeps in the same process group; the timeout must kill it too. */
	char *a[] = { "sh", "-c", "sleep 30 & echo $! > grandchild.pid; wait", NULL };
	struct ws_exec ex = { .argv = a, .timeout = 0.3 };
	struct ws_run_outcome out;
	char *pid_s;
	double t = ws_now();

	(void)state;
	assert_int_equal(ws_run(&ex, NULL, &out), 0);
	assert_true(out.timed_out);
	assert_int_equal(out.signal, SIGKILL);
	assert_true(ws_now() - t < 5);
	pid_s = ws_read_line("grandchild.pid");
	assert_non_null(pid_s);
	usleep(100000);
	/* gone, or a zombie reparented to init: either way not running on */
	if (kill(atoi(pid_s), 0) == 0) {
		char *path = xasprintf("/proc/%s/stat", pid_s), *st = ws_read_line(path);

		assert_non_null(strstr(st ? st : " Z ", " Z "));
		free(st);
		free(path);
	}
	free(pid_s);
	unlink("grandchild.pid");
}

static void test_env_and_stdin(void **state)
{
	char *env[] = { "WS_TEST_VAR=yes", "HOME=/replaced", NULL };
	char *a[] = { "sh", "-c", "test \"$WS_TEST_VAR\" = yes && test \"$HOME\" = /replaced && ! read x", NULL };
	struct ws_exec ex = { .argv = a, .env_add = env };
	struct ws_run_outcome out;

	(void)state;
	assert_int_equal(ws_run(&ex, NULL, &out), 0);
	assert_int_equal(out.exit_code, 0);
}

/* The fork-and-hold path, with nothing to attach. */
static int record_attach_quiet(void *ctx, pid_t pid)
{
	(void)ctx;
	(void)pid;
	return 0;
}

/* input.txt, eleven bytes, opened above 2 as the runner requires (whyslow's own streams are never given). */
static int write_input(void)
{
	FILE *f = fopen("input.txt", "w");
	int fd, high;

	assert_non_null(f);
	fputs("0123456789\n", f);
	fclose(f);
	fd = open("input.txt", O_RDONLY | O_CLOEXEC);
	high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return high;
}

/* The input is read from its start on every run, on both paths, though the file was opened once. */
static void test_input_every_run(void **state)
{
	/* Through cat: wc -c alone may take a regular file's size from fstat, without reading or moving the offset. */
	char *a[] = { "sh", "-c", "test \"$(cat | wc -c)\" = 11", NULL };
	struct ws_run_hooks hooks = { .attach = NULL };
	struct ws_exec ex = { .argv = a };
	struct ws_run_outcome out;

	(void)state;
	ex.input_fd = write_input();
	for (int i = 0; i < 3; i++) {
		assert_int_equal(ws_run(&ex, NULL, &out), 0);
		assert_int_equal(out.exit_code, 0);
	}
	hooks.attach = record_attach_quiet;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(ws_run(&ex, &hooks, &out), 0);
		assert_int_equal(out.exit_code, 0);
	}
	/* Without it, stdin is /dev/null again. */
	close(ex.input_fd);
	ex.input_fd = 0;
	a[2] = "test \"$(wc -c)\" = 0";
	assert_int_equal(ws_run(&ex, NULL, &out), 0);
	assert_int_equal(out.exit_code, 0);
	unlink("input.txt");
}

/* An output file is truncated at each run and gets stdout only; /dev/null gets stderr. */
static void test_output_file(void **state)
{
	char *a[] = { "sh", "-c", "echo run; echo error >&2", NULL };
	struct ws_exec ex = { .argv = a, .output = WS_OUTPUT_FILE, .output_path = "out.txt" };
	struct ws_run_outcome out;
	char *text = NULL;

	(void)state;
	for (int i = 0; i < 2; i++)
		assert_int_equal(ws_run(&ex, NULL, &out), 0);
	assert_int_equal(ws_read_file("out.txt", &text, NULL), 0);
	assert_string_equal(text, "run\n");
	free(text);
	unlink("out.txt");
	ex.output_path = "/nonexistent-dir/out.txt";
	assert_int_equal(ws_run(&ex, NULL, &out), -ENOENT);
}

/* Through a pipe, output larger than the pipe's buffer never blocks the command, and stdout is a pipe. */
static void test_output_pipe(void **state)
{
	char *a[] = { "sh", "-c", "test -p /dev/stdout && head -c 4000000 /dev/zero", NULL };
	struct ws_run_hooks hooks = { .attach = record_attach_quiet };
	struct ws_exec ex = { .argv = a, .output = WS_OUTPUT_PIPE, .timeout = 20 };
	struct ws_run_outcome out;

	(void)state;
	assert_int_equal(ws_run(&ex, NULL, &out), 0);
	assert_false(out.timed_out);
	assert_int_equal(out.exit_code, 0);
	assert_int_equal(ws_run(&ex, &hooks, &out), 0);
	assert_false(out.timed_out);
	assert_int_equal(out.exit_code, 0);
	/* Under /dev/null, stdout is no pipe. */
	ex.output = WS_OUTPUT_NULL;
	assert_int_equal(ws_run(&ex, NULL, &out), 0);
	assert_int_equal(out.exit_code, 1);
}

/*
 * max-rss at whyslow's floor is not known: `true` is smaller than the memory a child of ours leaves at its
 * exec, on the spawn path and on the fork-and-hold one; dd's 64 MiB buffer is well above it.
 */
static void test_rss_floor(void **state)
{
	char *t[] = { "true", NULL }, *d[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=64M", "count=1", NULL };
	struct ws_exec ex = { .argv = t, .output = WS_OUTPUT_NULL };
	struct ws_run_hooks hooks = { .attach = record_attach_quiet };
	struct ws_run_outcome out;
	char *big;

	(void)state;
	/* Our own peak well above true's, as after --functions has read symbol tables. */
	big = malloc(32 << 20);
	assert_non_null(big);
	memset(big, 1, 32 << 20);
	for (int fork_path = 0; fork_path < 2; fork_path++) {
		ex.argv = t;
		assert_int_equal(ws_run(&ex, fork_path ? &hooks : NULL, &out), 0);
		assert_true(out.rss_floor >= (fork_path ? 32 : 30) * 1048576.0);
		assert_true(out.max_rss > 0);
		assert_true(isnan(ws_run_rss(&out)));
		ex.argv = d;
		assert_int_equal(ws_run(&ex, fork_path ? &hooks : NULL, &out), 0);
		assert_int_equal(out.exit_code, 0);
		assert_true(ws_run_rss(&out) > 64 * 1048576.0);
	}
	free(big);
}

static pid_t attached_pid;
static char attached_exe[256];

static int record_attach(void *ctx, pid_t pid)
{
	char path[64];
	ssize_t n;

	(void)ctx;
	attached_pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, attached_exe, sizeof(attached_exe) - 1);
	attached_exe[n > 0 ? n : 0] = '\0';
	return 0;
}

static int failing_attach(void *ctx, pid_t pid)
{
	(void)ctx;
	(void)pid;
	return -EPERM;
}

static void test_attach_before_exec(void **state)
{
	char *a[] = { "true", NULL };
	struct ws_exec ex = { .argv = a };
	struct ws_run_hooks hooks = { .attach = record_attach };
	struct ws_run_outcome out;
	char self[256];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)state;
	self[n > 0 ? n : 0] = '\0';
	assert_int_equal(ws_run(&ex, &hooks, &out), 0);
	assert_true(attached_pid > 0);
	/* at attach time the child is still us: it has not exec'd yet */
	assert_string_equal(attached_exe, self);
	hooks.attach = failing_attach;
	assert_int_equal(ws_run(&ex, &hooks, &out), -EPERM);
}

static void test_interrupt(void **state)
{
	char *a[] = { "true", NULL };
	struct ws_exec ex = { .argv = a };
	struct ws_run_outcome out;

	(void)state;
	ws_runner_interrupt();
	assert_true(ws_runner_interrupted());
	assert_int_equal(ws_run(&ex, NULL, &out), -EINTR);
	ws_runner_reset();
	assert_int_equal(ws_run(&ex, NULL, &out), 0);
}

static void test_cpu_list(void **state)
{
	cpu_set_t s;

	(void)state;
	assert_int_equal(ws_parse_cpu_list("0-2,5", &s), 0);
	assert_int_equal(CPU_COUNT(&s), 4);
	assert_true(CPU_ISSET(5, &s));
	assert_false(CPU_ISSET(3, &s));
	assert_int_equal(ws_parse_cpu_list("3-1", &s), -EINVAL);
	assert_int_equal(ws_parse_cpu_list("a", &s), -EINVAL);
	assert_int_equal(ws_parse_cpu_list("", &s), -EINVAL);
	assert_int_equal(ws_parse_cpu_list("1,", &s), 0);
}

static void test_pinning(void **state)
{
	char *a[] = { "sh", "-c", "grep -q '^Cpus_allowed_list:[[:space:]]*0$' /proc/self/status", NULL };
	cpu_set_t s;
	struct ws_exec ex = { .argv = a, .cpus = &s };
	struct ws_run_outcome out;

	(void)state;
	ws_parse_cpu_list("0", &s);
	assert_int_equal(ws_run(&ex, NULL, &out), 0);
	assert_int_equal(out.exit_code, 0);
}

/* Overlapping jobs end in the order they finish, each with its own status, timeout and view of the input. */
static void test_jobs(void **state)
{
	char *slow[] = { "sh", "-c", "sleep 0.4; test \"$(cat | wc -c)\" = 11", NULL };
	char *fast[] = { "sh", "-c", "test \"$(cat | wc -c)\" = 11 && exit 5", NULL };
	char *hang[] = { "sleep", "30", NULL };
	struct ws_exec ex = { .argv = slow };
	struct ws_job *jobs[3] = { NULL };
	struct ws_run_outcome out;
	size_t which = 99;

	(void)state;
	ex.input_fd = write_input();
	assert_int_equal(ws_job_wait_any(jobs, 3, &which, &out), -ECHILD);
	assert_int_equal(ws_job_start(&ex, &jobs[0]), 0);
	ex.argv = fast;
	assert_int_equal(ws_job_start(&ex, &jobs[1]), 0);
	ex.argv = hang;
	ex.timeout = 0.8;
	assert_int_equal(ws_job_start(&ex, &jobs[2]), 0);
	/* The fast one first, with its own exit status: it read the whole input, though the slow one shares it. */
	assert_int_equal(ws_job_wait_any(jobs, 3, &which, &out), 0);
	assert_int_equal(which, 1);
	assert_null(jobs[1]);
	assert_int_equal(out.exit_code, 5);
	assert_int_equal(ws_job_wait_any(jobs, 3, &which, &out), 0);
	assert_int_equal(which, 0);
	assert_int_equal(out.exit_code, 0);
	assert_true(out.wall >= 0.35 && out.max_rss > 0);
	assert_int_equal(ws_job_wait_any(jobs, 3, &which, &out), 0);
	assert_int_equal(which, 2);
	assert_true(out.timed_out);
	assert_int_equal(out.signal, SIGKILL);
	assert_true(out.wall >= 0.75 && out.wall < 10);
	/* An interrupt kills and reaps every job. */
	ex.timeout = 0;
	assert_int_equal(ws_job_start(&ex, &jobs[0]), 0);
	assert_int_equal(ws_job_start(&ex, &jobs[2]), 0);
	ws_runner_interrupt();
	assert_int_equal(ws_job_wait_any(jobs, 3, &which, &out), -EINTR);
	assert_null(jobs[0]);
	assert_null(jobs[2]);
	assert_int_equal(ws_job_start(&ex, &jobs[0]), -EINTR);
	ws_runner_reset();
	/* A command that cannot run fails at the start, as ws_run() does. */
	ex.argv = (char *[]){ "/nonexistent/whyslow-test", NULL };
	assert_int_equal(ws_job_start(&ex, &jobs[0]), -ENOENT);
	assert_null(jobs[0]);
	close(ex.input_fd);
	unlink("input.txt");
}

/* Whether this process has any child, running or not yet reaped. */
static bool have_children(void)
{
	siginfo_t si;

	return !(waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 && errno == ECHILD);
}

/* No process outlives its run: a background child, a double fork, a setsid child; runs and jobs alike. */
static void test_nothing_left(void **state)
{
	char *bg[] = { "sh", "-c", "sleep 100 & (sleep 100 &); setsid sleep 100 & exit 0", NULL };
	char *slow[] = { "sh", "-c", "sleep 100 & sleep 0.3", NULL };
	char *kept[] = { "sh", "-c", "sleep 100 & echo $! >kept.pid", NULL };
	struct ws_exec ex = { .argv = bg };
	struct ws_job *jobs[2] = { NULL };
	struct ws_run_outcome out;
	size_t which;
	char *text = NULL;
	pid_t pid;

	(void)state;
	assert_int_equal(ws_run(&ex, NULL, &out), 0);
	assert_int_equal(out.exit_code, 0);
	assert_false(have_children());
	/* One job ends while the other runs: what each left goes, the other's main process stays. */
	assert_int_equal(ws_job_start(&ex, &jobs[0]), 0);
	ex.argv = slow;
	assert_int_equal(ws_job_start(&ex, &jobs[1]), 0);
	assert_int_equal(ws_job_wait_any(jobs, 2, &which, &out), 0);
	assert_int_equal(which, 0);
	assert_int_equal(ws_job_wait_any(jobs, 2, &which, &out), 0);
	assert_int_equal(which, 1);
	assert_int_equal(out.exit_code, 0);
	assert_false(have_children());
	/* A run that may leave its children (a hook): they live on through later runs. */
	ex.argv = kept;
	ex.keep_children = true;
	assert_int_equal(ws_run(&ex, NULL, &out), 0);
	ex.argv = bg;
	ex.keep_children = false;
	assert_int_equal(ws_run(&ex, NULL, &out), 0);
	assert_int_equal(ws_read_file("kept.pid", &text, NULL), 0);
	pid = (pid_t)atoi(text);
	free(text);
	assert_int_equal(kill(pid, 0), 0);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_false(have_children());
	unlink("kept.pid");
	assert_non_null(ws_runner_containment());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_exit_codes, setup),   cmocka_unit_test_setup(test_signal, setup),
		cmocka_unit_test_setup(test_rss_floor, setup),
		cmocka_unit_test_setup(test_exec_errors, setup),  cmocka_unit_test_setup(test_timeout_kills_group, setup),
		cmocka_unit_test_setup(test_env_and_stdin, setup), cmocka_unit_test_setup(test_attach_before_exec, setup),
		cmocka_unit_test_setup(test_interrupt, setup),    cmocka_unit_test_setup(test_cpu_list, setup),
		cmocka_unit_test_setup(test_pinning, setup),      cmocka_unit_test_setup(test_input_every_run, setup),
		cmocka_unit_test_setup(test_output_file, setup),  cmocka_unit_test_setup(test_output_pipe, setup),
		cmocka_unit_test_setup(test_jobs, setup),         cmocka_unit_test_setup(test_nothing_left, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
