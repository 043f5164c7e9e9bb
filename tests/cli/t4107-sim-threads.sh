#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t4107-sim-threads.sh - a core per thread: coherence misses for false and true sharing, the contended line named, one thread unchanged.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq SIM || test_skip_all 'wsim is not built (it needs the valgrind package)'

T="$WS_BUILD/examples/threads"
M="$WS_BUILD/examples/micro"
# As whyslow runs it (--fair-sched=try): without it Valgrind may run one thread to its end before the next
# starts, and a threaded program's counts then depend on which (true sharing: 1 coherence miss or 126,685).
wsim() { VALGRIND_LIB="$WS_BUILD/sim/vglib" valgrind -q --tool=wsim --fair-sched=try "$@"; }
# FILE COUNTER: the total of that counter (by the counters line's column).
total() {
	awk -F'\t' -v m="$2" '$1 == "counters" { for (i = 2; i <= NF; i++) if ($i == m) c = i }
		$1 == "total" && c { print $c; f = 1 } END { exit !f }' "$1"
}
# The rows without the coherence-misses column (the last one, checked) and what differs between two runs.
rows() {
	awk -F'\t' 'BEGIN { OFS = "\t" } $1 == "counters" { c = ($NF == "coherence-misses") }
		$1 == "config" || $1 == "pid" || $1 == "ppid" || $1 == "counters" { next }
		c && ($1 == "total" || $1 == "function" || $1 == "region" || $1 == "node") { NF = NF - 1 }
		{ print }' "$1"
}
N=4000000

test_expect_success 'false sharing: coherence misses at least 100 times those of private counters' '
	wsim --ws-out=private.out "$T/sharing" private $N >out.p &&
	wsim --ws-out=false.out "$T/sharing" false $N >out.f &&
	test_cmp out.p out.f &&
	p=$(total private.out coherence-misses) &&
	f=$(total false.out coherence-misses) &&
	echo "private $p false $f" &&
	test "$f" -ge 1000 &&
	test "$f" -ge $((100 * (p > 0 ? p : 1)))
'

test_expect_success 'the contention report names shared, its two byte ranges, one per thread' '
	awk -F"\t" "\$1 == \"line\" { print; exit }" false.out >line &&
	test_grep "	shared	" line &&
	awk -F"\t" "/^line\t/ { n++ } n == 1 && \$1 == \"line-core\" && \$8 > 0 { print \$6 }" false.out | sort >ranges &&
	printf "0-7\n8-15\n" >expect &&
	test_cmp expect ranges
'

test_expect_success 'true sharing: both threads write the same bytes' '
	wsim --ws-out=true.out "$T/sharing" true $N >out.t &&
	test "$(total true.out coherence-misses)" -ge 1000 &&
	awk -F"\t" "\$1 == \"line\" { print; exit }" true.out >line &&
	test_grep "	shared	" line &&
	awk -F"\t" "/^line\t/ { n++ } n == 1 && \$1 == \"line-core\" && \$8 > 0 { print \$6 }" true.out | sort -u >ranges &&
	echo 0-7 >expect &&
	test_cmp expect ranges
'

# Four threads count in adjacent 8-byte slots of one line on two cores, so two threads share each core
# (round-robin); main only reads the slots at the end.
test_expect_success 'more threads than cores: each thread'"'"'s own byte spans, not its core'"'"'s' '
	wsim --ws-cores=2 --ws-out=slots.out "$WS_BUILD/tests/slots" 1000000 >/dev/null &&
	awk -F"\t" "/^line\t/ { n++; s = \$3 } n && s == \"slots\" && \$1 == \"line-core\" { print \$3, \$7 }" slots.out |
		sort >spans &&
	cat spans &&
	# Each writer its own slot (a thread that finished before the line was watched may be missing) ...
	awk "\$2 != \"-\"" spans >written &&
	test -s written &&
	awk "!(\$2 == \"0-7\" || \$2 == \"8-15\" || \$2 == \"16-23\" || \$2 == \"24-31\") { exit 1 }" written &&
	test "$(cut -d" " -f1 written | sort -u | wc -l)" = "$(wc -l <written)" &&
	# ... on both cores, which each ran more than one thread; and main (thread 1) wrote none of them.
	test "$(awk -F"\t" "/^line\t/ { n++; s = \$3 } n && s == \"slots\" && \$1 == \"line-core\" { print \$2 }" slots.out | sort -u | wc -l)" = 2 &&
	! grep "^1 [0-9]" spans
'

test_expect_success 'two threads: a core each, with per-core counts that add up to the total' '
	test "$(awk -F"\t" "\$1 == \"core\"" false.out | wc -l)" -ge 3 &&
	awk -F"\t" "\$1 == \"core\" { s += \$4 } \$1 == \"total\" { t = \$2 } END { exit !(s == t) }" false.out
'

test_expect_success 'one thread: the same counts with one core and with the preset'"'"'s sixteen' '
	wsim --ws-cores=1 --ws-out=one.out "$M/workload" 200000 >/dev/null &&
	wsim --ws-out=sixteen.out "$M/workload" 200000 >/dev/null &&
	! grep -q "^counters.*coherence-misses" one.out &&
	test "$(total sixteen.out coherence-misses)" = 0 &&
	rows one.out >one.rows &&
	rows sixteen.out >sixteen.rows &&
	test_cmp one.rows sixteen.rows
'

test_expect_success 'one core: every thread on one hierarchy, no coherence' '
	wsim --ws-cores=1 --ws-out=onecore.out "$T/sharing" false 200000 >/dev/null &&
	! grep -q "^line	" onecore.out &&
	! grep -q "^core	" onecore.out
'

test_expect_success 'the cachegrind preset has one core' '
	test_expect_code 1 wsim --ws-preset=cachegrind --ws-cores=2 --ws-out=x.out "$M/ping" 2>err &&
	test_grep "models one core" err
'

test_expect_success 'a line main wrote before its thread started, then both count in it: false sharing seen' '
	wsim --ws-out=early.out "$WS_BUILD/tests/early" 1000000 &&
	e=$(total early.out coherence-misses) &&
	echo "coherence-misses $e" &&
	test "$e" -ge 10000 &&
	awk -F"\t" "\$1 == \"line\" && \$3 == \"slots\"" early.out >lines &&
	test_line_count = 1 lines
'

test_done
