#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/stats-sequential.sh - the --runs auto checks of tests/unit/test-stats-mc.c at K times their sessions (default 5), for the figures of docs/statistics.md, 16.
# Usage: bench/stats-sequential.sh [BUILD_DIR] [K]
set -e
build=${1:-build}
WS_MC_SCALE=${2:-5} exec "$build/tests/test-stats-mc" --only 'test_sequential_time_budget,test_sequential_secondary'
