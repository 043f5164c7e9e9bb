#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t4006-sim-async.sh - the TAGE predictor on its own host thread counts exactly what it counts on the tool's.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq SIM || test_skip_all 'wsim is not built (it needs the valgrind package)'

M="$WS_BUILD/examples/micro"
# As whyslow runs it (--fair-sched=try): without it Valgrind may run one thread to its end before the next
# starts, and a threaded program's counts then depend on which (true sharing: 1 coherence miss or 126,685).
wsim() { VALGRIND_LIB="$WS_BUILD/sim/vglib" valgrind -q --tool=wsim --fair-sched=try "$@"; }
# The output file without the two lines that name processes, which differ from run to run.
counts() { grep -v '^pid	' "$1" | grep -v '^ppid	'; }
# Where the predictor ran, as -v reports it.
where() { valgrind -v --tool=wsim "$@" --ws-out=/dev/null /bin/true 2>&1 | sed -n 's/.*wsim: branches are predicted on //p'; }

[ "$(nproc 2>/dev/null || echo 1)" -ge 2 ] || test_skip_next 'this process may use only one CPU'
test_expect_success 'with two CPUs, TAGE runs on a second host thread: while the load allows, or always' '
	VALGRIND_LIB="$WS_BUILD/sim/vglib" where >got &&
	echo "this thread, and on a second host thread while predicting takes a fifth of this one'"'"'s time and the other keeps up (--ws-async=auto)" >want &&
	test_cmp want got &&
	VALGRIND_LIB="$WS_BUILD/sim/vglib" where --ws-async=yes >got &&
	echo "a second host thread" >want &&
	test_cmp want got
'

test_expect_success '--ws-async takes yes, no or auto' '
	test_expect_code 1 wsim --ws-async=maybe --ws-out=/dev/null /bin/true 2>err &&
	grep "give yes, no or auto" err >/dev/null
'

# The predictor thread switched on and off every few slots, whatever the load (a debugging option): the
# stream is predicted in order by one thread or the other, so nothing changes. As in auto, it is kept off the
# CPU the program's thread runs on.
[ "$(nproc 2>/dev/null || echo 1)" -ge 2 ] || test_skip_next 'this process may use only one CPU'
test_expect_success 'auto: switching the thread on and off mid-run changes no count' '
	VALGRIND_LIB="$WS_BUILD/sim/vglib" valgrind -v --tool=wsim --ws-async-flip=3 --ws-out=f.flip \
		"$M/workload" 100000 2>err >/dev/null &&
	sed -n "s/.*wsim: the predictor thread predicted for [0-9]* of [0-9]* ms (switched \([0-9]*\) times)$/\1/p" \
		err >switches &&
	test "$(cat switches)" -gt 20 &&
	# Held off the CPU the program'"'"'s thread runs on, by sched_setaffinity (which must have succeeded).
	grep "wsim: the predictor thread was kept off the program.s thread.s CPU, moved [1-9][0-9]* times" err &&
	wsim --ws-async=no --ws-out=f.no "$M/workload" 100000 >/dev/null &&
	counts f.flip >flip &&
	counts f.no >no &&
	test_cmp no flip &&
	mkdir ff.flip ff.no &&
	wsim --ws-async-flip=2 --ws-out=ff.flip/out.%p "$M/forkexec" 300000 - &&
	wsim --ws-async=no --ws-out=ff.no/out.%p "$M/forkexec" 300000 - &&
	cat ff.flip/out.* | grep -v "^p*pid	" | sort >flip &&
	cat ff.no/out.* | grep -v "^p*pid	" | sort >no &&
	test_cmp no flip
'

# auto starts the thread only where predicting takes a fifth of the program's thread's time or more: a
# pointer chase through memory, one branch per miss, takes about 2% there. Whatever the load, it keeps one
# thread; on an idle machine, a thread started on idleness alone shows here (it did before the share).
# Without meson's MALLOC_PERTURB_: the C library then fills the 32 MB buffer with rep stos, which Valgrind
# runs as one conditional branch per store, and that phase does take the thread.
test_expect_success 'auto: a program that spends little of its time predicting keeps one thread' '
	env -u MALLOC_PERTURB_ VALGRIND_LIB="$WS_BUILD/sim/vglib" valgrind -v --tool=wsim --ws-out=/dev/null \
		"$M/chase" 32M 4 2>err >/dev/null &&
	sed -n "s/.*wsim: the predictor thread predicted for \([0-9]*\) of \([0-9]*\) ms (switched \([0-9]*\) times)$/\1 \2 \3/p" \
		err >on &&
	sed -n "s/.*wsim: the program.s thread predicted for \([0-9]*\) ms$/\1/p" err >self &&
	read on total switches <on &&
	test "$on" -eq 0 && test "$switches" -eq 0 &&
	test "$total" -ge 300 &&
	test "$(cat self)" -gt 0 && test $(($(cat self) * 5)) -lt "$total"
'

test_expect_success '--ws-async=no, and the cheaper predictors, stay on the tool thread' '
	echo "this thread" >want &&
	VALGRIND_LIB="$WS_BUILD/sim/vglib" where --ws-async=no >got &&
	test_cmp want got &&
	VALGRIND_LIB="$WS_BUILD/sim/vglib" where --ws-cond=gshare >got &&
	test_cmp want got &&
	VALGRIND_LIB="$WS_BUILD/sim/vglib" where --ws-preset=cachegrind >got &&
	test_cmp want got
'

[ "$(nproc 2>/dev/null || echo 1)" -ge 2 ] || test_skip_next 'this process may use only one CPU'
test_expect_success '-v says how busy the predictor thread was and how long the program waited for it' '
	VALGRIND_LIB="$WS_BUILD/sim/vglib" valgrind -v --tool=wsim --ws-async=yes --ws-out=/dev/null \
		"$M/branch" 200000 random 2>err >/dev/null &&
	sed -n "s/.*wsim: of \([0-9]*\) ms, the predictor thread was busy \([0-9]*\) ms and the program.s thread waited for it \([0-9]*\) ms (\([0-9]*\) times)$/\1 \2 \3 \4/p" \
		err >got &&
	test_line_count = 1 got &&
	read total busy wait n <got &&
	test "$total" -gt 0 &&
	test "$busy" -le "$total" &&
	test "$wait" -le "$total" &&
	# Which thread predicts a slot depends on timing; together they predict every full one (152 here:
	# about 620,000 branches, 4096 a slot; the C library start-up may differ elsewhere).
	sed -n "s/.*wsim: slots of branches predicted: \([0-9]*\) by the predictor thread, \([0-9]*\) by the program.s thread while the other was idle$/\1 \2/p" \
		err >slots &&
	test_line_count = 1 slots &&
	read thread self <slots &&
	test $((thread + self)) -ge 140 &&
	VALGRIND_LIB="$WS_BUILD/sim/vglib" valgrind -v --tool=wsim --ws-async=no --ws-out=/dev/null \
		"$M/branch" 20000 random 2>err >/dev/null &&
	grep "branches are predicted on this thread" err >/dev/null &&
	! grep "the predictor thread was busy" err
'

taskset -c 0 true 2>/dev/null || test_skip_next 'taskset (util-linux) cannot pin this process'
test_expect_success 'a process held to one CPU predicts on the tool thread' '
	echo "this thread" >want &&
	VALGRIND_LIB="$WS_BUILD/sim/vglib" taskset -c 0 valgrind -v --tool=wsim --ws-out=/dev/null /bin/true 2>err &&
	sed -n "s/.*wsim: branches are predicted on //p" err >got &&
	test_cmp want got
'

# --ws-cpus holds each thread to a CPU: the counts do not change, and every thread of the process is where
# the option put it (read from /proc while it runs).
[ "$(nproc 2>/dev/null || echo 1)" -ge 2 ] || test_skip_next 'this process may use only one CPU'
test_expect_success '--ws-cpus=1,0 holds the program thread to CPU 1 and the predictor to CPU 0' '
	VALGRIND_LIB="$WS_BUILD/sim/vglib" where --ws-cpus=1,0 >got &&
	printf "a second host thread, on CPU 0; the program\047s thread is on CPU 1\n" >want &&
	test_cmp want got &&
	wsim --ws-cpus=1,0 --ws-out=p.yes "$M/workload" 20000 >/dev/null &&
	wsim --ws-async=no --ws-out=p.no "$M/workload" 20000 >/dev/null &&
	counts p.yes >yes &&
	counts p.no >no &&
	test_cmp no yes || return 1
	# A list of its own: with "&&" before it, "&" would put the whole list above in the background.
	(VALGRIND_LIB="$WS_BUILD/sim/vglib" exec valgrind -q --tool=wsim --ws-cpus=1,0 --ws-out=/dev/null \
		"$M/branch" 30000000 random >/dev/null) &
	pid=$! &&
	printf "0\n1\n" >want &&
	# The parent pins the thread a moment after it starts, a moment that a loaded machine stretches: read
	# the masks until both threads are held, for up to 10 s.
	for i in $(seq 50); do
		for t in /proc/$pid/task/*; do
			sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" $t/status 2>/dev/null
		done | sort >got
		test_cmp want got >/dev/null && break
		sleep 0.2
	done &&
	kill $pid && { wait $pid || :; } &&
	test_cmp want got
'

test_expect_success '--ws-cpus: bad values are refused, naming what to give' '
	for bad in 0,0 0 1,x -1,0 0,1,2 ""; do
		test_expect_code 1 wsim --ws-cpus=$bad --ws-out=/dev/null /bin/true 2>err &&
		grep "give two different CPU numbers" err >/dev/null || return 1
	done
'

taskset -c 0 true 2>/dev/null || test_skip_next 'taskset (util-linux) cannot pin this process'
test_expect_success '--ws-cpus: a CPU the process may not use is named' '
	test_expect_code 1 taskset -c 0 env VALGRIND_LIB="$WS_BUILD/sim/vglib" valgrind -q --tool=wsim --ws-cpus=0,1 \
		--ws-out=/dev/null /bin/true 2>err &&
	grep "CPU 1 is not one this process may run on" err >/dev/null
'

# Each program is simulated twice, with the same command line but for yes/no, so the client sees the same
# environment and runs the same instructions. Not the threads example: which thread runs when changes
# what the C library executes from run to run, whatever the predictor. (t4004 runs that example with the
# default, --ws-async=auto.)
for prog in "workload 20000" "branch 50000 random" "regions"; do
	name=${prog%% *}
	test_expect_success "$name: the same counts with and without the predictor thread" '
		wsim --ws-async=yes --ws-out=a.yes $M/'"$prog"' >/dev/null &&
		wsim --ws-async=no --ws-out=a.no $M/'"$prog"' >/dev/null &&
		counts a.yes >yes &&
		counts a.no >no &&
		grep "^total	" yes >/dev/null &&
		test_cmp no yes
	'
done

# A working set past L2, and two presets: the caches stay on the tool's thread, and are not disturbed by the
# predictor's.
for preset in zen4 golden-cove; do
	test_expect_success "$preset, a chase over 8M: the same counts on either thread" '
		wsim --ws-preset='$preset' --ws-async=yes --ws-out=c.yes "$M/chase" 8388608 1 &&
		wsim --ws-preset='$preset' --ws-async=no --ws-out=c.no "$M/chase" 8388608 1 &&
		counts c.yes >yes &&
		counts c.no >no &&
		test_cmp no yes &&
		"$WS_BUILD/tests/sim-dump" c.yes >d &&
		loads=$(awk -F"\t" "\$1 == \"total\" && \$2 == \"LLC-loads\" { print \$3 }" d) &&
		test "$loads" -gt 100000
	'
done

test_expect_success 'a fork: parent and child count the same with and without the predictor thread' '
	for a in yes no; do
		mkdir fork.$a &&
		wsim --ws-async=$a --ws-out=fork.$a/out.%p "$M/forkexec" 30000 - &&
		ls fork.$a >files &&
		test_line_count = 2 files || return 1
		for f in fork.$a/out.*; do
			pp=$(grep "^ppid	" "$f" | cut -f2) || return 1
			if test -f "fork.$a/out.$pp"; then
				counts "$f" >fork.$a.child
			else
				counts "$f" >fork.$a.parent
			fi
		done
	done &&
	test_cmp fork.no.parent fork.yes.parent &&
	test_cmp fork.no.child fork.yes.child &&
	grep "^region	child	1	" fork.yes.child >/dev/null &&
	grep "^region	parent	1	" fork.yes.parent >/dev/null
'

test_done
