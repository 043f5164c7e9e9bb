#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t8200-callers-perf.sh - callers under the perf backend (cpu-clock): memcpy called from two functions, attributed to
# the right one with frame pointers (a frameless leaf's caller put back) and with DWARF unwinding.
. "$WS_SRC/tests/cli/lib.sh"

: "${WS_CALLERS_FIXTURES:?WS_CALLERS_FIXTURES must name the directory of the callers-* fixtures}"
F="$WS_CALLERS_FIXTURES"

test_have_prereq PERF_SW || test_skip_all "perf software events are not available here"

# memcpy's row (libc names it after the CPU's variant: __memmove_avx_unaligned_erms, ...) is libc's "mem" function
# with the largest inclusive share (libc's start-up code above main has a larger one); print its callers' part of
# it, and what the two real callers hold.
cat >callers.py <<-\EOF
import json, sys
v = json.load(open(sys.argv[1]))["variants"][0]
libc = [f for f in v["functions"] if "libc" in (f["object"] or "") and "mem" in f["name"] and "inclusive" in f]
assert libc, [f["name"] for f in v["functions"]]
mc = max(libc, key=lambda f: f["inclusive"]["share"]["median"])
inc = mc["inclusive"]["share"]["median"]
# Per run, then the median: the medians of the parts need not add up to the median of the whole.
runs = len(mc["inclusive"]["share"]["samples"])
def run_part(name, i):
    c = [c for c in mc.get("callers", []) if c["name"] == name]
    x = c[0]["metrics"]["share"]["samples"][i] if c else 0
    return (x or 0) / mc["inclusive"]["share"]["samples"][i]
med = lambda xs: sorted(xs)[len(xs) // 2]
part = {n: med([run_part(n, i) for i in range(runs)]) for n in ("copy_small", "copy_large")}
real = med([run_part("copy_small", i) + run_part("copy_large", i) for i in range(runs)])
large = med([run_part("copy_large", i) / (run_part("copy_small", i) + run_part("copy_large", i) or 1)
             for i in range(runs)])
print("%s inclusive %.3f: copy_small %.3f, copy_large %.3f, others %.3f; copy_large's part %.3f" %
      (mc["name"], inc, part.get("copy_small", 0), part.get("copy_large", 0), 1 - real, large))
lo, hi = float(sys.argv[2]), float(sys.argv[3])
# at least 90% of memcpy's samples go to one of its two real callers, never to main or a garbage frame
assert real >= 0.9, (real, part)
# and to the right one: copy_large makes as many of the same copies as copy_small in the base, four times as many
# in the variant, so it holds 0.5 and 0.8 of memcpy (0.49-0.58 and 0.78-0.83 seen, quiet and under load)
assert lo <= large <= hi, (large, part)
EOF

check() {
	mode=$1 bin=$2 lo=$3 hi=$4
	whyslow stat -r 3 --backend perf --functions --call-graph "$mode" --export-json "$bin-$mode.json" \
		-- "$F/$bin" 20000000 >/dev/null 2>err &&
	python3 callers.py "$bin-$mode.json" "$lo" "$hi"
}

test_expect_success 'the default: frame pointers for a program that keeps them, DWARF for one that does not' '
	whyslow stat -r 1 --backend perf --functions -- "$F/callers-fp-base" 1000 >/dev/null 2>err &&
	test_grep "callers of .*callers-fp-base: frame pointers" err &&
	whyslow stat -r 1 --backend perf --functions -- "$F/callers-nofp-base" 1000 >/dev/null 2>err &&
	test_grep "callers of .*callers-nofp-base: DWARF unwinding" err
'

test_expect_success 'fp (-fno-omit-frame-pointer -O2): memcpy'"'"'s samples go to the caller that made the call' '
	check fp callers-fp-base 0.35 0.65 &&
	check fp callers-fp-var 0.68 0.92
'

test_expect_success 'dwarf (-fomit-frame-pointer -O2): the same through DWARF unwinding' '
	check dwarf callers-nofp-base 0.35 0.65 &&
	check dwarf callers-nofp-var 0.68 0.92
'

test_expect_success 'inclusive shares and whole stacks: copy_large holds its memcpy, stacks go root first' '
	python3 - callers-fp-var-fp.json <<-\EOF
	import json, sys
	v = json.load(open(sys.argv[1]))["variants"][0]
	fns = {f["name"]: f for f in v["functions"]}
	cl = fns["copy_large"]
	assert cl["callers"][0]["name"] == "main", cl
	# its own samples and those of the memcpy it calls
	assert cl["inclusive"]["share"]["median"] > cl["metrics"]["share"]["median"] + 0.3, cl
	st = v["stacks"]
	assert st["metric"] == "samples" and st["runs"] == 3, st["runs"]
	# outermost first: whatever starts main, main, copy_large, then memcpy
	deep = [s for s in st["folded"] if s["frames"][-3:-1] == ["main", "copy_large"] and "mem" in s["frames"][-1]]
	assert deep and all(s["count"] > 0 for s in deep), st["folded"][:5]
	EOF
'

test_expect_success '--call-graph none: no callers; a bad value or no --functions: usage errors' '
	whyslow stat -r 1 --backend perf --functions --call-graph none --export-json none.json \
		-- "$F/callers-fp-base" 1000 >/dev/null 2>err &&
	test_grep -v "callers of" err &&
	python3 -c "import json; v = json.load(open(\"none.json\"))[\"variants\"][0]; assert not [f for f in v[\"functions\"] if \"callers\" in f or \"inclusive\" in f]; assert \"stacks\" not in v" &&
	test_expect_code 129 whyslow stat --functions --call-graph lbr -- true 2>err &&
	test_line_count = 1 err &&
	test_grep "expects fp, dwarf or none" err &&
	test_expect_code 129 whyslow stat --call-graph fp -- true 2>err &&
	test_grep "add --functions" err
'

test_done
