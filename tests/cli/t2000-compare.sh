#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2000-compare.sh - whyslow compare: verdicts, -L expansion, names, usage errors, exports, the gate.
. "$WS_SRC/tests/cli/lib.sh"

# The verdicts of one metric, one per variant, from a result file.
verdicts() {
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
print(' '.join(c['verdict'] for c in d['comparisons'] if c['metric'] == sys.argv[2] and 'region' not in c and 'function' not in c))
" "$1" "$2"
}

flagged() {
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
print(len([c for c in d['comparisons'] if c['verdict'] in ('slower', 'faster', 'changed')]))
" "$1"
}

test_expect_success 'A/A on true with 10 runs flags nothing' '
	# Holm keeps the chance of any false flag in this report near 5%; two independent tries that both
	# flag something happen about 0.25% of the time, so a failure here means a broken method.
	whyslow compare -r 10 --seed 1 -n a -n b --export-json aa.json true true >out &&
	if test "$(flagged aa.json)" != 0
	then
		whyslow compare -r 10 --seed 2 -n a -n b --export-json aa.json true true >out
	fi &&
	test "$(flagged aa.json)" = 0
'

test_expect_success 'sleep 0.01 against sleep 0.03 is slower in wall-time' '
	# 20 runs: even on a loaded machine (load 12 on 2 cores seen here) the samples separate.
	whyslow compare -r 20 -e wall-time,task-clock --export-json s.json "sleep 0.01" "sleep 0.03" >out &&
	test "$(verdicts s.json wall-time)" = slower &&
	test_grep "^ wall-time .*+[0-9.]*% \[" out
'

test_expect_success 'the result holds every run of every program, interleaved, with the seed' '
	python3 - s.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert d["settings"]["order"] == "interleaved"
	assert isinstance(d["settings"]["seed"], int)
	assert [v["baseline"] for v in d["variants"]] == [True, False]
	for v in d["variants"]:
	    assert len(v["metrics"]["wall-time"]["samples"]) == 20, v["name"]
	c = [c for c in d["comparisons"] if c["metric"] == "wall-time"][0]
	assert c["ratio"] > 1.2 and c["ci"][0] <= c["ratio"] <= c["ci"][1], c
	assert c["p_adjusted"] >= c["p"], c
	EOF
'

test_expect_success '-L expands {VAR} into programs named after the values' '
	whyslow compare -r 2 -w 0 -e wall-time --export-json l.json -L ms 1,2,3 "sleep 0.00{ms}" >out &&
	python3 - l.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert [v["name"] for v in d["variants"]] == ["1", "2", "3"], d["variants"]
	assert [v["command"] for v in d["variants"]] == ["sleep 0.001", "sleep 0.002", "sleep 0.003"]
	EOF
'

test_expect_success 'several -L give the cartesian product, and -n may use {VAR}' '
	whyslow compare -r 1 -w 0 -e wall-time --export-json p.json -L a x,y -L b 1,2 -n "run-{a}{b}" "echo {a} {b}" >out &&
	python3 - p.json <<-\EOF &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	# hyperfine'"'"'s order: the first parameter varies fastest
	assert [v["name"] for v in d["variants"]] == ["run-x1", "run-y1", "run-x2", "run-y2"], d["variants"]
	assert d["variants"][3]["command"] == "echo y 2"
	EOF
	test_grep "4 programs, 1 run each" out &&
	# and, with several commands, every command with one combination before the next, as hyperfine runs them
	whyslow compare -r 1 -w 0 -e wall-time --export-json pc.json -L a x,y "echo 1{a}" "echo 2{a}" >out &&
	python3 - pc.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert [v["command"] for v in d["variants"]] == ["echo 1x", "echo 2x", "echo 1y", "echo 2y"], d["variants"]
	EOF
'

test_expect_success '-L splits as hyperfine does: an empty value kept, a comma and a backslash escaped' '
	whyslow compare -r 1 -w 0 -e wall-time --export-json e.json -L f ",a\\,b,c\\\\d" "echo x{f}" >out &&
	python3 - e.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert [v["command"] for v in d["variants"]] == ["echo x", "echo xa,b", "echo xc\\d"], d["variants"]
	assert [v["name"] for v in d["variants"]] == ["\x27\x27", "a,b", "c\\d"], d["variants"]
	EOF
'

test_expect_success 'bad -L syntax exits 129 with one line' '
	test_expect_code 129 whyslow compare -L "sleep {x}" 2>err &&
	test_line_count = 1 err &&
	test_expect_code 129 whyslow compare -L x "" "sleep {x}" 2>err &&
	test_line_count = 1 err &&
	test_expect_code 129 whyslow compare -L "x-y" 1,2 "sleep {x-y}" 2>err &&
	test_grep "letters, digits" err &&
	test_expect_code 129 whyslow compare -L x 1,2 "sleep 1" 2>err &&
	test_grep "no command uses {x}" err
'

test_expect_success 'usage errors: one program, duplicate -n names, bad quoting, unknown reference' '
	test_expect_code 129 whyslow compare "sleep 1" 2>err &&
	test_grep "at least one variant" err &&
	test_expect_code 129 whyslow compare -n a -n a true true 2>err &&
	test_grep "named .a.; name them apart with -n" err &&
	test_expect_code 129 whyslow compare "echo \"unbalanced" true 2>err &&
	test_grep "unbalanced quotes" err &&
	test_expect_code 129 whyslow compare --reference nope -n a -n b true true 2>err &&
	test_grep "names no program" err &&
	test_expect_code 129 whyslow compare --noise 200 -n a -n b true true 2>err &&
	test_expect_code 129 whyslow compare --metric wall-time -n a -n b true true 2>err &&
	test_grep "fail-if-slower" err
'

test_expect_success 'options and commands may be intermixed, as in hyperfine' '
	whyslow compare "sleep 0.001" -r 2 -w 0 "sleep 0.002" -e wall-time --export-json m.json >out &&
	test "$(python3 -c "import json; print(len(json.load(open(\"m.json\"))[\"variants\"]))")" = 2
'

test_expect_success '--reference picks the baseline by name' '
	whyslow compare -r 8 -w 0 -e wall-time -n fast -n slow --reference slow --export-json r.json "sleep 0.001" "sleep 0.05" >out &&
	test_grep "slow (baseline)" out &&
	test "$(verdicts r.json wall-time)" = faster
'

test_expect_success 'an unwritable export path fails before any run' '
	test_expect_code 1 whyslow compare -r 1 --export-csv /nonexistent/x.csv --shell "touch ran" "true" 2>err &&
	test_grep "cannot write --export-csv" err &&
	! test -e ran
'

test_expect_success 'CSV and Markdown exports' '
	whyslow compare -r 3 -w 0 -e wall-time -n a -n b --export-csv c.csv --export-markdown c.md "sleep 0.001" "sleep 0.02" >out &&
	head -1 c.csv >head &&
	test_grep "^variant,baseline,metric,region,function,caller,inclusive,baseline_median,variant_median,ratio,ci_lo,ci_hi,p,p_adjusted,verdict,exact,simulated,unit,partial$" head &&
	test_grep "^b,a,wall-time,,,.*,s,false$" c.csv &&
	test_grep "^| metric | a (baseline) | b |" c.md &&
	test_grep "^| wall-time |" c.md
'

test_expect_success '--fail-if-slower exits 3 exactly when a variant is slower by more than the limit' '
	test_expect_code 3 whyslow compare -r 8 -w 0 -e wall-time -n a -n b --fail-if-slower 20 "sleep 0.01" "sleep 0.1" >out 2>err &&
	test_grep "worse than .a. by .* in wall-time (+[0-9.]*%), more than the 20% allowed" err &&
	whyslow compare -r 8 -w 0 -e wall-time -n a -n b --fail-if-slower 20 "sleep 0.1" "sleep 0.01" >out 2>err &&
	test_expect_code 1 whyslow compare -r 3 -w 0 -e wall-time --backend perf -n a -n b --fail-if-slower 5 \
		--metric estimated-cycles true true >out 2>err &&
	test_grep "metric .estimated-cycles. cannot be measured here" err
'

test_expect_success 'a --metric that names nothing whyslow could measure is a usage error before any run' '
	test_expect_code 129 whyslow compare -r 2 -w 0 -e wall-time --fail-if-slower 5 --metric wal-time \
		--shell "touch ran" "true" 2>err &&
	test_line_count = 1 err &&
	test_grep "neither a metric whyslow knows" err &&
	! test -e ran
'

test_expect_success 'a variant that fails stops the comparison unless --ignore-failure, then warns' '
	test_expect_code 1 whyslow compare -r 2 -w 0 -e wall-time true false 2>err &&
	test_grep "exited with status 1" err &&
	whyslow compare -r 3 -w 0 -e wall-time --ignore-failure true false >out 2>err &&
	test_grep "warning: .false. exited non-zero or was killed in 3 of 3 runs" out
'

test_expect_success 'too few runs for the number of tests is warned about' '
	whyslow compare -r 3 -w 0 -n a -n b true true >out &&
	test_grep "smallest possible p is 0.1, not below alpha = 0.05 for the primary test (wall-time)" out &&
	whyslow compare -r 3 -w 0 -n a -n b -n c true true true >out &&
	test_grep "not below alpha/m = 0.025 for the 2 primary tests (wall-time)" out
'

test_expect_success 'a mostly off-CPU program is warned about' '
	whyslow compare -r 3 -w 0 -e wall-time,user-time,system-time -n a -n b "sleep 0.02" "sleep 0.02" >out &&
	test_grep "a. is mostly off-CPU (wall .* s, CPU .* s): waiting on I/O, sleep or locks" out
'

# Two spinners on the CPU the program is held to leave it a third of it: off-CPU, waiting for a CPU, which
# the kernel's pressure stall accounting times in the run's cgroup (where there is one, and PSI).
command -v taskset >/dev/null 2>&1 || test_skip_next "no taskset (util-linux) to hold spinners to one CPU"
whyslow doctor 2>/dev/null | grep -q "cpu-wait  *timed per run" ||
	test_skip_next "no cgroup v2 leaf per run, or no PSI (/proc/pressure/cpu): the wait for a CPU is not timed"
test_expect_success 'off-CPU for want of a CPU is told from sleeping by the time it waited, and diff says it again' '
	# Each "&" ends a list of its own: after "&&" it would put the whole list before it in the background.
	cpu=$(taskset -pc $$ | sed "s/.*: *//; s/[,-].*//") || return 1
	(exec taskset -c $cpu sh -c "while :; do :; done") &
	s1=$!
	(exec taskset -c $cpu sh -c "while :; do :; done") &
	s2=$!
	loop="i=0; while [ \$i -lt 150000 ]; do i=\$((i+1)); done"
	whyslow compare -r 3 -w 0 --cpu $cpu -e wall-time,user-time,system-time --export-json busy.json \
		-n a -n b "sh -c \"$loop\"" "sh -c \"sleep 0.8; i=0; while [ \$i -lt 20000 ]; do i=\$((i+1)); done\"" >out
	rc=$?
	kill $s1 $s2 && { wait $s1 $s2 || :; } &&
	test $rc = 0 &&
	test_grep "a. is mostly off-CPU (wall .* s, CPU .* s), and waited .* s a run for a CPU: other work held them, or it ran more threads than it had CPUs" out &&
	# b slept most of its time away, with the same spinners beside its loop.
	test_grep "b. is mostly off-CPU (wall .* s, CPU .* s): waiting on I/O, sleep or locks is" out &&
	whyslow diff busy.json busy.json >diff.out &&
	test_grep "a. is mostly off-CPU (wall .* s, CPU .* s), and waited .* s a run for a CPU" diff.out &&
	test_grep "b. is mostly off-CPU .*: waiting on I/O, sleep or locks is" diff.out
'

test_expect_success '--paired tests per-round log-ratios, and says so in the result' '
	whyslow compare -r 8 -w 0 --paired -e wall-time -n a -n b --export-json pr.json "sleep 0.01" "sleep 0.05" >out &&
	test "$(verdicts pr.json wall-time)" = slower &&
	test "$(python3 -c "import json; print(json.load(open(\"pr.json\"))[\"settings\"][\"paired\"])")" = True &&
	test_grep ", paired" out
'

test_expect_success 'progress goes to stderr on a terminal, and never into a pipe' '
	if ! command -v script >/dev/null 2>&1
	then
		echo "script(1) is missing: cannot make a terminal" >&2
		return 1
	fi &&
	script -qfec "$WHYSLOW compare -r 3 -w 1 -e wall-time -n a -n b \"sleep 0.05\" \"sleep 0.05\" >/dev/null" /dev/null >tty.out &&
	test_grep "measuring [0-9]*/8 (" tty.out &&
	test_grep "warm-up 1/8" tty.out &&
	whyslow compare -r 3 -w 1 -e wall-time -n a -n b "sleep 0.05" "sleep 0.05" >/dev/null 2>pipe.err &&
	test_grep -v "measuring" pipe.err
'

test_expect_success 'a -L value that contains {VAR} is inserted once, not forever' '
	whyslow compare -r 1 -w 0 -e wall-time --export-json loop.json -L X "{X}1,2" "echo {X}" >out &&
	test "$(python3 -c "import json; print(\"|\".join(v[\"command\"] for v in json.load(open(\"loop.json\"))[\"variants\"]))")" = "echo {X}1|echo 2"
'

test_expect_success 'a command named with bytes that are not UTF-8 round-trips through the result file' '
	printf "#!/bin/sh\ntrue\n" >"b$(printf "\351")d" && chmod +x "b$(printf "\351")d" &&
	whyslow compare -r 2 -w 0 -e wall-time --export-json u.json "./b$(printf "\351")d" true >out &&
	whyslow report u.json >again &&
	test_grep "b.*d (baseline)" again
'


test_expect_success 'the same command twice is an A/A check: the copy is named "#2", and -r below 3 is honoured' '
	whyslow compare -r 2 -w 0 -e wall-time --export-json aa.json true true >out &&
	jq -e "[.variants[].name] == [\"true\", \"true #2\"]" aa.json &&
	jq -e "[.variants[].metrics[\"wall-time\"].samples | length] == [2, 2]" aa.json
'

# Undecided: at 3 rounds a session cannot stop on its answer whatever the programs (3 runs against 3 give
# no 95% interval inside or outside the band), so it must stop at --max-runs and say so. Two copies of
# true at 12 rounds could decide (a 6.4% "difference" did once, in a fresh-clone make test).
test_expect_success 'compare decides by default: rounds until the answer is clear, and says so when it is not' '
	whyslow compare -w 0 -e wall-time,task-clock --export-json d.json -n fast "sleep 0.001" -n slow "sleep 0.03" >out &&
	jq -e ".settings.runs_auto and .settings.runs >= 10 and .settings.runs < 200" d.json &&
	jq -e "[.comparisons[] | select(.variant == \"slow\" and .metric == \"wall-time\")][0].verdict == \"slower\"" d.json &&
	jq -e ".settings.schedule_looks == 9" d.json &&
	test_grep "all but the primary.s at 99.4% (--runs auto: alpha / 9 looks)" out &&
	whyslow compare -w 0 -e wall-time --max-runs 3 --export-json u.json -n a true -n b true >out &&
	jq -e ".settings.runs == 3" u.json &&
	test_grep "runs auto stopped at 3 rounds (--max-runs) before the answer was decided" out
'

# A budget spent before the first look would report nothing: 2 rounds of a 5 s program against the 30 s
# default said "not significantly different". Whether the first look decides or the time is up, it is at 10.
test_expect_success '--max-time does not stop a session before its first look (10 rounds)' '
	whyslow compare -w 0 -e wall-time --max-time 0.001 --export-json mt.json -n a true -n b true >out &&
	jq -e ".settings.runs == 10" mt.json
'

# Quoted once: stat joins a command's words with shell quoting, which is all a message may add to it; a name
# that holds single quotes goes in double quotes, and one that holds both, bare ('sh -c '\''x'\''' was seen).
SQ="'"
q_word="echo 'a b'"
q_fail="exit 2; echo 'a b'"
q_both="echo 'a' \"b\""
cat >expect-quoted <<\EOF
 Performance counter stats for "sh -c 'echo '\''a b'\'''" (2 runs, 0 warm-up, backend fake):
whyslow: error: "sh -c 'exit 2; echo '\''a b'\'''" exited with status 2 under the fake backend; use --ignore-failure to keep such runs, or --show-output to see its output
 Performance counter stats for sh -c 'echo '\''a'\'' "b"' (2 runs, 0 warm-up, backend fake):
 Performance counter stats for 'echo "x"' (2 runs, 0 warm-up, backend fake):
 why: "echo 'it'\''s'" is unchanged in instructions (exact); no cycle counts to explain it with (a PMU, or the simulator: --backend auto)
EOF
test_expect_success 'a name with quotes is quoted once: in the header, a failed run and the explanation' '
	fake() { "$WS_BUILD/tests/whyslow-fake" "$@"; } &&
	fake stat -r 2 --backend fake -- sh -c "$q_word" >out 2>err &&
	sed -n 2p out >actual &&
	test_expect_code 1 fake stat -r 2 --backend fake -- sh -c "$q_fail" >out 2>err &&
	cat err >>actual &&
	fake stat -r 2 --backend fake -- sh -c "$q_both" >out 2>err &&
	sed -n 2p out >>actual &&
	fake stat -r 2 --backend fake --shell "echo \"x\"" >out 2>err &&
	sed -n 2p out >>actual &&
	fake compare -r 2 --backend fake --export-json q.json --shell "echo x" "echo ${SQ}it${SQ}\\${SQ}${SQ}s${SQ}" >out 2>err &&
	grep "^ why:" out >>actual &&
	test_cmp expect-quoted actual &&
	whyslow report q.json >out &&
	grep "^ why:" out >actual &&
	sed -n 5p expect-quoted >expect &&
	test_cmp expect actual
'


# A command of 300 characters made its column, and every row of the table, 300 wide.
long_a=$(printf "%290s" "" | tr " " a)
long="echo $long_a"
cat >table-check.py <<\EOF
# table-check.py OUT: the table under " metric" in OUT is aligned (every row as wide) and under 100 columns;
# print its header's program cells.
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
top = next(i for i, l in enumerate(lines) if l.startswith(" metric "))
table = lines[top:lines.index("", top)]
assert len(table) > 1 and len({len(l) for l in table}) == 1, table
assert len(table[0]) < 100, table[0]
print(*(c.strip() for c in table[0].split("   ")[1:] if c.strip()), sep="\n")
EOF
test_expect_success 'a long command is cut in the middle in the terminal table, and kept whole in the exports' '
	fake() { "$WS_BUILD/tests/whyslow-fake" "$@"; } &&
	fake compare -r 2 --backend fake --export-json long.json --export-csv long.csv --export-markdown long.md \
		"$long" "echo b" >out &&
	python3 table-check.py out >cells &&
	printf "%s\n" "echo aaaaaaaaaaaaaa…aaaaaaaaaaaaaaaaaaaa (baseline)" "echo b" >expect &&
	test_cmp expect cells &&
	jq -e --arg long "$long" ".variants[0].name == \$long" long.json &&
	grep -F "$long" long.csv >/dev/null &&
	grep -F "$long" long.md >/dev/null &&
	fake compare -v -r 2 --backend fake "$long" "echo b" >out &&
	test_grep "$long (baseline)" out
'

test_expect_success 'long commands that differ in the middle stay told apart in the table' '
	fake() { "$WS_BUILD/tests/whyslow-fake" "$@"; } &&
	fake compare -r 2 --backend fake "echo ${long_a}x$long_a" "echo ${long_a}y$long_a" >out &&
	grep "^ metric " out >head &&
	test_grep "x[a…]* (baseline) " head &&
	test_grep "y[a…]* *$" head &&
	# Cut all the same, each to less than its whole command: not widened back to the full names.
	test_grep "…" head &&
	test $(grep -o "…" head | wc -l) = 2 &&
	test_grep -v "echo ${long_a}x$long_a" head
'

test_done
