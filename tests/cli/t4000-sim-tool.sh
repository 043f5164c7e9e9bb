#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t4000-sim-tool.sh - the wsim tool itself: options, the result file, regions, per-function and per-instruction rows.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq SIM || test_skip_all 'wsim is not built (it needs the valgrind package)'

M="$WS_BUILD/examples/micro"
wsim() { VALGRIND_LIB="$WS_BUILD/sim/vglib" valgrind -q --tool=wsim "$@"; }
dump() { "$WS_BUILD/tests/sim-dump" "$@"; }
# FILE COUNTER: a total; FILE REGION COUNTER: a region's. Fails when absent.
total() { dump "$1" | awk -F'\t' -v n="$2" '$1 == "total" && $2 == n { print $3; f = 1 } END { exit !f }'; }
region() { dump "$1" | awk -F'\t' -v r="$2" -v n="$3" '$1 == "region" && $2 == r && $3 == n { print $4; f = 1 } END { exit !f }'; }
counters() { grep "^counters" "$1" | tr '\t' '\n' | tail -n +2; }

test_expect_success 'the ping request answers the magic under wsim, 0 natively' '
	wsim --ws-out=ping.out "$M/ping" >out &&
	echo 0x77736d31 >expect &&
	test_cmp expect out &&
	"$M/ping" >out &&
	echo 0 >expect &&
	test_cmp expect out
'

test_expect_success 'bad options are refused, each with a clear line' '
	test_expect_code 1 wsim --ws-preset=zen5 /bin/true 2>err &&
	test_grep "unknown preset; use zen4, golden-cove or cachegrind" err &&
	test_expect_code 1 wsim --ws-cache=L1d=32768,8 /bin/true 2>err &&
	test_grep "expected SIZE,ASSOC,LINE" err &&
	test_expect_code 1 wsim --ws-cache=L1d=32768,8,48 /bin/true 2>err &&
	test_grep "power of two" err &&
	test_expect_code 1 wsim --ws-cache=L4=32768,8,64 /bin/true 2>err &&
	test_grep "unknown cache level" err &&
	test_expect_code 1 wsim --ws-preset=cachegrind --ws-cache=L2=1048576,8,64 /bin/true 2>err &&
	test_grep "the cachegrind preset has no L2" err &&
	test_expect_code 1 wsim --ws-preset=cachegrind --ws-prefetch=yes /bin/true 2>err &&
	test_grep "models no prefetcher" err &&
	test_expect_code 1 wsim --ws-cond=perceptron /bin/true 2>err &&
	test_grep "bimodal, gshare or tage" err
'

test_expect_success 'the result file is named for the pid, complete, and renamed into place' '
	mkdir named &&
	(cd named && wsim "$M/ping" >/dev/null) &&
	ls named >files &&
	test_line_count = 1 files &&
	f=named/$(cat files) &&
	case "$f" in named/wsim.out.[0-9]*) ;; *) echo "unexpected name $f"; false ;; esac &&
	test "$(grep "^pid" "$f" | cut -f2)" = "${f#named/wsim.out.}" &&
	head -n 1 "$f" | grep -q "^wsim	3$" &&
	tail -n 1 "$f" | grep -q "^end$" &&
	dump "$f" >/dev/null
'

test_expect_success 'an output that is not a regular file is written to, not replaced' '
	mkfifo pipe &&
	{ timeout 60 cat pipe >from-pipe & } &&
	wsim --ws-out="$PWD/pipe" "$M/ping" >/dev/null &&
	wait &&
	test -p pipe &&
	head -n 1 from-pipe | grep -q "^wsim	3$" &&
	tail -n 1 from-pipe | grep -q "^end$" &&
	ls >files &&
	test_grep -v "pipe.tmp" files
'

test_expect_success 'zen4 produces every counter, with its geometry in the header' '
	wsim --ws-out=z.out "$M/ping" >/dev/null &&
	counters z.out >names &&
	for m in instructions estimated-cycles branches branch-misses conditional-branches \
		conditional-branch-misses indirect-branches indirect-branch-misses return-branches \
		return-branch-misses L1-dcache-loads L1-dcache-load-misses L1-dcache-stores \
		L1-dcache-store-misses L1-icache-loads L1-icache-load-misses L2-misses LLC-loads \
		LLC-load-misses LLC-store-misses LLC-icache-misses prefetches prefetches-used coherence-misses; do
		grep -qx -e "$m" names || { echo "missing $m"; return 1; }
	done &&
	test_line_count = 26 names &&
	test_grep "^config	cores	16,8$" z.out &&
	test_grep "^config	L1d	32768,8,64$" z.out &&
	test_grep "^config	L2	1048576,8,64,inclusive$" z.out &&
	test_grep "^config	L3	33554432,16,64,non-inclusive$" z.out &&
	test_grep "^config	conditional	tage$" z.out
'

test_expect_success 'what a model does not produce is absent, not zero' '
	wsim --ws-preset=cachegrind --ws-out=cg.out "$M/ping" >/dev/null &&
	counters cg.out >names &&
	! grep -qx -e L2-misses -e return-branches -e return-branch-misses -e prefetches -e prefetches-used \
		-e coherence-misses names &&
	grep -qx LLC-load-misses names &&
	test_grep "^config	LL	8388608,16,64,non-inclusive$" cg.out &&
	! total cg.out L2-misses &&
	wsim --ws-prefetch=no --ws-ras=0 --ws-out=np.out "$M/ping" >/dev/null &&
	counters np.out >names &&
	! grep -qx -e prefetches -e prefetches-used -e return-branches names &&
	grep -qx L2-misses names
'

test_expect_success 'a cache override replaces one level and keeps its inclusion' '
	wsim --ws-cache=L2=524288,8,64 --ws-cache=LL=16777216,16,64,inclusive --ws-out=o.out "$M/ping" >/dev/null &&
	test_grep "^config	L2	524288,8,64,inclusive$" o.out &&
	test_grep "^config	L3	16777216,16,64,inclusive$" o.out &&
	wsim --ws-preset=golden-cove --ws-out=g.out "$M/ping" >/dev/null &&
	test_grep "^config	L1d	49152,12,64$" g.out &&
	test_grep "^config	L3	31457280,12,64,non-inclusive$" g.out
'

test_expect_success 'per-function counts add up to the totals, for every counter and preset' '
	for p in zen4 golden-cove cachegrind; do
		wsim --ws-preset=$p --ws-out=w.$p "$M/workload" 3000 >/dev/null &&
		dump w.$p >d.$p &&
		awk -F"\t" "\$1 == \"total\" { t[\$2] = \$3; n++ } \$1 == \"fsum\" { f[\$2] = \$3 }
			END { for (k in t) if (t[k] != f[k]) { print \"$p\", k, t[k], f[k]; bad = 1 }
			      exit bad || n < 18 }" d.$p || return 1
	done &&
	test "$(total w.zen4 instructions)" -gt 100000
'

test_expect_success 'regions: nested, repeated, recursive, open at exit; an unbegun end counts nothing' '
	wsim --ws-out=r.out "$M/regions" &&
	test "$(region r.out inner entries)" = 3 &&
	test "$(region r.out outer entries)" = 1 &&
	test "$(region r.out rec entries)" = 1 &&
	test "$(region r.out open entries)" = 1 &&
	test "$(region r.out never entries)" = 0 &&
	test "$(region r.out never instructions)" = 0 &&
	inner=$(region r.out inner instructions) &&
	outer=$(region r.out outer instructions) &&
	rec=$(region r.out rec instructions) &&
	test "$inner" -ge 30000 &&
	test "$outer" -ge $((inner + 5000)) &&
	test "$rec" -ge 5000 &&
	test "$(region r.out open instructions)" -ge 100
'

test_expect_success 'hot rows carry ELF addresses that objdump shows in the right function' '
	wsim --ws-out=b.out "$M/branch" 20000 random &&
	dump b.out | awk -F"\t" "\$1 == \"hot\" && \$2 == \"count_high\"" >hot &&
	test_line_count -ge 8 hot &&
	objdump -d --no-show-raw-insn "$M/branch" |
		awk "/<count_high>:/ { on = 1; next } /^$/ { on = 0 } on" >asm &&
	cut -f4 hot | sed "s/^0x//" | while read -r a; do
		grep -q "^ *$a:" asm || { echo "0x$a is not an instruction of count_high"; exit 1; }
	done &&
	sort -t"	" -k7,7n hot | tail -n 1 >worst &&
	a=$(cut -f4 worst | sed "s/^0x//") &&
	grep "^ *$a:" asm | grep -q "	j[a-z]* " &&
	! grep "^ *$a:" asm | grep -q "	jmp " &&
	test "$(cut -f5 worst)" = 20000
'

test_done
