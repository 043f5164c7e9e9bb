#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t8001-profile-spread.sh - sampling follows threads and child processes, and names shared-library code.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq PERF_SW || test_skip_all 'software perf events cannot be opened here'

D=$WS_PROFILE_DRIVER
E=$WS_PROFILE_EXAMPLES

# share_at_least FILE NAME OBJECT MIN: the function NAME in OBJECT holds at least MIN of the profile.
share_at_least() {
	awk -F '	' -v name="$2" -v obj="$3" -v min="$4" '
		$1 == "fn" && $6 == name && $7 == obj { s = $2 }
		END { printf "%s in %s: %s\n", name, obj, s; exit !(s + 0 >= min) }' "$1"
}

# spread runs three equal loops at once: in a second thread, in a forked child, and in libprofwork.so. Each
# gets about a third of the samples; 0.15 leaves room for a loaded machine's scheduling.
test_expect_success 'a thread, a child process and a shared library are each attributed' '
	"$D" -- "$E/spread" 0.3 >out &&
	share_at_least out spread_thread_spin "$E/spread" 0.15 &&
	share_at_least out spread_child_spin "$E/spread" 0.15 &&
	share_at_least out profwork_lib_spin "$E/libprofwork.so" 0.15
'

test_expect_success 'the shared library function has its source lines' '
	test_grep "^line	profwork_lib_spin	.*profwork\.c:[0-9]" out
'

test_expect_success 'a fixed-address (non-PIE) executable is symbolized too' '
	"$D" -- "$E/ratio-nopie" -t 0.3 >out2 &&
	share_at_least out2 ratio_work3 "$E/ratio-nopie" 0.5
'

test_done
