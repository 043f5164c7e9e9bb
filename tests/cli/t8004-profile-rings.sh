#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t8004-profile-rings.sh - ring buffers: wrap-around, records lost to a full ring, order across rings.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq PERF_SW || test_skip_all 'software perf events cannot be opened here'

D=$WS_PROFILE_DRIVER
E=$WS_PROFILE_EXAMPLES

# field FILE N: field N of the total line (2 samples, 6 lost, 8 full rings).
field() {
	awk -F '	' -v n="$2" '$1 == "total" { print $n }' "$1"
}

# A two-page ring holds about 170 samples: drained every 20 ms (or when half full) it wraps around without loss,
# and a process's fork and mmap records, in one CPU's ring, must still come before its samples in another's.
test_expect_success 'small rings drained often: wrap-arounds, nothing lost, all attributed' '
	"$D" --ring-pages=2 --poll-ms=20 -- "$E/spread" 0.3 >out 2>err &&
	test "$(field out 6)" = 0 && test "$(field out 8)" = 0 &&
	test "$(field out 2)" -gt 300 &&
	test_grep "^fn	.*	spread_thread_spin	$E/spread$" out &&
	test_grep "^fn	.*	spread_child_spin	$E/spread$" out &&
	test_grep "^fn	.*	profwork_lib_spin	$E/libprofwork.so$" out &&
	test_grep -v "lost" err
'

test_expect_success 'a ring drained too late counts its lost records and says so' '
	"$D" --ring-pages=1 --sleep-ms=200 -- "$E/ratio" -t 0.5 >out 2>err &&
	test "$(field out 6)" -gt 0 &&
	test_grep "^fn	.*	ratio_work3	" out &&
	test_grep "warning: profile: .*[0-9][0-9]* records lost to full sampling rings" err
'

test_expect_success 'a ring full when the run ends is reported, though the kernel counted nothing' '
	"$D" --ring-pages=1 --poll-ms=0 -- "$E/ratio" -t 0.5 >out 2>err &&
	test "$(field out 8)" -gt 0 &&
	test_grep "warning: profile: .*records" err
'

test_done
