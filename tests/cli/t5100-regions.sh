#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t5100-regions.sh - stat and compare --regions: the perf backend (software events), and the simulator beside it.
. "$WS_SRC/tests/cli/lib.sh"

MARKED="$WS_BUILD/tests/marker/marked"

test_expect_success 'stat --regions reports each region with entries, wall time and counters' '
	whyslow stat -r 3 -w 0 --regions -e task-clock,page-faults --export-json r.json -- "$MARKED" >out &&
	test_grep "^  region outer" out &&
	test_grep -v "regions: none opened" out &&
	python3 - r.json <<-\EOF
	import json, sys
	v = json.load(open(sys.argv[1]))["variants"][0]
	reg = v["regions"]
	assert set(reg) >= {"main", "outer", "inner"}, reg.keys()
	med = lambda r, m: reg[r]["metrics"][m]["median"]
	assert med("outer", "entries") == 5 and med("inner", "entries") == 5 and med("main", "entries") == 1
	# nested regions count inclusively: an inner region never exceeds its outer one
	for m in ("task-clock", "wall-time"):
	    for i in range(3):
	        inner = reg["inner"]["metrics"][m]["samples"][i]
	        outer = reg["outer"]["metrics"][m]["samples"][i]
	        assert 0 < inner <= outer, (m, i, inner, outer)
	# the whole process is at least its outermost region
	assert v["metrics"]["task-clock"]["median"] >= med("main", "task-clock")
	EOF
'

test_expect_success 'without --regions the markers stay off: no regions, nothing written' '
	whyslow stat -r 2 -w 0 -e task-clock --export-json n.json -- "$MARKED" >out &&
	test "$(python3 -c "import json; print(len(json.load(open(\"n.json\"))[\"variants\"][0][\"regions\"]))")" = 0 &&
	test_grep -v "region outer" out
'

test_expect_success 'compare --regions flags a region entered a different number of times' '
	whyslow compare -r 2 -w 0 --regions -e task-clock -n five -n seven "$MARKED -n 5" "$MARKED -n 7" >out &&
	test_grep "region .outer. is entered 5 times by .five. but 7 times by .seven." out &&
	test_grep "^ region inner" out
'

test_expect_success 'a region never closed (or ended unbegun) reads as not counted, with a warning' '
	whyslow compare -r 3 -w 0 --regions -e task-clock -n plain -n unmatched --export-json u.json \
		"$MARKED" "$MARKED -u" >out &&
	test_grep "region .stray. was never closed in .unmatched.: each of its markers was unmatched" out &&
	test_grep "region .open. was never closed in .unmatched." out &&
	test_grep -v "region .main. was never closed" out &&
	python3 - u.json <<-\EOF
	import json, sys
	v = json.load(open(sys.argv[1]))["variants"][1]
	for name in ("stray", "open"):
	    m = v["regions"][name]["metrics"]
	    assert m["entries"]["samples"] == [0, 0, 0], (name, m["entries"])
	    # not a measured 0 s: nothing was timed, as nothing was counted
	    for metric in ("wall-time", "task-clock"):
	        assert m[metric]["samples"] == [None] * 3, (name, metric, m[metric]["samples"])
	assert all(s > 0 for s in v["regions"]["main"]["metrics"]["wall-time"]["samples"])
	EOF
'

test_expect_success 'stat warns of a region never closed, as compare does' '
	whyslow stat -r 2 -w 0 --regions -e task-clock --export-json s.json -- "$MARKED" -u >out &&
	test_grep "warning: region .stray. was never closed in .*marked -u.: each of its markers was unmatched" out &&
	test_grep "warning: region .open. was never closed in " out &&
	test_grep -v "region .main. was never closed" out &&
	python3 -c "import json, sys; w = json.load(open(sys.argv[1]))[\"warnings\"]; assert sum(\"never closed\" in x for x in w) == 2, w" s.json
'

test_have_prereq SIM || test_skip_next 'needs valgrind and the wsim tool (make)'
test_expect_success 'under the simulator an end without a begin is not counted, and stat warns of it' '
	whyslow stat --backend sim -r 1 -w 0 --regions -e instructions --export-json sim.json -- "$MARKED" -n 1 -u >out &&
	test_grep "warning: region .stray. was never closed in " out &&
	test_grep -v "region .open. was never closed" out &&
	python3 - sim.json <<-\EOF
	import json, sys
	reg = json.load(open(sys.argv[1]))["variants"][0]["regions"]
	assert reg["stray"]["metrics"]["entries"]["samples"] == [0], reg["stray"]
	assert reg["stray"]["metrics"]["instructions"]["samples"] == [None], reg["stray"]
	# the simulator ends a region still open at exit, and counts it
	assert reg["open"]["metrics"]["entries"]["samples"] == [1], reg["open"]
	EOF
'

test_expect_success 'regions are listed by name, not in the order the program registered them' '
	whyslow stat -r 1 -w 0 --regions -e task-clock --export-json order.json -- "$MARKED" -n 1 -r -u >out &&
	grep "^  region " out >perf.order &&
	printf "  region %s\n" inner main open outer rec stray >expect &&
	test_cmp expect perf.order &&
	python3 -c "import json, sys; print(*json.load(open(sys.argv[1]))[\"variants\"][0][\"regions\"])" order.json >keys &&
	echo inner main open outer rec stray >expect &&
	test_cmp expect keys
'

test_have_prereq SIM || test_skip_next 'needs valgrind and the wsim tool (make)'
test_expect_success 'the simulator lists the same regions in the same order' '
	whyslow stat -r 1 -w 0 --regions -e task-clock -- "$MARKED" -n 1 -r -u >out &&
	grep "^  region " out >perf.order &&
	whyslow stat --backend sim -r 1 -w 0 --regions -e instructions -- "$MARKED" -n 1 -r -u >out &&
	grep "^  region " out >sim.order &&
	test_cmp perf.order sim.order
'

test_expect_success 'region files do not pile up in the temporary directory' '
	mkdir tmp &&
	TMPDIR=$PWD/tmp "$WHYSLOW" stat -r 2 -w 0 --regions -e task-clock -- "$MARKED" >out &&
	test -z "$(ls tmp)"
'

test_expect_success 'a program that opens no region: --regions says so and how to mark one' '
	whyslow stat -r 2 -w 0 --regions -e task-clock -- /bin/true >out &&
	test_grep "^  regions: none opened; mark them in the program with WS_REGION_BEGIN" out &&
	whyslow compare -r 3 -w 0 --regions -e task-clock /bin/true "/bin/true x" >out &&
	test_grep "^ regions: none opened" out &&
	whyslow compare -r 3 -w 0 --regions -e task-clock "$MARKED" "$MARKED" >out &&
	test_grep -v "regions: none opened" out
'

test_done
