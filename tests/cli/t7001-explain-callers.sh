#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t7001-explain-callers.sh - callers under the simulator: the explanation follows memcpy to the program, folded stacks.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq SIM || test_skip_all "the simulator tool is not built (valgrind missing)"

C="$WS_BUILD/examples/causes"

test_expect_success 'memcpy grows in b: the explanation names its caller copy_payload, with the exact share' '
	whyslow compare --backend sim --exact --callers -n a "$C/callers a" -n b "$C/callers b" \
		--export-json calls.json --export-folded calls.folded >out &&
	python3 - calls.json >expect <<-\EOF &&
	import json, sys
	r = json.load(open(sys.argv[1]))
	a, b = r["variants"]
	def fn(v, name): return [f for f in v["functions"] if f["name"] == name][0]
	mem = [f["name"] for f in b["functions"] if f["name"].startswith("__mem") and "callers" in f][0]
	def caller(v, c): return [x for x in fn(v, mem)["callers"] if x["name"] == c][0]["metrics"]["instructions"]["median"]
	def incl(v): return fn(v, mem)["inclusive"]["instructions"]["median"]
	grew = caller(b, "copy_payload") - caller(a, "copy_payload")
	total = incl(b) - incl(a)
	# copy_header copies the same in both: all of the growth comes through copy_payload.
	assert caller(b, "copy_header") == caller(a, "copy_header")
	assert grew == total > 0, (grew, total)
	print(mem, "%.0f%%" % (100 * grew / total))
	EOF
	read mem share <expect &&
	test "$share" = "100%" &&
	test_grep "in $mem ([0-9]*%): +[0-9.]* [kM]* instructions, $share called from copy_payload (from main)" out &&
	test_grep "next: the extra instructions in $mem ([^)]*) come $share from calls by copy_payload" out &&
	python3 - calls.json <<-\EOF
	import json, sys
	e = json.load(open(sys.argv[1]))["explain"][0]
	c = e["causes"][0]
	assert c["metric"] == "instructions", c
	assert "100% called from copy_payload (from main)" in c["where"][0], c["where"]
	assert "copy_payload" in c["next_step"], c["next_step"]
	assert "called from copy_payload" in e["summary"], e["summary"]
	EOF
'

test_expect_success 'the function table names where a library function grew' '
	grep "^   __mem" out >row &&
	test_grep "grew in copy_payload (100%)" row &&
	grep "^   copy_" out >own_rows &&
	test_line_count = 2 own_rows &&
	test_grep -v "grew in" own_rows
'

# lf does less work of its own in b but calls lg for more: its own cycles fall while its inclusive ones grow.
test_expect_success 'no "grew in" on a library function whose own cycles fell' '
	cat >lib.c <<-\EOF &&
	volatile long sink;
	__attribute__((noinline)) void lg(long m) { for (long i = 0; i < m; i++) sink += i; }
	__attribute__((noinline)) void lf(long n, long m) { for (long i = 0; i < n; i++) sink ^= i; lg(m); }
	EOF
	cat >use.c <<-\EOF &&
	#include <stdlib.h>
	void lf(long n, long m);
	__attribute__((noinline)) static void work(long n, long m) { lf(n, m); }
	int main(int argc, char **argv) { work(atol(argv[1]), atol(argv[2])); return 0; }
	EOF
	cc -O1 -shared -fPIC -o liblf.so lib.c &&
	cc -O1 -o use use.c -L. -llf -Wl,-rpath,"\$ORIGIN" &&
	whyslow compare --backend sim --exact --callers --own use -n a "./use 200000 100000" -n b "./use 100000 400000" \
		--export-json lf.json >lf.out &&
	grep "^   lf " lf.out >row &&
	test_grep "exact" row &&
	test_grep -v "grew in" row &&
	grep "^   lg " lf.out >row &&
	test_grep "grew in lf (100%)" row
'

test_expect_success 'callers and inclusive counts are compared like the function'"'"'s own' '
	python3 - calls.json <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	cells = [c for c in r["comparisons"] if c.get("function", "").startswith("__mem") and c["metric"] == "instructions"]
	kinds = {("caller:" + c["caller"]) if "caller" in c else ("inclusive" if c.get("inclusive") else "self"): c for c in cells}
	assert {"self", "inclusive", "caller:copy_payload", "caller:copy_header"} <= set(kinds), kinds.keys()
	assert kinds["caller:copy_payload"]["verdict"] == "changed" and kinds["caller:copy_payload"]["exact"]
	assert kinds["caller:copy_header"]["verdict"] == "same"
	assert kinds["caller:copy_payload"]["ratio"] > 3
	EOF
'

test_expect_success 'no caller holds 5% of the change: the row names none (no "(0%)")' '
	python3 - calls.json >few.json <<-\EOF &&
	import json, sys
	r = json.load(open(sys.argv[1]))
	a, b = r["variants"]
	def fn(v, name): return [f for f in v["functions"] if f["name"] == name][0]
	mem = [f["name"] for f in b["functions"] if f["name"].startswith("__mem") and "callers" in f][0]
	def caller(v, c): return [x for x in fn(v, mem)["callers"] if x["name"] == c][0]["metrics"]
	# The growth as the inclusive counts have it, but through copy_payload only 1% of it: the rest came
	# through no caller the stacks kept.
	for m, cell in caller(b, "copy_payload").items():
	    total = fn(b, mem)["inclusive"][m]["median"] - fn(a, mem)["inclusive"][m]["median"]
	    cell["median"] = caller(a, "copy_payload")[m]["median"] + 0.01 * total
	    cell["samples"] = [cell["median"]] * len(cell["samples"])
	json.dump(r, sys.stdout)
	EOF
	whyslow report --functions few.json >few.out &&
	grep "^   __mem" few.out >row &&
	test_grep -v "grew in" row &&
	whyslow report --functions calls.json >again.out &&
	grep "^   __mem" again.out >row &&
	test_grep "grew in copy_payload (100%)" row
'

test_expect_success 'folded stacks: one per line, frames joined by ;, a count last, adding up to the totals' '
	test_expect_code 1 grep -v -q "^[ab];[^;]" calls.folded &&
	test_expect_code 1 grep -v -q " [0-9][0-9]*$" calls.folded &&
	grep -q "^b;.*;main;copy_payload;__mem[a-z_]* [0-9]*$" calls.folded &&
	python3 - calls.json calls.folded <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	sums = {}
	for line in open(sys.argv[2]):
	    stack, count = line.rstrip("\n").rsplit(" ", 1)
	    frames = stack.split(";")
	    assert len(frames) >= 2 and all(frames), line
	    sums[frames[0]] = sums.get(frames[0], 0) + int(count)
	for v in r["variants"]:
	    assert sums[v["name"]] == v["metrics"]["estimated-cycles"]["samples"][0], (v["name"], sums)
	EOF
'

test_expect_success 'report re-exports the same folded stacks from the saved result' '
	whyslow report --export-folded again.folded calls.json >/dev/null &&
	test_cmp calls.folded again.folded
'

test_expect_success '--own decides what is the program: libc as own code stops the walk at memcpy' '
	whyslow compare --backend sim --exact --callers --own "*libc.so*" --own "*/callers" \
		-n a "$C/callers a" -n b "$C/callers b" >own.out &&
	test_grep -v "called from copy_payload" own.out &&
	test_grep -v "grew in" own.out
'

test_expect_success 'one stat run exports its stacks without a variant frame; --export-folded asks for them' '
	whyslow stat --backend sim --exact --export-folded one.folded -- "$C/callers" a 200 >/dev/null &&
	test_expect_code 1 grep -v -q " [0-9][0-9]*$" one.folded &&
	grep -q ";main;copy_header;__mem[a-z_]* [0-9]*$" one.folded &&
	test_expect_code 1 grep -q "^a;" one.folded
'

test_expect_success 'stat --callers: under a function its share with callees and its callers, most first, as in the JSON' '
	whyslow stat --backend sim --exact --callers --export-json stat.json -- "$C/callers" b 2000 >stat.out &&
	grep -A1 "^ *[0-9.]*%  __mem" stat.out >mem_rows &&
	python3 - stat.json >expect <<-\EOF &&
	import json, sys
	v = json.load(open(sys.argv[1]))["variants"][0]
	mem = [f for f in v["functions"] if f["name"].startswith("__mem") and "callers" in f][0]
	whole = mem["inclusive"]["estimated-cycles"]["median"]
	total = v["metrics"]["estimated-cycles"]["median"]
	parts = sorted(((c["metrics"]["estimated-cycles"]["median"] / whole, c["name"]) for c in mem["callers"]), reverse=True)
	assert [n for _, n in parts] == ["copy_payload", "copy_header"], parts
	print("with callees %.2f%%; called from %s" % (100 * whole / total, ", ".join("%s %.0f%%" % (n, 100 * p) for p, n in parts)))
	EOF
	sed -n 2p mem_rows | sed "s/^ *//" >actual &&
	test_cmp expect actual
'

test_expect_success 'without --callers no calls are tracked; a result without stacks is said so' '
	whyslow compare --backend sim --exact --functions -n a "$C/callers a" -n b "$C/callers b" \
		--export-json plain.json >plain.out &&
	test_grep -v "called from" plain.out &&
	test_grep -v "grew in" plain.out &&
	whyslow stat --backend sim --exact --functions -- "$C/callers" b 2000 >plain-stat.out &&
	test_grep "__mem" plain-stat.out &&
	test_grep -v "with callees" plain-stat.out &&
	python3 - plain.json <<-\EOF &&
	import json, sys
	r = json.load(open(sys.argv[1]))
	for v in r["variants"]:
	    assert "stacks" not in v and all("callers" not in f and "inclusive" not in f for f in v["functions"])
	EOF
	test_expect_code 1 whyslow report --export-folded x.folded plain.json >/dev/null 2>err &&
	test_grep "measure with --callers" err &&
	cat >nostacks.json <<-\EOF &&
	{ "variants": [ { "name": "a", "metrics": { "t": { "samples": [1, 2, 3] } } } ] }
	EOF
	test_expect_code 1 whyslow report --export-folded x.folded nostacks.json >/dev/null 2>err &&
	test_grep "no call stacks were recorded" err &&
	test ! -e x.folded
'

# One function, step, called by run: -DOUT keeps it out of line, -DMORE gives it more work, -DHOST gives run
# more work of its own.
test_expect_success 'the step programs build' '
	cat >step.c <<-\EOF &&
	#include <stdlib.h>
	#ifdef OUT
	#define HOW __attribute__((noinline))
	#else
	#define HOW inline __attribute__((always_inline))
	#endif
	volatile long sink;
	static HOW long step(long x)
	{
	#ifdef MORE
		x = (x * 11) ^ (x >> 5);
	#endif
		return (x * 7) ^ (x >> 3);
	}
	__attribute__((noinline)) static long run(long n)
	{
		long s = 0;
		for (long i = 0; i < n; i++) {
			s += step(i);
	#ifdef HOST
			s ^= (s * 11) >> 5;
	#endif
		}
		return s;
	}
	int main(int argc, char **argv) { sink = run(atol(argv[1])); return 0; }
	EOF
	cc -O2 -g -o mv-in step.c &&
	cc -O2 -g -DOUT -o mv-out step.c &&
	cc -O2 -g -DMORE -o inl-b step.c &&
	cc -O2 -g -DHOST -o mv-host step.c
'

test_expect_success 'a function inlined in a and called in b: the place is its caller with callees, said to be a move' '
	whyslow compare --backend sim --exact --callers -n a "./mv-in 200000" -n b "./mv-out 200000" >mv.out &&
	# Without the move, the place was step alone at several times the difference: all its code looked new,
	# while run, which lost the same code, was not said.
	test_grep "main cause is instructions: [0-9]*% of the difference, mostly in run with its callees ([0-9]*%): step is inlined in a, called in b" mv.out &&
	test_grep -v "in step ([0-9]*%)" mv.out &&
	test_grep "asm-diff --function run " mv.out &&
	# The other way round, the same place, the same sentence.
	whyslow compare --backend sim --exact --callers -n b "./mv-out 200000" -n a "./mv-in 200000" >mv2.out &&
	test_grep "mostly in run with its callees ([0-9]*%): step is inlined in a, called in b" mv2.out
'

test_expect_success 'run, step'"'"'s host, grows more by its own row than with its callees: the move is said, run once' '
	whyslow compare --backend sim --exact --callers --export-json host.json \
		-n a "./mv-out 200000" -n b "./mv-host 200000" >host.out &&
	python3 - host.json <<-\EOF &&
	import json, sys
	r = json.load(open(sys.argv[1]))
	a, b = ({f["name"]: f for f in v["functions"]} for v in r["variants"])
	def d(kind): return b["run"][kind]["instructions"]["median"] - a["run"][kind]["instructions"]["median"]
	# The case: run gained step'"'"'s code, so its own row grew by more than run with its callees.
	assert d("metrics") > d("inclusive") > 0, (d("metrics"), d("inclusive"))
	where = r["explain"][0]["causes"][0]["where"]
	assert len([w for w in where if w.startswith("run ")]) == 1, where
	EOF
	# The host'"'"'s own row (run (600%)) took the move sentence'"'"'s place: the move went unsaid.
	test_grep "mostly in run with its callees ([0-9]*%): step is inlined in b, called in a" host.out &&
	test_grep -v "in run (" host.out &&
	test_grep "asm-diff --function run " host.out
'

test_expect_success 'without --callers the moved step holds more than the whole difference: its count, not a share' '
	whyslow compare --backend sim --exact --functions --export-json own.json \
		-n a "./mv-in 200000" -n b "./mv-out 200000" >own.out &&
	python3 - own.json >expect <<-\EOF &&
	import json, sys
	r = json.load(open(sys.argv[1]))
	a, b = r["variants"]
	def count(x):
	    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
	        if abs(float("%.3g" % x)) >= (size if unit != "k" else 1e4):
	            return "%+.3g %s" % (x / size, unit)
	    return "%+.0f" % x if abs(x) >= 100 else "%+.3g" % x
	step = [f for f in b["functions"] if f["name"] == "step"][0]["metrics"]["instructions"]["median"]
	total = b["metrics"]["instructions"]["median"] - a["metrics"]["instructions"]["median"]
	# All of step looks new in b, more than the program grew: run lost the same code.
	assert step > total > 0, (step, total)
	print("mostly in step (%s instructions, more than the whole difference: other code %s): inlined in a, called in b"
	      % (count(step), count(total - step)))
	EOF
	grep -F -f expect own.out &&
	test_grep -v "([0-9]*%): inlined in" own.out
'

test_expect_success 'code inlined from a function is not named again beside the function that holds it' '
	whyslow compare --backend sim --exact --functions -n a "./mv-in 200000" -n b "./inl-b 200000" >inl.out &&
	test_grep "main cause is instructions: [0-9]*% of the difference, mostly in run (" inl.out &&
	# step (inlined) is the same code as run: the same change, said once
	test_grep -v "step (inlined) ([0-9]*%)" inl.out
'

# step again, with a constant argument at its only call: -DOUT keeps it out of line as GCC's clone,
# step.constprop.0, whose inlined code DWARF names "step (inlined)" all the same.
test_expect_success 'the cloned step programs build' '
	cat >clone.c <<-\EOF &&
	#include <stdlib.h>
	#ifdef OUT
	#define HOW __attribute__((noinline))
	#else
	#define HOW inline __attribute__((always_inline))
	#endif
	volatile long sink;
	static HOW long step(long x, long k)
	{
		return (x * k) ^ (x >> 3);
	}
	__attribute__((noinline)) static long run(long n)
	{
		long s = 0;
		for (long i = 0; i < n; i++)
			s += step(i, 7);
		return s;
	}
	int main(int argc, char **argv) { sink = run(atol(argv[1])); return 0; }
	EOF
	cc -O2 -g -o cl-in clone.c &&
	cc -O2 -g -DOUT -o cl-out clone.c
'

nm cl-out 2>/dev/null | grep -q " step\.constprop\.0$" ||
	test_skip_next "this compiler does not clone step as GCC 12 does (step.constprop.0 with -DOUT)"
test_expect_success 'a function inlined in a and called as a clone in b: its caller with callees, step moved, either way' '
	whyslow compare --backend sim --exact --callers -n a "./cl-in 200000" -n b "./cl-out 200000" >cl.out &&
	# Without the clone seen as step, the place was step.constprop.0 alone, "new", past the whole difference.
	test_grep "mostly in run with its callees ([0-9]*%): step is inlined in a, called in b" cl.out &&
	test_grep "^   step  .* new$" cl.out &&
	test_grep -v "step.constprop.0" cl.out &&
	whyslow compare --backend sim --exact --callers -n b "./cl-out 200000" -n a "./cl-in 200000" >cl2.out &&
	test_grep "mostly in run with its callees ([0-9]*%): step is inlined in a, called in b" cl2.out &&
	test_grep "^   step.constprop.0  .* gone$" cl2.out
'

test_done
