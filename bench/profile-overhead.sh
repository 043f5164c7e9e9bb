#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# profile-overhead.sh - what sampling costs the sampled program: whyslow's profiler against unsampled runs,
# with `perf record` at the same rate as the named peer, measured interleaved in the same invocation.
#
#	bench/profile-overhead.sh [-r RUNS] [-n ROUNDS] [-F HZ]
#
# The program is examples/profile/ratio with a fixed amount of work (-n ROUNDS rounds of its 3:1 loops, about
# 0.6 s here). Three ways of running it take turns, in a rotating order, RUNS times each after one warm-up:
#
#	plain     ratio -n ROUNDS
#	whyslow   profile-driver -F HZ -- ratio ...      (the engine in lib/perf/profile.c, as the runner will use it)
#	perf      perf record -F HZ -o FILE -- ratio ... (the peer; skipped when perf is not installed)
#
# Three figures per way, as medians: the program's own wall time for its rounds (it measures itself, so the
# tool's start-up and wrap-up are not in it: this is the slowdown a measurement sees), its CPU time for them
# (user + system, where the sampling interrupts are charged: steadier than wall time on a loaded machine),
# and the whole command's wall time (start-up, the run, and the wrap-up: whyslow symbolizes and sums per
# function, perf record writes perf.data and collects build-ids). Ratios are against plain. A benchmark,
# not a test: nothing here fails on a slow or noisy machine.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
: "${BUILD:=build}"

runs=10
rounds=4000
freq=4000
ratio_setup profile-overhead "$@"
perf=$(command -v perf 2>/dev/null || true)
if [ -n "$perf" ] && ! "$perf" record -q -F "$freq" -o /dev/null -- true >/dev/null 2>&1; then
	echo "profile-overhead: perf record does not work here; measuring without the peer" >&2
	perf=
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

ways="plain whyslow"
[ -n "$perf" ] && ways="$ways perf"

# way WAY: the command of one run.
way() {
	case "$1" in
	plain) "$ratio" -n "$rounds" -v 2>"$tmp/err" ;;
	whyslow) "$driver" -F "$freq" -- "$ratio" -n "$rounds" -v >"$tmp/out" 2>"$tmp/err" ;;
	perf) "$perf" record -q -F "$freq" -o "$tmp/perf.data" -- "$ratio" -n "$rounds" -v 2>"$tmp/err" ;;
	esac
}

# run WAY: one run; appends "WAY PROGRAM_SECONDS COMMAND_MICROSECONDS PROGRAM_CPU_SECONDS" to $tmp/results.
run() {
	clocked profile-overhead "$1"
	prog=$(sed -n 's/^ratio: [0-9]* rounds in \([0-9.]*\) s, cpu \([0-9.]*\) s$/\1 \2/p' "$tmp/err")
	set -- "$1" $prog
	echo "$1 $2 $usec $3" >>"$tmp/results"
	if [ "$1" = whyslow ]; then
		sed -n 's/^event	\([^	]*\)	.*/\1/p' "$tmp/out" >"$tmp/event"
		sed -n 's/^total	\([0-9]*\)	.*/\1/p' "$tmp/out" >>"$tmp/samples"
	fi
}

interleave "$runs" "$ways" "$tmp/results" "$tmp/samples"

echo "profile-overhead: ratio -n $rounds, $runs runs per way interleaved, sampling at $freq Hz" \
	"($(cat "$tmp/event") here; median $(sort -n "$tmp/samples" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }') samples per whyslow run)"
echo "machine: $(nproc) CPUs, $(uname -r), load average $(cut -d " " -f 1-3 /proc/loadavg), perf: ${perf:-not installed}"
awk -v ways="$ways" "$awk_median"'
	{ n[$1]++; prog[$1, n[$1]] = $2; wall[$1, n[$1]] = $3 / 1e6; cpu[$1, n[$1]] = $4 }
	END {
		printf "%-8s %12s %8s %12s %8s %12s %8s\n", "way", "program (s)", "ratio", "cpu (s)", "ratio",
			"command (s)", "ratio"
		split(ways, w, " ")
		for (k = 1; k in w; k++) {
			for (i = 1; i <= n[w[k]]; i++) { p[i] = prog[w[k], i]; c[i] = wall[w[k], i]; u[i] = cpu[w[k], i] }
			mp[w[k]] = median(p, n[w[k]])
			mc[w[k]] = median(c, n[w[k]])
			mu[w[k]] = median(u, n[w[k]])
		}
		for (k = 1; k in w; k++)
			printf "%-8s %12.4f %7.3fx %12.4f %7.3fx %12.4f %7.3fx\n", w[k], mp[w[k]], mp[w[k]] / mp["plain"],
				mu[w[k]], mu[w[k]] / mu["plain"], mc[w[k]], mc[w[k]] / mc["plain"]
	}' "$tmp/results"
