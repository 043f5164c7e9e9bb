#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t6002-r1cs-mix.sh - the generated circuit follows WORKLOAD.md's mix, counted by r1cs-synth-stats.
. "$WS_SRC/tests/cli/lib.sh"

: "${R1CS_SYNTH_STATS:?R1CS_SYNTH_STATS must name the r1cs-synth-stats binary under test}"

# stat NAME FILE: the counter's value
stat() { awk -v k="$1" '$1 == "stat" && $2 == k { print $3 }' "$2"; }

# within LO HI NAME FILE: the counter's share of all constraints, in percent, lies in [LO, HI]
within() {
	total=$(awk '$1 == "stat" && $2 ~ /^c\./ { s += $3 } END { print s }' "$4")
	awk -v n="$(stat "$3" "$4")" -v t="$total" -v lo="$1" -v hi="$2" -v k="$3" 'BEGIN {
		p = 100 * n / t
		if (p < lo || p > hi) { printf "%s is %.3f%% of constraints, not in [%s, %s]\n", k, p, lo, hi; exit 1 }
	}'
}

test_expect_success 'synthesize 200k constraints with the counters on' '
	"$R1CS_SYNTH_STATS" --lc smallvec1 --constraints 200k >digest 2>stats &&
	test_grep "^stat c.xor" stats
'

test_expect_success 'constraint kinds in the proportions of the table' '
	within 22 28 c.boolean stats &&
	within 50 56 c.xor stats &&
	within 17 23 c.andlike stats &&
	within 0.7 1.3 c.poseidon stats &&
	within 0.12 0.3 c.packing stats &&
	within 0.05 0.2 c.multieq stats
'

test_expect_success 'about 90% of aux references are to the last 4K variables' '
	awk -v r="$(stat aux_refs_recent stats)" -v n="$(stat aux_refs stats)" \
		"BEGIN { p = 100 * r / n; if (p < 87 || p > 93) { print p; exit 1 } }"
'

test_expect_success 'every insert_or_update path is taken, memmove included' '
	for k in iou.last_key_update iou.adjacent_push iou.adjacent_update iou.adjacent_insert \
		 iou.bsearch_update iou.bsearch_insert memmove_terms spills; do
		v=$(stat $k stats) && test "$v" -gt 0 || { echo "$k is ${v:-missing}"; return 1; }
	done
'

test_expect_success 'Vec variants never spill; the counters do not change the result' '
	"$R1CS_SYNTH_STATS" --lc vec --constraints 200k >digest-vec 2>stats-vec &&
	test "$(stat spills stats-vec)" = 0 &&
	test_cmp digest digest-vec &&
	test "$(stat build.terms stats-vec)" = "$(stat build.terms stats)"
'

test_done
