#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t4003-sim-branches.sh - the branch predictors against a branch that is a coin toss, and the same one sorted.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq SIM || test_skip_all 'wsim is not built (it needs the valgrind package)'

M="$WS_BUILD/examples/micro"
N=100000
wsim() { VALGRIND_LIB="$WS_BUILD/sim/vglib" valgrind -q --tool=wsim "$@"; }
rate() {
	awk -v a="$1" -v b="$2" -v lo="$3" -v hi="$4" -v what="$5" 'BEGIN {
		if (b > 0 && a / b >= lo && a / b <= hi) exit 0
		printf "%s: %s / %s = %.4f, expected within [%s, %s]\n", what, a, b, (b > 0 ? a / b : -1), lo, hi
		exit 1 }'
}
# The data branch of count_high: its hot row is the conditional jump with the most mispredictions.
# Prints "EXECUTIONS MISPREDICTS", and the region's conditional-branch-misses on a second line.
branch() {
	wsim --ws-cond="$1" --ws-out="b.$1.$2" "$M/branch" $N "$2" || return 1
	"$WS_BUILD/tests/sim-dump" "b.$1.$2" >"d.$1.$2" || return 1
	awk -F'\t' '$1 == "hot" && $2 == "count_high" && $5 == '$N' { print $5, $7 }' "d.$1.$2" | sort -k2n | tail -n 1
	awk -F'\t' '$1 == "region" && $2 == "branch" && $3 == "conditional-branch-misses" { print $4 }' "d.$1.$2"
}

for cond in tage gshare bimodal; do
	test_expect_success "$cond: a random 50/50 branch mispredicts 45-55% of the time" '
		branch '$cond' random >out &&
		test_line_count = 2 out &&
		set -- $(head -n 1 out) &&
		test "$1" = $N &&
		rate "$2" $N 0.45 0.55 "data branch" &&
		rate "$(tail -n 1 out)" $N 0.45 0.55 "region, all conditional branches"
	'
	test_expect_success "$cond: the same branch on sorted data mispredicts under 1%" '
		branch '$cond' sorted >out &&
		rate "$(tail -n 1 out)" $N 0 0.01 "region, all conditional branches"
	'
done

test_expect_success 'returns are predicted by the return-address stack' '
	wsim --ws-out=w.out "$M/workload" 2000 >/dev/null &&
	"$WS_BUILD/tests/sim-dump" w.out >d &&
	ret=$(awk -F"\t" "\$1 == \"total\" && \$2 == \"return-branches\" { print \$3 }" d) &&
	miss=$(awk -F"\t" "\$1 == \"total\" && \$2 == \"return-branch-misses\" { print \$3 }" d) &&
	test "$ret" -gt 1000 &&
	rate "$miss" "$ret" 0 0.02 "return mispredictions"
'

test_done
