#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t9001-asm-diff-errors.sh - asm-diff's bad inputs: one clear line each, exit 1 (129 for usage).
. "$WS_SRC/tests/cli/lib.sh"

fx="$WS_BUILD/tests"
O0="$fx/asm-kernels-O0"
O2="$fx/asm-kernels-O2"

test_expect_success '-h prints the usage and the options' '
	whyslow asm-diff -h >out &&
	test_grep "^usage: whyslow asm-diff \\[--function NAME\\]... \\[--all\\] \\[--json\\] \\[--result FILE\\] BIN_A BIN_B" out &&
	test_grep "[-][-]result FILE" out
'

test_expect_success 'one binary is a usage error' '
	test_expect_code 129 whyslow asm-diff "$O0" 2>err &&
	test_line_count = 1 err &&
	test_grep "expected two binaries" err
'

test_expect_success 'three binaries are a usage error' '
	test_expect_code 129 whyslow asm-diff "$O0" "$O2" "$O2" 2>err &&
	test_line_count = 1 err &&
	test_grep "too many arguments" err
'

test_expect_success 'an unknown option is a usage error' '
	test_expect_code 129 whyslow asm-diff --frobnicate "$O0" "$O2" 2>err &&
	test_line_count = 1 err
'

test_expect_success 'an unknown function: one line, with the closest names' '
	test_expect_code 1 whyslow asm-diff --function sum_arary "$O0" "$O2" >out 2>err &&
	test_line_count = 1 err &&
	test_grep "no function .sum_arary. in .*asm-kernels-O0 or .*asm-kernels-O2; did you mean .sum_array." err &&
	test_line_count = 0 out
'

test_expect_success 'a PLT stub, as profiles name it: one line that points to its callers' '
	test_expect_code 1 whyslow asm-diff --function "memcpy@plt (libc.so.6)" "$O0" "$O2" >out 2>err &&
	test_line_count = 1 err &&
	test_grep "error: .memcpy@plt (libc.so.6). is a PLT stub, one jump to .memcpy. in a shared library: compare the functions that call it (--callers names them)" err &&
	test_line_count = 0 out
'

test_expect_success 'an unknown function with nothing close: one line, no suggestion' '
	test_expect_code 1 whyslow asm-diff --function zzzzzzzzzzzz "$O0" "$O2" >out 2>err &&
	test_line_count = 1 err &&
	test_grep "no function .zzzzzzzzzzzz." err &&
	test_grep -v "did you mean" err
'

test_expect_success 'a missing file' '
	test_expect_code 1 whyslow asm-diff "$O0" no-such-binary 2>err &&
	test_line_count = 1 err &&
	test_grep "no-such-binary: No such file or directory" err
'

test_expect_success 'a file that is not ELF' '
	echo "#!/bin/sh" >script.sh &&
	test_expect_code 1 whyslow asm-diff script.sh "$O2" 2>err &&
	test_line_count = 1 err &&
	test_grep "script.sh: not an ELF file" err
'

test_expect_success 'an empty file' '
	: >empty &&
	test_expect_code 1 whyslow asm-diff "$O0" empty 2>err &&
	test_line_count = 1 err &&
	test_grep "empty: not an ELF file" err
'

test_expect_success 'a directory' '
	test_expect_code 1 whyslow asm-diff . "$O2" 2>err &&
	test_line_count = 1 err &&
	test_grep "is a directory" err
'

test_expect_success 'a stripped binary: says so and how to fix it' '
	command -v strip >/dev/null || { echo "strip not found"; exit 1; }
	strip -o stripped "$O2" &&
	test_expect_code 1 whyslow asm-diff "$O0" stripped 2>err &&
	test_line_count = 1 err &&
	test_grep "stripped: .*stripped" err &&
	test_grep "without -s" err
'

test_expect_success 'a binary for another architecture (AArch64 e_machine): unsupported, named' '
	cp "$O2" aarch64 &&
	chmod u+w aarch64 &&
	# e_machine is the 16-bit little-endian field at offset 18: 183 = 0xb7 is EM_AARCH64.
	printf "\\267\\000" | dd of=aarch64 bs=1 seek=18 conv=notrunc 2>/dev/null &&
	test "$(od -An -tu2 -j18 -N2 aarch64 | tr -d " ")" = 183 &&
	test_expect_code 1 whyslow asm-diff aarch64 "$O2" 2>err &&
	test_line_count = 1 err &&
	test_grep "aarch64: an ELF binary for AArch64; asm-diff reads x86-64 code only" err
'

test_expect_success 'a binary for an unnamed machine: its number' '
	cp "$O2" m9999 &&
	chmod u+w m9999 &&
	printf "\\017\\047" | dd of=m9999 bs=1 seek=18 conv=notrunc 2>/dev/null &&
	test_expect_code 1 whyslow asm-diff m9999 "$O2" 2>err &&
	test_line_count = 1 err &&
	test_grep "m9999: an ELF binary for machine 9999; asm-diff reads x86-64 code only" err
'

test_expect_success 'a relocatable object: link it first' '
	command -v cc >/dev/null || { echo "cc not found"; exit 1; }
	cc -c -o copy.o "$WS_SRC/tests/fixtures/asm/copy.c" &&
	test_expect_code 1 whyslow asm-diff copy.o "$O2" 2>err &&
	test_line_count = 1 err &&
	test_grep "copy.o: a relocatable object file; .*link it first" err
'

# A static function -O2 inlines into its only caller has no code of its own there; DWARF says where it went.
test_expect_success 'a function inlined away: one line naming where it went, and the report names it too' '
	command -v cc >/dev/null || { echo "cc not found"; exit 1; }
	cat >inl.c <<-\EOF &&
	static long twice_sum(const long *a, int n) { long s = 0; for (int i = 0; i < n; i++) s += 2 * a[i]; return s; }
	int main(int argc, char **argv) { long a[4] = { argc, 2, 3, 4 }; (void)argv; return (int)twice_sum(a, 4); }
	EOF
	cc -O0 -g -o inl0 inl.c && cc -O2 -g -o inl2 inl.c && cc -O2 -g -o inl2b inl.c &&
	test_expect_code 1 whyslow asm-diff -f twice_sum inl2 inl2b >out 2>err &&
	test_line_count = 1 err &&
	test_grep "no function .twice_sum. in inl2 or inl2b: .twice_sum. was inlined into main in both (give -f .main.)" err &&
	test_line_count = 0 out &&
	whyslow asm-diff -f twice_sum inl0 inl2 >out &&
	test_grep "^  B: not in inl2: inlined into main (DWARF)" out &&
	whyslow asm-diff -f twice_sum inl2 inl0 >out &&
	test_grep "^  A: not in inl2: inlined into main (DWARF)" out
'

# A pipe whose reader has gone (`| head`): ended silently as by SIGPIPE; a full disk: one line, exit 1.
test_expect_success 'a report nobody reads ends silently; one that cannot be written fails with one line' '
	python3 -c "
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)
print(p.returncode, len(p.stderr))
" "$WHYSLOW" asm-diff "$O0" "$O2" >out &&
	echo "-13 0" >expect &&
	test_cmp expect out &&
	test_expect_code 1 whyslow asm-diff "$O0" "$O2" >/dev/full 2>err &&
	test_line_count = 1 err &&
	test_grep "cannot write to standard output" err
'

test_expect_success '--result with a missing file: one line, exit 1' '
	test_expect_code 1 whyslow asm-diff --result nope.json "$O0" "$O2" >out 2>err &&
	test_line_count = 1 err &&
	test_grep "nope.json: No such file or directory" err
'

test_expect_success '--result with a file that is not a whyslow result' '
	echo "{\"schema\": \"other/2\"}" >other.json &&
	test_expect_code 1 whyslow asm-diff --result other.json "$O0" "$O2" 2>err &&
	test_line_count = 1 err &&
	test_grep "not a whyslow result" err &&
	echo "{ broken" >broken.json &&
	test_expect_code 1 whyslow asm-diff --result broken.json "$O0" "$O2" 2>err &&
	test_line_count = 1 err &&
	test_grep "broken.json:1: not JSON" err
'

test_done
