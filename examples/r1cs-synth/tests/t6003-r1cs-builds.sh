#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t6003-r1cs-builds.sh - the one-variant builds: same digest as the five-variant program, same function names.
. "$WS_SRC/tests/cli/lib.sh"

for v in vec vec-pool smallvec1 smallvec2 smallvec4
do
	test_expect_success "r1cs-synth-$v computes what --lc $v computes" '
		"$R1CS_BUILD/r1cs-synth-'"$v"'" --constraints 20000 --seed 9 >one &&
		"$R1CS_SYNTH" --lc '"$v"' --constraints 20000 --seed 9 >all &&
		test_cmp all one
	'
done

test_expect_success 'each build names its functions alike, and runs only its own variant' '
	for v in vec smallvec4
	do
		nm "$R1CS_BUILD/r1cs-synth-$v" >syms &&
		test_grep " r1cs_insert_or_update$" syms &&
		test_grep " r1cs_enforce$" syms &&
		test_grep -v "smallvec4_insert_or_update" syms || return 1
	done &&
	test_expect_code 129 "$R1CS_BUILD/r1cs-synth-vec" --lc smallvec4 2>err &&
	"$R1CS_BUILD/r1cs-synth-smallvec4" --sizes >sizes &&
	test_grep "^smallvec4 *400 " sizes
'

test_done
