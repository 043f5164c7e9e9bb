#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t8101-functions-runs.sh - per-run function shares: a run without samples of an event has no shares of it.
. "$WS_SRC/tests/cli/lib.sh"

test_have_prereq PERF_SW || test_skip_all "software perf events cannot be opened here"

RATIO="$WS_BUILD/examples/profile/ratio"

# major-faults rarely happen once the program is cached: most runs have no samples of it at all.
test_expect_success '--functions=EVENT: a run without samples of EVENT leaves every share of it uncounted' '
	whyslow stat -r 3 -w 1 -e task-clock --functions=major-faults --export-json f.json -- "$RATIO" >out &&
	python3 - f.json <<-\EOF
	import json, sys
	fns = json.load(open(sys.argv[1]))["variants"][0]["functions"]
	for i in range(3):
	    extra = [f["metrics"]["major-faults-share"]["samples"][i] for f in fns]
	    # either the run sampled the event, and some kept function has a share of it, or none was counted
	    assert all(x is None for x in extra) or (None not in extra and sum(extra) > 0), (i, extra)
	for f in fns:
	    assert len(f["metrics"]["share"]["samples"]) == 3, f
	    assert len(f["metrics"]["major-faults-share"]["samples"]) == 3, f
	    assert all(x is not None for x in f["metrics"]["share"]["samples"]), f
	EOF
'

# -F accepts up to 100000 Hz (or the kernel's limit where raised above it); the kernel lowers its limit
# when sampling interrupts take too long, so a rate between the two is lowered to the kernel's.
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
test "$max" -lt 100000 || test_skip_next "the kernel's sampling limit ($max Hz) is not below -F's own: nothing to lower"
test_expect_success 'a rate above the kernel limit is lowered with one line, not one per run' '
	whyslow stat -r 3 -w 1 -e task-clock --functions -F 100000 -- true >out 2>err &&
	grep "sampling at $max Hz" err >lowered &&
	test_line_count = 1 lowered
'

test_expect_success 'a rate above what -F accepts is a usage error naming the limit' '
	test_expect_code 129 whyslow stat -r 1 -e task-clock --functions -F $((max * 10 + 100000)) -- true 2>err &&
	test_grep "expects whole Hz from 1 to" err
'

test_done
