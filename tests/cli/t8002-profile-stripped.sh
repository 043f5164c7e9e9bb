#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t8002-profile-stripped.sh - stripped objects give [unknown] rows plus a hint; debug files are followed.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq PERF_SW || test_skip_all 'software perf events cannot be opened here'
command -v strip >/dev/null 2>&1 && command -v objcopy >/dev/null 2>&1 ||
	test_skip_all 'binutils (strip, objcopy) is not installed'

D=$WS_PROFILE_DRIVER
E=$WS_PROFILE_EXAMPLES

test_expect_success 'a stripped binary gives [unknown] rows in its object, and the hint' '
	cp "$E/ratio" ratio-stripped && strip ratio-stripped &&
	"$D" -- "$PWD/ratio-stripped" -t 0.3 >out 2>err &&
	awk -F "	" -v obj="$PWD/ratio-stripped" "\$1 == \"fn\" && \$6 == \"[unknown]\" && \$7 == obj { s = \$2 }
		END { print s; exit !(s > 0.8) }" out &&
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
