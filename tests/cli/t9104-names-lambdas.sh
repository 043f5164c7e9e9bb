#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t9104-names-lambdas.sh - a lambda inlined in two builds, "{lambda(long)#1}" where a symbol of its build names it and
# "{lambda(long)}" where none does, is one row in compare and diff, under the baseline's name.
. "$WS_SRC/tests/cli/lib.sh"

if [ -z "${WS_NAMES_CPP:-}" ] || [ ! -x "$WS_NAMES_CPP/names-lambda-b" ]; then
	test_skip_all "no C++ compiler: the fixture names-lambda-a/-b was not built"
fi
A="$WS_NAMES_CPP/names-lambda-a"
B="$WS_NAMES_CPP/names-lambda-b"
NUMBERED="lam::work(int)::{lambda(long)#1}::operator()(long) const (inlined)"
BARE="lam::work(int)::{lambda(long)}::operator()(long) const (inlined)"

# Another compiler may inline otherwise: then there is nothing here to test.
nm -C "$A" >syms-a 2>/dev/null && nm -C "$B" >syms-b 2>/dev/null
if ! grep -q "lam::apply<lam::work(int)::{lambda(long)#1}>" syms-a || grep -q "lambda" syms-b; then
	test_skip_all "this compiler inlines otherwise than GCC 12 (apply<{lambda(long)#1}> out of line in A only)"
fi

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

test_done
