/* SPDX-License-Identifier: GPL-2.0-or-later */
/* names.h - one function name in its forms: mangled, demangled, its identity across builds, short, shown. */
#ifndef WS_NAMES_H
#define WS_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Every path that names a function (the simulator's results, perf sampling, asm-diff, the explanation, the
 * reports) goes through these, so that one function has one name everywhere:
 *
 *   symbol    as in the object's symbol table, mangled: "_ZN3r1cs2lc7Indexer16insert_or_update17h9e..E"
 *   name      demangled once, here, by libiberty (the demangler of binutils, GDB and Valgrind), with
 *             Rust's hash and v0's crate disambiguators left out as c++filt and perf print them:
 *             "r1cs::lc::Indexer::insert_or_update", "foo(int) [clone .isra.0]"
 *   identity  what stays the same between two builds of the same source: the name of the symbol without
 *             its compiler clone suffixes (".constprop.0", ".isra.0", ".cold", ".part.0", ".llvm.N"):
 *             "foo(int)"; for C, the plain base name "scale"
 *   short     a demangled name without its return type, parameter list, qualifiers and clone notes, the
 *             form people type: "std::map<int, int>::insert"
 *   shown     for a terminal table: template and generic arguments elided to <…>, the width capped
 */

/*
 * The demangled name of `symbol`: C++ (Itanium ABI), Rust legacy and v0, through libiberty's
 * cplus_demangle(). A symbol that is not mangled (C, or a name libiberty does not recognise) comes back as
 * it is. LLVM's ".llvm.N" suffix (a hash that changes with every build) and a symbol version
 * ("@@GLIBC_2.34") are left out; GCC's clone suffixes are kept as "[clone .isra.0]" notes, for Rust as for
 * C++. Returns a new string; never fails.
 */
char *ws_sym_demangle(const char *symbol);

/* True when `s` looks mangled (_Z..., _R...) and libiberty demangles it. */
bool ws_sym_is_mangled(const char *s);

/*
 * `symbol` without the suffixes compilers add to clones and split parts (".constprop.N", ".isra.N",
 * ".part.N", ".cold", ".lto_priv.N", ".clone.N", ".llvm.N", ...), repeatedly: "f.constprop.0.isra.0" -> "f".
 * Returns a new string.
 */
char *ws_sym_base(const char *symbol);

/* The identity of `symbol` across builds: ws_sym_demangle(ws_sym_base(symbol)). A new string. */
char *ws_sym_identity(const char *symbol);

/*
 * GCC numbers a function's lambdas ("f(int)::{lambda(long)#1}"), and its symbols carry the number, but
 * DWARF does not: a lambda inlined where no symbol names it is "f(int)::{lambda(long)}" (symbols.c). These
 * tell the two spellings of one lambda apart from two lambdas, for the pairing across builds (pair.c).
 *
 * ws_sym_lambda_unnumbered: `name` with every lambda's number left out, "f(int)::{lambda(long)}": what two
 * spellings of one lambda have in common (also two lambdas with the same parameters, which only
 * ws_sym_lambda_same() tells apart). A new string, `name` itself (copied) when it numbers no lambda.
 *
 * ws_sym_lambda_same: whether `a` and `b` are one name but for lambda numbers that one of them leaves out:
 * "{lambda(long)}" is "{lambda(long)#1}" and "{lambda(long)#2}", but "{lambda(long)#1}" is not
 * "{lambda(long)#2}", nor "{lambda(int)}", and all else (the enclosing function, " (inlined)") is the same.
 * True for two equal names.
 */
char *ws_sym_lambda_unnumbered(const char *name);
bool ws_sym_lambda_same(const char *a, const char *b);

/*
 * The length of `name` without the " (inlined)" that a profile's row of code inlined from a function ends
 * with ("NAME (inlined)", result.h), in *len; whether it ends so. Where not, *len is strlen(name).
 */
bool ws_sym_inlined_row(const char *name, size_t *len);

/*
 * The length of a function's row name `name` without the clone notes that end it, in *len: "f(int) [clone
 * .constprop.0] [clone .isra.0]" and a C clone's "f.constprop.0" (a symbol no demangler makes notes of) are
 * "f(int)" and "f", the name DWARF gives the function's inlined code ("f(int) (inlined)"); whether it has
 * any. Where not, *len is strlen(name).
 */
bool ws_sym_clone_row(const char *name, size_t *len);

/*
 * What the instances of one function template (or generic) have in common: `name` without its return
 * type, clone notes and parameters but for their number, and with every template or generic argument list
 * elided, as "app::fill<…>(2)" for "long app::fill<std::map<long, long> >(std::map<long, long>&, int)" and
 * for its instance with std::unordered_map; " (inlined)" kept, so that an inlined row and an out-of-line
 * one differ. NULL for a name without template arguments. A new string.
 */
char *ws_sym_template_key(const char *name);

/*
 * The public function a C library implementation stands for, when `name` is one of the implementations
 * glibc chooses among by CPU features at load time (ifunc): "__memmove_avx512_unaligned_erms" and
 * "__memcpy_avx_unaligned_erms" -> "memcpy/memmove" (glibc's memcpy is its memmove), "__strlen_evex" ->
 * "strlen". NULL for any other name. A new string.
 */
char *ws_sym_libc_impl_family(const char *name);

/*
 * The short form of a demangled name: without a leading return type, the trailing parameter list and its
 * qualifiers (const, &, noexcept) and "[clone ...]" notes. Names without any of these come back unchanged.
 * A new string.
 */
char *ws_sym_short(const char *name);

/*
 * `name` for a terminal column of `width` columns (0: no limit): several clone notes made one ("[clone
 * .constprop.0] [clone .isra.0]" -> "[clone .constprop.0.isra.0]"), template and generic arguments elided to
 * "<…>" (not a leading qualified path such as Rust's "<&T as core::fmt::Debug>::fmt", whose own arguments
 * are), then, if still too wide, the parameter list to "(…)", then the start cut to "…". A new string; it
 * is `name` itself (copied) when that fits. The full name stays in JSON, in -v and in the HTML report.
 */
char *ws_sym_display(const char *name, size_t width);

/*
 * The `n` names of one table's rows (or of one list) for a column of `width`, each as ws_sym_display() shows
 * it, but where two differing names would read alike, those with less elided, within `width`: the argument
 * lists around the first byte where they differ (past their return types) kept, the lists inside that do
 * not hold it still elided, as "fill<std::map<…> >(…)" and "fill<std::unordered_map<…> >(…)" for
 * "fill<…>(…)" twice; or their parameters, as "f(int)" and "f(long)" for "f(…)" twice. Where the cut to
 * `width` still takes what differs (a C identifier's middle), they are widened until they differ
 * (ws_text_width_apart()), whole at worst. Names that read like no other keep ws_sym_display()'s form;
 * equal names stay equal. A new array of `n` new strings.
 */
char **ws_sym_display_apart(const char *const *names, size_t n, size_t width);

/*
 * The row of a bracketed bucket in `object`: "[unknown]" in /usr/lib/x86_64-linux-gnu/liblzma.so.5 is
 * "[unknown] liblzma.so.5", and code found by its frame ("[unknown]+0x1f2a0", symbols.h's
 * ws_symobj_unnamed) "[unknown] liblzma.so.5+0x1f2a0": the object's file name, then the function's link
 * address, as addr2line and gdb take them. Every backend names such rows through here. A new string.
 */
char *ws_sym_unknown_row(const char *name, const char *object);

/* The width of UTF-8 text in columns (code points). */
size_t ws_text_width(const char *s);

/*
 * `s` cut in the middle to `width` columns, its start and its end kept around one "…" (an identifier in
 * ws_sym_display(), a program's name in the report's tables); a copy when it fits or `width` is 0. A new
 * string.
 */
char *ws_text_elide_middle(const char *s, size_t width);

/*
 * Whether two of the `n` texts `shown` are the same where their `full` texts (NULL: any) differ: two rows a
 * reader cannot tell apart. Each such text's entry of `alike` (NULL: none) is set, every other cleared.
 */
bool ws_text_alike(char *const *shown, const char *const *full, size_t n, bool *alike);

/*
 * The least width from `from` at which show(i, width, arg) (a new string) tells the `n` texts `full` apart,
 * 0 (whole) where only they do: a shortened column widened until no two rows read alike.
 */
size_t ws_text_width_apart(const char *const *full, size_t n, size_t from,
			   char *(*show)(size_t i, size_t width, const void *arg), const void *arg);

/* The width ws_sym_display() is given by tables that show function names. */
#define WS_SYM_DISPLAY_WIDTH 60

/* True when `pattern` has a glob character (*, ? or [). */
bool ws_sym_is_glob(const char *pattern);

/*
 * The length of the callee's name when `name` is a PLT stub's row ("memcmp@plt", or "memcpy@plt
 * (libstdc++.so.6)" where two objects have one), else 0.
 */
size_t ws_sym_plt_callee(const char *name);

/* The forms of one function's name that a pattern is matched against (any may be NULL). */
struct ws_sym_forms {
	const char *symbol;   /* mangled, as in the symbol table */
	const char *name;     /* demangled */
	const char *identity; /* demangled, clone suffixes left out */
	const char *shortname;
	const char *key;      /* a further name the caller knows the function by (a disambiguated key) */
};

enum ws_sym_match {
	WS_SYM_NO_MATCH,
	WS_SYM_MATCH_EXACT, /* one of the forms is the pattern, or both are the same mangled function */
	WS_SYM_MATCH_GLOB,  /* the pattern is a glob and matches the demangled, identity or short form */
};

/*
 * Whether `pattern` names the function: a mangled name (its hash and clone suffixes do not matter, so a
 * symbol copied from one build finds the function in the other), a demangled name in any of the forms
 * above or the short form without the template arguments that end it ("sum" for "sum<int>"), or a glob
 * (fnmatch(3), '*' also crossing "::") over the demangled forms.
 */
enum ws_sym_match ws_sym_match(const char *pattern, const struct ws_sym_forms *f);

/*
 * The "did you mean" score of `candidate` (a short form) for `pattern` (glob characters ignored): 0 for
 * an exact match, lower is closer, SIZE_MAX when not close at all (neither within a third of the length by
 * edit distance nor sharing the pattern's last "::" component as a substring).
 */
size_t ws_sym_distance(const char *pattern, const char *candidate);

#endif
