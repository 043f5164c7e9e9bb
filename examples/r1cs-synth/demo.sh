#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# demo.sh - `make demo`: the Vec -> SmallVec question asked of r1cs-synth, the whole drill-down in one command.
#
# The five LC storage variants, each its own build as in the original case, compared with vec-pool (the
# production baseline): time natively, caches and branches from the PMU or, where there is none, from the
# simulator; per region (the synthesizer's markers), per function and its callers; then why. Writes
# demo/result.json, demo/result.md and demo/result.html. Sized to finish in under three minutes on a 2-core
# machine without a PMU.
#
#   R1CS_CONSTRAINTS=N   constraints per run (default 100000: about 0.15 s natively, 3 s simulated)
#   RUNS=N               native runs per variant (default 10)
#   BACKEND=perf|sim|auto  (default auto)
#   DEMO_DIR=DIR         where the result files go (default demo/)
set -eu
cd "$(dirname "$0")/../.."
: "${BUILD:=build}"
N=${R1CS_CONSTRAINTS:-100000}
RUNS=${RUNS:-10}
BACKEND=${BACKEND:-auto}
OUT=${DEMO_DIR:-demo}
R="$BUILD/examples/r1cs-synth"
mkdir -p "$OUT"

echo "whyslow demo: Groth16 circuit synthesis, Vec against SmallVec in the linear-combination indexer" >&2
echo "  ($N constraints per run; variants built from examples/r1cs-synth, baseline vec-pool)" >&2

set -- compare --backend "$BACKEND" -r "$RUNS" --regions --callers --seed 2026 \
	--export-json "$OUT/result.json" --export-markdown "$OUT/result.md" --export-html "$OUT/result.html"
for v in vec-pool vec smallvec1 smallvec2 smallvec4; do
	set -- "$@" -n "$v" "$R/r1cs-synth-$v --constraints $N"
done
"$BUILD/whyslow" "$@"
echo >&2
echo "whyslow demo: wrote $OUT/result.json, $OUT/result.md and $OUT/result.html (re-render: $BUILD/whyslow report --regions --functions $OUT/result.json)" >&2
