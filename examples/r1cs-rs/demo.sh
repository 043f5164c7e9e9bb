#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# demo.sh - the Vec -> SmallVec question asked of the Rust twin (real rustc, the real smallvec crate).
#
# The same command as examples/r1cs-synth/demo.sh, on the five cargo builds of examples/r1cs-rs: time
# natively, caches and branches from the PMU or the simulator, per region, per function and its callers, then why.
# Writes demo/rust.json and demo/rust.md.
#
#   R1CS_CONSTRAINTS=N   constraints per run (default 100000)
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
R="$BUILD/examples/r1cs-rs"
mkdir -p "$OUT"

if [ ! -x "$R/r1cs-rs-vec" ]; then
	echo "whyslow demo: the Rust builds are missing ($R): install rustc, cargo and librust-smallvec-dev (make does)" >&2
	exit 1
fi
echo "whyslow demo (Rust): the same circuit with real rustc and the real smallvec crate" >&2
echo "  ($N constraints per run; variants built from examples/r1cs-rs, baseline vec-pool)" >&2

set -- compare --backend "$BACKEND" -r "$RUNS" --regions --callers --seed 2026 \
	--export-json "$OUT/rust.json" --export-markdown "$OUT/rust.md"
for v in vec-pool vec smallvec1 smallvec2 smallvec4; do
	set -- "$@" -n "$v" "$R/r1cs-rs-$v --constraints $N"
done
"$BUILD/whyslow" "$@"
echo >&2
echo "whyslow demo: wrote $OUT/rust.json and $OUT/rust.md (re-render: $BUILD/whyslow report --regions --functions $OUT/rust.json)" >&2
