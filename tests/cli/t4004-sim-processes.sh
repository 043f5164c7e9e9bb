#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t4004-sim-processes.sh - threads share one simulated machine; forked and exec'd processes write their own files.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq SIM || test_skip_all 'wsim is not built (it needs the valgrind package)'

M="$WS_BUILD/examples/micro"
# As whyslow runs it (--fair-sched=try): without it Valgrind may run one thread to its end before the next
# starts, and a threaded program's counts then depend on which (true sharing: 1 coherence miss or 126,685).
wsim() { VALGRIND_LIB="$WS_BUILD/sim/vglib" valgrind -q --tool=wsim --fair-sched=try "$@"; }
dump() { "$WS_BUILD/tests/sim-dump" "$@"; }
# FILE KEY: the second field of the KEY record; FILE KEY NAME: the third field of the KEY NAME record.
get() {
	awk -F'\t' -v k="$2" -v n="${3-}" '$1 == k && (n == "" ? 1 : $2 == n) { print (n == "" ? $2 : $3); f = 1 }
		END { exit !f }' "$1"
}
region() { awk -F'\t' -v r="$2" -v n="$3" '$1 == "region" && $2 == r && $3 == n { print $4; f = 1 } END { exit !f }' "$1"; }

test_expect_success 'two threads: both counted, each in its own activation of the region' '
	wsim --ws-out=t.out "$M/threads" 50000 &&
	dump t.out >d &&
	test "$(get d threads)" = 3 &&
	test "$(region d worker entries)" = 2 &&
	ins=$(region d worker instructions) &&
	loads=$(region d worker L1-dcache-loads) &&
	stores=$(region d worker L1-dcache-stores) &&
	branches=$(region d worker conditional-branches) &&
	test "$loads" -ge 100000 && test "$loads" -lt 101000 &&
	test "$stores" -ge 100000 && test "$stores" -lt 101000 &&
	test "$branches" -ge 100000 && test "$branches" -lt 101000 &&
	test "$ins" -ge 300000 &&
	test "$ins" -lt "$(get d total instructions)"
'

test_expect_success 'a thread started after another has ended is a thread of its own, on a core of its own' '
	wsim --ws-out=seq.out "$M/threads" 50000 seq &&
	dump seq.out >s &&
	test "$(get s threads)" = 3 &&
	test "$(region s worker entries)" = 2 &&
	loads=$(region s worker L1-dcache-loads) &&
	test "$loads" -ge 100000 && test "$loads" -lt 101000
'

# The child's two workers must take turns on the cell for it to be reported as contended, and a thread's
# turn is a time slice of 100,000 blocks (VEX unrolls the loop: about four iterations a block). At 20,000
# iterations the first worker could end within its first slice before the second thread, started as a host
# thread, had even queued for its turn (it happened once in make test-sanitize, on a loaded machine). At
# 1,600,000 the child takes 8 slices (--stats=yes: 8 major scheduler events).
test_expect_success 'a child forked by a thread other than the first numbers its threads from 1' '
	mkdir tf &&
	wsim --ws-out=tf/out.%p "$M/threads" 1600000 fork &&
	for f in tf/out.*; do dump "$f" >"$f.d" || return 1; done &&
	child=$(grep -l "^region	worker	entries	2$" tf/*.d) &&
	test "$(get "$child" threads)" = 2 &&
	# The two threads write one cell: the contended line names each by its number (the forking thread
	# was the parent'"'"'s second, and the child once called both of them 2).
	awk -F"\t" "\$1 == \"line-core\" { print \$3 }" "${child%.d}" | sort -u >tids &&
	printf "1\n2\n" >expect &&
	test_cmp expect tids
'

test_expect_success 'a forked child counts from the fork, in its own file' '
	mkdir fork &&
	wsim --ws-out=fork/out.%p "$M/forkexec" 100000 - &&
	ls fork >files &&
	test_line_count = 2 files &&
	for f in fork/out.*; do dump "$f" >"$f.d" || return 1; done &&
	parent=$(grep -l "^region	parent	entries	1$" fork/*.d) &&
	child=$(grep -l "^region	child	entries	1$" fork/*.d) &&
	test "$parent" != "$child" &&
	test "$(region "$child" parent entries)" = 0 &&
	test "$(region "$child" parent instructions)" = 0 &&
	p=$(get "$parent" total instructions) &&
	c=$(get "$child" total instructions) &&
	test "$(region "$parent" parent instructions)" -ge 500000 &&
	test "$c" -lt 200000 &&
	test "$c" -ge "$(region "$child" child instructions)" &&
	test "$(grep "^ppid" "${child%.d}" | cut -f2)" = "$(grep "^pid" "${parent%.d}" | cut -f2)"
'

test_expect_success 'fork and exec with --trace-children=yes: each image writes a file, and they add up' '
	mkdir exec &&
	wsim --trace-children=yes --ws-out=exec/out.%p "$M/forkexec" 10000 "$M/branch" 20000 random &&
	ls exec >files &&
	test_line_count = 2 files &&
	for f in exec/out.*; do dump "$f" >"$f.d" || return 1; done &&
	parent=$(grep -l "^region	parent	entries	1$" exec/*.d) &&
	child=$(grep -l "^region	branch	entries	1$" exec/*.d) &&
	grep -q "^command	$M/branch	20000	random$" "$child" &&
	dump exec/out.*[0-9] >sum &&
	test "$(get sum processes)" = 2 &&
	test "$(get sum total instructions)" = \
		$(( $(get "$parent" total instructions) + $(get "$child" total instructions) ))
'

test_done
