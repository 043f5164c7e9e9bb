#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# diff-scale.sh - whyslow diff of two results of N samples each (10^6 by default) against reading and sorting
# the same files in Python (json.load, then statistics.median of each), in the same invocation.
#
#	bench/diff-scale.sh [-n SAMPLES] [-r RUNS]
#
# The two ways take turns RUNS times (default 3); per way the median elapsed and CPU (user + system) time,
# then whyslow's against Python's as ratios, and whether whyslow stayed under the 5 s target of issue 21
# (on this machine, at its load now). A benchmark, not a test: nothing here fails on a slow or noisy machine.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
: "${BUILD:=build}"
need_time diff-scale

n=1000000
runs=3
while [ $# -gt 0 ]; do
	case "$1" in
	-n) n=$2; shift 2 ;;
	-r) runs=$2; shift 2 ;;
	*) echo "usage: bench/diff-scale.sh [-n SAMPLES] [-r RUNS]" >&2; exit 129 ;;
	esac
done
whyslow=$BUILD/src/whyslow
[ -x "$whyslow" ] || { echo "diff-scale: $whyslow is not built; run make first" >&2; exit 1; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
python3 - "$n" "$tmp" <<'PY'
import json, random, sys
n, d = int(sys.argv[1]), sys.argv[2]
rng = random.Random(21)
for name, mu in (("a", 1.0), ("b", 1.01)):
    s = [round(rng.gauss(mu, 0.05), 6) for _ in range(n)]
    with open(f"{d}/{name}.json", "w") as f:
        json.dump({"variants": [{"name": name, "metrics": {"t": {"samples": s}}}]}, f)
PY

# run WAY: one run; appends "WAY ELAPSED CPU" (seconds) to $tmp/results.
run() {
	case "$1" in
	whyslow) /usr/bin/time -f "%e %U %S" -o "$tmp/t" "$whyslow" diff "$tmp/a.json" "$tmp/b.json" >/dev/null 2>&1 ;;
	python) /usr/bin/time -f "%e %U %S" -o "$tmp/t" python3 -c '
import json, statistics, sys
for f in sys.argv[1:]:
    statistics.median(json.load(open(f))["variants"][0]["metrics"]["t"]["samples"])
' "$tmp/a.json" "$tmp/b.json" ;;
	esac
	awk -v w="$1" '{ print w, $1, $2 + $3 }' "$tmp/t" >>"$tmp/results"
}

for r in $(seq 1 "$runs"); do
	for way in $(rotate "$r" whyslow python); do
		run "$way"
	done
done

awk -v n="$n" "$awk_median"'
{ e[$1, ++k[$1]] = $2; c[$1, k[$1]] = $3 }
END {
	for (w in k) {
		for (i = 1; i <= k[w]; i++) { ea[i] = e[w, i]; ca[i] = c[w, i] }
		me[w] = median(ea, k[w]); mc[w] = median(ca, k[w])
	}
	printf "diff of two results of %d samples each, median of %d runs\n", n, k["whyslow"]
	printf "%-8s %10s %10s\n", "way", "elapsed s", "CPU s"
	printf "%-8s %10.2f %10.2f\n", "whyslow", me["whyslow"], mc["whyslow"]
	printf "%-8s %10.2f %10.2f\n", "python", me["python"], mc["python"]
	printf "whyslow/python: elapsed %.2f, CPU %.2f\n", me["whyslow"] / me["python"], mc["whyslow"] / mc["python"]
	printf "target: whyslow diff under 5 s elapsed: %s (%.2f s)\n", me["whyslow"] < 5 ? "met" : "not met", me["whyslow"]
}' "$tmp/results"
