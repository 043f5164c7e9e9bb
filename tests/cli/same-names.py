#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# same-names.py - two result files name every symbol they both saw alike (t9100, t9101: perf against sim).
#
#   same-names.py A.json B.json [SYMBOL...]   exits non-zero with the first difference, or a SYMBOL not in both
import json
import sys


def by_symbol(path):
    out = {}
    for f in json.load(open(path))["variants"][0]["functions"]:
        for s in ([f["symbol"]] if "symbol" in f else []) + f.get("symbols", []):
            out[s] = f["name"]
    return out


a, b = by_symbol(sys.argv[1]), by_symbol(sys.argv[2])
both = set(a) & set(b)
for want in sys.argv[3:]:
    assert want in both, "%s not in both: %s / %s" % (want, sorted(a), sorted(b))
for sym in sorted(both):
    assert a[sym] == b[sym], (sym, a[sym], b[sym])
print("%d symbols in both, named alike" % len(both))
