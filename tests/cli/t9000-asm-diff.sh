#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t9000-asm-diff.sh - asm-diff on fixture builds: counts as objdump sees them, clones, calls gained, noise.
. "$WS_SRC/tests/cli/lib.sh"

fx="$WS_BUILD/tests"
O0="$fx/asm-kernels-O0"
O2="$fx/asm-kernels-O2"

have_objdump() { command -v objdump >/dev/null 2>&1; }
have_jq() { command -v jq >/dev/null 2>&1; }

# Instructions objdump -d shows within [start, start + size): lines "  addr:<TAB>bytes<TAB>insn".
# --insn-width=16 keeps long instructions on one line, so that every line is one instruction.
objdump_count() {
	objdump -d --insn-width=16 --start-address="$2" \
		--stop-address="$(printf '0x%x' $(($2 + $3)))" "$1" | grep -cE '^ +[0-9a-f]+:	'
}

# Every function of a binary, as asm-diff reports it (symbol, address, bytes, instructions), checked
# against objdump over the symbol's extent.
check_counts() {
	whyslow asm-diff --json "$1" "$1" >json &&
	jq -r '.functions[].a | "\(.symbol) \(.addr) \(.bytes) \(.instructions)"' json >funcs &&
	test_line_count -gt 3 funcs &&
	while read -r sym addr bytes n; do
		want=$(objdump_count "$1" "$addr" "$bytes")
		if [ "$want" != "$n" ]; then
			echo "$1: $sym at $addr ($bytes bytes): asm-diff counts $n instructions, objdump $want"
			return 1
		fi
	done <funcs
}

have_objdump && have_jq || test_skip_next 'needs objdump and jq'
test_expect_success 'instruction counts per function equal objdump -d over each symbol extent (-O0 and -O2)' '
	check_counts "$O0" &&
	check_counts "$O2" &&
	grep -q "^sum_array " funcs
'

test_expect_success 'without --function: the changed functions, by size of change, and clones paired' '
	whyslow asm-diff "$O0" "$O2" >out &&
	test_grep "^function .*insns A.*insns B.*changed" out &&
	test_grep "^sum_array " out &&
	test_grep "identical after normalisation" out &&
	# sorted by the "changed" column, largest first, among the functions in both binaries
	awk "/^function /{on=1; next} on && NF==0 {exit} on && !/only in/ {print \$7}" out >changed &&
	sort -rn changed >sorted &&
	test_cmp sorted changed
'

test_expect_success '--function NAME lists the function and the clones -O2 made of it' '
	nm "$O2" >syms &&
	for f in scale norm_x checked_sum; do
		whyslow asm-diff --function $f "$O0" "$O2" >out || return 1
		for clone in $(sed -n "s/^[0-9a-f]* [tT] \\($f\\.[a-z_.0-9]*\\)\$/\\1/p" syms); do
			test_grep "B: $clone at 0x" out || return 1
		done
		test_grep "A: $f at 0x" out || return 1
	done &&
	grep -q " scale\\.constprop\\.0\$" syms &&
	grep -q " checked_sum\\.cold\$" syms
'

test_expect_success 'a function'"'"'s split-off .cold part comes after its body, whatever their addresses' '
	nm "$O2" >syms &&
	body=$(sed -n "s/^\([0-9a-f]*\) [tT] checked_sum\$/\1/p" syms) &&
	cold=$(sed -n "s/^\([0-9a-f]*\) [tT] checked_sum\.cold\$/\1/p" syms) &&
	# .text.unlikely comes first: the cold part has the lower address, and was shown first
	test $((0x$cold < 0x$body)) = 1 &&
	whyslow asm-diff --function checked_sum "$O2" "$O2" >out &&
	head -1 out >first &&
	test_grep "^checked_sum\$" first &&
	test_grep "^checked_sum\.cold\$" out
'

test_expect_success 'a static function is found (local symbols count)' '
	nm "$O0" | grep -q " t scale\$" &&
	whyslow asm-diff --function scale "$O0" "$O0" >out &&
	test_grep "A: scale at 0x.*(local)" out
'

test_expect_success 'summary: bytes and instructions with the difference alongside' '
	whyslow asm-diff --function sum_array "$O0" "$O2" >out &&
	test_grep "^  bytes  *[0-9][0-9]*  *[0-9][0-9]*  *[-+][0-9]" out &&
	test_grep "^  instructions  *[0-9][0-9]*  *[0-9][0-9]*  *[-+][0-9]" out &&
	test_grep "^  loads " out &&
	test_grep "^  frame A  *8 bytes = 1 push x 8 + sub rsp 0; rbp is the frame pointer" out
'

test_expect_success 'copy_ints gains a call of memcpy (text)' '
	whyslow asm-diff --function copy_ints "$fx/asm-copy-loop" "$fx/asm-copy-memcpy" >out &&
	test_grep "^  calls A  *-\$" out &&
	test_grep "^  calls B  *memcpy\$" out &&
	test_grep "^  calls gained: *memcpy\$" out &&
	test_grep "call 0x[0-9a-f]* <memcpy@plt>" out &&
	test_grep "^  call sites  *0  *1  *+1" out
'

have_jq || test_skip_next 'needs jq'
test_expect_success 'copy_ints gains a call of memcpy (JSON), and the reverse loses it' '
	whyslow asm-diff --json --function copy_ints "$fx/asm-copy-loop" "$fx/asm-copy-memcpy" >json &&
	test "$(jq -r ".functions[0].name" json)" = copy_ints &&
	test "$(jq -c ".functions[0].a.calls" json)" = "[]" &&
	test "$(jq -c ".functions[0].b.calls" json)" = "[\"memcpy\"]" &&
	test "$(jq -c ".functions[0].calls_gained" json)" = "[\"memcpy\"]" &&
	test "$(jq ".functions[0].diff | length > 0" json)" = true &&
	test "$(jq -r "[.functions[0].diff[].op] | unique | join(\",\")" json)" != equal &&
	whyslow asm-diff --json --function copy_ints "$fx/asm-copy-memcpy" "$fx/asm-copy-loop" >json &&
	test "$(jq -c ".functions[0].calls_lost" json)" = "[\"memcpy\"]"
'

have_jq || test_skip_next 'needs jq'
test_expect_success 'JSON: a function in one binary only has null on the other side' '
	whyslow asm-diff --json --function pad_before "$fx/asm-norm-a" "$fx/asm-norm-b" >json &&
	test "$(jq ".functions[0].a" json)" = null &&
	test "$(jq -r ".functions[0].b.symbol" json)" = pad_before &&
	test "$(jq "[.functions[0].diff[].a] | map(select(. != null)) | length" json)" = 0
'

have_objdump || test_skip_next 'needs objdump'
test_expect_success 'other registers at another address diff as equal after normalisation' '
	# The raw code really differs: addresses, registers, encodings.
	objdump -d --no-show-raw-insn "$fx/asm-norm-a" | sed -n "/<mix>:/,/^\$/p" | cut -f2- >raw-a &&
	objdump -d --no-show-raw-insn "$fx/asm-norm-b" | sed -n "/<mix>:/,/^\$/p" | cut -f2- >raw-b &&
	test_line_count -gt 10 raw-a &&
	! cmp -s raw-a raw-b &&
	test "$(nm "$fx/asm-norm-a" | sed -n "s/ T mix\$//p")" != "$(nm "$fx/asm-norm-b" | sed -n "s/ T mix\$//p")" &&
	whyslow asm-diff --function mix "$fx/asm-norm-a" "$fx/asm-norm-b" >out &&
	test_grep "^  0 lines differ after normalisation" out &&
	test_grep -v "^  [0-9a-f]*  .*  [|<>] " out
'

test_expect_success 'without --function, the re-registered mix() is not listed as changed' '
	whyslow asm-diff "$fx/asm-norm-a" "$fx/asm-norm-b" >out &&
	test_grep -v "^mix " out &&
	test_grep "^pad_before .*(only in B)" out
'

test_expect_success 'the same binary twice: nothing changed' '
	whyslow asm-diff "$O2" "$O2" >out &&
	test_grep "^0 changed, 0 only in A, 0 only in B" out
'

test_expect_success 'aliases: listed once under the public name, found under either' '
	nm "$O2" | grep -q " T __sum_array_impl\$" &&
	whyslow asm-diff "$O0" "$O2" >out &&
	test_grep "^sum_array " out &&
	test_grep -v "^__sum_array_impl " out &&
	whyslow asm-diff --function __sum_array_impl "$O0" "$O2" >out &&
	test_grep "^  A: __sum_array_impl at" out &&
	test_grep "^  B: __sum_array_impl at" out
'

test_expect_success 'a clone given by its full name' '
	whyslow asm-diff --function scale.constprop.0 "$O0" "$O2" >out &&
	test_grep "^  A: scale at" out &&
	test_grep "^  B: scale.constprop.0 at" out
'

# GCC clones the long-named function in the first build only; another compiler may not.
LA="$fx/asm-longclone-a"
LB="$fx/asm-longclone-b"
nm "$LA" 2>/dev/null | grep -q " accumulate_weighted_samples_for_each_channel_of_the_input_block\.constprop\.0$" ||
	test_skip_next "this compiler does not clone accumulate_weighted_samples_for_each_channel_of_the_input_block"
test_expect_success 'list mode: a long clone name keeps its start and its suffix; the columns stay aligned' '
	whyslow asm-diff "$LA" "$LB" >out &&
	# 63 columns, past the 60 of the name column: shortened in the middle, its start and end kept
	test_grep "^accumulate_weighted_samples_f…ach_channel_of_the_input_block  .*  accumulate_weighted_sam…annel_of_the_input_block.constprop.0 -> accumulate_weighted_samples_f…ach_channel_of_the_input_block$" out &&
	python3 - out <<-\EOF
	import re, sys
	lines = open(sys.argv[1]).read().split("\n")
	head = [l for l in lines if l.startswith("function ")][0]
	rows = [l for l in lines if re.match(r"^\S+ +[0-9]+ +[0-9]+ +[-+][0-9]+ ", l)]
	assert len(rows) == 2, rows
	# "insns A" ends where each row'"'"'s first count ends
	end = head.index("insns A") + len("insns A")
	# the name column is as wide as its widest name, 60 here, not 40
	assert head.index("insns A") > 60, head
	assert all(re.match(r"^\S+ +[0-9]+", l).end() == end for l in rows), lines
	EOF
'

test_done
