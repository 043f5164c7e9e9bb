#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sim-callers.sh - what call tracking (--ws-callers=yes, asked for by --callers) costs the simulator.
#
#   BUILD=build bench/sim-callers.sh [N] [ROUNDS]
#
# Times wsim's zen4 model with call tracking against the same model without it, on two workloads written
# for other purposes: examples/micro/workload N (a hash table with random keys, then binary searches;
# default N=500K) and the r1cs-synth example, which calls a function every hundred instructions or so
# (smallvec4, R1CS_CONSTRAINTS constraints, default 50000). The two configurations alternate in ROUNDS
# rounds (default 3) and each figure is the least of its rounds: these machines are shared, and the least
# time is the one least disturbed. Prints elapsed and CPU (user+system) seconds and the ratios against the
# target, at most 1.15x.
cd "$(dirname "$0")/.." || exit 1
: "${BUILD:=build}"
n=${1:-500K}
rounds=${2:-3}
prog="$BUILD/examples/micro/workload"
r1cs="$BUILD/examples/r1cs-synth/r1cs-synth-smallvec4"
r1cs_n=${R1CS_CONSTRAINTS:-50000}
vglib="$BUILD/sim/vglib"
# shellcheck source=bench/lib.sh
. bench/lib.sh

need_wsim sim-callers "$prog"
if [ ! -x /usr/bin/time ]; then
	echo "sim-callers: skipped: needs GNU time (/usr/bin/time, Debian package 'time')"
	exit 0
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# One run of configuration $1 (CALLERS-WORKLOAD), its times in $tmp/time.
run_one() {
	case $1 in
	yes-*) calls=yes ;;
	*) calls=no ;;
	esac
	case $1 in
	*-r1cs) set -- "$r1cs" --constraints "$r1cs_n" ;;
	*) set -- "$prog" "$n" ;;
	esac
	VALGRIND_LIB="$vglib" /usr/bin/time -o "$tmp/time" -f "%e %U %S" valgrind -q --tool=wsim --ws-preset=zen4 \
		--ws-callers=$calls --ws-out="$tmp/ws.out" "$@" >"$tmp/stdout" 2>"$tmp/stderr" ||
		{ echo "sim-callers: a run failed: $*" >&2; cat "$tmp/stderr" >&2; exit 1; }
}

configs="no-workload yes-workload"
[ -x "$r1cs" ] && configs="$configs no-r1cs yes-r1cs"
for c in $configs; do
	echo 999999 >"$tmp/$c.wall"
	echo 999999 >"$tmp/$c.cpu"
done
r=1
while [ "$r" -le "$rounds" ]; do
	for c in $configs; do
		run_one "$c"
		read -r wall user sys <"$tmp/time"
		awk -v a="$wall" -v b="$(cat "$tmp/$c.wall")" 'BEGIN { print (a < b ? a : b) }' >"$tmp/$c.wall.new"
		awk -v a="$user" -v s="$sys" -v b="$(cat "$tmp/$c.cpu")" 'BEGIN { c = a + s; print (c < b ? c : b) }' \
			>"$tmp/$c.cpu.new"
		mv "$tmp/$c.wall.new" "$tmp/$c.wall"
		mv "$tmp/$c.cpu.new" "$tmp/$c.cpu"
	done
	r=$((r + 1))
done

ratio() {
	awk -v what="$1" -v w="$(cat "$tmp/yes-$2.wall")" -v w0="$(cat "$tmp/no-$2.wall")" \
		-v u="$(cat "$tmp/yes-$2.cpu")" -v u0="$(cat "$tmp/no-$2.cpu")" 'BEGIN {
		printf "call tracking on %s: %.2f s against %.2f s (cpu %.2f s against %.2f s), %.2fx elapsed, " \
			"%.2fx cpu (target: 1.15x or less)\n", what, w, w0, u, u0, w / w0, u / u0 }'
}
echo "least of $rounds interleaved rounds, wsim --ws-preset=zen4, --ws-callers=yes against --ws-callers=no"
ratio "workload $n" workload
[ -x "$r1cs" ] && ratio "r1cs-synth-smallvec4 --constraints $r1cs_n" r1cs
exit 0
