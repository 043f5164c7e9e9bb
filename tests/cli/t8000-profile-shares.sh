#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t8000-profile-shares.sh - per-function sampling shares on a program of known cost ratio (3:1).
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq PERF_SW || test_skip_all 'software perf events cannot be opened here'

D=$WS_PROFILE_DRIVER
E=$WS_PROFILE_EXAMPLES

# check_ratio FILE SHARE_FIELD SAMPLE_FIELD TOTAL_FIELD
#
# ratio_work3 and ratio_work1 run the same loop 3*K and K times per round, so they hold 75% and 25% of the
# profile. Two checks, on the fields given (first event: 2 3 2, second event: 4 5 4):
#  - the split between the two functions, c3 / (c3 + c1), within 4 binomial standard deviations of 0.75,
#    sqrt(0.75 * 0.25 / n), 0.035 at the ~2400 samples 0.6 s of CPU time gives at 4 kHz, plus 0.02. Idle or
#    with both CPUs busy, 26 runs here spread 0.729-0.770 (sd 0.009, binomial); but a fresh-clone test run
#    once gave 0.712 for the second event while the first, sampling the same run, gave 0.735: a host's
#    stall of this virtual CPU lands in one event's samples more than the other's. A wrong attribution,
#    events swapped or a function's samples lost, is off by 0.25 or more, far outside either bound;
#  - each share of the whole profile within 4 sigma plus 0.03, the part that startup (ld.so), the clock
#    calls and the kernel's tick handling take outside both functions (2-4% measured here).
# Fewer than 1000 samples is a failure: too few to judge.
check_ratio() {
	awk -F '	' -v sf="$2" -v cf="$3" -v tf="$4" '
		function abs(x) { return x < 0 ? -x : x }
		$1 == "total" { n = $tf }
		$1 == "fn" && $6 == "ratio_work3" { s3 = $sf; c3 = $cf }
		$1 == "fn" && $6 == "ratio_work1" { s1 = $sf; c1 = $cf }
		END {
			if (n < 1000) { print "only " n " samples"; exit 1 }
			r = c3 / (c3 + c1)
			tr = 4 * sqrt(0.75 * 0.25 / (c3 + c1)) + 0.02
			ts = 4 * sqrt(0.75 * 0.25 / n) + 0.03
			printf "samples %d: work3 %.4f work1 %.4f (tolerance %.4f); split %.4f (tolerance %.4f)\n",
				n, s3, s1, ts, r, tr
			exit !(abs(r - 0.75) <= tr && abs(s3 - 0.75) <= ts && abs(s1 - 0.25) <= ts)
		}' "$1"
}

# ratio_run OUT "SF CF TF[;SF CF TF...]" COMMAND...: run COMMAND into OUT and check_ratio each field triple;
# where a check fails, once more. A host's stall of this virtual CPU can bias one run's samples (a make test
# under the sanitizers once saw a 0.681 split against 0.75, tolerance 0.055, in a test that had passed in
# every run before it); a wrong attribution is off by 0.25 in every run, and fails both.
ratio_run() {
	out=$1 fields=$2
	shift 2
	for try in 1 2
	do
		"$@" >"$out" || return 1
		if echo "$fields" | tr ";" "\n" | {
			ok=0
			while read -r sf cf tf
			do
				check_ratio "$out" "$sf" "$cf" "$tf" || ok=1
			done
			exit $ok
		}
		then
			return 0
		fi
		test $try = 2 || echo "the shares were off: one run more" >&2
	done
	return 1
}

test_expect_success 'a 3:1 program shows shares near 75% and 25% under cpu-clock' '
	ratio_run out "2 3 2" "$D" -e cpu-clock -- "$E/ratio" -t 0.6 &&
	test_grep "^event	cpu-clock	4000$" out &&
	test_grep "^fn	.*	ratio_work3	$E/ratio$" out &&
	test_grep "^fn	.*	ratio_work1	$E/ratio$" out
'

test_expect_success 'every sample is in some function, none lost' '
	awk -F "	" "\$1 == \"total\" { t = \$2; lost = \$6 } \$1 == \"fn\" { s += \$3 }
		END { print t, s, lost; exit !(t == s && t > 0 && lost == 0) }" out
'

test_expect_success 'the hottest lines of the hottest functions are in ratio.c' '
	test_grep "^line	ratio_work3	.*ratio\.c:[0-9][0-9]*	[0-9]" out &&
	test_grep "^line	ratio_work1	.*ratio\.c:[0-9][0-9]*	[0-9]" out
'

test_expect_success 'the default event falls back to cpu-clock without a PMU' '
	if test_have_prereq PMU; then
		"$D" -- "$E/ratio" -t 0.05 >out2 && test_grep "^event	cycles	" out2
	else
		"$D" -v -- "$E/ratio" -t 0.05 >out2 2>err &&
		test_grep "^event	cpu-clock	" out2 &&
		test_grep "cannot sample cycles .*sampling cpu-clock instead" err
	fi
'

test_expect_success 'a program exec'"'"'d by a child shell is followed into its own object' '
	"$D" -- sh -c "\"$E/ratio\" -t 0.3; true" >out3 &&
	test_grep "^fn	.*	ratio_work3	$E/ratio$" out3
'

test_expect_success '-F sets the rate; above the kernel maximum it is lowered, with a note' '
	"$D" -F 1000 -- "$E/ratio" -t 0.05 >out4 &&
	test_grep "^event	[a-z-]*	1000$" out4 &&
	max=$(cat /proc/sys/kernel/perf_event_max_sample_rate) &&
	# A command that never execs: the events open (and clip) but never sample, since sampling at the
	# kernel maximum can take a VM seconds of timer interrupts for even /bin/true.
	test_expect_code 2 "$D" -F $((max + 1)) -- ./no-such-command >out5 2>err5 &&
	test_grep "^event	[a-z-]*	$max$" out5 &&
	test_grep "sampling at $max Hz.*perf_event_max_sample_rate" err5
'

# The kernel lowers its limit when sampling interrupts take too long, between the profile's read of it
# and its open, which the kernel then refuses with EINVAL: the open is tried again at the new limit.
test_expect_success 'a sampling limit lowered at the open: sampled at the new limit, said once' '
	"$D" -e cpu-clock -F 50000 --max-rate-drop=20000 -- "$E/ratio" -t 0.2 >out11 2>err11 &&
	test_grep "^event	cpu-clock	20000$" out11 &&
	grep "sampling at 20000 Hz" err11 >lowered &&
	test_line_count = 1 lowered
'

# A fake PMU (the driver opens cpu-clock where a hardware event is asked for) runs the code paths that only
# a real PMU reaches here: cycles as the first event, a second event sharing its rings and told apart by id.
test_expect_success 'a second event per function: frequency mode (fake PMU)' '
	ratio_run out6 "4 5 4;2 3 2" "$D" --fake-pmu --functions=branch-misses -- "$E/ratio" -t 0.6 &&
	test_grep "^event	cycles	4000$" out6 &&
	test_grep "^extra	branch-misses$" out6
'

test_expect_success 'a second event per function: fixed period (fake PMU)' '
	ratio_run out7 "4 5 4" "$D" --fake-pmu --functions=L1-dcache-load-misses --period=2000 -- "$E/ratio" -t 0.6 &&
	test_grep "^extra	L1-dcache-load-misses$" out7
'

# A modifier of the second event is kept: cycles:k (a fake, cpu-clock:k) samples the kernel alone, which
# 300,000 one-byte reads and writes keep busy.
test_expect_success 'a second event with :k samples only the kernel (fake PMU)' '
	"$D" --fake-pmu --functions=cycles:k -- dd if=/dev/zero of=/dev/null bs=1 count=300000 >out9 2>/dev/null &&
	test_grep "^extra	cycles:k$" out9 &&
	awk -F "	" "\$1 == \"total\" && \$4 < 10 { print \"too few kernel samples\"; bad = 1 }
		\$1 == \"fn\" && \$5 > 0 && \$7 != \"[kernel.kallsyms]\" { print \"user row: \" \$0; bad = 1 }
		END { exit bad }" out9
'

# A hybrid CPU (faked: CPU 0 a cpu_core, the others cpu_atom, which lacks the L1d read miss): each CPU's
# events name its core PMU, and the second event is sampled where its PMU has it, not refused everywhere.
test "$(nproc --all)" -ge 2 && taskset -c 0 true 2>/dev/null ||
	test_skip_next "the fake puts cpu_atom on CPUs other than 0: needs two CPUs, and CPU 0 allowed"
test_expect_success 'hybrid: the second event left out of the core type that lacks it (fake PMU)' '
	ratio_run out8 "4 5 4" taskset -c 0 "$D" --fake-pmu --fake-hybrid --functions=L1-dcache-load-misses -- \
		"$E/ratio" -t 0.6 &&
	test_grep "^event	cycles	4000$" out8 &&
	test_grep "^skipped	cpu_atom$" out8 &&
	# a raw event is cpu_core'"'"'s own: never opened on cpu_atom'"'"'s CPUs
	ratio_run out10 "4 5 4" taskset -c 0 "$D" --fake-pmu --fake-hybrid --functions=r00c0 -- "$E/ratio" -t 0.6 &&
	test_grep "^skipped	cpu_atom$" out10
'

test_done
