#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t0410-exports.sh - nothing measured is lost: a full disk found before the runs, a failed export rescued to
# TMPDIR, the current directory or HOME; exports through symbolic links; a repeated option's last value wins.
. "$WS_SRC/tests/cli/lib.sh"

# whyslow-fake measures without a PMU or valgrind, and runs the hooks: --cleanup breaks the export path.
fake() { "$WS_BUILD/tests/whyslow-fake" "$@"; }

mkdir rescue
TMPDIR=$trash/rescue
export TMPDIR

# The rescue file a message names: the path between "saved in '" and the next quote.
rescued() { sed -n "s/.*saved in '\([^']*\)'.*/\1/p" "$1"; }

test_expect_success 'a result whose directory is removed during the runs is rescued to TMPDIR' '
	mkdir d &&
	test_expect_code 1 fake stat -r 2 --backend fake --export-json d/r.json --cleanup "rm -rf d" -- true >out 2>err &&
	test_line_count = 1 err &&
	test_grep "cannot write .d/r.json.: No such file or directory; the result is saved in .$TMPDIR/whyslow-rescued-.*\.json. instead" err &&
	f=$(rescued err) &&
	jq -e ".variants[0].runs | length == 2" "$f" &&
	rm "$f"
'

test_expect_success 'compare: a failed CSV export with no result file asked for rescues the measurement' '
	mkdir d &&
	test_expect_code 1 fake compare -r 2 --backend fake --export-csv d/r.csv --cleanup "rm -rf d" true "true a" >out 2>err &&
	test_grep "cannot write .d/r.csv.: No such file or directory" err &&
	test_grep "^whyslow compare: the measurement is saved in .$TMPDIR/whyslow-rescued-" err &&
	f=$(rescued err) &&
	jq -e "[.variants[].runs | length] == [2, 2] and (.comparisons | length) > 0" "$f" &&
	rm "$f"
'

# A program that exits 0 three times, then 1: its session stops with a partial result.
cat >flaky <<\EOF
#!/bin/sh
n=$(cat count 2>/dev/null || echo 0)
echo $((n + 1)) >count
test "$n" -lt 3
EOF
chmod +x flaky

test_expect_success 'a partial result does not replace a complete one: it goes beside it, said' '
	whyslow stat -r 3 -w 0 -e wall-time --export-json keep.json -- true >out 2>err &&
	cp keep.json complete.json &&
	rm -f count &&
	test_expect_code 1 whyslow stat -r 5 -w 0 -e wall-time --export-json keep.json -- ./flaky >out 2>err &&
	test_cmp complete.json keep.json &&
	test_grep "warning: .keep.json. holds a complete result, which this partial one does not replace: it is saved in .keep.partial.json." err &&
	jq -e ".partial == true and (.variants[0].runs | length) == 3" keep.partial.json &&
	# a partial result replaces a partial one, and fills a path that held nothing
	rm -f count &&
	test_expect_code 1 whyslow stat -r 5 -w 0 -e wall-time --export-json keep.partial.json -- ./flaky >out 2>err &&
	test_grep -v "holds a complete result" err &&
	rm -f count &&
	test_expect_code 1 whyslow stat -r 5 -w 0 -e wall-time --export-json new.json -- ./flaky >out 2>err &&
	jq -e ".partial == true" new.json
'

test_expect_success 'a partial result to a FIFO is written, not read first to see what it holds' '
	mkfifo out.fifo &&
	{ cat out.fifo >got & } &&
	reader=$! &&
	rm -f count &&
	test_expect_code 1 timeout 60 "$WHYSLOW" stat -r 5 -w 0 -e wall-time --export-json out.fifo -- ./flaky >out 2>err &&
	wait $reader &&
	jq -e ".partial == true and (.variants[0].runs | length) == 3" got
'

test_expect_success 'diff computes from files: a failed export is an error, and nothing is rescued' '
	printf "{\"variants\":[{\"name\":\"a\",\"metrics\":{\"t\":{\"samples\":[1,2,3]}}}]}\n" >a.json &&
	printf "{\"variants\":[{\"name\":\"b\",\"metrics\":{\"t\":{\"samples\":[2,3,4]}}}]}\n" >b.json &&
	ls rescue >before &&
	test_expect_code 1 whyslow diff a.json b.json --export-csv /dev/full >out 2>err &&
	ls rescue >after &&
	test_cmp before after
'

test_expect_success 'an export through a symbolic link replaces its target, which keeps its mode and owner' '
	mkdir t &&
	echo old >t/target.json &&
	chmod 600 t/target.json &&
	{ [ "$(id -u)" != 0 ] || chown 1:1 t/target.json; } &&
	stat -c "%a %u %g" t/target.json >expect &&
	ln -s t/target.json link.json &&
	fake stat -r 2 --backend fake --export-json link.json -- true >out &&
	test -L link.json &&
	stat -c "%a %u %g" t/target.json >actual &&
	test_cmp expect actual &&
	jq -e ".variants[0].runs | length == 2" t/target.json &&
	ls -A t >files &&
	echo target.json >expect &&
	test_cmp expect files
'

test_expect_success 'a dangling link, or a chain of links, makes its target and stays a link' '
	ln -s t/new.json dangling.json &&
	ln -s dangling.json chain.json &&
	fake compare -r 2 --backend fake --export-json chain.json --export-csv dangling.json.csv true "true a" >out &&
	test -L chain.json && test -L dangling.json &&
	test -f t/new.json &&
	jq -e ".variants | length == 2" t/new.json &&
	rm -f t/new.json &&
	ln -s t/new.csv dangling.csv &&
	fake compare -r 2 --backend fake --export-csv dangling.csv true "true a" >out &&
	test -L dangling.csv && test -f t/new.csv
'

test_expect_success 'a repeated single-value option: the last one wins (--export-json, -r)' '
	fake stat -r 5 -r 2 --backend fake --export-json first.json --export-json second.json -- true >out &&
	test_expect_code 1 test -e first.json &&
	jq -e ".variants[0].runs | length == 2" second.json
'

# A small filesystem of our own to fill: only root may mount one.
if [ "$(id -u)" = 0 ] && mkdir small && mount -t tmpfs -o size=64k tmpfs small 2>/dev/null; then
	trap 'umount "$trash/small" 2>/dev/null' EXIT
	have_small=1
else
	have_small=
fi

fill() { dd if=/dev/zero of=small/fill bs=4k >/dev/null 2>&1 || :; }

[ -n "$have_small" ] || test_skip_next 'mounting a 64 KiB tmpfs needs root'
test_expect_success 'a full filesystem is found before the runs: one line, exit 1, no run made' '
	fill &&
	test_expect_code 1 fake stat -r 2 --backend fake --export-json small/r.json --prepare "touch ran" -- true >out 2>err &&
	test_line_count = 1 err &&
	test_grep "^whyslow stat: cannot write --export-json .small/r.json.: No space left on device; fix the path before measuring" err &&
	test_expect_code 1 test -e ran &&
	rm small/fill
'

test_expect_success 'perf without --regions writes nothing in TMPDIR: one it cannot write is a warning there' '
	env TMPDIR=/proc "$WHYSLOW" stat -r 1 -w 0 --backend perf -e task-clock -- true >out 2>err &&
	test_grep "^whyslow stat: warning: cannot write in TMPDIR ./proc.: .*could not be rescued there" err &&
	test_grep "Performance counter stats" out &&
	test_expect_code 1 env TMPDIR=/proc "$WHYSLOW" stat -r 1 -w 0 --backend perf -e task-clock --regions -- true 2>err &&
	test_grep "^whyslow stat: cannot write in TMPDIR" err
'

[ -n "$have_small" ] || test_skip_next 'mounting a 64 KiB tmpfs needs root'
test_expect_success 'a full TMPDIR is found before the runs: one line naming it, exit 1, no run made' '
	fill &&
	test_expect_code 1 env TMPDIR="$trash/small" "$WS_BUILD/tests/whyslow-fake" stat -r 2 --backend fake \
		--prepare "touch ran" -- true >out 2>err &&
	test_line_count = 1 err &&
	test_grep "^whyslow stat: cannot write in TMPDIR .$trash/small.: No space left on device; free space there" err &&
	test_expect_code 1 test -e ran &&
	test -z "$(ls -A small | grep -v "^fill\$")" &&
	rm small/fill
'

[ -n "$have_small" ] || test_skip_next 'mounting a 64 KiB tmpfs needs root'
test_expect_success 'a filesystem that fills during the runs: the result is rescued, to the current directory when TMPDIR is full too' '
	test_expect_code 1 env TMPDIR="$trash/small" "$WS_BUILD/tests/whyslow-fake" stat -r 2 --backend fake \
		--export-json small/r.json --cleanup "sh -c \"dd if=/dev/zero of=small/fill bs=4k 2>/dev/null; true\"" -- true >out 2>err &&
	test_line_count = 1 err &&
	test_grep "cannot write .small/r.json.: No space left on device; the result is saved in .\./whyslow-rescued-" err &&
	f=$(rescued err) &&
	jq -e ".variants[0].runs | length == 2" "$f" &&
	rm "$f" small/fill
'

[ -n "$have_small" ] || test_skip_next 'mounting a 64 KiB tmpfs needs root'
test_expect_success 'a report to a full filesystem is an error, not an empty file and exit 0' '
	fake compare -r 2 --backend fake --export-json c.json true "true a" >out &&
	fill &&
	for f in "" --csv --markdown --html; do
		test_expect_code 1 whyslow report $f c.json >small/report 2>err &&
		test_grep "^whyslow: error: cannot write to standard output: No space left on device" err || return 1
	done &&
	test_expect_code 1 fake stat -r 2 --backend fake -- true >small/report 2>err &&
	test_grep "cannot write to standard output: No space left on device" err &&
	rm small/fill
'

{ [ -n "$have_small" ] && test_have_prereq SIM; } || test_skip_next 'needs root (a 64 KiB tmpfs) and the simulator'
# 64 KiB passes the check before the runs, but cannot hold what the simulator writes: it fills during the run.
test_expect_success 'a TMPDIR that fills during a simulated run is named as the cause, not "wrote no result"' '
	test_expect_code 1 env TMPDIR="$trash/small" "$WHYSLOW" stat --backend sim -r 3 -w 0 --export-json full.json \
		-- true >out 2>err &&
	test_grep "^whyslow: error: the simulator could not write its result for .true.: $trash/small is full (No space left on device); free space there" err &&
	jq -e ".partial and .partial_reason == \"stopped by an error: No space left on device\"" full.json
'

test_expect_success 'an export to "-" goes to stdout, alone, and the report to stderr' '
	fake compare -r 3 --backend fake --export-json - true "true a" >out 2>err &&
	jq -e "[.variants[].runs | length] == [3, 3] and (.comparisons | length) > 0" out &&
	test_grep "whyslow compare: 2 programs, 3 runs each" err &&
	test ! -e ./- &&
	fake stat -r 2 --backend fake --export-json - -- true >out 2>err &&
	jq -e ".variants[0].runs | length == 2" out &&
	test_grep "Performance counter stats for .true." err
'

test_expect_success 'two exports to "-", or one with the command output, are usage errors before any run' '
	test_expect_code 129 fake compare -r 2 --backend fake --export-csv - --export-markdown - true "true a" >out 2>err &&
	test_line_count = 1 err &&
	test_grep "both write to standard output" err &&
	test_expect_code 129 fake stat -r 2 --backend fake --output inherit --export-json - -- true >out 2>err &&
	test_line_count = 1 err &&
	test_grep "would both go to standard output: give the export a file" err &&
	test_expect_code 129 fake stat -r 2 --backend fake --show-output --export-html - -- true >out 2>err &&
	test ! -s out &&
	test_expect_code 129 whyslow compare --backend sim --plan-jobs - true "true a" >out 2>err &&
	test_grep "plan-jobs needs a file, not .-." err &&
	test ! -e ./-
'

# /dev/stdout, /dev/fd/1, /proc/self/fd/1 or the redirected file's own name: the report would follow the
# export into the same stream (stdout no JSON), or the rename replace the file under it.
test_expect_success 'an export to the file stdout is open on is one to "-": the report goes to stderr' '
	fake stat -r 2 --backend fake --export-json /dev/stdout -- true >out 2>err &&
	jq -e ".variants[0].runs | length == 2" out &&
	test_grep "Performance counter stats for .true." err &&
	fake stat -r 2 --backend fake --export-json /dev/fd/1 -- true 2>err | cat >out &&
	jq -e ".variants[0].runs | length == 2" out &&
	test_grep "Performance counter stats for .true." err &&
	fake stat -r 2 --backend fake --export-json same.json -- true >same.json 2>err &&
	jq -e ".variants[0].runs | length == 2" same.json &&
	test_grep "Performance counter stats for .true." err &&
	fake compare -r 2 --backend fake --export-json c.json --export-markdown /proc/self/fd/1 true "true a" \
		>out 2>err &&
	test_grep "^\*\*whyslow\*\* against true" out &&
	test_grep "whyslow compare: 2 programs, 2 runs each" err &&
	test_grep -v "whyslow compare: 2 programs" out &&
	whyslow report --export-csv /dev/stdout c.json >out 2>err &&
	test_grep "whyslow compare: 2 programs" err &&
	test_grep -v "whyslow compare: 2 programs" out &&
	whyslow diff --export-json /dev/stdout c.json c.json >out 2>err &&
	jq -e ".variants | length == 4" out &&
	# the null device is read by nobody: the report stays on stdout, two exports there are no clash
	fake stat -r 2 --backend fake --export-json /dev/null --export-html /dev/null -- true >/dev/null 2>err &&
	test_grep -v "Performance counter" err
'

test_expect_success 'two exports to the file stdout is open on, or one and "-", are usage errors naming both' '
	test_expect_code 129 fake stat -r 2 --backend fake --export-json /dev/stdout --export-html - -- true >out 2>err &&
	test_line_count = 1 err &&
	test_grep "^whyslow stat: --export-json and --export-html both write to standard output" err &&
	test_expect_code 129 fake compare -r 2 --backend fake --export-csv /dev/fd/1 --export-markdown same.md \
		true "true a" >same.md 2>err &&
	test_grep "^whyslow compare: --export-csv and --export-markdown both write to standard output" err &&
	test_expect_code 129 whyslow report --csv --export-csv /dev/stdout c.json >out 2>err &&
	test_grep "^whyslow report: --export-csv and --csv both write to standard output" err &&
	test_expect_code 129 fake stat -r 2 --backend fake --output /dev/stdout --export-json - -- true >out 2>err &&
	test_grep "would both go to standard output" err &&
	test_expect_code 129 whyslow compare --backend sim --plan-jobs /dev/stdout true "true a" >out 2>err &&
	test_grep "plan-jobs needs a file, not ./dev/stdout. (standard output)" err
'

test_expect_success 'diff reads "-" from stdin and exports "-" to stdout: the two do not clash' '
	printf "{\"variants\":[{\"name\":\"a\",\"metrics\":{\"t\":{\"samples\":[1,2,3]}}}]}\n" >in-a.json &&
	printf "{\"variants\":[{\"name\":\"b\",\"metrics\":{\"t\":{\"samples\":[2,3,4]}}}]}\n" >in-b.json &&
	whyslow diff --export-json - - in-b.json <in-a.json >out 2>err &&
	jq -e "[.variants[].name] == [\"a\", \"b\"]" out &&
	test_grep "whyslow diff: 2 programs, 3 runs each, from saved results" err
'

test_expect_success 'report writes the exports stat and compare write, from the saved result' '
	fake compare -r 3 --backend fake --export-json c.json --export-markdown c.md --export-csv c.csv \
		--export-html c.html true "true a" >/dev/null &&
	whyslow report --export-markdown r.md --export-csv r.csv --export-html r.html c.json >term &&
	test_grep "whyslow compare: 2 programs, 3 runs each" term &&
	test_cmp c.md r.md &&
	test_cmp c.csv r.csv &&
	test_grep "<html" r.html &&
	whyslow report --export-markdown - c.json >md 2>term &&
	test_cmp c.md md &&
	test_grep "whyslow compare: 2 programs" term &&
	test_expect_code 129 whyslow report --markdown --export-markdown - c.json 2>err &&
	test_grep "both write to standard output" err &&
	test_expect_code 129 whyslow report --export-csv x --export-html x c.json 2>err &&
	test_grep "name one file" err &&
	test_expect_code 129 whyslow report --export-html c.json c.json 2>err &&
	test_grep "is the result being read" err &&
	fake stat -r 2 --backend fake --export-json s.json -- true >/dev/null &&
	test_expect_code 1 whyslow report --export-csv s.csv s.json 2>err &&
	test_grep "holds no comparisons" err &&
	test ! -e s.csv &&
	whyslow report --export-html s.html s.json >/dev/null &&
	test_grep "<html" s.html
'

# A FIFO is written in place when something reads it (one that nothing reads is refused: t0400), and its
# reader sees the whole result, not an end of data when whyslow checked the path before the runs.
test_expect_success 'an export to a FIFO with a reader is written to it' '
	mkfifo ff &&
	{ cat ff >got.json & } &&
	reader=$! &&
	sleep 0.5 &&
	fake stat -r 2 --backend fake --export-json ff -- true >out &&
	wait $reader &&
	test -p ff &&
	test_result_variants got.json >variants &&
	test_grep "true" variants
'

# A result file that is a mount point (docker -v ./result.json:/out/result.json): rename(2) over it fails
# with EBUSY, so it is written in place, through to the file mounted there. Needs root and mount(8).
bind_mounted=
if [ "$(id -u)" = 0 ] && : >bsrc && echo old >bfile.json && mount --bind bsrc bfile.json 2>/dev/null; then
	bind_mounted=yes
else
	test_skip_next "needs root and a working mount --bind"
fi
test_expect_success 'an export over a bind-mounted file is written in place' '
	fake stat -r 2 --backend fake --export-json bfile.json -- true >out 2>err &&
	test_grep -v "rescued\|cannot write" err &&
	test_result_variants bsrc >variants &&
	test_grep "true" variants &&
	ls -a >files &&
	test_grep -v "bfile.json\." files
'
if [ -n "$bind_mounted" ]; then
	umount bfile.json
fi

test_done
