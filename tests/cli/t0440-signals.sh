#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t0440-signals.sh - SIGHUP, SIGQUIT and SIGTERM stop a measurement as Ctrl-C does: runs saved, exit 128+N.
. "$WS_SRC/tests/cli/lib.sh"

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

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

test_done
