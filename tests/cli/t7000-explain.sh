#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t7000-explain.sh - the explanation names the known cause of each example pair first, under the simulator.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq SIM || test_skip_all "the simulator tool is not built (valgrind missing)"

M="$WS_BUILD/examples/micro"
C="$WS_BUILD/examples/causes"

# explain NAME BASE VARIANT: compare under the simulator (deterministic: one run each) into NAME.json.
explain() {
	whyslow compare --backend sim --exact --functions -e instructions,branch-misses,L1-dcache-load-misses,L1-icache-load-misses,LLC-load-misses,L2-load-misses,L2-icache-misses,LLC-icache-misses \
		-n base -n variant --export-json "$1.json" "$2" "$3" >"$1.out"
}

# The first cause's metric, and a check that all the shares sum to 1.
first_cause() {
	python3 - "$1" <<-\EOF
	import json, sys
	e = json.load(open(sys.argv[1]))["explain"][0]
	assert e["causes"], e
	total = sum(c["share"] for c in e["causes"])
	assert abs(total - 1) < 1e-9, total
	assert e["causes"][-1]["metric"] == "unexplained", e["causes"]
	print(e["causes"][0]["metric"])
	EOF
}

test_expect_success 'random against sorted branches: branch-misses' '
	explain branch "$C/branch 200000 sorted" "$C/branch 200000 random" &&
	test "$(first_cause branch.json)" = branch-misses &&
	test_grep "main cause is branch-misses" branch.out &&
	test_grep "in count_high" branch.out
'

test_expect_success 'a working set that spills out of L1 against one that fits: L1-dcache-load-misses' '
	explain chase "$M/chase 16384 8192" "$M/chase 262144 512" &&
	test "$(first_cause chase.json)" = L1-dcache-load-misses
'

test_expect_success 'the same loop with extra arithmetic: instructions' '
	explain arith "$C/arith 200000 0" "$C/arith 200000 8" &&
	test "$(first_cause arith.json)" = instructions &&
	test_grep "in work" arith.out
'

test_expect_success 'a hot loop calling many distinct functions against one: L1-icache-load-misses' '
	explain icache "$C/icache 300 few" "$C/icache 300 many" &&
	test "$(first_cause icache.json)" = L1-icache-load-misses
'

test_expect_success 'identical programs: nothing blamed, the verdict same' '
	explain same "$C/arith 100000 2" "$C/arith 100000 2" &&
	python3 - same.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert d["explain"][0]["causes"] == [], d["explain"][0]
	assert "nothing to blame" in d["explain"][0]["summary"]
	c = [c for c in d["comparisons"] if c["metric"] == "estimated-cycles" and "function" not in c][0]
	assert c["verdict"] == "same", c
	EOF
'

test_expect_success 'the shares carry a CI, and each cause a next step' '
	python3 - branch.json <<-\EOF
	import json, sys
	for c in json.load(open(sys.argv[1]))["explain"][0]["causes"]:
	    lo, hi = c["share_ci"]
	    assert lo <= c["share"] + 1e-12 and c["share"] <= hi + 1e-12, c
	    assert c["next_step"], c
	EOF
'

# branch.json is from the first test, with the preset's costs.
test_expect_success '--cost: weighing branch misses more raises their share; a bad table stops before any run' '
	echo "{\"branch-misses\": 100}" >costs.json &&
	whyslow compare --backend sim --exact -e instructions,branch-misses -n base -n variant --cost costs.json \
		--export-json heavy.json "$C/branch 200000 sorted" "$C/branch 200000 random" >heavy.out &&
	python3 - branch.json heavy.json <<-\EOF &&
	import json, sys
	def share(path):
	    e = json.load(open(path))["explain"][0]
	    return [c["share"] for c in e["causes"] if c["metric"] == "branch-misses"][0]
	assert share(sys.argv[2]) > share(sys.argv[1]), (share(sys.argv[1]), share(sys.argv[2]))
	EOF
	echo "{\"branch-misses\": -1}" >neg.json &&
	for f in neg.json missing.json; do
		test_expect_code 1 whyslow compare --backend sim --exact -e instructions --cost $f \
			"$C/branch 2000 sorted" "$C/branch 2000 random" >out 2>err &&
		test_line_count = 1 err || return 1
	done &&
	test_grep "cannot read cost table" err
'

test_done
