#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t5000-markers-perf.sh - region markers under the perf backend (software events): nesting, threads, fork.
. "$WS_SRC/tests/cli/lib.sh"

M="$WS_BUILD/tests/marker"

# Drive the marked program as whyslow does (tests/marker/regions-run.c: lib/regions/regions.c builds the environment
# and parses the files) and keep the summary in DIR.sum: "region=NAME entries=N wall=S ... task-clock=V ...".
# User-space events (:u), so that an unprivileged run under perf_event_paranoid=2 can open them too.
run_marked() {
	dir=$1
	shift
	"$M/regions-run" -e task-clock:u,page-faults:u -d "$dir" -o "$dir.sum" -- "$M/marked" "$@"
}

# field SUM REGION KEY: one value from a summary.
field() {
	awk -v r="region=$2" -v k="$3" '$1 == r {
		for (i = 2; i <= NF; i++) { n = index($i, "="); if (substr($i, 1, n - 1) == k) print substr($i, n + 1) }
	}' "$1"
}

# A summary's first line, "processes=P threads=T failed=F".
header() { head -n 1 "$1"; }

# is NAME A OP B: a numeric comparison, saying what failed; an empty value (no such field) fails.
is() {
	case $3 in
	'<=' | '<' | '==' | '>' | '>=') ;;
	*) echo "is: unknown operator $3" >&2; return 1 ;;
	esac
	if test -z "$2" || test -z "$4"; then
		echo "$1: a value is missing ('$2' $3 '$4')" >&2
		return 1
	fi
	if ! awk -v a="$2" -v b="$4" -v op="$3" 'BEGIN {
		a += 0; b += 0
		exit !((op == "<=" && a <= b) || (op == "<" && a < b) || (op == "==" && a == b) || (op == ">" && a > b) || (op == ">=" && a >= b))
	}'; then
		echo "$1: expected $2 $3 $4" >&2
		return 1
	fi
}

# within SUM INNER OUTER: every metric of INNER is at most OUTER's.
within() {
	for k in wall task-clock page-faults; do
		is "$2 $k <= $3 $k" "$(field "$1" "$2" $k)" '<=' "$(field "$1" "$3" $k)" || return 1
	done
}

if ! test_have_prereq PERF_SW; then
	test_skip_all 'software perf events (task-clock) cannot be opened here'
fi

test_expect_success 'one thread: entries counted, inner within outer within main' '
	run_marked one -n 5 >out 2>err &&
	"$M/marked-disabled" -n 5 >expect &&
	test_cmp expect out &&
	test_line_count = 0 err &&
	test "$(header one.sum)" = "processes=1 threads=1 failed=0" &&
	is "outer entries" "$(field one.sum outer entries)" == 5 &&
	is "inner entries" "$(field one.sum inner entries)" == 5 &&
	is "main entries" "$(field one.sum main entries)" == 1 &&
	is "outer unmatched" "$(field one.sum outer unmatched)" == 0 &&
	within one.sum inner outer &&
	within one.sum outer main
'

test_expect_success 'one thread: task-clock and page-faults are counted and fit the wall time' '
	is "outer task-clock" "$(field one.sum outer task-clock)" ">" 0 &&
	is "inner page-faults" "$(field one.sum inner page-faults)" ">" 0 &&
	wall=$(field one.sum outer wall) &&
	is "outer task-clock <= wall" "$(field one.sum outer task-clock)" "<=" "$(awk -v w="$wall" "BEGIN { print w * 1e9 * 1.01 + 100000 }")" &&
	is "outer running == enabled" "$(field one.sum outer task-clock.running)" "==" "$(field one.sum outer task-clock.enabled)" &&
	is "outer running > 0" "$(field one.sum outer task-clock.running)" ">" 0
'

test_expect_success 'every event of the group counts from the start, whichever leads' '
	# A sibling joined to a leader that already counts misses everything until the next context
	# switch (it read 0 in about one run in four): the group must be enabled once complete. The
	# first "inner" touches 64 fresh pages, so "main" takes at least that many faults.
	for i in 1 2 3 4 5; do
		for ev in task-clock:u,page-faults:u page-faults:u,task-clock:u; do
			rm -rf order &&
			"$M/regions-run" -e $ev -d order -o order.sum -- "$M/marked" -n 2 >out &&
			is "main page-faults ($ev)" "$(field order.sum main page-faults)" ">=" 64 &&
			is "main task-clock ($ev)" "$(field order.sum main task-clock)" ">" 1000000 || return 1
		done
	done
'

test_expect_success 'one process writes one file, published under its pid, no temporary left' '
	ls -a one >files &&
	grep -c "^regions\.[0-9][0-9]*$" files >n &&
	echo 1 >one-file &&
	test_cmp one-file n &&
	test_grep -v "tmp" files
'

test_expect_success 'three threads: the handle form and the named form merge by name' '
	run_marked threads -n 4 -t 2 >out 2>err &&
	test_line_count = 0 err &&
	test "$(header threads.sum)" = "processes=1 threads=3 failed=0" &&
	is "outer entries" "$(field threads.sum outer entries)" == 12 &&
	is "inner entries" "$(field threads.sum inner entries)" == 12 &&
	is "main entries" "$(field threads.sum main entries)" == 1 &&
	within threads.sum inner outer
'

test_expect_success 'recursion: a region re-entered while active counts once' '
	run_marked rec -n 1 -r >out 2>err &&
	is "rec entries" "$(field rec.sum rec entries)" == 3 &&
	is "rec unmatched" "$(field rec.sum rec unmatched)" == 0 &&
	within rec.sum rec main
'

test_expect_success 'a fork child writes its own file, and the run sums both' '
	run_marked fork -n 3 -f >out 2>err &&
	test_line_count = 0 err &&
	test "$(ls fork | grep -c "^regions\.[0-9]")" = 2 &&
	test "$(header fork.sum)" = "processes=2 threads=2 failed=0" &&
	is "child entries" "$(field fork.sum child entries)" == 1 &&
	is "outer entries" "$(field fork.sum outer entries)" == 6 &&
	within fork.sum outer main &&
	within fork.sum child main
'

test_expect_success 'the child counts the regions open at the fork from the fork on' '
	# "main" is open when the program forks: each process ends it once, so it has 2 entries and
	# the child share is not counted twice (the parent waits, it does not spin).
	is "main entries" "$(field fork.sum main entries)" == 2 &&
	is "main unmatched" "$(field fork.sum main unmatched)" == 0
'

test_expect_success 'an end without a begin and a region left open are unmatched, not counted' '
	run_marked unmatched -n 1 -u >out 2>err &&
	test_line_count = 0 err &&
	is "stray entries" "$(field unmatched.sum stray entries)" == 0 &&
	is "stray unmatched" "$(field unmatched.sum stray unmatched)" == 1 &&
	is "open entries" "$(field unmatched.sum open entries)" == 0 &&
	is "open unmatched" "$(field unmatched.sum open unmatched)" == 1 &&
	is "open task-clock" "$(field unmatched.sum open task-clock)" == 0
'

test_expect_success 'a name longer than 4096 bytes: one line, that region alone is not counted' '
	run_marked long -n 2 -l >out 2>err &&
	"$M/marked-disabled" -n 2 -l >expect &&
	test_cmp expect out &&
	test_line_count = 1 err &&
	test_grep "^whyslow markers: a region name is empty or longer than 4096 bytes" err &&
	is "outer entries" "$(field long.sum outer entries)" == 2 &&
	test_grep "^error=a region name is empty" long.sum &&
	test "$(grep -c "^region=" long.sum)" = 3
'

test_expect_success 'the shared library counts the same way' '
	"$M/regions-run" -e task-clock:u -d shared -o shared.sum -- "$M/marked-shared" -n 2 -t 1 >out 2>err &&
	test_line_count = 0 err &&
	is "outer entries" "$(field shared.sum outer entries)" == 4
'

test_expect_success 'near the file descriptor limit: threads may go uncounted, the program is unaffected' '
	(ulimit -n 24 && run_marked fdlimit -n 3 -t 16 >out 2>err) &&
	"$M/marked-disabled" -n 3 -t 16 >expect &&
	test_cmp expect out &&
	test_line_count -le 1 err &&
	test_grep "threads=17 " fdlimit.sum &&
	failed=$(sed -n "1s/.*failed=//p" fdlimit.sum) &&
	is "outer entries" "$(field fdlimit.sum outer entries)" == $(( (17 - failed) * 3 ))
'

# Failures: one line on stderr, the program's own output and status unchanged, no region file.
markers_fail() {
	"$M/marked" -n 1 >out 2>err &&
	"$M/marked-disabled" -n 1 >expect &&
	test_cmp expect out &&
	test_line_count = 1 err &&
	test_grep "^whyslow markers: .*markers are off$" err
}

test_expect_success 'bad event list: one line, then a no-op' '
	mkdir bad1 &&
	WHYSLOW_MARKERS=perf WHYSLOW_MARKERS_EVENTS=task-clock WHYSLOW_MARKERS_OUT=bad1/regions markers_fail &&
	test_grep "bad WHYSLOW_MARKERS_EVENTS: event 1 does not have the six fields" err &&
	test -z "$(ls bad1)"
'

test_expect_success 'more malformed event lists are refused' '
	for ev in "" "1:0x1:0x0:0x0:0x0:" "1:1:0x0:0x0:0x0:tc" "1:0x1:0x0:0x0:0x8:tc" "x:0x1:0x0:0x0:0x0:tc" \
		"1:0x1:0x0:0x0:0x0:tc," "1:0x1:0x0:0x0:0x0:a:b" "1:0x1:0x0:0x0:0x0:a%2" \
		"4294967296:0x1:0x0:0x0:0x0:tc" "1:0x10000000000000000:0x0:0x0:0x0:tc"
	do
		WHYSLOW_MARKERS=perf WHYSLOW_MARKERS_EVENTS="$ev" WHYSLOW_MARKERS_OUT=bad1/regions markers_fail ||
		{ echo "accepted: $ev" >&2; return 1; }
	done
'

test_expect_success 'an output directory that does not exist: one line, then a no-op' '
	WHYSLOW_MARKERS=perf WHYSLOW_MARKERS_EVENTS=1:0x1:0x0:0x0:0x6:task-clock \
		WHYSLOW_MARKERS_OUT=no/such/dir/regions markers_fail &&
	test_grep "cannot write to no/such/dir" err
'

test_expect_success 'an unknown mode: one line, then a no-op' '
	WHYSLOW_MARKERS=papi markers_fail &&
	test_grep "WHYSLOW_MARKERS=papi is neither perf nor sim" err
'

test_expect_success 'an event this machine cannot count: one line naming it, then a no-op' '
	if test_have_prereq PMU; then
		ev=1:0x3e7:0x0:0x0:0x6:no-such-software-event
	else
		ev=0:0x1:0x0:0x0:0x6:instructions
	fi &&
	mkdir hw &&
	WHYSLOW_MARKERS=perf WHYSLOW_MARKERS_EVENTS=$ev WHYSLOW_MARKERS_OUT=hw/regions markers_fail &&
	test_grep "cannot count " err &&
	test -z "$(ls hw)"
'

test_expect_success 'sim mode outside the simulator: one line, then a no-op' '
	WHYSLOW_MARKERS=sim markers_fail &&
	test_grep "not running under whyslow.s simulator" err
'

test_expect_success 'sim mode forced natively: requests are no-ops, nothing printed' '
	WHYSLOW_MARKERS=sim WHYSLOW_MARKERS_FORCE=1 "$M/marked" -n 2 -t 1 -r >out 2>err &&
	"$M/marked-disabled" -n 2 -t 1 -r >expect &&
	test_cmp expect out &&
	test_line_count = 0 err
'

if test_have_prereq VALGRIND; then :; else test_skip_next 'valgrind is not installed'; fi
test_expect_success 'sim mode under another Valgrind tool: the ping fails, one line, a no-op' '
	WHYSLOW_MARKERS=sim valgrind -q --tool=none "$M/marked" -n 1 -s 1000 >out 2>err &&
	"$M/marked-disabled" -n 1 -s 1000 >expect &&
	test_cmp expect out &&
	test_line_count = 1 err &&
	test_grep "^whyslow markers: .*not running under whyslow.s simulator" err
'

test_done
