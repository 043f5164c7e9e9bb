#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# marker-overhead.sh - cost of one region begin/end pair: outside whyslow, under perf, as sim requests.
#
# usage: bench/marker-overhead.sh          (after make; BUILD names the build directory, default build)
#
# Runs build/bench/marker-overhead once per case, with the environment whyslow would give the program
# (protocol/ws-markers.h), and prints ns per pair, the floor (what a pair must do at least: two read()s of the
# group, or two rdpmc reads of every event), and the ratio. Targets: <= 2 ns outside whyslow, <= 1.2x the
# floor under perf. Not a test: the machine is shared, so no figure here fails the build.
set -u
cd "$(dirname "$0")/.."
: "${BUILD:=build}"
prog="$BUILD/bench/marker-overhead"
probe="$BUILD/tests/probe-perf"
if [ ! -x "$prog" ]; then
	echo "marker-overhead: $prog is missing; run make first" >&2
	exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# User-space counts (EXCLUDE 0x6), which an unprivileged user may open at perf_event_paranoid=2.
SW='1:0x1:0x0:0x0:0x6:task-clock,1:0x2:0x0:0x0:0x6:page-faults'
HW='0:0x1:0x0:0x0:0x6:instructions,0:0x0:0x0:0x0:0x6:cycles'

# val FILE KEY: the number after KEY.
val() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

"$prog" >"$out/off" || exit 1
WHYSLOW_MARKERS=perf WHYSLOW_MARKERS_EVENTS=$SW WHYSLOW_MARKERS_OUT="$out/sw" "$prog" >"$out/sw" || exit 1
WHYSLOW_MARKERS=sim WHYSLOW_MARKERS_FORCE=1 "$prog" >"$out/sim" || exit 1
if "$probe" hw >/dev/null 2>&1; then
	WHYSLOW_MARKERS=perf WHYSLOW_MARKERS_EVENTS=$HW WHYSLOW_MARKERS_OUT="$out/hw" "$prog" >"$out/hw" || exit 1
else
	echo "floor-rdpmc n/a no PMU: hardware events do not open here" >"$out/hw"
fi

row() { # CASE NS FLOOR TARGET
	awk -v c="$1" -v ns="$2" -v f="$3" -v t="$4" 'BEGIN {
		if (f != "" && f + 0 > 0) printf "%-46s %9.2f %9.2f %7.2fx  %s\n", c, ns, f, ns / f, t
		else printf "%-46s %9.2f %9s %8s  %s\n", c, ns, "-", "-", t
	}'
}

echo "marker-overhead: ns per begin/end pair ($(uname -m), $(nproc) CPUs; best of 101 interleaved 2 ms batches)"
printf '%-46s %9s %9s %8s  %s\n' case ns/pair floor ratio target
row "outside whyslow: empty loop" "$(val "$out/off" empty)" "" ""
row "outside whyslow: handle form" "$(val "$out/off" handle)" "" "<= 2 ns"
row "outside whyslow: named form" "$(val "$out/off" name)" "" "<= 2 ns"
row "perf, task-clock+page-faults:u (read): handle" "$(val "$out/sw" handle)" "$(val "$out/sw" floor-read)" "<= 1.2x"
row "perf, task-clock+page-faults:u (read): named" "$(val "$out/sw" name)" "$(val "$out/sw" floor-read)" "<= 1.2x"
row "sim client requests, natively: handle" "$(val "$out/sim" handle)" "" ""
row "sim client requests, natively: named" "$(val "$out/sim" name)" "" ""
if grep -q "^floor-rdpmc [0-9]" "$out/hw"; then
	row "perf, instructions+cycles:u (rdpmc): handle" "$(val "$out/hw" handle)" "$(val "$out/hw" floor-rdpmc)" "<= 1.2x"
	row "perf, instructions+cycles:u (rdpmc): named" "$(val "$out/hw" name)" "$(val "$out/hw" floor-rdpmc)" "<= 1.2x"
elif grep -q "^handle" "$out/hw"; then
	row "perf, instructions+cycles:u (read): handle" "$(val "$out/hw" handle)" "$(val "$out/hw" floor-read)" "<= 1.2x"
	echo "perf, instructions+cycles:u: rdpmc $(sed -n 's/^floor-rdpmc n\/a //p' "$out/hw")"
else
	echo "perf, instructions+cycles:u (rdpmc): $(sed -n 's/^floor-rdpmc n\/a //p' "$out/hw")"
fi
