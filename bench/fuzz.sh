#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz.sh - fuzz each libFuzzer target of fuzz/ for a while under ASan+UBSan and tabulate what it did.
#
#   bench/fuzz.sh [SECONDS [TARGET...]]     SECONDS per target (default 60); every target by default
#
# The fuzzers come from the clang build in $FUZZ_BUILD (default build-fuzz; `make fuzz-build`). Each target
# starts from the committed corpus, fuzz/corpus/TARGET (read only), and from what earlier campaigns found,
# $FUZZ_BUILD/corpus/TARGET, where new inputs go. A finding stops its target and is kept in
# $FUZZ_BUILD/artifacts/: crash-* (ASan, UBSan, an abort), timeout-* (one input over 10 s), leak-* (LSan),
# oom-* (over 2 GiB). The table gives per target: executions, executions per second, libFuzzer's coverage
# (cov: the code edges reached; ft: features), the corpus (inputs and bytes) and the findings.
# Run at nice 19: the fuzzers take a whole core each and yield to anything else.
set -u
cd "$(dirname "$0")/.."
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-result event command sim-output elf}
fb=${FUZZ_BUILD:-build-fuzz}

for t in $targets; do
	if [ ! -x "$fb/fuzz/fuzz-$t" ]; then
		echo "fuzz.sh: no fuzzer $fb/fuzz/fuzz-$t: build them with 'make fuzz-build' (clang, libfuzzer-14-dev)" >&2
		exit 0
	fi
done
mkdir -p "$fb/artifacts" "$fb/logs" || exit 1

total=0
findings=0
printf '| target | seconds | executions | exec/s | cov | ft | corpus | crashes | hangs > 10 s | leaks |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for t in $targets; do
	work=$fb/corpus/$t
	log=$fb/logs/$t.log
	mkdir -p "$work"
	# -close_fd_mask=3: the targets' own output (usage errors) is noise; libFuzzer's report stays.
	nice -n 19 "$fb/fuzz/fuzz-$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 \
		-print_final_stats=1 -artifact_prefix="$fb/artifacts/$t-" "$work" "fuzz/corpus/$t" >"$log" 2>&1
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	last=$(grep -E '^#[0-9]+' "$log" | tail -1)
	cov=$(printf '%s\n' "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(printf '%s\n' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	n=$(find "$work" "fuzz/corpus/$t" -type f | wc -l)
	kb=$(cat "$work"/* "fuzz/corpus/$t"/* 2>/dev/null | wc -c)
	hangs=$(grep -c 'ERROR: libFuzzer: timeout' "$log")
	leaks=$(grep -c 'ERROR: LeakSanitizer' "$log")
	# A leak that a target finds itself ends in an abort, libFuzzer's "deadly signal": one finding, a leak.
	crashes=$(grep -c -E 'ERROR: AddressSanitizer|runtime error:|ERROR: libFuzzer: (deadly signal|out-of-memory|fuzz target exited)' "$log")
	crashes=$((crashes > leaks ? crashes - leaks : 0))
	findings=$((findings + crashes + hangs + leaks))
	total=$((total + ${execs:-0}))
	printf '| %s | %s | %s | %s | %s | %s | %s inputs, %s KiB | %s | %s | %s |\n' "$t" "$secs" "${execs:-?}" \
		"${rate:-?}" "${cov:-?}" "${ft:-?}" "$n" "$((kb / 1024))" "$crashes" "$hangs" "$leaks"
done
printf '\ntotal: %s executions, %s findings (logs in %s/logs, inputs in %s/artifacts)\n' "$total" "$findings" "$fb" "$fb"
[ "$findings" = 0 ]
