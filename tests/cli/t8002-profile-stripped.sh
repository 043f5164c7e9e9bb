#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t8002-profile-stripped.sh - stripped objects give [unknown] rows plus a hint; debug files are followed.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq PERF_SW || test_skip_all 'software perf events cannot be opened here'
command -v strip >/dev/null 2>&1 && command -v objcopy >/dev/null 2>&1 ||
	test_skip_all 'binutils (strip, objcopy) is not installed'

D=$WS_PROFILE_DRIVER
E=$WS_PROFILE_EXAMPLES

test_expect_success 'a stripped binary: a row per function, by where its frame starts, and the hint' '
	cp "$E/ratio" ratio-stripped && strip ratio-stripped &&
	"$D" -- "$PWD/ratio-stripped" -t 0.3 >out 2>err &&
	nm "$E/ratio" >syms &&
	python3 - out syms "$PWD/ratio-stripped" <<-\EOF &&
	import sys
	at = {"[unknown]+0x%x" % int(l.split()[0], 16): l.split()[2] for l in open(sys.argv[2]) if len(l.split()) == 3}
	share = {}
	for l in open(sys.argv[1]):
	    f = l.rstrip("\n").split("\t")
	    if f[0] == "fn" and f[6] == sys.argv[3]:
	        share[at.get(f[5], f[5])] = share.get(at.get(f[5], f[5]), 0) + float(f[1])
	# the two work functions, told apart (3:1 by design), named by their start addresses
	w3, w1 = share.get("ratio_work3", 0), share.get("ratio_work1", 0)
	assert w3 + w1 > 0.8 and w3 > 2 * w1, share
	EOF
	test_grep -v "ratio_work" out &&
	test_grep "ratio-stripped has no symbol table (stripped).*\[unknown\].*-g" err
'

test_expect_success 'a binary stripped with a .gnu_debuglink gets its names from the debug file' '
	cp "$E/ratio" ratio-split &&
	objcopy --only-keep-debug ratio-split ratio-split.debug &&
	objcopy --strip-all ratio-split &&
	objcopy --add-gnu-debuglink=ratio-split.debug ratio-split &&
	"$D" -- "$PWD/ratio-split" -t 0.3 >out2 2>err2 &&
	test_grep "^fn	.*	ratio_work3	$PWD/ratio-split$" out2 &&
	test_grep "^line	ratio_work3	.*ratio\.c:" out2 &&
	test_grep -v "no symbol table" err2
'

test_done
