#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t9101-names-rust.sh - a Rust program built twice: names without Rust's hash on both backends, monomorphizations
# told apart by DWARF and never paired with one another, and the explanation's next step run as printed.
. "$WS_SRC/tests/cli/lib.sh"

if [ -z "${WS_NAMES_RUST:-}" ] || [ ! -x "$WS_NAMES_RUST/names-rust-a" ]; then
	test_skip_all "no Debian rustc: the fixture names-rust-a/-b was not built"
fi
A="$WS_NAMES_RUST/names-rust-a"
B="$WS_NAMES_RUST/names-rust-b"

cat >names.py <<-\EOF
import json, re, sys
fns = json.load(open(sys.argv[1]))["variants"][0]["functions"]
hashed = re.compile(r"^_[ZR]|::h[0-9a-f]{16}|17h[0-9a-f]{16}E")
for f in fns:
    assert not hashed.search(f["name"]), "not demangled: " + f["name"]
names = {f["name"]: f for f in fns}
assert "mono::work" in names and "mono::fill" in names, sorted(names)
# The four instances of fill demangle to one name: one row, with their four symbols.
assert len(names["mono::fill"]["symbols"]) == 4, names["mono::fill"]
assert all(s.startswith("_ZN4mono4fill17h") for s in names["mono::fill"]["symbols"])
assert names["mono::work"]["symbol"].startswith("_ZN4mono4work17h")
assert names["mono::step (inlined)"]["inlined"] is True
EOF

test_expect_success 'the fixtures: four instances of mono::fill in each build, each build its own hashes' '
	nm "$A" | grep -c " _ZN4mono4fill17h" >n && echo 4 >expect && test_cmp expect n &&
	nm "$A" | sed -n "s/.* \(_ZN4mono4work17h.*\)/\1/p" >wa &&
	nm "$B" | sed -n "s/.* \(_ZN4mono4work17h.*\)/\1/p" >wb &&
	test_line_count = 1 wa && ! test_cmp wa wb
'

test_have_prereq PERF_SW || test_skip_next "perf software events are not available here"
test_expect_success 'perf (cpu-clock): names demangled, without the hash; inlined code has its row' '
	whyslow stat -r 2 --backend perf --functions --export-json p.json -- "$A" 20000 >out 2>err &&
	python3 names.py p.json
'

test_have_prereq SIM || test_skip_next "the simulator is not built or valgrind is missing"
test_expect_success 'sim: the same names as perf, symbol for symbol' '
	whyslow stat --backend sim --exact --functions --export-json s.json -- "$A" 100 >sout 2>serr &&
	python3 names.py s.json &&
	if test_have_prereq PERF_SW
	then
		python3 "$WS_SRC/tests/cli/same-names.py" p.json s.json \
			$(nm "$A" | sed -n "s/.* \(_ZN4mono4\(work\|fill\)17h.*\)/\1/p")
	fi
'

test_expect_success 'list mode: each monomorphization paired with its own, by DWARF, none with another' '
	whyslow asm-diff --json "$A" "$B" >list.json &&
	python3 - list.json <<-\EOF &&
	import json, sys
	fns = json.load(open(sys.argv[1]))["functions"]
	fill = {f["name"]: f for f in fns if f["name"].startswith("mono::fill")}
	assert sorted(fill) == ["mono::fill::<u16>", "mono::fill::<u32>", "mono::fill::<u64>", "mono::fill::<u8>"], fill
	for f in fill.values():
	    # fill is the same code in both builds: a pair of two instances would differ (other element sizes)
	    assert f["paired_by"] == "name" and f["a"] and f["b"] and f["changed"] == 0, f
	work = [f for f in fns if f["name"] == "mono::work"][0]
	assert work["paired_by"] == "name" and work["changed"] > 0, work
	assert work["a"]["symbol"] != work["b"]["symbol"]
	# what nothing tells apart is never paired by guess
	for f in fns:
	    if f["paired_by"] == "ambiguous":
	        assert not (f["a"] and f["b"]), f
	EOF
	whyslow asm-diff "$A" "$B" >out &&
	test_grep "^mono::work " out &&
	test_grep -v "^mono::fill" out &&
	test_grep "identical after normalisation" out
'

test_expect_success 'list mode: std functions with one symbol, hash and all, in both builds are paired by it' '
	python3 - list.json <<-\EOF
	import json, sys
	fns = json.load(open(sys.argv[1]))["functions"]
	# Several functions of this name in each build, which the name without the hash cannot tell apart.
	fmt = [f for f in fns if f["name"] == "<&T as core::fmt::Debug>::fmt"]
	assert len(fmt) > 1, fmt
	for f in fmt:
	    assert f["paired_by"] == "name" and f["a"]["symbol"] == f["b"]["symbol"], f
	same = [f for f in fns if f["a"] and f["b"] and f["a"]["symbol"] == f["b"]["symbol"]]
	amb = [f for f in fns if f["paired_by"] == "ambiguous"]
	assert len(same) > 10 * len(amb), (len(same), len(amb))
	EOF
'

test_expect_success 'asm-diff finds functions by demangled name, by the other build'"'"'s mangled name and by glob' '
	whyslow asm-diff --function mono::work "$A" "$B" >out &&
	head -n 1 out >first && echo mono::work >expect && test_cmp expect first &&
	whyslow asm-diff --function "$(cat wb)" "$A" "$B" >out &&
	head -n 1 out >first && test_cmp expect first &&
	whyslow asm-diff --function "*::work" "$A" "$B" >out &&
	head -n 1 out >first && test_cmp expect first &&
	whyslow asm-diff --function "mono::fill::<u8>" "$A" "$B" >out &&
	test_grep "^mono::fill::<u8>$" out && test_grep -v "^mono::fill::<u16>$" out &&
	whyslow asm-diff --function mono::fill "$A" "$B" >out &&
	grep "^mono::fill::<u[0-9]*>$" out >heads && test_line_count = 4 heads
'

test_expect_success 'a glob over several monomorphizations: the list, exit 129; --all shows them' '
	test_expect_code 129 whyslow asm-diff --function "mono::f*" "$A" "$B" >out 2>err &&
	test_line_count = 0 out &&
	test_grep "matches 4 functions" err &&
	test_grep "mono::fill::<u64>" err &&
	whyslow asm-diff --all --function "mono::f*" "$A" "$B" >out &&
	grep "^mono::fill::<u[0-9]*>$" out >heads && test_line_count = 4 heads
'

test_expect_success 'a name that matches nothing: one line with the closest names' '
	test_expect_code 1 whyslow asm-diff --function mono::wrok "$A" "$B" >out 2>err &&
	test_line_count = 1 err &&
	test_grep "did you mean .mono::work." err
'

# The command as the explanation prints it, with "whyslow" the binary under test.
run_next() {
	sed -n "s/.*next: .*\(whyslow asm-diff .*\)$/\1/p" "$1" | head -n 1 >cmd &&
	test_line_count = 1 cmd &&
	sed "s|^whyslow |\"\$WHYSLOW\" |" cmd >cmd.sh &&
	sh cmd.sh >asm.out
}

test_have_prereq SIM || test_skip_next "the simulator is not built or valgrind is missing"
test_expect_success 'the explanation'"'"'s next step, run as printed, succeeds on the Rust pair' '
	whyslow compare --backend sim --exact --functions -r 1 -w 0 "$A 100" "$B 100" >out 2>err &&
	test_grep "next: .*whyslow asm-diff --function mono::work " out &&
	run_next out &&
	test_grep "^mono::work$" asm.out
'

if [ -n "${R1CS_RS_BUILD:-}" ] && [ -x "$R1CS_RS_BUILD/r1cs-rs-smallvec4" ]; then
	test_have_prereq SIM || test_skip_next "the simulator is not built or valgrind is missing"
else
	test_skip_next "examples/r1cs-rs is not built (Debian's cargo and librust-smallvec-dev)"
fi
test_expect_success 'the same on r1cs-rs (the real smallvec crate): vec-pool against smallvec4; rustc recorded' '
	R="$R1CS_RS_BUILD" &&
	whyslow compare --backend sim --exact --callers -r 1 -w 0 --export-json rs.json \
		"$R/r1cs-rs-vec-pool --constraints 3000" "$R/r1cs-rs-smallvec4 --constraints 3000" >out 2>err &&
	test_grep -v "17h[0-9a-f]\{16\}E" out &&
	test_grep "r1cs::lc::Indexer::insert_or_update" out &&
	# the caller a library function grew in, its generic arguments elided as the rows elide theirs
	test_grep "^   __memcpy.* grew in <LinearCombination as Add<…>>::add ([0-9]*%)$" out &&
	python3 -c "import json, sys; t = json.load(open(\"rs.json\"))[\"machine\"][\"toolchains\"]; assert len(t) == 2 and all(any(\"rustc version\" in c for c in v) for v in t.values()), t" &&
	run_next out &&
	test_grep "r1cs-rs-smallvec4" cmd &&
	test -s asm.out
'

test_done
