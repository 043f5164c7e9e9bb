#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t1100-doctor-list.sh - whyslow doctor and whyslow list: every check present, data forms, probing.
. "$WS_SRC/tests/cli/lib.sh"

test_expect_success 'doctor reports every check, each with a status' '
	whyslow doctor >out &&
	for c in pmu perf_event_paranoid nmi-watchdog core-types rdpmc cpu-governor turbo smt isolated-cpus valgrind \
		processes cpu-wait
	do
		test_grep "^[a-zA-Z ]*  $c " out || return 1
	done
'

test_expect_success 'doctor --json gives the same checks as data, with a fix for every warning' '
	whyslow doctor --json >d.json &&
	python3 - d.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	names = {c["name"] for c in d["checks"]}
	assert {"pmu", "perf_event_paranoid", "nmi-watchdog", "smt", "valgrind"} <= names, names
	for c in d["checks"]:
	    assert c["status"] in ("ok", "info", "warn", "bad"), c
	    if c["status"] in ("warn", "bad"):
	        assert c.get("fix"), c
	EOF
'

test_expect_success 'doctor says smt is unknown, not fine, when the kernel does not tell' '
	whyslow doctor --json >d.json &&
	python3 - d.json <<-\EOF
	import json, sys
	smt = [c for c in json.load(open(sys.argv[1]))["checks"] if c["name"] == "smt"][0]
	try:
	    active = open("/sys/devices/system/cpu/smt/active").read().strip()
	except OSError:
	    active = None
	if active is None:
	    assert (smt["status"], smt["value"]) == ("info", "unknown"), smt
	elif int(active):
	    assert (smt["status"], smt["value"]) == ("warn", "active"), smt
	else:
	    assert (smt["status"], smt["value"]) == ("ok", "inactive"), smt
	EOF
'

test_expect_success 'doctor agrees with what opens: the PMU check matches a hardware probe' '
	whyslow doctor --json >d.json &&
	status=$(python3 -c "import json; print([c[\"status\"] for c in json.load(open(\"d.json\"))[\"checks\"] if c[\"name\"] == \"pmu\"][0])") &&
	if test_have_prereq PMU; then test "$status" = ok; else test "$status" = bad; fi
'

test_expect_success 'doctor takes no arguments' '
	test_expect_code 129 whyslow doctor extra 2>err &&
	test_line_count = 1 err
'

test_expect_success 'list marks software events as opening here' '
	whyslow list task-clock >out &&
	test_grep "^  task-clock  *software  yes" out
'

test_expect_success 'list shows the metrics, generic events, libpfm4 events and presets' '
	whyslow list >out &&
	test_grep "^Metrics" out &&
	test_grep "^  L2-misses  *simulator" out &&
	test_grep "^  L1-dcache-load-misses  *hardware" out &&
	test_grep "^  perf::" out &&
	test_grep "^  zen4  *preset" out
'

test_expect_success 'an unknown --sim-preset names the presets that list shows' '
	test_expect_code 129 whyslow stat --sim-preset bogus true 2>err &&
	test_line_count = 1 err &&
	whyslow list --json --no-probe >l.json &&
	python3 - l.json err <<-\EOF
	import json, sys
	presets = [e["name"] for e in json.load(open(sys.argv[1])) if e["kind"] == "preset"]
	err = open(sys.argv[2]).read()
	assert presets and "use " + ", ".join(presets[:-1]) + " or " + presets[-1] in err, (presets, err)
	EOF
'

test_expect_success 'list --json is data, and a pattern that matches nothing fails, but as --json an empty list' '
	whyslow list --json --no-probe branch >l.json &&
	python3 -c "import json; l=json.load(open(\"l.json\")); assert any(e[\"name\"] == \"branch-misses\" for e in l)" &&
	test_expect_code 1 whyslow list no-such-event-anywhere 2>err &&
	test_grep "nothing matches" err &&
	whyslow list --json --no-probe no-such-event-anywhere >l.json 2>err &&
	echo "[]" >expect &&
	test_cmp expect l.json &&
	test_line_count = 0 err
'

test_expect_success 'list --names: the names --json lists, one per line; --kind selects kinds' '
	whyslow list --json --no-probe >l.json &&
	whyslow list --names >names &&
	jq -r ".[].name" l.json | awk "!seen[\$0]++" >expect &&
	test_cmp expect names &&
	test "$(grep -c "^task-clock$" names)" = 1 &&
	whyslow list --names --kind metric >metrics &&
	jq -r ".[] | select(.kind == \"runner\" or .kind == \"perf\" or .kind == \"simulator\" or
		.kind == \"derived\") | .name" l.json >expect &&
	test_cmp expect metrics &&
	test_grep "^wall-time$" metrics &&
	test_grep -v "^zen4$" metrics &&
	whyslow list --names --kind preset,backend >pb &&
	jq -r ".[] | select(.kind == \"preset\" or .kind == \"backend\") | .name" l.json >expect &&
	test_cmp expect pb &&
	whyslow list --names --kind event L1-dcache >ev &&
	test_grep "^L1-dcache-load-misses$" ev &&
	test_expect_code 129 whyslow list --kind bogus 2>err &&
	test_line_count = 1 err &&
	test_expect_code 129 whyslow list --names --json 2>err &&
	test_line_count = 1 err
'

test_done
