#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t6011-r1cs-rs-cli.sh - r1cs-rs's options are r1cs-synth's: help, sizes, and one-line usage errors (exit 129).
. "$WS_SRC/tests/cli/lib.sh"

: "${R1CS_RS_BUILD:?R1CS_RS_BUILD must name the directory of the r1cs-rs-* builds}"
: "${R1CS_SYNTH_BUILD:?R1CS_SYNTH_BUILD must name the directory of the r1cs-synth-* builds}"

rs() { "$R1CS_RS_BUILD/r1cs-rs-vec" "$@"; }

test_expect_success '-h prints usage and exits 0' '
	rs -h >out &&
	test_grep "^usage: r1cs-rs" out &&
	test_grep "smallvec4" out
'

test_expect_success '--sizes gives sizeof(LinearCombination) and sizeof(Indexer), as the C model has them' '
	for v in vec vec-pool smallvec1 smallvec2 smallvec4
	do
		"$R1CS_RS_BUILD/r1cs-rs-$v" --sizes >rs-$v &&
		"$R1CS_SYNTH_BUILD/r1cs-synth-$v" --sizes >c-$v &&
		test_line_count = 2 rs-$v &&
		awk "NR == 2 { print \$1, \$2, \$3 }" rs-$v >rs-cols &&
		awk "NR == 2 { print \$1, \$2, \$3 }" c-$v >c-cols &&
		test_cmp c-cols rs-cols || return 1
	done &&
	test_grep "^vec  *96  *48 " rs-vec &&
	test_grep "^vec-pool  *96  *48 " rs-vec-pool &&
	test_grep "^smallvec1  *160  *80 " rs-smallvec1 &&
	test_grep "^smallvec2  *240  *120 " rs-smallvec2 &&
	test_grep "^smallvec4  *400  *200 " rs-smallvec4
'

# Each bad input: exit 129 as the C program, exactly one line on stderr, nothing on stdout.
# (Not $want: test_expect_code uses that name.)
bad() {
	pattern=$1
	shift
	test_expect_code 129 rs "$@" >out 2>err &&
	test_line_count = 1 err &&
	test_grep "$pattern" err &&
	test_line_count = 0 out
}

test_expect_success 'a non-number --constraints' '
	bad "^r1cs-rs: --constraints .12x. is not a number; use e.g. --constraints 200k$" --constraints 12x &&
	bad "is not a number" --constraints=-5 &&
	bad "--seed .1k. is not a number; use e.g. --seed 2" --seed 1k
'

test_expect_success 'out-of-range values' '
	bad "--threads 0 is out of range; use 1 to 256" --threads 0 &&
	bad "--constraints 0 is out of range" --constraints 0 &&
	bad "--constraints 2000M is out of range; use 1 to 1000000000" --constraints 2000M
'

test_expect_success 'unknown options and missing values' '
	bad "unknown option .--frobnicate.; see r1cs-rs -h" --frobnicate &&
	bad "unknown argument .extra." extra &&
	bad "--seed needs a value" --seed
'

test_expect_success 'a build runs its own variant only' '
	rs --lc vec --constraints 2k >out 2>err &&
	test_grep "lc=vec " err &&
	bad "--lc smallvec4 is another build" --lc smallvec4 &&
	bad "unknown --lc .smallvec3.; use vec, vec-pool, smallvec1, smallvec2 or smallvec4" --lc smallvec3
'

# The C program's parser is strtoull with base 0 and suffixes; the Rust one copies it case by case.
test_expect_success 'every other bad input gets the C program'"'"'s status and message' '
	for args in "--constraints=" "--constraints k" "--constraints 0x" "--constraints 1kk" \
		"--constraints 99999999999999999999" "--seed 18446744073709551616" "--threads 2k" \
		"--threads 257" "-x" "--thread 2" "--constraints-and-a-very-long-name=5" "--lc"
	do
		test_expect_code 129 rs $args >out 2>err &&
		test_expect_code 129 "$R1CS_SYNTH_BUILD/r1cs-synth-vec" $args >cout 2>cerr &&
		sed "s/r1cs-synth/r1cs-rs/g" cerr >cerr-rs &&
		test_cmp cerr-rs err || return 1
	done
'

test_expect_success 'numbers as strtoull reads them: k and M, 0x, octal, --opt=value' '
	rs --constraints=2k >out 2>err &&
	test_grep "constraints=20[0-9][0-9] " err &&
	rs --constraints 2000 --seed 0x10 >hex 2>/dev/null &&
	rs --constraints 2000 --seed 020 >oct 2>/dev/null &&
	rs --constraints 2000 --seed=16 >dec 2>/dev/null &&
	test_cmp dec hex &&
	test_cmp dec oct &&
	"$R1CS_SYNTH_BUILD/r1cs-synth-vec" --constraints 2000 --seed 0x10 >c 2>/dev/null &&
	test_cmp c hex
'

test_done
