#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t9102-names-clones.sh - a function GCC clones with other suffixes in two builds is one row in compare, as in asm-diff;
# an inlined lambda, which GCC's DWARF leaves without a linkage name, is spelled as the demangler spells it. A
# function (or lambda) called as a clone in one build and inlined in the other is seen to move, as a plain one is.
. "$WS_SRC/tests/cli/lib.sh"

if [ -z "${WS_NAMES_CPP:-}" ] || [ ! -x "$WS_NAMES_CPP/names-clones-b" ]; then
	test_skip_all "no C++ compiler: the fixture names-clones-a/-b was not built"
fi
A="$WS_NAMES_CPP/names-clones-a"
B="$WS_NAMES_CPP/names-clones-b"
BASE="kern::scaled_sum(std::vector<long, std::allocator<long> > const&, int, int) [clone .constprop.0] [clone .isra.0]"
OWN="kern::scaled_sum(std::vector<long, std::allocator<long> > const&, int, int) [clone .isra.0]"

# Another compiler may clone otherwise (or not at all): then there is nothing here to test.
nm "$A" >syms-a 2>/dev/null && nm "$B" >syms-b 2>/dev/null
if ! grep -q "scaled_sum.*ii\.constprop\.0\.isra\.0$" syms-a || grep -q "scaled_sum.*constprop" syms-b ||
   ! grep -q "scaled_sum.*ii\.isra\.0$" syms-b; then
	test_skip_all "this compiler clones scaled_sum otherwise than GCC 12 (.constprop.0.isra.0 against .isra.0)"
fi

test_expect_success 'asm-diff pairs the two clones' '
	whyslow asm-diff "$A" "$B" >out 2>err &&
	test_grep "_sum(…) \[clone .constprop.0.isra.0\] -> kern::scaled_sum(…) \[clone .isra.0\]" out &&
	test_grep "0 only in A, 0 only in B" out
'

test_have_prereq SIM || test_skip_next "the simulator is not built or valgrind is missing"
test_expect_success 'sim: compare makes one row of them, under the baseline'"'"'s name, with a real change' '
	whyslow compare --backend sim --exact --callers --export-json c.json \
		-n a "$A 20000 50" -n b "$B 20000 50" >out 2>err &&
	! grep -E "scaled_sum.*(new|gone)$" out &&
	grep "kern::scaled_sum(…) \[clone .constprop.0.isra.0\] .*exact" out &&
	python3 - c.json "$BASE" "$OWN" <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	a, b = ({f["name"]: f for f in v["functions"]} for v in r["variants"])
	base, own = sys.argv[2], sys.argv[3]
	assert base in a and base in b and own not in b, sorted(b)
	assert b[base]["own_name"] == own and b[base]["symbol"].endswith("ii.isra.0"), b[base]
	assert "own_name" not in a[base]
	cells = [c for c in r["comparisons"] if c.get("function") == base and c["metric"] == "instructions"]
	assert cells, "no comparison of the paired row"
	# The verdict names it with a share of the difference, not 700% in a "new" row.
	where = [w for e in r["explain"] for c in e["causes"] for w in c.get("where", [])]
	assert not any("%s (" % own in w for w in where), where
	EOF
'

test_expect_success 'sim: diff of two separate results makes one row of them too' '
	whyslow stat --backend sim --exact --functions --export-json sa.json -- "$A" 20000 50 >out 2>err &&
	whyslow stat --backend sim --exact --functions --export-json sb.json -- "$B" 20000 50 >out 2>err &&
	whyslow diff --export-json d.json sa.json sb.json >out 2>err &&
	! grep -E "scaled_sum.*(new|gone)$" out &&
	python3 - d.json "$BASE" "$OWN" <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	a, b = ({f["name"]: f for f in v["functions"]} for v in r["variants"])
	base, own = sys.argv[2], sys.argv[3]
	assert base in a and base in b and own not in b, sorted(b)
	assert b[base]["own_name"] == own, b[base]
	EOF
'

test_expect_success 'an inlined lambda: the demangler'"'"'s spelling, under its function, no anonymous namespace' '
	test_expect_code 1 whyslow asm-diff --function "*lambda*operator()" "$A" "$B" >out 2>err &&
	test_grep "work::sort_stuff(std::vector<long, std::allocator<long> >&)::{lambda(long, long)#1}::operator()(long, long) const'"'"' was inlined into" err &&
	! test_grep "anonymous namespace" err
'

# moved.cpp -DSTEP: mv::mix and mv::run's lambda inlined in IN, called in OUT as ".constprop.0" clones.
IN="$WS_NAMES_CPP/names-moved-clone-in"
OUT="$WS_NAMES_CPP/names-moved-clone-out"
STEP="mv::mix(long, long)"
LAMBDA="mv::run(long)::{lambda(long)}::operator()(long) const"
NUMBERED="mv::run(long)::{lambda(long)#1}::operator()(long) const"
nm -C "$IN" >syms-in && nm -C "$OUT" >syms-out
moved_skip=
if grep -q -e "mix" -e "lambda" syms-in || ! grep -qF "$STEP [clone .constprop.0]" syms-out ||
	! grep -qF "$NUMBERED [clone .constprop.0]" syms-out; then
	moved_skip="this compiler inlines or clones moved.cpp otherwise than GCC 12 (.constprop.0 with -DOUT only)"
elif ! test_have_prereq SIM; then
	moved_skip="the simulator is not built or valgrind is missing"
fi

[ -z "$moved_skip" ] || test_skip_next "$moved_skip"
test_expect_success 'sim: a function and a lambda inlined in a and called as clones in b: two rows each, and two moves' '
	whyslow compare --backend sim --exact --callers --export-json io.json \
		-n a "$IN 200000" -n b "$OUT 200000" >out 2>err &&
	# As t7001 says of a plain step: the place is its caller with callees, the function moved, not its clone.
	test_grep "mv::walk(long) with its callees ([0-9]*%): $STEP is inlined in a, called in b" out &&
	python3 - io.json "$STEP" "$LAMBDA" "$NUMBERED" <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	a, b = ({f["name"]: f for f in v["functions"]} for v in r["variants"])
	step, bare, numbered = sys.argv[2:5]
	# b's rows take the spelling of a without " (inlined)"; the clones' names are their own_name
	for fn, own in ((step, step), (bare, numbered)):
	    assert fn + " (inlined)" in a and fn not in a, sorted(a)
	    assert fn in b and not b[fn].get("inlined"), sorted(b)
	    assert b[fn]["own_name"] == own + " [clone .constprop.0]", b[fn]
	assert not [n for n in b if "[clone" in n], sorted(b)
	where = [w for e in r["explain"] for cause in e["causes"] for w in cause["where"]]
	for host, fn in (("mv::walk(long)", step), ("mv::run(long)", bare)):
	    assert [w for w in where if w.startswith(host + " with its callees (") and w.endswith(
	        "): " + fn + " is inlined in a, called in b")], where
	EOF
'

[ -z "$moved_skip" ] || test_skip_next "$moved_skip"
test_expect_success 'sim: the other way round, the clones are the baseline'"'"'s: the inlined rows take no clone note' '
	whyslow compare --backend sim --exact --callers --export-json oi.json \
		-n b "$OUT 200000" -n a "$IN 200000" >out 2>err &&
	test_grep "mv::walk(long) with its callees ([0-9]*%): $STEP is inlined in a, called in b" out &&
	python3 - oi.json "$STEP" "$LAMBDA" "$NUMBERED" <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	b, a = ({f["name"]: f for f in v["functions"]} for v in r["variants"])
	step, bare, numbered = sys.argv[2:5]
	assert step + " [clone .constprop.0]" in b and numbered + " [clone .constprop.0]" in b, sorted(b)
	# the inlined row of a clone is its function'"'"'s: "step (inlined)", no "[clone .constprop.0] (inlined)"
	assert not [n for v in (a, b) for n in v if "[clone" in n and n.endswith(" (inlined)")], (sorted(a), sorted(b))
	assert step + " (inlined)" in a and "own_name" not in a[step + " (inlined)"], sorted(a)
	# the lambda'"'"'s takes the number of b'"'"'s spelling; its own, from DWARF, has none
	assert a[numbered + " (inlined)"]["own_name"] == bare + " (inlined)", sorted(a)
	where = [w for e in r["explain"] for cause in e["causes"] for w in cause["where"]]
	for host, fn in (("mv::walk(long)", step), ("mv::run(long)", numbered)):
	    assert [w for w in where if w.startswith(host + " with its callees (") and w.endswith(
	        "): " + fn + " is inlined in a, called in b")], where
	EOF
'

[ -z "$moved_skip" ] || test_skip_next "$moved_skip"
test_expect_success 'sim: without --callers the moved clone'"'"'s own row is said to move, under the baseline'"'"'s name' '
	whyslow compare --backend sim --exact --functions -n a "$IN 200000" -n b "$OUT 200000" >out 2>err &&
	test_grep "$STEP ([^)]*): inlined in a, called in b" out &&
	whyslow compare --backend sim --exact --functions -n b "$OUT 200000" -n a "$IN 200000" >out 2>err &&
	test_grep "$STEP \[clone .constprop.0\] ([^)]*): inlined in a, called in b" out
'

test_done
