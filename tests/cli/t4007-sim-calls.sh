#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t4007-sim-calls.sh - the tool's call tracking: exact per context, the same counts, robust to longjmp, throw, tail calls.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq SIM || test_skip_all 'wsim is not built (it needs the valgrind package)'

M="$WS_BUILD/examples/micro"
C="$WS_BUILD/examples/causes"
# As whyslow runs it (--fair-sched=try): without it Valgrind may run one thread to its end before the next
# starts, and a threaded program's counts then depend on which (true sharing: 1 coherence miss or 126,685).
wsim() { VALGRIND_LIB="$WS_BUILD/sim/vglib" valgrind -q --tool=wsim --fair-sched=try "$@"; }
dump() { "$WS_BUILD/tests/sim-dump" "$@"; }

# FILE...: every context's counts add up to its function's row and to the total, and no context was dropped.
exact() {
	dump "$@" >dump.txt &&
	test "$(awk -F'\t' '$1 == "nmismatch" { print $2 }' dump.txt)" = 0 &&
	awk -F'\t' '$1 == "total" { t[$2] = $3 } $1 == "nsum" { n[$2] = $3 }
		END { k = 0; for (c in t) { k++; if (t[c] != n[c]) { print c, t[c], n[c]; exit 1 } } exit k == 0 }' dump.txt &&
	test "$(awk -F'\t' '$1 == "dropped" { print $2 }' dump.txt)" = 0
}

# The rows a file has without call tracking: everything but the header line, the pids and the contexts.
rows() { grep -v '^wsim	\|^pid	\|^ppid	\|^stacks	\|^node	' "$1"; }

test_expect_success 'call tracking changes no count: the same file but the contexts, zen4 and cachegrind' '
	for p in zen4 cachegrind; do
		wsim --ws-preset=$p --ws-callers=no --ws-out=no.$p "$M/workload" 20K &&
		wsim --ws-preset=$p --ws-callers=yes --ws-out=yes.$p "$M/workload" 20K &&
		rows no.$p >a && rows yes.$p >b && test_cmp a b &&
		test_expect_code 1 grep -q "^node" no.$p &&
		grep -q "^node" yes.$p || return 1
	done
'

test_expect_success 'every event is in exactly one context: contexts add up to the functions and the total' '
	exact yes.zen4 && exact yes.cachegrind &&
	wsim --ws-callers=yes --ws-async=no --ws-out=branch.out "$C/branch" 100000 random &&
	exact branch.out
'

test_expect_success 'threads: each its own stack, the contexts still add up' '
	wsim --ws-callers=yes --ws-out=threads.out "$M/threads" 50000 &&
	exact threads.out &&
	grep "^stack	.*worker	" dump.txt >workers &&
	test_line_count -ge 1 workers
'

test_expect_success 'fork and exec: each process its own contexts, added up by path' '
	mkdir fork &&
	wsim --ws-callers=yes --trace-children=yes --ws-out=fork/out.%p "$M/forkexec" 10000 "$M/branch" 20000 random &&
	ls fork >files && test_line_count = 2 files &&
	exact fork/*
'

# The stacks of a function (a regular expression for its whole name, which may carry a compiler clone's
# suffix such as .constprop.0), outermost frame first, from the dump.
stack_of() { awk -F'\t' -v f="^$1(\\.[a-z]+\\.[0-9]+)?$" '$1 == "stack" { n = split($2, a, ";"); if (a[n] ~ f) print $2 }' dump.txt; }

test_expect_success 'longjmp out of three frames 2000 times: balanced, and lj_after is called from main' '
	wsim --ws-callers=yes --ws-out=lj.out "$M/longjmp" 2000 &&
	exact lj.out &&
	test "$(awk -F"\t" "\$1 == \"depth\" { print \$2 }" dump.txt)" -lt 20 &&
	stack_of lj_leaf | grep -q ";main;lj_top;lj_mid;lj_leaf$" &&
	stack_of lj_after >after &&
	test_line_count = 1 after &&
	grep -q ";main;lj_after[.a-z0-9]*$" after &&
	stack_of lj_handler | grep -q ";main;.*raise.*;lj_handler$"
'

test_expect_success 'a tail call: its target counts as called by the jumper'"'"'s caller' '
	objdump -d --no-show-raw-insn "$M/tailcall" | sed -n "/<tc_jumper>:/,/^$/p" >jumper &&
	grep -q "jmp .*<tc_target>" jumper &&
	wsim --ws-callers=yes --ws-out=tc.out "$M/tailcall" 2000 &&
	exact tc.out &&
	test "$(stack_of tc_target | sed "s/.*;main;/main;/")" = "main;tc_target" &&
	test "$(stack_of tc_after | sed "s/.*;main;/main;/")" = "main;tc_after" &&
	test_expect_code 1 grep -q "tc_jumper;tc_target" dump.txt
'

if ! [ -x "$M/throw" ]; then
	test_skip_next 'no C++ compiler: examples/micro/throw was not built'
fi
test_expect_success 'a C++ exception through three frames 2000 times: balanced, th_after called from main' '
	wsim --ws-callers=yes --ws-out=throw.out "$M/throw" 2000 &&
	exact throw.out &&
	test "$(awk -F"\t" "\$1 == \"depth\" { print \$2 }" dump.txt)" -lt 30 &&
	# The tool names functions as the symbol table does (mangled); whyslow demangles them.
	grep -q "^stack	[^	]*;main;_Z4th_ai;_Z4th_bi;_Z4th_ci	" dump.txt &&
	test "$(grep -c "^stack	[^	]*;_Z8th_afteri	" dump.txt)" = 1 &&
	grep -q "^stack	[^	]*;main;_Z8th_afteri	" dump.txt
'

test_expect_success 'past --ws-max-stacks, contexts keep their counts under [more stacks]' '
	wsim --ws-callers=yes --ws-max-stacks=40 --ws-out=few.out "$M/workload" 20K &&
	dump few.out >dump.txt &&
	test "$(awk -F"\t" "\$1 == \"nmismatch\" { print \$2 }" dump.txt)" = 0 &&
	test "$(awk -F"\t" "\$1 == \"dropped\" { print \$2 }" dump.txt)" -gt 0 &&
	grep -q "^stack	\[more stacks\];" dump.txt
'

# callgrind's inclusive cost of the calls from F to memcpy, in instructions (Ir), from its caller tree.
callgrind_from() {
	callgrind_annotate --tree=caller cg.out 2>/dev/null |
		awk -v f="$1" '/<.*:[^ ]+ \(/ && index($0, ":" f " (") { gsub(",", "", $1); print $1; exit }'
}

if ! command -v callgrind_annotate >/dev/null 2>&1; then
	test_skip_next 'callgrind_annotate is not installed (it comes with valgrind)'
fi
test_expect_success 'each caller of memcpy is charged exactly what callgrind says its calls cost' '
	valgrind -q --tool=callgrind --callgrind-out-file=cg.out "$C/callers" b 2000 &&
	wsim --ws-callers=yes --ws-out=callers.out "$C/callers" b 2000 &&
	python3 - callers.out >ours <<-\EOF &&
	import sys
	fns, nodes, cols = {}, [], []
	for line in open(sys.argv[1]):
	    f = line.rstrip("\n").split("\t")
	    if f[0] == "counters": cols = f[1:]
	    elif f[0] == "function": fns[int(f[1])] = f[2]
	    elif f[0] == "node": nodes.append((None if f[2] == "-" else int(f[2]), None if f[3] == "-" else int(f[3]), int(f[4 + cols.index("instructions")])))
	sub = [n[2] for n in nodes]
	for i in range(len(nodes) - 1, -1, -1):
	    if nodes[i][0] is not None: sub[nodes[i][0]] += sub[i]
	for i, (p, fn, _) in enumerate(nodes):
	    if fn is not None and fns[fn].startswith("__mem") and p is not None and fns[nodes[p][1]] in ("copy_header", "copy_payload"):
	        print(fns[nodes[p][1]], sub[i])
	EOF
	test "$(grep -c . ours)" = 2 &&
	test "$(awk "\$1 == \"copy_payload\" { print \$2 }" ours)" = "$(callgrind_from copy_payload)" &&
	test "$(awk "\$1 == \"copy_header\" { print \$2 }" ours)" = "$(callgrind_from copy_header)"
'

test_done
