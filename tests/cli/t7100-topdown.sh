#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t7100-topdown.sh - --topdown: its PMU-only path driven by the fault injector's fake counters, and its absence.
. "$WS_SRC/tests/cli/lib.sh"

C="$WS_BUILD/examples/causes"
FAKE_ZEN4="td-fe-no-ops=fake,td-be-stalls=fake,td-retired-ops=fake,td-dispatched-ops=fake,td-cycles=fake"
FAKE_INTEL="td-slots=fake,td-fe-bound=fake,td-bad-spec=fake,td-be-bound=fake,td-retiring=fake"

fraction() {
	python3 -c "import json, sys; print(round(json.load(open(sys.argv[1]))['variants'][0]['metrics'][sys.argv[2]]['median'], 2))" "$1" "$2"
}

test_expect_success 'Zen 4 method: every raw event a fake task-clock, so 1/6 of the slots each and no bad speculation' '
	WHYSLOW_TEST_TOPDOWN=zen4 WHYSLOW_TEST_PERF_FAULTS=$FAKE_ZEN4 \
		"$WHYSLOW" stat -r 3 -w 0 --backend perf --topdown -e task-clock --export-json z.json -- "$C/arith" 200000 4 >out &&
	test "$(fraction z.json topdown-frontend-bound)" = 0.17 &&
	test "$(fraction z.json topdown-backend-bound)" = 0.17 &&
	test "$(fraction z.json topdown-retiring)" = 0.17 &&
	test "$(fraction z.json topdown-bad-speculation)" = 0.0 &&
	test_grep "topdown-retiring" out
'

test_expect_success 'Intel method: each metric read in slots, so a fake metric equal to slots is the whole' '
	WHYSLOW_TEST_TOPDOWN=intel WHYSLOW_TEST_PERF_FAULTS=$FAKE_INTEL \
		"$WHYSLOW" stat -r 3 -w 0 --backend perf --topdown -e task-clock --export-json i.json -- "$C/arith" 200000 4 >out &&
	test "$(fraction i.json topdown-retiring)" = 1.0 &&
	test "$(fraction i.json topdown-frontend-bound)" = 1.0
'

test_expect_success 'compare --topdown: the explanation reports level 1 for each variant' '
	WHYSLOW_TEST_TOPDOWN=zen4 WHYSLOW_TEST_PERF_FAULTS=$FAKE_ZEN4 \
		"$WHYSLOW" compare -r 3 -w 0 --backend perf --topdown -e task-clock -n a -n b --export-json c.json \
		"$C/arith 200000 1" "$C/arith 200000 8" >out &&
	test_grep "top-down (level 1, share of slots): frontend 17% -> 17%" out &&
	python3 -c "import json; e=json.load(open(\"c.json\"))[\"explain\"][0]; assert round(e[\"topdown\"][\"variant\"][\"topdown-retiring\"], 2) == 0.17, e"
'

test_expect_success 'Intel method, slots refused (paranoid): the four metrics unsupported with its reason, not missing' '
	WHYSLOW_TEST_TOPDOWN=intel WHYSLOW_TEST_PERF_FAULTS="td-slots=EACCES,${FAKE_INTEL#td-slots=fake,}" \
		"$WHYSLOW" stat -r 2 -w 0 --backend perf --topdown -e task-clock --export-json s.json -- true >out &&
	test_grep "topdown-retiring  *td-slots: permission denied" out &&
	test_grep "td-retiring  *opens only in a group that td-slots leads" out &&
	python3 -c "import json; m=json.load(open(\"s.json\"))[\"variants\"][0][\"metrics\"]; assert all(m[\"topdown-\" + k][\"unsupported\"].startswith(\"td-slots: permission denied\") for k in (\"frontend-bound\", \"bad-speculation\", \"backend-bound\", \"retiring\")), m"
'

test_have_prereq PMU && test_skip_next 'a PMU is here: it may have top-down events (the fakes above test them)'
test_expect_success 'without top-down events: one warning, and the metrics unsupported with the reason' '
	whyslow stat -r 1 -w 0 --backend perf --topdown -e task-clock --export-json u.json -- true >out 2>err &&
	test_grep "warning: --topdown: .*no top-down events" err &&
	test_grep "topdown-retiring .*no top-down events" out &&
	python3 -c "import json; m=json.load(open(\"u.json\"))[\"variants\"][0][\"metrics\"]; assert \"top-down\" in m[\"topdown-backend-bound\"][\"unsupported\"]"
'

test_done
