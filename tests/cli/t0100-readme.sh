#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t0100-readme.sh - the README stays true: it starts with the two commands, documents every metric and command, and its result-file summary has every key.
. "$WS_SRC/tests/cli/lib.sh"

README="$WS_SRC/README.md"

test_expect_success 'the README starts with make demo and make test' '
	head -12 "$README" >top &&
	test_grep "^make demo" top &&
	test_grep "^make test" top
'

# In the Metrics table, not merely somewhere in the README: a metric named only in passing
# (coherence-misses once was) leaves a reader of the table without its unit and backends.
test_expect_success 'every metric whyslow knows has a row in the README Metrics table' '
	whyslow list --json --no-probe >list.json &&
	python3 - list.json "$README" <<-\EOF
	import json, sys
	readme = open(sys.argv[2]).read()
	section = readme[readme.index("\n## Metrics\n"):]
	section = section[:section.index("\n#", 1)]
	rows = "\n".join(l.split(" | ")[0] for l in section.splitlines() if l.startswith("| `"))
	assert rows, "no Metrics table"
	kinds = ("runner", "perf", "simulator", "derived")
	missing = [e["name"] for e in json.load(open(sys.argv[1]))
	           if e["kind"] in kinds and "`%s`" % e["name"] not in rows]
	assert not missing, "no row in the Metrics table: %s" % missing
	EOF
'

test_expect_success 'every command is documented in the README' '
	whyslow -h | sed -n "s/^    \([a-z-]*\) .*/\1/p" >commands &&
	test -s commands &&
	while read -r c
	do
		grep -q "whyslow $c" "$README" || { echo "command $c is not in the README" >&2; return 1; }
	done <commands
'

test_expect_success 'every long option of every command is documented in the README' '
	whyslow -h | sed -n "s/^    \([a-z-]*\) .*/\1/p" >commands &&
	while read -r c
	do
		whyslow "$c" -h || return 1
	done <commands >help &&
	python3 - help "$README" <<-\EOF
	import re, sys
	readme = open(sys.argv[2]).read()
	opts = set(re.findall(r"^ +(?:-[a-zA-Z], )?(--[a-z][a-z-]*)", open(sys.argv[1]).read(), re.M))
	assert len(opts) > 30, opts
	missing = sorted(o for o in opts if not re.search(re.escape(o) + r"(?![a-z-])", readme))
	assert not missing, "not in the README: %s" % missing
	EOF
'

test_expect_success 'the schema version in the README is the one whyslow writes' '
	whyslow stat -r 1 -w 0 -e wall-time --export-json r.json -- true >/dev/null &&
	test_grep "\"schema\": \"$(python3 -c "import json; print(json.load(open(\"r.json\"))[\"schema\"])")\"" "$README"
'

test_expect_success 'every key of a real result file is in the README summary of the result file' '
	whyslow stat -r 2 -w 0 -e wall-time --export-json s.json -- true >/dev/null &&
	"$WS_BUILD/tests/whyslow-fake" compare -r 2 --backend fake -e instructions,branches --export-json c.json \
		-n one "true" -n three "true a b" >/dev/null &&
	python3 - "$README" s.json c.json <<-\EOF
	import json, re, sys
	readme = open(sys.argv[1]).read()
	block = readme[readme.index("{ \"schema\": \"whyslow/"):]
	block = block[:block.index("```")]
	known = set(re.findall(r"\"([a-z_]+)\"", block))
	maps = {"metrics", "regions", "sim_costs", "toolchains", "inclusive", "topdown", "baseline", "variant"}
	found = set()
	def walk(x, path):
	    if isinstance(x, list):
	        for y in x:
	            walk(y, path)
	    elif isinstance(x, dict):
	        for k, v in x.items():
	            if path not in maps:
	                found.add(k)
	            walk(v, None if path in maps else k)
	for f in sys.argv[2:]:
	    walk(json.load(open(f)), None)
	missing = sorted(k for k in found if re.fullmatch(r"[a-z_]+", k) and k not in known)
	assert not missing, "keys of a result file not in the README: %s" % missing
	EOF
'

# The reference documents keys that no quick run here writes (own_name needs two builds that rename a
# function, looks a --runs auto that ran out of budget), so the summary is checked against it too.
test_expect_success 'every key docs/result-schema.md documents is in the README summary of the result file' '
	python3 - "$README" "$WS_SRC/docs/result-schema.md" <<-\EOF
	import re, sys
	readme = open(sys.argv[1]).read()
	block = readme[readme.index("{ \"schema\": \"whyslow/"):]
	block = block[:block.index("```")]
	known = set(re.findall(r"\"([a-z_]+)\"", block))
	keys = set()
	for line in open(sys.argv[2]):
	    m = re.match(r"\| `([^`]+)`", line)
	    if m:
	        for part in re.split(r"`, `|, ", m.group(1)):
	            keys.add(re.sub(r"\[.*", "", part.split(".")[-1]))
	assert len(keys) > 50, keys
	missing = sorted(k for k in keys if re.fullmatch(r"[a-z_]+", k) and k not in known)
	assert not missing, "keys of docs/result-schema.md not in the README: %s" % missing
	EOF
'

test_expect_success 'the case study shows every option make demo gives compare' '
	python3 - "$README" "$WS_SRC/examples/r1cs-synth/demo.sh" <<-\EOF
	import re, sys
	readme = open(sys.argv[1]).read()
	shown = readme[readme.index("**The command** (`make demo`)"):]
	shown = shown[:shown.index("**The measured answer**")]
	demo = open(sys.argv[2]).read()
	demo = demo[demo.index("set -- compare"):demo.index("for v in")]
	opts = re.findall(r"(--?[a-z][a-z-]*)", demo)
	assert "--seed" in opts, opts
	missing = [o for o in opts if not re.search(re.escape(o) + r"(?![a-z-])", shown)]
	assert not missing, "demo.sh gives %s, which the README command leaves out" % missing
	EOF
'

test_done
