#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t4100-sim-backend.sh - whyslow's simulator backend: simulated metrics, exactness, auto, failures, hot code.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq SIM || test_skip_all "the simulator tool is not built (valgrind missing)"

M="$WS_BUILD/examples/micro"
C="$WS_BUILD/examples/causes"

metric() {
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
m = d['variants'][int(sys.argv[2])]['metrics'][sys.argv[3]]
print(m.get('unsupported') or '%s %s %s' % (m['median'], m['exact'], m['simulated']))
" "$@"
}

test_expect_success '--backend sim: the cache and branch metrics, simulated, exact after 3 runs' '
	whyslow stat --backend sim -e instructions,branch-misses,L1-dcache-load-misses,wall-time \
		--export-json s.json -- "$C/branch" 20000 random >out &&
	python3 - s.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	v = d["variants"][0]["metrics"]
	for m in ("instructions", "branch-misses", "L1-dcache-load-misses"):
	    assert v[m]["simulated"] and v[m]["exact"], (m, v[m])
	    assert len(v[m]["samples"]) == 3 and len(set(v[m]["samples"])) == 1, v[m]
	# about half of 20000 random branches mispredict, plus a few thousand in the set-up code
	assert 9000 < v["branch-misses"]["median"] < 16000, v["branch-misses"]
	assert "sim-native-time" in v["wall-time"]["unsupported"], v["wall-time"]
	assert d["machine"]["backend"] == "sim" and d["machine"]["sim_preset"] == "zen4"
	assert d["machine"]["sim_costs"]["branch-misses"] > 0
	EOF
'

test_expect_success '--backend sim: what a native run would count says how to get it, not that it cannot' '
	whyslow stat --backend sim --exact -e instructions,task-clock,page-faults,cycles \
		--export-json u.json -- "$C/branch" 2000 random >out &&
	python3 - u.json <<-\EOF
	import json, sys
	v = json.load(open(sys.argv[1]))["variants"][0]["metrics"]
	for m in ("task-clock", "page-faults"):
	    assert v[m]["unsupported"] == "not measured under the simulator (add --sim-native-time)", v[m]
	assert v["cycles"]["unsupported"] == "not counted by the simulator (its estimate is estimated-cycles)", v["cycles"]
	EOF
'

test_expect_success 'docs/result-schema.md lists the sim_costs keys that runs write, and no others' '
	whyslow stat --backend sim -r 1 --export-json zen4.json -- true >out &&
	whyslow stat --backend sim -r 1 --sim-cores 1 --export-json one-core.json -- true >out &&
	whyslow stat --backend sim -r 1 --sim-preset cachegrind --export-json cachegrind.json -- true >out &&
	jq -r ".machine.sim_costs | keys[]" zen4.json one-core.json cachegrind.json | sort -u >actual &&
	jq -r ".machine.sim_costs | keys[]" zen4.json >zen4 &&
	test_grep "^coherence-misses$" zen4 &&
	jq -r ".machine.sim_costs | keys[]" one-core.json >one-core &&
	test_grep -v "^coherence-misses$" one-core &&
	sed -n "s/^| .sim_costs. |.*(.docs\/simulator.md.): //p" "$WS_SRC/docs/result-schema.md" |
		grep -o "\`[A-Za-z][A-Za-z0-9-]*\`" | tr -d "\`" | sort >expect &&
	test_line_count -ge 5 expect &&
	test_cmp expect actual
'

test_expect_success '--exact simulates once; --sim-native-time times native runs too' '
	whyslow stat --backend sim --exact --sim-native-time -r 2 -e instructions,wall-time --export-json e.json \
		-- "$C/arith" 1000 2 >out &&
	test "$(python3 -c "import json; m=json.load(open(\"e.json\"))[\"variants\"][0][\"metrics\"]; print(len(m[\"instructions\"][\"samples\"]), len(m[\"wall-time\"][\"samples\"]))")" = "1 2"
'

test_have_prereq PMU && test_skip_next 'a PMU is here: auto counts with it and simulates nothing'
test_expect_success 'auto without a PMU: native time plus simulated counters, said in one line' '
	whyslow stat -r 2 -e instructions,wall-time --export-json a.json -- "$C/arith" 1000 2 >out 2>err &&
	test_grep "no PMU here: simulating" err &&
	test "$(metric a.json 0 instructions | cut -d" " -f3)" = True &&
	test "$(python3 -c "import json; print(json.load(open(\"a.json\"))[\"machine\"][\"backend\"])")" = perf+sim
'

test_expect_success 'the cachegrind preset has no L2: L2-misses is unsupported, with the reason' '
	whyslow stat --backend sim --exact --sim-preset cachegrind -e instructions,L2-misses --export-json c.json \
		-- "$C/arith" 1000 1 >out &&
	test_grep "not modelled by the cachegrind preset" c.json
'

test_expect_success 'valgrind missing: one line with the install command' '
	mkdir bin && ln -s "$(command -v python3)" bin/python3 &&
	test_expect_code 1 env PATH="$PWD/bin" "$WHYSLOW" stat --backend sim -- "$C/arith" 10 1 2>err &&
	test_grep "valgrind is not installed.*apt-get install valgrind" err
'

test_expect_success 'a program that crashes under the simulator: the signal is reported' '
	test_expect_code 1 whyslow stat --backend sim --exact -- sh -c "kill -SEGV \$\$" 2>err &&
	test_grep "killed by signal 11.*under the simulator" err
'

test_expect_success 'regions and functions come from the simulator, exactly' '
	whyslow stat --backend sim --exact --regions --functions -e instructions,branch-misses \
		--export-json r.json -- "$M/regions" >out &&
	python3 - r.json <<-\EOF
	import json, sys
	v = json.load(open(sys.argv[1]))["variants"][0]
	assert v["regions"], "no regions"
	for name, r in v["regions"].items():
	    assert r["metrics"]["instructions"]["simulated"], name
	    assert r["metrics"]["entries"]["median"] >= 1 or name == "never", name
	# ended, never begun: listed, not counted
	never = v["regions"]["never"]["metrics"]
	assert never["entries"]["median"] == 0 and all(s is None for s in never["instructions"]["samples"]), never
	fns = {f["name"]: f for f in v["functions"]}
	assert fns, "no functions"
	total = v["metrics"]["instructions"]["median"]
	# functions above 0.5% only: they hold most, not more than all, of the instructions (code inlined
	# from a function is counted again in its own "(inlined)" row: those overlap)
	s = sum(f["metrics"]["instructions"]["median"] for f in fns.values() if not f.get("inlined"))
	assert 0.5 * total < s <= total, (s, total)
	EOF
'

test_expect_success 'a binary without symbols: a row per function, by its frame, counted as with symbols; a hint' '
	cp "$C/branch" stripped && strip stripped &&
	whyslow stat --backend sim --exact --functions -e instructions --export-json u.json -- ./stripped 20000 random \
		>out 2>err &&
	whyslow stat --backend sim --exact --functions -e instructions --export-json n.json -- "$C/branch" 20000 random \
		>out2 &&
	test_grep "has no symbols.*rebuild it with symbols (-g" err &&
	nm "$C/branch" >syms &&
	python3 - u.json n.json syms stripped <<-\EOF
	import json, subprocess, sys
	u, n = (json.load(open(f))["variants"][0] for f in sys.argv[1:3])
	addr = {l.split()[2]: int(l.split()[0], 16) for l in open(sys.argv[3]) if len(l.split()) == 3}
	ins = lambda f: f["metrics"]["instructions"]["median"]
	rows = {f["name"]: f for f in u["functions"]}
	# every function of the program that ran is a row of its own, named by where it starts, with the
	# instructions it had with its symbols
	own = [f for f in n["functions"] if f["object"].endswith("/branch") and ins(f) >= 1000]
	assert len(own) >= 2, [f["name"] for f in own]
	for f in own:
	    row = "[unknown] stripped+0x%x" % addr[f["name"]]
	    assert row in rows, (row, sorted(rows))
	    assert ins(rows[row]) == ins(f), (row, ins(rows[row]), ins(f))
	# its hot instructions are ELF addresses in the file (as objdump shows them), not runtime ones, and in
	# the function the row names
	hot = [h for h in u["hot_code"] if h["function"].startswith("[unknown] stripped+0x")]
	assert hot
	sec = [l.split() for l in subprocess.run(["readelf", "-SW", sys.argv[4]], capture_output=True,
	       text=True).stdout.splitlines() if " .text " in l][0]
	lo, size = int(sec[sec.index(".text") + 2], 16), int(sec[sec.index(".text") + 4], 16)
	for h in hot:
	    start = int(h["function"].rsplit("+", 1)[1], 16)
	    addrs = [int(i["addr"], 16) for i in h["insns"] if i["executions"] > 1000]
	    assert all(lo <= a < lo + size and a >= start for a in addrs), (hex(lo), [hex(a) for a in addrs])
	EOF
'

test_have_prereq PERF_SW || test_skip_next 'software perf events cannot be opened here'
test_expect_success 'a binary without symbols: the perf backend has the same rows as the simulator' '
	whyslow stat --backend perf -e task-clock -r 2 --functions --export-json p.json -- ./stripped 3000000 random \
		>out 2>err &&
	python3 - p.json u.json <<-\EOF
	import json, sys
	share = lambda f: f["metrics"]["share"]["median"]
	p = sorted((f for f in json.load(open(sys.argv[1]))["variants"][0]["functions"]
	            if f["name"].startswith("[unknown] stripped")), key=share, reverse=True)
	u = {f["name"] for f in json.load(open(sys.argv[2]))["variants"][0]["functions"]}
	# the two hottest functions are split and named as the simulator names them
	assert len(p) >= 2 and {f["name"] for f in p[:2]} <= u, ([(f["name"], share(f)) for f in p], u)
	EOF
'

test_expect_success 'one name in two objects: two rows, each told apart by its object' '
	cat >twolib.c <<-\EOF &&
	volatile long sink;
	__attribute__((noinline)) static long helper(long n) { long s = 0; for (long i = 0; i < n; i++) s += i ^ sink; return s; }
	long lib_work(long n) { return helper(n); }
	EOF
	cat >twomain.c <<-\EOF &&
	#include <stdlib.h>
	long lib_work(long n);
	volatile long msink;
	__attribute__((noinline)) static long helper(long n) { long s = 1; for (long i = 1; i < n; i++) s = s * 3 + (i ^ msink); return s; }
	int main(int argc, char **argv) { long n = atol(argv[1]); msink = helper(n) + lib_work(n); return 0; }
	EOF
	cc -O1 -shared -fPIC -o libtwo.so twolib.c &&
	cc -O1 -o two twomain.c -L. -ltwo -Wl,-rpath,"\$ORIGIN" &&
	whyslow stat --backend sim --exact --functions -e instructions --export-json two.json -- ./two 20000 >out &&
	python3 - two.json <<-\EOF
	import json, sys
	fns = {f["name"]: f for f in json.load(open(sys.argv[1]))["variants"][0]["functions"]}
	assert "helper" not in fns, sorted(fns)
	assert fns["helper (two)"]["object"].endswith("/two"), fns["helper (two)"]["object"]
	assert fns["helper (libtwo.so)"]["object"].endswith("/libtwo.so")
	EOF
'

test_expect_success 'a function only one side ran is "new" or "gone" in the functions table, not left out' '
	cat >ab.c <<-\EOF &&
	#include <stdlib.h>
	volatile long sink;
	__attribute__((noinline)) long by_add(long n) { long s = 0; for (long i = 0; i < n; i++) s += i ^ sink; return s; }
	__attribute__((noinline)) long by_mul(long n) { long s = 1; for (long i = 1; i < n; i++) s = s * 3 + (i ^ sink); return s; }
	int main(int argc, char **argv) { sink = argv[2][0] == 0x61 ? by_add(atol(argv[1])) : by_mul(atol(argv[1])); return 0; }
	EOF
	cc -O1 -g -o ab ab.c &&
	whyslow compare --backend sim --exact --functions -e instructions -n add -n mul --export-html ab.html \
		"./ab 300000 a" "./ab 300000 m" >out &&
	test_grep "^   by_add  *[1-9][0-9.]*% ->   0.00%   gone$" out &&
	test_grep "^   by_mul  *0.00% ->  *[1-9][0-9.]*%   new$" out &&
	test_grep "data-function=.by_mul.*>new</text>" ab.html
'

test_expect_success 'PLT stubs are named under the simulator, in .plt and in .plt.sec (IBT)' '
	cat >plt.c <<-\EOF &&
	#include <stdlib.h>
	#include <string.h>
	int main(int argc, char **argv) {
		size_t n = 0;
		for (int i = 0; i < 20000; i++)
			n += strlen(argv[i % argc]);
		return n == 0;
	}
	EOF
	cc -O1 -fno-builtin -o plt plt.c &&
	whyslow stat --backend sim --exact --functions -e instructions --export-json plt.json -- ./plt a >out &&
	if cc -O1 -fno-builtin -fcf-protection=full -Wl,-z,ibtplt -o plt-ibt plt.c 2>/dev/null &&
		readelf -SW plt-ibt | grep -q " \.plt\.sec "
	then
		whyslow stat --backend sim --exact --functions -e instructions --export-json ibt.json -- ./plt-ibt a >out
	else
		cp plt.json ibt.json
	fi &&
	python3 - plt.json ibt.json <<-\EOF
	import json, sys
	for path, per_call in zip(sys.argv[1:], (1, 2)):
	    d = json.load(open(path))
	    fns = {f["name"]: f for f in d["variants"][0]["functions"]}
	    stub = fns["strlen@plt"]
	    # one jmp a call (two with an endbr64 first), 20000 calls, after the first through the resolver
	    n = stub["metrics"]["instructions"]["median"]
	    assert 20000 <= n <= 20000 * per_call + 10, (path, n)
	    hot = [h for h in d["variants"][0]["hot_code"] if h["function"] == "strlen@plt"]
	    assert len(hot) == 1, hot
	EOF
'

test_expect_success 'hot code: instruction addresses that asm-diff can annotate' '
	whyslow compare --backend sim --exact --functions -e instructions,branch-misses -n sorted -n random \
		--export-json h.json "$C/branch 20000 sorted" "$C/branch 20000 random" >out &&
	python3 - h.json "$C/branch" <<-\EOF &&
	import json, subprocess, sys
	d = json.load(open(sys.argv[1]))
	hot = [h for h in d["variants"][1]["hot_code"] if h["function"] == "count_high"]
	assert hot and hot[0]["object"].endswith("/branch"), hot
	nm = subprocess.run(["nm", sys.argv[2]], capture_output=True, text=True).stdout
	start = int([l.split()[0] for l in nm.splitlines() if l.endswith(" count_high")][0], 16)
	addrs = [int(i["addr"], 16) for i in hot[0]["insns"]]
	assert all(start <= a < start + 256 for a in addrs), (hex(start), addrs)
	assert sum(i["branch-misses"] for i in hot[0]["insns"]) > 5000
	EOF
	whyslow asm-diff --result h.json --function count_high "$C/branch" "$C/branch" >asm &&
	# asm-diff names the function it was asked for even without counts: check the counts themselves, one
	# variant a side (one binary on both), and the loop over 20000 bytes among the hottest instructions.
	test_grep "^  A counts (.sorted.): executions [1-9]" asm &&
	test_grep "^  B counts (.random.): executions [1-9]" asm &&
	test_grep "^ *executions .* branch-misses  A " asm &&
	test_grep " 20000 executions (" asm
'

# --backend sim, not auto: with a PMU, auto would count natively and simulate nothing. The program runs
# in about 0.05 s natively and 1.8 s simulated: a 0.5 s timeout not stretched would kill it.
test_expect_success '--timeout gives simulated runs a hundred times longer' '
	whyslow stat --backend sim --exact -r 1 -w 0 --timeout 0.5 -e wall-time,instructions --export-json t.json \
		-- "$C/arith" 20000000 2 >out &&
	test "$(metric t.json 0 instructions | cut -d" " -f3)" = True
'

# A timeout names the time the run had, stretched, and no crash hint follows it.
test_expect_success 'a simulated run that times out says how long it had and what to raise' '
	test_expect_code 1 whyslow stat --backend sim --exact -r 1 -w 0 --timeout 0.002 -- sleep 5 2>err &&
	test_grep "after 0.2 s (--timeout 0.002, times 100 for this backend: raise --timeout)" err &&
	test_grep -v "plain valgrind" err
'

# A 40K working set read over and over: past a 32K L1d (zen4's), inside a 64K one.
test_expect_success '--sim-cache takes sizes with K, M or G, and the simulated L1d changes' '
	whyslow stat --backend sim --exact -r 1 -w 0 -e L1-dcache-load-misses --export-json d.json \
		-- "$M/chase" 40960 8 >out &&
	whyslow stat --backend sim --exact -r 1 -w 0 -e L1-dcache-load-misses --sim-cache L1d=64K,8,64 \
		--export-json k.json -- "$M/chase" 40960 8 >out &&
	small=$(metric d.json 0 L1-dcache-load-misses | cut -d" " -f1) &&
	big=$(metric k.json 0 L1-dcache-load-misses | cut -d" " -f1) &&
	python3 -c "import sys; s, b = map(float, sys.argv[1:]); assert b < 1500 < 4000 < s, (s, b)" "$small" "$big"
'

test_expect_success '--sim-cache mistakes are usage errors before any run, each named' '
	for spec in bad L9=1K,1,64 L1d=48K,12 L1d=48K,12,48 L1d=48K,10,64 L1d=2G,8,64 L1d=128K,64,64 \
		L1d=48K,12,64,maybe L1d=1K,288230376151711744,64; do
		test_expect_code 129 whyslow stat --backend sim -r 1 -e instructions --sim-cache "$spec" \
			-- "$M/chase" 4096 1 2>err &&
		test_line_count = 1 err &&
		grep -- "--sim-cache" err >/dev/null || return 1
	done &&
	test_expect_code 129 whyslow stat --backend sim --sim-preset cachegrind -r 1 -e instructions \
		--sim-cache L3=1M,8,64 -- "$M/chase" 4096 1 2>err &&
	test_grep "cachegrind preset has no L3" err
'

test_expect_success 'the tool refuses more than 32 ways outside the cachegrind preset' '
	test_expect_code 1 env VALGRIND_LIB="$WS_BUILD/sim/vglib" valgrind -q --tool=wsim \
		--ws-cache=L1d=131072,64,64 --ws-out=w.out /bin/true 2>err &&
	test_grep "at most 32 ways" err &&
	env VALGRIND_LIB="$WS_BUILD/sim/vglib" valgrind -q --tool=wsim --ws-preset=cachegrind \
		--ws-cache=L1d=131072,64,64 --ws-out=w.out /bin/true
'

test_done
