#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t4105-sim-scope.sh - simulating only inside the regions: exact instructions there, and what the caches see.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq SIM || test_skip_all "the simulator tool is not built (valgrind missing)"

M="$WS_BUILD/examples/micro"
wsim() { VALGRIND_LIB="$WS_BUILD/sim/vglib" valgrind -q --tool=wsim "$@"; }
# count FILE GROUP NAME METRIC: a count from a tool file through tests/sim-dump (GROUP total or region).
count() {
	"$WS_BUILD/tests/sim-dump" "$1" |
		awk -F '\t' -v g="$2" -v n="$3" -v m="$4" '($1 == g && $1 == "total" && $2 == m) { print $3; exit }
			($1 == g && $2 == n && $3 == m) { print $4; exit }'
}

test_expect_success 'setup: the scope program simulated whole, inside its region only, and warmed outside' '
	wsim --ws-scope=all --ws-out=all.out "$M/scope" 400000 5 &&
	wsim --ws-scope=regions --ws-out=regions.out "$M/scope" 400000 5 &&
	wsim --ws-scope=regions-warm --ws-out=warm.out "$M/scope" 400000 5
'

for m in instructions entries L1-dcache-loads conditional-branches L1-icache-loads; do
	test_expect_success "region hot: $m exact under both scopes" '
		want=$(count all.out region hot '$m') &&
		test -n "$want" && test "$want" -gt 0 &&
		test "$(count regions.out region hot '$m')" = "$want" &&
		test "$(count warm.out region hot '$m')" = "$want"
	'
done

test_expect_success 'outside the regions nothing is counted: the totals are the region'"'"'s' '
	for f in regions.out warm.out
	do
		test "$(count $f total - instructions)" = "$(count $f region hot instructions)" &&
		test "$(count $f total - L1-dcache-load-misses)" = "$(count $f region hot L1-dcache-load-misses)" ||
		return 1
	done &&
	test "$(count all.out total - instructions)" -gt $((10 * $(count all.out region hot instructions)))
'

# The long phase evicts the region's table between its bursts: with the caches warmed, each burst finds it
# gone, as in the whole simulation; unsimulated, it finds it where the last burst left it.
for m in L1-dcache-load-misses L2-load-misses LLC-load-misses L1-icache-load-misses; do
	test_expect_success "regions-warm: $m in the region as in the whole simulation" '
		test "$(count warm.out region hot '$m')" = "$(count all.out region hot '$m')"
	'
done

test_expect_success 'regions: the caches keep the last burst'"'"'s lines, so fewer L1d misses' '
	test "$(count regions.out region hot L1-dcache-load-misses)" -lt \
		"$(count all.out region hot L1-dcache-load-misses)"
'

test_expect_success 'regions that open and close fast stop the switching; the region stays exact' '
	VALGRIND_LIB="$WS_BUILD/sim/vglib" valgrind -v --tool=wsim --ws-scope=regions --ws-out=b.scope \
		"$M/boundaries" 200000 10 2>err >/dev/null &&
	test_grep "regions open and close every [0-9]* ms: simulating the whole program from now on" err &&
	wsim --ws-out=b.all "$M/boundaries" 200000 10 &&
	test "$(count b.scope region r instructions)" = "$(count b.all region r instructions)"
'

test_expect_success 'bad --ws-scope values are refused' '
	test_expect_code 1 wsim --ws-scope=some --ws-out=/dev/null /bin/true 2>err &&
	test_grep "give all, regions or regions-warm" err
'

test_expect_success 'whyslow --sim-scope regions: the regions reported, the scope in the header and the file' '
	whyslow stat --backend sim --exact --sim-scope regions -e instructions --export-json s.json \
		-- "$M/scope" 400000 5 >out 2>err &&
	test_grep "simulated inside regions only" out &&
	test_grep "region hot" out &&
	test_grep "warning: --sim-scope regions: only the inside of the marked regions was simulated" out &&
	python3 -c "
import json
d = json.load(open(\"s.json\"))
assert d[\"settings\"][\"sim_scope\"] == \"regions\"
v = d[\"variants\"][0]
assert v[\"metrics\"][\"instructions\"][\"samples\"] == v[\"regions\"][\"hot\"][\"metrics\"][\"instructions\"][\"samples\"]
" &&
	whyslow report --regions s.json >again &&
	test_grep "simulated inside regions only" again
'

test_expect_success 'compare --sim-scope of programs without regions: each named in the file, the report says why' '
	whyslow compare --backend sim --exact --sim-scope regions -e instructions --export-json none2.json \
		true "true x" >out 2>err &&
	test_grep "^ warning: .true. opened no region" out &&
	test_grep "^ warning: .true x. opened no region" out &&
	test_grep "why: .true x. is not compared .*(--sim-scope regions simulates only inside regions, and a program opened none: mark its regions with include/whyslow.h, or drop --sim-scope)" out &&
	test_grep -v "backend auto" out &&
	test_grep "true x. opened no region" none2.json
'

test_expect_success 'whyslow --sim-scope: a program without regions is named; a bad value is a usage error' '
	whyslow stat --backend sim --exact --sim-scope regions-warm -e instructions --export-json none.json -- true \
		>out 2>err &&
	test_grep "^ warning: .true. opened no region, and --sim-scope regions-warm simulates only inside regions" out &&
	test_grep "caches warmed outside" out &&
	# nothing was simulated: not counted, not a row of exact zeros
	test_grep "instructions  *<not counted>" out &&
	python3 -c "import json, sys; m = json.load(open(sys.argv[1]))[\"variants\"][0][\"metrics\"]; assert m[\"instructions\"][\"n\"] == 0 and m[\"instructions\"][\"samples\"] == [None], m[\"instructions\"]" none.json &&
	test_grep "opened no region" none.json &&
	test_expect_code 129 whyslow stat --backend sim --sim-scope half -- true 2>err &&
	test_grep "sim-scope takes all, regions or regions-warm" err
'

test_done
