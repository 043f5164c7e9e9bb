/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-util.c - unit tests of the engine's helpers: edit distance, atomic writes, writability checks, quoting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/proc.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_edit_distance(void **state)
{
	(void)state;
	assert_int_equal(ws_edit_distance("cycles", "cycles"), 0);
	assert_int_equal(ws_edit_distance("cycle", "cycles"), 1);
	assert_int_equal(ws_edit_distance("cyclse", "cycles"), 2);
	assert_int_equal(ws_edit_distance("", "abc"), 3);
	assert_int_equal(ws_edit_distance("kitten", "sitting"), 3);
}

static void test_skip_prefix(void **state)
{
	const char *rest = NULL;

	(void)state;
	assert_true(ws_skip_prefix("cycles:u", "cycles", &rest));
	assert_string_equal(rest, ":u");
	assert_false(ws_skip_prefix("cyc", "cycles", &rest));
}

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/ws-test-XXXXXX";
	char *d = mkdtemp(tmpl);

	assert_non_null(d);
	return strdup(d);
}

static void test_write_atomic(void **state)
{
	char *dir = tmpdir(), *path, *buf = NULL;
	size_t len = 0;
	struct stat st;
	mode_t mask;
	int err;

	(void)state;
	path = xasprintf("%s/out.json", dir);
	assert_int_equal(ws_write_atomic(path, "first", 5), 0);
	assert_int_equal(ws_write_atomic(path, "second\n", 7), 0);
	assert_int_equal(ws_read_file(path, &buf, &len), 0);
	assert_int_equal(len, 7);
	assert_string_equal(buf, "second\n");
	/* Not the 0600 of mkstemp: an ordinary file under the umask. umask() can only be read by setting it. */
	mask = umask(0);
	umask(mask);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0666 & ~mask);
	/* Under a umask of 077 the above cannot tell 0600 apart; a known umask can, for a new file. */
	unlink(path);
	umask(027);
	err = ws_write_atomic(path, "third\n", 6);
	umask(mask);
	assert_int_equal(err, 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	/* A file replaced keeps its mode, whatever the umask: a private 0600 result stays private. */
	assert_int_equal(chmod(path, 0604), 0);
	assert_int_equal(ws_write_atomic(path, "fourth\n", 7), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0604);
	free(buf);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
}

/*
 * Writes `text` atomically through the symbolic link `link`: the link stays a link and `target`, the file it
 * points to, holds the text. Removes both.
 */
static void write_through_link(const char *link, const char *target, const char *text)
{
	struct stat st;
	char *buf = NULL;

	assert_int_equal(ws_write_atomic(link, text, strlen(text)), 0);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(ws_read_file(target, &buf, NULL), 0);
	assert_string_equal(buf, text);
	free(buf);
	unlink(link);
	unlink(target);
}

static void test_write_special_files(void **state)
{
	char *dir = tmpdir(), *target, *link, *fifo, c = 0;
	struct stat st;
	int rd;

	(void)state;
	/*
	 * A special file stays what it is: renaming a temporary file over it would turn /dev/null into a
	 * regular file. A FIFO stands in for the device, so that a regression cannot harm the machine.
	 */
	fifo = xasprintf("%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	rd = open(fifo, O_RDWR | O_NONBLOCK); /* a reader, so the write does not block */
	assert_true(rd >= 0);
	assert_int_equal(ws_check_writable(fifo, 0), 0);
	assert_int_equal(ws_write_atomic(fifo, "x", 1), 0);
	assert_int_equal(stat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(read(rd, &c, 1), 1);
	assert_int_equal(c, 'x');
	close(rd);
	unlink(fifo);
	free(fifo);
	/* a symbolic link stays a link; the file it points to gets the content */
	target = xasprintf("%s/target.json", dir);
	link = xasprintf("%s/link.json", dir);
	assert_int_equal(ws_write_atomic(target, "old", 3), 0);
	assert_int_equal(symlink(target, link), 0);
	write_through_link(link, target, "new");
	/* A dangling link names the file to make: the file is made, and the link stays. */
	assert_int_equal(symlink("target.json", link), 0);
	assert_int_equal(ws_check_writable(link, 4096), 0);
	write_through_link(link, target, "made");
	rmdir(dir);
	free(link);
	free(target);
	free(dir);
}

static void test_check_writable(void **state)
{
	char *dir = tmpdir(), *p;

	(void)state;
	p = xasprintf("%s/new.json", dir);
	assert_int_equal(ws_check_writable(p, 0), 0);
	free(p);
	p = xasprintf("%s/missing-dir/new.json", dir);
	assert_int_equal(ws_check_writable(p, 0), -ENOENT);
	free(p);
	assert_int_equal(ws_check_writable(dir, 0), -EISDIR);
	if (geteuid() != 0) {
		chmod(dir, 0500);
		p = xasprintf("%s/new.json", dir);
		assert_int_equal(ws_check_writable(p, 0), -EACCES);
		free(p);
		chmod(dir, 0700);
	}
	rmdir(dir);
	free(dir);
}

/* A name in a message: quoted once, by what it holds, and on one line. */
static void test_quote_name(void **state)
{
	static const struct {
		const char *name, *quoted;
	} cases[] = {
		{ "xz -6 -c", "'xz -6 -c'" },
		{ "sh -c 'echo '\\''a b'\\'''", "\"sh -c 'echo '\\''a b'\\'''\"" },
		{ "say \"it's\"", "say \"it's\"" },
		{ "python3 -c 's = 0\nprint(s)'", "\"python3 -c 's = 0\\x0aprint(s)'\"" },
		{ "tab\there", "'tab\\x09here'" },
		{ "b\xe2\x80\xaegnp.exe", "'b\\u202egnp.exe'" },
		{ "x\xe2\x81\xa6y", "'x\\u2066y'" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *q = ws_quote_name(cases[i].name);

		assert_string_equal(q, cases[i].quoted);
		free(q);
	}
	assert_false(ws_needs_escape("plain 'name' \xc3\xa9"));
	assert_true(ws_needs_escape("b\xe2\x80\xaegnp.exe"));
	assert_true(ws_needs_escape("a\x1b[31m"));
}

static void test_read_missing(void **state)
{
	char *buf = (char *)1;

	(void)state;
	assert_int_equal(ws_read_file("/nonexistent/whyslow", &buf, NULL), -ENOENT);
	assert_null(buf);
	assert_null(ws_read_line("/nonexistent/whyslow"));
}

/* A folder named for a process that is gone goes with what it holds; one of a live process, or of another form, stays. */
static void test_tmpdir_stale(void **state)
{
	char root[] = "/tmp/test-util-XXXXXX", *mine, *gone, *reused, *other, *file, *old = getenv("TMPDIR");
	char *vg_gone, *vg_live, *vg_other;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(root));
	setenv("TMPDIR", root, 1);
	assert_true(ws_proc_start_time(getpid()) > 0);
	assert_true(ws_proc_alive(getpid(), ws_proc_start_time(getpid())));
	mine = ws_tmpdir_make("sim");
	assert_non_null(mine);
	/* No pid reaches 10^9 (pid_max is at most 2^22); pid 1 runs, but did not start at that tick. */
	gone = xasprintf("%s/whyslow-sim.999999999.12345.abcDEF", root);
	reused = xasprintf("%s/whyslow-regions.1.999999999999.a1b2c3", root);
	other = xasprintf("%s/whyslow-sim-abcdef", root);
	assert_int_equal(mkdir(gone, 0700), 0);
	assert_int_equal(mkdir(reused, 0700), 0);
	assert_int_equal(mkdir(other, 0700), 0);
	file = xasprintf("%s/wsim.1", gone);
	assert_int_equal(ws_write_atomic(file, "x", 1), 0);
	/* Valgrind's start-up files: of a process that is gone, of this one, and a name of another form. */
	vg_gone = xasprintf("%s/valgrind_proc_999999999_cmdline_0123abcd", root);
	vg_live = xasprintf("%s/valgrind_proc_%d_auxv_0123abcd", root, (int)getpid());
	vg_other = xasprintf("%s/valgrind_proc_999999999_maps_0123abcd", root);
	assert_int_equal(ws_write_atomic(vg_gone, "", 0), 0);
	assert_int_equal(ws_write_atomic(vg_live, "", 0), 0);
	assert_int_equal(ws_write_atomic(vg_other, "", 0), 0);
	assert_int_equal(ws_tmpdir_clean_stale(), 3);
	assert_int_not_equal(stat(vg_gone, &st), 0);
	assert_int_equal(stat(vg_live, &st), 0);
	assert_int_equal(stat(vg_other, &st), 0);
	unlink(vg_live);
	unlink(vg_other);
	free(vg_gone);
	free(vg_live);
	free(vg_other);
	assert_int_equal(stat(mine, &st), 0);
	assert_int_equal(stat(other, &st), 0);
	assert_int_not_equal(stat(gone, &st), 0);
	assert_int_not_equal(stat(reused, &st), 0);
	rmdir(mine);
	rmdir(other);
	rmdir(root);
	if (old)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	free(mine);
	free(gone);
	free(reused);
	free(other);
	free(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edit_distance),
		cmocka_unit_test(test_tmpdir_stale),
		cmocka_unit_test(test_skip_prefix),
		cmocka_unit_test(test_write_atomic),
		cmocka_unit_test(test_check_writable),
		cmocka_unit_test(test_write_special_files),
		cmocka_unit_test(test_read_missing),
		cmocka_unit_test(test_quote_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
