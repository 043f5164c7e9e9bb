#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t0440-signals.sh - SIGHUP, SIGQUIT and SIGTERM stop a measurement as Ctrl-C does: runs saved, exit 128+N; a run that stops is killed.
. "$WS_SRC/tests/cli/lib.sh"

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# PID: wait (up to a minute) until the child of timeout PID, whyslow, blocks in a pipe write: the interrupt
# is for that write (the kernel's function is pipe_write, or anon_pipe_write from Linux 6.16).
in_pipe_write() {
	i=0
	until w=$(grep -l "^PPid:.$1\$" /proc/[0-9]*/status 2>/dev/null | head -n 1 | cut -d/ -f3) &&
		test -n "$w" && grep -q "pipe_write$" /proc/$w/wchan 2>/dev/null || test $i -ge 600
	do
		sleep 0.1
		i=$((i + 1))
	done
}

# Start a long stat, let it finish a few runs, send the signal; the status and the saved runs are checked.
# The signal's default disposition is restored first: a suite started under nohup would otherwise hand
# whyslow an ignored SIGHUP, which whyslow rightly leaves ignored (the test after these).
stop_with() {
	env --default-signal="$1" "$WHYSLOW" stat -r 500 -w 0 -e wall-time --export-json "$1.json" -- sleep 0.05 >"$1.out" 2>"$1.err" &
	pid=$!
	sleep 1
	kill -"$1" $pid
	wait $pid
}

for s in HUP:1 QUIT:3 TERM:15 INT:2; do
	sig=${s%:*} num=${s#*:}
	test_expect_success "SIG$sig keeps and saves the finished runs, exit 128+$num" '
		{ stop_with '$sig'; rc=$?; } &&
		test $rc = '$((128 + num))' &&
		test_grep "interrupted; .* finished runs kept and saved" '$sig'.err &&
		test "$(json '$sig'.json "d[\"partial\"]")" = True &&
		n=$(json '$sig'.json "len(d[\"variants\"][0][\"metrics\"][\"wall-time\"][\"samples\"])") &&
		test $n -gt 2 && test $n -lt 500
	'
done

test_expect_success 'a SIGHUP ignored by whoever started whyslow (nohup) stays ignored' '
	(trap "" HUP; exec "$WHYSLOW" stat -r 30 -w 0 -e wall-time --export-json n.json -- sleep 0.05 >n.out 2>n.err) &
	pid=$! &&
	sleep 0.5 &&
	kill -HUP $pid &&
	wait $pid &&
	test "$(json n.json "len(d[\"variants\"][0][\"metrics\"][\"wall-time\"][\"samples\"])")" = 30
'

test_expect_success 'a signal ends the run in flight at once, not when the run would have ended' '
	"$WHYSLOW" stat -r 3 -w 0 -e wall-time -- sleep 60 >long.out 2>long.err &
	pid=$! &&
	sleep 1 &&
	kill -INT $pid &&
	start=$(date +%s) &&
	{ wait $pid; rc=$?; } &&
	test $rc = 130 &&
	test $(($(date +%s) - start)) -lt 20 &&
	test_grep "interrupted before any run finished" long.err
'

# A run that stops would wait for ever: it is killed and said. timeout(1) ends a whyslow that waits instead (124).
test_expect_success 'a run that stops itself is killed and said, on each way of waiting' '
	test_expect_code 1 timeout 60 "$WHYSLOW" stat -r 3 -w 0 -e wall-time -- sh -c "kill -STOP \$\$" 2>err &&
	test_grep "stopped on SIGSTOP and was killed, as nothing would continue it (run 1)$" err &&
	test_expect_code 1 timeout 60 "$WHYSLOW" stat -r 3 -w 0 -e wall-time --timeout 30 -- sh -c "kill -STOP \$\$" 2>err &&
	test_grep "stopped on SIGSTOP" err &&
	# its time is how soon the stop was seen: no run to keep, even with --ignore-failure
	test_expect_code 1 timeout 60 "$WHYSLOW" stat -r 3 -w 0 -e wall-time --ignore-failure -- sh -c "kill -STOP \$\$" 2>err &&
	test_grep "stopped on SIGSTOP" err
'

# A stop below the run, in a session of its own, stops nothing the runner waits for: the shell waits for its
# child. It is found by looking (twice, half a second apart); one that its parent continues is left alone.
test_expect_success 'a process the run started that stays stopped is found, on each way of waiting' '
	test_expect_code 1 timeout 60 "$WHYSLOW" stat -r 3 -w 0 -e wall-time -- \
		sh -c "setsid sh -c \"kill -STOP \\\$\\\$\"; echo never" 2>err &&
	test_grep "was killed as .sh., which it started, stayed stopped: .*--input FILE" err &&
	test_expect_code 1 timeout 60 "$WHYSLOW" stat -r 3 -w 0 -e wall-time --timeout 30 -- \
		sh -c "setsid sh -c \"kill -STOP \\\$\\\$\"; echo never" 2>err &&
	test_grep "which it started, stayed stopped" err &&
	"$WHYSLOW" stat -r 2 -w 0 -e wall-time -- \
		sh -c "sleep 1 & p=\$!; kill -STOP \$p; sleep 0.2; kill -CONT \$p; wait" >out 2>err &&
	test_grep -v "stopped" err &&
	# stopped most of the time, but continued between the looks (a CPU limiter): it ran, so it is not stuck
	"$WHYSLOW" stat -r 1 -w 0 -e wall-time -- sh -c "sleep 3 & p=\$!; i=0; while test \$i -lt 10; do kill -STOP \$p; sleep 0.2; kill -CONT \$p; sleep 0.02; i=\$((i + 1)); done; wait" >out 2>err &&
	test_grep -v "stopped" err
'

if test_have_prereq SIM; then
	test_expect_success 'a process a simulated run started that stays stopped is found, side by side too' '
		test_expect_code 1 timeout 120 "$WHYSLOW" stat --backend sim -r 2 -j 2 -- \
			sh -c "setsid sh -c \"kill -STOP \\\$\\\$\"; echo never" 2>err &&
		test_grep "was killed as .sh., which it started, stayed stopped" err
	'

	test_expect_success 'a simulated run that stops is killed and said, simulations side by side too' '
		test_expect_code 1 timeout 120 "$WHYSLOW" stat --backend sim -r 2 -j 2 -- sh -c "kill -STOP \$\$" 2>err &&
		test_grep "stopped on SIGSTOP and was killed" err &&
		test_grep -v "plain valgrind" err
	'
fi

# A FIFO whose reader opened it and reads nothing: the export (1000 runs, more than a pipe holds) blocks in
# write after the report. Ctrl-C must end it, the result rescued to a file and the status 130, not the
# failed write's 1.
test_expect_success 'a signal while the result is written to a pipe nobody reads: 130, the result rescued' '
	mkfifo stuck &&
	# read and write, so that the open does not wait: a reader that never reads, held until the end
	exec 9<>stuck &&
	# timeout(1) passes the SIGINT on, and ends a whyslow that ignores it (137) rather than hang the test
	{ TMPDIR=$PWD timeout -s KILL 60 "$WHYSLOW" stat -r 1000 -w 0 -e wall-time --export-json stuck -- true \
		>st.out 2>st.err 9<&- & } &&
	pid=$! &&
	in_pipe_write $pid &&
	kill -INT $pid &&
	{ wait $pid; rc=$?; } &&
	exec 9<&- &&
	test $rc = 130 &&
	test_grep "cannot write .stuck.: interrupted while it waited for its reader, so it is not written (or only in part); the result is saved in .*whyslow-rescued-" st.err &&
	test_grep "interrupted; 1000 finished runs kept" st.err &&
	test "$(json whyslow-rescued-*.json "len(d[\"variants\"][0][\"metrics\"][\"wall-time\"][\"samples\"])")" = 1000
'

# Two exports to FIFOs whose readers read nothing: the first Ctrl-C ends the JSON's write, and the HTML's,
# begun after it, gives up at once rather than wait for a second one. No regular file is left but the rescue.
test_expect_success 'one signal ends every export that waits for a reader: 130, each said not written' '
	mkdir two && cd two &&
	mkfifo j h &&
	exec 7<>j 8<>h &&
	{ TMPDIR=$PWD timeout -s KILL 60 "$WHYSLOW" stat -r 1000 -w 0 -e wall-time --export-json j --export-html h \
		-- true >st.out 2>st.err 7<&- 8<&- & } &&
	pid=$! &&
	in_pipe_write $pid &&
	kill -INT $pid &&
	{ wait $pid; rc=$?; } &&
	exec 7<&- 8<&- &&
	test $rc = 130 &&
	test_grep "cannot write .j.: interrupted while it waited for its reader, so it is not written (or only in part); the result is saved in" st.err &&
	test_grep "^whyslow: error: cannot write .h.: interrupted while it waited for its reader, so it is not written (or only in part)\$" st.err &&
	test_grep "interrupted; 1000 finished runs kept" st.err &&
	test -p j && test -p h &&
	test "$(ls -A | grep -v "^st\.\|^j\$\|^h\$\|^whyslow-rescued-.*\.json\$")" = ""
'

# script(1) gives whyslow a terminal: a run, in a process group of its own, that reads it gets SIGTTIN.
if command -v script >/dev/null 2>&1; then
	test_expect_success 'a run that reads the terminal is said to, with the fix' '
		test_expect_code 1 timeout 60 script -qec "\"$WHYSLOW\" stat -r 2 -w 0 -e wall-time -- sh -c \"read x </dev/tty\"" /dev/null >out &&
		test_grep "stopped on SIGTTIN, as it read from the terminal" out &&
		test_grep "input FILE" out
	'
fi

test_done
