#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2100-diff.sh - whyslow diff on hand-written files: docs/statistics.md's reference p-values, fingerprints, gate.
. "$WS_SRC/tests/cli/lib.sh"

# A minimal result file: one variant named $2 whose metric "t" has the samples $3 (a JSON list).
sample_file() {
	printf '{"machine":{"cpu":"%s","backend":"perf"},"variants":[{"name":"%s","metrics":{"t":{"samples":%s}}}]}\n' \
		"${4:-CPU A}" "$2" "$3" >"$1"
}

p_of() {
	python3 -c "
import csv, sys
for row in csv.DictReader(open(sys.argv[1])):
    if row['metric'] == 't':
        print(row['p'])
" "$1"
}

close_to() {
	python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if abs(a - b) <= 1e-12 * max(1, abs(b)) else 1)" "$1" "$2" ||
	{ echo "p = $1, expected $2" >&2; return 1; }
}

test_expect_success 'exact Mann-Whitney: U1=0 gives p = 0.0285714...' '
	sample_file a.json a "[2,1,3,5]" &&
	sample_file b.json b "[12,11,13,15]" &&
	whyslow diff a.json b.json --export-csv d.csv >out &&
	close_to "$(p_of d.csv)" 0.028571428571428571
'

test_expect_success 'exact Mann-Whitney: U1=5 gives p = 0.4857142...' '
	sample_file a.json a "[2,1,3,5]" &&
	sample_file b.json b "[0,4,6,7]" &&
	whyslow diff a.json b.json --export-csv d.csv >out &&
	close_to "$(p_of d.csv)" 0.48571428571428571
'

test_expect_success 'ties: the normal approximation with tie and continuity correction' '
	sample_file a.json a "[10,11,11,12,13,13,13,15,16,18]" &&
	sample_file b.json b "[12,13,14,14,15,16,17,17,19,20]" &&
	whyslow diff a.json b.json --export-csv d.csv >out &&
	close_to "$(p_of d.csv)" 0.0438657992027376
'

# The interval is the one the test inverts, at the report's level: p = 0.0439 is significant at 0.05, and
# its CI there touches 1 at most; at --alpha 0.01 it is not, and its 99% CI must reach across 1.
ci_of() {
	python3 -c "
import csv, sys
for row in csv.DictReader(open(sys.argv[1])):
    if row['metric'] == 't':
        print(row['ci_lo'], row['ci_hi'], row['verdict'])
" "$1"
}

test_expect_success 'the CI is at level 1 - alpha (--alpha 0.01: a 99% CI that holds 1)' '
	sample_file a.json a "[10,11,11,12,13,13,13,15,16,18]" &&
	sample_file b.json b "[12,13,14,14,15,16,17,17,19,20]" &&
	whyslow diff a.json b.json --export-csv d5.csv >out5 &&
	whyslow diff a.json b.json --alpha 0.01 --export-csv d1.csv >out1 &&
	set -- $(ci_of d5.csv) &&
	python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 1 and sys.argv[3] != \"same\" else 1)" "$@" &&
	set -- $(ci_of d1.csv) &&
	python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 1 < float(sys.argv[2]) and sys.argv[3] == \"same\" else 1)" "$@" &&
	test_grep "with its 95% CI" out5 &&
	test_grep "with its 99% CI" out1
'

# A value of 0 leaves the bootstrap; two runs a side make its percentiles [-100%, -50%], clear of 1 beside
# p = 0.33. Below the runs a median needs for a CI of its own (6 at 95%) the cell shows none.
test_expect_success 'no bootstrap CI from too few runs; six a side keep it' '
	sample_file a.json a "[0.002,0.004]" &&
	sample_file b.json b "[0,0.001]" &&
	whyslow diff a.json b.json --export-csv d2.csv >out &&
	set -- $(ci_of d2.csv) &&
	test "$1" = same &&
	test_grep "~ -83.3%\$" out &&
	! test_grep "significant by its own test" out &&
	sample_file a.json a "[0.002,0.004,0.003,0.002,0.004,0.003]" &&
	sample_file b.json b "[0,0.001,0.001,0,0.001,0.002]" &&
	whyslow diff a.json b.json --export-csv d6.csv >out &&
	set -- $(ci_of d6.csv) &&
	test $# = 3
'

# The gate compares the estimate with PCT once the change is significant (statistics.md, 11); its help
# said "significantly slower by more than PCT", which reads as the CI clearing PCT.
test_expect_success '--fail-if-slower says it compares the estimate, not the CI' '
	whyslow diff -h >h 2>&1 || :
	test_grep "fail-if-slower PCT *exit 3 if a variant differs significantly and its estimate is over PCT% worse" h
'

test_expect_success 'large samples: x=2i (i<500), y=2i-41 (i<600)' '
	sample_file a.json a "$(python3 -c "print([2*i for i in range(500)])")" &&
	sample_file b.json b "$(python3 -c "print([2*i-41 for i in range(600)])")" &&
	whyslow diff a.json b.json --export-csv d.csv >out &&
	close_to "$(p_of d.csv)" 0.0049335360814172
'

test_expect_success 'a file with several variants; the first of the first file is the baseline' '
	cat >multi.json <<-\EOF &&
	{"variants":[{"name":"x","metrics":{"t":{"samples":[1,2,3,4,5]}}},
	             {"name":"y","metrics":{"t":{"samples":[11,12,13,14,15]}}}]}
	EOF
	sample_file c.json z "[1,2,3,4,5]" &&
	whyslow diff multi.json c.json >out &&
	test_grep "x (baseline)" out &&
	test_grep " y " out && test_grep " z" out
'

test_expect_success 'clashing names are told apart by their file' '
	sample_file a.json same "[1,2,3,4]" &&
	sample_file b.json same "[5,6,7,8]" &&
	whyslow diff a.json b.json >out &&
	test_grep "b.json:same" out
'

test_expect_success 'different machines: a warning, or a refusal with --strict' '
	sample_file a.json a "[1,2,3,4]" "CPU A" &&
	sample_file b.json b "[1,2,3,4]" "CPU B" &&
	whyslow diff a.json b.json >out 2>err &&
	test_grep "CPU differs" err &&
	test_expect_code 1 whyslow diff --strict a.json b.json >out 2>err &&
	test_line_count = 1 err &&
	test_grep "refusing with --strict" err
'

test_expect_success 'a result without a simulator: its preset is none, and said once with the backend' '
	printf "{\"machine\":{\"backend\":\"perf\"},\"variants\":[{\"name\":\"a\",\"metrics\":{\"t\":{\"samples\":[1,2,3,4]}}}]}\n" >np.json &&
	printf "{\"machine\":{\"backend\":\"sim\",\"sim_preset\":\"zen4\"},\"variants\":[{\"name\":\"b\",\"metrics\":{\"t\":{\"samples\":[1,2,3,4]}}}]}\n" >sp.json &&
	printf "{\"machine\":{\"backend\":\"perf\",\"sim_preset\":\"zen4\"},\"variants\":[{\"name\":\"c\",\"metrics\":{\"t\":{\"samples\":[1,2,3,4]}}}]}\n" >pp.json &&
	whyslow diff np.json sp.json >out 2>err &&
	test_grep "backend differs: .perf. in np.json, .sim. in sp.json" err &&
	test_grep -v "preset" err &&
	whyslow diff np.json pp.json >out 2>err &&
	test_grep "simulator preset differs: none (no simulator) in np.json, .zen4. in pp.json" err &&
	test_grep -v "[?]" err
'

test_expect_success 'an export over one of the results being read, or two exports into one file, are refused' '
	sample_file in1.json a "[2,1,3,5]" &&
	sample_file in2.json b "[12,11,13,15]" &&
	cp in1.json in1.bak &&
	test_expect_code 129 whyslow diff --export-csv ./in1.json in1.json in2.json >out 2>err &&
	test_grep "is a result being read" err &&
	test_cmp in1.bak in1.json &&
	test_expect_code 129 whyslow diff --export-csv same.out --export-markdown same.out in1.json in2.json \
		>out 2>err &&
	test_grep "name one file" err &&
	! test -e same.out
'

test_expect_success 'results of different lengths: the header gives the range; a partial one makes the comparison partial' '
	sample_file r4.json four "[1,2,3,4]" &&
	sample_file r6.json six "[2,3,4,5,6,7]" &&
	whyslow diff r4.json r6.json --export-json r46.json --export-markdown r46.md >out &&
	test_grep "2 programs, 4 to 6 runs," out &&
	test_grep "2 programs, 4 to 6 runs" r46.md &&
	! test_grep "runs each" out &&
	python3 -c "import json, sys; assert json.load(open(sys.argv[1])).get(\"partial\") is not True" r46.json &&
	sed "s/^{/{\"partial\":true,\"partial_reason\":\"interrupted\",/" r6.json >r6p.json &&
	whyslow diff r4.json r6p.json --export-json r46p.json --export-markdown r46p.md >out 2>err &&
	python3 -c "import json, sys; d = json.load(open(sys.argv[1])); assert d[\"partial\"] is True and \"r6p.json\" in d[\"partial_reason\"], d" r46p.json &&
	test_grep "^\*\*Partial result\*\*: r6p.json holds a partial result (interrupted)" r46p.md
'

test_expect_success 'Markdown shows names as text: no cell split by a |, no HTML' '
	sample_file n1.json "a|b" "[1,2,3,4]" &&
	sample_file n2.json "<i>x</i>" "[2,3,4,5]" &&
	whyslow diff n1.json n2.json --export-markdown n.md >out &&
	test_grep "^| metric | a\\|b (baseline) | &lt;i&gt;x&lt;/i&gt; |$" n.md &&
	test_grep "against a\\|b" n.md &&
	# the why bullets and the warnings name it too: text there as well, no tag anywhere
	sample_file n3.json "</script><img src=x onerror=alert(2)>" "[2,3,4,5]" &&
	whyslow diff n1.json n3.json --export-markdown n3.md >out &&
	test_grep "^- \\*\\*&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;\\*\\*: .&lt;/script&gt;&lt;img" n3.md &&
	! grep -q "<img\\|</script\\|<i>" n.md n3.md
'

test_expect_success 'an input file'"'"'s warnings are kept once: those the comparison makes again are not repeated' '
	printf "{\"warnings\":[\"noisy machine: 9 of 9 wall-time runs of %sz%s are outliers\",\"the simulator hides CPU features this machine has (avx)\"],\"variants\":[{\"name\":\"z\",\"metrics\":{\"t\":{\"samples\":[3,4,5,6]}}}]}\n" "'"'"'" "'"'"'" >w.json &&
	sample_file w0.json y "[1,2,3,4]" &&
	whyslow diff w0.json w.json --export-json wd.json >out 2>err &&
	python3 -c "import json, sys; w = json.load(open(sys.argv[1]))[\"warnings\"]; assert w == [\"w.json: the simulator hides CPU features this machine has (avx)\"], w" wd.json
'

test_expect_success 'one run each: the summary says the primary could not be tested, and why' '
	printf "{\"variants\":[{\"name\":\"a\",\"metrics\":{\"wall-time\":{\"samples\":[1]}}}]}\n" >one-a.json &&
	printf "{\"variants\":[{\"name\":\"b\",\"metrics\":{\"wall-time\":{\"samples\":[2]}}}]}\n" >one-b.json &&
	whyslow diff one-a.json one-b.json >out 2>err &&
	test_grep ".b. is not compared in wall-time: too few runs to test (-r: 4 per program at least" out
'

test_expect_success 'a directory given as a result file is called one' '
	mkdir adir &&
	sample_file in3.json a "[2,1,3,5]" &&
	test_expect_code 1 whyslow diff in3.json adir >out 2>err &&
	test_line_count = 1 err &&
	test_grep "is a directory, not a result file" err &&
	test_expect_code 1 whyslow report adir >out 2>err &&
	test_grep "is a directory, not a result file" err
'

test_expect_success '--fail-if-slower on saved results' '
	sample_file a.json a "[2,1,3,5]" &&
	sample_file b.json b "[12,11,13,15]" &&
	test_expect_code 3 whyslow diff --fail-if-slower 10 --metric t a.json b.json >out 2>err &&
	test_grep "worse than .a." err &&
	whyslow diff --fail-if-slower 10 --metric t b.json a.json >out 2>err
'

# metric_file FILE NAME METRIC SAMPLES: a result file with one variant and one metric.
metric_file() {
	printf '{"variants":[{"name":"%s","metrics":{"%s":{"samples":%s}}}]}\n' "$2" "$3" "$4" >"$1"
}

test_expect_success '--fail-if-slower follows the metric: lower ipc is worse, higher is not' '
	metric_file hi.json fast ipc "[2.0,2.01,1.99,2.02,1.98,2.0,2.01,1.99]" &&
	metric_file lo.json slow ipc "[1.0,1.01,0.99,1.02,0.98,1.0,1.01,0.99]" &&
	test_expect_code 3 whyslow diff --fail-if-slower 10 --metric ipc hi.json lo.json >out 2>err &&
	test_grep "worse than .fast. by 100.0% in ipc (-50.0%)" err &&
	whyslow diff --fail-if-slower 10 --metric ipc lo.json hi.json >out 2>err
'

test_expect_success 'a significant slowdown whose CI reaches into the noise band: said as such, and gated' '
	metric_file nb.json base wall-time "[1.00,1.01,0.99,1.005,0.995,1.0,1.002,0.998]" &&
	metric_file nv.json var wall-time "[1.0,1.10,1.08,1.09,1.07,1.06,1.001,1.11]" &&
	test_expect_code 3 whyslow diff --fail-if-slower 2 nb.json nv.json >out 2>err &&
	test_grep "≈ +7.5% \[+0.5, +10.0\]" out &&
	test_grep "probably slower by 7.5% \[+0.5, +10.0\] in wall-time: significant, but the CI reaches into the noise band" out &&
	! test_grep "the same within the noise threshold" out &&
	test_grep "worse than .base. by 7.5% in wall-time" err &&
	whyslow diff --fail-if-slower 8 nb.json nv.json >out 2>err
'

test_expect_success 'a gate tripped by less than 0.1% prints the amount with the digits that show it' '
	printf "{\"variants\":[{\"name\":\"base\",\"metrics\":{\"estimated-cycles\":{\"samples\":[1000000,1000000,1000000],\"simulated\":true}}}]}\n" >g0.json &&
	printf "{\"variants\":[{\"name\":\"var\",\"metrics\":{\"estimated-cycles\":{\"samples\":[1000200,1000200,1000200],\"simulated\":true}}}]}\n" >g1.json &&
	test_expect_code 3 whyslow diff --fail-if-slower 0.01 g0.json g1.json >out 2>err &&
	test_grep "worse than .base. by 0.02% in estimated-cycles (+0.02%), more than the 0.01% allowed" err &&
	whyslow diff --fail-if-slower 0.03 g0.json g1.json >out 2>err
'

test_expect_success 'a count new in the variant shows its value: no ratio to a baseline of 0 can' '
	printf "{\"variants\":[{\"name\":\"base\",\"metrics\":{\"coherence-misses\":{\"samples\":[0,0,0],\"simulated\":true}}}]}\n" >z0.json &&
	printf "{\"variants\":[{\"name\":\"var\",\"metrics\":{\"coherence-misses\":{\"samples\":[95096,95096,95096],\"simulated\":true}}}]}\n" >z1.json &&
	whyslow diff z0.json z1.json >out 2>err &&
	test_grep "coherence-misses \[sim\] *0 *new: 95,096 exact (baseline 0)$" out
'

test_expect_success 'an interval clear of 1 that the correction leaves not significant says so' '
	metric_file c0.json base wall-time "[1,1.01,0.99,1.005,0.995]" &&
	for i in 1 2 3 4 5 6 7 8
	do
		metric_file c$i.json v$i wall-time "[1.1,1.11,1.09,1.105,1.095]" || return 1
	done &&
	whyslow diff c0.json c1.json c2.json c3.json c4.json c5.json c6.json c7.json c8.json >out 2>err &&
	test_grep ".v1. is inconclusive: +10.0% \[+8.5, +11.6\] in wall-time is significant by its own test, not after the correction" out &&
	! test_grep "runs per program would likely tell" out &&
	test_grep "nothing can be significant" out &&
	whyslow diff --fdr c0.json c1.json c2.json c3.json c4.json c5.json c6.json c7.json c8.json >out 2>err &&
	test_grep ".v1. is slower by 10.0%" out &&
	! test_grep "can be significant" out
'

test_expect_success 'a gate that cannot test (too few runs) fails instead of passing' '
	metric_file one.json a t "[1]" &&
	metric_file two.json b t "[2]" &&
	test_expect_code 1 whyslow diff --fail-if-slower 5 --metric t one.json two.json >out 2>err &&
	test_grep "cannot gate .b. on t: too few runs" err
'

# Two runs a side: ten times slower, but Mann-Whitney cannot give p below 1/3.
test_expect_success 'a gate whose test could never be significant fails too, and a negative limit is refused' '
	metric_file one.json a t "[1,1.1]" &&
	metric_file two.json b t "[10,10.1]" &&
	test_expect_code 1 whyslow diff --fail-if-slower 5 --metric t one.json two.json >out 2>err &&
	test_grep "cannot gate .b. on t: too few runs" err &&
	test_expect_code 129 whyslow diff --fail-if-slower -1 --metric t one.json two.json >out 2>err &&
	test_grep "expects a percentage >= 0, not -1" err
'

# The baseline has wall-time and task-clock; 'a' only wall-time, 'new' only task-clock (+900%): the gate on
# wall-time never looked at 'new', so it must not pass, and its why line must not say wall-time did not differ.
test_expect_success 'a gate fails when one of several variants lacks its metric, and says which' '
	printf "{\"variants\":[{\"name\":\"old\",\"metrics\":{\"wall-time\":{\"samples\":[1,1.01,0.99,1.02,0.98,1]},\"task-clock\":{\"samples\":[1,1.01,0.99,1.02,0.98,1]}}}]}\n" >old.json &&
	metric_file a.json a wall-time "[1,1.01,0.99,1.02,0.98,1]" &&
	metric_file new.json new task-clock "[10,10.1,9.9,10.2,9.8,10]" &&
	test_expect_code 1 whyslow diff old.json a.json new.json --fail-if-slower 2 >out 2>err &&
	test_grep "cannot gate .new. on wall-time: it has no wall-time" err &&
	! test_grep "cannot gate .a." err &&
	test_grep "why: .new. is not tested in task-clock: its primary metric wall-time was not compared" out &&
	! test_grep "primary metric does not differ" out
'

# Names in a result file are shown escaped: an OSC title, a colour, a forged line, a bidi override. The metric
# and region names, escaped the same way in both files, still pair.
ctl_file() {
	python3 -c "
import json, sys
m = {'t\a': {'samples': [float(x) * float(sys.argv[3]) for x in [1, 1.01, 0.99, 1, 1.02, 0.98]]}}
v = {'name': sys.argv[2], 'command': 'x\u2066y', 'metrics': m, 'regions': {'r\x1b[2J': {'metrics': m}}}
json.dump({'variants': [v]}, open(sys.argv[1], 'w'))
" "$@"
}
test_expect_success 'control characters and bidi overrides in names are escaped, and still pair' '
	ctl_file c1.json "$(printf "a\033]0;pwned\007\033[31mRED\r\nFAKE LINE")" 1 &&
	ctl_file c2.json "$(printf "b\342\200\256gnp.exe")" 2 &&
	whyslow diff --regions c1.json c2.json >out 2>err &&
	whyslow report c1.json >>out 2>>err &&
	whyslow diff c1.json c2.json --export-markdown c.md --export-html c.html --export-csv c.csv >/dev/null 2>>err &&
	cat c.md c.html c.csv >>out &&
	! LC_ALL=C grep -q "$(printf "[\001-\010\013-\037\177]")" out err &&
	! grep -q "$(printf "\342\200\256")" out err &&
	! grep -q "$(printf "\342\201\246")" out err &&
	test_grep -v "^FAKE LINE" out &&
	test_grep "a.x1b]0;pwned.x07.x1b\[31mRED.x0d.x0aFAKE LINE" out &&
	test_grep "b.u202egnp.exe" out &&
	test_grep "x.u2066y" out &&
	test_grep "^ t.x07 .* +100.0%" out &&
	test_grep "r.x1b\[2J" out
'

test_expect_success 'a name whose escaped spelling another name has already: refused, not one of them lost' '
	python3 -c "
import json
m = {\"t\\u0007\": {\"samples\": [1, 2]}, \"t\\\\x07\": {\"samples\": [3, 4]}}
json.dump({\"variants\": [{\"name\": \"a\", \"metrics\": m}]}, open(\"clash.json\", \"w\"))
" &&
	test_grep "x07" clash.json &&
	test_expect_code 1 whyslow report clash.json >out 2>err &&
	test_grep "two names read the same once their control characters are escaped (.t.x07.): rename one" err
'

test_expect_success 'both medians zero: the direction comes from the means' '
	metric_file z0.json base context-switches "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]" &&
	metric_file z1.json var context-switches "[0,0,0,0,0,0,0,0,0,0,0,3,4,5,6,7,8,9,10,11]" &&
	whyslow diff --export-json z.json z0.json z1.json >out &&
	python3 -c "import json; c=[c for c in json.load(open(\"z.json\"))[\"comparisons\"] if c[\"metric\"]==\"context-switches\"][0]; assert c[\"verdict\"] == \"slower\", c"
'

test_expect_success '--paired with 5 runs: the signed-rank test cannot reach significance, and says so' '
	metric_file p0.json a t "[1,2,3,4,5]" &&
	metric_file p1.json b t "[2,4,6,8,10]" &&
	whyslow diff --paired p0.json p1.json >out &&
	test_grep "smallest possible p is 0.062" out
'

test_expect_success 'two functions of one name in a foreign file stay two' '
	cat >f.json <<-\EOF &&
	{"variants":[{"name":"a","metrics":{"t":{"samples":[1,2]}},"functions":[
	  {"name":"helper","object":"/a","metrics":{"share":{"samples":[0.5,0.5]}}},
	  {"name":"helper","object":"/b","metrics":{"share":{"samples":[0.25,0.25]}}}]}]}
	EOF
	whyslow diff --export-json ff.json f.json f.json >out &&
	test "$(python3 -c "import json; v=json.load(open(\"ff.json\"))[\"variants\"][0]; print(len(v[\"functions\"]), [len(f[\"metrics\"][\"share\"][\"samples\"]) for f in v[\"functions\"]])")" = "2 [2, 2]"
'

test_expect_success 'bad input: missing files, invalid JSON, a foreign schema, too few files' '
	test_expect_code 1 whyslow diff a.json missing.json 2>err &&
	test_grep "missing.json" err &&
	echo "{not json" >bad.json &&
	test_expect_code 1 whyslow diff a.json bad.json 2>err &&
	test_grep "bad.json:1: invalid JSON" err &&
	echo "{\"schema\":\"other/9\",\"variants\":[]}" >other.json &&
	test_expect_code 1 whyslow diff a.json other.json 2>err &&
	test_grep "schema is .other/9." err &&
	test_expect_code 129 whyslow diff a.json 2>err &&
	test_line_count = 1 err
'

# Six runs, not four: diff tests three variants against the first, and Holm's correction of the smallest
# four-run p (0.029) is above 0.05, so no verdict could be "slower"; six runs give 3 * 0.0022.
test_expect_success 'diff re-analyses a result written by compare' '
	whyslow compare -r 6 -w 0 -e wall-time -n a -n b --export-json both.json "sleep 0.001" "sleep 0.02" >out &&
	whyslow diff both.json both.json --export-json again.json >out &&
	test_grep "both.json:a" out &&
	python3 - both.json again.json <<-\EOF
	import json, sys
	both = {v["name"]: v for v in json.load(open(sys.argv[1]))["variants"]}
	d = json.load(open(sys.argv[2]))
	v = {v["name"]: v for v in d["variants"]}
	# the variants of the second file, renamed by their file, with the samples compare measured
	assert list(v) == ["a", "b", "both.json:a", "both.json:b"], list(v)
	for n in "ab":
	    s = both[n]["metrics"]["wall-time"]["samples"]
	    assert len(s) == 6, s
	    assert v[n]["metrics"]["wall-time"]["samples"] == s, (n, v[n])
	    assert v["both.json:" + n]["metrics"]["wall-time"]["samples"] == s, (n, v["both.json:" + n])
	# all against the baseline a: its own samples again are the same, the 20 ms sleep is slower
	c = {c["variant"]: c for c in d["comparisons"] if c["metric"] == "wall-time" and not c.get("function")}
	assert all(x["baseline"] == "a" for x in c.values()), c
	assert c["both.json:a"]["ratio"] == 1 and c["both.json:a"]["verdict"] == "same", c["both.json:a"]
	for n in ("b", "both.json:b"):
	    assert c[n]["ratio"] > 1 and c[n]["verdict"] == "slower", c[n]
	EOF
'

test_expect_success 'report re-renders a saved comparison: terminal, Markdown, CSV, HTML' '
	sample_file a.json a "[2,1,3,5]" &&
	sample_file b.json b "[12,11,13,15]" &&
	whyslow diff a.json b.json --export-json ab.json >expect &&
	whyslow report ab.json >actual &&
	test_cmp expect actual &&
	whyslow report --markdown ab.json >md &&
	# the Hodges-Lehmann ratio exp(1.65709) and its Moses CI [exp(0.78846), exp(2.70805)]: the first case of
	# tests/unit/hl-reference.py
	test_grep "^| t | 2.50 | \*\*+424.4% \[+120.0, +1400.0\]\*\* slower |$" md &&
	whyslow report --csv ab.json >csv &&
	test_grep "^b,a,t,,,,false,2.5,12.5,5.244" csv &&
	whyslow report --html ab.json >page.html &&
	test_grep "<td class=\"cmp slower\" data-variant=\"b\" data-metric=\"t\"><span class=\"cell\">+424.4% \[+120.0, +1400.0\]</span>" page.html &&
	test_grep "</html>" page.html
'

test_expect_success 'report of a stat result shows the stat table; usage errors' '
	whyslow stat -r 2 -w 0 -e wall-time --export-json st.json -- true >/dev/null &&
	whyslow report st.json >out &&
	test_grep "Performance counter stats for .true. (2 runs, 0 warm-up, backend " out &&
	# a file of samples alone says how many, not "0 runs, backend ?"
	metric_file s.json a t "[1,2,3,4,5]" &&
	whyslow report s.json >out &&
	test_grep "Performance counter stats for .a. (5 samples, from a file that records no runs or backend):" out &&
	test_expect_code 1 whyslow report --csv st.json 2>err &&
	test_grep "no comparisons" err &&
	test_expect_code 129 whyslow report --csv --html st.json 2>err &&
	test_expect_code 129 whyslow report 2>err
'

test_expect_success 'diff shows its progress on a terminal only, and clears it' '
	sample_file a.json a "[2,1,3,5]" &&
	sample_file b.json b "[12,11,13,15]" &&
	whyslow diff a.json b.json >out 2>err &&
	test_line_count = 0 err &&
	if command -v script >/dev/null 2>&1; then
		script -qec "\"$WHYSLOW\" diff a.json b.json >/dev/null" /dev/null >tty &&
		test_grep "reading 2/2 (b.json)" tty &&
		tail -c 4 tty | od -c | test_grep "033   \[   K" -
	fi
'

test_expect_success 'hyperfine exports are read as they are: wall-time, max-rss and exit codes per run' '
	cat >hf-a.json <<-\EOF &&
	{"results": [{"command": "./prog", "mean": 0.0105, "stddev": 0.0003, "median": 0.0105, "user": 0.009,
	  "system": 0.001, "min": 0.0101, "max": 0.011,
	  "times": [0.0101, 0.0104, 0.0105, 0.0106, 0.0103, 0.0107, 0.0105, 0.011, 0.0102, 0.0106],
	  "memory_usage_byte": [3000000, 3000000, 3000000, 3000000, 3000000, 3000000, 3000000, 3000000, 3000000, 3000000],
	  "exit_codes": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "parameters": {"n": "1"}}]}
	EOF
	sed "s/0\.01\([0-9]\)/0.011\1/g" hf-a.json >hf-b.json &&
	whyslow diff --export-json hf.json hf-a.json hf-b.json >out &&
	test_grep "from saved results" out &&
	test_grep "^ wall-time .* +[0-9.]*% \[" out &&
	python3 - hf.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	a, b = d["variants"]
	assert a["name"] == "./prog" and b["name"] == "hf-b.json:./prog", (a["name"], b["name"])
	assert a["metrics"]["wall-time"]["samples"][0] == 0.0101 and len(a["metrics"]["wall-time"]["samples"]) == 10
	assert a["metrics"]["max-rss"]["median"] == 3000000
	assert "user-time" not in a["metrics"] and "system-time" not in a["metrics"]
	assert [r["exit_code"] for r in a["runs"]] == [0] * 10 and a["parameters"] == {"n": "1"}, a
	c = [c for c in d["comparisons"] if c["metric"] == "wall-time"][0]
	assert c["verdict"] == "slower", c
	assert d["machine"]["backend"] == "hyperfine", d["machine"]
	EOF
'

test_done
