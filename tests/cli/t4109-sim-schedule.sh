#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t4109-sim-schedule.sh - simulated counts that move between runs: a threaded program's follow the thread schedule, another's its input.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq SIM || test_skip_all 'wsim is not built (it needs the valgrind package)'

# Its second thread works one unit more at each run (a count kept in ./n): counts that move by design. One run
# at a time (-j 1): two at once would read the same count.
R="$WS_BUILD/tests/rerun"
T="$WS_BUILD/examples/threads"

test_expect_success 'threaded counts that differ between simulated runs: a warning with the spread and the cause' '
	rm -f n &&
	whyslow stat --backend sim --sim-runs 3 -j 1 --export-json t.json -- "$R" n >out 2>err &&
	test_grep "warning: .*rerun n. ran 2 threads, and its simulated instructions differ by [0-9.]*% between runs ([0-9]* to [0-9]*): the simulator runs one thread at a time" out &&
	test_grep "spin-wait" out &&
	test_grep "sim-native-time" out &&
	test $(grep -c "differ by" out) = 1 &&
	test "$(cat n)" = 3 &&
	test_grep "ran 2 threads, and its simulated instructions differ by" t.json
'

test_expect_success 'one simulated run of a threaded program: a note that it cannot show the spread' '
	rm -f n &&
	whyslow stat --backend sim --exact -- "$R" n >out 2>err &&
	test_grep "rerun n. ran 2 threads, whose simulated counts can move from run to run with Valgrind.s thread schedule, and one simulated run cannot show by how much: --sim-runs 3 does" out &&
	test_grep -v "differ by" out
'

test_expect_success 'one thread whose counts differ between simulated runs: a warning that it does not repeat itself' '
	rm -f n &&
	whyslow stat --backend sim --sim-runs 2 -j 1 -- "$R" n single >out 2>err &&
	test_grep "warning: .*rerun n single.: its simulated instructions differ by [0-9.]*% between runs ([0-9]* to [0-9]*), so it does not do the same work each run" out &&
	test_grep "PYTHONHASHSEED=0" out &&
	test_grep -v "spin-wait" out &&
	test_grep -v "thread schedule" out
'

test_expect_success 'threaded counts that repeat, a single thread, --layouts: no warning' '
	whyslow stat --backend sim --sim-runs 2 -- "$T/sharing" private 100000 >out 2>err &&
	test_grep -v "differ by" out &&
	test_grep -v "thread schedule" out &&
	whyslow stat --backend sim --exact -- true >out 2>err &&
	test_grep -v "thread schedule" out &&
	rm -f n &&
	whyslow stat --backend sim --layouts 2 -j 1 -- "$R" n >out 2>err &&
	test_grep -v "differ by" out
'

test_done
