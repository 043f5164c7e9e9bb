#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t4009-sim-tier.sh - code translated first without inline hit tests, then with them (--ws-tier), counts the same.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq SIM || test_skip_all 'wsim is not built (it needs the valgrind package)'

M="$WS_BUILD/examples/micro"
wsim() { VALGRIND_LIB="$WS_BUILD/sim/vglib" valgrind -q --tool=wsim --fair-sched=try --ws-async=no "$@"; }
# The output files without the lines that name processes, which differ from run to run.
counts() { cat "$@" | grep -v '^p*pid	' | sort; }

# same_counts NAME TOOL-OPTIONS -- PROGRAM...: the counts at --ws-tier=0 (hit tests from the start), at 3
# (nearly every block made twice, many while other blocks run) and at 10^9 (never made again) are one.
same_counts() {
	name=$1
	shift
	opts=
	while test "$1" != --; do
		opts="$opts $1"
		shift
	done
	shift
	for t in 0 3 1000000000; do
		mkdir "$name.$t" &&
		# shellcheck disable=SC2086 # the options are words
		wsim $opts --ws-tier=$t --ws-out="$name.$t/out.%p" "$@" >/dev/null || return 1
	done
	counts "$name.0"/out.* >"$name.want" &&
	test -s "$name.want" &&
	counts "$name.3"/out.* >"$name.got3" &&
	counts "$name.1000000000"/out.* >"$name.gotmax" &&
	test_cmp "$name.want" "$name.got3" &&
	test_cmp "$name.want" "$name.gotmax"
}

test_expect_success 'a branchy, cache-missing program: the same counts at every tier' '
	same_counts mix -- "$M/workload" 100000
'

test_expect_success 'and it did make blocks again, as -v says' '
	VALGRIND_LIB="$WS_BUILD/sim/vglib" valgrind -v --tool=wsim --ws-tier=3 --ws-out=/dev/null \
		"$M/workload" 100000 2>err >/dev/null &&
	n=$(sed -n "s/.*wsim: \([0-9]*\) blocks ran 3 times and were translated again.*/\1/p" err) &&
	test "$n" -gt 50 &&
	VALGRIND_LIB="$WS_BUILD/sim/vglib" valgrind -v --tool=wsim --ws-tier=0 --ws-out=/dev/null \
		"$M/workload" 1000 2>err >/dev/null &&
	! grep "translated again" err
'

test_expect_success 'prefetches, the cachegrind preset and call tracking: the same counts' '
	same_counts stride -- "$M/stride" 2M 64 2 &&
	same_counts cg --ws-preset=cachegrind -- "$M/workload" 50000 &&
	same_counts calls --ws-callers=yes -- "$M/workload" 50000
'

# A run that a fault ends part-way through a block's first segment is counted the same, cold or hot: the
# function faults on every 7th call, so its block is hot at tier 0 and 3 and cold at 10^9 when it faults.
test_expect_success 'a handled SIGSEGV in a block: the same counts at every tier' '
	same_counts faults -- "$WS_BUILD/tests/faults" 3000 &&
	same_counts faults-cg --ws-preset=cachegrind -- "$WS_BUILD/tests/faults" 3000 &&
	same_counts faults-calls --ws-callers=yes -- "$WS_BUILD/tests/faults" 3000
'

test_expect_success 'a fork and an exec: the same counts, in each process' '
	same_counts fork -- "$M/forkexec" 300000 -
'

# Where threads wait for each other, which runs when depends on real time (a thread woken from a futex
# joins Valgrind's queue when its system call returns), and time is what tiers change: so the false-sharing
# loop's own work is compared exactly, and its coherence misses must be found at both tiers (at least 1000,
# as t4107 asks of the same run: with fewer iterations, one thread can end before the other starts).
work() {
	awk -F'\t' 'BEGIN { OFS = "\t" } $1 == "counters" { for (i = 2; i <= NF; i++) c[$i] = i + 4 }
		$1 == "function" && $3 == "w" { print $c["instructions"], $c["L1-dcache-loads"],
			$c["L1-dcache-stores"], $c["conditional-branches"] }
		$1 == "total" { print "coherence", ($(c["coherence-misses"] - 4) >= 1000) }' "$1"
}
test_expect_success 'threads on cores of their own: the same work, and the coherence misses found' '
	wsim --ws-tier=0 --ws-out=sh.0 "$WS_BUILD/examples/threads/sharing" false 4000000 >/dev/null &&
	wsim --ws-tier=3 --ws-out=sh.3 "$WS_BUILD/examples/threads/sharing" false 4000000 >/dev/null &&
	work sh.0 >want &&
	work sh.3 >got &&
	test_line_count = 2 want &&
	grep "^coherence	1$" want &&
	test_cmp want got
'

test_expect_success 'regions, and simulating only inside them: the same counts' '
	same_counts regions -- "$M/regions" &&
	same_counts scope --ws-scope=regions -- "$M/scope" 200000 3
'

test_expect_success '--ws-tier takes a count, 0 or more' '
	test_expect_code 1 wsim --ws-tier=-1 --ws-out=/dev/null /bin/true 2>err &&
	grep "ws-tier" err >/dev/null
'

test_done
