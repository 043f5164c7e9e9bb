# SPDX-License-Identifier: GPL-2.0-or-later
# stats-power.py - the analysis of bench/stats-power.sh: each method's false-alarm rate and power on the same samples.
#
# usage: python3 bench/stats-power.py DIR SESSIONS RUNS EXTRA METRIC SECONDS
# DIR holds aa-I.json and ab-I.json (whyslow --export-json of A vs A and of A vs A+EXTRA%) and aa-I.load,
# ab-I.load (the 1-minute load average when the session started). Python's standard library only.
#
# The rules, as implemented below (samples x of the baseline A, y of the variant; m mean; s the sample standard
# deviation with n-1, which both peers use):
#
# whyslow: its own verdict from the JSON, computed by whyslow (two-sided Mann-Whitney U on the primary metric at
#   the full alpha, gatekept Holm, the Hodges-Lehmann ratio with its Moses 95% CI, noise threshold 1%). Flagged =
#   `slower` or `faster`; `noise` (significant but the CI overlaps [0.99, 1.01]) is not a flag, and is counted
#   apart. Which estimate the JSON's CI is, is printed (results from a whyslow before it say median-ratio).
#
# whyslow before (recomputed here on the same samples): the same test with the ratio of medians and its
#   percentile-bootstrap 95% CI, the default until the Hodges-Lehmann interval replaced it. Python's own generator
#   and B = 2,000 resamples (whyslow used 10,000 from xoshiro256**): the same method, not the same bits.
#
# poop (andrewrk/poop, src/main.zig, printMeasurement and getStatScore95, read at commit 2cedd08891ae): a
#   pooled-variance two-sample t interval on the difference of means, as a percentage of the baseline mean:
#     d = 100 (m_y - m_x) / m_x,  h = t * sp * sqrt(1/n_x + 1/n_y) * 100 / m_x,
#     sp^2 = ((n_x-1) s_x^2 + (n_y-1) s_y^2) / (n_x + n_y - 2),
#   t the two-sided 95% Student quantile for df = n_x + n_y - 2, taken from a table: exact for df <= 30, the row
#   of floor(df/10)*10 for 30 < df <= 120, 1.96 above. Significant iff the whole interval d +- h lies beyond 1%
#   with one sign: d >= 1 and d - h >= 1 (slower), or d <= -1 and d + h <= -1 (faster). The 1% is fixed.
#   We use the textbook t values; poop's table swaps df 28 and 29 (2.045, 2.048), which does not matter at the
#   default 10 runs (df 18). poop itself runs each command in one block, not interleaved: here only its
#   decision rule is applied, to whyslow's interleaved samples, so the comparison is of rules, not of run orders.
#
# hyperfine (sharkdp/hyperfine, read at commit 327d5f4d9107): it reports mean +- s (src/benchmark/mod.rs, s the
#   sample standard deviation of the `statistical` crate) and a summary "X ran r +- s_r times faster than Y"
#   with r the ratio of means and s_r = r sqrt((s_x/m_x)^2 + (s_y/m_y)^2) (src/benchmark/relative_speed.rs,
#   propagation of uncertainty, covariance assumed 0). It runs no test and states no decision rule, so we apply
#   the one a reader of its output most often applies:
#     main row: the intervals m +- s of the two commands do not overlap (slower iff m_y - s_y > m_x + s_x);
#   and, as other readings of the same tool, on the same samples:
#     the summary's r +- s_r excludes 1 (slower iff m_y > m_x and r - s_r > 1, r = m_y/m_x);
#     scripts/welch_ttest.py in hyperfine's repository: Welch's unequal-variance t-test, difference iff p < 0.05.
#
# Rates come with Wilson score 95% intervals (binomial; good at small counts, never outside [0, 1]).
import json
import math
import os
import random
import statistics
import sys

# Two-sided 95% Student t quantiles, df = 1..30, then df = 40, 50, ..., 120 (textbook values).
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
       2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
       2.045, 2.042]
T95_TENS = {40: 2.021, 50: 2.009, 60: 2.000, 70: 1.994, 80: 1.990, 90: 1.987, 100: 1.984, 110: 1.982,
            120: 1.980}


def t95_poop(df):
    """poop's lookup: the table up to 30, the lower row of tens up to 120, the normal quantile above."""
    if df <= 30:
        return T95[df - 1]
    if df <= 120:
        return T95_TENS.get(df // 10 * 10, T95[29])
    return 1.96


def betainc(a, b, x):
    """Regularized incomplete beta I_x(a, b), by its continued fraction (modified Lentz)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    # the fraction converges fast only for x < (a+1)/(a+b+2); use the symmetry I_x(a,b) = 1 - I_{1-x}(b,a)
    if x > (a + 1) / (a + b + 2):
        return 1.0 - betainc(b, a, 1.0 - x)
    lfront = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    f = d
    for m in range(1, 500):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            f *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return math.exp(lfront) * f / a


def welch_p(x, y):
    """Two-sided p of Welch's t-test, with Welch-Satterthwaite degrees of freedom."""
    vx, vy = statistics.variance(x) / len(x), statistics.variance(y) / len(y)
    diff = statistics.fmean(y) - statistics.fmean(x)
    if vx + vy == 0:
        return 1.0 if diff == 0 else 0.0
    t = diff / math.sqrt(vx + vy)
    df = (vx + vy) ** 2 / (vx * vx / (len(x) - 1) + vy * vy / (len(y) - 1))
    return betainc(df / 2, 0.5, df / (df + t * t))


def rule_whyslow(c):
    return {"slower": 1, "faster": -1}.get(c["verdict"], 0)


def mwu_p(x, y):
    """Two-sided Mann-Whitney p as whyslow computes it: exact without ties (sizes <= 50), else normal with tie and
    continuity correction."""
    m, n = len(x), len(y)
    pooled = sorted([(v, 0) for v in x] + [(v, 1) for v in y])
    r1, tt, i = 0.0, 0.0, 0
    while i < len(pooled):
        j = i
        while j < len(pooled) and pooled[j][0] == pooled[i][0]:
            j += 1
        r1 += sum(1 for k in range(i, j) if pooled[k][1] == 0) * (i + 1 + j) / 2
        tt += (j - i) ** 3 - (j - i)
        i = j
    u1 = r1 - m * (m + 1) / 2
    if tt == 0 and m <= 50 and n <= 50:
        # the null counts of U: coefficients of the Gaussian binomial [m+n choose m]_q
        c = [0] * (m * n + 1)
        c[0] = 1
        for k in range(1, m + 1):
            for t in range(len(c) - 1, n + k - 1, -1):
                c[t] -= c[t - (n + k)]
            for t in range(k, len(c)):
                c[t] += c[t - k]
        total, u = sum(c), int(u1)
        le, ge = sum(c[:u + 1]), sum(c[u:])
        return min(1.0, 2 * min(le, ge) / total)
    N = m + n
    var = m * n / 12 * ((N + 1) - tt / (N * (N - 1)))
    if var <= 0:
        return 1.0
    d = u1 - m * n / 2
    d -= 0.5 * ((d > 0) - (d < 0))
    return min(1.0, math.erfc(abs(d / math.sqrt(var)) / math.sqrt(2)))


def rule_whyslow_before(x, y, rng, B=2000, noise=0.01):
    """The previous default: the test, then the ratio of medians with a percentile-bootstrap CI against +-noise."""
    if mwu_p(x, y) >= 0.05:
        return 0
    mx = statistics.median(x)
    r = sorted(statistics.median(rng.choices(y, k=len(y))) / statistics.median(rng.choices(x, k=len(x)))
               for _ in range(B))
    lo, hi = r[int(0.025 * B)], r[math.ceil(0.975 * B) - 1]
    if lo <= 1 + noise and hi >= 1 - noise:
        return 0
    return 1 if statistics.median(y) > mx else -1


def rule_whyslow_any(c):
    """whyslow's test alone: significant after Holm, whatever the noise threshold says."""
    if c["verdict"] in ("slower", "faster", "noise"):
        return 1 if c["ratio"] > 1 else -1
    return 0


def rule_poop(x, y):
    nx, ny = len(x), len(y)
    mx, my = statistics.fmean(x), statistics.fmean(y)
    sp = math.sqrt(((nx - 1) * statistics.variance(x) + (ny - 1) * statistics.variance(y)) / (nx + ny - 2))
    h = t95_poop(nx + ny - 2) * sp * math.sqrt(1 / nx + 1 / ny) * 100 / mx
    d = (my - mx) * 100 / mx
    if d >= 1 and d - h >= 1:
        return 1
    if d <= -1 and d + h <= -1:
        return -1
    return 0


def rule_hyperfine(x, y):
    mx, my, sx, sy = statistics.fmean(x), statistics.fmean(y), statistics.stdev(x), statistics.stdev(y)
    if my - sy > mx + sx:
        return 1
    if my + sy < mx - sx:
        return -1
    return 0


def rule_hyperfine_ratio(x, y):
    mx, my, sx, sy = statistics.fmean(x), statistics.fmean(y), statistics.stdev(x), statistics.stdev(y)
    r = max(mx, my) / min(mx, my)
    sr = r * math.hypot(sx / mx, sy / my)
    if r - sr > 1:
        return 1 if my > mx else -1
    return 0


def rule_hyperfine_welch(x, y):
    if welch_p(x, y) < 0.05:
        return 1 if statistics.fmean(y) > statistics.fmean(x) else -1
    return 0


def wilson(k, n, z=1.96):
    if n == 0:
        return float("nan"), float("nan")
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(k, n):
    lo, hi = wilson(k, n)
    return f"{k:>3}/{n:<3} {100 * k / n:5.1f}% [{100 * lo:4.1f}, {100 * hi:5.1f}]" if n else "no sessions"


def load_sessions(d, kind, count, metric):
    out, loads, errors = [], [], []
    for i in range(count):
        base = os.path.join(d, f"{kind}-{i}")
        try:
            loads.append(float(open(base + ".load").read().split()[0]))
        except (OSError, ValueError, IndexError):
            pass
        try:
            doc = json.load(open(base + ".json"))
        except (OSError, ValueError):
            try:
                errors.append(open(base + ".json.err").read().strip().splitlines()[-1])
            except (OSError, IndexError):
                errors.append("no result file")
            continue
        v = doc["variants"]
        x, y = v[0]["metrics"][metric]["samples"], v[1]["metrics"][metric]["samples"]
        c = next(c for c in doc["comparisons"] if c["metric"] == metric)
        out.append({"x": x, "y": y, "cmp": c, "machine": doc.get("machine", {})})
    return out, loads, errors


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def main():
    d, sessions, runs, extra, metric, secs = sys.argv[1:7]
    sessions = int(sessions)
    aa, load_aa, err_aa = load_sessions(d, "aa", sessions, metric)
    ab, load_ab, err_ab = load_sessions(d, "ab", sessions, metric)
    loads = load_aa + load_ab
    unit = (aa or ab)[0]["machine"] if (aa or ab) else {}

    print(f"stats-power: {len(aa)} sessions of A vs A and {len(ab)} of A vs A+{extra}%, measured in this run")
    print(f"samples: {metric} from whyslow compare -r {runs} -e {metric} --export-json (default interleaved order, "
          f"1 warm-up), {runs} runs per program per session; every method below reads the same samples")
    print(f"machine: {cpu_model()}, {os.cpu_count()} CPUs, kernel {unit.get('kernel', '?')}; "
          f"load average (1 min) at session starts: min {min(loads):.2f}, median {statistics.median(loads):.2f}, "
          f"max {max(loads):.2f}; {secs} s in all" if loads else "machine: no load average read")
    if err_aa or err_ab:
        print(f"failed sessions: {len(err_aa)} A vs A, {len(err_ab)} A vs A+{extra}% "
              f"(first: {(err_aa + err_ab)[0]})")

    # what the data hold: the effect actually present, and the noise it has to be seen through
    if aa and ab:
        pooled = lambda ss, k: [v for s in ss for v in s[k]]
        r_aa = statistics.median(pooled(aa, "y")) / statistics.median(pooled(aa, "x"))
        r_ab = statistics.median(pooled(ab, "y")) / statistics.median(pooled(ab, "x"))
        cv = statistics.median(statistics.stdev(s["x"]) / statistics.fmean(s["x"]) for s in aa + ab)
        print(f"effect in the data (all sessions pooled, ratio of medians): A'/A {100 * (r_aa - 1):+.2f}%, "
              f"(A+{extra}%)/A {100 * (r_ab - 1):+.2f}%; median within-session CV of A: {100 * cv:.1f}%")
    print()

    rng = random.Random(1)
    estimates = sorted({s["cmp"].get("estimate", "median-ratio") for s in aa + ab})
    rows = [
        (f"whyslow default verdict ({'/'.join(estimates)})", lambda s: rule_whyslow(s["cmp"])),
        ("whyslow before: median ratio, bootstrap", lambda s: rule_whyslow_before(s["x"], s["y"], rng)),
        ("poop: pooled t 95% CI beyond +-1%", lambda s: rule_poop(s["x"], s["y"])),
        ("hyperfine: mean +- sd do not overlap", lambda s: rule_hyperfine(s["x"], s["y"])),
    ]
    other = [
        ("whyslow MWU+Holm alone (incl. noise)", lambda s: rule_whyslow_any(s["cmp"])),
        ("hyperfine: summary r +- s_r excludes 1", lambda s: rule_hyperfine_ratio(s["x"], s["y"])),
        ("hyperfine: scripts/welch_ttest.py", lambda s: rule_hyperfine_welch(s["x"], s["y"])),
    ]
    head = f"{'method':<44} {'false alarms, A vs A':<28} {f'power, A vs A+{extra}% (slower)':<28} {'wrong way':>9}"
    print(head)
    print("-" * len(head))
    for title, group in (("", rows), ("other readings, same samples:", other)):
        if title:
            print(title)
        for name, rule in group:
            fa = sum(1 for s in aa if rule(s) != 0)
            hits = [rule(s) for s in ab]
            print(f"{name:<44} {rate(fa, len(aa)):<28} {rate(hits.count(1), len(ab)):<28} "
                  f"{hits.count(-1):>9}")
    noise = sum(1 for s in ab if s["cmp"]["verdict"] == "noise")
    noise_aa = sum(1 for s in aa if s["cmp"]["verdict"] == "noise")
    print()
    print(f"whyslow said `noise` (significant, but the CI overlaps +-1%): A+{extra}% {rate(noise, len(ab))}; "
          f"A vs A {rate(noise_aa, len(aa))}")
    print("rates: k/n, % and a Wilson 95% interval; 'wrong way': A+" f"{extra}% flagged faster")


if __name__ == "__main__":
    main()
