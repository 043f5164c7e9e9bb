#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t4104-sim-plan.sh - compare --plan-jobs, its jobs under GNU parallel, and merge: the local result to the byte.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq SIM || test_skip_all "the simulator tool is not built (valgrind missing)"

C="$WS_BUILD/examples/causes"
M="$WS_BUILD/examples/micro"

# One line on stderr, exit 1, and no result file.
refused() {
	test_expect_code 1 whyslow merge "$@" >out 2>err &&
	test_line_count = 1 err &&
	test_grep "^whyslow merge: " err &&
	! test -e merged.json
}

test_expect_success 'setup: a local compare, and the same as a plan' '
	cp "$C/arith" prog &&
	seq 1 3000 | sort -R --random-source=/dev/zero >input &&
	set -- --backend sim --regions --functions --input input \
		-n arith "./prog 20000 2" -n regions "$M/regions" -n sort "sort -n" &&
	whyslow compare "$@" --export-json local.json >local.out &&
	whyslow compare "$@" --export-json merged.json --plan-jobs jobs.txt 2>plan.err &&
	test_line_count = 9 jobs.txt &&
	test -s jobs.txt.manifest &&
	test_grep "wrote 9 simulations to jobs.txt" plan.err &&
	! test -e merged.json
'

command -v parallel >/dev/null 2>&1 || test_skip_next "GNU parallel is not installed (tools/install-deps)"
test_expect_success 'the jobs under GNU parallel, merged: the local result, counts to the byte' '
	parallel --will-cite -j 3 <jobs.txt >pieces &&
	whyslow merge jobs.txt pieces >merged.out &&
	test_result_variants local.json >want &&
	test_result_variants merged.json >got &&
	test_cmp want got &&
	test_grep "exact" merged.out
'

test_expect_success 'one job per file, as a Slurm array runs them, in any order' '
	rm -f merged.json &&
	for i in 9 8 7 6 5 4 3 2 1
	do
		sed -n "${i}p" jobs.txt | sh >piece.$i || return 1
	done &&
	whyslow merge jobs.txt piece.* >/dev/null &&
	test_result_variants merged.json >got &&
	test_cmp want got
'

test_expect_success 'merge --export-*: in place of the plan'"'"'s of the same kind, the others kept' '
	rm -f merged.json &&
	whyslow merge --export-json other.json --export-markdown - jobs.txt piece.* >md &&
	! test -e merged.json &&
	test_result_variants other.json >got &&
	test_cmp want got &&
	test_grep "^\*\*whyslow\*\* against arith" md &&
	whyslow merge jobs.txt piece.* --export-csv c.csv >/dev/null &&
	test_result_variants merged.json >got &&
	test_cmp want got &&
	test_grep "^variant," c.csv &&
	test_expect_code 129 whyslow merge --export-json - --export-csv - jobs.txt piece.* 2>err &&
	test_grep "both write to standard output" err &&
	cp piece.3 before.3 &&
	test_expect_code 129 whyslow merge --export-json piece.3 jobs.txt piece.* 2>err &&
	test_grep "is a piece being merged" err &&
	test_cmp before.3 piece.3 &&
	test_expect_code 129 whyslow merge --export-csv jobs.txt.manifest jobs.txt piece.* 2>err &&
	test_grep "is the plan.s manifest" err
'

command -v parallel >/dev/null 2>&1 || test_skip_next "GNU parallel is not installed (tools/install-deps)"
test_expect_success '--callers travels with the jobs: the merged stacks and callers are the local ones' '
	set -- --backend sim --exact --callers -n a "$C/callers a" -n b "$C/callers b" &&
	whyslow compare "$@" --export-json cl-local.json --export-folded cl-local.folded >/dev/null &&
	whyslow compare "$@" --export-json cl-merged.json --export-folded cl-merged.folded --plan-jobs cl.txt 2>/dev/null &&
	test $(grep -c -- " --callers " cl.txt) = 2 &&
	parallel --will-cite <cl.txt >cl-pieces &&
	whyslow merge cl.txt cl-pieces >/dev/null &&
	test_cmp cl-local.folded cl-merged.folded &&
	python3 - cl-local.json cl-merged.json <<-\EOF
	import json, sys
	a, b = (json.load(open(f))["variants"] for f in sys.argv[1:])
	def calls(v):
	    return [(f["name"], f["inclusive"], f["callers"]) for f in v["functions"] if "callers" in f]
	assert all(calls(x) and calls(x) == calls(y) for x, y in zip(a, b))
	EOF
'

test_expect_success '--layouts travels with the jobs: each run'"'"'s environment size, the local result' '
	set -- --backend sim --layouts 2 --seed 3 "./prog 2000 2" "./prog 2000 3" &&
	whyslow compare "$@" --export-json lay-local.json >/dev/null &&
	whyslow compare "$@" --export-json lay-merged.json --plan-jobs lay.txt 2>/dev/null &&
	test_grep "layout-pad 2048 --" lay.txt &&
	sh lay.txt >lay.pieces &&
	whyslow merge lay.txt lay.pieces >/dev/null &&
	test_result_variants lay-local.json >want-lay &&
	test_result_variants lay-merged.json >got-lay &&
	test_cmp want-lay got-lay
'

test_expect_success 'merge from another directory: the plan'"'"'s relative paths are its directory'"'"'s, merge'"'"'s own here' '
	mkdir -p sub &&
	(cd sub && cp ../prog prog && seq 1 50 >in &&
	 whyslow compare --backend sim --exact --input in --export-json rel.json --plan-jobs rel.txt \
		"./prog 1000 2" "sort -n" 2>/dev/null && sh rel.txt >rel.pieces) &&
	whyslow merge --export-csv rel.csv sub/rel.txt sub/rel.pieces >/dev/null &&
	test -s sub/rel.json && test -s rel.csv && ! test -e sub/rel.csv
'

test_expect_success 'merge refuses a missing piece' '
	rm -f merged.json &&
	refused jobs.txt piece.1 piece.2 piece.3 piece.4 piece.5 piece.6 piece.7 piece.8 &&
	test_grep "no piece for run 3 of .sort. (line 9 of jobs.txt)" err
'

test_expect_success 'merge refuses a duplicate piece' '
	refused jobs.txt piece.* piece.4 &&
	test_grep "are both run 2 of .arith." err
'

test_expect_success 'merge refuses a truncated file' '
	head -c $(($(wc -c <piece.5) - 4)) piece.5 >short &&
	refused jobs.txt piece.1 piece.2 piece.3 piece.4 short piece.6 piece.7 piece.8 piece.9 &&
	test_grep "short. (piece 1): truncated" err &&
	head -c 100 pieces >short &&
	refused jobs.txt short &&
	: >empty &&
	refused jobs.txt empty &&
	test_grep "is empty" err &&
	refused jobs.txt no-such-piece &&
	test_grep "cannot read .no-such-piece.: No such file or directory (give the file a job.s output went to" err
'

test_expect_success 'merge refuses a piece of another build of the program' '
	cp "$C/branch" prog &&
	sed -n 1p jobs.txt | sh >other.1 2>/dev/null &&
	cp "$C/arith" prog &&
	refused jobs.txt other.1 piece.2 piece.3 piece.4 piece.5 piece.6 piece.7 piece.8 piece.9 &&
	test_grep "simulated another build of .arith. (build-id [0-9a-f]*, the plan.s [0-9a-f]*)" err
'

test_expect_success 'merge refuses to report with another build of the program than the plan simulated' '
	cp "$C/branch" prog &&
	refused jobs.txt piece.* &&
	test_grep ".\./prog. here is another build than the plan simulated (build-id [0-9a-f]*, the plan.s [0-9a-f]*)" err &&
	cp "$C/arith" prog
'

test_expect_success 'merge refuses a piece of an edited job line: another argument, another variable' '
	sed -n 1p jobs.txt | sed "s/ 20000 2\$/ 20000 3/" | sh >edited.1 &&
	refused jobs.txt edited.1 piece.2 piece.3 piece.4 piece.5 piece.6 piece.7 piece.8 piece.9 &&
	test_grep "piece 1) was run from a line other than line 1 of jobs.txt (its command, options, directory or environment were changed): run the line as compare wrote it, or plan again" err &&
	sed -n 2p jobs.txt | sed "s/env -i /env -i EXTRA=1 /" | sh >edited.2 &&
	refused jobs.txt piece.1 edited.2 piece.3 piece.4 piece.5 piece.6 piece.7 piece.8 piece.9 &&
	test_grep "other than line 2 of jobs.txt" err
'

test_expect_success 'merge refuses another whyslow, another plan, and what is not a piece' '
	sed "s/^version	.*/version	0.0.1/" piece.1 >old.1 &&
	refused jobs.txt old.1 piece.2 piece.3 piece.4 piece.5 piece.6 piece.7 piece.8 piece.9 &&
	test_grep "was made by whyslow 0.0.1" err &&
	whyslow compare --backend sim --exact --plan-jobs other.txt "./prog 1000 2" "./prog 1000 3" 2>/dev/null &&
	sed -n 1p other.txt | sh >foreign &&
	refused jobs.txt foreign piece.2 piece.3 piece.4 piece.5 piece.6 piece.7 piece.8 piece.9 &&
	test_grep "belongs to another plan" err &&
	refused jobs.txt input &&
	test_grep "not a piece of a whyslow plan" err &&
	refused input pieces &&
	test_grep "has no manifest" err
'

test_expect_success '--keep-children travels with the jobs, and sim-job takes it' '
	whyslow compare --backend sim --exact --keep-children --plan-jobs kept.txt "./prog 1000 2" "./prog 1000 3" \
		2>/dev/null &&
	test $(grep -c "sim-job .* --keep-children -- " kept.txt) = 2 &&
	! grep -q -e --keep-children jobs.txt
'

test_expect_success '--plan-jobs spreads simulations only' '
	test_expect_code 129 whyslow compare --plan-jobs p.txt true false 2>err &&
	test_grep "need --backend sim" err &&
	test_expect_code 129 whyslow compare --backend sim --sim-native-time --plan-jobs p.txt true false 2>err &&
	test_expect_code 129 whyslow compare --backend sim --prepare true --plan-jobs p.txt true false 2>err &&
	test_grep "cannot carry --setup" err &&
	test_expect_code 129 whyslow compare --backend sim --show-output --plan-jobs p.txt true false 2>err &&
	test_expect_code 129 whyslow compare --backend sim --cpu 0 --plan-jobs p.txt true false 2>err &&
	! test -e p.txt
'

test_expect_success 'a job says that the TMPDIR of the machine it runs on cannot be written, before it simulates' '
	# a job carries its environment (env -i ...): TMPDIR is set in the line itself
	head -1 jobs.txt | sed -e "s| TMPDIR=[^ ]*||g" -e "s|env -i |env -i TMPDIR=/proc |" >one.sh &&
	test_expect_code 1 sh one.sh >piece 2>err &&
	test_grep "^whyslow sim-job: cannot write in TMPDIR ./proc." err &&
	! test -s piece
'

test_expect_success 'merge and sim-job have -h, and check their arguments' '
	whyslow merge -h >out && test_grep "whyslow merge" out &&
	whyslow sim-job -h >out && test_grep "whyslow sim-job" out &&
	test_expect_code 129 whyslow merge jobs.txt 2>err &&
	test_expect_code 129 whyslow sim-job --plan 1 -- true 2>err &&
	test_grep "give all three" err
'

test_done
