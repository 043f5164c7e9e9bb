#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t6001-r1cs-cli.sh - r1cs-synth's options: help, sizes, and one-line usage errors with exit 129.
. "$WS_SRC/tests/cli/lib.sh"

: "${R1CS_SYNTH:?R1CS_SYNTH must name the r1cs-synth binary under test}"

r1cs() { "$R1CS_SYNTH" "$@"; }

test_expect_success '-h prints usage and exits 0' '
	r1cs -h >out &&
	test_grep "^usage: r1cs-synth" out &&
	test_grep "smallvec4" out
'

test_expect_success '--sizes gives sizeof(LinearCombination) per variant' '
	r1cs --sizes >out &&
	test_grep "^vec  *96 " out &&
	test_grep "^vec-pool  *96 " out &&
	test_grep "^smallvec1  *160 " out &&
	test_grep "^smallvec2  *240 " out &&
	test_grep "^smallvec4  *400 " out
'

# Each bad input: exit 129, exactly one line on stderr, naming the problem and the way out.
# (Not $want: test_expect_code uses that name.)
bad() {
	pattern=$1
	shift
	test_expect_code 129 r1cs "$@" >out 2>err &&
	test_line_count = 1 err &&
	test_grep "$pattern" err &&
	test_line_count = 0 out
}

test_expect_success 'an unknown --lc lists the valid ones' '
	bad "unknown --lc .smallvec3.; use vec, vec-pool, smallvec1, smallvec2 or smallvec4" --lc smallvec3
'

test_expect_success 'a non-number --constraints' '
	bad "--constraints .12x. is not a number; use e.g. --constraints 200k" --constraints 12x &&
	bad "is not a number" --constraints=-5
'

test_expect_success 'out-of-range values' '
	bad "--threads 0 is out of range; use 1 to 256" --threads 0 &&
	bad "--constraints 0 is out of range" --constraints 0
'

test_expect_success 'unknown options and missing values' '
	bad "unknown option .--frobnicate.; see r1cs-synth -h" --frobnicate &&
	bad "unknown argument .extra." extra &&
	bad "--seed needs a value" --seed
'

test_expect_success 'k and M suffixes and --opt=value' '
	r1cs --constraints=2k --lc=vec >out 2>err &&
	test_grep "constraints=20[0-9][0-9] " err
'

test_done
