#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2200-hyperfine-options.sh - hyperfine's hooks, --input, --output and --parameter-scan; nothing of a hook is counted.
. "$WS_SRC/tests/cli/lib.sh"

SQ="'"

# A field of a result file, by a Python expression over `d`.
field() {
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
print($2)
" "$1"
}

# A --prepare that makes the file each run removes: a run fails unless its prepare ran just before it.
test_expect_success 'a prepare hook runs before every run: 10 runs that need it pass' '
	rm -f f &&
	whyslow stat -r 10 -w 2 -e wall-time,task-clock --conclude "sh -c \"echo >>conclude.log\"" \
		-p "touch f" --export-json p.json -- rm f >out &&
	test "$(field p.json "len(d[\"variants\"][0][\"runs\"])")" = 10 &&
	test "$(field p.json "d[\"variants\"][0][\"failed_runs\"]")" = 0 &&
	test "$(field p.json "d[\"settings\"][\"prepare\"]")" = "[${SQ}touch f${SQ}]" &&
	# and --conclude after each, the two warm-up runs included
	test_line_count = 12 conclude.log &&
	! test -e f
'

test_expect_success 'without it, the same command fails at once' '
	test_expect_code 1 whyslow stat -r 10 -e wall-time -- rm f >out 2>err
'

test_expect_success 'a setup hook runs once per program, a cleanup after the last run, with {VAR}' '
	whyslow compare -r 3 -w 1 -e wall-time -L n 1,2,3 -s "sh -c \"echo {n} >>setup.log\"" \
		-c "sh -c \"echo {n} >>cleanup.log\"" -p "sh -c \"echo {n} >>prepare.log\"" \
		--export-json s.json "true {n}" >out &&
	printf "1\n2\n3\n" >expect &&
	test_cmp expect setup.log &&
	test_cmp expect cleanup.log &&
	# --prepare before each run of each program: 1 warm-up and 3 measured
	test "$(grep -c "^2\$" prepare.log)" = 4 &&
	test_line_count = 12 prepare.log
'

test_expect_success 'a hook given once per program goes to its program, in order' '
	whyslow compare -r 2 -w 0 -e wall-time -n a -n b -s "touch setup-a" -s "touch setup-b" \
		--export-json pp.json true true >out &&
	test -e setup-a && test -e setup-b &&
	test "$(field pp.json "d[\"settings\"][\"setup\"]")" = "[${SQ}touch setup-a${SQ}, ${SQ}touch setup-b${SQ}]"
'

test_expect_success 'a program a --setup builds is checked after it, not before' '
	rm -f built.sh &&
	whyslow stat -r 2 -w 0 -e wall-time --setup "sh -c \"printf \\\"#!/bin/sh\\n\\\" >built.sh; chmod +x built.sh\"" \
		-- ./built.sh >out
'

test_expect_success 'a hook given neither once nor once per program is refused, 129' '
	test_expect_code 129 whyslow compare -p a -p b -p c true true 2>err &&
	test_line_count = 1 err &&
	test_grep "prepare is given 3 times for 2 programs" err
'

# Nothing of the hooks is counted: a prepare of 0.2 s would make `true` a hundred times slower. (Its wall
# time is not compared with the plain one's: after a hook sleeps, the first instructions of a run pay for
# the idle CPU's wake-up, and `true` is short enough to show it.)
test_expect_success 'the hooks are outside the counters: task-clock and wall-time of true with a busy prepare' '
	busy="sh -c \"i=0; while [ \\\$i -lt 30000 ]; do i=\\\$((i+1)); done; sleep 0.2\"" &&
	whyslow compare -r 10 -w 1 -e wall-time,task-clock -n hooked -n plain -p "$busy" -p true \
		-C "$busy" -C true --export-json c.json true true >out &&
	python3 - c.json <<-\EOF
	import json, statistics, sys
	d = json.load(open(sys.argv[1]))
	m = {v["name"]: v["metrics"] for v in d["variants"]}
	h = statistics.median(m["hooked"]["task-clock"]["samples"])
	p = statistics.median(m["plain"]["task-clock"]["samples"])
	# a counted hook adds tens of ms of CPU to runs of under 1 ms
	assert 0.5 < h / p < 2, (h, p)
	assert max(m["hooked"]["wall-time"]["samples"]) < 0.15, m["hooked"]["wall-time"]["samples"]
	EOF
'

test_expect_success '--input: every run reads the whole file on stdin' '
	printf "0123456789\n" >in.txt &&
	whyslow stat -r 5 -w 1 -e wall-time --input in.txt --export-json i.json \
		-- sh -c "cat | wc -c >>counts.log" >out &&
	printf "11\n11\n11\n11\n11\n11\n" >expect &&
	test_cmp expect counts.log &&
	test "$(field i.json "(d[\"settings\"][\"input\"], d[\"settings\"][\"input_bytes\"])")" = "(${SQ}in.txt${SQ}, 11)"
'

test_expect_success '--input that cannot be read is refused before any run, in one line' '
	test_expect_code 1 whyslow stat -e wall-time --input missing.txt -- sh -c "echo ran >>ran.log" 2>err &&
	test_line_count = 1 err &&
	test_grep "cannot read --input ${SQ}missing.txt${SQ}" err &&
	! test -e ran.log &&
	test_expect_code 1 whyslow stat -e wall-time --input . -- true 2>err &&
	test_grep "directory" err
'

test_expect_success 'no export and no --output may write over --input, by any name' '
	printf "a\nb\n" >read.txt && cp read.txt read.orig &&
	test_expect_code 129 whyslow compare -r 1 -w 0 --input read.txt --export-json ./read.txt cat sort 2>err &&
	test_line_count = 1 err &&
	test_grep "export-json ${SQ}./read.txt${SQ} is the --input file" err &&
	test_expect_code 129 whyslow stat -r 1 -w 0 --input read.txt --export-html "$PWD/read.txt" -- cat 2>err &&
	test_expect_code 129 whyslow stat -r 1 -w 0 --input read.txt --output ./read.txt -- cat 2>err &&
	test_grep "output ${SQ}./read.txt${SQ} is the --input file" err &&
	test_cmp read.orig read.txt
'

test_expect_success '--output pipe gives the command a pipe; null does not' '
	whyslow stat -r 2 -e wall-time --output pipe -- sh -c "test -p /dev/stdout && head -c 1000000 /dev/zero" >out &&
	test_expect_code 1 whyslow stat -r 2 -e wall-time -- sh -c "test -p /dev/stdout" >out 2>err
'

test_expect_success '--output ./FILE holds the last run'"'"'s output; a bare name or --show-output with it is refused' '
	whyslow stat -r 3 -e wall-time --output ./o.txt -- echo hello >out &&
	echo hello >expect &&
	test_cmp expect o.txt &&
	test_expect_code 129 whyslow stat --output o.txt -- true 2>err &&
	test_grep "write ${SQ}./o.txt${SQ}" err &&
	test_expect_code 129 whyslow stat --output pipe --show-output -- true 2>err &&
	test_line_count = 1 err
'

test_expect_success '--output with {VAR} gives each program of -L its own file, checked before the runs' '
	rm -f out-a.txt out-b.txt &&
	whyslow compare -r 2 -w 0 -e wall-time --export-json v.json -L w a,b --output "./out-{w}.txt" "echo {w}" >out &&
	echo a >expect && test_cmp expect out-a.txt &&
	echo b >expect && test_cmp expect out-b.txt &&
	test "$(field v.json "d[\"settings\"][\"output\"]")" = "[${SQ}./out-a.txt${SQ}, ${SQ}./out-b.txt${SQ}]" &&
	test_expect_code 1 whyslow compare -r 1 -w 0 -e wall-time -L w a,b --output "./no/out-{w}.txt" "echo {w}" \
		>out 2>err &&
	test_grep "cannot write --output ${SQ}./no/out-a.txt${SQ}" err
'

test_expect_success 'a failing hook stops with one line and exit 1, and the finished runs are kept' '
	rm -f n &&
	test_expect_code 1 whyslow stat -r 6 -w 0 -e wall-time --export-json h.json \
		-p "sh -c \"n=\\\$(cat n 2>/dev/null || echo 0); echo \\\$((n+1)) >n; test \\\$n -lt 3 || exit 4\"" \
		-- true >out 2>err &&
	test_line_count = 1 err &&
	test_grep "prepare of ${SQ}true${SQ} exited with status 4 before run 4" err &&
	test_grep "Partial result: a hook failed" out &&
	test "$(field h.json "(d[\"partial\"], d[\"partial_reason\"], len(d[\"variants\"][0][\"runs\"]))")" = \
		"(True, ${SQ}a hook failed${SQ}, 3)"
'

test_expect_success 'with --ignore-failure a failing hook is said and the runs go on, as a failed run'"'"'s do' '
	rm -f n &&
	whyslow stat -r 6 -w 0 -e wall-time --ignore-failure --export-json hi.json \
		-p "sh -c \"n=\\\$(cat n 2>/dev/null || echo 0); echo \\\$((n+1)) >n; test \\\$n -lt 3 || exit 4\"" \
		-- true >out 2>err &&
	test_grep "prepare of ${SQ}true${SQ} exited with status 4 before run 4.*--ignore-failure" err &&
	test "$(grep -c "prepare of" err)" = 3 &&
	test "$(field hi.json "(d.get(\"partial\", False), len(d[\"variants\"][0][\"runs\"]))")" = "(False, 6)"
'

test_expect_success 'a failing setup stops before any run; a missing hook command before anything' '
	test_expect_code 1 whyslow stat -e wall-time -s false -- sh -c "echo ran >>ran.log" >out 2>err &&
	test_line_count = 1 err &&
	test_grep "setup of" err &&
	! test -e ran.log &&
	test_expect_code 1 whyslow stat -e wall-time -C no-such-hook-command -- true >out 2>err &&
	test_line_count = 1 err &&
	test_grep "cannot run .no-such-hook-command. (the --conclude of .true.): command not found" err
'

test_expect_success 'diff warns when two results were run with different hooks or input' '
	whyslow stat -r 6 -e wall-time --export-json plain.json -- true >out &&
	whyslow diff plain.json p.json >out 2>err &&
	test_grep "prepare differs: none in plain.json, ${SQ}touch f${SQ} in p.json" err &&
	whyslow diff plain.json i.json >out 2>err &&
	test_grep "input differs" err &&
	whyslow diff plain.json plain.json >out 2>err &&
	test_grep -v differs err
'

test_expect_success '--parameter-scan n 1 4 makes four programs named by their values' '
	whyslow compare -r 1 -w 0 -e wall-time -P n 1 4 -s "sh -c \"echo {n} >>scan.log\"" \
		--export-json ps.json "sleep 0.00{n}" >out &&
	python3 - ps.json <<-\EOF &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert [v["name"] for v in d["variants"]] == ["1", "2", "3", "4"], d["variants"]
	assert [v["command"] for v in d["variants"]] == ["sleep 0.00%d" % n for n in (1, 2, 3, 4)]
	assert [v["parameters"] for v in d["variants"]] == [{"n": str(n)} for n in (1, 2, 3, 4)]
	assert d["settings"]["parameters"] == [{"name": "n", "values": ["1", "2", "3", "4"],
	                                        "min": "1", "max": "4", "step": "1"}], d["settings"]
	EOF
	printf "1\n2\n3\n4\n" >expect &&
	test_cmp expect scan.log
'

test_expect_success '--parameter-scan with decimals and -D: values as hyperfine prints them' '
	whyslow compare -r 1 -w 0 -e wall-time --parameter-scan x 0 1 --parameter-step-size 0.25 \
		--export-json pd.json "echo {x}" >out &&
	test "$(field pd.json "[v[\"name\"] for v in d[\"variants\"]]")" = \
		"[${SQ}0${SQ}, ${SQ}0.25${SQ}, ${SQ}0.50${SQ}, ${SQ}0.75${SQ}, ${SQ}1.00${SQ}]" &&
	whyslow compare -r 1 -w 0 -e wall-time -P x -1 7 -D 3 --export-json pi.json "echo {x}" >out &&
	test "$(field pi.json "[v[\"command\"] for v in d[\"variants\"]]")" = \
		"[${SQ}echo -1${SQ}, ${SQ}echo 2${SQ}, ${SQ}echo 5${SQ}]"
'

test_expect_success '--parameter-scan and -L give the cartesian product' '
	whyslow compare -r 1 -w 0 -e wall-time -L lc a,b -P n 1 2 --export-json pl.json "echo {lc} {n}" >out &&
	python3 - pl.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert [v["name"] for v in d["variants"]] == ["a,1", "b,1", "a,2", "b,2"], d["variants"]
	assert d["variants"][1]["command"] == "echo b 1"
	assert d["variants"][1]["parameters"] == {"lc": "b", "n": "1"}
	assert [p["name"] for p in d["settings"]["parameters"]] == ["lc", "n"]
	assert "min" not in d["settings"]["parameters"][0]
	EOF
'

test_expect_success 'a parameter only a hook uses still makes one program per value' '
	whyslow compare -r 1 -w 0 -e wall-time -L rev a,b -s "sh -c \"echo {rev} >>rev.log\"" \
		--export-json ph.json true >out &&
	test "$(field ph.json "[v[\"name\"] for v in d[\"variants\"]]")" = "[${SQ}a${SQ}, ${SQ}b${SQ}]" &&
	printf "a\nb\n" >expect &&
	test_cmp expect rev.log
'

test_expect_success 'a bad --parameter-scan is a usage error, one line' '
	for args in "-P x 0.5 1" "-P x 3 1" "-P x 1 3 -D 0" "-D 2 -L x 1,2" "-P x a 3" "-P x 1" "-P y 1 2"
	do
		test_expect_code 129 whyslow compare $args "echo {x}" 2>err &&
		test_line_count = 1 err || return 1
	done &&
	test_expect_code 129 whyslow compare -P x 0.5 1 "echo {x}" 2>err &&
	test_grep "need a step: -D" err
'

if test_have_prereq SIM
then
	test_expect_success 'simulated runs: the prepare runs natively before each, --input reaches each' '
		rm -f f counts.log &&
		whyslow stat --backend sim --sim-runs 10 -e instructions -p "touch f" --export-json sp.json \
			-- rm f >out &&
		test "$(field sp.json "len(d[\"variants\"][0][\"runs\"])")" = 10 &&
		whyslow stat --backend sim --sim-runs 2 -e instructions --input in.txt \
			-- sh -c "cat | wc -c >>counts.log" >out &&
		printf "11\n11\n" >expect &&
		test_cmp expect counts.log
	'

	test_expect_success 'simulated instructions are exactly those without the hooks' '
		whyslow stat --backend sim --sim-runs 2 -e instructions --export-json s0.json -- true >out &&
		whyslow stat --backend sim --sim-runs 2 -e instructions -p "sleep 0.2" -C "sleep 0.2" \
			--export-json s1.json -- true >out &&
		a=$(field s0.json "d[\"variants\"][0][\"metrics\"][\"instructions\"][\"samples\"]") &&
		b=$(field s1.json "d[\"variants\"][0][\"metrics\"][\"instructions\"][\"samples\"]") &&
		echo "$a / $b" &&
		test "$a" = "$b"
	'
else
	test_skip_next "the simulator tool is not built (valgrind missing)"
	test_expect_success 'simulated runs: the prepare runs natively before each, --input reaches each' 'false'
	test_skip_next "the simulator tool is not built (valgrind missing)"
	test_expect_success 'simulated instructions are exactly those without the hooks' 'false'
fi

test_expect_success 'shell syntax quoted, escaped or in a value of -L is no shell syntax: it runs without one' '
	echo "a|b" >in.txt &&
	whyslow compare -r 1 -w 0 -e wall-time --export-json q.json "grep -c \"a|b\" in.txt" \
		"grep -c a\\|b in.txt" "find . -name in.txt -exec true {} \\;" "grep -c \"b\$\" in.txt" >out 2>err &&
	whyslow compare -r 1 -w 0 -e wall-time -L re "a|b,a" "grep -c {re} in.txt" >out 2>err &&
	# a glob that names no file reaches the program as it is, as a shell would pass it on
	whyslow compare -r 1 -w 0 -e wall-time "grep -c a.*b in.txt" "grep -c [ab]x* in.txt" >out 2>err &&
	# one that names files is the shell'"'"'s to expand
	test_expect_code 129 whyslow compare -r 1 -w 0 -e wall-time "wc -l *.txt" "wc -l in.txt" 2>err &&
	test_grep "uses the shell.s .\*., which names files here, and commands run without a shell: add --shell" err
'

test_expect_success 'a failed run of a program named by -L or -n is said with its command' '
	echo abc >in.txt &&
	test_expect_code 1 whyslow compare -r 1 -w 0 -e wall-time -L w abc,zzz "grep -q {w} in.txt" 2>err &&
	test_grep "^whyslow: error: ${SQ}zzz${SQ} (grep -q zzz in.txt) exited with status 1 (run 1)" err &&
	test_expect_code 1 whyslow compare -r 1 -w 1 -e wall-time -n ok "grep -q abc in.txt" -n bad "grep -q zzz in.txt" 2>err &&
	test_grep "^whyslow: error: ${SQ}bad${SQ} (grep -q zzz in.txt) exited with status 1 in a warm-up run" err &&
	test_expect_code 1 whyslow compare -r 1 -w 0 -e wall-time "grep -q abc in.txt" "grep -q zzz in.txt" 2>err &&
	test_grep "^whyslow: error: ${SQ}grep -q zzz in.txt${SQ} exited with status 1 (run 1)" err
'

test_expect_success 'hyperfine and perf stat options whyslow lacks name what to use instead' '
	test_expect_code 129 whyslow compare -N -r 2 true "true a" 2>err &&
	test_line_count = 1 err &&
	test_grep "unknown option .-N.: commands run without a shell unless --shell" err &&
	test_expect_code 129 whyslow compare --style=basic true "true a" 2>err &&
	test_grep "unknown option .--style.: colour follows the terminal" err &&
	test_expect_code 129 whyslow compare -i true "true a" 2>err &&
	test_grep "hyperfine.s -i is --ignore-failure here" err &&
	test_expect_code 129 whyslow stat -x, true 2>err &&
	test_grep "unknown option .-x.: for machine-readable output give --export-json FILE" err &&
	test_expect_code 129 whyslow compare --export-asciidoc t.adoc true "true a" 2>err &&
	test_grep "use --export-markdown" err &&
	test_expect_code 129 whyslow stat --export-asciidoc t.adoc true 2>err &&
	test_grep -v "export-markdown" err &&
	test_grep "unknown option .--export-asciidoc. (see" err &&
	test_expect_code 129 whyslow compare --frobnicate true "true a" 2>err &&
	test_grep "unknown option .--frobnicate. (see" err
'

test_done
