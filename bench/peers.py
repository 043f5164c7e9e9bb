#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# peers.py - bench/peers.sh's driver: whyslow beside every peer, measured in one run, printed as markdown tables.
"""Usage: BUILD=build bench/peers.sh

Five tables, each measured now, whyslow's figure next to the peers' (knobs in the environment):

  harness     RUNS (200) runs of /bin/true and of a 1 ms program (stats-power-work --steps STEPS_1MS) under
              a posix_spawn + wait4 loop (bench/spawn-floor.c, the floor), whyslow stat -e task-clock,
              whyslow stat --backend perf (its default native metrics), whyslow stat (the defaults: here that
              adds one simulated run), hyperfine -N and perf stat -r: REPEAT (11) repetitions, every tool once
              per repetition in a rotated order (whyslow's defaults in the first REPEAT_SIM (3) only); per run:
              elapsed and CPU time (user + system of the whole process tree, the measured program's included),
              medians over the repetitions. The ratio to hyperfine -N is taken within each repetition and its
              median given with its range, and the ratio of the two fastest repetitions beside it.
  statistics  SESSIONS (40) pairs of `whyslow compare -e METRIC` sessions (user-time), A vs A and A vs A+2%, by
              bench/stats-power.sh; the same samples judged by whyslow's verdict, poop's rule and hyperfine's
              readings.
  simulator   the mix workload (examples/micro/workload SIM_N) under cachegrind and callgrind
              (--cache-sim=yes --branch-sim=yes) and whyslow's simulator (without and with --functions),
              SIM_ROUNDS (3) interleaved rounds; medians of the per-round ratios.
  markers     ns per begin/end pair: whyslow's markers (bench/marker-overhead.c) and PAPI's high-level regions
              and LIKWID's marker API (bench/peer-markers.c), or why a peer cannot run here.
  sampling    examples/profile/ratio (a fixed amount of work) plain, under whyslow stat --functions -F FREQ
              and under perf record -F FREQ, SAMPLE_RUNS (5) interleaved rounds; the program times its own work.

A benchmark, not a test: this machine is shared, so nothing here fails on a figure.
"""
import importlib.util
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BUILD = os.path.abspath(os.environ.get("BUILD", "build"))
SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
W = os.path.join(BUILD, "whyslow")
RUNS = int(os.environ.get("RUNS", "200"))
REPEAT = int(os.environ.get("REPEAT", "11"))
# whyslow's defaults add a simulated run (seconds): that row is timed in the first few repetitions only.
REPEAT_SIM = min(REPEAT, int(os.environ.get("REPEAT_SIM", "3")))
STEPS_1MS = os.environ.get("STEPS_1MS", "750000")
SESSIONS = int(os.environ.get("SESSIONS", "40"))
# user-time: wall time's noise on a loaded shared machine leaves every rule without power at 10 runs.
METRIC = os.environ.get("METRIC", "user-time")
SIM_N = os.environ.get("SIM_N", "500000")
SIM_ROUNDS = int(os.environ.get("SIM_ROUNDS", "3"))
FREQ = os.environ.get("FREQ", "4000")
SAMPLE_RUNS = int(os.environ.get("SAMPLE_RUNS", "5"))
SAMPLE_ROUNDS = os.environ.get("SAMPLE_ROUNDS", "4000")
ENV = dict(os.environ, VALGRIND_LIB=os.path.join(BUILD, "sim/vglib"))


def note(msg):
    if sys.stderr.isatty():
        sys.stderr.write("\rpeers: %-70s" % msg[:70])
        sys.stderr.flush()


def timed(argv, ok=(0,), stderr=subprocess.DEVNULL, cwd=None):
    """(elapsed, cpu) of one command: wall clock, and user + system of it and everything it waited for."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr, env=ENV, cwd=cwd)
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode not in ok:
        sys.exit("peers: failed (%d): %s" % (r.returncode, " ".join(argv)))
    return t1 - t0, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def have(cmd, *probe):
    return shutil.which(cmd) and subprocess.run([cmd, *probe], stdout=subprocess.DEVNULL,
                                                stderr=subprocess.DEVNULL).returncode == 0


def rotated(seq, k):
    k %= len(seq)
    return seq[k:] + seq[:k]


def us(s):
    return "%.0f us" % (s * 1e6) if s < 0.01 else "%.2f ms" % (s * 1e3)


def secs(s):
    return "%.3f s" % s


def harness():
    true = shutil.which("true")
    work = os.path.join(BUILD, "bench/stats-power-work")
    progs = [("/bin/true", [true]), ("1 ms program", [work, "--steps", STEPS_1MS])]
    tools = [
        ("floor", "posix_spawn + wait4 loop (floor)", lambda p: [os.path.join(BUILD, "bench/spawn-floor"), str(RUNS)] + p),
        ("ws-tc", "whyslow stat -e task-clock", lambda p: [W, "stat", "-r", str(RUNS), "-w", "0", "-e", "task-clock", "--"] + p),
        ("ws-perf", "whyslow stat --backend perf (default metrics)",
         lambda p: [W, "stat", "--backend", "perf", "-r", str(RUNS), "-w", "0", "--"] + p),
        ("ws-def", "whyslow stat (defaults: + 1 simulated run here)", lambda p: [W, "stat", "-r", str(RUNS), "-w", "0", "--"] + p),
    ]
    if have("hyperfine", "--version"):
        tools.append(("hyperfine", "hyperfine -N", lambda p: ["hyperfine", "-N", "--runs", str(RUNS), "--warmup", "0",
                                                             "--style", "none", " ".join(p)]))
    if have("perf", "stat", "-e", "task-clock", "true"):
        tools.append(("perf", "perf stat -r -e task-clock", lambda p: ["perf", "stat", "-r", str(RUNS), "-e", "task-clock"] + p))
    res = {(t[0], p[0]): [] for t in tools for p in progs}
    for i in range(REPEAT):
        for pname, argv in progs:
            for key, _, mk in rotated(tools, i):
                if key == "ws-def" and i >= REPEAT_SIM:
                    continue
                note("harness: repetition %d/%d, %s, %s" % (i + 1, REPEAT, pname, key))
                res[key, pname].append(timed(mk(argv)))
    print("### Harness cost: %d runs, per run (median of %d interleaved repetitions; %d for whyslow's defaults)" %
          (RUNS, REPEAT, REPEAT_SIM))
    print()
    head = "| tool |"
    for pname, _ in progs:
        head += " %s: elapsed | vs floor | CPU | vs floor |" % pname
    print(head)
    print("|---" * (1 + 4 * len(progs)) + "|")
    med = {k: (statistics.median(e for e, _ in v) / RUNS, statistics.median(c for _, c in v) / RUNS)
           for k, v in res.items()}
    for key, name, _ in tools:
        row = "| %s |" % name
        for pname, _ in progs:
            e, c = med[key, pname]
            fe, fc = med["floor", pname]
            row += " %s | %.2fx | %s | %.2fx |" % (us(e), e / fe, us(c), c / fc)
        print(row)
    print()
    if "hyperfine" in [t[0] for t in tools]:
        for pname, _ in progs:
            parts = []
            for key, name in (("ws-tc", "whyslow stat -e task-clock"), ("ws-perf", "whyslow stat --backend perf")):
                re = sorted(a[0] / b[0] for a, b in zip(res[key, pname], res["hyperfine", pname]))
                rc = sorted(a[1] / b[1] for a, b in zip(res[key, pname], res["hyperfine", pname]))
                best = (min(e for e, _ in res[key, pname]) / min(e for e, _ in res["hyperfine", pname]),
                        min(c for _, c in res[key, pname]) / min(c for _, c in res["hyperfine", pname]))
                parts.append("%s %.2fx elapsed [%.2f, %.2f], %.2fx CPU [%.2f, %.2f]; best against best %.2fx, %.2fx" %
                             (name, statistics.median(re), re[0], re[-1], statistics.median(rc), rc[0], rc[-1], *best))
            print("%s, against hyperfine -N in the same repetition (median [min, max]): %s." % (pname, "; ".join(parts)))
        print()
    print("Elapsed and CPU are of the whole command, start-up and summary included, divided by %d; CPU is user +"
          " system of the process tree, the measured program's own included. whyslow counts task-clock and rusage"
          " in every row; hyperfine -N counts wall time and rusage. The 1 ms program is bench/stats-power-work"
          " --steps %s (%s a run under the floor here)." % (RUNS, STEPS_1MS, us(med["floor", "1 ms program"][0])))
    print()


def load_stats_power():
    spec = importlib.util.spec_from_file_location("stats_power", os.path.join(SRC, "bench/stats-power.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def rate(sp, k, n):
    lo, hi = sp.wilson(k, n)
    return "%d/%d, %.1f%% [%.1f, %.1f]" % (k, n, 100 * k / n, 100 * lo, 100 * hi) if n else "no sessions"


def stats(tmp):
    d = os.path.join(tmp, "stats")
    note("statistics: %d pairs of sessions" % SESSIONS)
    env = dict(ENV, SESSIONS=str(SESSIONS), KEEP=d, RUNS=os.environ.get("RUNS_STATS", "10"), METRIC=METRIC)
    t0 = time.perf_counter()
    r = subprocess.run(["sh", os.path.join(SRC, "bench/stats-power.sh")], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env=env, cwd=SRC)
    el = time.perf_counter() - t0
    if r.returncode:
        print("### Statistics: bench/stats-power.sh failed (%d)\n" % r.returncode)
        return
    sp = load_stats_power()
    metric, extra = METRIC, os.environ.get("EXTRA", "2")
    aa, _, _ = sp.load_sessions(d, "aa", SESSIONS, metric)
    ab, _, _ = sp.load_sessions(d, "ab", SESSIONS, metric)
    print("### Statistics: false alarms and power on the same samples (%d + %d sessions of `whyslow compare -r %s`,"
          " %s)" % (len(aa), len(ab), os.environ.get("RUNS_STATS", "10"), metric))
    print()
    print("| rule | false alarms, A vs A | power, A vs A+%s%% |" % extra)
    print("|---|---|---|")
    rules = [
        ("whyslow: default verdict", lambda s: sp.rule_whyslow(s["cmp"])),
        ("poop: pooled t 95% CI beyond +-1%", lambda s: sp.rule_poop(s["x"], s["y"])),
        ("hyperfine: mean +- sd do not overlap", lambda s: sp.rule_hyperfine(s["x"], s["y"])),
        ("hyperfine: scripts/welch_ttest.py", lambda s: sp.rule_hyperfine_welch(s["x"], s["y"])),
    ]
    for name, rule in rules:
        fa = sum(1 for s in aa if rule(s) != 0)
        pw = sum(1 for s in ab if rule(s) == 1)
        print("| %s | %s | %s |" % (name, rate(sp, fa, len(aa)), rate(sp, pw, len(ab))))
    print()
    print("From bench/stats-power.sh (SESSIONS=%d, %.0f s): k/n, %%, Wilson 95%% interval. bench/stats-power.py"
          " says how each peer's rule is read." % (SESSIONS, el))
    print()


def simulator():
    wl = [os.path.join(BUILD, "examples/micro/workload"), SIM_N]
    if not shutil.which("valgrind") or not os.access(os.path.join(BUILD, "sim/wsim-amd64-linux"), os.X_OK):
        print("### Simulator: skipped: valgrind or the wsim tool is missing\n")
        return
    cases = [
        ("cachegrind", ["valgrind", "-q", "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes",
                        "--cachegrind-out-file=/dev/null"] + wl),
        ("wsim", [W, "stat", "--backend", "sim", "--exact", "-r", "1", "--"] + wl),
        ("callgrind", ["valgrind", "-q", "--tool=callgrind", "--cache-sim=yes", "--branch-sim=yes",
                       "--callgrind-out-file=/dev/null"] + wl),
        ("wsim-fn", [W, "stat", "--backend", "sim", "--exact", "-r", "1", "--functions", "--"] + wl),
    ]
    res = {c: [] for c, _ in cases}
    for i in range(SIM_ROUNDS):
        for c, argv in rotated(cases, i):
            note("simulator: round %d/%d, %s" % (i + 1, SIM_ROUNDS, c))
            res[c].append(timed(argv))
    print("### Simulator: examples/micro/workload %s, %d interleaved rounds (medians)" % (SIM_N, SIM_ROUNDS))
    print()
    print("| counts | peer | elapsed | CPU | whyslow | elapsed | CPU | whyslow / peer (elapsed, CPU) |")
    print("|---|---|---|---|---|---|---|---|")
    for what, peer, peer_cmd, ws, ws_cmd in (
            ("cache and branch totals", "cachegrind", "cachegrind", "wsim", "stat --backend sim --exact -r 1"),
            ("the same, per function", "callgrind", "callgrind", "wsim-fn", "stat --backend sim --exact -r 1 --functions")):
        pe = statistics.median(e for e, _ in res[peer])
        pc = statistics.median(c for _, c in res[peer])
        we = statistics.median(e for e, _ in res[ws])
        wc = statistics.median(c for _, c in res[ws])
        re = statistics.median(a[0] / b[0] for a, b in zip(res[ws], res[peer]))
        rc = statistics.median(a[1] / b[1] for a, b in zip(res[ws], res[peer]))
        print("| %s | %s --cache-sim=yes --branch-sim=yes | %s | %s | whyslow %s | %s | %s | %.2fx, %.2fx |" %
              (what, peer_cmd, secs(pe), secs(pc), ws_cmd, secs(we), secs(wc), re, rc))
    print()
    print("whyslow's figures include its own work around the simulation (start-up, reading the counts, the"
          " report). bench/sim-speed.sh has more workloads, loaded and parallel cases.")
    print()


def markers(tmp):
    note("markers")
    prog = os.path.join(BUILD, "bench/marker-overhead")
    peer = os.path.join(BUILD, "bench/peer-markers")

    def val(out, key):
        for line in out.splitlines():
            f = line.split()
            if f and f[0] == key:
                return f[1]
        return None

    off = subprocess.run([prog], capture_output=True, text=True, env=ENV).stdout
    sw = subprocess.run([prog], capture_output=True, text=True, cwd=tmp,
                        env=dict(ENV, WHYSLOW_MARKERS="perf", WHYSLOW_MARKERS_OUT=tmp,
                                 WHYSLOW_MARKERS_EVENTS="1:0x1:0x0:0x0:0x6:task-clock,1:0x2:0x0:0x0:0x6:page-faults")).stdout
    rows = [("whyslow, outside whyslow (handle form)", val(off, "handle"), ""),
            ("whyslow, outside whyslow (named form)", val(off, "name"), ""),
            ("whyslow, counting task-clock + page-faults (named form)", val(sw, "name"),
             "floor: two read()s of the group, %s ns" % val(sw, "floor-read"))]
    papi = subprocess.run([peer, "papi"], capture_output=True, text=True, cwd=tmp, env=ENV).stdout.strip()
    rows.append(("PAPI 7 high-level regions (PAPI_hl_region_begin/end)",) + verdict(papi))
    if shutil.which("likwid-perfctr"):
        try:
            lk = subprocess.run(["likwid-perfctr", "-C", "0", "-g", "INSTR_RETIRED_ANY:FIXC0", "-m", peer, "likwid"],
                                capture_output=True, text=True, cwd=tmp, env=ENV, timeout=60)
            out = lk.stdout + lk.stderr
            if val(out, "pair"):
                rows.append(("LIKWID 5 marker API (LIKWID_MARKER_START/STOP)", val(out, "pair"), ""))
            else:
                why = "likwid-perfctr cannot count here"
                if "No groups defined for nil" in out or "socket file" in out:
                    why += ": it knows no counters of this CPU model and its access daemon does not start (no PMU, no MSRs)"
                rows.append(("LIKWID 5 marker API (LIKWID_MARKER_START/STOP)", None, why))
        except subprocess.TimeoutExpired:
            rows.append(("LIKWID 5 marker API (LIKWID_MARKER_START/STOP)", None, "likwid-perfctr hung for 60 s"))
    else:
        rows.append(("LIKWID marker API", None, "not installed (Debian: likwid)"))
    print("### Region markers: ns per begin/end pair (best of 101 interleaved 2 ms batches)")
    print()
    print("| markers | ns per pair | note |")
    print("|---|---|---|")
    for name, ns, why in rows:
        print("| %s | %s | %s |" % (name, ns if ns else "n/a", why))
    print()


def verdict(out):
    f = out.split(None, 1)
    if f and f[0] == "pair":
        return f[1], ""
    return None, f[1] if len(f) > 1 else "no output"


def sampling(tmp):
    ratio = os.path.join(BUILD, "examples/profile/ratio")
    prog = [ratio, "-n", SAMPLE_ROUNDS, "-v"]
    ways = [("plain", prog),
            ("whyslow", [W, "stat", "--backend", "perf", "-r", "1", "-w", "0", "-e", "task-clock", "--functions",
                         "-F", FREQ, "--show-output", "--"] + prog)]
    if have("perf", "record", "-q", "-F", FREQ, "-o", "/dev/null", "--", "true"):
        ways.append(("perf", ["perf", "record", "-q", "-F", FREQ, "-o", os.path.join(tmp, "perf.data"), "--"] + prog))
    res = {w: [] for w, _ in ways}
    err = os.path.join(tmp, "sampling.err")
    for i in range(SAMPLE_RUNS + 1):
        for w, argv in rotated(ways, i):
            note("sampling: round %d/%d, %s" % (i + 1, SAMPLE_RUNS + 1, w))
            with open(err, "w") as e:
                el, _ = timed(argv, stderr=e)
            line = [x for x in open(err).read().splitlines() if x.startswith("ratio: ")]
            if not line:
                sys.exit("peers: %s printed no ratio line" % w)
            f = line[-1].split()
            if i:  # the first round warms up
                res[w].append((float(f[4]), float(f[7]), el))
    print("### Sampling: examples/profile/ratio -n %s, %d Hz, %d interleaved rounds (medians; the program times"
          " its own work)" % (SAMPLE_ROUNDS, int(FREQ), SAMPLE_RUNS))
    print()
    print("| way | program's time | slowdown | program's CPU | slowdown | whole command |")
    print("|---|---|---|---|---|---|")
    names = {"plain": "unsampled", "whyslow": "whyslow stat --functions -F %s" % FREQ,
             "perf": "perf record -F %s" % FREQ}
    base = [statistics.median(r[k] for r in res["plain"]) for k in range(3)]
    for w, _ in ways:
        m = [statistics.median(r[k] for r in res[w]) for k in range(3)]
        print("| %s | %s | %.3fx | %s | %.3fx | %s |" % (names[w], secs(m[0]), m[0] / base[0], secs(m[1]),
                                                         m[1] / base[1], secs(m[2])))
    print()


def main():
    for f in (W, os.path.join(BUILD, "bench/spawn-floor"), os.path.join(BUILD, "bench/peer-markers")):
        if not os.access(f, os.X_OK):
            sys.exit("peers: %s is missing; run make first" % f)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    load0 = open("/proc/loadavg").read().split()[:3]
    tmp = tempfile.mkdtemp(prefix="whyslow-peers-")
    try:
        print("## whyslow and its peers, measured in one run of bench/peers.sh")
        print()
        print("Machine: %s, %d CPUs, kernel %s; load average %s at the start." %
              (load_stats_power().cpu_model(), os.cpu_count(), os.uname().release, " ".join(load0)))
        print()
        harness()
        stats(tmp)
        simulator()
        markers(tmp)
        sampling(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    print("bench/peers.sh took %.0f s elapsed, %.0f s CPU; load average %s at the end." %
          (time.perf_counter() - t0, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime),
           " ".join(open("/proc/loadavg").read().split()[:3])))


if __name__ == "__main__":
    main()
