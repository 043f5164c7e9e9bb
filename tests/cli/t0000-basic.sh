#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t0000-basic.sh - the program's front door: help, version, unknown commands.
. "$WS_SRC/tests/cli/lib.sh"

test_expect_success 'whyslow -h lists commands and exits 0' '
	whyslow -h >out &&
	test_grep "^usage: whyslow" out
'

test_expect_success 'no arguments is a usage error' '
	test_expect_code 129 whyslow 2>err &&
	test_grep "^usage: whyslow" err
'

test_expect_success '--version names the version' '
	whyslow --version >out &&
	test_grep "^whyslow [0-9]" out
'

test_expect_success '-V is --version, as in hyperfine' '
	whyslow -V >out-V &&
	whyslow --version >out &&
	test_cmp out out-V
'

test_expect_success 'an unknown command exits 129 with one line' '
	test_expect_code 129 whyslow frobnicate 2>err &&
	test_line_count = 1 err &&
	test_grep "not a command" err
'

test_done
