#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# callers-unwind.sh - what DWARF unwinding costs per sample: whyslow's profiler against perf record --call-graph dwarf
# with perf report (perf unwinds when it reports), at the same rate, measured interleaved in the same invocation.
#
#	bench/callers-unwind.sh [-r RUNS] [-n ROUNDS] [-F HZ]
#
# The program is examples/profile/ratio (-n ROUNDS of its loops, about 0.5 s here). Four ways take turns, in a
# rotating order, RUNS times each after one warm-up:
#
#	whyslow         profile-driver -F HZ -g none  -- ratio ...   (lib/perf/profile.c, as the runner uses it)
#	whyslow-dwarf   profile-driver -F HZ -g dwarf -- ratio ...
#	perf            perf record -F HZ -o FILE -- ratio ... ; perf report -i FILE --stdio
#	perf-dwarf      perf record -F HZ --call-graph dwarf -o FILE -- ratio ... ; perf report -i FILE --stdio -g
#
# Per way the median wall time of the whole command (the run, then symbolizing and summing, or writing and
# reporting) and the samples; then per tool the cost of DWARF call chains per sample: (dwarf - plain) /
# samples, in microseconds, and whyslow's against perf's as a ratio. A benchmark, not a test: nothing here
# fails on a slow or noisy machine. Skipped without perf.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
: "${BUILD:=build}"

runs=5
rounds=3000
freq=4000
ratio_setup callers-unwind "$@"
perf=$(command -v perf 2>/dev/null || true)
if [ -z "$perf" ] || ! "$perf" record -q -F "$freq" --call-graph dwarf -o /dev/null -- true >/dev/null 2>&1; then
	echo "callers-unwind: skipped: perf record --call-graph dwarf does not work here (linux-perf)"
	exit 0
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
ways="whyslow whyslow-dwarf perf perf-dwarf"

# way WAY: the command of one run.
way() {
	case "$1" in
	whyslow) "$driver" -F "$freq" -g none -- "$ratio" -n "$rounds" >"$tmp/out" 2>"$tmp/err" ;;
	whyslow-dwarf) "$driver" -F "$freq" -g dwarf -- "$ratio" -n "$rounds" >"$tmp/out" 2>"$tmp/err" ;;
	perf) "$perf" record -q -F "$freq" -o "$tmp/perf.data" -- "$ratio" -n "$rounds" 2>"$tmp/err" >/dev/null &&
		"$perf" report -i "$tmp/perf.data" --stdio >"$tmp/out" 2>>"$tmp/err" ;;
	perf-dwarf) "$perf" record -q -F "$freq" --call-graph dwarf -o "$tmp/perf.data" -- "$ratio" -n "$rounds" \
			2>"$tmp/err" >/dev/null &&
		"$perf" report -i "$tmp/perf.data" --stdio -g >"$tmp/out" 2>>"$tmp/err" ;;
	esac
}

# run WAY: one run; appends "WAY COMMAND_MICROSECONDS SAMPLES" to $tmp/results.
run() {
	clocked callers-unwind "$1"
	case "$1" in
	whyslow*) samples=$(sed -n 's/^total	\([0-9]*\)	.*/\1/p' "$tmp/out") ;;
	# perf report rounds its count ("1K"): count the samples, outside the timed part.
	perf*) samples=$("$perf" script -i "$tmp/perf.data" -F period 2>/dev/null | grep -c .) ;;
	esac
	echo "$1 $usec ${samples:-0}" >>"$tmp/results"
}

interleave "$runs" "$ways" "$tmp/results"

echo "callers-unwind: ratio -n $rounds, $runs runs per way interleaved, sampling at $freq Hz"
echo "machine: $(nproc) CPUs, $(uname -r), load average $(cut -d " " -f 1-3 /proc/loadavg), perf: $("$perf" --version)"
awk -v ways="$ways" "$awk_median"'
	{ n[$1]++; wall[$1, n[$1]] = $2 / 1e6; smp[$1, n[$1]] = $3 }
	END {
		printf "%-14s %12s %10s\n", "way", "command (s)", "samples"
		split(ways, w, " ")
		for (k = 1; k in w; k++) {
			for (i = 1; i <= n[w[k]]; i++) { c[i] = wall[w[k], i]; s[i] = smp[w[k], i] }
			mc[w[k]] = median(c, n[w[k]])
			ms[w[k]] = median(s, n[w[k]])
			printf "%-14s %12.4f %10d\n", w[k], mc[w[k]], ms[w[k]]
		}
		cw = ms["whyslow-dwarf"] ? (mc["whyslow-dwarf"] - mc["whyslow"]) / ms["whyslow-dwarf"] * 1e6 : 0
		cp = ms["perf-dwarf"] ? (mc["perf-dwarf"] - mc["perf"]) / ms["perf-dwarf"] * 1e6 : 0
		printf "DWARF call chains per sample: whyslow %.1f us, perf record + report %.1f us", cw, cp
		if (cp > 0)
			printf ": %.2fx perf", cw / cp
		printf "\n"
	}' "$tmp/results"
