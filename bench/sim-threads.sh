#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sim-threads.sh - what a core per thread costs wsim, against one core for every thread and against cachegrind.
#
#   BUILD=build bench/sim-threads.sh [ROUNDS]
#
# Two programs: examples/threads/sharing false 4000000 (two threads bouncing one line: every access to it
# goes through the coherence model) and examples/micro/workload 1000000 (one thread: it never leaves core
# 0, so the cores should cost it nothing). Each runs under wsim with the preset's cores (zen4: 16), under
# wsim --ws-cores=1 (every thread on one hierarchy, as before cores) and under cachegrind --cache-sim=yes, in
# ROUNDS rounds (default 5) whose order rotates. Prints the median elapsed and CPU (user + system) seconds
# of each, and the ratios of cores to one core and to cachegrind. The target: at most 1.05x one core for
# the single-threaded program. With BEFORE=DIR (a build tree of whyslow from before cores, e.g. the main
# branch's), its wsim runs too, and a last table gives the ratios of cores and of one core to it.
set -u
cd "$(dirname "$0")/.." || exit 1
: "${BUILD:=build}"
rounds=${1:-5}
vglib="$BUILD/sim/vglib"
# shellcheck source=bench/lib.sh
. bench/lib.sh

sim_setup sim-threads "$BUILD/examples/threads/sharing" "$BUILD/examples/micro/workload"
if [ -n "${BEFORE:-}" ] && [ ! -x "$BEFORE/sim/wsim-amd64-linux" ]; then
	echo "sim-threads: BEFORE=$BEFORE holds no built wsim; left out"
	BEFORE=
fi

# run TOOL PROG ARGS...: appends "elapsed cpu" to $tmp/TOOL.
run() {
	tool=$1
	shift
	case $tool in
	cores) set -- env VALGRIND_LIB="$vglib" valgrind -q --tool=wsim --ws-out="$tmp/out" "$@" ;;
	one) set -- env VALGRIND_LIB="$vglib" valgrind -q --tool=wsim --ws-cores=1 --ws-out="$tmp/out" "$@" ;;
	cachegrind) set -- valgrind -q --tool=cachegrind --cache-sim=yes --cachegrind-out-file="$tmp/cg" "$@" ;;
	before) set -- env VALGRIND_LIB="$BEFORE/sim/vglib" valgrind -q --tool=wsim --ws-out="$tmp/out" "$@" ;;
	esac
	timed "sim-threads: a run failed: $*" "$@"
	awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$tmp/time" >>"$tmp/$tool"
}

median_of() {
	awk -v col="$2" "$awk_median"'{ v[++n] = $col } END { printf "%.2f", median(v, n) }' "$1"
}

bench() {
	name=$1
	shift
	rm -f "$tmp/cores" "$tmp/one" "$tmp/cachegrind" "$tmp/before"
	r=0
	while [ "$r" -lt "$rounds" ]; do
		for tool in $(rotate "$r" cores one cachegrind ${BEFORE:+before}); do
			run "$tool" "$@" || exit 1
		done
		r=$((r + 1))
	done
	ce=$(median_of "$tmp/cores" 1) cc=$(median_of "$tmp/cores" 2)
	oe=$(median_of "$tmp/one" 1) oc=$(median_of "$tmp/one" 2)
	ge=$(median_of "$tmp/cachegrind" 1) gc=$(median_of "$tmp/cachegrind" 2)
	printf '%-34s %6s/%-6s %6s/%-6s %6s/%-6s   %5.2fx/%5.2fx   %5.2fx/%5.2fx\n' "$name" "$ce" "$cc" "$oe" "$oc" \
		"$ge" "$gc" "$(awk -v a="$ce" -v b="$oe" 'BEGIN { print a / b }')" \
		"$(awk -v a="$cc" -v b="$oc" 'BEGIN { print a / b }')" \
		"$(awk -v a="$ce" -v b="$ge" 'BEGIN { print a / b }')" \
		"$(awk -v a="$cc" -v b="$gc" 'BEGIN { print a / b }')"
	if [ -n "${BEFORE:-}" ]; then
		be=$(median_of "$tmp/before" 1) bc=$(median_of "$tmp/before" 2)
		printf '%-34s before %s/%s s: cores %5.2fx/%5.2fx, one core %5.2fx/%5.2fx\n' "" "$be" "$bc" \
			"$(awk -v a="$ce" -v b="$be" 'BEGIN { print a / b }')" "$(awk -v a="$cc" -v b="$bc" 'BEGIN { print a / b }')" \
			"$(awk -v a="$oe" -v b="$be" 'BEGIN { print a / b }')" "$(awk -v a="$oc" -v b="$bc" 'BEGIN { print a / b }')"
	fi
}

echo "median of $rounds rotated rounds; seconds elapsed/CPU; ratios elapsed/CPU"
printf '%-34s %13s %13s %13s   %13s   %13s\n' program cores one-core cachegrind cores/one cores/cachegrind
bench "threads/sharing false 4000000" "$BUILD/examples/threads/sharing" false 4000000
bench "micro/workload 1000000" "$BUILD/examples/micro/workload" 1000000
