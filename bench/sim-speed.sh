#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sim-speed.sh - how fast wsim simulates, against native, valgrind --tool=none and cachegrind, in the same run.
#
#   BUILD=build bench/sim-speed.sh [N] [ROUNDS]
#
# Runs examples/micro/workload N (a hash table with random keys, then binary searches: memory- and
# branch-heavy; default N=500K) natively, under --tool=none, under cachegrind with both simulations, and
# under wsim's full zen4 model (three cache levels, both prefetchers, TAGE, target cache, return stack), and
# for comparison the same on one host thread (wsim-1thread: --ws-async=no; by default wsim predicts with
# TAGE on a second thread when the process may use two CPUs), and zen4 with the gshare predictor instead of
# TAGE (wsim-gshare, always one thread).
# Cachegrind gets zen4's geometry (I1 and D1 32K 8-way, LL 32M 16-way), so that both simulate caches of the
# same size whatever the host reports. The rounds interleave them all, and each figure is the least of
# ROUNDS (default 3) runs: these machines are shared, and the least time is the one least disturbed.
# Prints elapsed and CPU (user+system) seconds, and ratios to native and of wsim to cachegrind; then, from
# one more (untimed) run of wsim with -v, how busy its predictor thread was and how long the program's
# thread waited for it, which says which of the two sets wsim's pace.
# CPUs can run at unequal speeds (hybrid cores; a virtual machine whose host shares its CPUs out unevenly,
# as it does here at times, by up to 1.7x for cachegrind and changing from minute to minute). Cachegrind's
# least time then comes from the faster CPU, while wsim's two threads need two. So with two CPUs or more the
# rounds also hold cachegrind to each of two CPUs (taskset) and wsim's program thread to the same CPU, its
# predictor to the other (--ws-cpus), and the script prints those ratios too. The two are the fastest and
# the slowest at the same native run, timed first on each CPU the process may use (up to 8).
# Call tracking (--ws-callers=yes, what whyslow asks for with --functions) is timed against the same model
# without it on the workload (wsim-callers against wsim), and on the r1cs-synth example, which calls a
# function every hundred instructions or so (smallvec4, R1CS_CONSTRAINTS, default 50000), in rounds of
# their own: the ratios are printed against the target, at most 1.15x.
set -u
cd "$(dirname "$0")/.." || exit 1
: "${BUILD:=build}"
n=${1:-500K}
rounds=${2:-3}
prog="$BUILD/examples/micro/workload"
vglib="$BUILD/sim/vglib"
# shellcheck source=bench/lib.sh
. bench/lib.sh

need_wsim sim-speed "$prog"
if [ ! -x /usr/bin/time ]; then
	echo "sim-speed: skipped: needs GNU time (/usr/bin/time, Debian package 'time')"
	exit 0
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The allowed CPUs (Cpus_allowed_list: "0-3,6"), the fastest and the slowest at the same native run.
fast='' slow='' pinned=0
if command -v taskset >/dev/null 2>&1; then
	for cpu in $(awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status | tr ',' '\n' |
		awk -F- '{ hi = (NF > 1 ? $2 : $1); for (c = $1; c <= hi; c++) print c }' | head -n 8); do
		best=999999
		for _ in 1 2; do
			/usr/bin/time -o "$tmp/time" -f "%e" taskset -c "$cpu" "$prog" 2M >/dev/null 2>&1 || continue
			best=$(awk -v a="$(cat "$tmp/time")" -v b="$best" 'BEGIN { print (a < b ? a : b) }')
		done
		# A CPU where the probe never ran (taskset refused it) is left out rather than timed as 999999 s.
		[ "$best" != 999999 ] && echo "$cpu $best" >>"$tmp/cpus"
	done
fi
if [ -s "$tmp/cpus" ]; then
	printf 'native run of workload 2M, least of 2, by CPU:'
	awk '{ printf " CPU %s %.2f s;", $1, $2 } END { print "" }' "$tmp/cpus"
	fast=$(sort -k2,2n "$tmp/cpus" | awk 'NR == 1 { print $1 }')
	slow=$(sort -k2,2n "$tmp/cpus" | awk 'END { print $1 }')
	[ "$fast" != "$slow" ] && pinned=1
fi

# The configurations, in order: name, then the command prefix.
cg_geom="--I1=32768,8,64 --D1=32768,8,64 --LL=33554432,16,64"
# shellcheck disable=SC2086 # $cg_geom is three options
run_one() {
	what=$1
	case $1 in
	native) set -- ;;
	none) set -- valgrind -q --tool=none ;;
	cachegrind) set -- valgrind -q --tool=cachegrind --cache-sim=yes --branch-sim=yes $cg_geom \
		--cachegrind-out-file="$tmp/cg.out" ;;
	wsim) set -- valgrind -q --tool=wsim --ws-preset=zen4 --ws-out="$tmp/ws.out" ;;
	wsim-1thread) set -- valgrind -q --tool=wsim --ws-preset=zen4 --ws-async=no --ws-out="$tmp/ws.out" ;;
	wsim-gshare) set -- valgrind -q --tool=wsim --ws-preset=zen4 --ws-cond=gshare --ws-out="$tmp/ws.out" ;;
	cachegrind@*) set -- taskset -c "${1#cachegrind@}" valgrind -q --tool=cachegrind --cache-sim=yes \
		--branch-sim=yes $cg_geom --cachegrind-out-file="$tmp/cg.out" ;;
	wsim@*) set -- valgrind -q --tool=wsim --ws-preset=zen4 --ws-cpus="${1#wsim@}" --ws-out="$tmp/ws.out" ;;
	wsim-callers) set -- valgrind -q --tool=wsim --ws-preset=zen4 --ws-callers=yes --ws-out="$tmp/ws.out" ;;
	r1cs-nocallers) set -- valgrind -q --tool=wsim --ws-preset=zen4 --ws-callers=no --ws-out="$tmp/ws.out" ;;
	r1cs-callers) set -- valgrind -q --tool=wsim --ws-preset=zen4 --ws-callers=yes --ws-out="$tmp/ws.out" ;;
	esac
	case $what in
	r1cs-*) set -- "$@" "$r1cs" --constraints "$r1cs_n" ;;
	*) set -- "$@" "$prog" "$n" ;;
	esac
	VALGRIND_LIB="$vglib" /usr/bin/time -o "$tmp/time" -f "%e %U %S" "$@" >"$tmp/stdout" 2>"$tmp/stderr" ||
		{ echo "sim-speed: a run failed: $*" >&2; cat "$tmp/stderr" >&2; exit 1; }
}

r1cs="$BUILD/examples/r1cs-synth/r1cs-synth-smallvec4"
r1cs_n=${R1CS_CONSTRAINTS:-50000}
configs="native none cachegrind wsim wsim-1thread wsim-gshare wsim-callers"
[ "$pinned" = 1 ] && configs="$configs cachegrind@$fast wsim@$fast,$slow cachegrind@$slow wsim@$slow,$fast"
r1cs_configs=
[ -x "$r1cs" ] && r1cs_configs="r1cs-nocallers r1cs-callers"
for c in $configs $r1cs_configs; do
	echo 999999 >"$tmp/$c.wall"
	echo 999999 >"$tmp/$c.cpu"
done
# Interleaved rounds of `configs`, each figure the least of its rounds.
measure() {
	r=1
	while [ "$r" -le "$rounds" ]; do
		for c in "$@"; do
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
}
# shellcheck disable=SC2086 # the lists are words
measure $configs
# shellcheck disable=SC2086
[ -n "$r1cs_configs" ] && measure $r1cs_configs

echo "workload $n, least of $rounds interleaved rounds; cachegrind with $cg_geom"
printf '%-14s %10s %10s %12s %12s\n' run elapsed-s cpu-s elapsed/nat cpu/nat
nw=$(cat "$tmp/native.wall")
nc=$(cat "$tmp/native.cpu")
for c in $configs; do
	w=$(cat "$tmp/$c.wall")
	u=$(cat "$tmp/$c.cpu")
	awk -v c="$c" -v w="$w" -v u="$u" -v nw="$nw" -v nc="$nc" 'BEGIN {
		printf "%-14s %10.2f %10.2f %11.1fx %11.1fx\n", c, w, u, (nw > 0 ? w / nw : 0), (nc > 0 ? u / nc : 0) }'
done
for c in wsim wsim-1thread wsim-gshare; do
	awk -v c="$c" -v w="$(cat "$tmp/$c.wall")" -v cw="$(cat "$tmp/cachegrind.wall")" \
		-v u="$(cat "$tmp/$c.cpu")" -v cu="$(cat "$tmp/cachegrind.cpu")" 'BEGIN {
		printf "%s/cachegrind: %.2fx elapsed, %.2fx cpu (target: 1.00x or less)\n", c, w / cw, u / cu }'
done
# Call tracking's cost, against the same model without it.
callers_ratio() {
	awk -v what="$1" -v w="$(cat "$tmp/$3.wall")" -v w0="$(cat "$tmp/$2.wall")" -v u="$(cat "$tmp/$3.cpu")" \
		-v u0="$(cat "$tmp/$2.cpu")" 'BEGIN {
		printf "call tracking (--ws-callers=yes) on %s: %.2f s against %.2f s, %.2fx elapsed, %.2fx cpu " \
			"(target: 1.15x or less)\n", what, w, w0, w / w0, u / u0 }'
}
callers_ratio "workload $n" wsim wsim-callers
[ -n "$r1cs_configs" ] && callers_ratio "r1cs-synth-smallvec4 --constraints $r1cs_n" r1cs-nocallers r1cs-callers
if [ "$pinned" = 1 ]; then
	awk -v f="$fast" -v s="$slow" -v a="$(cat "$tmp/cachegrind@$fast.wall")" -v b="$(cat "$tmp/cachegrind@$slow.wall")" \
		'BEGIN { printf "held to one CPU, cachegrind took %.2fx as long on CPU %s as on CPU %s\n", b / a, s, f }'
	for pair in "$fast,$slow" "$slow,$fast"; do
		awk -v p="$pair" -v w="$(cat "$tmp/wsim@$pair.wall")" -v cw="$(cat "$tmp/cachegrind@${pair%,*}.wall")" \
			'BEGIN { split(p, c, ","); printf "wsim --ws-cpus=%s / cachegrind on CPU %s: %.2fx elapsed " \
			"(the predictor thread on CPU %s)\n", p, c[1], w / cw, c[2] }'
	done
fi
if VALGRIND_LIB="$vglib" valgrind -v --tool=wsim --ws-preset=zen4 --ws-out="$tmp/ws.out" "$prog" "$n" \
	>"$tmp/stdout" 2>"$tmp/stderr"; then
	sed -n 's/^==[0-9]*== wsim: of /wsim (one more run, -v): of /p' "$tmp/stderr"
fi
