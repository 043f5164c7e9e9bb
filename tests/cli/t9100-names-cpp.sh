#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t9100-names-cpp.sh - a C++ program built -O1 and -O2: demangled names on both backends, the same for one function,
# asm-diff finding and pairing its functions, inlined code, PLT stubs, and a debug file found by build-id.
. "$WS_SRC/tests/cli/lib.sh"

if [ -z "${WS_NAMES_CPP:-}" ] || [ ! -x "$WS_NAMES_CPP/names-cpp-O2" ]; then
	test_skip_all "no C++ compiler: the fixture names-cpp-O1/-O2 was not built"
fi
A="$WS_NAMES_CPP/names-cpp-O1"
B="$WS_NAMES_CPP/names-cpp-O2"

# The checks on a result's function names, shared by both backends.
cat >names.py <<-\EOF
import json, re, sys
v = json.load(open(sys.argv[1]))["variants"][0]
fns = v["functions"]
assert fns, "no functions"
mangled = re.compile(r"^_[ZR]|17h[0-9a-f]{16}E")
for f in fns:
    assert not mangled.search(f["name"]), "not demangled: " + f["name"]
    for s in ([f["symbol"]] if "symbol" in f else []) + f.get("symbols", []):
        if s.startswith("_Z"):
            assert f["name"] != s, f
names = {f["name"]: f for f in fns}
for want in sys.argv[2:]:
    assert want in names, "no %r in %s" % (want, sorted(names))
EOF

test_expect_success 'the fixtures are the two builds asm-diff and the profiles need' '
	nm "$B" >syms &&
	test_grep "_ZN5names5Table6insertEii" syms &&
	"$B" 2 >out && test_line_count = 1 out
'

test_have_prereq PERF_SW || test_skip_next "perf software events are not available here"
# The PLT stub is one jump: a sample lands in it in some runs only, so it is checked where it shows (its
# naming is tested deterministically in unit-symbols, test_plt_and_find).
test_expect_success 'perf (cpu-clock): every function name demangled, with its symbol; PLT stubs named' '
	whyslow stat -r 2 --backend perf --functions --export-json p.json -- "$B" 10000 >out 2>err &&
	python3 names.py p.json "names::Table::insert(int, int)" \
		"names::count_chars(char const* const*, int, int)" &&
	python3 - p.json <<-\EOF
	import json, sys
	fns = {f["name"]: f for f in json.load(open(sys.argv[1]))["variants"][0]["functions"]}
	assert fns["names::Table::insert(int, int)"]["symbol"] == "_ZN5names5Table6insertEii"
	plt = [n for n in fns if "plt" in n.lower()]
	assert plt in ([], ["strlen@plt"]), plt
	assert all(fns[n]["metrics"]["share"]["median"] > 0 for n in plt)
	EOF
'

test_have_prereq PERF_SW || test_skip_next "perf software events are not available here"
test_expect_success 'perf: an inlined helper has its own row and shows in its caller'"'"'s lines with the chain' '
	python3 - p.json <<-\EOF
	import json, sys
	fns = json.load(open(sys.argv[1]))["variants"][0]["functions"]
	mix = [f for f in fns if f["name"] == "names::mix(unsigned int) (inlined)"]
	assert mix and mix[0]["inlined"] is True, [f["name"] for f in fns]
	assert mix[0]["metrics"]["share"]["median"] > 0
	chains = [l["inlined"] for f in fns if not f.get("inlined") for l in f.get("lines", []) if "inlined" in l]
	hits = [c for c in chains if any(x["function"] == "names::mix(unsigned int)" for x in c)]
	assert hits, chains
	fr = [x for x in hits[0] if x["function"] == "names::mix(unsigned int)"][0]
	assert fr["call_file"].endswith("table.cpp") and fr["call_line"] > 0, fr
	EOF
'

test_have_prereq PERF_SW || test_skip_next "perf software events are not available here"
test_expect_success 'terminal tables elide template arguments and cap the width; -v shows names in full' '
	test_grep "<…>" out &&
	! awk "length(\$0) > 170" out | grep . &&
	whyslow stat -v -r 1 --backend perf --functions -- "$B" 10000 >full 2>/dev/null &&
	test_grep "std::map<int, long, std::less<int>, std::allocator<std::pair<int const, long> > >" full
'

test_have_prereq SIM || test_skip_next "the simulator is not built or valgrind is missing"
test_expect_success 'sim: demangled names, the same as perf'"'"'s for the same symbol' '
	whyslow stat --backend sim --exact --functions --export-json s.json -- "$B" 60 >sout 2>serr &&
	python3 names.py s.json "names::Table::insert(int, int)" "int names::sum<int>(int const*, unsigned long)" \
		"double names::sum<double>(double const*, unsigned long)" "names::mix(unsigned int) (inlined)" &&
	python3 - s.json "$B" <<-\EOF &&
	import json, subprocess, sys
	v = json.load(open(sys.argv[1]))["variants"][0]
	secs = subprocess.run(["readelf", "-SW", sys.argv[2]], capture_output=True, text=True).stdout
	stub = [f for f in v["functions"] if f["name"] == "strlen@plt"][0]
	assert stub["object"] == sys.argv[2] and stub["metrics"]["instructions"]["median"] > 0, stub
	# named from the stub the tool counted: its hot instructions lie in .plt (or .plt.sec, with IBT)
	ranges = []
	for l in secs.splitlines():
	    f = l.split()
	    for name in (".plt", ".plt.sec"):
	        if name in f:
	            ranges.append((int(f[f.index(name) + 2], 16), int(f[f.index(name) + 4], 16)))
	hot = [h for h in v["hot_code"] if h["function"] == "strlen@plt"]
	assert hot and all(any(lo <= int(i["addr"], 16) < lo + size for lo, size in ranges)
	                   for i in hot[0]["insns"]), (ranges, hot)
	EOF
	if test_have_prereq PERF_SW
	then
		python3 "$WS_SRC/tests/cli/same-names.py" p.json s.json _ZN5names5Table6insertEii
	fi
'

test_have_prereq SIM || test_skip_next "the simulator is not built or valgrind is missing"
test_expect_success 'function tables: the name column as wide as the widest name shown, the columns after it aligned' '
	python3 - sout <<-\EOF &&
	import re, sys
	rows = [l for l in open(sys.argv[1]) if re.match(r"^ +[0-9.]+%  ", l)]
	# "double names::sum<double>(double const*, unsigned long)" is wider than the old fixed column (40).
	assert any("names::sum<double>" in l for l in rows), rows
	starts = {l.rstrip("\n").rindex(" ") + 1 for l in rows}
	assert len(starts) == 1, rows
	EOF
	whyslow compare --backend sim --exact --functions -n O1 "$A 60" -n O2 "$B 60" >cout 2>/dev/null &&
	python3 - cout <<-\EOF
	import re, sys
	lines = open(sys.argv[1]).read().split("\n")
	rows = lines[[i for i, l in enumerate(lines) if l.startswith(" functions:")][0] + 1:]
	rows = rows[:[i for i, l in enumerate(rows) if not l.strip()][0]]
	assert any(len(re.split(r"  +", l.strip())[0]) > 36 for l in rows), rows
	# the base share column: its "%" at one place in every row
	pos = {re.search(r" [0-9.]+% ->", l).end() for l in rows}
	assert len(pos) == 1, rows
	EOF
'

test_expect_success 'asm-diff finds a function by its demangled, short and mangled names and by a glob' '
	for f in "names::Table::insert(int, int)" names::Table::insert _ZN5names5Table6insertEii \
		"names::Table::ins*" "*::insert"
	do
		whyslow asm-diff --function "$f" "$A" "$B" >out &&
		head -n 1 out >first &&
		echo "names::Table::insert(int, int)" >expect &&
		test_cmp expect first || return 1
	done &&
	test_grep "symbol _ZN5names5Table6insertEii" out
'

test_expect_success 'asm-diff: callees with their template arguments elided, as in the tables; -v in full' '
	whyslow asm-diff --function names::Table::insert "$A" "$B" >out &&
	test_grep "^  calls A  .*std::_Rb_tree<…>::_M_get_insert_hint_unique_pos(…)" out &&
	test_grep "call 0x[0-9a-f]* <std::_Rb_tree<…>::_M_get_insert_hint_unique_pos(…)>" out &&
	test_grep "call 0x[0-9a-f]* <operator new(unsigned long)@plt>" out &&
	! test_grep "std::_Select1st" out &&
	# the listing stays in two columns: the right one starts at one place on every row with both sides
	python3 - out <<-\EOF &&
	import re, sys
	rows = [l for l in open(sys.argv[1]).read().split("\n") if re.match(r"^  [0-9a-f]+  .* [ |] [0-9a-f]+  ", l)]
	assert rows and len({re.search(r" [ |] [0-9a-f]+  ", l).start() for l in rows}) == 1, rows
	EOF
	whyslow asm-diff -v --function names::Table::insert "$A" "$B" >full &&
	test_grep "std::_Rb_tree<int, std::pair<int const, long>, std::_Select1st" full &&
	whyslow asm-diff --json --function names::Table::insert "$A" "$B" >j.json &&
	test_grep "std::_Select1st" j.json
'

test_expect_success 'overloads and template instances are told apart by their signatures' '
	whyslow asm-diff --function names::Table::lookup "$A" "$B" >out &&
	test_grep "^names::Table::lookup(int) const$" out &&
	test_grep "^names::Table::lookup(double) const$" out &&
	whyslow asm-diff --function names::sum "$A" "$B" >out &&
	test_grep "^int names::sum<int>(int const\*, unsigned long)$" out &&
	test_grep "^double names::sum<double>(double const\*, unsigned long)$" out
'

test_expect_success 'a glob matching several functions: the list and exit 129; --all shows them all' '
	test_expect_code 129 whyslow asm-diff --function "names::*" "$A" "$B" >out 2>err &&
	test_line_count = 0 out &&
	test_grep "matches [0-9]* functions" err &&
	test_grep "names::Table::insert(int, int)" err &&
	test_grep "give --all" err &&
	whyslow asm-diff --all --function "names::*" "$A" "$B" >out &&
	test_grep "^names::Table::insert(int, int)$" out &&
	test_grep "^names::count_chars(char const\* const\*, int, int)$" out
'

test_expect_success 'a name that matches nothing: one line with the closest names' '
	test_expect_code 1 whyslow asm-diff --function names::Tabel::insert "$A" "$B" >out 2>err &&
	test_line_count = 1 err &&
	test_grep "no function .names::Tabel::insert.*did you mean .names::Table::insert." err &&
	test_line_count = 0 out
'

test_expect_success 'list mode: demangled, the std::map members paired by name across -O1 and -O2' '
	whyslow asm-diff "$A" "$B" >out &&
	test_grep -v "_ZN" out &&
	test_grep "^names::Table::insert(int, int) " out &&
	test_grep "^std::_Rb_tree<…>::" out &&
	whyslow asm-diff -v "$A" "$B" >full &&
	test_grep "^std::_Rb_tree<int, std::pair<int const, long>, " full &&
	whyslow asm-diff --json "$A" "$B" >list.json &&
	python3 - list.json <<-\EOF
	import json, sys
	fns = json.load(open(sys.argv[1]))["functions"]
	byname = {f["name"]: f for f in fns}
	for n in ("names::Table::insert(int, int)", "names::Table::lookup(int) const",
	          "names::Table::lookup(double) const", "int names::sum<int>(int const*, unsigned long)"):
	    f = byname[n]
	    assert f["paired_by"] == "name" and f["a"] and f["b"], f
	    assert f["a"]["symbol"] == f["b"]["symbol"], f
	tree = [f for f in fns if f["name"].startswith("std::_Rb_tree<") and f["a"] and f["b"]]
	assert tree, sorted(byname)
	for f in tree:
	    assert f["paired_by"] in ("name", "clone"), f
	EOF
'

test_expect_success 'a stripped binary: named through its debug file under a build-id directory' '
	id=$(readelf -n "$B" | sed -n "s/.*Build ID: *//p") &&
	test -n "$id" &&
	mkdir -p "debug/.build-id/$(echo $id | cut -c1-2)" &&
	objcopy --only-keep-debug "$B" "debug/.build-id/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-).debug" &&
	objcopy --strip-all "$B" stripped &&
	nm stripped 2>&1 | test_grep "no symbols" - &&
	WHYSLOW_DEBUG_DIR="$PWD/debug" whyslow asm-diff --function names::Table::insert "$A" stripped >out &&
	head -n 1 out >first &&
	echo "names::Table::insert(int, int)" >expect &&
	test_cmp expect first &&
	test_expect_code 1 whyslow asm-diff --function names::Table::insert "$A" stripped 2>err &&
	test_grep "no .symtab\|no symbol table" err
'

test_have_prereq PERF_SW || test_skip_next "perf software events are not available here"
test_expect_success 'a stripped binary under perf: named with WHYSLOW_DEBUG_DIR; without, [unknown] rows by address and a hint' '
	WHYSLOW_DEBUG_DIR="$PWD/debug" whyslow stat -r 1 --backend perf --functions --export-json d.json \
		-- ./stripped 10000 >/dev/null 2>err &&
	python3 names.py d.json "names::Table::insert(int, int)" &&
	whyslow stat -r 1 --backend perf --functions --export-json n.json -- ./stripped 10000 >/dev/null 2>err &&
	test_grep "stripped has no symbol table (stripped) and no debug file was found" err &&
	test_grep "rebuild it with symbols" err &&
	nm -C "$B" >syms &&
	python3 - n.json syms <<-\EOF
	import json, sys
	fns = [f["name"] for f in json.load(open(sys.argv[1]))["variants"][0]["functions"]]
	at = {l.split(" ", 2)[2].strip(): int(l.split()[0], 16) for l in open(sys.argv[2]) if not l.startswith(" ")}
	# without its name, the function is still a row of its own, by where it starts
	assert "[unknown] stripped+0x%x" % at["names::Table::insert(int, int)"] in fns, fns
	assert "names::Table::insert(int, int)" not in fns
	EOF
'

test_done
