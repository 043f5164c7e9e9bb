/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-names.c - unit tests of lib/symbols/names.c: demangling, identity, short and shown forms, patterns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/util.h"
#include "symbols/names.h"
#include "symbols/pair.h"

#include <stdlib.h>
#include <string.h>

/* `got` (freed) is `want`; a NULL `want` is no answer at all. */
static void check(char *got, const char *want)
{
	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

/* An input and what a name function makes of it. */
struct name_case {
	const char *in, *want;
};

/* check() of `f` on each of the n cases, in order. */
static void check_each(char *(*f)(const char *), const struct name_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		check(f(cases[i].in), cases[i].want);
}

static void test_demangle(void **state)
{
	static const struct name_case cases[] = {
		/* C++: parameters kept, clone notes as c++filt prints them. */
		{ "_Z3fooi", "foo(int)" },
		{ "_Z3fooi.isra.0", "foo(int) [clone .isra.0]" },
		{ "_ZNKSt8functionIFvvEEclEv", "std::function<void ()>::operator()() const" },
		/* Rust legacy: the hash is not part of the name; a clone suffix still is. */
		{ "_ZN2lc3add17hcdad90f58844b940E", "lc::add" },
		{ "_ZN2lc3add17hcdad90f58844b940E.cold", "lc::add [clone .cold]" },
		{ "_ZN5alloc7raw_vec19RawVec$LT$T$C$A$GT$7reserve17h0123456789abcdefE",
		  "alloc::raw_vec::RawVec<T,A>::reserve" },
		/* ThinLTO's per-build hash is dropped, for Rust and C++ alike. */
		{ "_ZN4core3fmt5write17h0123456789abcdefE.llvm.1234567", "core::fmt::write" },
		{ "_Z3fooi.llvm.42", "foo(int)" },
		/* Rust v0: crate disambiguators left out, generic arguments kept. */
		{ "_RNvCs15kBYyAo9fc_7mycrate7example", "mycrate::example" },
		{ "_RINvCs1234_7mycrate4fillhEB2_", "mycrate::fill::<u8>" },
		/* Not mangled: as it is, including C clone names and names an Ada demangler would rewrite. */
		{ "main", "main" },
		{ "scale.constprop.0", "scale.constprop.0" },
		{ "my__func", "my__func" },
		{ "_Zbogus", "_Zbogus" },
		/*
		 * A symbol version, as glibc's own table spells its functions, is no part of the name; the
		 * "@plt" of a PLT entry is.
		 */
		{ "__libc_start_main@@GLIBC_2.34", "__libc_start_main" },
		{ "memcpy@GLIBC_2.2.5", "memcpy" },
		{ "_ZNSt6chrono3_V212system_clock3nowEv@@GLIBCXX_3.4.19", "std::chrono::_V2::system_clock::now()" },
		{ "memcpy@plt", "memcpy@plt" },
	};

	(void)state;
	check_each(ws_sym_demangle, cases, ARRAY_SIZE(cases));
	assert_true(ws_sym_is_mangled("_Z3fooi"));
	assert_false(ws_sym_is_mangled("foo"));
}

static void test_identity(void **state)
{
	static const struct name_case identities[] = {
		/* Two builds' hashes, one identity. */
		{ "_ZN2lc3add17hcdad90f58844b940E", "lc::add" },
		{ "_ZN2lc3add17h1a2b3c4d5e6f7081E", "lc::add" },
		{ "_Z3fooi.constprop.0.isra.0", "foo(int)" },
		{ "scale.constprop.0", "scale" },
	}, bases[] = {
		{ "f.constprop.0.isra.0", "f" },
		{ "f.cold", "f" },
		{ "f.llvm.123", "f" },
		{ "f.2", "f.2" },
		{ ".cold", ".cold" },
	};

	(void)state;
	check_each(ws_sym_identity, identities, ARRAY_SIZE(identities));
	check_each(ws_sym_base, bases, ARRAY_SIZE(bases));
}

/* A row's name without its clone notes, C++'s and a C clone's suffix, and whether it had any. */
static void test_clone_row(void **state)
{
	static const struct name_case cases[] = {
		{ "mv::step(long, long) [clone .constprop.0]", "mv::step(long, long)" },
		{ "scaled_sum(int) [clone .constprop.0] [clone .isra.0]", "scaled_sum(int)" },
		{ "f(int)::{lambda(long)#1}::operator()(long) const [clone .constprop.0]",
		  "f(int)::{lambda(long)#1}::operator()(long) const" },
		{ "step.constprop.0", "step" },
		{ "step.constprop.0.isra.0", "step" },
		/* None: a plain function, an inlined row (DWARF has no clone notes), an operator, a note of ours. */
		{ "mv::step(long, long)", "mv::step(long, long)" },
		{ "step", "step" },
		{ "mv::step(long, long) (inlined)", "mv::step(long, long) (inlined)" },
		{ "std::vector<int>::operator[](unsigned long)", "std::vector<int>::operator[](unsigned long)" },
		{ "strcmp (ld-linux-x86-64.so.2)", "strcmp (ld-linux-x86-64.so.2)" },
		{ "f.2", "f.2" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		size_t len = 0;
		bool clone = ws_sym_clone_row(cases[i].in, &len);

		assert_int_equal(clone, strcmp(cases[i].in, cases[i].want) != 0);
		assert_int_equal(len, strlen(cases[i].want));
		assert_memory_equal(cases[i].in, cases[i].want, len);
	}
}

static void test_short(void **state)
{
	static const struct name_case cases[] = {
		{ "foo(int)", "foo" },
		{ "foo(int) [clone .isra.0]", "foo" },
		{ "std::map<int, int, std::less<int>, std::allocator<std::pair<int const, int> > >::insert("
		  "std::pair<int const, int> const&)",
		  "std::map<int, int, std::less<int>, std::allocator<std::pair<int const, int> > >::insert" },
		{ "std::function<void ()>::operator()() const", "std::function<void ()>::operator()" },
		{ "main::{lambda(int)#1}::operator()(int) const", "main::{lambda(int)#1}::operator()" },
		{ "(anonymous namespace)::foo()", "(anonymous namespace)::foo" },
		{ "operator new(unsigned long)", "operator new" },
		{ "Foo::operator<(Foo const&)", "Foo::operator<" },
		{ "operator<<(std::ostream&, Foo const&)", "operator<<" },
		/* Templates print their return type first. */
		{ "unsigned long sum<int>(int const*, unsigned long)", "sum<int>" },
		{ "void std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>(int*, int const&)",
		  "std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>" },
		/* Rust and C: nothing to take away. */
		{ "<&T as core::fmt::Debug>::fmt", "<&T as core::fmt::Debug>::fmt" },
		{ "smallvec::SmallVec<A>::insert", "smallvec::SmallVec<A>::insert" },
		{ "r1cs_lc_add", "r1cs_lc_add" },
	};

	(void)state;
	check_each(ws_sym_short, cases, ARRAY_SIZE(cases));
}

/* A name shown at a width, and the text wanted. */
struct width_case {
	const char *name;
	size_t width;
	const char *want;
};

/* Each case through `fn` (ws_sym_display, ws_text_elide_middle): the text wanted, never wider than asked. */
static void check_widths(char *(*fn)(const char *, size_t), const struct width_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *got = fn(cases[i].name, cases[i].width);

		assert_true(!cases[i].width || ws_text_width(got) <= cases[i].width);
		check(got, cases[i].want);
	}
}

static void test_display(void **state)
{
	static const char map[] = "std::_Rb_tree<int, std::pair<int const, int>, std::_Select1st<std::pair<int const, "
				  "int> >, std::less<int>, std::allocator<std::pair<int const, int> > >::_M_erase("
				  "std::_Rb_tree_node<std::pair<int const, int> >*)";
	static const struct width_case cases[] = {
		/* Short names are left alone. */
		{ "foo(int)", 60, "foo(int)" },
		{ map, 0, map },
		{ map, 60, "std::_Rb_tree<…>::_M_erase(std::_Rb_tree_node<…>*)" },
		{ map, 30, "std::_Rb_tree<…>::_M_erase(…)" },
		/* No parameters: "()" stays, where "(…)" would say some were left out. */
		{ "std::thread::_State_impl<std::thread::_Invoker<std::tuple<main::{lambda()#1}> > >::_M_run() const",
		  30, "…State_impl<…>::_M_run() const" },
		/* Notes stay whole, after the name. */
		{ "std::_Rb_tree<int, std::pair<int const, int> >::_M_lower_bound(std::_Rb_tree_node<int>*) (inlined)", 46,
		  "std::_Rb_tree<…>::_M_lower_bound(…) (inlined)" },
		{ "foo(std::vector<int, std::allocator<int> >) [clone .isra.0]", 40,
		  "foo(std::vector<…>) [clone .isra.0]" },
		/* Several clone notes become one before the name gives way: the name keeps its room. */
		{ "kern::scaled_sum(std::vector<long, std::allocator<long> > const&, int, int) "
		  "[clone .constprop.0] [clone .isra.0]", 40,
		  "…aled_sum(…) [clone .constprop.0.isra.0]" },
		{ "kern::scaled_sum(std::vector<long, std::allocator<long> > const&, int, int) "
		  "[clone .constprop.0] [clone .isra.0]", 60,
		  "kern::scaled_sum(…) [clone .constprop.0.isra.0]" },
		/* A C clone keeps its suffix and the start of its name: the middle of the identifier gives way. */
		{ "accumulate_weighted_samples_for_channel.constprop.0.isra.0", 40,
		  "accumulate…or_channel.constprop.0.isra.0" },
		{ "accumulate_weighted_samples_for_channel_of_the_mixer", 40,
		  "accumulate_weighted…channel_of_the_mixer" },
		/* A cut that lands on an elision: one "…", not two. */
		{ "<alloc::vec::Vec<T> as alloc::vec::spec_from_iter::SpecFromIter<T,I>>::from_iter", 34,
		  "…> as SpecFromIter<…>>::from_iter" },
		/*
		 * A PLT entry's "@plt" and a disassembler's offset are notes too: the parameter list before them
		 * still goes.
		 */
		{ "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::"
		  "_M_construct(unsigned long, char)@plt", 60,
		  "std::__cxx11::basic_string<…>::_M_construct(…)@plt" },
		{ "std::map<int, long, std::less<int>, std::allocator<std::pair<int const, long> > >::"
		  "find(int const&)+0x1a", 40,
		  "std::map<…>::find(int const&)+0x1a" },
		{ "memcmp@plt", 60, "memcmp@plt" },
		/* A leading qualified path stays, its arguments go. */
		{ "<alloc::vec::Vec<T,A> as core::ops::drop::Drop>::drop", 52,
		  "<alloc::vec::Vec<…> as core::ops::drop::Drop>::drop" },
		{ "mycrate::fill::<alloc::vec::Vec<u8>>", 20, "mycrate::fill::<…>" },
		/* Operators are not brackets. */
		{ "bool std::operator< <int, std::allocator<int> >(std::vector<int> const&, std::vector<int> const&)", 60,
		  "bool std::operator< <int, std::allocator<…> >(…)" },
		/* An operator template's own arguments go too where keeping them would cut the operator's name. */
		{ "bool std::operator< <char, std::char_traits<char>, std::allocator<char> >(std::__cxx11::"
		  "basic_string<char, std::char_traits<char>, std::allocator<char> > const&, char const*)", 40,
		  "bool std::operator< <…>(…)" },
		{ "std::basic_ostream<char, std::char_traits<char> >& std::operator<< <std::char_traits<char> >"
		  "(std::basic_ostream<char, std::char_traits<char> >&, char const*)", 48,
		  "std::basic_ostream<…>& std::operator<< <…>(…)" },
		/* A Rust qualified path's types and traits by their last segment, before the name would be cut. */
		{ "<core::hash::sip::Hasher<S> as core::hash::Hasher>::finish (inlined)", 40,
		  "<Hasher<…> as Hasher>::finish (inlined)" },
		{ "<&mut W as core::fmt::Write>::write_str", 30, "<&mut W as Write>::write_str" },
		/* An impl block is a path too, not arguments. */
		{ "core::fmt::num::imp::<impl core::fmt::Display for u64>::fmt", 50,
		  "core::fmt::num::imp::<impl Display for u64>::fmt" },
		{ "core::fmt::num::imp::<impl core::fmt::Display for u64>::fmt", 40,
		  "…::num::imp::<impl Display for u64>::fmt" },
		/* Then a return type goes, before the name would be cut. */
		{ "bool std::operator< <char>(std::__cxx11::basic_string<char> const&, char const*)", 24,
		  "std::operator< <…>(…)" },
		{ "__gnu_cxx::__normal_iterator<unsigned int*, std::vector<unsigned int, std::allocator<unsigned "
		  "int> > > std::__unguarded_partition_pivot<__gnu_cxx::__normal_iterator<unsigned int*, "
		  "std::vector<unsigned int> >, __gnu_cxx::__ops::_Iter_less_iter>(__gnu_cxx::__normal_"
		  "iterator<unsigned int*, std::vector<unsigned int> >, __gnu_cxx::__ops::_Iter_less_iter) "
		  "(inlined)", 50,
		  "std::__unguarded_partition_pivot<…>(…) (inlined)" },
	};

	(void)state;
	check_widths(ws_sym_display, cases, ARRAY_SIZE(cases));
	{
		char *d = ws_sym_display(map, 12);

		assert_int_equal(ws_text_width(d), 12);
		assert_true(!strncmp(d, "…", strlen("…")));
		free(d);
	}
}

/* A program's name in a table, an identifier in ws_sym_display(): start and end around "…", on code points. */
static void test_elide_middle(void **state)
{
	static const struct width_case cases[] = {
		{ "./bench --size 1000", 40, "./bench --size 1000" },
		{ "./bench --size 1000", 0, "./bench --size 1000" },
		{ "abcdefghij", 10, "abcdefghij" },
		{ "abcdefghijk", 10, "abcd…ghijk" },
		{ "abcdefghijk", 9, "abcd…hijk" },
		/* Columns are code points: a multi-byte character is one, and is never split. */
		{ "./é-é-é-é-é-é ./ü-ü-ü-ü-ü-ü", 10, "./é-…ü-ü-ü" },
		{ "ééééééééééééé", 6, "éé…ééé" },
	};

	(void)state;
	check_widths(ws_text_elide_middle, cases, ARRAY_SIZE(cases));
}

static void test_match(void **state)
{
	struct ws_sym_forms f = {
		.symbol = "_ZN8smallvec17SmallVec$LT$A$GT$6insert17h9e3c2a71b0f4d865E",
		.name = "smallvec::SmallVec<A>::insert",
		.identity = "smallvec::SmallVec<A>::insert",
		.shortname = "smallvec::SmallVec<A>::insert",
	};
	struct ws_sym_forms cpp = {
		.symbol = "_Z3fooi.isra.0",
		.name = "foo(int) [clone .isra.0]",
		.identity = "foo(int)",
		.shortname = "foo",
	};

	(void)state;
	assert_int_equal(ws_sym_match("smallvec::SmallVec<A>::insert", &f), WS_SYM_MATCH_EXACT);
	assert_int_equal(ws_sym_match(f.symbol, &f), WS_SYM_MATCH_EXACT);
	/* The other build's hash. */
	assert_int_equal(ws_sym_match("_ZN8smallvec17SmallVec$LT$A$GT$6insert17h1a2b3c4d5e6f7081E", &f),
			 WS_SYM_MATCH_EXACT);
	assert_int_equal(ws_sym_match("smallvec::SmallVec<*>::insert", &f), WS_SYM_MATCH_GLOB);
	assert_int_equal(ws_sym_match("*::insert", &f), WS_SYM_MATCH_GLOB);
	assert_int_equal(ws_sym_match("*::insert_or_update", &f), WS_SYM_NO_MATCH);
	assert_int_equal(ws_sym_match("insert", &f), WS_SYM_NO_MATCH);
	assert_int_equal(ws_sym_match("foo", &cpp), WS_SYM_MATCH_EXACT);
	assert_int_equal(ws_sym_match("foo(int)", &cpp), WS_SYM_MATCH_EXACT);
	assert_int_equal(ws_sym_match("_Z3fooi", &cpp), WS_SYM_MATCH_EXACT);
	assert_int_equal(ws_sym_match("_Z3food", &cpp), WS_SYM_NO_MATCH);
	assert_int_equal(ws_sym_match("fo?", &cpp), WS_SYM_MATCH_GLOB);
	{
		struct ws_sym_forms t = { .name = "int sum<int>(int const*, unsigned long)", .shortname = "sum<int>" };
		struct ws_sym_forms op = { .name = "bool operator< <int>(A<int> const&)", .shortname = "operator< <int>" };
		struct ws_sym_forms v0 = { .name = "mycrate::fill::<u8>", .shortname = "mycrate::fill::<u8>" };

		assert_int_equal(ws_sym_match("sum", &t), WS_SYM_MATCH_EXACT);
		assert_int_equal(ws_sym_match("sum<int>", &t), WS_SYM_MATCH_EXACT);
		assert_int_equal(ws_sym_match("su", &t), WS_SYM_NO_MATCH);
		assert_int_equal(ws_sym_match("operator<", &op), WS_SYM_MATCH_EXACT);
		assert_int_equal(ws_sym_match("mycrate::fill", &v0), WS_SYM_MATCH_EXACT);
	}
}

static void test_distance(void **state)
{
	(void)state;
	assert_int_equal(ws_sym_distance("lc::add", "lc::add"), 0);
	assert_true(ws_sym_distance("lc::ad", "lc::add") <= 2);
	assert_true(ws_sym_distance("sm", "sum<int>") != SIZE_MAX);
	assert_true(ws_sym_distance("insert_or_updte", "r1cs::lc::Indexer::insert_or_update") != SIZE_MAX);
	assert_true(ws_sym_distance("*::insert_or_update", "r1cs::lc::Indexer::insert_or_update") != SIZE_MAX);
	assert_true(ws_sym_distance("frobnicate", "r1cs::lc::Indexer::insert_or_update") == SIZE_MAX);
	/* Closer is smaller. */
	assert_true(ws_sym_distance("lc::add", "lc::adds") < ws_sym_distance("lc::add", "lc::a_d_d_x"));
}

static void test_libc_impl_family(void **state)
{
	static const struct name_case cases[] = {
		{ "__memmove_avx512_unaligned_erms", "memcpy/memmove" },
		{ "__memcpy_avx_unaligned_erms", "memcpy/memmove" },
		{ "__mempcpy_sse2_unaligned", "memcpy/memmove" },
		{ "__strlen_evex", "strlen" },
		{ "__strncmp_avx2", "strncmp" },
		{ "__memset_avx2_unaligned_erms", "memset" },
		{ "memcpy", NULL },              /* the public name itself is no implementation */
		{ "__memcpy_", NULL },           /* nothing after the family */
		{ "__strlenx_avx2", NULL },      /* not the family followed by '_' */
		{ "__libc_start_main", NULL },
		{ "r1cs_lc_add", NULL },
	};

	(void)state;
	check_each(ws_sym_libc_impl_family, cases, sizeof(cases) / sizeof(cases[0]));
}

/* PLT stubs' rows, as lib/symbols/plt.c names them and the tables show them. */
static void test_plt_callee(void **state)
{
	(void)state;
	assert_int_equal(ws_sym_plt_callee("memcmp@plt"), 6);
	assert_int_equal(ws_sym_plt_callee("memcpy@plt (libstdc++.so.6.0.30)"), 6);
	assert_int_equal(ws_sym_plt_callee("std::string::swap(std::string&)@plt"), 31);
	assert_int_equal(ws_sym_plt_callee("memcmp"), 0);
	assert_int_equal(ws_sym_plt_callee("@plt"), 0);
	assert_int_equal(ws_sym_plt_callee("x@plt_helper"), 0);
}

/* Rows of code without a symbol: the object's file name, and where a frame tells the function apart, its start. */
static void test_unknown_row(void **state)
{
	(void)state;
	check(ws_sym_unknown_row("[unknown]", "/usr/lib/x86_64-linux-gnu/liblzma.so.5.4.1"), "[unknown] liblzma.so.5.4.1");
	check(ws_sym_unknown_row("[unknown]+0x172d0", "/usr/lib/x86_64-linux-gnu/liblzma.so.5.4.1"),
	      "[unknown] liblzma.so.5.4.1+0x172d0");
	check(ws_sym_unknown_row("[unknown]+0x10a0", "stripped"), "[unknown] stripped+0x10a0");
	check(ws_sym_unknown_row("[kernel]", "[kernel.kallsyms]"), "[kernel] [kernel.kallsyms]");
}

/*
 * Pairing across builds: an identical full symbol (Rust's hash included) on each side pairs first, even
 * where the key without the hash is shared by several ("name #2", ambiguous); a symbol twice on a side does
 * not; what nothing tells apart stays unpaired.
 */
static void test_pair_by_symbol(void **state)
{
	const struct ws_sym_pairable a[] = {
		{ .symbol = "_ZN4core3fmt3num3imp17h1111111111111111E", .key = "fmt #1", .identity = "fmt", .ambiguous = true, .addr = 1 },
		{ .symbol = "_ZN4core3fmt3num3imp17h2222222222222222E", .key = "fmt #2", .identity = "fmt", .ambiguous = true, .addr = 2 },
		{ .symbol = "_ZN4mono4work17haaaaaaaaaaaaaaaaE", .key = "mono::work", .identity = "mono::work", .addr = 3 },
		{ .symbol = "local", .key = "local (a.c)", .identity = "local", .addr = 4 },
		{ .symbol = "local", .key = "local (b.c)", .identity = "local", .addr = 5 },
		{ .symbol = "_ZN4drop17h3333333333333333E", .key = "drop #1", .identity = "drop", .ambiguous = true, .addr = 6 },
		{ .symbol = "_ZN4drop17h4444444444444444E", .key = "drop #2", .identity = "drop", .ambiguous = true, .addr = 7 },
	};
	const struct ws_sym_pairable b[] = {
		{ .symbol = "_ZN4core3fmt3num3imp17h2222222222222222E", .key = "fmt #1", .identity = "fmt", .ambiguous = true, .addr = 1 },
		{ .symbol = "_ZN4core3fmt3num3imp17h1111111111111111E", .key = "fmt #2", .identity = "fmt", .ambiguous = true, .addr = 2 },
		{ .symbol = "_ZN4mono4work17hbbbbbbbbbbbbbbbbE", .key = "mono::work", .identity = "mono::work", .addr = 3 },
		{ .symbol = "local", .key = "local (b.c)", .identity = "local", .addr = 4 },
		{ .symbol = "local", .key = "local (a.c)", .identity = "local", .addr = 5 },
		{ .symbol = "_ZN4drop17h5555555555555555E", .key = "drop #1", .identity = "drop", .ambiguous = true, .addr = 6 },
		{ .symbol = "_ZN4drop17h6666666666666666E", .key = "drop #2", .identity = "drop", .ambiguous = true, .addr = 7 },
	};
	size_t mate[7];
	enum ws_sym_how how_a[7], how_b[7];

	(void)state;
	ws_sym_pair(a, 7, b, 7, mate, how_a, how_b);
	/* The hash tells them apart, whatever their order or their numbers. */
	assert_int_equal(mate[0], 1);
	assert_int_equal(mate[1], 0);
	assert_int_equal(how_a[0], WS_SYM_BY_NAME);
	/* Other hashes: by key, the hash left out. */
	assert_int_equal(mate[2], 2);
	/* One symbol twice on a side: the keys (their files) decide. */
	assert_int_equal(mate[3], 4);
	assert_int_equal(mate[4], 3);
	/* Neither the symbol nor anything else tells them apart: never guessed. */
	assert_int_equal(mate[5], SIZE_MAX);
	assert_int_equal(mate[6], SIZE_MAX);
	assert_int_equal(how_a[5], WS_SYM_AMBIGUOUS);
	assert_int_equal(how_b[5], WS_SYM_AMBIGUOUS);
}

/* GCC's lambda numbers, which a lambda inlined where no symbol names it goes without (symbols.c). */
static void test_lambda_numbers(void **state)
{
	(void)state;
	check(ws_sym_lambda_unnumbered("ns::run(int)::{lambda(long)#1}::operator()(long) const"),
	      "ns::run(int)::{lambda(long)}::operator()(long) const");
	/* A lambda in a lambda, and a lambda whose parameter is another's closure type: every number goes. */
	check(ws_sym_lambda_unnumbered("f()::{lambda(int)#2}::operator()(int) const::{lambda()#1}::operator()() const"),
	      "f()::{lambda(int)}::operator()(int) const::{lambda()}::operator()() const");
	check(ws_sym_lambda_unnumbered("f()::{lambda(f()::{lambda(int)#1})#12}"), "f()::{lambda(f()::{lambda(int)})}");
	/* Other numbered braces are not lambdas, and the name of no lambda stays as it is. */
	check(ws_sym_lambda_unnumbered("f()::{unnamed type#1}::g() const"), "f()::{unnamed type#1}::g() const");
	check(ws_sym_lambda_unnumbered("f(int)::{default arg#1}::operator()() const"),
	      "f(int)::{default arg#1}::operator()() const");
	check(ws_sym_lambda_unnumbered("long ns::mixed<long>(long, unsigned long)"),
	      "long ns::mixed<long>(long, unsigned long)");

	assert_true(ws_sym_lambda_same("ns::run(int)::{lambda(long)}::operator()(long) const (inlined)",
				       "ns::run(int)::{lambda(long)#1}::operator()(long) const (inlined)"));
	assert_true(ws_sym_lambda_same("ns::run(int)::{lambda(long)#7}::operator()(long) const",
				       "ns::run(int)::{lambda(long)}::operator()(long) const"));
	assert_true(ws_sym_lambda_same("f()::{lambda()#1}::operator()() const::{lambda(int)}::operator()(int) const",
				       "f()::{lambda()}::operator()() const::{lambda(int)#3}::operator()(int) const"));
	assert_true(ws_sym_lambda_same("f()::{lambda(int)#1}", "f()::{lambda(int)#1}"));
	/* Two numbers are two lambdas; other parameters, another function or another row are another lambda. */
	assert_false(ws_sym_lambda_same("f()::{lambda(int)#1}", "f()::{lambda(int)#2}"));
	assert_false(ws_sym_lambda_same("f()::{lambda(int)#1}", "f()::{lambda(int)#10}"));
	assert_false(ws_sym_lambda_same("f()::{lambda(int)}", "f()::{lambda(long)#1}"));
	assert_false(ws_sym_lambda_same("f(int)::{lambda(int)}", "f(long)::{lambda(int)#1}"));
	assert_false(ws_sym_lambda_same("f()::{lambda(int)} (inlined)", "f()::{lambda(int)#1}"));
	assert_false(ws_sym_lambda_same("f()::{unnamed type}::g()", "f()::{unnamed type#1}::g()"));
}

/*
 * ws_sym_pair() of two builds' names as the profiles' rows are: the name is the key and, without its clone
 * notes (all of it for inlined code), the identity; no sizes.
 */
static void pair_rows(const char *const *an, size_t na, const char *const *bn, size_t nb, size_t *mate,
		      enum ws_sym_how *how_a, enum ws_sym_how *how_b)
{
	struct ws_sym_pairable *a = calloc(na + 1, sizeof(*a)), *b = calloc(nb + 1, sizeof(*b));
	char **ids = calloc(na + nb + 1, sizeof(*ids));

	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(ids);
	for (size_t i = 0; i < na + nb; i++) {
		const char *name = i < na ? an[i] : bn[i - na];
		size_t len;

		ws_sym_clone_row(name, &len);
		ids[i] = xstrndup(name, len);
	}
	for (size_t i = 0; i < na; i++)
		a[i] = (struct ws_sym_pairable){ .key = an[i], .identity = ids[i], .addr = i };
	for (size_t j = 0; j < nb; j++)
		b[j] = (struct ws_sym_pairable){ .key = bn[j], .identity = ids[na + j], .addr = j };
	ws_sym_pair(a, na, b, nb, mate, how_a, how_b);
	for (size_t i = 0; i < na + nb; i++)
		free(ids[i]);
	free(ids);
	free(a);
	free(b);
}

/* What a row of A pairs with in B, and how, or why not. */
struct want_pair {
	size_t mate;
	enum ws_sym_how how;
};

/* pair_rows() of an[] and bn[]: each of an[] as want[] says; how_b[] (nb of them) for the caller to read. */
static void check_pairs(const char *const *an, size_t na, const char *const *bn, size_t nb,
			const struct want_pair *want, size_t nwant, enum ws_sym_how *how_b)
{
	size_t *mate = calloc(na + 1, sizeof(*mate));
	enum ws_sym_how *how_a = calloc(na + 1, sizeof(*how_a));

	assert_non_null(mate);
	assert_non_null(how_a);
	assert_int_equal(nwant, na);
	pair_rows(an, na, bn, nb, mate, how_a, how_b);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(mate[i], want[i].mate);
		assert_int_equal(how_a[i], want[i].how);
	}
	free(mate);
	free(how_a);
}

/*
 * Pairing across builds, a lambda spelled with GCC's number in one build and without it in the other
 * (inlined where no symbol names it): one function where the other build has one lambda of that function
 * with those parameters, either way round; never a guess among several, nor two numbers made one.
 */
static void test_pair_lambdas(void **state)
{
	static const char *const an[] = {
		"ns::run(int)::{lambda(long)}::operator()(long) const (inlined)",
		"ns::two(int)::{lambda(long)}::operator()(long) const (inlined)",
		"ns::run(int)::{lambda(int, int)#2}::operator()(int, int) const (inlined)",
		"ns::run(int)::{lambda(long)#1}::operator()(long) const",
		"ns::three(int)::{lambda(long)#1}::operator()(long) const (inlined)",
		"ns::four(int)::{lambda(long)#1}::operator()(long) const (inlined)",
		"ns::four(int)::{lambda(long)#2}::operator()(long) const (inlined)",
		"ns::five(int)::{lambda(long)#1}::operator()(long) const (inlined)",
		"ns::five(int)::{lambda(long)}::operator()(long) const (inlined)",
	};
	static const char *const bn[] = {
		"ns::run(int)::{lambda(long)#1}::operator()(long) const (inlined)",
		"ns::two(int)::{lambda(long)#1}::operator()(long) const (inlined)",
		"ns::two(int)::{lambda(long)#2}::operator()(long) const (inlined)",
		"ns::run(int)::{lambda(int, int)}::operator()(int, int) const (inlined)",
		"ns::run(int)::{lambda(long)#1}::operator()(long) const",
		"ns::three(int)::{lambda(long)#2}::operator()(long) const (inlined)",
		"ns::four(int)::{lambda(long)}::operator()(long) const (inlined)",
		"ns::five(int)::{lambda(long)#1}::operator()(long) const (inlined)",
	};
	enum { NA = sizeof(an) / sizeof(an[0]), NB = sizeof(bn) / sizeof(bn[0]) };
	size_t mate[NA];
	enum ws_sym_how how_a[NA], how_b[NB];

	(void)state;
	pair_rows(an, NA, bn, NB, mate, how_a, how_b);
	/* One lambda of run(long) in B: the unnumbered one is it, and the other way round for (int, int). */
	assert_int_equal(mate[0], 0);
	assert_int_equal(how_a[0], WS_SYM_BY_LAMBDA);
	assert_int_equal(mate[2], 3);
	assert_int_equal(how_a[2], WS_SYM_BY_LAMBDA);
	/* The out-of-line row keeps its own mate: " (inlined)" is another row. */
	assert_int_equal(mate[3], 4);
	assert_int_equal(how_a[3], WS_SYM_BY_NAME);
	/* Two lambdas of two(int) with those parameters in B: which one it is is not known. */
	assert_int_equal(mate[1], SIZE_MAX);
	assert_int_equal(how_a[1], WS_SYM_AMBIGUOUS);
	assert_int_equal(how_b[1], WS_SYM_AMBIGUOUS);
	assert_int_equal(how_b[2], WS_SYM_AMBIGUOUS);
	/* Two numbers are two lambdas, even where each is alone. */
	assert_int_equal(mate[4], SIZE_MAX);
	assert_int_equal(how_a[4], WS_SYM_ONLY);
	assert_int_equal(how_b[5], WS_SYM_ONLY);
	/* Two lambdas of four(int) in A against one without a number in B: neither is taken. */
	assert_int_equal(mate[5], SIZE_MAX);
	assert_int_equal(mate[6], SIZE_MAX);
	assert_int_equal(how_a[5], WS_SYM_AMBIGUOUS);
	assert_int_equal(how_a[6], WS_SYM_AMBIGUOUS);
	assert_int_equal(how_b[6], WS_SYM_AMBIGUOUS);
	/* five(int)'s #1 pairs by name; the unnumbered one, which may be it too, is not given it a second time. */
	assert_int_equal(mate[7], 7);
	assert_int_equal(how_a[7], WS_SYM_BY_NAME);
	assert_int_equal(mate[8], SIZE_MAX);
	assert_int_equal(how_a[8], WS_SYM_AMBIGUOUS);
}

/*
 * A lambda called in one build (its symbol numbers it) and inlined in the other where no symbol does: its
 * own row and the other's " (inlined)" row are one function (WS_SYM_LAMBDA_INLINED), as "f" and "f
 * (inlined)" are, where each build has the only row of that lambda, its own or inlined; never a guess.
 */
static void test_pair_lambdas_inlined(void **state)
{
	static const char *const an[] = {
		"ns::run(int)::{lambda(long)#1}::operator()(long) const",
		"ns::two(int)::{lambda(long)}::operator()(long) const (inlined)",
		"ns::three(int)::{lambda(long)#1}::operator()(long) const",
		"ns::three(int)::{lambda(long)#2}::operator()(long) const",
		"ns::four(int)::{lambda(long)#1}::operator()(long) const",
		"ns::four(int)::{lambda(long)#1}::operator()(long) const (inlined)",
		"ns::five(int)::{lambda(long)#1}::operator()(long) const",
		"ns::six(int)::{lambda(long)#1}::operator()(long) const",
		"ns::six(int)::{lambda(long)#2}::operator()(long) const",
		"ns::seven(int)::{lambda(long)#1}::operator()(long) const",
	};
	static const char *const bn[] = {
		"ns::run(int)::{lambda(long)}::operator()(long) const (inlined)",
		"ns::two(int)::{lambda(long)#1}::operator()(long) const",
		"ns::three(int)::{lambda(long)}::operator()(long) const (inlined)",
		"ns::four(int)::{lambda(long)}::operator()(long) const (inlined)",
		"ns::five(int)::{lambda(long)#1}::operator()(long) const (inlined)",
		"ns::six(int)::{lambda(long)#1}::operator()(long) const",
		"ns::six(int)::{lambda(long)}::operator()(long) const (inlined)",
		"ns::seven(int)::{lambda(int)}::operator()(int) const (inlined)",
	};
	/* What an[i] pairs with in bn[], and how, or why not. */
	static const struct want_pair want[] = {
		/* Called in A, inlined in B, and the other way round. */
		{ 0, WS_SYM_LAMBDA_INLINED },
		{ 1, WS_SYM_LAMBDA_INLINED },
		/* Two lambdas of three(int) with those parameters, called in A: which one B inlined is not known. */
		{ SIZE_MAX, WS_SYM_ONLY },
		{ SIZE_MAX, WS_SYM_ONLY },
		/* Called and inlined in A: B's inlined code is A's inlined code (a lambda spelled twice), no move. */
		{ SIZE_MAX, WS_SYM_ONLY },
		{ 3, WS_SYM_BY_LAMBDA },
		/* One spelling but for " (inlined)": the names say the move already, as a plain function's do. */
		{ SIZE_MAX, WS_SYM_ONLY },
		/*
		 * six(int)'s #1 is called in both; B's unnumbered inlined code may be A's #2 or the code of #1
		 * inlined too: a lambda already paired still counts, as in the round of one kind.
		 */
		{ 5, WS_SYM_BY_NAME },
		{ SIZE_MAX, WS_SYM_ONLY },
		/* Other parameters are another lambda. */
		{ SIZE_MAX, WS_SYM_ONLY },
	};
	enum ws_sym_how how_b[ARRAY_SIZE(bn)];

	(void)state;
	check_pairs(an, ARRAY_SIZE(an), bn, ARRAY_SIZE(bn), want, ARRAY_SIZE(want), how_b);
}

/*
 * A function called in one build as a GCC clone and inlined in the other: its clone's row and the other's
 * " (inlined)" row are one function (WS_SYM_CLONE_INLINED), as "f" and "f (inlined)" are, where each build
 * has that one row of it, its own code's or inlined; never a guess among two clones.
 */
static void test_pair_clones_inlined(void **state)
{
	static const char *const an[] = {
		"mv::step(long, long) [clone .constprop.0]",
		"mv::two(long) (inlined)",
		"step.constprop.0",
		"mv::three(long) (inlined)",
		"mv::four(long) [clone .constprop.0]",
		"mv::four(long) (inlined)",
		"mv::five(long)",
		"ns::f(int)::{lambda(long)#1}::operator()(long) const [clone .constprop.0]",
		"ns::g(int)::{lambda(long)#1}::operator()(long) const [clone .constprop.0]",
		"mv::six(long) [clone .constprop.0]",
	};
	static const char *const bn[] = {
		"mv::step(long, long) (inlined)",
		"mv::two(long) [clone .isra.0]",
		"step (inlined)",
		"mv::three(long) [clone .constprop.0]",
		"mv::three(long) [clone .isra.0]",
		"mv::four(long) (inlined)",
		"mv::five(long) (inlined)",
		"ns::f(int)::{lambda(long)#1}::operator()(long) const (inlined)",
		"ns::g(int)::{lambda(long)}::operator()(long) const (inlined)",
		"mv::six(long) [clone .isra.0]",
		"mv::six(long) (inlined)",
	};
	/* What an[i] pairs with in bn[], and how, or why not. */
	static const struct want_pair want[] = {
		/* Called in A as a clone, inlined in B, and the other way round; a C clone by its suffix. */
		{ 0, WS_SYM_CLONE_INLINED },
		{ 1, WS_SYM_CLONE_INLINED },
		{ 2, WS_SYM_CLONE_INLINED },
		/* Two clones of three(long) called in B: which one A inlined is not known. */
		{ SIZE_MAX, WS_SYM_ONLY },
		/* Called and inlined in A: B's inlined code is A's inlined code, no move. */
		{ SIZE_MAX, WS_SYM_ONLY },
		{ 5, WS_SYM_BY_NAME },
		/* No clone: "five(long)" and "five(long) (inlined)" say the move by their names. */
		{ SIZE_MAX, WS_SYM_ONLY },
		/* A lambda's clone, numbered in both spellings, and numbered in one only (the lambdas' round). */
		{ 7, WS_SYM_CLONE_INLINED },
		{ 8, WS_SYM_LAMBDA_INLINED },
		/* A clone in each build is one function, as ever; B's inlined code of it moved nowhere. */
		{ 9, WS_SYM_BY_CLONE },
	};
	enum ws_sym_how how_b[ARRAY_SIZE(bn)];

	(void)state;
	check_pairs(an, ARRAY_SIZE(an), bn, ARRAY_SIZE(bn), want, ARRAY_SIZE(want), how_b);
	assert_int_equal(how_b[10], WS_SYM_ONLY);
}

/* What the instances of one template have in common, and what is no template. */
static void test_template_key(void **state)
{
	static const struct name_case cases[] = {
		{ "long app::fill<std::map<long, long> >(std::map<long, long>&, int)", "app::fill<…>(2)" },
		{ "long app::fill<std::unordered_map<long, long> >(std::unordered_map<long, long>&, int)",
		  "app::fill<…>(2)" },
		{ "long app::fill<std::set<long> >(std::set<long>&, int, int)", "app::fill<…>(3)" },
		{ "void std::__introsort_loop<long*, long>(long*, long*, long) [clone .isra.0]",
		  "std::__introsort_loop<…>(3)" },
		{ "std::vector<int>::push_back(int const&) (inlined)", "std::vector<…>::push_back(1) (inlined)" },
		{ "std::vector<int>::size() const", "std::vector<…>::size(0)" },
		{ "bool std::operator< <int, long>(std::pair<int, long> const&, std::pair<int, long> const&)",
		  "std::operator< <…>(2)" },
		{ "void f<std::function<void (int, int)> >(std::function<void (int, int)>)", "f<…>(1)" },
		{ "r1cs::lc::add::<alloc::vec::Vec<u8>>", "r1cs::lc::add::<…>" },
		{ "names::Table::insert(int, int)", NULL },
		{ "operator<(A const&, A const&)", NULL },
	};

	(void)state;
	check_each(ws_sym_template_key, cases, sizeof(cases) / sizeof(cases[0]));
}

/*
 * A template's only instance in each build pairs with the other's (the variant changed a type); where a
 * build has two, or one is inlined and the other not, nothing is guessed.
 */
static void test_pair_templates(void **state)
{
	static const char *const an[] = {
		"long app::fill<std::map<long, long> >(std::map<long, long>&, int)",
		"void app::sort<int>(int*, int)",
		"void app::sort<long>(long*, int)",
		"app::step<int>(int) (inlined)",
		"app::plain(int)",
		"long app::fold<std::map<long, long> >(std::map<long, long>&, int)",
	};
	static const char *const bn[] = {
		"long app::fill<std::unordered_map<long, long> >(std::unordered_map<long, long>&, int)",
		"void app::sort<short>(short*, int)",
		"app::step<long>(long)",
		"app::plain(int)",
		"long app::fold<std::set<long> >(std::set<long>&, int, int)",
	};
	enum { NA = sizeof(an) / sizeof(an[0]), NB = sizeof(bn) / sizeof(bn[0]) };
	size_t mate[NA];
	enum ws_sym_how how_a[NA], how_b[NB];

	(void)state;
	pair_rows(an, NA, bn, NB, mate, how_a, how_b);
	assert_int_equal(mate[0], 0);
	assert_int_equal(how_a[0], WS_SYM_BY_TEMPLATE);
	/* two instances of sort in A: which one B's stands for is not known */
	assert_int_equal(mate[1], SIZE_MAX);
	assert_int_equal(mate[2], SIZE_MAX);
	/* an inlined instance and an out-of-line one are two rows */
	assert_int_equal(mate[3], SIZE_MAX);
	assert_int_equal(mate[4], 3);
	assert_int_equal(how_a[4], WS_SYM_BY_NAME);
	/* another overload of fold (three parameters): another function */
	assert_int_equal(mate[5], SIZE_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libc_impl_family),
		cmocka_unit_test(test_demangle),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_clone_row),
		cmocka_unit_test(test_short),
		cmocka_unit_test(test_display),
		cmocka_unit_test(test_elide_middle),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_plt_callee),
		cmocka_unit_test(test_unknown_row),
		cmocka_unit_test(test_pair_by_symbol),
		cmocka_unit_test(test_lambda_numbers),
		cmocka_unit_test(test_pair_lambdas),
		cmocka_unit_test(test_pair_lambdas_inlined),
		cmocka_unit_test(test_pair_clones_inlined),
		cmocka_unit_test(test_template_key),
		cmocka_unit_test(test_pair_templates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
