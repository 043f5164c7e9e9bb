/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-report.c - unit tests of how the reports write a value in its unit, and long names in a sentence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/report.h"
#include "result/result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

/*
 * The explanation's long names are shown as the tables show them: a row's, and, for a clone's row, its
 * function's name, which a move is said of ("f(…) is inlined in a, called in b"); a command stays whole.
 */
static void test_sentence_names_shortened(void **state)
{
	static const char *const fn = "ns::scaled_sum(std::vector<long, std::allocator<long> > const&, int)";
	static const char *const clone = "ns::scaled_sum(std::vector<long, std::allocator<long> > const&, int) "
					 "[clone .constprop.0]";
	struct ws_report_opts o = { 0 };
	struct ws_result r;
	char text[1024], *got;

	(void)state;
	ws_result_init(&r);
	ws_group_list_get(&ws_result_add_variant(&r, "a", NULL)->functions, clone, "/bin/prog");
	snprintf(text, sizeof(text), "run with its callees (100%%): %s is inlined in b, called in a; %s (3%%); "
		 "whyslow asm-diff --function '%s' a b", fn, clone, fn);
	got = ws_report_shorten_names(&o, &r, text);
	assert_string_equal(got, "run with its callees (100%): ns::scaled_sum(std::vector<…> const&, int) is "
				 "inlined in b, called in a; ns::scaled_sum(…) [clone .constprop.0] (3%); "
				 "whyslow asm-diff --function 'ns::scaled_sum(std::vector<long, std::allocator<long> > "
				 "const&, int)' a b");
	free(got);
	o.full_names = true;
	got = ws_report_shorten_names(&o, &r, text);
	assert_string_equal(got, text);
	free(got);
	ws_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_not_whole),
		cmocka_unit_test(test_counts_whole),
		cmocka_unit_test(test_counts_short_buffer),
		cmocka_unit_test(test_sentence_names_shortened),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
