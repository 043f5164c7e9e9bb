#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t0420-limits.sh - values at the edges of what is accepted: seeds round-trip through the result file exactly
# over the whole range --seed takes, and a seed read back from a file is one --seed takes again.
. "$WS_SRC/tests/cli/lib.sh"

fake() { "$WS_BUILD/tests/whyslow-fake" "$@"; }

# settings.seed of a result file, read by a parser that keeps 64-bit integers (jq rounds past 2^53).
seed_of() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["settings"]["seed"])' "$1"; }

test_expect_success 'the largest seed --seed takes, 2^63 - 1, is saved exactly and read back by diff' '
	fake stat -r 2 --backend fake --seed 9223372036854775807 --export-json s.json -- true >out &&
	test "$(seed_of s.json)" = 9223372036854775807 &&
	fake stat -r 2 --backend fake --seed 0 --export-json z.json -- true >out &&
	test "$(seed_of z.json)" = 0 &&
	whyslow diff s.json z.json --export-json d.json >out &&
	test "$(seed_of d.json)" = 9223372036854775807
'

test_expect_success 'a seed from the clock is one --seed takes, and gives the same file again' '
	fake compare -r 2 --backend fake --export-json c1.json true "true a" >out &&
	seed=$(seed_of c1.json) &&
	fake compare -r 2 --backend fake --seed "$seed" --export-json c2.json true "true a" >out &&
	test "$(seed_of c2.json)" = "$seed" &&
	test_result_variants c1.json >v1 &&
	test_result_variants c2.json >v2 &&
	test_cmp v1 v2
'

test_expect_success 'one past the range is a usage error naming the limit, before any run' '
	test_expect_code 129 fake stat -r 2 --backend fake --seed 9223372036854775808 --prepare "touch ran" -- true 2>err &&
	test_line_count = 1 err &&
	test_grep "from 0 to 9223372036854775807 (2^63 - 1)" err &&
	test_expect_code 1 test -e ran
'

test_done
