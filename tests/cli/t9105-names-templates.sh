#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t9105-names-templates.sh - a template's only instance in each build (std::map in one, std::unordered_map in the
# other) is one row in compare, under the baseline's name, the variant's instance kept as its own name.
. "$WS_SRC/tests/cli/lib.sh"

if [ -z "${WS_NAMES_CPP:-}" ] || [ ! -x "$WS_NAMES_CPP/names-template-b" ]; then
	test_skip_all "no C++ compiler: the fixture names-template-a/-b was not built"
fi
A="$WS_NAMES_CPP/names-template-a"
B="$WS_NAMES_CPP/names-template-b"
# The instances as the demangler names their symbols, not a guess at the compiler's spelling.
FA=$(nm -C "$A" | sed -n 's/^[0-9a-f]* [tTwW] \(.*app::fill<.*\)$/\1/p')
FB=$(nm -C "$B" | sed -n 's/^[0-9a-f]* [tTwW] \(.*app::fill<.*\)$/\1/p')
if [ -z "$FA" ] || [ -z "$FB" ] || [ "$(printf '%s\n' "$FA" "$FB" | wc -l)" != 2 ]; then
	test_skip_all "this compiler made no single out-of-line app::fill<> instance in each build"
fi

test_have_prereq SIM || test_skip_next "the simulator is not built or valgrind is missing"
test_expect_success 'sim: the two instances are one row, compared, under the baseline'"'"'s name' '
	whyslow compare --backend sim --exact --functions --export-json c.json \
		-n map "$A 3000" -n hash "$B 3000" >out 2>err &&
	! grep -E "app::fill<.*(new|gone)$" out &&
	python3 - c.json "$FA" "$FB" <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	a, b = ({f["name"]: f for f in v["functions"]} for v in r["variants"])
	fa, fb = sys.argv[2], sys.argv[3]
	assert fa in a and fb not in a, sorted(a)
	assert fa in b and fb not in b, sorted(b)
	assert b[fa]["own_name"] == fb, b[fa]
	cells = [c for c in r["comparisons"] if c.get("function") == fa and c["metric"] == "instructions"]
	assert cells, "no comparison of the paired row"
	EOF
'

test_expect_success 'asm-diff pairs them too, and says how, asked by a glob or by the baseline'"'"'s name' '
	whyslow asm-diff --json --function "app::fill*" "$A" "$B" >asm.json 2>err &&
	whyslow asm-diff --json --function "$FA" "$A" "$B" >asm2.json 2>err &&
	for f in asm.json asm2.json
	do
		python3 - $f <<-\EOF || return 1
		import json, sys
		d = json.load(open(sys.argv[1]))
		fns = d["functions"] if isinstance(d, dict) and "functions" in d else d
		paired = [f for f in fns if f.get("paired_by") == "template"]
		assert len(paired) == 1 and len(fns) == 1, fns
		EOF
	done
'

# Two instances of the template in one build: which one the other build's stands for is not known, and
# asking for the one instance of the other build brings neither along.
command -v g++ >/dev/null 2>&1 || test_skip_next "no g++ to build two instances of one template"
test_expect_success 'asm-diff: a template with two instances in one build pairs neither with the other build'"'"'s one' '
	cat >two.cpp <<-\EOF &&
	#include <map>
	#include <unordered_map>
	namespace app {
	template <typename M> __attribute__((noinline)) long fill(M &m, int n) { for (int i = 0; i < n; i++) m[i] += i; return (long)m.size(); }
	}
	int main(int argc, char **argv)
	{
	#ifdef ONE
		std::unordered_map<long, long> h;
		return (int)app::fill(h, argc);
	#else
		std::map<long, long> a;
		std::map<int, int> b;
		return (int)(app::fill(a, argc) + app::fill(b, argc));
	#endif
	}
	EOF
	g++ -O2 -o two two.cpp && g++ -O2 -DONE -o one two.cpp &&
	F1=$(nm -C one | sed -n "s/^[0-9a-f]* [tTwW] \(.*app::fill<.*\)$/\1/p") &&
	test -n "$F1" &&
	whyslow asm-diff --json --function "$F1" ./two ./one >two.json 2>err &&
	python3 - two.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	fns = d["functions"] if isinstance(d, dict) and "functions" in d else d
	assert len(fns) == 1 and fns[0].get("paired_by") != "template", fns
	EOF
'

test_done
