# SPDX-License-Identifier: GPL-2.0-or-later
# hl-reference.py - the reference values of ws_hodges_lehmann() in tests/unit/test-stats.c, computed here
# from the definitions alone, with Python's standard library (no scipy on the machines that build this).
#
# usage: python3 tests/unit/hl-reference.py
#
# The procedure is the one R's wilcox.test(x, y, conf.int = TRUE) documents (Bauer 1972; Hollander & Wolfe,
# Nonparametric Statistical Methods, 2nd ed., section 4.3), for the shift of log(y) against log(x):
#   differences d = log(y[j]) - log(x[i]) over all pairs, sorted; the estimate is their median;
#   exact (no ties, both sizes <= 50): q = the smallest u with P(U <= u) >= alpha/2 under the null (R's
#     qwilcox), the interval is [d(q), d(mn + 1 - q)] (1-based), its coverage 1 - 2 P(U <= q - 1);
#   otherwise: the continuity-corrected normal approximation of U with the tie-corrected variance, as the
#     test uses it, and q the smallest u whose two-sided p is not below alpha.
# Unlike lib/stats/stats.c, the exact null distribution of U is not taken from the Gaussian-binomial recursion:
# it is counted by brute force over every choice of the baseline's ranks (itertools.combinations), in
# exact rational arithmetic (fractions), so the two share no code; likewise W+'s over all 2^n sign patterns
# for --paired, whose interval is Tukey's over the Walsh averages (R: wilcox.test(d, conf.int = TRUE)). R clamps q = 0 to 1; whyslow reports an
# unbounded interval instead (the test cannot reject at alpha with so few runs), and so does this script.
import itertools
import math
from fractions import Fraction


def u_null(m, n):
    """Counts of U = (rank sum of the m baseline values) - m(m+1)/2 over all C(m+n, m) rank sets."""
    counts = [0] * (m * n + 1)
    for ranks in itertools.combinations(range(1, m + n + 1), m):
        counts[sum(ranks) - m * (m + 1) // 2] += 1
    return counts


def tie_term(x, y):
    pooled = sorted(x + y)
    return sum(t ** 3 - t for t in (pooled.count(v) for v in set(pooled)))


def normal_p(u, m, n, tt):
    mu = m * n / 2
    var = m * n / 12 * ((m + n + 1) - tt / ((m + n) * (m + n - 1)))
    d = u - mu
    d -= 0.5 * ((d > 0) - (d < 0))
    z = d / math.sqrt(var)
    return min(1.0, 2 * 0.5 * math.erfc(abs(z) / math.sqrt(2)))


def hodges_lehmann(x, y, alpha=0.05):
    m, n = len(x), len(y)
    d = sorted(math.log(b) - math.log(a) for a in x for b in y)
    N = m * n
    est = d[N // 2] if N % 2 else (d[N // 2 - 1] + d[N // 2]) / 2
    tt = tie_term(x, y)
    exact = tt == 0 and m <= 50 and n <= 50
    if exact:
        c = u_null(m, n)
        total = sum(c)
        q, cum = 0, Fraction(0)
        while True:
            cum += Fraction(c[q], total)
            if cum >= Fraction(alpha).limit_denominator(10 ** 6) / 2:
                break
            q += 1
        coverage = 1 - 2 * (cum - Fraction(c[q], total))
    else:
        q = 0
        while normal_p(q, m, n, tt) < alpha:
            q += 1
        coverage = 1 - normal_p(q - 1, m, n, tt) if q else 1.0
    lo = d[q - 1] if q else -math.inf
    hi = d[N - q] if q else math.inf
    return est, lo, hi, q, float(coverage), exact


def w_null(n):
    """Counts of W+ over all 2^n sign patterns of the ranks 1..n, by brute force."""
    counts = [0] * (n * (n + 1) // 2 + 1)
    for signs in itertools.product((0, 1), repeat=n):
        counts[sum(r for r, s in zip(range(1, n + 1), signs) if s)] += 1
    return counts


def wsr_normal_p(w, n, tt):
    mu = n * (n + 1) / 4
    var = n * (n + 1) * (2 * n + 1) / 24 - tt / 48
    dev = w - mu
    dev -= 0.5 * ((dev > 0) - (dev < 0))
    z = dev / math.sqrt(var)
    return min(1.0, math.erfc(abs(z) / math.sqrt(2)))


def hodges_lehmann_paired(d, alpha=0.05):
    """One-sample HL of d with Tukey's interval (R: wilcox.test(d, conf.int = TRUE)), zeros dropped."""
    d = [v for v in d if v != 0]
    n = len(d)
    walsh = sorted((d[i] + d[j]) / 2 for i in range(n) for j in range(i, n))
    M = len(walsh)
    est = walsh[M // 2] if M % 2 else (walsh[M // 2 - 1] + walsh[M // 2]) / 2
    mags = [abs(v) for v in d]
    tt = sum(t ** 3 - t for t in (mags.count(v) for v in set(mags)))
    exact = tt == 0 and n <= 50
    if exact:
        c = w_null(n)
        q, cum = 0, Fraction(0)
        while True:
            cum += Fraction(c[q], 2 ** n)
            if cum >= Fraction(alpha).limit_denominator(10 ** 6) / 2:
                break
            q += 1
        coverage = 1 - 2 * (cum - Fraction(c[q], 2 ** n))
    else:
        q = 0
        while wsr_normal_p(q, n, tt) < alpha:
            q += 1
        coverage = 1 - wsr_normal_p(q - 1, n, tt) if q else 1.0
    lo = walsh[q - 1] if q else -math.inf
    hi = walsh[M - q] if q else math.inf
    return est, lo, hi, q, float(coverage), exact


def case_paired(name, d):
    est, lo, hi, k, cov, exact = hodges_lehmann_paired(d)
    print(f"/* paired, {name}: {len(d)}, {'exact' if exact else 'normal'} */")
    print(f"shift {est!r}, lo {lo!r}, hi {hi!r}, k {k}, coverage {cov!r}")


def case(name, x, y):
    est, lo, hi, k, cov, exact = hodges_lehmann(x, y)
    print(f"/* {name}: {len(x)} + {len(y)}, {'exact' if exact else 'normal'} */")
    print(f"shift {est!r}, lo {lo!r}, hi {hi!r}, k {k}, coverage {cov!r}")


def fill(n, center, step, skip):
    """Distinct, unsorted values: center * (1 + step * ((i * skip) % n - n / 2))."""
    return [center * (1 + step * ((i * skip) % n - n / 2)) for i in range(n)]


case("the exact MWU reference pair (docs/statistics.md, 12)", [2, 1, 3, 5], [12, 11, 13, 15])
case("ten against ten, +3%", fill(10, 1.0, 0.004, 3), fill(10, 1.03, 0.005, 7))
case("seven against twelve", fill(7, 2.0, 0.01, 3), fill(12, 1.96, 0.006, 5))
case("the tied MWU reference pair (docs/statistics.md, 12)", [10, 11, 11, 12, 13, 13, 13, 15, 16, 18], [12, 13, 14, 14, 15, 16, 17, 17, 19, 20])
case("60 against 70, past the exact tables", fill(60, 1.0, 0.001, 7), fill(70, 1.01, 0.0009, 11))
case("three against three: nothing reachable", [1.0, 1.1, 1.2], [2.0, 2.1, 2.2])
case_paired("twelve log-ratios", [math.log(v) for v in fill(12, 1.02, 0.01, 5)])
case_paired("a zero and ties", [0.0, 0.01, 0.02, -0.01, 0.02, 0.03, 0.01, 0.04, -0.02, 0.05, 0.03])
case_paired("60 log-ratios, past the exact tables", [math.log(v) for v in fill(60, 1.003, 0.0004, 7)])
