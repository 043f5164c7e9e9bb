#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sim-scope.sh - --sim-scope regions against a whole simulation: the error per region and count, and the speed.
#
#   BUILD=build bench/sim-scope.sh [ROUNDS]
#
# Each program runs through `whyslow stat --backend sim --exact -r 1 --regions` three ways: the whole program
# simulated (--sim-scope all), only inside its regions (regions: outside them it runs as under valgrind
# --tool=none), and inside its regions with the caches warmed outside (regions-warm); and under plain
# `valgrind --tool=none`, the floor. The programs: examples/micro/scope (a small region inside a long phase,
# the case the option is for), examples/micro/regions (nested, repeated and recursive regions),
# examples/micro/boundaries (a region every 3000 iterations: switching stops, see docs/simulator.md) and
# examples/r1cs-synth (vec, 30000 constraints: its regions cover nearly the whole run). Prints, per region
# and count, the whole simulation's value and each scope's error; then each way's elapsed and CPU seconds,
# the median of ROUNDS (default 3) interleaved rounds, and the whole simulation's time over each scope's.
set -u
cd "$(dirname "$0")/.." || exit 1
: "${BUILD:=build}"
rounds=${1:-3}
W="$BUILD/whyslow"
# shellcheck source=bench/lib.sh
. bench/lib.sh

sim_setup sim-scope "$BUILD/examples/micro/scope"

progs="scope regions boundaries r1cs"
cmd_of() {
	case $1 in
	scope) echo "$BUILD/examples/micro/scope 4M 5" ;;
	regions) echo "$BUILD/examples/micro/regions" ;;
	boundaries) echo "$BUILD/examples/micro/boundaries 4000000 3000" ;;
	r1cs) echo "$BUILD/examples/r1cs-synth/r1cs-synth-vec --constraints 30000" ;;
	esac
}

# run PROG WAY ROUND: one timed run, its JSON kept from the first round.
run() {
	# shellcheck disable=SC2046 # the command's words
	case $2 in
	none) set -- "$1" "$2" "$3" valgrind -q --tool=none $(cmd_of "$1") ;;
	*) set -- "$1" "$2" "$3" "$W" stat --backend sim --exact -r 1 --regions --sim-scope "$2" \
		--export-json "$tmp/$1.$2.json" -- $(cmd_of "$1") ;;
	esac
	p=$1 w=$2 r=$3
	shift 3
	timed "sim-scope: a run failed: $*" env VALGRIND_LIB="$BUILD/sim/vglib" "$@"
	awk -v r="$r" '{ printf "%s %.3f %.3f\n", r, $1, $2 + $3 }' "$tmp/time" >>"$tmp/$p.$w.times"
}

r=1
while [ "$r" -le "$rounds" ]; do
	for p in $progs; do
		for w in $(rotate "$r" all regions regions-warm none); do
			run "$p" "$w" "$r"
		done
	done
	r=$((r + 1))
done

echo "error against the whole simulation, per region and count (regions / regions-warm)"
python3 - "$tmp" $progs <<'PY'
import json, sys
tmp, progs = sys.argv[1], sys.argv[2:]
counts = ["instructions", "L1-dcache-load-misses", "L1-icache-load-misses", "L2-load-misses",
          "LLC-load-misses", "branch-misses", "estimated-cycles"]
def regions(p, w):
    return json.load(open("%s/%s.%s.json" % (tmp, p, w)))["variants"][0]["regions"]
def err(a, b):
    if a == 0:
        return "%+d" % b if b else "0"
    return "%+.2f%%" % (100.0 * (b - a) / a)
print("%-11s %-11s %-22s %14s %10s %12s" % ("program", "region", "count", "whole", "regions", "regions-warm"))
for p in progs:
    a, b, c = regions(p, "all"), regions(p, "regions"), regions(p, "regions-warm")
    for g in sorted(a):
        for m in counts:
            x = a[g]["metrics"].get(m, {}).get("samples", [None])[0]
            if x is None:
                continue
            y = b[g]["metrics"][m]["samples"][0]
            z = c[g]["metrics"][m]["samples"][0]
            print("%-11s %-11s %-22s %14d %10s %12s" % (p, g, m, x, err(x, y), err(x, z)))
PY
echo
echo "speed: elapsed / CPU seconds, median of $rounds interleaved rounds; whole simulation's time over each"
printf '%-11s %14s %14s %14s %14s %16s %16s\n' program whole regions regions-warm none whole/regions whole/warm
for p in $progs; do
	line=$p
	for w in all regions regions-warm none; do
		m=$(sort -k2,2n "$tmp/$p.$w.times" | awk '{ e[NR] = $2 } END { print e[int((NR + 1) / 2)] }')
		c=$(sort -k3,3n "$tmp/$p.$w.times" | awk '{ c[NR] = $3 } END { print c[int((NR + 1) / 2)] }')
		eval "e_$(echo "$w" | tr - _)=\$m c_$(echo "$w" | tr - _)=\$c"
		line="$line $m/$c"
	done
	# shellcheck disable=SC2154 # set by eval
	awk -v l="$line" -v a="$e_all" -v b="$e_regions" -v c="$e_regions_warm" 'BEGIN {
		split(l, f, " "); printf "%-11s %14s %14s %14s %14s %15.2fx %15.2fx\n", f[1], f[2], f[3], f[4], f[5],
		a / b, a / c }'
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"
