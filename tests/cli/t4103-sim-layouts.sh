#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t4103-sim-layouts.sh - layout: native runs padded at random from the seed; --layouts K under the simulator.
. "$WS_SRC/tests/cli/lib.sh"

P=$WS_BUILD/tests/layout

test_expect_success 'native runs see a padding variable whose length varies by run, the same for the same seed' '
	whyslow stat -r 4 -w 1 --seed 42 -e wall-time --shell --export-json a.json \
		"echo \${#WHYSLOW_LAYOUT_PAD} >>lens-a" >/dev/null &&
	whyslow stat -r 4 -w 1 --seed 42 -e wall-time --shell "echo \${#WHYSLOW_LAYOUT_PAD} >>lens-b" >/dev/null &&
	test_cmp lens-a lens-b &&
	test $(sort -u lens-a | wc -l) -ge 3 &&
	# The four measured runs (after the warm-up) are recorded, in order, as the result says.
	tail -n 4 lens-a >measured &&
	jq -r ".variants[0].runs[].env_pad" a.json >recorded &&
	test_cmp measured recorded &&
	jq -e ".settings.randomize_layout" a.json &&
	awk "\$1 < 0 || \$1 > 4095 { exit 1 }" lens-a &&
	whyslow stat -r 2 -w 1 --seed 43 -e wall-time --shell "echo \${#WHYSLOW_LAYOUT_PAD} >>lens-c" >/dev/null &&
	! test_cmp lens-a lens-c >/dev/null
'

test_expect_success '--no-randomize-layout: no padding variable, nothing recorded' '
	whyslow stat -r 2 -w 0 -e wall-time --no-randomize-layout --shell --export-json n.json \
		"echo \${WHYSLOW_LAYOUT_PAD-unset} >>n" >/dev/null &&
	test "$(sort -u n)" = unset &&
	jq -e "(.settings.randomize_layout | not) and ([.variants[0].runs[] | has(\"env_pad\")] | any | not)" n.json
'

test_have_prereq SIM || test_skip_all 'the simulator is not built here'

test_expect_success '--layouts 4: a loop whose misses depend on its stack address shows a spread' '
	whyslow stat --backend sim --layouts 4 --regions -e instructions,L1-dcache-load-misses \
		--export-json stack.json -- "$P" stack 2000 >out &&
	jq -e ".settings.layouts == 4" stack.json &&
	jq -e "[.variants[0].runs[].env_pad] == [0, 1024, 2048, 3072]" stack.json &&
	jq -c ".variants[0].regions.loop.metrics[\"L1-dcache-load-misses\"].samples" stack.json &&
	jq -e ".variants[0].regions.loop.metrics[\"L1-dcache-load-misses\"] | .max - .min > 1000" stack.json &&
	jq -e ".variants[0].regions.loop.metrics.instructions | .max == .min" stack.json
'

test_expect_success '--layouts 4: its twin that does not depend on the stack shows none' '
	# The cache counts, not the estimate: a branch predictor indexed by addresses can move by a mispredict
	# with the length of the environment (seen with a longer build path), which is not what this pair is about.
	whyslow stat --backend sim --layouts 4 --regions -e instructions,L1-dcache-load-misses \
		--export-json static.json -- "$P" static 2000 >out &&
	jq -e "[.variants[0].regions.loop.metrics | .instructions, .[\"L1-dcache-load-misses\"] | .max == .min] | all" \
		static.json
'

test_expect_success 'a change smaller than the layouts'"'"' spread is flagged layout-sensitive; one without a spread is not' '
	whyslow compare --backend sim --layouts 4 --regions -e instructions,L1-dcache-load-misses \
		--export-json cmp.json -n base "$P stack 2000" -n more "$P stack 2100" >out &&
	jq -e "[.comparisons[] | select(.region == \"loop\" and .metric == \"L1-dcache-load-misses\")][0].layout_sensitive" \
		cmp.json &&
	test_grep "layout?" out &&
	jq -e "[.comparisons[] | select(.region == \"loop\" and .metric == \"instructions\")][0] |
		(.layout_sensitive | not) and .verdict == \"changed\"" cmp.json &&
	whyslow compare --backend sim --layouts 4 --regions -e instructions,L1-dcache-load-misses \
		--export-json cmp2.json -n base "$P static 2000" -n more "$P static 2100" >out &&
	# Inside the region: start-up, outside it, does move a little with the environment.
	jq -e "[.comparisons[] | select(.region == \"loop\" and .layout_sensitive)] | length == 0" cmp2.json
'

test_expect_success 'bad --layouts values are usage errors' '
	test_expect_code 129 whyslow stat --backend sim --layouts 65 -- true 2>err &&
	test_grep "layouts expects 2 to 64" err &&
	# one size, or none, compares no sizes: refused, not run as if not given
	test_expect_code 129 whyslow stat --backend sim --layouts 1 -- true 2>err &&
	test_grep "layouts expects 2 to 64 environment sizes, not 1" err &&
	test_expect_code 129 whyslow compare --backend sim --layouts 0 true true 2>err &&
	test_grep "layouts expects 2 to 64 environment sizes, not 0" err &&
	test_expect_code 129 whyslow stat --backend sim --layouts 4 --exact -- true 2>err &&
	test_grep "drop --sim-runs and --exact" err
'

test_done
