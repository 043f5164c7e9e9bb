#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# stats-power.sh - false alarms (A vs A) and power (A vs A+2%) of whyslow's default verdict, and of poop's and
# hyperfine's documented decision rules applied to the very same samples, measured on this machine now.
#
# Each session is one `whyslow compare -r RUNS -e METRIC` of two programs, interleaved (whyslow's default run
# order), saved with --export-json. A session is either A against A (the same binary twice, told apart by -n)
# or A against A+EXTRA% (the same binary doing EXTRA% more steps of a fixed loop, so the effect is real and
# known). The two kinds alternate, and swap places every other pair, so that the load of this shared machine
# drifts over both alike. bench/stats-power.py then reads the samples back and applies every rule to them.
#
# Knobs (environment):
#   SESSIONS  sessions per kind (default 80: 2-4 minutes on a loaded 2-core machine; 400 for tighter CIs)
#   RUNS      runs per program per session (default 10, whyslow's default)
#   EXTRA     the known effect in percent (default 2)
#   METRIC    the sampled metric (default wall-time; user-time is far less noisy on a shared machine)
#   KEEP      a directory that keeps every session's JSON (default: a temporary one, removed)
#
# Not a test: the rates move with the machine's load, which is printed with them.
set -eu
cd "$(dirname "$0")/.."
: "${BUILD:=build}"
SESSIONS=${SESSIONS:-80}
RUNS=${RUNS:-10}
EXTRA=${EXTRA:-2}
METRIC=${METRIC:-wall-time}
W="$BUILD/whyslow"
WORK="$BUILD/bench/stats-power-work"

for f in "$W" "$WORK"; do
	[ -x "$f" ] || { echo "stats-power: $f is missing; run make first" >&2; exit 1; }
done

if [ -n "${KEEP:-}" ]; then
	dir=$KEEP
	mkdir -p "$dir"
else
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
fi

# one session: $1 = kind (aa or ab), $2 = index; a failed session leaves no file and is counted as missing
session() {
	out="$dir/$1-$2.json"
	cut -d' ' -f1 /proc/loadavg >"$dir/$1-$2.load"
	if [ "$1" = aa ]; then
		set -- -n A "$WORK" -n "A'" "$WORK"
	else
		set -- -n A "$WORK" -n "A+$EXTRA%" "$WORK --extra $EXTRA"
	fi
	"$W" compare -r "$RUNS" -e "$METRIC" --export-json "$out" "$@" >/dev/null 2>"$out.err" || rm -f "$out"
}

start=$(date +%s)
i=0
while [ "$i" -lt "$SESSIONS" ]; do
	# swap the order every other pair: neither kind always runs first after a pause
	if [ $((i % 2)) -eq 0 ]; then
		session aa "$i"
		session ab "$i"
	else
		session ab "$i"
		session aa "$i"
	fi
	i=$((i + 1))
	[ -t 2 ] && printf '\rstats-power: %d/%d pairs of sessions' "$i" "$SESSIONS" >&2
done
[ -t 2 ] && printf '\n' >&2
end=$(date +%s)

python3 bench/stats-power.py "$dir" "$SESSIONS" "$RUNS" "$EXTRA" "$METRIC" $((end - start))
