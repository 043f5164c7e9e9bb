#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# overhead.sh - the cost of measuring: 200 runs of /bin/true under whyslow, perf stat and hyperfine, against
# the floor of a bare posix_spawn + wait4 loop, all in the same run.
#
# Each tool's whole invocation is timed; the tools are run in rotating order, REPEAT times, and the median
# is reported with its ratio to the floor. Not a test: a shared machine makes these figures move.
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
: "${BUILD:=build}"
RUNS=${RUNS:-200}
REPEAT=${REPEAT:-7}
W="$BUILD/whyslow"
FLOOR="$BUILD/bench/spawn-floor"
TRUE=$(command -v true)

tools="floor whyslow"
command -v perf >/dev/null 2>&1 && perf stat -e task-clock true >/dev/null 2>&1 && tools="$tools perf"
command -v hyperfine >/dev/null 2>&1 && tools="$tools hyperfine"

run_tool() {
	case "$1" in
	floor) "$FLOOR" "$RUNS" "$TRUE" ;;
	whyslow) "$W" stat -r "$RUNS" -w 0 -e task-clock -- "$TRUE" >/dev/null ;;
	perf) perf stat -r "$RUNS" -e task-clock "$TRUE" 2>/dev/null ;;
	hyperfine) hyperfine -N --runs "$RUNS" --warmup 0 "$TRUE" >/dev/null 2>&1 ;;
	esac
}

now() { date +%s.%N; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
while [ $i -lt "$REPEAT" ]; do
	for t in $(rotate "$i" $tools); do
		s=$(now)
		run_tool "$t"
		e=$(now)
		echo "$e - $s" | bc -l >>"$tmp/$t"
	done
	i=$((i + 1))
done

python3 - "$tmp" "$RUNS" $tools <<'PY'
import statistics, sys
d, runs, tools = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
med = {t: statistics.median(float(x) for x in open(f"{d}/{t}")) for t in tools}
print(f"{runs} runs of /bin/true, median of {len(open(f'{d}/floor').readlines())} repetitions, in the same run")
print(f"{'tool':<34} {'total':>9} {'per run':>10} {'vs floor':>9}")
names = {"floor": "posix_spawn + wait4 loop (floor)", "whyslow": "whyslow stat -e task-clock",
         "perf": "perf stat -r N -e task-clock", "hyperfine": "hyperfine -N --runs N"}
for t in tools:
    print(f"{names[t]:<34} {med[t]:>8.3f}s {1e6 * med[t] / runs:>8.0f}us {med[t] / med['floor']:>8.2f}x")
PY
