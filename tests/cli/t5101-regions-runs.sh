#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t5101-regions-runs.sh - per-run region samples on the perf backend: not counted, counted nothing, padded.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq PERF_SW || test_skip_all "software perf events cannot be opened here"

MARKED="$WS_BUILD/tests/marker/marked"

# A command that does something else on each run, by a counter in a file.
cat >runs.sh <<EOF
n=\$(cat "$PWD/count" 2>/dev/null || echo 0)
echo \$((n + 1)) >"$PWD/count"
case \$n in
0) exec sleep 10 ;;
2) exec "$MARKED" -r ;;
*) exec "$MARKED" ;;
esac
EOF

samples() {
	python3 -c "
import json, sys
reg = json.load(open(sys.argv[1]))['variants'][0]['regions']
print(' '.join(str(x) for x in reg[sys.argv[2]]['metrics'][sys.argv[3]]['samples']))
" "$@"
}

test_expect_success 'a run killed before it wrote its regions is not counted; a region a run missed is 0' '
	whyslow stat -r 4 -w 0 --timeout 1 --ignore-failure --regions -e task-clock --export-json r.json \
		-- sh runs.sh >out &&
	test "$(samples r.json outer entries)" = "None 5 5 5" &&
	test "$(samples r.json rec entries)" = "None 0 3 0" &&
	test "$(samples r.json rec task-clock | cut -d" " -f1,2,4)" = "None 0 0"
'

test_done
