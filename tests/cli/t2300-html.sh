#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t2300-html.sh - the HTML report of a small run of `make demo`'s job, opened in headless Chromium: screenshots in
# both colour schemes and a print without a console error or a request, and its DOM checked against the result
# file (every verdict, ratio, CI and cause share, and one mark per sample). Then a stat result, a result without
# samples, inclusive function bars, and files of other schema versions.
. "$WS_SRC/tests/cli/lib.sh"

check() { python3 "$WS_SRC/tests/cli/html-check.py" "$@"; }

test_expect_success 'the demo writes its page, and report --html of its result draws the same bytes' '
	DEMO_DIR="$PWD/out" R1CS_CONSTRAINTS=5000 RUNS=3 BUILD="$WS_BUILD" "$WS_SRC/examples/r1cs-synth/demo.sh" \
		>stdout 2>stderr &&
	test -s out/result.html &&
	whyslow report --html out/result.json >re.html &&
	test_cmp out/result.html re.html
'

test_expect_success 'one self-contained file under 5 MB: no script, nothing to fetch' '
	test $(wc -c <out/result.html) -lt 5000000 &&
	test_grep -v "<script" out/result.html &&
	test_grep -v "<link" out/result.html &&
	test_grep -v "url(" out/result.html &&
	! grep -Eq "(src|href)=\"[^#]" out/result.html &&
	test $(grep -c "<svg " out/result.html) -ge 20
'

test_expect_success 'the result records the command that made it, and the page shows it' '
	jq -e ".settings.command_line[1] == \"compare\" and (.settings.command_line | index(\"--export-html\")) and
		.settings.cwd != null" out/result.json &&
	test_grep "class=\"reproduce\">cd " out/result.html
'

test_expect_success 'the page is its result: verdicts, ratios, CIs, causes, one mark per sample' '
	check out/result.json out/result.html >log &&
	cat log &&
	test_grep "comparisons, [1-9][0-9]* causes, [1-9][0-9]* sample marks" log
'

test_expect_success 'the check fails on a changed ratio, a lost sample mark or a plot without its text' '
	python3 - out/result.html <<-\EOF &&
	import re, sys
	page = open(sys.argv[1], encoding="utf-8").read()
	open("ratio.html", "w").write(re.sub(r"(<span class=\"cell\">[~ ]*[+-])(\d)", r"\g<1>9\2", page, count=1))
	open("mark.html", "w").write(re.sub(r"<circle class=\"s\"[^>]*>.*?</circle>", "", page, count=1))
	open("desc.html", "w").write(re.sub(r"<desc id=\"d3\">[^<]*</desc>", "", page, count=1))
	EOF
	for f in ratio mark desc
	do
		! cmp -s out/result.html $f.html &&
		test_expect_code 1 check out/result.json $f.html >$f.log || return 1
	done &&
	test_grep "the page says" ratio.log &&
	test_grep "marks in the strip plot" mark.log &&
	test_grep "without its <title> and <desc>" desc.log
'

if command -v chromium >/dev/null 2>&1; then
	test_expect_success 'Chromium opens it: both colour schemes and a print, no console error, no request' '
		python3 "$WS_SRC/tests/cli/browser.py" --width 1200 --clip-height 3000 --light light.png --dark dark.png \
			--dom dom.html --pdf page.pdf out/result.html 2>err &&
		! test -s err &&
		for p in light.png dark.png
		do
			test "$(head -c 8 $p | od -An -tx1 | tr -d " ")" = 89504e470d0a1a0a || return 1
		done &&
		! cmp -s light.png dark.png &&
		test "$(head -c 5 page.pdf)" = "%PDF-"
	'

	test_expect_success 'the DOM Chromium built is the result too' '
		check out/result.json dom.html
	'

	test_expect_success 'a page that asks for anything from elsewhere is caught' '
		sed "s|</body>|<img src=\"http://127.0.0.1:9/x.png\" alt=\"\"></body>|" out/result.html >fetch.html &&
		test_expect_code 1 python3 "$WS_SRC/tests/cli/browser.py" fetch.html 2>err &&
		test_grep "request: http://127.0.0.1:9/x.png" err
	'
else
	for t in 'Chromium opens it: both colour schemes and a print, no console error, no request' \
		'the DOM Chromium built is the result too' 'a page that asks for anything from elsewhere is caught'
	do
		test_skip_next 'chromium is not installed (tools/install-deps --browser installs Debian'"'"'s, as make test does)'
		test_expect_success "$t" 'false'
	done
fi

test_expect_success 'stat --export-html draws its one program' '
	whyslow stat -r 4 -w 0 -e wall-time,task-clock,page-faults --export-json st.json --export-html st.html -- true >/dev/null &&
	check st.json st.html >log &&
	test_grep ", 24 sample marks" log &&
	test_grep "<h1>whyslow stat: 4 runs" st.html &&
	whyslow report --html st.json | cmp - st.html
'

test_expect_success 'program names are text wherever the page shows them, the run plots included' '
	whyslow compare -r 2 -w 0 -e wall-time -n "<i>a</i>" true -n "b</title><b>" true \
		--export-html names.html >/dev/null &&
	test_grep -v "<i>a</i>" names.html &&
	test_grep -v "</title><b>" names.html &&
	test_grep "&lt;i&gt;a&lt;/i&gt; run 2:" names.html &&
	test_grep "b&lt;/title&gt;&lt;b&gt; run 1:" names.html
'

test_expect_success 'stat refuses one file for both exports before running' '
	test_expect_code 129 whyslow stat --export-json x.json --export-html x.json -- true 2>err &&
	test_line_count = 1 err &&
	! test -e x.json
'

test_expect_success 'a result without samples is drawn from what it has' '
	jq "(.variants[] | .metrics, .regions[].metrics, .functions[].metrics) |= map_values(
		if has(\"samples\") then .samples = [] | del(.running) else . end)" out/result.json >nosamples.json &&
	whyslow report --html nosamples.json >nosamples.html &&
	test_grep "holds no samples" nosamples.html &&
	test_grep "id=\"changes\"" nosamples.html &&
	check nosamples.json nosamples.html
'

test_expect_success 'functions with inclusive metrics get their inclusive bars' '
	python3 - <<-\EOF &&
	import json
	for name, own, incl in (("a", [0.10, 0.11, 0.10, 0.12, 0.11, 0.10], [0.40, 0.41, 0.40, 0.42, 0.41, 0.40]),
	                        ("b", [0.20, 0.21, 0.20, 0.22, 0.21, 0.20], [0.60, 0.61, 0.60, 0.62, 0.61, 0.60])):
	    json.dump({"variants": [{"name": name, "metrics": {"t": {"samples": [1, 2, 3, 4, 5, 6]}},
	               "functions": [{"name": "f", "object": "/bin/x", "metrics": {"share": {"samples": own}},
	                              "inclusive": {"share": {"samples": incl}}}]}]}, open(name + ".json", "w"))
	EOF
	whyslow diff a.json b.json --export-json ab.json >/dev/null &&
	jq -e ".variants[1].functions[0].inclusive.share.samples | length == 6" ab.json &&
	whyslow report --html ab.json >ab.html &&
	test $(grep -c "class=\"bar b incl v0\"" ab.html) = 1 &&
	test $(grep -c "class=\"bar incl v1\"" ab.html) = 1 &&
	test_grep "incl. 40.50% → 60.50%" ab.html &&
	check ab.json ab.html
'

test_expect_success 'function labels: shortened as in the terminal, "(inlined)" kept, no two alike' '
	python3 - <<-\EOF &&
	import json
	names = ["core::ptr::drop_in_place<alloc::vec::Vec<prog::store::Buf>> (inlined)",
	         "core::ptr::drop_in_place<[prog::store::Buf]> (inlined)",
	         "std::_Rb_tree<int, std::pair<int const, int>, std::_Select1st<std::pair<int const, int> >, "
	         "std::less<int>, std::allocator<std::pair<int const, int> > >::_M_lower_bound(int const&) (inlined)",
	         "prog::store::Buf::mix::<prog::main::{closure#0}>",
	         "<alloc::vec::Vec<u8> as core::ops::drop::Drop>::drop",
	         "<alloc::vec::Vec<u16> as core::ops::drop::Drop>::drop"]
	fns = [{"name": n, "object": "/bin/x", "inlined": n.endswith("(inlined)") or None,
	        "metrics": {"share": {"samples": [0.1 + 0.01 * i] * 3}}} for i, n in enumerate(names)]
	for f in fns:
	    if f["inlined"] is None:
	        del f["inlined"]
	json.dump({"variants": [{"name": "p", "metrics": {"t": {"samples": [1, 2, 3]}}, "functions": fns}]},
	          open("labels.json", "w"))
	EOF
	whyslow report --html labels.json >labels.html &&
	python3 - labels.html <<-\EOF
	import html, re, sys
	page = open(sys.argv[1]).read()
	rows = re.findall(r"<g class=\"fn\" data-function=\"([^\"]*)\"><text[^>]*><title>[^<]*</title>([^<]*)</text>", page)
	labels = {html.unescape(n): html.unescape(l) for n, l in rows}
	assert len(labels) == 6, labels
	for n, l in labels.items():
	    assert len(l) <= 34, l
	    assert l.endswith(" (inlined)") == n.endswith(" (inlined)"), (n, l)
	assert len(set(labels.values())) == 6, labels
	# two that read alike keep what tells them apart ("<Vec<…> as Drop>::drop" twice), the type in view
	assert labels["<alloc::vec::Vec<u8> as core::ops::drop::Drop>::drop"] == "<Vec<u8> as Drop>::drop", labels
	assert labels["<alloc::vec::Vec<u16> as core::ops::drop::Drop>::drop"] == "<Vec<u16> as Drop>::drop", labels
	assert labels["std::_Rb_tree<int, std::pair<int const, int>, std::_Select1st<std::pair<int const, int> >, "
	              "std::less<int>, std::allocator<std::pair<int const, int> > >::_M_lower_bound(int const&) (inlined)"] \
	    == "…e<…>::_M_lower_bound(…) (inlined)", labels
	assert labels["prog::store::Buf::mix::<prog::main::{closure#0}>"] == "prog::store::Buf::mix::<…>", labels
	EOF
'

test_expect_success 'function labels: a clone too wide for the margin keeps its function name, not only its notes' '
	python3 - <<-\EOF &&
	import json
	names = ["ns::compute_something(std::vector<int, std::allocator<int> > const&) [clone .constprop.0] [clone .isra.0]",
	         "main"]
	fns = [{"name": n, "object": "/bin/x", "metrics": {"share": {"samples": [0.1 + 0.01 * i] * 3}}}
	       for i, n in enumerate(names)]
	json.dump({"variants": [{"name": "p", "metrics": {"t": {"samples": [1, 2, 3]}}, "functions": fns}]},
	          open("clone.json", "w"))
	EOF
	whyslow report --html clone.json >clone.html &&
	python3 - clone.html <<-\EOF
	import html, re, sys
	page = open(sys.argv[1]).read()
	rows = re.findall(r"<g class=\"fn\" data-function=\"([^\"]*)\"><text[^>]*><title>[^<]*</title>([^<]*)</text>", page)
	labels = {html.unescape(n): html.unescape(l) for n, l in rows}
	# it reads like no other label: the ends of its full name ("…one .constprop.0] [clone .isra.0]") would
	# drop the function for its notes
	l = labels[next(n for n in labels if n.startswith("ns::"))]
	assert l == "…hing(…) [clone .constprop.0.isra.0]", labels
	EOF
'

test_expect_success 'a file of another schema version: one line naming both versions' '
	for v in whyslow/0 whyslow/2
	do
		jq ".schema = \"$v\"" st.json >other.json &&
		test_expect_code 1 whyslow report --html other.json >out.html 2>err &&
		test_line_count = 1 err &&
		test_grep "$v" err &&
		test_grep "whyslow/1" err &&
		! test -s out.html || return 1
	done
'

test_done
