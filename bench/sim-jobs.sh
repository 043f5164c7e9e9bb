#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sim-jobs.sh - make demo's simulation phase one at a time (-j 1) and N at once (-j N): its time and counts.
#
#   BUILD=build bench/sim-jobs.sh [ROUNDS] [CONSTRAINTS] [JOBS]
#
# The simulations make demo makes (examples/r1cs-synth/demo.sh: five variants x 3 simulated runs, with
# --regions and --functions), run alone: `whyslow compare --backend sim` with the demo's arguments, at
# -j 1 and -j JOBS in alternating rounds (default 2 each; CONSTRAINTS default 100000, the demo's; JOBS
# default 2, the CPUs here: the target is for two). Prints each one's elapsed and CPU seconds, the speed-up
# of -j JOBS (the median of the rounds' ratios), whether the regions' counts are the same in both results,
# and how far apart the whole-process counts are (the programs read the clock, so those move by a few
# instructions from run to run whatever -j).
set -u
cd "$(dirname "$0")/.." || exit 1
: "${BUILD:=build}"
rounds=${1:-2}
n=${2:-100000}
jobs=${3:-2}
case $jobs in
''|*[!0-9]*|0|1) echo "sim-jobs: JOBS must be a number of 2 or more, not '$jobs'" >&2; exit 129 ;;
esac
R="$BUILD/examples/r1cs-synth"
# shellcheck source=bench/lib.sh
. bench/lib.sh

sim_setup sim-jobs "$R/r1cs-synth-vec"

set -- compare --backend sim --regions --functions --seed 2026
for v in vec-pool vec smallvec1 smallvec2 smallvec4; do
	set -- "$@" -n "$v" "$R/r1cs-synth-$v --constraints $n"
done
echo "sim-jobs: make demo's simulations ($n constraints), $rounds rounds each of -j 1 and -j $jobs; load $(cut -d' ' -f1-3 /proc/loadavg)"
r=1
while [ "$r" -le "$rounds" ]; do
	for j in $(rotate "$r" 1 "$jobs"); do
		timed "sim-jobs: -j $j failed" "$BUILD/whyslow" "$@" -j "$j" --export-json "$tmp/j$j.json"
		awk -v r="$r" '{ printf "%s %s %.2f\n", r, $1, $2 + $3 }' "$tmp/time" >>"$tmp/t$j"
	done
	r=$((r + 1))
done
python3 - "$tmp" "$jobs" <<'PY'
import json, statistics, sys
tmp, J = sys.argv[1], int(sys.argv[2])
t = {j: [tuple(map(float, l.split()[1:])) for l in open("%s/t%d" % (tmp, j))] for j in (1, J)}
for j in (1, J):
    print("-j %d: elapsed %s s, CPU %s s" % (j, " ".join("%.1f" % e for e, _ in t[j]), " ".join("%.1f" % c for _, c in t[j])))
ratios = [a[0] / b[0] for a, b in zip(t[1], t[J])]
med = statistics.median(ratios)
# The demo's programs print how long they took, so their whole-process counts move by a few instructions
# from run to run, whatever -j (README: deterministic only nearly); their regions do not.
d = {j: json.load(open("%s/j%d.json" % (tmp, j)))["variants"] for j in (1, J)}
regions_same = all(json.dumps(a["regions"], sort_keys=True) == json.dumps(b["regions"], sort_keys=True)
                   for a, b in zip(d[1], d[J]))
worst = 0.0
for a, b in zip(d[1], d[J]):
    for m, x in a["metrics"].items():
        for p, q in zip(x.get("samples") or [], b["metrics"][m].get("samples") or []):
            if isinstance(p, (int, float)) and isinstance(q, (int, float)) and p:
                worst = max(worst, abs(q - p) / abs(p))
print("-j %d is %.2fx faster than -j 1 (median of %s)" % (J, med, ", ".join("%.2fx" % r for r in ratios)))
print("regions identical: %s; whole-process counts within %.4f%% of each other (whyslow treats 0.1%% as exact)" %
      ("yes" if regions_same else "NO", 100 * worst))
same = regions_same and worst <= 0.001
if J == 2:
    print("target: at least 1.70x with the same counts: %s" % ("met" if med >= 1.7 and same else "NOT met"))
else:
    print("counts the same: %s (the 1.70x target is for -j 2)" % ("yes" if same else "NO"))
PY
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
