#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t6012-r1cs-rs-cargo-test.sh - the crate's unit tests (cargo test, offline) for each storage variant.
. "$WS_SRC/tests/cli/lib.sh"

: "${R1CS_RS_CARGO_SH:?R1CS_RS_CARGO_SH must name examples/r1cs-rs/cargo.sh}"
: "${R1CS_RS_WORK:?R1CS_RS_WORK must name the directory cargo works in}"

# insert_or_update's paths (last-key update, next key push/update/insert, binary search hit and miss),
# spilling for the SmallVec variants, the pool for vec-pool, Fr, eval and enforce: see src/*.rs.
for v in vec vec-pool smallvec1 smallvec2 smallvec4
do
	test_expect_success "cargo test --features $v" '
		sh "$R1CS_RS_CARGO_SH" test "$R1CS_RS_WORK" '"$v"' >log 2>&1
		rc=$?
		cat log
		test "$rc" = 0 &&
		test_grep "^test result: ok\. [1-9][0-9]* passed; 0 failed" log
	'
done

test_done
