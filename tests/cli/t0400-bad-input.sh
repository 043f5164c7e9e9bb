#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t0400-bad-input.sh - every bad input gets one clear line: the exit status and the first line of stderr of
# each case of t0400-bad-input.table, so that what works stays working.
. "$WS_SRC/tests/cli/lib.sh"

# whyslow-fake measures without a PMU or valgrind, the same everywhere: for the cases that run.
fake() { "$WS_BUILD/tests/whyslow-fake" "$@"; }

# Inputs the table refers to: two single-variant results, their diff (with comparisons), files whose
# comparisons name what they do not hold, files that are not results, a FIFO without a writer.
sample() {
	printf '{"variants":[{"name":"%s","metrics":{"t":{"samples":[%s]}}}]}\n' "$2" "$3" >"$1"
}
# A result with variants a and b (metric t, region r, function f) and the comparisons $2.
with_comparisons() {
	fn='"functions":[{"name":"f","metrics":{"t":{"samples":[1,2]}}}],"regions":{"r":{"metrics":{"t":{"samples":[1,2]}}}}'
	printf '{"variants":[{"name":"a","metrics":{"t":{"samples":[1,2]}},%s},{"name":"b","metrics":{"t":{"samples":[3,4]}},%s}],"comparisons":[%s]}\n' \
		"$fn" "$fn" "$2" >"$1"
}
cmp_of() { printf '{"variant":"%s","baseline":"%s","metric":"%s"%s}' "$1" "$2" "$3" "${4:-}"; }

test_expect_success 'setup' '
	sample a.json a 1,2,3,4,5 &&
	sample b.json b 2,3,4,5,6 &&
	sample other.json b 2,3,4,5,6 &&
	printf "{\"machine\":{\"cpu\":\"X\"},\"variants\":[{\"name\":\"x\",\"metrics\":{\"t\":{\"samples\":[1,2,3]}}}]}\n" >cpu-x.json &&
	"$WHYSLOW" diff a.json b.json --export-json c.json >/dev/null &&
	ok=$(cmp_of b a t) &&
	with_comparisons bad-variant.json "$ok,$(cmp_of x a t)" &&
	with_comparisons bad-baseline.json "$(cmp_of b y t)" &&
	with_comparisons bad-region.json "$(cmp_of b a t ",\"region\":\"q\"")" &&
	with_comparisons bad-function.json "$ok,$ok,$(cmp_of b a t ",\"function\":\"g\"")" &&
	with_comparisons bad-metric.json "$(cmp_of b a u)" &&
	with_comparisons bad-explain.json "$ok" &&
	sed "s/}$/,\"explain\":[{\"variant\":\"z\"}]}/" bad-explain.json >bad-explain2.json &&
	mv bad-explain2.json bad-explain.json &&
	printf "{\"a\": \001\033[31m}" >ctl.json &&
	echo "[1]" >array.json &&
	: >empty.json &&
	echo hello >text.json &&
	echo "{\"schema\":\"whyslow/2\",\"variants\":[]}" >v2.json &&
	echo "{\"variants\":[]}" >novariants.json &&
	echo "{\"variants\":[{\"name\":\"a\",\"metrics\":{}},{\"name\":\"a\",\"metrics\":{}}]}" >twice.json &&
	echo "{\"variants\":[{\"name\":\"a\",\"metrics\":{\"t\":{\"samples\":[\"x\"]}}}]}" >nan.json &&
	mkfifo fifo &&
	mkdir dir &&
	cp /bin/true prog &&
	cp /bin/true "sp ace" &&
	echo "{\"branch-misess\": 20}" >typo-cost.json &&
	echo x >data.txt &&
	v=$("$WHYSLOW" --version) &&
	printf "{\"format\":\"whyslow-plan/1\",\"whyslow\":\"%s\",\"plan\":\"p\",\"arguments\":[\"compare\"],\"programs\":[{\"name\":\"a\",\"build_id\":\"x\"}],\"runs\":1,\"job_digests\":[\"x\"]}\n" "${v#whyslow }" >plan.sh.manifest &&
	: >plan.sh
'

while IFS= read -r line; do
	case "$line" in
	'' | '#'*) continue ;;
	esac
	case_code=${line%% :: *}
	rest=${line#* :: }
	case_cmd=${rest%% :: *}
	case_want=${rest#* :: }
	test_expect_success "$case_code: $case_cmd" '
		( eval "$case_cmd" ) >out 2>err </dev/null
		got=$?
		first=$(head -n 1 err)
		if [ "$got" != "$case_code" ] || [ "$first" != "$case_want" ]; then
			echo "exit $got, expected $case_code" &&
			echo "first line of stderr: $first" &&
			echo "expected:             $case_want" &&
			cat err && false
		fi
	'
done <"$WS_SRC/tests/cli/t0400-bad-input.table"

test_done
