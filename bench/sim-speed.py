#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# sim-speed.py - how fast whyslow simulates, against cachegrind, on workloads written elsewhere (sim-speed.sh).
"""Usage: BUILD=build bench/sim-speed.sh [ROUNDS] [WORKLOAD...]

Workloads, each a program this project did not write but the mix and the case study:
  mix     examples/micro/workload 2M: hash-table inserts, binary searches, indirect calls (the old benchmark)
  sort    GNU sort on 100000 random lines (coreutils)
  xz      xz -6 on 256 KB of text (this repository's documents and sources)
  python  a Python 3 loop of 150000 iterations (/usr/bin/python3)
  gcc     gcc -O2 -S on lib/core/log.c: the driver and cc1, which spends its time being translated
  r1cs    examples/r1cs-synth, vec, 30000 constraints: it marks regions (the --sim-scope row)

Cases, each timed by GNU time (elapsed, and user + system CPU of the whole process tree):
  cachegrind        valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes, zen4's geometry
  wsim              whyslow stat --backend sim --exact -r 1: whyslow's own work around the simulation counts
  cachegrind+load, wsim+load   the same with a spinning process at nice 0 held to one CPU
  wsim -j 2         whyslow stat --backend sim --sim-runs 2 -j 2: two simulations at once, as throughput
  cachegrind x2     two cachegrinds at once, the same throughput for the peer
  wsim scope        with --sim-scope regions, for workloads with regions

Every round runs every case of every workload in a rotated order (no case always first or always after
the same one). Each ratio is taken within a round, wsim's time over cachegrind's in the same conditions,
and the table gives its median over the rounds with the lowest and highest; the geometric mean is over
the workloads' medians. This machine's speed moves by up to 30% from one run to the next: read the range.
"""
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

BUILD = os.environ.get("BUILD", "build")
SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
W = os.path.join(BUILD, "whyslow")
CG = ["valgrind", "-q", "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes", "--I1=32768,8,64",
      "--D1=32768,8,64", "--LL=33554432,16,64", "--cachegrind-out-file=/dev/null"]
WS = [W, "stat", "--backend", "sim", "--exact", "-r", "1"]


def skip(why):
    print("sim-speed: skipped: " + why)
    sys.exit(0)


def workloads(tmp):
    """name -> (argv, input file or None, has regions)"""
    lines = os.path.join(tmp, "lines")
    with open(lines, "w") as f:
        x = 88172645463325252
        for _ in range(100000):
            x ^= (x << 13) & (2**64 - 1)
            x ^= x >> 7
            x ^= (x << 17) & (2**64 - 1)
            f.write("%d %x\n" % (x % 1000000007, x >> 40))
    text = os.path.join(tmp, "text")
    with open(text, "wb") as f:
        left = 256 * 1024
        for d, _, names in sorted(os.walk(SRC)):
            if "/." in d or "/build" in d or not left:
                continue
            for n in sorted(names):
                if n.endswith((".c", ".h", ".md")) and left:
                    data = open(os.path.join(d, n), "rb").read()[:left]
                    f.write(data)
                    left -= len(data)
    return {
        "mix": ([os.path.join(BUILD, "examples/micro/workload"), "2M"], None, False),
        "sort": (["/usr/bin/sort"], lines, False),
        "xz": (["/usr/bin/xz", "-6", "-c"], text, False),
        "python": (["/usr/bin/python3", "-c", "s = 0\nfor i in range(150000):\n    s += i * i % 7\n"], None, False),
        "gcc": (["/usr/bin/gcc", "-O2", "-S", "-I", os.path.join(SRC, "lib"), "-o", "/dev/null",
                 os.path.join(SRC, "lib/core/log.c")], None, False),
        "r1cs": ([os.path.join(BUILD, "examples/r1cs-synth/r1cs-synth-vec"), "--constraints", "30000"], None, True),
    }


def timed(argv, stdin=None, tmp=None):
    """(elapsed, cpu) of argv under GNU time, output discarded."""
    tf = os.path.join(tmp, "time")
    env = dict(os.environ, VALGRIND_LIB=os.path.join(BUILD, "sim/vglib"))
    with open(stdin or "/dev/null", "rb") as i, open(os.path.join(tmp, "err"), "wb") as e:
        r = subprocess.run(["/usr/bin/time", "-o", tf, "-f", "%e %U %S"] + argv, stdin=i,
                           stdout=subprocess.DEVNULL, stderr=e, env=env)
    if r.returncode:
        sys.stderr.write("sim-speed: a run failed (%d): %s\n%s" % (r.returncode, " ".join(argv),
                                                                   open(os.path.join(tmp, "err")).read()[-2000:]))
        sys.exit(1)
    el, us, sy = open(tf).read().split()[-3:]
    return float(el), float(us) + float(sy)


def case_argv(case, argv, inp, tmp):
    trace = ["--trace-children=yes"] if argv[0].endswith("gcc") else []
    if case in ("cachegrind", "cachegrind+load"):
        return [CG + trace + argv], inp
    if case == "cachegrind x2":
        sh = "(%s) & (%s); wait" % tuple(" ".join(map(shq, CG + trace + argv)) + (" < " + shq(inp) if inp else "")
                                         for _ in range(2))
        return [["sh", "-c", sh]], None
    ws = WS + (["--input", inp] if inp else [])
    if case in ("wsim", "wsim+load"):
        return [ws + ["--"] + argv], None
    if case == "wsim -j 2":
        return [WS[:-3] + ["--sim-runs", "2", "-j", "2"] + (["--input", inp] if inp else []) + ["--"] + argv], None
    if case == "wsim scope":
        return [ws + ["--sim-scope", "regions", "--"] + argv], None
    raise ValueError(case)


def shq(s):
    return "'" + s.replace("'", "'\\''") + "'"


def rotate(k, xs):
    k %= len(xs)
    return xs[k:] + xs[:k]


def main():
    args = sys.argv[1:]
    rounds = int(args.pop(0)) if args and args[0].isdigit() else 5
    for tool in ("valgrind", "/usr/bin/time"):
        if not shutil.which(tool):
            skip("needs %s (Debian packages valgrind, time)" % tool)
    if not os.access(os.path.join(BUILD, "sim/wsim-amd64-linux"), os.X_OK):
        skip("%s/sim/wsim-amd64-linux is not built (run make)" % BUILD)
    cpus = sorted(os.sched_getaffinity(0))
    tmp = tempfile.mkdtemp()
    try:
        wl = workloads(tmp)
        names = [a for a in args if a in wl] or list(wl)
        missing = [n for n in names if not os.access(wl[n][0][0], os.X_OK)]
        if missing:
            skip("not built or not installed: " + ", ".join(wl[n][0][0] for n in missing))
        cases = ["cachegrind", "wsim", "wsim -j 2", "cachegrind x2", "wsim scope", "cachegrind+load", "wsim+load"]
        times = {}  # (workload, case) -> [(elapsed, cpu)] per round
        print("sim-speed: %d rounds over %s; CPUs %s; load %s" % (rounds, " ".join(names), cpus,
                                                                   " ".join(open("/proc/loadavg").read().split()[:3])))
        for r in range(rounds):
            for n in rotate(r, names):
                argv, inp, regions = wl[n]
                quiet = [c for c in rotate(r, cases[:5]) if c != "wsim scope" or regions]
                for c in quiet:
                    for a in case_argv(c, argv, inp, tmp)[0]:
                        times.setdefault((n, c), []).append(timed(a, case_argv(c, argv, inp, tmp)[1], tmp))
                # The competing load: one spinning process at nice 0, held to the last CPU.
                spin = subprocess.Popen(["taskset", "-c", str(cpus[-1]), "nice", "-n", "0", "sh", "-c",
                                         "while :; do :; done"])
                try:
                    for c in rotate(r, cases[5:]):
                        for a in case_argv(c, argv, inp, tmp)[0]:
                            times.setdefault((n, c), []).append(timed(a, case_argv(c, argv, inp, tmp)[1], tmp))
                finally:
                    spin.kill()
                    spin.wait()
            sys.stderr.write("sim-speed: round %d of %d done\n" % (r + 1, rounds))
        report(names, wl, times, rounds)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def ratios(times, n, a, b, i):
    return [x[i] / y[i] for x, y in zip(times[(n, a)], times[(n, b)])]


def fmt(rs):
    return "%.2fx [%.2f-%.2f]" % (statistics.median(rs), min(rs), max(rs))


def report(names, wl, times, rounds):
    rows = [("wsim", "cachegrind", "idle"), ("wsim+load", "cachegrind+load", "loaded")]
    gm = {}
    print()
    print("elapsed and CPU seconds (medians of %d rounds); wsim over cachegrind in the same round: median "
          "[lowest-highest]" % rounds)
    print("%-7s %-7s %13s %13s %26s %26s" % ("load", "program", "cachegrind", "wsim", "elapsed ratio", "CPU ratio"))
    for ws, cg, label in rows:
        for n in names:
            e = ratios(times, n, ws, cg, 0)
            c = ratios(times, n, ws, cg, 1)
            gm.setdefault((label, 0), []).append(statistics.median(e))
            gm.setdefault((label, 1), []).append(statistics.median(c))
            med = lambda k, i: statistics.median(t[i] for t in times[(n, k)])
            print("%-7s %-7s %6.2f/%6.2f %6.2f/%6.2f %26s %26s" % (label, n, med(cg, 0), med(cg, 1), med(ws, 0),
                                                                   med(ws, 1), fmt(e), fmt(c)))
        print("%-7s %-7s %13s %13s %26s %26s" % (label, "geomean", "", "", "%.2fx" % geomean(gm[(label, 0)]),
                                                 "%.2fx" % geomean(gm[(label, 1)])))
    print()
    print("two simulations at once: simulations per minute (elapsed), wsim -j 2 against two cachegrinds at once")
    tp = []
    for n in names:
        w = [120.0 / t[0] for t in times[(n, "wsim -j 2")]]
        c = [120.0 / t[0] for t in times[(n, "cachegrind x2")]]
        r = [a / b for a, b in zip(w, c)]
        tp.append(statistics.median(r))
        print("  %-7s wsim %6.1f/min  cachegrind %6.1f/min  %s" % (n, statistics.median(w), statistics.median(c),
                                                                  fmt(r)))
    print("  geomean %.2fx" % geomean(tp))
    scoped = [n for n in names if wl[n][2]]
    if scoped:
        print()
        print("--sim-scope regions: elapsed and CPU against cachegrind and against wsim whole, same round")
        for n in scoped:
            print("  %-7s vs cachegrind %s elapsed, %s CPU; vs wsim whole %s elapsed" % (
                n, fmt(ratios(times, n, "wsim scope", "cachegrind", 0)),
                fmt(ratios(times, n, "wsim scope", "cachegrind", 1)), fmt(ratios(times, n, "wsim scope", "wsim", 0))))
    print()
    worst = max(max(ratios(times, n, ws, cg, 0)) for ws, cg, _ in rows for n in names)
    worst_med = max(statistics.median(ratios(times, n, ws, cg, 0)) for ws, cg, _ in rows for n in names)
    for label in ("idle", "loaded"):
        g = geomean(gm[(label, 1)])
        print("target: CPU geometric mean <= 0.80x cachegrind, %s: %.2fx, %s" % (label, g, "met" if g <= 0.8 else
                                                                                "NOT met"))
    print("target: elapsed <= 1.00x cachegrind in every row: highest median %.2fx, highest single round %.2fx, %s" %
          (worst_med, worst, "met" if worst_med <= 1.0 else "NOT met"))
    print("load at the end: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


if __name__ == "__main__":
    main()
