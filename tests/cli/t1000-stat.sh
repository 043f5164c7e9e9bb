#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t1000-stat.sh - whyslow stat: counting, usage errors, failures, timeouts, Ctrl-C, the result file.
. "$WS_SRC/tests/cli/lib.sh"

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

test_expect_success 'usage errors exit 129 with one line' '
	test_expect_code 129 whyslow stat 2>err &&
	test_line_count = 1 err &&
	test_grep "no command given" err &&
	test_expect_code 129 whyslow stat --no-such-option -- true 2>err &&
	test_line_count = 1 err &&
	test_expect_code 129 whyslow stat -r zero -- true 2>err &&
	test_grep "runs expects" err &&
	test_expect_code 129 whyslow stat --backend magic -- true 2>err &&
	test_grep "perf, sim or auto" err &&
	test_expect_code 129 whyslow stat --cpu 9-1 -- true 2>err &&
	test_expect_code 129 whyslow stat -e "" -- true 2>err &&
	test_grep "names no event" err &&
	test_expect_code 129 whyslow stat -e ,, -- true 2>err &&
	test_expect_code 129 whyslow stat -e cyclse -- true 2>err &&
	test_line_count = 1 err &&
	test_grep "did you mean cycles" err
'

# Each of these used to be taken silently: 0 as "not given", the auto-only options ignored.
test_expect_success 'values that cannot mean anything are usage errors, not defaults' '
	for args in "-F 0 --functions" "--sim-runs 0" "--target-ci 0.5" "--max-runs 50" "--max-time 3" \
		"--runs auto --max-time 0" "--runs auto --target-ci 500"; do
		test_expect_code 129 whyslow stat -r 2 -e task-clock $args --shell "touch ran" 2>err &&
		test_line_count = 1 err || return 1
	done &&
	! test -e ran &&
	whyslow stat -r 2 -e task-clock -F 100 --functions -- true >out &&
	whyslow stat --runs auto --max-runs 12 --target-ci 50 -e task-clock -- true >out
'

test_expect_success '-h prints the options and exits 0' '
	whyslow stat -h >out &&
	test_grep "^usage: whyslow stat" out &&
	test_grep "export-json" out
'

test_expect_success 'a nonexistent binary gives one clear line' '
	test_expect_code 1 whyslow stat -r 2 -- ./no-such-binary 2>err &&
	test_line_count = 1 err &&
	test_grep "cannot run .*no-such-binary.*not found" err
'

test_expect_success 'an unwritable --export-json fails before any run' '
	test_expect_code 1 whyslow stat -r 2 --export-json /nonexistent/dir/out.json --shell "touch ran" 2>err &&
	test_grep "cannot write --export-json" err &&
	! test -e ran
'

# Paths whose directory exists but where no file can be made, or that name a directory: access() says
# yes to root for the first, and the rename failed only after the runs.
test_expect_success 'paths that only a write would find unwritable fail before any run too' '
	long=$(printf "%0250d" 0) &&
	for p in /proc/version newdir/ "$long"; do
		test_expect_code 1 whyslow stat -r 2 -e task-clock --export-json "$p" --shell "touch ran" 2>err &&
		test_line_count = 1 err &&
		test_grep "cannot write --export-json" err || return 1
	done &&
	! test -e ran &&
	! test -e newdir
'

test_expect_success 'a session that finished no run leaves an existing result file alone' '
	whyslow stat -r 2 -w 0 -e task-clock --export-json keep.json -- true >/dev/null &&
	cp keep.json before.json &&
	test_expect_code 1 whyslow stat -r 2 -e task-clock --export-json keep.json -- false 2>err &&
	test_cmp before.json keep.json
'

test_expect_success 'stat -- true counts task-clock, and reports cycles as unsupported without a PMU' '
	whyslow stat -r 3 -e task-clock,cycles --export-json r.json -- true >out &&
	test "$(json r.json "d[\"schema\"]")" = whyslow/1 &&
	test "$(json r.json "len(d[\"variants\"][0][\"metrics\"][\"task-clock\"][\"samples\"])")" = 3 &&
	json r.json "min(d[\"variants\"][0][\"metrics\"][\"task-clock\"][\"samples\"]) > 0" >ok &&
	test "$(cat ok)" = True &&
	if test_have_prereq PMU
	then
		json r.json "d[\"variants\"][0][\"metrics\"][\"cycles\"][\"samples\"][0] > 0" >ok &&
		test "$(cat ok)" = True
	else
		json r.json "d[\"variants\"][0][\"metrics\"][\"cycles\"][\"unsupported\"]" >reason &&
		test_grep "not supported" reason &&
		test_grep "cycles .*not supported" out
	fi
'

test_expect_success 'a derived metric asked for is computed, or unsupported with its input'"'"'s reason' '
	whyslow stat -r 2 --backend perf -e ipc,task-clock --export-json d.json -- true >out &&
	if test_have_prereq PMU
	then
		json d.json "d[\"variants\"][0][\"metrics\"][\"ipc\"][\"samples\"][0] > 0" >ok &&
		test "$(cat ok)" = True
	else
		json d.json "d[\"variants\"][0][\"metrics\"][\"ipc\"][\"unsupported\"]" >reason &&
		test_grep "^needs \(instructions\|cycles\) (not supported" reason &&
		test_grep "ipc .*needs" out
	fi
'

test_expect_success 'the text report has the perf stat shape' '
	whyslow stat -r 3 -e wall-time,task-clock,page-faults -- true >out &&
	test_grep "Performance counter stats for .true. (3 runs, 1 warm-up" out &&
	# A time in its unit: under a millisecond on a fast machine, so s, ms or us.
	test_grep "^  wall-time  *[0-9][0-9.]* [mu]*s " out &&
	test_grep "^  page-faults" out
'

test_expect_success 'a failing command stops with its exit status, unless --ignore-failure' '
	test_expect_code 1 whyslow stat -r 3 -- false 2>err &&
	test_grep "exited with status 1" err &&
	test_grep "ignore-failure" err &&
	whyslow stat -r 3 -w 0 --ignore-failure --export-json f.json -- false >out &&
	test "$(json f.json "d[\"variants\"][0][\"failed_runs\"]")" = 3 &&
	test "$(json f.json "d[\"variants\"][0][\"runs\"][0][\"exit_code\"]")" = 1 &&
	test_grep "3 of 3 runs failed" out
'

test_expect_success '--timeout kills the run and reports it' '
	start=$(date +%s) &&
	test_expect_code 1 whyslow stat -r 2 -w 0 --timeout 0.2 -- sleep 10 2>err &&
	test $(( $(date +%s) - start )) -lt 5 &&
	test_grep "timed out and was killed after 0.2 s (raise --timeout)" err
'

test_expect_success 'SIGINT keeps and writes the finished runs, marked partial' '
	"$WHYSLOW" stat -r 200 -w 0 -e wall-time --export-json p.json -- sleep 0.05 >out 2>err &
	pid=$! &&
	sleep 1 &&
	kill -INT $pid &&
	{ wait $pid; rc=$?; } &&
	test $rc = 130 &&
	test_grep "interrupted; .* finished runs kept and saved" err &&
	test "$(json p.json "d[\"partial\"]")" = True &&
	n=$(json p.json "len(d[\"variants\"][0][\"metrics\"][\"wall-time\"][\"samples\"])") &&
	test $n -gt 2 && test $n -lt 200 &&
	test_grep "Partial result: interrupted" out
'

test_expect_success '--shell runs a command string through sh -c' '
	whyslow stat -r 2 -e wall-time --shell --export-json s.json "echo hi >>log; true" >/dev/null &&
	test $(wc -l <log) = 3 &&
	test "$(json s.json "d[\"variants\"][0][\"command\"]")" = "echo hi >>log; true"
'

test_expect_success 'output is discarded unless --show-output' '
	whyslow stat -r 1 -w 0 -e wall-time -- echo hello-from-child >out &&
	test_grep -v "^hello-from-child$" out &&
	whyslow stat -r 1 -w 0 -e wall-time --show-output -- echo hello-from-child >out &&
	test_grep "^hello-from-child$" out
'

test_expect_success 'fault injection: a denied event names the sysctl to run' '
	WHYSLOW_TEST_PERF_FAULTS=page-faults:u=EACCES "$WHYSLOW" stat -r 1 -e task-clock,page-faults:u -- true >out 2>err &&
	{ test_grep "sysctl" err || test_grep "CAP_PERFMON" err; } &&
	test_grep "page-faults:u .*permission denied" out
'

test_expect_success 'fault injection: running out of file descriptors is fatal, with the fix' '
	test_expect_code 1 env WHYSLOW_TEST_PERF_FAULTS=page-faults=EMFILE "$WHYSLOW" stat -r 1 -e task-clock,page-faults -- true 2>err &&
	test_grep "ulimit -n" err
'

test_expect_success 'fault injection: a multiplexed count is scaled and its share shown' '
	WHYSLOW_TEST_PERF_FAULTS=page-faults=share:0.25 "$WHYSLOW" stat -r 2 -e page-faults --export-json m.json -- true >out &&
	test_grep "counted 25.0%" out &&
	test "$(json m.json "abs(d[\"variants\"][0][\"metrics\"][\"page-faults\"][\"scaled_share\"] - 0.25) < 1e-3")" = True
'

test_expect_success 'fault injection: a count that never ran is not counted, never 0' '
	WHYSLOW_TEST_PERF_FAULTS=page-faults=never "$WHYSLOW" stat -r 2 -e page-faults --export-json n.json -- true >out &&
	test_grep "page-faults .*<not counted>" out &&
	test "$(json n.json "d[\"variants\"][0][\"metrics\"][\"page-faults\"][\"samples\"]")" = "[None, None]"
'

test_expect_success 'the function table says how many rows it cut, and that inlined rows overlap' '
	python3 - <<-\EOF &&
	import json
	fns = [{"name": "f%d" % i, "object": "/bin/prog", "metrics": {"share": {"samples": [0.05, 0.05]}}}
	       for i in range(14)]
	fns += [{"name": "g%d (inlined)" % i, "object": "/bin/prog", "inlined": True,
	         "metrics": {"share": {"samples": [0.3, 0.3]}}} for i in range(4)]
	json.dump({"variants": [{"name": "prog", "command": "./prog", "functions": fns,
	                         "metrics": {"task-clock": {"samples": [1e6, 1.1e6]}}}]}, open("fns.json", "w"))
	EOF
	whyslow report --functions fns.json >out &&
	test_grep "^    3 more rows (all in --export-json)$" out &&
	test_grep "(inlined) rows count code inlined into other functions and overlap" out &&
	test_grep "over 100%" out &&
	python3 - <<-\EOF &&
	import json
	r = json.load(open("fns.json"))
	r["variants"][0]["functions"] = [f for f in r["variants"][0]["functions"] if not f.get("inlined")][:3]
	json.dump(r, open("few.json", "w"))
	EOF
	whyslow report --functions few.json >out &&
	! test_grep "more row" out &&
	! test_grep "(inlined) rows" out
'

test_done
