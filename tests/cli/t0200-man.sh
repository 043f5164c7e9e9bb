#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t0200-man.sh - the manual pages: they render without a warning, document exactly the options each command's
# parser takes, and `whyslow help` opens them (or prints -h where they are not there).
. "$WS_SRC/tests/cli/lib.sh"

MAN="$WS_BUILD/man"
[ -f "$MAN/whyslow.1" ] || test_skip_all 'the manual pages are not built: scdoc is missing (tools/install-deps installs it)'
command -v man >/dev/null 2>&1 || test_skip_all 'man(1) is missing (Debian package man-db)'

test_expect_success 'every page of man/meson.build is built from its source' '
	sed -n "s/^  .\(whyslow[a-z.-]*\.[0-9]\).,$/\1/p" "$WS_SRC/man/meson.build" >pages &&
	test_line_count = 12 pages &&
	while read -r p
	do
		test -s "$MAN/$p" && test -f "$WS_SRC/man/$p.scd" || { echo "no $p" >&2; return 1; }
	done <pages &&
	ls "$WS_SRC/man" | sed -n "s/\.scd$//p" | sort >sources &&
	sort pages >expect &&
	test_cmp expect sources
'

test_expect_success 'man -l renders every page without a warning, at 80 columns' '
	for p in "$MAN"/*.[135]
	do
		MANWIDTH=80 man -l "$p" 2>err >out || { cat err >&2; return 1; }
		test -s out && ! test -s err || { echo "$p:" >&2; cat err >&2; return 1; }
		MANWIDTH=80 man --warnings -l "$p" 2>err >/dev/null
		! test -s err || { echo "$p (groff -w):" >&2; cat err >&2; return 1; }
	done
'

test_expect_success 'each page is named after its file and names only pages that exist' '
	for p in "$MAN"/*.[135]
	do
		name=$(basename "$p") &&
		head -1 "$WS_SRC/man/$name.scd" | grep -q "^${name%.*}(${name##*.}) " ||
			{ echo "$name: its first line names another page" >&2; return 1; }
		for ref in $(grep -o "\*whyslow[a-z.-]*\*([0-9])" "$WS_SRC/man/$name.scd" | tr -d "*()")
		do
			test -f "$MAN/${ref%[0-9]}.${ref#${ref%[0-9]}}" ||
				{ echo "$name refers to $ref, which is not a page" >&2; return 1; }
		done
	done
'

# The options a page documents: the *-x* and *--long* that open a line of its OPTIONS section.
page_options() {
	sed -n "/^# OPTIONS/,/^# [A-Z]/p" "$1" | grep "^\*-" | grep -o "\*--*[A-Za-z0-9][A-Za-z0-9-]*\*" | tr -d "*" | sort -u
}

# The options a command's parser takes: those its -h prints.
parser_options() {
	whyslow "$1" -h | sed -n "s/^    \(-[A-Za-z]\)\(, \(--[a-z][a-z-]*\)\)\{0,1\}.*/\1 \3/p; s/^    \(--[a-z][a-z-]*\).*/\1/p" |
		tr " " "\n" | grep . | sort -u
}

test_expect_success 'each command page documents exactly the options its parser takes' '
	whyslow -h | sed -n "s/^    \([a-z][a-z-]*\) .*/\1/p" >commands &&
	test_line_count -ge 7 commands &&
	while read -r c
	do
		parser_options "$c" >expect &&
		page_options "$WS_SRC/man/whyslow-$c.1.scd" >actual &&
		test_line_count -ge 2 expect &&
		test_cmp expect actual || { echo "whyslow-$c(1) and whyslow $c -h differ (- parser, + page)" >&2; return 1; }
	done <commands
'

test_expect_success 'compare and diff pages give the default --primary under the simulator alone that -h gives' '
	for c in compare diff
	do
		whyslow "$c" -h | sed -n "s/^    --primary .*the simulator alone, \([a-z-]*\)).*/\1/p" >expect &&
		test_line_count = 1 expect &&
		{ sed -n "/^\*--primary\*/,/^$/p" "$WS_SRC/man/whyslow-$c.1.scd" | tr "\n\t" "  "; echo; } |
			sed -n "s/.*under the simulator alone \*\([a-z-]*\)\*.*/\1/p" >actual &&
		test_cmp expect actual || { echo "whyslow-$c(1)" >&2; return 1; }
	done
'

# "OPTION GROUP" for each long option of a command's -h and of its page's OPTIONS section, GROUP counting the
# headings above it (-h's "Statistics", the page's "## Statistics"): the two name their groups apart
# ("Around the runs" is "Runs"), but list them in the same order.
help_groups() {
	whyslow "$1" -h | awk '/^(usage:|   or:)/ { next } /^[A-Z]/ { g++ }
		/^    -/ && match($0, /--[a-z][a-z-]*/) { print substr($0, RSTART, RLENGTH), g + 0 }' | sort
}
page_groups() {
	sed -n "/^# OPTIONS/,/^# [A-Z]/p" "$1" | awk '/^## / { g++ }
		/^\*-/ { s = $0; while (match(s, /\*--[a-z][a-z-]*\*/)) {
			print substr(s, RSTART + 1, RLENGTH - 2), g + 0; s = substr(s, RSTART + RLENGTH) } }' | sort
}

test_expect_success 'each command page files each option under the group -h puts it in' '
	whyslow -h | sed -n "s/^    \([a-z][a-z-]*\) .*/\1/p" >commands &&
	while read -r c
	do
		help_groups "$c" >expect &&
		page_groups "$WS_SRC/man/whyslow-$c.1.scd" >actual &&
		test_cmp expect actual || { echo "whyslow-$c(1) and whyslow $c -h group apart (- -h, + page)" >&2; return 1; }
	done <commands
'

test_expect_success 'each command page has a SYNOPSIS form for each of its usage lines' '
	whyslow -h | sed -n "s/^    \([a-z][a-z-]*\) .*/\1/p" >commands &&
	while read -r c
	do
		whyslow "$c" -h | grep -c "^usage:\|^   or:" >expect &&
		sed -n "/^# SYNOPSIS/,/^# [A-Z]/p" "$WS_SRC/man/whyslow-$c.1.scd" | grep -c "^\*whyslow $c\*" >actual &&
		test_cmp expect actual || { echo "whyslow-$c(1): its SYNOPSIS forms are not one for each usage line of -h" >&2; return 1; }
	done <commands
'

test_expect_success 'a page whose --fail-if-slower exits 1 says so in its EXIT STATUS' '
	grep -l "^\*--fail-if-slower\*" "$WS_SRC"/man/whyslow-*.1.scd >pages &&
	test_line_count = 2 pages &&
	while read -r p
	do
		sed -n "/^\*--fail-if-slower\*/,/^$/p" "$p" | tr "\n\t" "  " >option &&
		test_grep "[Ee]xit 1 when" option &&
		sed -n "/^# EXIT STATUS/,/^# [A-Z]/p" "$p" | tr "\n" " " >status &&
		test_grep " 1 when \*--fail-if-slower\* could not *compare" status || { echo "$p" >&2; return 1; }
	done <pages
'

test_expect_success 'whyslow-result(5) names each estimate a comparison'"'"'s ratio is, as docs/result-schema.md does' '
	sed -n "s/^| .estimate. | string | always | \(.*\) |$/\1/p" "$WS_SRC/docs/result-schema.md" |
		grep -o "\"[a-z-]*\"" | tr -d "\"" | sort -u >expect &&
	test_line_count = 4 expect &&
	sed -n "/^\*comparisons\*$/,/^$/p" "$WS_SRC/man/whyslow-result.5.scd" | tr -s "\n\t" " " >entry &&
	test_grep "\*ratio\*, the effect size of \*estimate\*" entry &&
	for e in $(cat expect)
	do
		test_grep "\*$e\*" entry || return 1
	done
'

test_expect_success 'whyslow(1) lists every command, and only those' '
	whyslow -h | sed -n "s/^    \([a-z][a-z-]*\) .*/\1/p" >expect &&
	echo help >>expect &&
	sed -n "/^# COMMANDS/,/^# [A-Z]/p" "$WS_SRC/man/whyslow.1.scd" | sed -n "s/^\*\([a-z-]*\)\*.*/\1/p" >actual &&
	test_cmp expect actual
'

test_expect_success 'the check fails on a page that misses an option, or documents one the parser lacks' '
	sed "/^\*--regions\*$/d" "$WS_SRC/man/whyslow-stat.1.scd" >fewer.scd &&
	parser_options stat >expect &&
	page_options fewer.scd >actual &&
	! test_cmp expect actual >/dev/null &&
	sed "s/^\*--exact\*$/*--exact*, *--exactly*/" "$WS_SRC/man/whyslow-stat.1.scd" >more.scd &&
	page_options more.scd >actual &&
	! test_cmp expect actual >/dev/null
'

test_expect_success 'whyslow help CMD opens the page; help result and help whyslow.h too' '
	MANWIDTH=80 whyslow help stat >out &&
	test_grep "whyslow-stat - run one command N times" out &&
	test_grep "sim-preset name" out &&
	MANWIDTH=80 whyslow help >out &&
	test_grep "whyslow - find out why variant B" out &&
	MANWIDTH=80 whyslow help result >out &&
	test_grep "^whyslow-result(5)" out &&
	MANWIDTH=80 whyslow help whyslow.h >out &&
	test_grep "WS_REGION_BEGIN_H" out
'

test_expect_success 'without man, whyslow help CMD prints what -h prints' '
	whyslow stat -h >expect &&
	PATH=/nonexistent "$WHYSLOW" help stat >actual &&
	test_cmp expect actual &&
	PATH=/nonexistent "$WHYSLOW" help >actual &&
	test_grep "^commands:" actual
'

test_expect_success 'help -h prints its usage, as every command'"'"'s -h does' '
	whyslow help -h >out &&
	test_grep "^usage: whyslow help" out &&
	whyslow help --help >out &&
	test_grep "^usage: whyslow help" out
'

test_expect_success 'help on something that has no page is a usage error' '
	test_expect_code 129 whyslow help bogus 2>err &&
	test_line_count = 1 err &&
	test_grep "no page on .bogus." err
'

test_done
