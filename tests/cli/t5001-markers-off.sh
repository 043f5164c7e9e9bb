#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t5001-markers-off.sh - markers outside whyslow change nothing; WHYSLOW_DISABLE removes them; pkg-config works.
. "$WS_SRC/tests/cli/lib.sh"

M="$WS_BUILD/tests/marker"

# Whatever the environment of the test run, these tests are about a program run outside whyslow.
unset WHYSLOW_MARKERS WHYSLOW_MARKERS_EVENTS WHYSLOW_MARKERS_OUT WHYSLOW_MARKERS_FORCE

test_expect_success 'a WHYSLOW_DISABLE build has no reference to the library' '
	nm -a "$M/marked-disabled" >syms &&
	test_grep -v "ws_" syms &&
	readelf -d "$M/marked-disabled" >dyn &&
	test_grep -v "libwhyslow" dyn
'

test_expect_success 'the marked build does refer to it (the check above can see it)' '
	nm -a "$M/marked" >syms &&
	test_grep " ws_region_begin$" syms &&
	test_grep " ws_markers_active$" syms &&
	readelf -d "$M/marked-shared" >dyn &&
	test_grep "libwhyslow" dyn
'

# Run PROG ARGS; its stdout, stderr and status, in FILE.
capture() {
	file=$1
	shift
	"$@" >"$file.out" 2>"$file.err"
	echo "status $?" >>"$file.out"
	cat "$file.err" >>"$file.out"
}

for args in "-n 2" "-n 2 -t 2 -r -u -f"; do
	test_expect_success "outside whyslow, byte-identical to the unmarked build ($args)" "
		capture off '$M/marked-disabled' $args &&
		capture static '$M/marked' $args &&
		capture shared '$M/marked-shared' $args &&
		test_line_count = 0 static.err &&
		test_line_count = 0 shared.err &&
		test_cmp off.out static.out &&
		test_cmp off.out shared.out
	"
done

test_expect_success 'an empty WHYSLOW_MARKERS is off, silently' '
	WHYSLOW_MARKERS= "$M/marked" -n 1 >out 2>err &&
	test_line_count = 0 err &&
	WHYSLOW_MARKERS_EVENTS=garbage WHYSLOW_MARKERS_OUT=/nonexistent/x "$M/marked" -n 1 >out 2>err &&
	test_line_count = 0 err
'

command -v strace >/dev/null 2>&1 || test_skip_next 'strace is missing'
test_expect_success 'outside whyslow the library opens nothing: no perf fd, no file' '
	strace -f -e trace=perf_event_open,openat -o trace "$M/marked" -n 1 -t 1 >out &&
	test_grep -v perf_event_open trace &&
	test_grep -v "regions\." trace
'

test_expect_success 'meson generated both pkg-config files' '
	test -f "$WS_BUILD/meson-uninstalled/whyslow-uninstalled.pc" &&
	test -f "$WS_BUILD/meson-private/whyslow.pc"
'

have_pc=
command -v pkg-config >/dev/null 2>&1 && command -v cc >/dev/null 2>&1 && have_pc=1

cat >user.c <<'EOF'
#include <stdio.h>
#include <whyslow.h>

int main(void)
{
	static ws_region_t h;

	WS_REGION_INIT(h, "user");
	WS_REGION_BEGIN_H(h);
	WS_REGION_BEGIN("named");
	puts("hello");
	WS_REGION_END("named");
	WS_REGION_END_H(h);
	return 0;
}
EOF

test -n "$have_pc" || test_skip_next 'pkg-config or cc is missing'
test_expect_success 'a program builds against the uninstalled tree with pkg-config and runs' '
	PKG_CONFIG_PATH="$WS_BUILD/meson-uninstalled" pkg-config --cflags --libs whyslow >flags &&
	cc -Wall -Wextra -Werror -o user user.c $(cat flags) &&
	LD_LIBRARY_PATH="$WS_BUILD/marker" ./user >out 2>err &&
	echo hello >expect &&
	test_cmp expect out &&
	test_line_count = 0 err
'

test_expect_success 'the header compiles as strict C99, enabled and disabled' '
	cc -std=c99 -Wall -Wextra -Wpedantic -Werror -I"$WS_SRC/include" -c user.c -o on.o &&
	cc -std=c99 -Wall -Wextra -Wpedantic -Werror -DWHYSLOW_DISABLE -I"$WS_SRC/include" -c user.c -o off.o &&
	nm off.o >syms &&
	test_grep -v "ws_" syms
'

command -v c++ >/dev/null 2>&1 || test_skip_next 'no C++ compiler'
test_expect_success 'the header compiles as C++ (extern "C")' '
	cp user.c user.cc &&
	c++ -Wall -Wextra -Werror -I"$WS_SRC/include" -c user.cc -o user-cc.o &&
	nm user-cc.o >syms &&
	test_grep " U ws_region_begin$" syms
'

test_done
