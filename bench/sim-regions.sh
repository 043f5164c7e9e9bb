#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sim-regions.sh - what region boundaries cost wsim's predictor thread, against wsim on one thread, per rate.
#
#   BUILD=build bench/sim-regions.sh [N] [ROUNDS]
#
# Every region boundary makes wsim bring its counts up to date, which means waiting for the thread that
# predicts branches (--ws-async, the default with two CPUs) to go idle. examples/micro/boundaries N K runs a
# branchy loop of N iterations (default 4000000) that crosses a boundary every K iterations, for K from 10 to
# 300000, under wsim with the thread and with --ws-async=no in the same rounds; each figure is the least
# elapsed time of ROUNDS (default 3). Prints both and their ratio: below 1.00x the thread pays.
set -u
cd "$(dirname "$0")/.." || exit 1
: "${BUILD:=build}"
n=${1:-4000000}
rounds=${2:-3}
prog="$BUILD/examples/micro/boundaries"
vglib="$BUILD/sim/vglib"
# shellcheck source=bench/lib.sh
. bench/lib.sh

need_wsim sim-regions "$prog"
if [ "$(nproc 2>/dev/null || echo 1)" -lt 2 ]; then
	echo "sim-regions: skipped: this process may use only one CPU, so wsim has no predictor thread"
	exit 0
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# Elapsed seconds of one run: $1 is yes or no (the same length, so the program sees the same environment).
run_one() {
	start=$(date +%s.%N)
	VALGRIND_LIB="$vglib" valgrind -q --tool=wsim --ws-async="$1" --ws-out="$tmp/out" "$prog" "$n" "$2" \
		>/dev/null 2>"$tmp/err" || { echo "sim-regions: a run failed: $prog $n $2" >&2; cat "$tmp/err" >&2; exit 1; }
	end=$(date +%s.%N)
	awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }'
}

echo "boundaries $n K, least elapsed of $rounds interleaved rounds"
printf '%-8s %14s %14s %8s\n' K thread-s one-thread-s ratio
for k in 10 300 3000 30000 300000; do
	best_y=999999 best_n=999999
	r=1
	while [ "$r" -le "$rounds" ]; do
		y=$(run_one yes "$k") || exit 1
		o=$(run_one no "$k") || exit 1
		best_y=$(awk -v a="$y" -v b="$best_y" 'BEGIN { print (a < b ? a : b) }')
		best_n=$(awk -v a="$o" -v b="$best_n" 'BEGIN { print (a < b ? a : b) }')
		r=$((r + 1))
	done
	awk -v k="$k" -v y="$best_y" -v o="$best_n" 'BEGIN { printf "%-8s %14.2f %14.2f %7.2fx\n", k, y, o, y / o }'
done
