#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# peers.sh - whyslow beside every peer in one run: harness cost, statistics, simulator, markers, sampling.
#
#   BUILD=build bench/peers.sh
#
# Prints the README's peer tables (markdown), each peer's figure next to whyslow's, all measured now, timing
# interleaved where timing is compared; then its own elapsed and CPU time. About 4 minutes on a 2-core
# machine. Peers it cannot find are left out with the reason (tools/install-deps --bench installs them).
# bench/peers.py holds the driver and says what each row measures and which knobs there are.
set -u
cd "$(dirname "$0")/.." || exit 1
: "${BUILD:=build}"
export BUILD
if [ ! -x /usr/bin/python3 ]; then
	echo "peers: skipped: needs /usr/bin/python3"
	exit 0
fi
exec /usr/bin/python3 bench/peers.py "$@"
