#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t0460-terminal.sh - what a measurement prints on a terminal: its progress line and the messages said between runs.
. "$WS_SRC/tests/cli/lib.sh"

if ! command -v script >/dev/null 2>&1; then
	test_skip_all "script(1) is missing: cannot make a terminal"
fi

esc=$(printf '\033')

# A message said while the progress line is up (a failed run, a note on how callers are recorded) must
# clear it first: written after it, the message would continue the line, "warm-up 1/3 (false)whyslow: ...".
test_expect_success 'an error in the runs starts its own line, the progress line cleared before it' '
	{ script -qfec "$WHYSLOW stat -r 2 -w 1 -e wall-time -- false" /dev/null >tty.out; rc=$?; } &&
	test $rc = 1 &&
	test_grep "warm-up 1/3 (false)" tty.out &&
	test_grep "$esc\[Kwhyslow: error: .false. exited with status 1" tty.out &&
	test_grep -v "(false)whyslow" tty.out
'

test_have_prereq PERF_SW || test_skip_next 'perf_event_open cannot sample here'
test_expect_success 'a note in the runs starts its own line too, and the progress goes on after it' '
	script -qfec "$WHYSLOW stat -r 2 -w 1 --backend perf --functions -- /bin/true >/dev/null" /dev/null >note.out &&
	test_grep "$esc\[Kwhyslow: callers of [^ ]*/true" note.out &&
	test_grep -v ")whyslow: callers" note.out
'

test_done
