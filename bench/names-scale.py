#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# names-scale.py - `whyslow report` (terminal and --html) of results with many function names, against a
# build of another commit (by default 20624e5, the one before names were told apart), in the same invocation.
#
#	bench/names-scale.py [--build DIR] [--against DIR] [--runs N]
#
# Two results, both with an explanation of 17 sentences naming functions: "alike", 2 variants x 5,000
# functions, 800 of them std::vector<...>::_M_realloc_insert<...>(...) instances (look-alikes once shortened);
# "distinct", 2 variants x 20,000 functions, no two alike. Prints the median elapsed and CPU time of each
# way, the builds interleaved, and the ratio of elapsed times.
# --against DIR is a build directory of the other commit (e.g. a worktree of 20624e5 built with meson);
# without it only this build is timed. A benchmark, not a test: nothing here fails on a slow machine.
import argparse, json, os, resource, statistics, subprocess, sys, tempfile, time


def metric(v):
    return {"unit": "count", "samples": [v], "n": 1, "mean": float(v), "median": float(v), "stddev": None,
            "mad": 0.0, "min": float(v), "max": float(v), "ci": [None, None], "outliers": 0, "exact": True,
            "simulated": True}


def names(kind, n):
    out = []
    if kind == "alike":
        types = ["int", "long", "double", "char", "short", "float", "unsigned", "bool"]
        for i in range(800):
            t = "app::record%d<%s>" % (i // 8, types[i % 8])
            out.append("void std::vector<%s, std::allocator<%s> >::_M_realloc_insert<%s const&>"
                       "(__gnu_cxx::__normal_iterator<%s*, std::vector<%s, std::allocator<%s> > >, %s const&)"
                       % (t, t, t, t, t, t, t))
    for i in range(len(out), n):
        out.append("app::module%d::subsystem_with_a_long_name::function_number_%d(std::string const&, int)"
                   % (i % 97, i))
    return out


def result(kind, n):
    fns = names(kind, n)
    variants = []
    for v in range(2):
        rows = [{"name": f, "symbol": f, "object": "/bin/prog",
                 "metrics": {"estimated-cycles": metric(1000 + 7 * i + v * (i % 13)),
                             "instructions": metric(900 + 5 * i)}} for i, f in enumerate(fns)]
        variants.append({"name": "base" if v == 0 else "variant", "command": "/bin/prog %d" % v,
                         "baseline": v == 0, "parameters": {}, "runs": [{"exit_code": 0, "signal": None,
                         "timed_out": False}], "failed_runs": 0,
                         "metrics": {"estimated-cycles": metric(10 ** 7 + v * 10 ** 6),
                                     "instructions": metric(9 * 10 ** 6)},
                         "regions": [], "functions": rows, "hot_code": []})
    def cmp(m, f=None, ratio=1.1):
        c = {"variant": "variant", "baseline": "base", "metric": m, "ratio": ratio, "ci": [ratio, ratio],
             "p": None, "p_adjusted": None, "verdict": "changed", "exact": True, "estimate": "exact",
             "family": None}
        if f:
            c["function"] = f
        return c
    comparisons = [cmp("estimated-cycles"), cmp("instructions", ratio=1.0)]
    comparisons += [cmp("estimated-cycles", f, 1 + (i % 13) / 100) for i, f in enumerate(fns)]
    causes = []
    for k in range(8):
        f, g = fns[k * 3], fns[k * 3 + 1]
        causes.append({"metric": "instructions", "share": 0.1, "share_ci": [0.1, 0.1], "delta_cycles": 1e5,
                       "where": ["%s (60%%)" % f, "%s (30%%)" % g],
                       "next_step": "more instructions in %s: compare its code between the variants" % f,
                       "material": True})
    summary = "'variant' is slower by 10%% in estimated-cycles; mostly in %s (60%%)" % fns[0]
    return {"schema": "whyslow/1", "machine": {"cpu": "x", "kernel": "x", "hostname": "x", "ncpus": 1,
            "pmu": False, "backend": "sim"},
            "settings": {"runs": 1, "warmup": 0, "primary": "estimated-cycles", "events": ["instructions"]},
            "partial": False, "warnings": [], "variants": variants, "comparisons": comparisons,
            "explain": [{"variant": "variant", "summary": summary, "causes": causes}]}


def timed(cmd):
    """Elapsed and CPU seconds (the child's user + system, from its rusage) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    s = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - s
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode:
        sys.exit("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.decode()[-300:]))
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--against", default=None)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", default=None, help="write the two results into this folder")
    a = ap.parse_args()
    d = a.keep or tempfile.mkdtemp()
    files = {}
    for kind, n in (("alike", 5000), ("distinct", 20000)):
        files[kind] = os.path.join(d, kind + ".json")
        json.dump(result(kind, n), open(files[kind], "w"))
    builds = [("this", a.build)] + ([("against", a.against)] if a.against else [])
    for kind, f in files.items():
        for html in (False, True):
            line = "%-8s %-8s" % (kind, "--html" if html else "text")
            got = {label: [] for label, _ in builds}
            # Interleaved, so that the machine's drift falls on both builds alike.
            for _ in range(a.runs):
                for label, b in builds:
                    cmd = [os.path.join(b, "src", "whyslow"), "report"] + (["--html"] if html else []) + [f]
                    got[label].append(timed(cmd))
            for label, _ in builds:
                line += "  %s %.3f s elapsed, %.3f s CPU" % (label, statistics.median(w for w, _ in got[label]),
                                                               statistics.median(c for _, c in got[label]))
            if a.against:
                line += "  (%.2fx elapsed)" % (statistics.median(w for w, _ in got["this"]) /
                                               statistics.median(w for w, _ in got["against"]))
            print(line, flush=True)


main()
