#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t4010-sim-exact.sh - the simulator counts the instructions and branches a CPU runs, one by one, no more.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq SIM || test_skip_all 'wsim is not built (it needs the valgrind package)'

P="$WS_BUILD/tests"
wsim() { VALGRIND_LIB="$WS_BUILD/sim/vglib" valgrind -q --tool=wsim --ws-async=no "$@"; }
# NAME: the total of one metric in a result file, from sim-dump.
total() {
	"$P/sim-dump" "$1" | awk -F'\t' -v m="$2" '$1 == "total" && $2 == m { print $3 }'
}

# The truth: the CPU itself, stepped one instruction at a time (ptrace may be refused in a sandbox).
"$P/single-step" "$P/andor" >native 2>step.err ||
	test_skip_all "the native count could not be taken: $(head -n 1 step.err)"

test_expect_success 'the stepped program ran its second test a few hundred times, not never or always' '
	insns=$(awk "\$1 == \"instructions\" { print \$2 }" native) &&
	jcc=$(awk "\$1 == \"conditional-branches\" { print \$2 }" native) &&
	test "$jcc" -gt 10050 && test "$jcc" -lt 10500 &&
	test "$insns" -gt 30000
'

# VEX, left to itself, joins the two tests of "if (a && b)" into straight code, and the second test's
# instructions then count as run on every pass (cachegrind: 40,328 for 30,660).
test_expect_success 'instructions and conditional branches equal the native count' '
	wsim --ws-out=a.out "$P/andor" &&
	echo "instructions	$(total a.out instructions)" >got &&
	echo "conditional-branches	$(total a.out conditional-branches)" >>got &&
	test_cmp native got
'

# Unrolling counts no instruction wrongly, but fetches depend on it; andor has no loop VEX unrolls, and the
# loader's start-up (any dynamic program: /bin/true) has: with both left on, its fetches differed.
test_expect_success 'the translator options that reshape code change no count' '
	wsim --vex-guest-chase=yes --vex-iropt-unroll-thresh=400 --ws-out=b.out "$P/andor" &&
	echo "instructions	$(total b.out instructions)" >got.b &&
	echo "conditional-branches	$(total b.out conditional-branches)" >>got.b &&
	test_cmp native got.b &&
	"$P/sim-dump" a.out | grep -v "^pid\|^ppid" >a.dump &&
	"$P/sim-dump" b.out | grep -v "^pid\|^ppid" >b.dump &&
	test_cmp a.dump b.dump &&
	wsim --ws-out=t.out /bin/true &&
	wsim --vex-guest-chase=yes --vex-iropt-unroll-thresh=400 --ws-out=u.out /bin/true &&
	"$P/sim-dump" t.out | grep -v "^pid\|^ppid" >t.dump &&
	"$P/sim-dump" u.out | grep -v "^pid\|^ppid" >u.dump &&
	test_cmp t.dump u.dump
'

test_done
