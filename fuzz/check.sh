#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check.sh - a meson test (TAP): replay one fuzz target's committed corpus, then fuzz it for a few seconds.
#
#   fuzz/check.sh TARGET
#
# WS_FUZZ_BIN names the fuzzer in a -Dfuzz=true build. Otherwise the fuzzer is built in build-fuzz/ at the
# top of the source tree (WS_FUZZ_BUILD), as `make fuzz` builds it, or the test skips with the reason where
# clang or libFuzzer is missing. WS_FUZZ_SECONDS is how long to fuzz (default 5).

set -u
t=$1
secs=${WS_FUZZ_SECONDS:-5}
corpus=$WS_SRC/fuzz/corpus/$t

skip() {
	echo "1..0 # SKIP $*"
	exit 0
}

bin=${WS_FUZZ_BIN:-}
if [ -z "$bin" ]; then
	fb=${WS_FUZZ_BUILD:-$WS_SRC/build-fuzz}
	command -v clang >/dev/null 2>&1 || skip "clang is missing: tools/install-deps --fuzz installs it"
	probe=$(mktemp -d) || exit 1
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' >"$probe/p.c"
	if ! clang -fsanitize=fuzzer -o "$probe/p" "$probe/p.c" >/dev/null 2>&1; then
		rm -rf "$probe"
		skip "clang cannot link libFuzzer (libfuzzer-14-dev): tools/install-deps --fuzz installs it"
	fi
	rm -rf "$probe"
	# The fuzz tests run side by side: one configures and builds at a time, the others then find it built.
	mkdir -p "$fb" || exit 1
	if ! flock "$fb/check.lock" sh -c '
		{ [ -f "$1/build.ninja" ] || CC=clang meson setup "$1" "$2" -Dfuzz=true -Dsim=disabled -Dman=disabled \
			--buildtype=debugoptimized; } && ninja -C "$1" "fuzz/fuzz-$3"' sh "$fb" "$WS_SRC" "$t" >"$WS_BUILD/fuzz-$t-build.log" 2>&1
	then
		echo "1..1"
		echo "not ok 1 - build fuzz-$t in $fb (log: $WS_BUILD/fuzz-$t-build.log)"
		sed 's/^/# /' "$WS_BUILD/fuzz-$t-build.log" | tail -20
		exit 1
	fi
	bin=$fb/fuzz/fuzz-$t
fi

work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
echo "1..2"
n=$(ls "$corpus" | wc -l)
# -runs=0 executes every input of the corpus once, then stops.
if "$bin" -runs=0 -timeout=10 -close_fd_mask=3 -artifact_prefix="$work/" "$corpus" >"$work/replay.log" 2>&1; then
	echo "ok 1 - fuzz-$t replays its $n corpus inputs"
else
	echo "not ok 1 - fuzz-$t replays its $n corpus inputs"
	sed 's/^/# /' "$work/replay.log" | tail -40
fi
# New inputs go to a scratch corpus (the first directory), never into the source tree.
mkdir "$work/new"
if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 -artifact_prefix="$work/" \
	-print_final_stats=1 "$work/new" "$corpus" >"$work/fuzz.log" 2>&1; then
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log")
	cov=$(grep -o 'cov: [0-9]*' "$work/fuzz.log" | tail -1)
	echo "ok 2 - fuzz-$t for ${secs} s: ${execs:-?} inputs, ${cov:-cov: ?}, no crash, hang or leak"
else
	echo "not ok 2 - fuzz-$t for ${secs} s found a crash, hang or leak (the input is printed in the log)"
	sed 's/^/# /' "$work/fuzz.log" | tail -60
fi
