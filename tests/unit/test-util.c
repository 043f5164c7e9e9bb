/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-util.c - unit tests of the engine's helpers: edit distance, atomic writes, writability checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util.h"

#include <errno.h>
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

	(void)state;
	path = xasprintf("%s/out.json", dir);
	assert_int_equal(ws_write_atomic(path, "first", 5), 0);
	assert_int_equal(ws_write_atomic(path, "second\n", 7), 0);
	assert_int_equal(ws_read_file(path, &buf, &len), 0);
	assert_int_equal(len, 7);
	assert_string_equal(buf, "second\n");
	/* Not the 0600 of mkstemp: an ordinary file under the umask. */
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_mode & S_IRGRP || (umask(022), umask(022)) & S_IRGRP);
	free(buf);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
}

static void test_check_writable(void **state)
{
	char *dir = tmpdir(), *p;

	(void)state;
	p = xasprintf("%s/new.json", dir);
	assert_int_equal(ws_check_writable(p), 0);
	free(p);
	p = xasprintf("%s/missing-dir/new.json", dir);
	assert_int_equal(ws_check_writable(p), -ENOENT);
	free(p);
	assert_int_equal(ws_check_writable(dir), -EISDIR);
	if (geteuid() != 0) {
		chmod(dir, 0500);
		p = xasprintf("%s/new.json", dir);
		assert_int_equal(ws_check_writable(p), -EACCES);
		free(p);
		chmod(dir, 0700);
	}
	rmdir(dir);
	free(dir);
}

static void test_read_missing(void **state)
{
	char *buf = (char *)1;

	(void)state;
	assert_int_equal(ws_read_file("/nonexistent/whyslow", &buf, NULL), -ENOENT);
	assert_null(buf);
	assert_null(ws_read_line("/nonexistent/whyslow"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edit_distance),
		cmocka_unit_test(test_skip_prefix),
		cmocka_unit_test(test_write_atomic),
		cmocka_unit_test(test_check_writable),
		cmocka_unit_test(test_read_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
