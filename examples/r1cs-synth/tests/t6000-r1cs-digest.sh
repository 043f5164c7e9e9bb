#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t6000-r1cs-digest.sh - every LC storage variant synthesizes the same circuit: equal digests.
. "$WS_SRC/tests/cli/lib.sh"

: "${R1CS_SYNTH:?R1CS_SYNTH must name the r1cs-synth binary under test}"

variants="vec vec-pool smallvec1 smallvec2 smallvec4"

# Digests of all variants for the given options, one "variant digest" line each.
digests() {
	for v in $variants; do
		d=$("$R1CS_SYNTH" --lc "$v" "$@" 2>/dev/null) || return 1
		echo "$v $d"
	done
}

# 20k constraints reach every gadget, MultiEq's ~1000-term LCs included (see t6002).
test_expect_success 'all five variants print the same digest' '
	digests --constraints 20000 >all &&
	test_line_count = 5 all &&
	cut -d" " -f2- all | sort -u >uniq &&
	test_line_count = 1 uniq &&
	test_grep "^digest [0-9a-f]\{16\}$" uniq
'

test_expect_success 'the same with two partitions on two threads' '
	digests --constraints 20000 --threads 2 >all2 &&
	cut -d" " -f2- all2 | sort -u >uniq2 &&
	test_line_count = 1 uniq2 &&
	! test_cmp uniq uniq2 >/dev/null
'

test_expect_success 'another seed draws another circuit, for every variant alike' '
	digests --constraints 20000 --seed 7 >all7 &&
	cut -d" " -f2- all7 | sort -u >uniq7 &&
	test_line_count = 1 uniq7 &&
	! test_cmp uniq uniq7 >/dev/null
'

test_expect_success 'a run is reproducible' '
	"$R1CS_SYNTH" --lc smallvec2 --constraints 20000 >again 2>/dev/null &&
	test_cmp uniq again
'

test_expect_success 'stderr reports variant, partitions and constraint count' '
	"$R1CS_SYNTH" --lc smallvec4 --constraints 2000 --threads 2 >out 2>err &&
	test_line_count = 1 err &&
	test_grep "lc=smallvec4 partitions=2 constraints=[0-9]" err
'

test_done
