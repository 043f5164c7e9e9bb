#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t4002-sim-caches.sh - zen4's caches and prefetchers against programs whose answers are known in advance.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq SIM || test_skip_all 'wsim is not built (it needs the valgrind package)'

M="$WS_BUILD/examples/micro"
wsim() { VALGRIND_LIB="$WS_BUILD/sim/vglib" valgrind -q --tool=wsim "$@"; }
region() {
	"$WS_BUILD/tests/sim-dump" "$1" |
		awk -F'\t' -v r="$2" -v n="$3" '$1 == "region" && $2 == r && $3 == n { print $4; f = 1 } END { exit !f }'
}
# rate NUM DEN LO HI WHAT: NUM / DEN must lie in [LO, HI].
rate() {
	awk -v a="$1" -v b="$2" -v lo="$3" -v hi="$4" -v what="$5" 'BEGIN {
		if (b > 0 && a / b >= lo && a / b <= hi) exit 0
		printf "%s: %s / %s = %.4f, expected within [%s, %s]\n", what, a, b, (b > 0 ? a / b : -1), lo, hi
		exit 1 }'
}

# chase SIZE PASSES L1 L2 L3: per-load miss rates in region "chase", each "hit" (< 1%) or "miss" (> 99%).
# zen4: L1d 32K, L2 1M, L3 32M. The prefetchers are off: a random chase defeats them anyway, and this
# checks the geometry alone. A cyclic walk over more lines than an LRU level holds misses on every load.
chase() {
	wsim --ws-prefetch=no --ws-out="chase.$1" "$M/chase" "$1" "$2" || return 1
	loads=$(region "chase.$1" chase L1-dcache-loads) &&
	l1=$(region "chase.$1" chase L1-dcache-load-misses) &&
	l2=$(region "chase.$1" chase L2-misses) &&
	l3=$(region "chase.$1" chase LLC-load-misses) || return 1
	lines=$(( $(echo "$1" | sed 's/K$/*1024/; s/M$/*1048576/') / 64 ))
	test "$loads" -ge $((lines * $2)) || { echo "only $loads loads"; return 1; }
	check() { if [ "$1" = hit ]; then rate "$2" "$loads" 0 0.01 "$3"; else rate "$2" "$loads" 0.99 1.01 "$3"; fi; }
	check "$3" "$l1" "$1 L1d" && check "$4" "$l2" "$1 L2" && check "$5" "$l3" "$1 L3"
}

test_expect_success 'a 16K chase hits in L1d' '
	chase 16K 64 hit hit hit
'

test_expect_success 'a 256K chase misses L1d and hits in L2' '
	chase 256K 4 miss hit hit
'

test_expect_success 'a 4M chase misses L1d and L2 and hits in L3' '
	chase 4M 1 miss miss hit
'

test_expect_success 'a 64M chase misses every level' '
	chase 64M 1 miss miss miss
'

# stride PREFETCH: run an 8M walk with a 256-byte stride (4 lines: the next line is never the next load).
stride() {
	wsim --ws-prefetch="$1" --ws-out="stride.$1" "$M/stride" 8M 256 2 &&
	loads=$(region "stride.$1" stride L1-dcache-loads) &&
	miss=$(region "stride.$1" stride L1-dcache-load-misses) &&
	test "$loads" -ge 65536
}

test_expect_success 'without prefetchers a strided walk misses L1d on every load' '
	stride no &&
	rate "$miss" "$loads" 0.95 1.01 "misses"
'

test_expect_success 'the stride prefetcher covers it, and its prefetches are used' '
	stride stride &&
	rate "$miss" "$loads" 0 0.02 "misses" &&
	issued=$(region stride.stride stride prefetches) &&
	used=$(region stride.stride stride prefetches-used) &&
	rate "$used" "$loads" 0.97 1.01 "used prefetches per load" &&
	rate "$used" "$issued" 0.97 1.01 "used per issued"
'

test_expect_success 'the next-line prefetcher alone does not cover it: no ascending stream, no prefetch' '
	stride nextline &&
	rate "$miss" "$loads" 0.95 1.01 "misses" &&
	issued=$(region stride.nextline stride prefetches) &&
	rate "$issued" "$loads" 0 0.01 "prefetches issued per load"
'

test_expect_success 'a random pointer chase triggers no next-line prefetches' '
	wsim --ws-prefetch=nextline --ws-out=rnd "$M/chase" 256K 2 &&
	loads=$(region rnd chase L1-dcache-loads) &&
	issued=$(region rnd chase prefetches) &&
	rate "$issued" "$loads" 0 0.01 "prefetches issued per load"
'

test_expect_success 'a sequential walk is covered by the next-line prefetcher' '
	wsim --ws-prefetch=nextline --ws-out=seq "$M/stride" 8M 64 1 &&
	loads=$(region seq stride L1-dcache-loads) &&
	miss=$(region seq stride L1-dcache-load-misses) &&
	rate "$miss" "$loads" 0 0.01 "misses"
'

# one_set SIZE MIN MAX: 1000 passes over SIZE / 4096 lines 4096 bytes apart, all in one of L1d's 64 sets
# (zen4: 8 ways), no prefetchers; the region's L1d load misses must lie in [MIN, MAX]. Each pass also loads
# two words on the stack (the return from walk() and the volatile sink), whose lines may fall in that set
# too: where depends on the environment's size, so the bounds leave room for two lines more.
one_set() {
	wsim --ws-prefetch=no --ws-out="set.$1" "$M/stride" "$1" 4096 1000 &&
	loads=$(region "set.$1" stride L1-dcache-loads) &&
	miss=$(region "set.$1" stride L1-dcache-load-misses) &&
	test "$loads" -ge $(($1 / 4096 * 1000)) &&
	{ test "$miss" -ge "$2" && test "$miss" -le "$3" || { echo "$miss misses, expected $2 to $3"; false; }; }
}

test_expect_success 'least recently used: two lines of one set, taken in turn, stay' '
	one_set 8192 0 4
'

test_expect_success 'least recently used: six lines of one set stay' '
	one_set 24576 0 8
'

test_expect_success 'least recently used: nine lines of one set, taken in turn, miss every time' '
	one_set 36864 9000 11001
'

test_done
