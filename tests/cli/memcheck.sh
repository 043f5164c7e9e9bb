#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# memcheck.sh - whyslow under Valgrind's memcheck: what tests/cli/lib.sh runs as whyslow with WS_MEMCHECK=1.
#
# Only whyslow itself is checked: the commands it measures are exec'd, and Valgrind does not follow an exec
# (no --trace-children), so they and the simulator run as usual. Each process's errors go to a log of its
# own in $WS_BUILD/memcheck/ (its lines start "==PID== "; Valgrind's own warnings, such as the syscalls it
# does not know, "--PID-- "), and an error turns the exit status into 99, which no test expects.
# `make test-memcheck` prints every error line of those logs.
mkdir -p "$WS_BUILD/memcheck" || exit 1
exec "${WS_VALGRIND:-valgrind}" --tool=memcheck -q --error-exitcode=99 --track-origins=yes \
	--log-file="$WS_BUILD/memcheck/%p.log" "$WS_MEMCHECK_BIN" "$@"
