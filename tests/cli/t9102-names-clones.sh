#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t9102-names-clones.sh - a function GCC clones with other suffixes in two builds is one row in compare, as in asm-diff;
# an inlined lambda, which GCC's DWARF leaves without a linkage name, is spelled as the demangler spells it.
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

test_done
