#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t4106-sim-jobs.sh - simulations side by side (-j): the result of -j 1 to the byte, and memory kept in bounds.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq SIM || test_skip_all "the simulator tool is not built (valgrind missing)"

C="$WS_BUILD/examples/causes"
M="$WS_BUILD/examples/micro"

test_expect_success '-j 2 and -j 3 give -j 1'"'"'s result, regions, functions and processes included' '
	for j in 1 2 3
	do
		whyslow compare --backend sim -j $j --seed 7 --regions --functions --export-json j$j.json \
			-n arith2 "$C/arith 20000 2" -n arith3 "$C/arith 20000 3" -n regions "$M/regions" \
			-n forkexec "$M/forkexec 20000 $C/arith 5000 2" >out$j || return 1
	done &&
	test_result_variants j1.json >v1 && test_result_variants j2.json >v2 && test_result_variants j3.json >v3 &&
	test_cmp v1 v2 && test_cmp v1 v3 &&
	python3 -c "
import json
d = json.load(open(\"j2.json\"))
assert all(len(v[\"metrics\"][\"instructions\"][\"samples\"]) == 3 for v in d[\"variants\"])
assert d[\"variants\"][2][\"regions\"] and d[\"variants\"][0][\"functions\"]
"
'

test_expect_success 'overlapping runs each read the whole --input' '
	seq 1 5000 >input &&
	whyslow stat --backend sim --sim-runs 4 -j 1 -e instructions --input input --export-json i1.json -- sort -n >/dev/null &&
	whyslow stat --backend sim --sim-runs 4 -j 4 -e instructions --input input --export-json i4.json -- sort -n >/dev/null &&
	test_result_variants i1.json >v1 && test_result_variants i4.json >v4 && test_cmp v1 v4 &&
	test_grep "exact" i4.json
'

# As xz does: O_NONBLOCK on stdout while it runs, cleared at its exit (or, with an argument, left set);
# more work where it found the flag set already, so a run that sees another's flag counts more.
cat >nonblock.c <<-\EOF
#include <fcntl.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int fl = fcntl(1, F_GETFL);
	volatile long n = 0;

	(void)argv;
	if (fl & O_NONBLOCK)
		for (long i = 0; i < 100000; i++)
			n += i;
	fcntl(1, F_SETFL, fl | O_NONBLOCK);
	if (argc > 1)
		return 0;
	sleep(1);
	fcntl(1, F_SETFL, fl);
	return 0;
}
EOF
# FILE N: the first variant's N instruction samples, all equal.
same_samples() {
	python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))[\"variants\"][0][\"metrics\"][\"instructions\"][\"samples\"]
assert len(s) == int(sys.argv[2]) and len(set(s)) == 1, s
" "$@"
}

test_expect_success 'runs side by side do not share their /dev/null: one'"'"'s O_NONBLOCK is not the other'"'"'s' '
	cc -O1 -o nonblock nonblock.c &&
	whyslow stat --backend sim --sim-runs 2 -j 2 -e instructions --export-json nb.json -- ./nonblock >/dev/null &&
	same_samples nb.json 2
'

test_expect_success 'one run after another: a flag the run before left on its /dev/null is not the next one'"'"'s' '
	whyslow stat --backend sim --sim-runs 3 -j 1 -e instructions --export-json lv.json -- ./nonblock leave \
		>/dev/null &&
	same_samples lv.json 3
'

test_expect_success '--output FILE holds the last run'"'"'s output, and nothing else is left' '
	whyslow compare --backend sim -j 3 --sim-runs 2 -e instructions --output ./o.txt "echo first" "echo last" >/dev/null &&
	echo last >expect && test_cmp expect o.txt &&
	ls >files && test_grep -v whyslow-run files
'

test_expect_success 'a failed run stops the session when its turn comes; the runs before it are kept' '
	test_expect_code 1 whyslow compare --backend sim -j 2 -e instructions --export-json f.json \
		"$C/arith 1000 2" "sh -c \"exit 3\"" >out 2>err &&
	test_grep "exited with status 3 under the simulator; use --ignore-failure to keep such runs" err &&
	python3 -c "
import json
d = json.load(open(\"f.json\"))
assert d[\"partial\"] and d[\"partial_reason\"] == \"a run failed\", d.get(\"partial_reason\")
assert len(d[\"variants\"][0][\"metrics\"][\"instructions\"][\"samples\"]) == 1
"
'

test_expect_success 'a -j that memory cannot hold is refused when the first simulation ends, which is kept' '
	test_expect_code 1 env WHYSLOW_TEST_MEM_AVAILABLE=100000000 "$WHYSLOW" stat --backend sim --sim-runs 4 -j 4 \
		-e instructions --export-json m.json -- "$C/arith" 1000 2 >out 2>err &&
	test_grep "^whyslow: error: -j 4: a simulation of .* took up to [0-9]* MiB, and 4 at once would need [0-9]* MiB, more than the [0-9]* MiB free for them (MemAvailable, less a tenth); give -j [12] or less$" err &&
	test_grep "(1 run, 0 warm-up, backend sim" out &&
	test_grep "\"partial\": true" m.json
'

test_expect_success 'by default, the number at once comes down to what memory holds' '
	env WHYSLOW_TEST_MEM_AVAILABLE=50000000 "$WHYSLOW" stat --backend sim --sim-runs 3 -e instructions \
		-- "$C/arith" 1000 2 >out 2>err &&
	test_grep "(3 runs, 0 warm-up, backend sim" out &&
	if test "$(nproc)" -gt 1
	then
		test_grep "simulating 1 at a time, not [0-9]*: one took up to" err
	fi
'

test_expect_success '-j takes a positive number' '
	test_expect_code 129 whyslow stat --backend sim -j 0 -- true 2>err &&
	test_grep "^whyslow stat: -j expects a positive number" err
'

test_done
