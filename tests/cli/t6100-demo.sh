#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t6100-demo.sh - a short run of `make demo`'s job: five variants, regions, functions, the explanation.
. "$WS_SRC/tests/cli/lib.sh"

test_expect_success 'the demo runs end to end on a small circuit and writes its two files' '
	DEMO_DIR="$PWD/out" R1CS_CONSTRAINTS=5000 RUNS=3 BUILD="$WS_BUILD" "$WS_SRC/examples/r1cs-synth/demo.sh" \
		>stdout 2>stderr &&
	test -s out/result.json &&
	test_grep "^| metric | vec-pool (baseline) | vec | smallvec1 | smallvec2 | smallvec4 |" out/result.md &&
	test_grep "wrote .*result.json" stderr
'

test_expect_success 'it tells the story: every variant compared, per region, per function, and why' '
	python3 - out/result.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	names = [v["name"] for v in d["variants"]]
	assert names == ["vec-pool", "vec", "smallvec1", "smallvec2", "smallvec4"], names
	assert d["variants"][0]["baseline"]
	for v in d["variants"]:
	    assert len(v["metrics"]["wall-time"]["samples"]) == 3, v["name"]
	    assert {"synthesize", "enforce", "eval", "alloc"} <= set(v["regions"]), v["regions"].keys()
	    assert any(f["name"] == "r1cs_insert_or_update" for f in v["functions"]), v["name"]
	assert [e["variant"] for e in d["explain"]] == names[1:]
	cmp = {c["variant"]: c for c in d["comparisons"] if c["metric"] == "instructions" and "region" not in c and "function" not in c}
	if d["machine"]["pmu"]:
	    sys.exit(0)
	# without a PMU the instructions are simulated, deterministic, and every variant changes them
	for n in names[1:]:
	    assert cmp[n]["exact"] and cmp[n]["verdict"] == "changed", cmp[n]
	# smallvec4 runs memcpy more: the explanation goes up to the program function that calls it, and the
	# next step is that function's asm-diff, not memcpy's
	c = [e for e in d["explain"] if e["variant"] == "smallvec4"][0]["causes"][0]
	assert c["metric"] == "instructions", c
	where = c["where"][0]
	assert where.startswith("__mem") and " called from r1cs_" in where, where
	caller = where.split(" called from ")[1].split(" ")[0]
	assert "whyslow asm-diff --function " + caller + " " in c["next_step"], c["next_step"]
	assert "asm-diff --function __mem" not in c["next_step"], c["next_step"]
	EOF
'


test_expect_success 'the Rust demo runs end to end and writes its own two files' '
	test -x "$WS_BUILD/examples/r1cs-rs/r1cs-rs-vec" || { echo "the Rust builds are missing" >&2; exit 1; }
	DEMO_DIR="$PWD/out" R1CS_CONSTRAINTS=5000 RUNS=3 BUILD="$WS_BUILD" "$WS_SRC/examples/r1cs-rs/demo.sh" \
		>stdout 2>stderr &&
	test -s out/rust.json &&
	test -s out/result.json &&
	test_grep "^| metric | vec-pool (baseline) | vec | smallvec1 | smallvec2 | smallvec4 |" out/rust.md &&
	jq -e "[.variants[].command | test(\"r1cs-rs-\")] | all" out/rust.json &&
	jq -e "[.variants[].regions | has(\"enforce\")] | all" out/rust.json
'

test_done
