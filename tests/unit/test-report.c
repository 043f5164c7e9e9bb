/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-report.c - unit tests of how the reports write a value in its unit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/report.h"

#include <math.h>

static const char *count(double v)
{
	static char buf[64];

	return ws_format_value(buf, sizeof(buf), "instructions", v);
}

/*
 * A stat table's means and an even number of runs' medians are not whole: they were "7.082e+08" and
 * "3524.60" in a column of "708,175,218" and "3,525".
 */
static void test_counts_not_whole(void **state)
{
	(void)state;
	assert_string_equal(count(708175218.6666667), "708,175,219");
	assert_string_equal(count(1000000.75), "1,000,001");
	assert_string_equal(count(3524.6), "3,524.60");
	assert_string_equal(count(234315.6666), "234,315.67");
	assert_string_equal(count(999.999), "1,000.00");
	assert_string_equal(count(-1500.25), "-1,500.25");
	assert_string_equal(count(77.5), "77.50");
	assert_string_equal(count(0.25), "0.25");
}

static void test_counts_whole(void **state)
{
	(void)state;
	assert_string_equal(count(0), "0");
	assert_string_equal(count(999), "999");
	assert_string_equal(count(1000), "1,000");
	assert_string_equal(count(708175218), "708,175,218");
	assert_string_equal(count(-1234567), "-1,234,567");
	assert_string_equal(count(1e19), "1e+19");
	assert_string_equal(count(NAN), "-");
}

/* A buffer too small for the whole number is cut, never overrun. */
static void test_counts_short_buffer(void **state)
{
	char buf[6];

	(void)state;
	ws_format_value(buf, sizeof(buf), "instructions", 3524.6);
	assert_string_equal(buf, "3,524");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_not_whole),
		cmocka_unit_test(test_counts_whole),
		cmocka_unit_test(test_counts_short_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
