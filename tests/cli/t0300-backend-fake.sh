#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t0300-backend-fake.sh - a backend that is one file and one table entry goes through every command.
. "$WS_SRC/tests/cli/lib.sh"

# whyslow-fake is whyslow linked with tests/backend/: the engine and the program are unchanged.
fake() { "$WS_BUILD/tests/whyslow-fake" "$@"; }

test_expect_success 'list shows the fake backend from the table' '
	fake list fake >out &&
	test_grep "^  fake  *backend  *fixed counts" out &&
	fake list --json >list.json &&
	jq -e "[.[] | select(.kind == \"backend\") | .name] == [\"perf\", \"sim\", \"fake\"]" list.json
'

test_expect_success 'an unknown backend is a usage error that names every backend of the table' '
	test_expect_code 129 fake stat --backend nope -- true 2>err &&
	test_grep "unknown backend .nope.: use perf, sim, fake or auto" err
'

test_expect_success 'stat counts with it: its fixed counts, exact, and no native run is made' '
	fake stat -r 3 --backend fake -e instructions,branches --export-json s.json -- true a b >out &&
	test_grep "backend fake" out &&
	jq -e ".machine.backend == \"fake\" and .settings.runs == 3" s.json &&
	jq -e ".variants[0].metrics.instructions.samples == [3000000, 3000000, 3000000]" s.json &&
	jq -e ".variants[0].metrics.branches.median == 300000 and .variants[0].metrics.branches.exact" s.json &&
	jq -e ".variants[0].metrics | has(\"wall-time\") | not" s.json
'

test_expect_success 'compare with it: exact comparisons, the derived metric and an explanation' '
	fake compare -r 2 --backend fake -e instructions,branches,branch-miss-rate --export-json c.json \
		-n one "true" -n three "true a b" >out &&
	jq -e "[.comparisons[] | select(.variant == \"three\" and .metric == \"instructions\")][0] |
		.ratio == 3 and .verdict == \"changed\" and .exact" c.json &&
	jq -e "[.explain[] | select(.variant == \"three\")] | length == 1" c.json
'

test_expect_success 'a backend that is not native runs --sim-runs times (-r 2: twice), one program after another' '
	jq -e ".settings.runs == 2 and .settings.warmup == 0" c.json &&
	jq -e "[.variants[].runs | length] == [2, 2]" c.json &&
	fake compare -r 5 --backend fake -e instructions --export-json c5.json "true" "true a" >/dev/null &&
	jq -e ".settings.runs == 3 and ([.variants[].runs | length] == [3, 3])" c5.json
'

test_expect_success 'every renderer draws its result' '
	fake report c.json >r.txt &&
	test_grep "instructions" r.txt &&
	fake report --markdown c.json >r.md &&
	test_grep "| instructions" r.md &&
	fake report --csv c.json >r.csv &&
	test_grep "^three,one,instructions," r.csv &&
	fake report --html c.json >r.html &&
	test_grep "<td class=\"num\">1,000,000</td><td class=\"cmp changed\" data-variant=\"three\" data-metric=\"instructions\"><span class=\"cell\">+200.00% exact</span>" r.html &&
	fake diff c.json c.json >d.txt
'

# Each run writes "start" and, a second later, "end": one at a time they alternate, side by side they nest.
# Memory as large as the guess for two runs needs (WHYSLOW_TEST_MEM_AVAILABLE), whatever this machine has.
test_expect_success 'its runs overlap with -j, and give the result of one at a time' '
	for j in 1 2
	do
		mkdir d$j &&
		(cd d$j && WHYSLOW_TEST_MEM_AVAILABLE=100000000000 fake compare --backend fake --sim-runs 2 -j $j -e instructions --export-json ../j$j.json \
			"sh -c \"echo start >>log; sleep 1; echo end >>log\"" \
			"sh -c \"echo start >>log; sleep 1; echo end >>log\" two" >/dev/null) || return 1
	done &&
	printf "start\nend\nstart\nend\nstart\nend\nstart\nend\n" >want.1 &&
	test_cmp want.1 d1/log &&
	head -2 d2/log >first.2 &&
	printf "start\nstart\n" >want.2 &&
	test_cmp want.2 first.2 &&
	test_result_variants j1.json >v1 &&
	test_result_variants j2.json >v2 &&
	test_cmp v1 v2 &&
	jq -e ".variants[1].metrics.instructions.samples == [4000000, 4000000]" j2.json
'

test_done
