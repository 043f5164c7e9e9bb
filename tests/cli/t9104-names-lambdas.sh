#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t9104-names-lambdas.sh - a lambda inlined in two builds, "{lambda(long)#1}" where a symbol of its build names it and
# "{lambda(long)}" where none does, is one row in compare and diff, under the baseline's name; so too a template
# instance over its closure type, inlined, spelled as its symbol is where it is out of line. A lambda called in
# one build and inlined in the other, numbered in one spelling only, is seen to move, as a plain function is.
. "$WS_SRC/tests/cli/lib.sh"

if [ -z "${WS_NAMES_CPP:-}" ] || [ ! -x "$WS_NAMES_CPP/names-lambda-b" ]; then
	test_skip_all "no C++ compiler: the fixture names-lambda-a/-b was not built"
fi
A="$WS_NAMES_CPP/names-lambda-a"
B="$WS_NAMES_CPP/names-lambda-b"
C="$WS_NAMES_CPP/names-lambda-c"
NUMBERED="lam::work(int)::{lambda(long)#1}::operator()(long) const (inlined)"
BARE="lam::work(int)::{lambda(long)}::operator()(long) const (inlined)"

# Another compiler may inline otherwise: then there is nothing here to test.
nm -C "$A" >syms-a 2>/dev/null && nm -C "$B" >syms-b 2>/dev/null && nm -C "$C" >syms-c 2>/dev/null
if ! grep -q "lam::apply<lam::work(int)::{lambda(long)#1}>" syms-a || grep -q "lambda" syms-b ||
	grep -q "apply" syms-c || ! grep -q "lam::work(int)::{lambda(long)#1}::operator()(long) const$" syms-c; then
	test_skip_all "this compiler inlines otherwise than GCC 12 (apply<{lambda(long)#1}> out of line in A only, the lambda in C)"
fi
# The instance of apply() over the lambda as the demangler spells its symbol in A, where it is out of line.
APPLY=$(sed -n 's/^[0-9a-f]* [tTwW] \(.*lam::apply<.*\)$/\1/p' syms-a)

test_have_prereq SIM || test_skip_next "the simulator is not built or valgrind is missing"
test_expect_success 'sim: compare makes one row of the two spellings, under the baseline'"'"'s name, and compares it' '
	whyslow compare --backend sim --exact --functions --export-json c.json \
		-n a "$A 2000" -n b "$B 2000" >out 2>err &&
	! grep -E "::operator\(\).*(new|gone)$" out &&
	python3 - c.json "$NUMBERED" "$BARE" <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	a, b = ({f["name"]: f for f in v["functions"]} for v in r["variants"])
	numbered, bare = sys.argv[2], sys.argv[3]
	assert numbered in a and bare not in a, sorted(a)
	assert numbered in b and bare not in b, sorted(b)
	assert b[numbered]["own_name"] == bare and b[numbered]["inlined"], b[numbered]
	cells = [c for c in r["comparisons"] if c.get("function") == numbered and c["metric"] == "instructions"]
	assert cells, "no comparison of the paired row"
	EOF
'

test_have_prereq SIM || test_skip_next "the simulator is not built or valgrind is missing"
test_expect_success 'sim: the other way round, the unnumbered spelling is the baseline'"'"'s' '
	whyslow compare --backend sim --exact --functions --export-json c.json \
		-n b "$B 2000" -n a "$A 2000" >out 2>err &&
	! grep -E "::operator\(\).*(new|gone)$" out &&
	python3 - c.json "$NUMBERED" "$BARE" <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	b, a = ({f["name"]: f for f in v["functions"]} for v in r["variants"])
	numbered, bare = sys.argv[2], sys.argv[3]
	assert bare in b and bare in a and numbered not in a, sorted(a)
	assert a[bare]["own_name"] == numbered, a[bare]
	EOF
'

test_have_prereq SIM || test_skip_next "the simulator is not built or valgrind is missing"
test_expect_success 'sim: diff of two separate results makes one row of them too' '
	whyslow stat --backend sim --exact --functions --export-json sa.json -- "$A" 2000 >out 2>err &&
	whyslow stat --backend sim --exact --functions --export-json sb.json -- "$B" 2000 >out 2>err &&
	whyslow diff --export-json d.json sa.json sb.json >out 2>err &&
	! grep -E "::operator\(\).*(new|gone)$" out &&
	python3 - d.json "$NUMBERED" "$BARE" <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	a, b = ({f["name"]: f for f in v["functions"]} for v in r["variants"])
	numbered, bare = sys.argv[2], sys.argv[3]
	assert numbered in a and numbered in b and bare not in b, sorted(b)
	assert b[numbered]["own_name"] == bare, b[numbered]
	EOF
'

test_have_prereq SIM || test_skip_next "the simulator is not built or valgrind is missing"
test_expect_success 'sim: apply() over the closure, inlined, is named as its symbol, numbered where a symbol numbers the lambda' '
	whyslow stat --backend sim --exact --functions --export-json sb.json -- "$B" 2000 >out 2>err &&
	whyslow stat --backend sim --exact --functions --export-json sc.json -- "$C" 2000 >out 2>err &&
	python3 - sb.json sc.json "$APPLY" <<-\EOF
	import json, sys
	b, c = ([f["name"] for f in json.load(open(p))["variants"][0]["functions"]] for p in sys.argv[1:3])
	numbered = sys.argv[3] + " (inlined)"
	assert not [n for n in b + c if "<lambda" in n], b + c
	# C: the symbol of the lambda, its operator(), gives the number, in the template argument and the parameter
	assert numbered in c, c
	# B: no symbol names the lambda: the same name but for the number, as the row of its operator() is
	assert numbered.replace("#1}", "}") in b, b
	EOF
'

test_have_prereq SIM || test_skip_next "the simulator is not built or valgrind is missing"
test_expect_success 'sim: apply() out of line in A and inlined in C: one name, so the explanation sees it move' '
	whyslow compare --backend sim --exact --callers --export-json ac.json \
		-n a "$A 2000" -n c "$C 2000" >out 2>err &&
	python3 - ac.json "$APPLY" <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	a, c = ({f["name"]: f for f in v["functions"]} for v in r["variants"])
	own = sys.argv[2]
	assert own in a and not a[own].get("inlined"), sorted(a)
	assert own + " (inlined)" in c and c[own + " (inlined)"]["inlined"], sorted(c)
	where = [w for e in r["explain"] for cause in e["causes"] for w in cause["where"]]
	assert [w for w in where if w.endswith(own + " is inlined in c, called in a")], where
	EOF
'

test_have_prereq SIM || test_skip_next "the simulator is not built or valgrind is missing"
test_expect_success 'sim: apply() inlined in B and C, its lambda numbered in C only, is one row under B'"'"'s name' '
	whyslow compare --backend sim --exact --functions --export-json bc.json \
		-n b "$B 2000" -n c "$C 2000" >out 2>err &&
	python3 - bc.json "$APPLY" <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	b, c = ({f["name"]: f for f in v["functions"]} for v in r["variants"])
	numbered = sys.argv[2] + " (inlined)"
	bare = numbered.replace("#1}", "}")
	assert bare in b and bare in c and numbered not in c, sorted(c)
	assert c[bare]["own_name"] == numbered, c[bare]
	cells = [x for x in r["comparisons"] if x.get("function") == bare and x["metric"] == "instructions"]
	assert cells, "no comparison of the paired row"
	EOF
'

# moved.cpp: the lambda inlined in IN, where no symbol numbers it, and called in OUT, whose symbol does.
IN="$WS_NAMES_CPP/names-moved-in"
OUT="$WS_NAMES_CPP/names-moved-out"
nm -C "$IN" >syms-in && nm -C "$OUT" >syms-out
moved_skip=
if grep -q "lambda" syms-in || ! grep -q "mv::run(long)::{lambda(long)#1}::operator()(long) const" syms-out; then
	moved_skip="this compiler inlines moved.cpp otherwise than GCC 12 (the lambda out of line with -DOUT only)"
elif ! test_have_prereq SIM; then
	moved_skip="the simulator is not built or valgrind is missing"
fi
MOVED_BARE="mv::run(long)::{lambda(long)}::operator()(long) const"

[ -z "$moved_skip" ] || test_skip_next "$moved_skip"
test_expect_success 'sim: a lambda inlined in a, unnumbered, and called in b: two rows, and a move' '
	whyslow compare --backend sim --exact --callers --export-json io.json \
		-n a "$IN 200000" -n b "$OUT 200000" >out 2>err &&
	# As t7001 says of step, a plain function: the place is its caller with callees, the lambda moved.
	test_grep "mostly in mv::run(long) with its callees ([0-9]*%): $MOVED_BARE is inlined in a, called in b" out &&
	python3 - io.json "$MOVED_BARE" <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	a, b = ({f["name"]: f for f in v["functions"]} for v in r["variants"])
	bare = sys.argv[2]
	assert bare + " (inlined)" in a and bare not in a, sorted(a)
	# the row in b takes the spelling of a, without " (inlined)"; the numbered one of its symbol is its own_name
	assert bare in b and not b[bare].get("inlined") and bare + " (inlined)" not in b, sorted(b)
	assert b[bare]["own_name"].startswith(bare.replace("}", "#1}", 1)), b[bare]
	EOF
'

[ -z "$moved_skip" ] || test_skip_next "$moved_skip"
test_expect_success 'sim: the other way round, the numbered spelling is the baseline'"'"'s, and the move is said so' '
	whyslow compare --backend sim --exact --callers --export-json oi.json \
		-n b "$OUT 200000" -n a "$IN 200000" >out 2>err &&
	test_grep "mostly in mv::run(long) with its callees ([0-9]*%): .* is inlined in a, called in b" out &&
	python3 - oi.json "$MOVED_BARE" <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	b, a = ({f["name"]: f for f in v["functions"]} for v in r["variants"])
	bare = sys.argv[2]
	numbered = bare.replace("}", "#1}", 1)
	own = [n for n in b if n.startswith(numbered)]
	assert len(own) == 1 and not b[own[0]].get("inlined"), sorted(b)
	# b calls a clone (GCC 12: "[clone .constprop.0]"); inlined code is the lambda'"'"'s, with its number, no note
	inl = numbered + " (inlined)"
	assert inl in a and a[inl]["own_name"] == bare + " (inlined)", sorted(a)
	assert not [n for n in a if "[clone" in n and n.endswith(" (inlined)")], sorted(a)
	where = [w for e in r["explain"] for cause in e["causes"] for w in cause["where"]]
	assert [w for w in where if w.endswith(": " + numbered + " is inlined in a, called in b")], where
	EOF
'

# twins.cpp: a symbol at -O2 numbers one of two lambdas with the same parameters, and only that one.
T0="$WS_NAMES_CPP/names-twins-O0"
T2="$WS_NAMES_CPP/names-twins-O2"
nm -C "$T0" | sed 's/^[0-9a-f]* [a-zA-Z] //' >syms-t0 && nm -C "$T2" | sed 's/^[0-9a-f]* [a-zA-Z] //' >syms-t2
twins_skip=
if [ "$(grep -c "^tw::work(int)::{lambda(long)#[0-9]*}::operator()(long) const$" syms-t0)" != 2 ] ||
	[ "$(grep -c "lambda" syms-t2)" != 1 ] || grep -q "apply" syms-t2; then
	twins_skip="this compiler inlines twins.cpp otherwise than GCC 12 (one lambda out of line at -O2)"
elif ! test_have_prereq SIM; then
	twins_skip="the simulator is not built or valgrind is missing"
fi
[ -z "$twins_skip" ] || test_skip_next "$twins_skip"
test_expect_success 'sim: the number a symbol gives one lambda is not given to its twin, inlined' '
	whyslow stat --backend sim --exact --functions --export-json st.json -- "$T2" 2000 >out 2>err &&
	python3 - st.json syms-t0 syms-t2 <<-\EOF
	import json, re, sys
	names = [f["name"] for f in json.load(open(sys.argv[1]))["variants"][0]["functions"]]
	syms0, syms2 = (open(p).read().splitlines() for p in sys.argv[2:4])
	inl = [n[:-len(" (inlined)")] for n in names if n.endswith(" (inlined)") and "tw::" in n]
	ops = [n for n in syms0 if n.startswith("tw::work(int)::{lambda(long)#")]
	cold = [n for n in ops if n not in syms2]
	assert len(cold) == 1, (ops, syms2)
	apply = [n for n in syms0 if "tw::apply<" in n]
	assert len(apply) == 1 and cold[0].split("::operator()")[0] in apply[0], apply
	# DWARF has two lambdas with those parameters: no symbol tells which is which, so no number
	unnumbered = lambda n: re.sub(r"(\{lambda\([^{}]*\))#[0-9]+\}", r"\1}", n)
	for want in (cold[0], apply[0]):
	    assert unnumbered(want) in inl, (unnumbered(want), inl)
	assert not [n for n in inl if "{lambda(long)#" in n], inl
	EOF
'

[ -z "$twins_skip" ] || test_skip_next "$twins_skip"
test_expect_success 'sim: both twins called at -O0, one inlined at -O2: which one moved is not known, none is said to' '
	whyslow compare --backend sim --exact --callers --export-json tw.json \
		-n o0 "$T0 2000" -n o2 "$T2 2000" >out 2>err &&
	python3 - tw.json <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	o0, o2 = ({f["name"]: f for f in v["functions"]} for v in r["variants"])
	bare = "tw::work(int)::{lambda(long)}::operator()(long) const"
	assert bare + " (inlined)" in o2 and "own_name" not in o2[bare + " (inlined)"], sorted(o2)
	numbered = [n for n in o2 if n.startswith("tw::work(int)::{lambda(long)#") and n.endswith(" (inlined)")]
	assert not numbered, sorted(o2)
	where = [w for e in r["explain"] for cause in e["causes"] for w in cause["where"]]
	assert not [w for w in where if "::operator()(long) const is inlined in" in w], where
	EOF
'

test_done
