/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-report.c - unit tests of the reports: a value in its unit, names in a sentence, a table's names told apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/util.h"
#include "report/report.h"
#include "result/result.h"
#include "symbols/names.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- names that would read alike ---------------------------------------------------------------- */

/* Two std::thread bodies: their lambdas' numbers are all that differs, inside three argument lists. */
#define THREAD_RUN(n) "std::thread::_State_impl<std::thread::_Invoker<std::tuple<main::{lambda()#" n "}> > >::_M_run()"
#define LOOKUP(t) "app::storage::detail::Table::lookup_by_key_with_a_long_name(" t ") const"
#define FILL(m, args)                                                                                   \
	"long app::storage::fill<std::" m "<" args ", std::allocator<std::pair<long const, long> > > >(std::" m \
	"<" args ", std::allocator<std::pair<long const, long> > >&, app::storage::Options const&)"

/* `names` through ws_sym_display_apart() at `width`: each shown as `want`, never wider unless widened. */
static void check_apart(const char *const *names, const char *const *want, size_t n, size_t width)
{
	char **got = ws_sym_display_apart(names, n, width);

	for (size_t i = 0; i < n; i++) {
		assert_string_equal(got[i], want[i]);
		free(got[i]);
	}
	free(got);
}

/*
 * Two rows that read "std::thread::_State_impl<…>::_M_run()", "…lookup_by_key_with_a_long_name(…) const"
 * or "long app::storage::fill<…>(…)" twice: the reader could not tell which was which. The argument lists
 * around the first difference are kept (the others stay elided), or the parameters; the rest of the table
 * keeps its form.
 */
static void test_names_apart(void **state)
{
	static const char *const threads[] = { THREAD_RUN("1"), THREAD_RUN("2"),
					       "std::__atomic_base<long>::fetch_add(long, std::memory_order) (inlined)" };
	static const char *const threads_want[] = {
		"…read::_Invoker<std::tuple<main::{lambda()#1}> > >::_M_run()",
		"…read::_Invoker<std::tuple<main::{lambda()#2}> > >::_M_run()",
		"std::__atomic_base<…>::fetch_add(…) (inlined)",
	};
	/* Equal names are one function twice: they stay alike, and do not widen the others. */
	static const char *const overloads[] = { LOOKUP("int"), LOOKUP("long"), LOOKUP("int") };
	static const char *const overloads_want[] = {
		"…e::detail::Table::lookup_by_key_with_a_long_name(int) const",
		"…::detail::Table::lookup_by_key_with_a_long_name(long) const",
		"…e::detail::Table::lookup_by_key_with_a_long_name(int) const",
	};
	static const char *const instances[] = {
		FILL("map", "long, long, std::less<long>"),
		FILL("unordered_map", "long, long, std::hash<long>, std::equal_to<long>"),
		"main",
	};
	static const char *const instances_want[] = {
		"long app::storage::fill<std::map<…> >(…)",
		"long app::storage::fill<std::unordered_map<…> >(…)",
		"main",
	};
	/* Rust: the type's own arguments, once its path is its last segment. */
	static const char *const drops[] = { "<alloc::vec::Vec<u8> as core::ops::drop::Drop>::drop",
					     "<alloc::vec::Vec<u16> as core::ops::drop::Drop>::drop" };
	static const char *const drops_want[] = { "<Vec<u8> as Drop>::drop", "<Vec<u16> as Drop>::drop" };
	/* A C identifier has nothing elided to keep: its middle grows until the two differ. */
	static const char *const idents[] = { "accumulate_weighted_samples_left_for_channel_of_the_mixer",
					      "accumulate_weighted_samples_right_for_channel_of_the_mixer" };
	static const char *const idents_want[] = { "accumulate_weighted_sample…ft_for_channel_of_the_mixer",
						   "accumulate_weighted_sample…ht_for_channel_of_the_mixer" };
	char *alone;

	(void)state;
	check_apart(threads, threads_want, ARRAY_SIZE(threads), WS_SYM_DISPLAY_WIDTH);
	alone = ws_sym_display(threads[2], WS_SYM_DISPLAY_WIDTH);
	assert_string_equal(alone, threads_want[2]);
	free(alone);
	check_apart(overloads, overloads_want, ARRAY_SIZE(overloads), WS_SYM_DISPLAY_WIDTH);
	check_apart(instances, instances_want, ARRAY_SIZE(instances), WS_SYM_DISPLAY_WIDTH);
	check_apart(drops, drops_want, ARRAY_SIZE(drops), 30);
	check_apart(idents, idents_want, ARRAY_SIZE(idents), 40);
	/* One name alone is shown as ws_sym_display() shows it. */
	check_apart(threads, (const char *const[]){ "std::thread::_State_impl<…>::_M_run()" }, 1, WS_SYM_DISPLAY_WIDTH);
}

/* A C identifier of 71 columns that differs from its twin only at its 31st. */
#define MIDDLE(c) "accumulate_samples_for_channel" c "_with_a_long_and_descriptive_tail_x"

/* A table's names: told apart, padded, -v whole; a name not added joins before it is shown. */
static void test_report_names(void **state)
{
	struct ws_report_opts o = { 0 }, v = { .full_names = true };
	struct ws_report_names *t = ws_report_names_new(&o);
	char *s;

	(void)state;
	ws_report_names_add(t, THREAD_RUN("1"));
	s = ws_report_names_get(t, THREAD_RUN("1"), 0);
	assert_string_equal(s, "std::thread::_State_impl<…>::_M_run()");
	free(s);
	ws_report_names_add(t, THREAD_RUN("2"));
	s = ws_report_names_get(t, THREAD_RUN("1"), 62);
	assert_string_equal(s, "…read::_Invoker<std::tuple<main::{lambda()#1}> > >::_M_run()  ");
	free(s);
	assert_int_equal(ws_report_names_column(t, THREAD_RUN("1"), 40), WS_SYM_DISPLAY_WIDTH);
	s = ws_report_names_get(t, LOOKUP("int"), 0);
	assert_string_equal(s, "…age::detail::Table::lookup_by_key_with_a_long_name(…) const");
	free(s);
	s = ws_report_names_get(t, LOOKUP("long"), 0);
	assert_string_equal(s, "…::detail::Table::lookup_by_key_with_a_long_name(long) const");
	free(s);
	s = ws_report_names_get(t, LOOKUP("int"), 0);
	assert_string_equal(s, "…e::detail::Table::lookup_by_key_with_a_long_name(int) const");
	free(s);
	assert_int_equal(ws_report_names_column(t, "main", 40), 40);
	ws_report_names_free(t);

	/*
	 * Two identifiers alike but in their middle are widened past WS_SYM_DISPLAY_WIDTH until they differ: the
	 * column holds them, else their rows' cells are out of line.
	 */
	t = ws_report_names_new(&o);
	ws_report_names_add(t, MIDDLE("x"));
	ws_report_names_add(t, MIDDLE("y"));
	s = ws_report_names_get(t, MIDDLE("x"), 0);
	assert_int_equal(ws_text_width(s), 63);
	free(s);
	assert_int_equal(ws_report_names_column(t, MIDDLE("y"), 40), 63);
	ws_report_names_free(t);

	t = ws_report_names_new(&v);
	ws_report_names_add(t, THREAD_RUN("1"));
	ws_report_names_add(t, THREAD_RUN("2"));
	s = ws_report_names_get(t, THREAD_RUN("2"), 0);
	assert_string_equal(s, THREAD_RUN("2"));
	free(s);
	ws_report_names_free(t);
}

/*
 * A sentence of the explanation names one function of the result: where another of the result reads like
 * it, it is told apart, as a table shows the two; else it keeps the tables' form.
 */
static void test_sentence_names(void **state)
{
	struct ws_report_opts o = { 0 }, v = { .full_names = true };
	struct ws_result r;
	struct ws_variant *b, *x;
	char *s;

	(void)state;
	ws_result_init(&r);
	b = ws_result_add_variant(&r, "a", NULL);
	x = ws_result_add_variant(&r, "b", NULL);
	b->baseline = true;
	ws_group_list_get(&b->functions, THREAD_RUN("2"), NULL);
	ws_group_list_get(&x->functions, THREAD_RUN("2"), NULL);
	s = ws_report_shorten_names(&o, &r, "false sharing in " THREAD_RUN("2") ": pad");
	assert_string_equal(s, "false sharing in std::thread::_State_impl<…>::_M_run(): pad");
	free(s);
	ws_group_list_get(&x->functions, THREAD_RUN("1"), NULL);
	s = ws_report_shorten_names(&o, &r, "false sharing in " THREAD_RUN("2") ": pad");
	assert_string_equal(s, "false sharing in …read::_Invoker<std::tuple<main::{lambda()#2}> > >::_M_run(): pad");
	free(s);
	s = ws_report_shorten_names(&v, &r, "in " THREAD_RUN("2"));
	assert_string_equal(s, "in " THREAD_RUN("2"));
	free(s);
	/*
	 * A moved clone is said by its function's name, which no row has (test_sentence_names_shortened): told
	 * apart too, from the overload whose row reads like it.
	 */
	ws_group_list_get(&b->functions, LOOKUP("int") " [clone .isra.0]", NULL);
	ws_group_list_get(&x->functions, LOOKUP("long"), NULL);
	s = ws_report_shorten_names(&o, &r, LOOKUP("int") " is inlined in b, called in a");
	assert_string_equal(s, "…e::detail::Table::lookup_by_key_with_a_long_name(int) const is inlined in b, called in a");
	free(s);
	ws_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_not_whole),
		cmocka_unit_test(test_counts_whole),
		cmocka_unit_test(test_counts_short_buffer),
		cmocka_unit_test(test_sentence_names_shortened),
		cmocka_unit_test(test_names_apart),
		cmocka_unit_test(test_report_names),
		cmocka_unit_test(test_sentence_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
