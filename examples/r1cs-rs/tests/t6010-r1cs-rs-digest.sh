#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t6010-r1cs-rs-digest.sh - one circuit, two languages: the Rust builds print the C program's digest.
. "$WS_SRC/tests/cli/lib.sh"

: "${R1CS_RS_BUILD:?R1CS_RS_BUILD must name the directory of the r1cs-rs-* builds}"
: "${R1CS_SYNTH_BUILD:?R1CS_SYNTH_BUILD must name the directory of the r1cs-synth-* builds}"

variants="vec vec-pool smallvec1 smallvec2 smallvec4"

# Digests for the given options, one "program digest" line each: the five Rust builds, then the C build.
digests() {
	for v in $variants; do
		d=$("$R1CS_RS_BUILD/r1cs-rs-$v" "$@" 2>/dev/null) || return 1
		echo "r1cs-rs-$v $d"
	done
	d=$("$R1CS_SYNTH_BUILD/r1cs-synth-vec" "$@" 2>/dev/null) || return 1
	echo "r1cs-synth-vec $d"
}

# same ALL UNIQ: every line of ALL has the same digest, written to UNIQ
same() {
	test_line_count = 6 "$1" &&
	cut -d" " -f2- "$1" | sort -u >"$2" &&
	test_line_count = 1 "$2" &&
	test_grep "^digest [0-9a-f]\{16\}$" "$2"
}

# 20k constraints reach every gadget, MultiEq's ~1000-term LCs included.
test_expect_success 'the five Rust builds print the digest of the C build' '
	digests --constraints 20000 >all1 &&
	same all1 uniq1
'

test_expect_success 'another seed draws another circuit, alike in both languages' '
	digests --constraints 20000 --seed 7 >all7 &&
	same all7 uniq7 &&
	! test_cmp uniq1 uniq7 >/dev/null
'

test_expect_success 'two partitions on two threads, alike in both languages' '
	digests --constraints 20000 --threads 2 >allt &&
	same allt uniqt &&
	! test_cmp uniq1 uniqt >/dev/null
'

test_expect_success 'stderr: one line with the variant, and the C program'"'"'s counts' '
	"$R1CS_RS_BUILD/r1cs-rs-smallvec4" --constraints 2000 --threads 2 >out 2>err &&
	test_line_count = 1 err &&
	test_grep "^r1cs-rs: lc=smallvec4 partitions=2 constraints=[0-9]" err &&
	"$R1CS_SYNTH_BUILD/r1cs-synth-smallvec4" --constraints 2000 --threads 2 >cout 2>cerr &&
	grep -o "partitions=.* seed=[0-9]*" err >counts &&
	grep -o "partitions=.* seed=[0-9]*" cerr >ccounts &&
	test_cmp ccounts counts
'

test_expect_success 'each build names its functions alike, and only its own storage' '
	for v in vec smallvec4
	do
		nm -C "$R1CS_RS_BUILD/r1cs-rs-$v" >syms &&
		for f in "r1cs::lc::Indexer::insert_or_update" "r1cs::lc::LinearCombination::eval_with_trackers" \
			"r1cs::cs::ProvingAssignment::enforce" "r1cs::cs::ProvingAssignment::alloc" \
			"r1cs::circuit::Circuit::synthesize" "r1cs::fr::fr_mul" \
			"<r1cs::lc::LinearCombination as core::ops::arith::Add<(r1cs::fr::Fr,r1cs::lc::Variable)>>::add"
		do
			test_grep " $f$" syms || return 1
		done
	done &&
	test_grep "smallvec::SmallVec<\[(usize,r1cs::fr::Fr); 4\]>" syms &&
	nm -C "$R1CS_RS_BUILD/r1cs-rs-vec" >vsyms &&
	test_grep -v "smallvec" vsyms
'

test_expect_success 'the builds are linked with libwhyslow for the region markers' '
	nm "$R1CS_RS_BUILD/r1cs-rs-vec-pool" >syms &&
	test_grep " T ws_region_begin_id$" syms &&
	test_grep " B ws_markers_active$" syms
'

if ! test_have_prereq PERF_SW; then
	test_skip_next 'no perf software events here'
fi
test_expect_success 'whyslow sees the regions of a Rust build, entered as often as the C build'"'"'s' '
	whyslow stat -r 1 -w 0 --regions -e task-clock --export-json rs.json -- \
		"$R1CS_RS_BUILD/r1cs-rs-smallvec2" --constraints 5000 >out &&
	whyslow stat -r 1 -w 0 --regions -e task-clock --export-json c.json -- \
		"$R1CS_SYNTH_BUILD/r1cs-synth-smallvec2" --constraints 5000 >out &&
	python3 - rs.json c.json <<-\EOF
	import json, sys
	def entries(path):
	    reg = json.load(open(path))["variants"][0]["regions"]
	    return {r: reg[r]["metrics"]["entries"]["median"] for r in reg}
	rs, c = entries(sys.argv[1]), entries(sys.argv[2])
	assert set(rs) == {"synthesize", "enforce", "eval", "alloc"}, rs
	assert rs == c, (rs, c)
	assert rs["eval"] == 3 * rs["enforce"] and rs["synthesize"] == 1, rs
	EOF
'

test_done
