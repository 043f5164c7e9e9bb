#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t4005-sim-install.sh - the installed simulator: the tool in libexec/whyslow and a vglib/ that Valgrind accepts.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq SIM || test_skip_all 'wsim is not built (it needs the valgrind package)'

test_expect_success 'meson install lays out libexec/whyslow/{wsim-amd64-linux,vglib/}' '
	meson install -C "$WS_BUILD" --no-rebuild --quiet --destdir "$PWD/inst" >log 2>&1 &&
	find inst -path "*/whyslow/wsim-amd64-linux" >tools &&
	test_line_count = 1 tools &&
	dir=$(dirname "$(cat tools)") &&
	test -x "$dir/wsim-amd64-linux" &&
	test "$(readlink "$dir/vglib/wsim-amd64-linux")" = ../wsim-amd64-linux &&
	test -e "$dir/vglib/vgpreload_core-amd64-linux.so" &&
	echo "$dir" >dir
'

test_expect_success 'the installed tool runs through VALGRIND_LIB=.../vglib' '
	dir=$(cat dir) &&
	VALGRIND_LIB="$PWD/$dir/vglib" valgrind -q --tool=wsim --ws-out=out "$WS_BUILD/examples/micro/ping" >got &&
	echo 0x77736d31 >expect &&
	test_cmp expect got &&
	"$WS_BUILD/tests/sim-dump" out >/dev/null
'

test_done
