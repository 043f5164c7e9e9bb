# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh - a small git-style test library for the CLI tests; each tNNNN-*.sh script sources it and prints TAP.
#
#   test_expect_success 'title' 'body'     the body (shell) must exit 0
#   test_expect_code N cmd args...         inside a body: cmd must exit N
#   test_cmp expect actual                 inside a body: the files must be equal (a diff is shown if not)
#   test_grep [-v] PATTERN FILE            inside a body: grep with the file shown on failure
#   test_skip_all 'reason'                 skip the whole script (TAP "1..0 # SKIP")
#   test_have_prereq NAME                  true when a prerequisite holds (SIM, PERF_SW, PMU, VALGRIND)
#   test_result_variants FILE              a result file's variants and partial flag, for test_cmp
#   test_done                              print the plan; exit 1 if any test failed
#
# Every script runs in its own empty trash directory, so tests may write files freely.

set -u

: "${WHYSLOW:?WHYSLOW must name the whyslow binary under test}"
: "${WS_BUILD:?WS_BUILD must name the build directory}"
: "${WS_SRC:?WS_SRC must name the source directory}"

test_name=$(basename "$0" .sh)
trash="$WS_BUILD/tests/trash-$test_name"
rm -rf "$trash"
mkdir -p "$trash"
cd "$trash" || exit 1

# WS_MEMCHECK=1 (make test-memcheck): whyslow runs under Valgrind's memcheck, through tests/cli/memcheck.sh,
# wherever a test names "$WHYSLOW" or calls whyslow. Valgrind by its path: some tests empty PATH.
if [ "${WS_MEMCHECK:-0}" = 1 ] && [ "${WS_MEMCHECK_BIN:-}" = "" ]; then
	WS_VALGRIND=$(command -v valgrind) || { echo "1..0 # SKIP WS_MEMCHECK=1 needs valgrind"; exit 0; }
	WS_MEMCHECK_BIN=$WHYSLOW
	WHYSLOW=$WS_SRC/tests/cli/memcheck.sh
	export WS_VALGRIND WS_MEMCHECK_BIN WHYSLOW
fi

whyslow() { "$WHYSLOW" "$@"; }

test_count=0
test_failed=0

say() { printf '%s\n' "$*"; }

test_expect_success() {
	test_count=$((test_count + 1))
	if [ -n "${skip_reason:-}" ]; then
		say "ok $test_count - $1 # SKIP $skip_reason"
		skip_reason=
		return 0
	fi
	out="$trash/.out.$test_count"
	if ( eval "$2" ) >"$out" 2>&1; then
		say "ok $test_count - $1"
	else
		test_failed=$((test_failed + 1))
		say "not ok $test_count - $1"
		sed 's/^/#   /' "$out"
		say "#   body:"
		printf '%s\n' "$2" | sed 's/^/#     /'
	fi
}

# Skip the next test_expect_success with a reason (for a missing prerequisite).
test_skip_next() { skip_reason=$1; }

test_expect_code() {
	want=$1
	shift
	"$@"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "test_expect_code: '$*' exited $got, expected $want" >&2
		return 1
	fi
	return 0
}

test_cmp() {
	diff -u "$1" "$2"
}

test_grep() {
	neg=
	if [ "$1" = "-v" ]; then
		neg=1
		shift
	fi
	if [ -n "$neg" ]; then
		if grep -q -e "$1" "$2"; then
			echo "test_grep: '$2' should not match '$1' but does:" >&2
			cat "$2" >&2
			return 1
		fi
	elif ! grep -q -e "$1" "$2"; then
		echo "test_grep: '$2' does not match '$1'; it holds:" >&2
		cat "$2" >&2
		return 1
	fi
	return 0
}

# Lines in a file, for "the command said exactly one line" checks.
test_line_count() {
	n=$(wc -l <"$3")
	if ! [ "$n" "$1" "$2" ]; then
		echo "test_line_count: $3 has $n lines, expected $1 $2:" >&2
		cat "$3" >&2
		return 1
	fi
}

# The variants of a result file (every sample of every metric, region, function and hot instruction) and
# whether it is partial, one key a line: results that must agree to the byte are compared with test_cmp.
test_result_variants() {
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
print(json.dumps([d['variants'], d['partial']], sort_keys=True, indent=1))
" "$1"
}

test_have_prereq() {
	case "$1" in
	VALGRIND) command -v valgrind >/dev/null 2>&1 ;;
	SIM) [ -x "$WS_BUILD/sim/wsim-amd64-linux" ] && command -v valgrind >/dev/null 2>&1 ;;
	PERF_SW) "$WS_BUILD/tests/probe-perf" sw >/dev/null 2>&1 ;;
	PMU) "$WS_BUILD/tests/probe-perf" hw >/dev/null 2>&1 ;;
	*) return 1 ;;
	esac
}

test_skip_all() {
	say "1..0 # SKIP $1"
	exit 0
}

test_done() {
	say "1..$test_count"
	[ "$test_failed" = 0 ]
}
