#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t5002-markers-sim.sh - region markers under the wsim simulator: exact per-region instruction counts.
. "$WS_SRC/tests/cli/lib.sh"

M="$WS_BUILD/tests/marker"

if ! test_have_prereq SIM; then
	test_skip_all "the wsim tool is not built ($WS_BUILD/sim/wsim-amd64-linux is missing) or valgrind is not installed"
fi
case $(uname -m) in
x86_64 | aarch64) ;;
*) test_skip_all "tests/marker/loop.c has no loop of known instruction count for $(uname -m)" ;;
esac

# run_sim OUT PROG ARGS...: run PROG under the tool with the markers in sim mode; the tool writes OUT.
run_sim() {
	out=$1
	shift
	WHYSLOW_MARKERS=sim VALGRIND_LIB="$WS_BUILD/sim/vglib" \
		valgrind --tool=wsim --ws-out="$out" "$@"
}

# ---------------------------------------------------------------------------------------------------------
# sim_region_count FILE REGION METRIC: print the count of METRIC in REGION from the tool's --ws-out FILE,
# read through lib/sim/sim-output.c by tests/sim-dump ("region NAME COUNTER VALUE" lines, TAB-separated).
sim_region_count() {
	v=$("$WS_BUILD/tests/sim-dump" "$1" | awk -F '\t' -v r="$2" -v m="$3" '$1 == "region" && $2 == r && $3 == m { print $4; exit }')
	if test -z "$v"; then
		echo "sim_region_count: no $3 for region $2 in $1" >&2
		return 1
	fi
	echo "$v"
}

# check_counts OUT EXPECT: every "expect REGION METRIC N" line of the program holds within 0.1%.
check_counts() {
	while read -r _ region metric want; do
		got=$(sim_region_count "$1" "$region" "$metric") || return 1
		if ! awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w * 0.001) }'; then
			echo "$region $metric: got $got, expected $want within 0.1%" >&2
			return 1
		fi
	done <"$2"
}

test_expect_success 'nested regions report their loops within 0.1%' '
	run_sim nested.out "$M/loop" 1000000 2000000 500000 0 0 >expect 2>err &&
	test_grep "expect inner instructions 4000000" expect &&
	test_grep -v "^whyslow markers:" err &&
	grep -v "^expect thread" expect >expect-nested &&
	check_counts nested.out expect-nested
'

test_expect_success 'two threads: one region, counts summed, within 0.1%' '
	run_sim threads.out "$M/loop" 0 0 0 1500000 2 >expect 2>err &&
	test_grep -v "^whyslow markers:" err &&
	grep "^expect thread" expect >expect-threads &&
	check_counts threads.out expect-threads
'

test_expect_success 'both at once' '
	run_sim both.out "$M/loop" 300000 700000 200000 1000000 2 >expect 2>err &&
	test_grep -v "^whyslow markers:" err &&
	check_counts both.out expect
'

test_done
