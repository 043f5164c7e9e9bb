# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh - what the benchmark scripts share; sourced by them, not run (run-all skips it: not executable).

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
