#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t8003-profile-errors.sh - the profiler's failures: one clear line each, nothing left running or open.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq PERF_SW || test_skip_all 'software perf events cannot be opened here'

D=$WS_PROFILE_DRIVER
E=$WS_PROFILE_EXAMPLES

ncpus=$("$D" -v -- /bin/true 2>&1 >/dev/null | sed -n "s/.* on \([0-9]*\) CPUs$/\1/p")

test_expect_success 'a hardware second event without a PMU: unsupported on this machine' '
	if test_have_prereq PMU; then
		"$D" --functions=L1-dcache-load-misses -- "$E/ratio" -t 0.05 >out &&
		test_grep "^extra	L1-dcache-load-misses$" out
	else
		test_expect_code 1 "$D" --functions=L1-dcache-load-misses -- "$E/ratio" -t 0.05 >out 2>err &&
		test_line_count = 1 err &&
		test_grep "cannot sample L1-dcache-load-misses: unsupported on this machine.*no PMU" err &&
		test_line_count = 0 out
	fi
'

test_expect_success 'a second event that fails under a working first event (fake PMU)' '
	test -n "$ncpus" &&
	test_expect_code 1 "$D" --fake-pmu --functions=branch-misses --fail=$((ncpus + 1))+:ENOENT \
		-- "$E/ratio" -t 0.05 >out 2>err &&
	test_line_count = 1 err &&
	test_grep "cannot sample branch-misses: unsupported on this machine.*PMU does not count it" err
'

# The first open refused as perf_event_paranoid=2 refuses the kernel: the profile falls back to user space
# only, where an event the kernel counts would read 0.
test_expect_success 'a second event counted in the kernel, under a profile of user space only: refused (fake PMU)' '
	test_expect_code 1 "$D" --fake-pmu --fail=1:EACCES --functions=context-switches -- /bin/true >out 2>err &&
	test_line_count = 1 err &&
	test_grep "cannot sample context-switches: it counts in the kernel, which kernel.perf_event_paranoid=" err
'

test_expect_success 'an unknown event name is a usage error with suggestions' '
	test_expect_code 129 "$D" --functions=branch-mises -- /bin/true 2>err &&
	test_line_count = 1 err &&
	test_grep "unknown event .branch-mises.; did you mean branch-misses" err &&
	test_expect_code 129 "$D" -e cpu-clok -- /bin/true 2>err &&
	test_line_count = 1 err &&
	test_grep "unknown event .cpu-clok.; did you mean cpu-clock" err
'

test_expect_success 'an explicit hardware event is not replaced by cpu-clock' '
	if test_have_prereq PMU; then
		"$D" -e cycles -- /bin/true >out && test_grep "^event	cycles	" out
	else
		test_expect_code 1 "$D" -e cycles -- /bin/true 2>err &&
		test_line_count = 1 err &&
		test_grep "cannot sample cycles: unsupported on this machine.*no PMU" err
	fi
'

test_expect_success 'permission denied names the sysctl' '
	test_expect_code 1 "$D" --fail=1+:EACCES -- /bin/true 2>err &&
	test_line_count = 1 err &&
	test_grep "permission denied (kernel.perf_event_paranoid=[0-9-]*); run .sysctl -w kernel.perf_event_paranoid=1." err
'

test_expect_success 'refused with the kernel, the profile falls back to user space only' '
	"$D" -v -e cpu-clock --fail=1:EACCES -- "$E/ratio" -t 0.2 >out 2>err &&
	test_grep "cpu-clock: user space only" err &&
	test_grep -v "^fn	.*	\[kernel\]	" out &&
	test_grep "^fn	.*	ratio_work3	" out
'

test_expect_success 'out of file descriptors on a later CPU: one line, everything closed' '
	if test "${ncpus:-1}" -gt 1; then
		test_expect_code 1 "$D" -e cpu-clock --fail=2+:EMFILE -- /bin/true 2>err
	else
		test_expect_code 1 "$D" -e cpu-clock --fail=1+:EMFILE -- /bin/true 2>err
	fi &&
	test_line_count = 1 err &&
	test_grep "out of file descriptors.*ulimit -n" err
'

test_expect_success 'a command that cannot be executed gives an empty profile, not an error' '
	test_expect_code 2 "$D" -- ./no-such-command >out 2>err &&
	test_grep "^total	0	0	" out &&
	test_grep "^status	127	" out
'

test_done
