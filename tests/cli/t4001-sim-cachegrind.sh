#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t4001-sim-cachegrind.sh - with the cachegrind preset and cachegrind's geometry, every count equals cachegrind's.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq SIM || test_skip_all 'wsim is not built (it needs the valgrind package)'
command -v cachegrind >/dev/null 2>&1 || [ -x /usr/libexec/valgrind/cachegrind-amd64-linux ] ||
	test_skip_all 'cachegrind is not installed'

M="$WS_BUILD/examples/micro"
# Both tools run from the same VALGRIND_LIB, so the programs see the same environment and stack layout.
VALGRIND_LIB="$WS_BUILD/sim/vglib"
export VALGRIND_LIB

# Each cachegrind event and the metric wsim reports for it.
cat >map <<-\EOF_MAP
	Ir instructions
	I1mr L1-icache-load-misses
	ILmr LLC-icache-misses
	Dr L1-dcache-loads
	D1mr L1-dcache-load-misses
	DLmr LLC-load-misses
	Dw L1-dcache-stores
	D1mw L1-dcache-store-misses
	DLmw LLC-store-misses
	Bc conditional-branches
	Bcm conditional-branch-misses
	Bi indirect-branches
	Bim indirect-branch-misses
EOF_MAP

# compare NAME I1 D1 LL PROGRAM ARGS...: run both, then the 13 counts must be equal, and not all trivial.
compare() {
	name=$1 i1=$2 d1=$3 ll=$4
	shift 4
	# Without chasing, as wsim always runs: cachegrind's own default counts instructions that did not run
	# (t4010).
	valgrind -q --tool=cachegrind --vex-guest-chase=no --cache-sim=yes --branch-sim=yes --I1="$i1" \
		--D1="$d1" --LL="$ll" --cachegrind-out-file="$name.cg" "$@" >"$name.cg.stdout" 2>"$name.cg.stderr" || return 1
	valgrind -q --tool=wsim --ws-preset=cachegrind --ws-cache=L1i="$i1" --ws-cache=L1d="$d1" \
		--ws-cache=LL="$ll" --ws-out="$name.ws" "$@" >"$name.ws.stdout" || return 1
	test_cmp "$name.cg.stdout" "$name.ws.stdout" || return 1
	awk '/^events:/ { for (i = 2; i <= NF; i++) ev[i - 1] = $i }
	     /^summary:/ { for (i = 2; i <= NF; i++) print ev[i - 1], $i }' "$name.cg" >"$name.events"
	test_line_count = 13 "$name.events" || return 1
	awk 'NR == FNR { v[$1] = $2; next } { print $2, v[$1] }' "$name.events" map >"$name.expect"
	"$WS_BUILD/tests/sim-dump" "$name.ws" | awk -F'\t' '$1 == "total" { print $2, $3 }' >"$name.totals"
	awk 'NR == FNR { v[$1] = $2; next } { print $2, ($2 in v) ? v[$2] : "absent" }' "$name.totals" map \
		>"$name.got"
	test_cmp "$name.expect" "$name.got" || return 1
	# Not vacuous: instructions, data misses at both levels and mispredictions all happened.
	awk '$2 == 0 && ($1 == "instructions" || $1 == "L1-dcache-load-misses" || $1 == "LLC-load-misses" ||
	     $1 == "conditional-branch-misses") { print "zero", $1; bad = 1 } END { exit bad }' "$name.got"
}

test_expect_success 'pointer chase: every count equals cachegrind' '
	compare chase 32768,8,64 32768,8,64 2097152,16,64 "$M/chase" 4M 1
'

test_expect_success 'random branches: every count equals cachegrind' '
	compare branch 32768,8,64 32768,8,64 2097152,16,64 "$M/branch" 50000 random
'

test_expect_success 'hash-table workload, mixed line sizes: every count equals cachegrind' '
	compare workload 16384,4,32 16384,2,32 1048576,8,64 "$M/workload" 20000
'

test_expect_success 'a system program (sort): every count equals cachegrind' '
	awk "BEGIN { s = 7; for (i = 0; i < 3000; i++) { s = (s * 1103515245 + 12345) % 2147483648; print s } }" \
		>numbers &&
	LC_ALL=C compare sort 32768,8,64 49152,12,64 4194304,16,64 /usr/bin/sort -n --parallel=1 numbers
'

test_done
