#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t0430-messages.sh - what a session that ended short says: interrupted during the native runs of --backend
# auto, the simulated metrics are there, unsupported with the reason; --runs auto at its budget says so; a
# --primary nothing can count, or a list of events none of which can be, is said before the first run.
. "$WS_SRC/tests/cli/lib.sh"

# Wait up to 60 s for a file to appear.
wait_for() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -e "$1" ]
}

test_have_prereq SIM || test_skip_next 'needs valgrind and the wsim tool (make)'
test_expect_success 'Ctrl-C during the native runs of auto: the simulated metrics have a reason, not nothing' '
	"$WHYSLOW" compare --backend auto -r 20 -w 0 -e wall-time,instructions --prepare "touch started" \
		--export-json i.json "sleep 0.2" "sleep 0.21" >out 2>err &
	pid=$! &&
	wait_for started &&
	sleep 0.5 &&
	kill -INT $pid &&
	{ wait $pid; test $? = 130; } &&
	jq -e ".partial and .partial_reason == \"interrupted\"" i.json &&
	jq -e "[.variants[].metrics.instructions.unsupported] == [\"interrupted before the runs that count it\", \"interrupted before the runs that count it\"]" i.json &&
	jq -e ".variants[0].metrics[\"wall-time\"].samples | length > 0" i.json &&
	test_grep "not measured: instructions (interrupted before the runs that count it)" out &&
	test_grep -v "backend auto)" out &&
	test_grep "the session stopped before its simulated runs were done: interrupted" out
'

test_have_prereq PERF_SW || test_skip_next 'needs perf software events (perf_event_open)'
test_expect_success '--runs auto that spends its budget says the target was not reached' '
	"$WHYSLOW" stat --runs auto --max-runs 3 --target-ci 0.0001 --backend perf -e task-clock \
		--export-json s.json -- sh -c ":" >out 2>err &&
	test_grep "warning: --runs auto stopped at 3 rounds (--max-runs) before the CI reached" out &&
	jq -e "[.warnings[] | select(startswith(\"--runs auto stopped at 3 rounds\"))] | length == 1" s.json
'

test_have_prereq SIM || test_skip_next 'needs valgrind and the wsim tool (make)'
test_expect_success 'a variant whose simulated run failed: the summary does not say the simulator never ran' '
	test_expect_code 1 "$WHYSLOW" compare --backend sim --exact -n ok -n bad true false >out 2>err &&
	test_grep "exited with status 1 under the simulator" err &&
	test_grep "why: .bad. .*no cycle counts to explain it with (the session stopped before its simulated runs were done: a run failed)" out
'

# A primary that no backend of the session counts was found only after every run, which were then lost:
# neither reported nor saved. The plan knows it before the first run.
test_have_prereq PERF_SW || test_skip_next 'needs perf software events (perf_event_open)'
test_expect_success 'a --primary or --metric that nothing here counts is refused before the first run' '
	test_expect_code 1 "$WHYSLOW" compare -r 3 --backend perf --primary estimated-cycles --shell \
		--export-json p.json "touch ran; sleep 0.2" "sleep 0.3" >out 2>err &&
	test_grep "^whyslow compare: --primary .estimated-cycles. cannot be measured here (counted only by the simulator (--backend sim)): nothing was run; pick another metric$" err &&
	test_expect_code 1 "$WHYSLOW" compare -r 3 --backend perf --metric estimated-cycles --fail-if-slower 5 \
		--shell "touch ran" "sleep 0.3" >out 2>err &&
	test_grep "^whyslow compare: --metric .estimated-cycles. cannot be measured" err &&
	test ! -e ran && test ! -e p.json && test ! -s out
'

# A ratio is derived after the runs, from parts the plan already knows: one that cannot be counted says so.
test_have_prereq PERF_SW || test_skip_next 'needs perf software events (perf_event_open)'
test_have_prereq PMU && test_skip_next 'a PMU is here: instructions and cycles count'
test_expect_success 'a --primary ratio whose part nothing here counts is refused before the first run, naming the part' '
	test_expect_code 1 "$WHYSLOW" compare -r 3 --backend perf --primary ipc --shell "touch ran-ipc" "true" 2>err &&
	test_grep "^whyslow compare: --primary .ipc. cannot be measured here (instructions: not supported on this machine" err &&
	test ! -e ran-ipc
'

test_have_prereq SIM || test_skip_next 'needs valgrind and the wsim tool (make)'
test_expect_success 'under the simulator alone, --primary wall-time is refused with the reason, nothing run' '
	test_expect_code 1 "$WHYSLOW" compare --backend sim --exact --primary wall-time --shell "touch ran" "true" 2>err &&
	test_grep "primary .wall-time. cannot be measured here (not measured under the simulator (add --sim-native-time)): nothing was run" err &&
	test ! -e ran
'

test_have_prereq SIM || test_skip_next 'needs valgrind and the wsim tool (make)'
test_expect_success 'a --primary outside the default metrics is measured, as though -e named it' '
	"$WHYSLOW" compare --backend sim --exact --primary L1-dcache-stores --export-json st.json true "sleep 0" >out &&
	jq -e ".settings.primary == \"L1-dcache-stores\" and (.variants[0].metrics[\"L1-dcache-stores\"].samples | length) == 1" st.json
'

# Every event asked for unsupported: the runs would measure nothing. compare ran them all and exited 1
# without a word; stat printed an empty table, exit 0, and wrote no --export-json.
test_have_prereq PERF_SW || test_skip_next 'needs perf software events (perf_event_open)'
test_expect_success 'events none of which can be measured here are refused before the first run, in one line' '
	test_expect_code 1 "$WHYSLOW" compare -r 3 --backend perf -e estimated-cycles --shell "touch ran" "sleep 0.2" \
		>out 2>err &&
	test_line_count = 1 err &&
	test_grep "^whyslow: error: none of the metrics asked for can be measured here (estimated-cycles: counted only by the simulator (--backend sim)): nothing was run; ask for others (-e, .whyslow list.) or another --backend$" err &&
	test_expect_code 1 "$WHYSLOW" stat -r 3 --backend perf -e estimated-cycles,L2-misses --export-json n.json \
		--shell "touch ran" >out 2>err &&
	test_grep "none of the metrics asked for can be measured here (estimated-cycles: " err &&
	test ! -e ran && test ! -e n.json && test ! -s out
'

test_have_prereq SIM || test_skip_next 'needs valgrind and the wsim tool (make)'
test_expect_success 'under the simulator alone, -e wall-time is refused with the reason, nothing run' '
	test_expect_code 1 "$WHYSLOW" stat --backend sim -e wall-time,task-clock --shell "touch ran" >out 2>err &&
	test_grep "can be measured here (wall-time: not measured under the simulator (add --sim-native-time)): nothing was run" err &&
	test ! -e ran && test ! -s out
'

# Where some can be, the others are in the table as ever, each with its reason.
test_have_prereq PERF_SW || test_skip_next 'needs perf software events (perf_event_open)'
test_expect_success 'a simulator metric beside measurable ones, under perf: unsupported with the reason' '
	"$WHYSLOW" stat -r 2 --backend perf -e task-clock,estimated-cycles --export-json m.json -- true >out &&
	jq -e ".variants[0].metrics[\"estimated-cycles\"].unsupported == \"counted only by the simulator (--backend sim)\"" m.json
'

test_done
