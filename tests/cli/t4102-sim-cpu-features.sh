#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t4102-sim-cpu-features.sh - the CPU features the simulator hides: named, recorded, warned about, and matched.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq SIM || test_skip_all 'the simulator is not built here'
test_have_prereq PERF_SW || test_skip_all 'software perf events cannot be opened here'

P=$WS_BUILD/tests/copier
# The probe's cache goes with the test, so that each run probes afresh.
XDG_CACHE_HOME=$PWD/cache
export XDG_CACHE_HOME

avx512=
grep -qw avx512f /proc/cpuinfo && avx512=1
# Where a PMU counts, --backend auto measures natively alone: no simulated runs to mix with.
mixed=1
test_have_prereq PMU && mixed=
no_mix='this host has a PMU: --backend auto does not run the simulator beside it'

test "$mixed" || test_skip_next "$no_mix"
test_expect_success 'a mixed report records both feature lists in machine' '
	whyslow compare -r 2 -w 0 -e wall-time,instructions --export-json mixed.json \
		-n a "$P 50" -n b "$P 60" >out 2>err &&
	jq -e ".machine.cpu_features.host | length > 0" mixed.json &&
	jq -e ".machine.cpu_features.simulated | index(\"sse2\") != null" mixed.json &&
	# Probed under the tool once, then cached by the tool build.
	ls cache/whyslow/wsim-cpuid-* >/dev/null
'

test "$avx512" || test_skip_next 'this CPU has no AVX-512'
test_expect_success 'doctor lists avx512f among the features the simulator hides' '
	whyslow doctor >doc &&
	test_grep "^warn  sim-cpu  *hides .*avx512f" doc &&
	test_grep "fix: --sim-cpu-native" doc
'

if test -z "$avx512"; then test_skip_next 'this CPU has no AVX-512'; elif test -z "$mixed"; then test_skip_next "$no_mix"; fi
test_expect_success 'a compare that mixes native and simulated runs of a memcpy program warns, once' '
	whyslow compare -r 2 -w 0 --functions -n a "$P 50" -n b "$P 60" >out 2>err &&
	test_grep "warning: the simulator hides CPU features this machine has (.*avx512f" out &&
	test $(grep -c "simulator hides" out) = 1
'

test "$avx512" || test_skip_next 'this CPU has no AVX-512'
test_expect_success 'with --sim-cpu-native the native copy function is the simulated one' '
	whyslow stat --backend perf -r 1 -w 0 -e task-clock --functions --export-json native.json -- "$P" 3000 &&
	whyslow stat --backend perf -r 1 -w 0 -e task-clock --functions --sim-cpu-native \
		--export-json masked.json -- "$P" 3000 >out 2>err &&
	whyslow stat --backend sim --exact -e instructions --functions --export-json sim.json -- "$P" 200 &&
	top() { jq -r "[.variants[0].functions[] | select(.name | test(\"mem(cpy|move)\"))][0].name" "$1"; } &&
	echo "native $(top native.json), masked $(top masked.json), simulated $(top sim.json)" &&
	test "$(top masked.json)" = "$(top sim.json)" &&
	test "$(top native.json)" != "$(top sim.json)" &&
	jq -e ".settings.sim_cpu_native" masked.json &&
	test_grep "native runs with the simulated CPU.s features" out &&
	test_grep "GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F" err
'

test "$avx512" || test_skip_next 'this CPU has no AVX-512'
test_expect_success 'a native profile against a simulated one: the two memcpys are named as one function' '
	whyslow diff native.json sim.json >out 2>err &&
	test_grep "memcpy/memmove ran as __memmove_avx512_unaligned_erms in .* and as __memcpy_avx_unaligned_erms in" out &&
	whyslow diff masked.json sim.json >out2 2>err &&
	test_grep -v "memcpy/memmove ran as" out2
'

test "$mixed" || test_skip_next "$no_mix"
test_expect_success 'a host with exactly the simulated features gets no warning (faked host list)' '
	sim=$(jq -r ".machine.cpu_features.simulated | join(\",\")" mixed.json) &&
	WHYSLOW_TEST_HOST_CPU_FEATURES=$sim whyslow compare -r 2 -w 0 -e wall-time,instructions \
		-n a "$P 50" -n b "$P 60" >out &&
	test_grep -v "simulator hides" out &&
	test_grep -v "simulator shows" out
'

test "$mixed" || test_skip_next "$no_mix"
test_expect_success 'a host lacking a feature the simulator shows is told so (faked host list)' '
	WHYSLOW_TEST_HOST_CPU_FEATURES=sse2 whyslow compare -r 2 -w 0 -e wall-time,instructions \
		--export-json lack.json -n a "$P 50" -n b "$P 60" >out &&
	test_grep "the simulator shows CPU features this machine lacks (" out &&
	jq -e ".machine.cpu_features.host == [\"sse2\"]" lack.json
'

test_expect_success '--sim-cpu-native on a host without hidden features masks nothing and says nothing' '
	sim=$(jq -r ".machine.cpu_features.simulated | join(\",\")" mixed.json) &&
	WHYSLOW_TEST_HOST_CPU_FEATURES=$sim whyslow stat --backend perf -r 1 -w 0 -e task-clock --sim-cpu-native \
		-- "$P" 10 >out 2>err &&
	test_grep -v "GLIBC_TUNABLES" err
'

test_done
