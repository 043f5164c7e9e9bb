#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t9103-names-inlined.sh - code inlined everywhere, so named from DWARF alone: the name its symbol has where it is
# out of line (parameters, const, a template's return type, "long" for DWARF's "long int", template arguments in
# full), lambdas told apart, a generic one's "auto" parameters as its symbol spells them.
. "$WS_SRC/tests/cli/lib.sh"

if [ -z "${WS_NAMES_CPP:-}" ] || [ ! -x "$WS_NAMES_CPP/names-inline-O2" ]; then
	test_skip_all "no C++ compiler: the fixture names-inline-O0/-O2 was not built"
fi
O0="$WS_NAMES_CPP/names-inline-O0"
O2="$WS_NAMES_CPP/names-inline-O2"

test_expect_success 'the fixtures: out of line at -O0, only ns::run and Box::total left at -O2' '
	nm -C "$O0" >syms0 &&
	test_grep "long ns::mixed<long>(long, unsigned long)$" syms0 &&
	test_grep "ns::run(int)::{lambda(long)#1}::operator()(long) const$" syms0 &&
	test_grep "long ns::total<ns::Seq<long, ns::Step<long> > >(ns::Seq<long, ns::Step<long> > const&)$" syms0 &&
	test_grep "ns::run(int)::{lambda(auto:[0-9]*, auto:[0-9]*&)#3}::operator()<int, long>(int, long&) const$" syms0 &&
	test_grep "long ns::apply<ns::run(int)::{lambda(auto" syms0 &&
	! nm -C "$O2" | grep "mixed\|lambda\|twice\|ns::total\|ns::apply"
'

test_have_prereq SIM || test_skip_next "the simulator is not built or valgrind is missing"
test_expect_success 'sim: inlined code under the name its symbol has at -O0; two lambdas, two rows' '
	whyslow stat --backend sim --exact --functions --export-json s.json -- "$O2" 100 >out 2>err &&
	python3 - s.json syms0 <<-\EOF
	import json, re, sys
	names = [f["name"] for f in json.load(open(sys.argv[1]))["variants"][0]["functions"]]
	syms = open(sys.argv[2]).read()
	inl = [n[:-len(" (inlined)")] for n in names if n.endswith(" (inlined)") and "ns::" in n]
	assert not [n for n in names if "long int" in n or "{lambda}" in n], names
	for want in ("long ns::mixed<long>(long, unsigned long)", "int ns::mixed<int>(int, unsigned long)",
	             "ns::Box<long, 8>::twice(int) const",
	             # GCC names it "total<ns::Seq<long int> >", without the default argument of Seq
	             "long ns::total<ns::Seq<long, ns::Step<long> > >(ns::Seq<long, ns::Step<long> > const&)"):
	    assert want in inl, (want, inl)
	    assert want + "\n" in syms, want
	# the lambdas: the symbol's spelling but for GCC's number, which DWARF does not give
	for sig in ("(long)", "(int, int)"):
	    want = "ns::run(int)::{lambda%s}::operator()%s const" % (sig, sig)
	    assert want in inl, (want, inl)
	    assert want.replace("}", "#", 1).replace("#", "#1}" if sig == "(long)" else "#2}", 1) + "\n" in syms, want
	# the generic lambda, the third: its "auto" parameters as its symbol spells them (no bare "{lambda}"), in its
	# operator() and in the instance of apply() over it alike
	unnumbered = lambda n: re.sub(r"(\{lambda\([^{}]*\))#[0-9]+\}", r"\1}", n)
	names0 = [l.split(" ", 2)[2] for l in syms.splitlines() if l.count(" ") >= 2]
	op = [n for n in names0 if "ns::run(int)::{lambda(auto:" in n and "::operator()<" in n]
	ap = [n for n in names0 if n.startswith("long ns::apply<")]
	assert len(op) == 1 and len(ap) == 1, (op, ap)
	assert unnumbered(ap[0]) in inl, (unnumbered(ap[0]), inl)
	# DWARF gives the deduced return type of operator() ("long"), the symbol the declared one ("auto"): the
	# rest is the name of the symbol
	want = unnumbered(op[0]).split(" ", 1)[1]
	assert [n for n in inl if n.endswith(" " + want)], (want, inl)
	EOF
'

test_done
