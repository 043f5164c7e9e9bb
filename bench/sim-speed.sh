#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# sim-speed.sh - how fast whyslow simulates against cachegrind: idle, loaded, two at once, region-scoped.
#
#   BUILD=build bench/sim-speed.sh [ROUNDS] [WORKLOAD...]
#
# Six workloads (a hash/search/indirect mix, GNU sort, xz -6, a Python loop, gcc -O2, and r1cs-synth, which
# marks regions), each through `whyslow stat --backend sim --exact -r 1` (whyslow's own work counts) and
# under cachegrind with zen4's geometry, in interleaved rounds (default 5): idle; with a spinning process
# at nice 0 held to one CPU; two simulations at once (-j 2) as throughput against two cachegrinds at once;
# and --sim-scope regions where the program has regions. bench/sim-speed.py holds the driver and says more.
set -u
cd "$(dirname "$0")/.." || exit 1
: "${BUILD:=build}"
export BUILD
if ! command -v python3 >/dev/null 2>&1 || [ ! -x /usr/bin/python3 ]; then
	echo "sim-speed: skipped: needs /usr/bin/python3"
	exit 0
fi
exec /usr/bin/python3 bench/sim-speed.py "$@"
