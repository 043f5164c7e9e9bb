#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t9002-asm-diff-annotate.sh - asm-diff --result: the simulator's per-instruction counts beside the code.
. "$WS_SRC/tests/cli/lib.sh"

fx="$WS_BUILD/tests"
A="$fx/asm-copy-loop"
B="$fx/asm-copy-memcpy"

command -v objdump >/dev/null 2>&1 && command -v nm >/dev/null 2>&1 ||
	test_skip_all 'needs objdump and nm for the fixture addresses'

# The addresses of copy_ints's instructions in a binary, from nm and objdump (never hard-coded).
insn_addrs() {
	start=$(nm "$1" | sed -n 's/^\([0-9a-f]*\) T copy_ints$/\1/p')
	size=$(nm -S "$1" | sed -n 's/^[0-9a-f]* \([0-9a-f]*\) T copy_ints$/\1/p')
	objdump -d --insn-width=16 --start-address="0x$start" \
		--stop-address="$(printf '0x%x' $((0x$start + 0x$size)))" "$1" |
		sed -n 's/^ *\([0-9a-f]*\):	.*/\1/p'
}

# hot_code insns for a binary: instruction i gets 1000 * (i + 1) executions, i L1-dcache-misses; an
# extra key that asm-diff does not know ("note") must be ignored.
hot_insns() {
	i=0
	sep=
	for a in $(insn_addrs "$1"); do
		printf '%s{ "addr": "0x%s", "executions": %d, "L1-dcache-misses": %d, "note": "x" }' \
			"$sep" "$a" $((1000 * (i + 1))) "$i"
		sep=', '
		i=$((i + 1))
	done
}

test_expect_success 'setup: a result file with hot_code for both binaries' '
	insn_addrs "$A" >addrs-a &&
	insn_addrs "$B" >addrs-b &&
	test_line_count -gt 3 addrs-a &&
	test_line_count -gt 1 addrs-b &&
	# B is named by a copy of itself: the same build-id, another path.
	cp "$B" copy-of-b &&
	cat >result.json <<-EOF
	{ "schema": "whyslow/1", "machine": { "backend": "sim" },
	  "variants": [
	    { "name": "loop", "baseline": true, "metrics": {},
	      "hot_code": [ { "function": "copy_ints", "object": "$(realpath "$A")",
	                      "insns": [ $(hot_insns "$A") ] } ] },
	    { "name": "memcpy", "metrics": {}, "extra": [1, 2],
	      "hot_code": [ { "function": "copy_ints", "object": "$PWD/copy-of-b",
	                      "insns": [ $(hot_insns "$B") ] },
	                    { "function": "elsewhere", "object": "/nonexistent/binary",
	                      "insns": [ { "addr": "0x1", "executions": 5 } ] } ] } ] }
	EOF
'

test_expect_success 'text: each annotated instruction shows its counts, both sides' '
	whyslow asm-diff --result result.json --function copy_ints "$A" "$B" >out 2>err &&
	test_line_count = 0 err &&
	test_grep "executions  L1-dcache-misses  A " out &&
	first_a=$(head -n1 addrs-a) &&
	last_a=$(tail -n1 addrs-a) &&
	first_b=$(head -n1 addrs-b) &&
	n_a=$(wc -l <addrs-a) &&
	# the first A instruction: 1000 executions, 0 misses; the last: 1000 * n
	test_grep "^  *1000  *0  $first_a  " out &&
	test_grep "^  *$((1000 * n_a))  *$((n_a - 1))  $last_a  " out &&
	test_grep "[|<>]  *1000  *0  $first_b  " out
'

test_expect_success 'text: totals per function, and the hottest instructions by executions' '
	whyslow asm-diff --result result.json --function copy_ints "$A" "$B" >out &&
	n_a=$(wc -l <addrs-a) &&
	test_grep "^  A counts (.loop.): executions $((1000 * n_a * (n_a + 1) / 2)), L1-dcache-misses $((n_a * (n_a - 1) / 2))" out &&
	test_grep "^  hottest in A by executions (.loop.):" out &&
	test_grep "^  hottest in B by executions (.memcpy.):" out &&
	# the hottest A line is the last one
	sed -n "/hottest in A/{n;p;}" out >top &&
	test_grep "^    $(tail -n1 addrs-a)  " top
'

have_jq() { command -v jq >/dev/null 2>&1; }
have_jq || test_skip_next 'needs jq'
test_expect_success 'JSON: counts on diff lines and in the summaries; unknown keys ignored' '
	whyslow asm-diff --json --result result.json --function copy_ints "$A" "$B" >json &&
	test "$(jq -r ".a.counts_from" json)" = loop &&
	test "$(jq -r ".b.counts_from" json)" = memcpy &&
	first_b=$(head -n1 addrs-b) &&
	test "$(jq "[.functions[0].diff[].b | select(. != null) | select(.addr == \"0x$first_b\") | .counts.executions][0]" json)" = 1000 &&
	test "$(jq "[.functions[0].diff[].a | select(. != null) | .counts | keys] | flatten | unique" json | tr -d " \n")" = "[\"L1-dcache-misses\",\"executions\"]" &&
	test "$(jq ".functions[0].a.counts.executions > 0" json)" = true
'

test_expect_success 'counts for another binary only: a warning, and the plain listing' '
	cat >other.json <<-EOF &&
	{ "schema": "whyslow/1", "variants": [ { "name": "x", "hot_code": [
	  { "function": "f", "object": "/nonexistent/binary", "insns": [ { "addr": "0x10", "executions": 1 } ] } ] } ] }
	EOF
	whyslow asm-diff --result other.json --function copy_ints "$A" "$B" >out 2>err &&
	test_line_count = 1 err &&
	test_grep "warning: other.json has no per-instruction counts (hot_code) for" err &&
	test_grep -v "executions" out
'

test_expect_success 'two variants that ran the same binary: the first is used, and it says so' '
	cat >two.json <<-EOF &&
	{ "schema": "whyslow/1", "variants": [
	  { "name": "first", "hot_code": [ { "function": "copy_ints", "object": "$(realpath "$A")",
	    "insns": [ { "addr": "0x$(head -n1 addrs-a)", "executions": 7 } ] } ] },
	  { "name": "second", "hot_code": [ { "function": "copy_ints", "object": "$(realpath "$A")",
	    "insns": [ { "addr": "0x$(head -n1 addrs-a)", "executions": 9 } ] } ] } ] }
	EOF
	whyslow asm-diff --result two.json --function copy_ints "$A" "$B" >out 2>err &&
	test_grep "2 variants ran .*asm-copy-loop; annotating with the first, .first." err &&
	test_grep "^  *7  $(head -n1 addrs-a)  " out
'

test_expect_success 'one binary on both sides: A takes the first variant that ran it, B the second' '
	whyslow asm-diff --result two.json --function copy_ints "$A" "$A" >out 2>err &&
	test_grep -v "annotating with" err &&
	test_grep "A counts (.first.)" out &&
	test_grep "B counts (.second.)" out &&
	test_grep "^  *7  $(head -n1 addrs-a)  .*  9  $(head -n1 addrs-a)  " out
'

test_expect_success 'a stripped binary: its code by the name the function tables give it, annotated' '
	cp "$A" stripped-a && strip stripped-a &&
	start=$(nm "$A" | sed -n "s/^0*\([0-9a-f]*\) T copy_ints\$/\1/p") &&
	size=$(nm -S "$A" | sed -n "s/^[0-9a-f]* 0*\([0-9a-f]*\) T copy_ints\$/\1/p") &&
	cat >stripped.json <<-EOF &&
	{ "schema": "whyslow/1", "variants": [
	  { "name": "only", "hot_code": [ { "function": "[unknown] stripped-a+0x$start",
	    "object": "$PWD/stripped-a", "insns": [ { "addr": "0x$(head -n1 addrs-a)", "executions": 7 } ] } ] } ] }
	EOF
	whyslow asm-diff --result stripped.json --function "[unknown] stripped-a+0x$start" stripped-a stripped-a \
		>out 2>err &&
	# the frame is the function, to the byte
	test_grep "^  A: \[unknown\] stripped-a+0x$start at 0x$start, $((0x$size)) bytes" out &&
	test_grep "^  *7  $(head -n1 addrs-a)  " out &&
	test_grep "only .only. ran stripped-a: both sides show its counts" err &&
	# by its name it is not there, and without a name nothing is listed: the stripped line, exit 1
	test_expect_code 1 whyslow asm-diff --function copy_ints stripped-a stripped-a 2>err &&
	test_grep "stripped-a: no symbol table that names a function (a stripped binary); rebuild" err &&
	test_expect_code 1 whyslow asm-diff stripped-a "$A" 2>err &&
	test_grep "stripped-a: no symbol table that names a function" err
'

test_done
