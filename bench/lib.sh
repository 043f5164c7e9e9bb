# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh - what the benchmark scripts share; sourced by them, not run (run-all skips it: not executable).
# shellcheck shell=sh

# rotate ROUND WORD...: prints the words rotated left by ROUND (modulo their number). Taking each round's
# order from it, no tool always runs first, or always right after the same other one.
rotate() {
	_rot_k=$(($1 % ($# - 1)))
	shift
	while [ "$_rot_k" -gt 0 ]; do
		_rot_first=$1
		shift
		set -- "$@" "$_rot_first"
		_rot_k=$((_rot_k - 1))
	done
	echo "$@"
}

# interleave RUNS WAYS FILE...: one warm-up run of each of WAYS (page cache, CPU frequency), not counted: the
# FILEs it appended to are emptied after it; then RUNS rounds of every way, each round's order from rotate.
# A run is the caller's own function, `run WAY`.
interleave() {
	_il_runs=$1
	_il_ways=$2
	shift 2
	for _il_w in $_il_ways; do
		run "$_il_w"
	done
	for _il_f in "$@"; do
		: >"$_il_f"
	done
	_il_i=0
	while [ "$_il_i" -lt "$_il_runs" ]; do
		# shellcheck disable=SC2086 # the ways' words
		for _il_w in $(rotate "$_il_i" $_il_ways); do
			run "$_il_w"
		done
		_il_i=$((_il_i + 1))
	done
}

# clocked NAME WAY: one run of WAY by the caller's own function, `way WAY`, which leaves the run's standard
# error in $tmp/err; sets usec to its wall time in microseconds. If it fails, exits 1 after saying so and
# printing $tmp/err.
clocked() {
	_ck_t0=$(date +%s%N)
	way "$2"
	_ck_rc=$?
	_ck_t1=$(date +%s%N)
	if [ "$_ck_rc" != 0 ]; then
		echo "$1: the $2 run failed:" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
	# shellcheck disable=SC2034 # usec is the caller's
	usec=$(( (_ck_t1 - _ck_t0) / 1000 ))
}

# ratio_setup NAME [-r RUNS] [-n ROUNDS] [-F HZ]: the start of the benchmarks that sample examples/profile/ratio.
# Sets runs, rounds and freq from the options (the caller sets their defaults first), exiting 129 with NAME's
# usage on any other word; sets ratio and driver (tests/profile-driver) in $BUILD, exiting 1 if one is not built.
ratio_setup() {
	_rs_name=$1
	shift
	# shellcheck disable=SC2034 # runs, rounds and freq are the caller's
	while [ $# -gt 0 ]; do
		case "$1" in
		-r) runs=$2; shift 2 ;;
		-n) rounds=$2; shift 2 ;;
		-F) freq=$2; shift 2 ;;
		*) echo "usage: bench/$_rs_name.sh [-r RUNS] [-n ROUNDS] [-F HZ]" >&2; exit 129 ;;
		esac
	done
	ratio=$BUILD/examples/profile/ratio
	driver=$BUILD/tests/profile-driver
	for _rs_f in "$ratio" "$driver"; do
		[ -x "$_rs_f" ] || { echo "$_rs_name: $_rs_f is not built; run make first" >&2; exit 1; }
	done
}

# need_time NAME: exits 0 with a "skipped" line unless GNU time is installed (/usr/bin/time, package 'time').
need_time() {
	if [ ! -x /usr/bin/time ]; then
		echo "$1: skipped: needs GNU time (/usr/bin/time, Debian package 'time')"
		exit 0
	fi
}

# need_wsim NAME PROG: exits 0 with a "skipped" line naming what is missing, unless valgrind is installed
# and both the wsim tool and PROG are built in $BUILD.
need_wsim() {
	if ! command -v valgrind >/dev/null 2>&1; then
		echo "$1: skipped: valgrind is not installed"
		exit 0
	fi
	if [ ! -x "$BUILD/sim/wsim-amd64-linux" ] || [ ! -x "$2" ]; then
		echo "$1: skipped: $BUILD/sim/wsim-amd64-linux or $2 is not built (run make)"
		exit 0
	fi
}

# sim_setup NAME PROG...: the start of the simulator's benchmarks, which time runs with GNU time: exits 0 with
# a "skipped" line unless GNU time, valgrind, the wsim tool and every PROG are there (need_time, need_wsim);
# then sets tmp to a scratch directory, removed on exit.
sim_setup() {
	_ss_name=$1
	shift
	need_time "$_ss_name"
	for _ss_prog in "$@"; do
		need_wsim "$_ss_name" "$_ss_prog"
	done
	tmp=$(mktemp -d) || exit 1
	trap 'rm -rf "$tmp"' EXIT
}

# timed FAILURE CMD...: runs CMD under GNU time, its output thrown away, and leaves "ELAPSED USER SYSTEM"
# seconds in $tmp/time; if CMD fails, exits 1 after printing FAILURE and CMD's standard error.
timed() {
	_timed_failure=$1
	shift
	/usr/bin/time -o "$tmp/time" -f "%e %U %S" "$@" >/dev/null 2>"$tmp/err" ||
		{ echo "$_timed_failure" >&2; cat "$tmp/err" >&2; exit 1; }
}

# awk_median: an awk function median(arr, n) over arr[1..n] (sorted in place), to put before a program.
awk_median='
	function median(arr, n,    i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && arr[j - 1] > arr[j]; j--) { t = arr[j]; arr[j] = arr[j - 1]; arr[j - 1] = t }
		return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
	}
'
