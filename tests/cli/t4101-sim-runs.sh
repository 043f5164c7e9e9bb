#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t4101-sim-runs.sh - the runs and warm-ups a simulated session reports are the ones it made.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq SIM || test_skip_all "the simulator tool is not built (valgrind missing)"

C="$WS_BUILD/examples/causes"

# runs, warm-up, the runs list's length and exit codes, and the sample count of one metric
summary() {
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
v = d['variants'][0]
s = d['settings']
print(s['runs'], s['warmup'], len(v['runs']), ','.join(str(r['exit_code']) for r in v['runs']),
      v['failed_runs'], len(v['metrics'][sys.argv[2]]['samples']))
" "$@"
}

test_expect_success '--backend sim: 3 simulated runs and no warm-up, in the header and the JSON' '
	whyslow stat --backend sim -r 10 -w 1 -e instructions --export-json s.json -- "$C/arith" 1000 2 >out 2>err &&
	test_grep "(3 runs, 0 warm-up, backend sim, preset zen4)" out &&
	test "$(summary s.json instructions)" = "3 0 3 0,0,0 0 3" &&
	# the -r it did not take is said, with what to give instead
	test_grep "warning: -r 10 counts timed runs, and the simulator alone times none: it makes 3 simulated runs" err &&
	test_grep "(--sim-runs N for more)" err &&
	whyslow stat --backend sim -e instructions --export-json s.json -- "$C/arith" 1000 2 >out 2>err &&
	test_grep -v "counts timed runs" err &&
	whyslow stat --backend sim --sim-runs 3 -r 10 -e instructions --export-json s.json -- "$C/arith" 1000 2 >out 2>err &&
	test_grep -v "counts timed runs" err
'

test_expect_success '--exact: one simulated run' '
	whyslow stat --backend sim --exact -e instructions --export-json e.json -- "$C/arith" 1000 2 >out &&
	test_grep "(1 run, 0 warm-up, backend sim" out &&
	test "$(summary e.json instructions)" = "1 0 1 0 0 1"
'

test_expect_success '--ignore-failure: each failed simulated run is in the runs list' '
	whyslow stat --backend sim --sim-runs 2 --ignore-failure -e instructions --export-json f.json \
		-- sh -c "exit 3" >out &&
	test_grep "(2 runs, 0 warm-up, backend sim" out &&
	test_grep "2 of 2 runs failed" out &&
	test "$(summary f.json instructions)" = "2 0 2 3,3 2 2"
'

test_expect_success '--sim-native-time: the native runs and warm-up are the ones reported' '
	whyslow stat --backend sim --exact --sim-native-time -r 2 -w 1 -e instructions,wall-time \
		--export-json n.json -- "$C/arith" 1000 2 >out &&
	test_grep "(2 runs, 1 warm-up, backend perf+sim" out &&
	test "$(summary n.json wall-time)" = "2 1 2 0,0 0 2" &&
	test "$(summary n.json instructions)" = "2 1 2 0,0 0 1"
'

test_done
