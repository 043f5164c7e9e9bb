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

# awk_median: an awk function median(arr, n) over arr[1..n] (sorted in place), to put before a program.
awk_median='
	function median(arr, n,    i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && arr[j - 1] > arr[j]; j--) { t = arr[j]; arr[j] = arr[j - 1]; arr[j - 1] = t }
		return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
	}
'
