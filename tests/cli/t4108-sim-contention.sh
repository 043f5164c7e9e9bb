#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t4108-sim-contention.sh - whyslow with a core per thread: coherence-misses, contention[] and its verdicts, per-core counts, --sim-cores.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq SIM || test_skip_all 'wsim is not built (it needs the valgrind package)'

T="$WS_BUILD/examples/threads"
R="$WS_BUILD/examples/r1cs-synth/r1cs-synth-vec"
N=4000000

# FILE: the first variant's hottest contended line as "variable verdict bytes...", bytes of the threads that missed.
line() {
	python3 - "$1" "${2:-0}" <<-\EOF
	import json, sys
	v = json.load(open(sys.argv[1]))["variants"][int(sys.argv[2])]
	c = v["contention"][0]
	assert c["bytes_from"] == "variable", c
	spans = sorted("%d-%d" % tuple(t["write_bytes"]) for t in c["threads"] if t["write_bytes"] and t["coherence-misses"] > 0)
	print(c["variable"], c["verdict"], " ".join(spans), " ".join(sorted(set(c["functions"]) & {"w"})))
	EOF
}
# FILE I METRIC: the median of a whole-process metric of variant I.
median() {
	python3 -c "import json, sys; print(int(json.load(open(sys.argv[1]))['variants'][int(sys.argv[2])]['metrics'][sys.argv[3]]['median']))" "$@"
}

test_expect_success 'false sharing: coherence-misses 100 times private, the line named shared, bytes 0-7 and 8-15' '
	whyslow compare --backend sim --exact -n private "$T/sharing private $N" -n false "$T/sharing false $N" \
		--export-json c.json >out 2>err &&
	test_grep -v "time slices" err &&
	p=$(median c.json 0 coherence-misses) &&
	f=$(median c.json 1 coherence-misses) &&
	test "$f" -ge $((100 * (p > 0 ? p : 1))) &&
	test "$(line c.json 1)" = "shared false-sharing 0-7 8-15 w" &&
	test_grep "false sharing on shared" out &&
	test_grep "thread [0-9]* (core [0-9]*): writes bytes 0-7" out &&
	test_grep "thread [0-9]* (core [0-9]*): writes bytes 8-15" out
'

test_expect_success 'threads that each ran in one time slice: their false sharing unseen, and said so' '
	whyslow stat --backend sim --exact -r 1 --export-json b.json -- "$T/sharing" false 30000 >out 2>err &&
	test "$(median b.json 0 coherence-misses)" -lt 100 &&
	test_grep "2 threads ran in at most two of Valgrind.s time slices" err &&
	test_grep "give each thread more work" err
'

test_expect_success 'true sharing: the same bytes written by both threads, told apart' '
	whyslow stat --backend sim --exact --export-json t.json "$T/sharing" true $N >out &&
	test "$(line t.json)" = "shared true-sharing 0-7 0-7 w" &&
	test_grep "true sharing on shared" out &&
	! test_grep "false sharing" out
'

# Two threads count in adjacent slots of `counters`, which follows `flag` on one line; main reads flag at
# the end, as the exit code reads gcc's `completed.0` that precedes a program's first zeroed array.
test_expect_success 'the line is named by the bytes the threads write, not by the first byte read' '
	cat >flagged.c <<-\EOF &&
	#include <pthread.h>
	#include <stdio.h>
	volatile long flag __attribute__((aligned(64)));
	volatile long counters[2];
	static void *work(void *arg)
	{
		long id = (long)arg;
		for (long i = 0; i < 2000000; i++)
			counters[id]++;
		return NULL;
	}
	int main(void)
	{
		pthread_t t[2];
		for (long i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, work, (void *)i);
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		printf("%ld %ld\n", flag, counters[0] + counters[1]);
		return 0;
	}
	EOF
	cc -O1 -g -pthread -fno-toplevel-reorder -o flagged flagged.c &&
	test "$(nm flagged | sed -n "s/^\([0-9a-f]*\) [BbDd] flag\$/\1/p" | cut -c 1-14)" = \
		"$(nm flagged | sed -n "s/^\([0-9a-f]*\) [BbDd] counters\$/\1/p" | cut -c 1-14)" &&
	whyslow stat --backend sim --exact --export-json fl.json ./flagged >out &&
	python3 - fl.json $(nm flagged | sed -n "s/^\([0-9a-f]*\) [BbDd] flag\$/\1/p") \
		$(nm flagged | sed -n "s/^\([0-9a-f]*\) [BbDd] counters\$/\1/p") <<-\EOF &&
	import json, sys
	c = json.load(open(sys.argv[1]))["variants"][0]["contention"][0]
	assert c["variable"] == "counters" and c["bytes_from"] == "variable", c
	# Each thread writes its own slot of counters; a thread that ran its first time slice before the line
	# was watched can be missing (docs/simulator.md, its error), never a span of another variable.
	spans = sorted(tuple(t["write_bytes"]) for t in c["threads"] if t["write_bytes"])
	assert spans and set(spans) <= {(0, 7), (8, 15)}, spans
	assert c["verdict"] == "false-sharing", c
	# main read flag, before counters on the line, and the counters: a span from below 0, not null ("no
	# such access").
	flag = int(sys.argv[2], 16) - int(sys.argv[3], 16)
	# main reads them after the joins, when the threads have long made the line watched.
	main = [t for t in c["threads"] if t["thread"] == 1]
	assert main and all(t["read_bytes"] and t["read_bytes"][0] == flag < 0 for t in main), (main, flag)
	EOF
	! test_grep ":  of it" out &&
	test_grep "thread 1 (core [0-9]*): reads bytes -[0-9]* to [0-9]* of it" out &&
	test_grep "bytes below 0 are this line.s bytes before counters (another variable.s)" out
'

# Four threads count in adjacent slots of one line on two virtual cores: two threads per core.
test_expect_success 'more threads than --sim-cores: false sharing, each thread its own bytes, main none' '
	whyslow stat --backend sim -r 2 --sim-cores 2 --export-json s.json "$WS_BUILD/tests/slots" 2000000 >out &&
	python3 - s.json <<-\EOF &&
	import json, sys
	c = json.load(open(sys.argv[1]))["variants"][0]["contention"][0]
	assert c["variable"] == "slots" and c["verdict"] == "false-sharing", c
	writers = [t for t in c["threads"] if t["write_bytes"]]
	spans = [tuple(t["write_bytes"]) for t in writers]
	assert len(writers) >= 2 and len(set(spans)) == len(spans), c
	assert set(spans) <= {(0, 7), (8, 15), (16, 23), (24, 31)}, c
	assert not [t for t in writers if t["thread"] == 1], c
	EOF
	test_grep "false sharing on slots" out &&
	# The block is the first run'"'"'s, the table'"'"'s coherence-misses the median of both.
	test_grep "contention (simulated, first of 2 runs" out
'

# With --sim-native-time (or --backend auto without a PMU) the program also runs natively: the blocks
# name the simulated runs, not the native ones.
test_expect_success 'beside native runs, the blocks count the simulated runs they are the first of' '
	whyslow stat --backend sim --sim-native-time -r 4 --sim-runs 2 --sim-cores 2 "$WS_BUILD/tests/slots" 2000000 >out 2>err &&
	test_grep "(4 runs, " out &&
	test_grep "cores (simulated, first of 2 runs" out &&
	test_grep "contention (simulated, first of 2 runs" out &&
	test_grep -v "first of 4 runs" out
'

test_expect_success 'functions on a contended line: named as their rows are, no versions, no ???' '
	whyslow stat --backend sim --exact --export-json m.json "$WS_BUILD/examples/threads/waiting" quick >out &&
	python3 -c "import json, sys; f = json.load(open(sys.argv[1]))[\"variants\"][0][\"contention\"][0][\"functions\"]; assert \"pthread_mutex_lock\" in f and len(set(f)) == len(f) and not [n for n in f if \"@\" in n or \"???\" in n], f" m.json &&
	test_grep "in pthread_mutex_lock" out &&
	! test_grep "@@GLIBC" out
'

# Code without a symbol: a function row is "[unknown] OBJECT+0xADDR" (by the object's frames), and so is
# the same function on a contended line, not a bare "[unknown]" (a function has one name everywhere).
test_expect_success 'stripped code on a contended line: named as its function row, object and offset' '
	cp "$WS_BUILD/tests/slots" slots-stripped &&
	strip slots-stripped &&
	! nm slots-stripped 2>/dev/null | grep -q " work$" &&
	whyslow stat --backend sim --exact --sim-cores 2 --functions --export-json uf.json ./slots-stripped $N >out &&
	whyslow stat --backend sim --exact --sim-cores 2 --export-json u.json ./slots-stripped $N >out2 &&
	python3 - uf.json u.json <<-\EOF &&
	import json, sys
	v = json.load(open(sys.argv[1]))["variants"][0]
	fns = v["contention"][0]["functions"]
	unknown = [n for n in fns if n.startswith("[unknown]")]
	assert unknown and all(n.startswith("[unknown] slots-stripped+0x") for n in unknown), fns
	# The hottest row is the loop the threads run, on the line (rows under a small share are left out).
	hottest = v["functions"][0]["name"]
	assert hottest.startswith("[unknown] slots-stripped+0x") and hottest in fns, (hottest, fns)
	# Without function rows, the same names.
	plain = json.load(open(sys.argv[2]))["variants"][0]["contention"][0]["functions"]
	assert sorted(n for n in plain if n.startswith("[unknown]")) == sorted(unknown), (plain, fns)
	EOF
	test_grep "in \[unknown\] slots-stripped+0x" out &&
	test_grep "in \[unknown\] slots-stripped+0x" out2
'

test_expect_success 'the contention report survives the JSON round trip (report)' '
	whyslow report c.json >again &&
	test_grep "false sharing on shared" again
'

test_expect_success 'r1cs-synth --threads 2: the same digest under the simulator, per-core counts shown' '
	"$R" --threads 2 --constraints 5000 | grep "^digest" >native &&
	VALGRIND_LIB="$WS_BUILD/sim/vglib" valgrind -q --tool=wsim --ws-out=r.out "$R" --threads 2 --constraints 5000 |
		grep "^digest" >simulated &&
	test_cmp native simulated &&
	whyslow stat --backend sim --exact --export-json r.json "$R" --threads 2 --constraints 5000 >out &&
	test_grep "cores (simulated" out &&
	test_grep "core 1 " out && test_grep "core 2 " out &&
	python3 -c "import json, sys; c = json.load(open(sys.argv[1]))[\"variants\"][0][\"sim_cores\"]; assert len(c) == 3 and all(x[\"instructions\"] > 0 for x in c), c" r.json
'

test_expect_success '--sim-cores 1: every thread on one core, no coherence-misses, no contention, and said' '
	whyslow stat --backend sim --exact --sim-cores 1 --export-json one.json "$T/sharing" false 200000 >out 2>err &&
	! test_grep "coherence-misses" out &&
	! test_grep "contention" out &&
	test_grep "warning: .*sharing false 200000. ran 3 threads on one simulated core, so cache lines shared between them are not seen (no coherence-misses): --sim-cores N" err &&
	whyslow stat --backend sim --exact --sim-cores 1 -- true >out 2>err &&
	test_grep -v "one simulated core" err &&
	python3 -c "import json, sys; v = json.load(open(sys.argv[1]))[\"variants\"][0]; assert \"contention\" not in v and \"sim_cores\" not in v" one.json
'

# A C++ static is mangled in the symbol table; its threads' bodies are templates a screen wide.
command -v g++ >/dev/null 2>&1 || test_skip_next "no g++ to build a C++ program"
test_expect_success 'C++: the variable demangled, the functions on the line shown as the tables show them' '
	cat >fs.cpp <<-\EOF &&
	#include <atomic>
	#include <cstdio>
	#include <thread>
	namespace app {
	struct Counters { std::atomic<long> a, b; };
	Counters packed;
	}
	int main()
	{
		std::thread t1([] { for (int i = 0; i < 1000000; i++) app::packed.a.fetch_add(1); });
		std::thread t2([] { for (int i = 0; i < 1000000; i++) app::packed.b.fetch_add(1); });
		t1.join();
		t2.join();
		std::printf("%ld\n", app::packed.a.load() + app::packed.b.load());
	}
	EOF
	g++ -O2 -g -pthread -o fs fs.cpp &&
	whyslow stat --backend sim --exact --functions --export-json fs.json ./fs >out &&
	test_grep "false sharing on app::packed (line 0x[0-9a-f]*): [0-9]* coherence misses, in …[^,]*::_M_run(), …[^,]*::_M_run(), " out &&
	test_grep -v "_ZN3app6packedE" out &&
	python3 -c "import json, sys; c = json.load(open(sys.argv[1]))[\"variants\"][0][\"contention\"][0]; assert c[\"variable\"] == \"app::packed\", c; assert any(\"{lambda()#1}\" in f for f in c[\"functions\"]), c" fs.json
'

# The two threads' bodies differ only inside the template argument that a table elides: "{lambda()#1}" and
# "{lambda()#2}". Shortened alike, they were two rows and two names of the line a reader could not tell apart.
command -v g++ >/dev/null 2>&1 || test_skip_next "no g++ to build a C++ program"
test_expect_success 'C++: two threads'"'"' bodies are told apart in the table, on the line, in compare and its why' '
	python3 - out <<-\EOF &&
	import re, sys
	text = open(sys.argv[1]).read()
	line = [l for l in text.split("\n") if "false sharing on app::packed" in l][0]
	bodies = [n for n in line.split(", in ", 1)[1].split(", ") if "_M_run" in n]
	assert sorted(re.findall(r"\{lambda\(\)#([12])\}", " ".join(bodies))) == ["1", "2"], line
	assert all(len(n) <= 60 for n in bodies), bodies
	# the rows of the table, each name as the line reads it
	rows = [l for l in text.split("\n") if re.match(r"^ +[0-9.]+%  .*_M_run", l)]
	assert len(rows) == 2 and all(len([r for r in rows if "%  " + b + " " in r]) == 1 for b in bodies), (rows, bodies)
	EOF
	whyslow stat -v --backend sim --exact ./fs >full &&
	test_grep "in std::thread::_State_impl<std::thread::_Invoker<std::tuple<main::{lambda()#[12]}> > >::_M_run(), std::thread::_State_impl<std::thread::_Invoker<std::tuple<main::{lambda()#[12]}> > >::_M_run()" full &&
	# Where Valgrind ran a thread in one or two slices (load on the host moves its schedule) the line saw one
	# body, which has no look-alike there: whyslow warns of it, and the run is made once more.
	whyslow compare --backend sim --exact --functions -n a ./fs -n b ./fs --export-json c.json >cout 2>cerr &&
	if grep -q "in at most two of Valgrind" cerr
	then
		whyslow compare --backend sim --exact --functions -n a ./fs -n b ./fs --export-json c.json >cout
	fi &&
	test_grep -v "_State_impl<…>::_M_run()" cout &&
	python3 - cout c.json <<-\EOF
	import json, re, sys
	lines = open(sys.argv[1]).read().split("\n")
	rows = lines[[i for i, l in enumerate(lines) if l.startswith(" functions:")][0] + 1:]
	rows = [re.split(r"  +", l.strip())[0] for l in rows[:[i for i, l in enumerate(rows) if not l.strip()][0]]]
	bodies = [r for r in rows if "_M_run" in r]
	assert len(bodies) == 2 and len(set(bodies)) == 2, rows
	# the explanation names a body, if it does, as its row reads
	for l in [l for l in lines if "_M_run" in l and l.strip().startswith(("why:", "next:"))]:
	    assert any(b in l for b in bodies), (l, bodies)
	fns = {c["function"] for c in json.load(open(sys.argv[2]))["comparisons"] if "_M_run" in c.get("function", "")}
	assert all("{lambda()#" in f and "<…>" not in f for f in fns) and len(fns) == 2, fns
	EOF
'

test_expect_success '--sim-cores: the cachegrind preset has one core; at most 256' '
	test_expect_code 129 whyslow stat --backend sim --sim-preset cachegrind --sim-cores 2 true 2>err &&
	test_grep "cachegrind preset models one core" err &&
	test_line_count = 1 err &&
	test_expect_code 129 whyslow stat --backend sim --sim-cores 300 true 2>err &&
	test_grep "1 to 256" err &&
	test_expect_code 129 whyslow stat --backend sim --sim-cores 0 true 2>err &&
	test_grep "1 to 256 cores, not 0" err
'

test_done
