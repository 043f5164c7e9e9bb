/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats.c - the statistical method of docs/statistics.md (libm only). */
#include "stats/stats.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --- Random numbers --- */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void ws_rng_seed(struct ws_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* Inlined into the bootstrap's inner loop, where a call per draw would cost a third of the time. */
static inline uint64_t rng_next(struct ws_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t ws_rng_next(struct ws_rng *r)
{
	return rng_next(r);
}

static inline uint64_t rng_below(struct ws_rng *r, uint64_t n)
{
	/* Lemire's method: the high half of x * n is uniform once the low half clears the bias zone. */
	unsigned __int128 m = (unsigned __int128)rng_next(r) * n;
	uint64_t low = (uint64_t)m;

	if (low < n) {
		uint64_t threshold = -n % n;

		while (low < threshold) {
			m = (unsigned __int128)rng_next(r) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

uint64_t ws_rng_below(struct ws_rng *r, uint64_t n)
{
	return rng_below(r, n);
}

double ws_rng_double(struct ws_rng *r)
{
	return (double)(ws_rng_next(r) >> 11) * 0x1.0p-53;
}

void ws_rng_shuffle(struct ws_rng *r, size_t *v, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)ws_rng_below(r, i);
		size_t t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

/* --- Summaries --- */

void ws_welford_add(struct ws_welford *w, double x)
{
	double d = x - w->mean;

	w->n++;
	w->mean += d / (double)w->n;
	w->m2 += d * (x - w->mean);
}

double ws_welford_stddev(const struct ws_welford *w)
{
	return w->n < 2 ? 0.0 : sqrt(w->m2 / (double)(w->n - 1));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A double's bits as an unsigned key in the same order (negative values flipped whole, others signed). */
static inline uint64_t sort_key(double x)
{
	uint64_t u;

	memcpy(&u, &x, sizeof(u));
	return u & (1ULL << 63) ? ~u : u | (1ULL << 63);
}

static inline double from_key(uint64_t u)
{
	double x;

	u = u & (1ULL << 63) ? u & ~(1ULL << 63) : ~u;
	memcpy(&x, &u, sizeof(x));
	return x;
}

#define RADIX_BITS 11
#define RADIX_BUCKETS (1u << RADIX_BITS)

void ws_sort_doubles(double *v, size_t n)
{
	uint64_t *k, *tmp, *src, *dst;
	size_t *count;

	/*
	 * A least-significant-digit radix sort over the keys, 11 bits a pass, passes where every key has the
	 * same digit skipped: O(n), where qsort's n log n compares through a function pointer made diff of
	 * 10^6 runs take a minute. Small arrays go to qsort, whose setup costs less.
	 */
	if (n < 512) {
		qsort(v, n, sizeof(*v), cmp_double);
		return;
	}
	k = xmalloc(n * sizeof(*k));
	tmp = xmalloc(n * sizeof(*tmp));
	count = xmalloc(RADIX_BUCKETS * sizeof(*count));
	for (size_t i = 0; i < n; i++)
		k[i] = sort_key(v[i]);
	src = k;
	dst = tmp;
	for (unsigned shift = 0; shift < 64; shift += RADIX_BITS) {
		size_t sum = 0;
		uint64_t first = (src[0] >> shift) & (RADIX_BUCKETS - 1);
		bool same = true;

		memset(count, 0, RADIX_BUCKETS * sizeof(*count));
		for (size_t i = 0; i < n; i++) {
			uint64_t d = (src[i] >> shift) & (RADIX_BUCKETS - 1);

			count[d]++;
			same &= d == first;
		}
		if (same)
			continue;
		for (size_t b = 0; b < RADIX_BUCKETS; b++) {
			size_t c = count[b];

			count[b] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & (RADIX_BUCKETS - 1)]++] = src[i];
		{
			uint64_t *t = src;

			src = dst;
			dst = t;
		}
	}
	for (size_t i = 0; i < n; i++)
		v[i] = from_key(src[i]);
	free(count);
	free(tmp);
	free(k);
}

static double *sorted_copy(const double *x, size_t n)
{
	double *s = xmalloc(n * sizeof(*s));

	memcpy(s, x, n * sizeof(*s));
	ws_sort_doubles(s, n);
	return s;
}

static double median_sorted(const double *s, size_t n)
{
	return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* `f`, which reads a sorted sample, of a sorted copy of `x`: NAN for no values. */
static double of_sorted_copy(double (*f)(const double *s, size_t n), const double *x, size_t n)
{
	double *s, m;

	if (!n)
		return NAN;
	s = sorted_copy(x, n);
	m = f(s, n);
	free(s);
	return m;
}

static void select_kth(double *v, size_t lo, size_t hi, size_t k);

double ws_median_sorted(const double *s, size_t n)
{
	return n ? median_sorted(s, n) : NAN;
}

double ws_median(const double *x, size_t n)
{
	return of_sorted_copy(median_sorted, x, n);
}

double ws_mad_sorted(const double *s, size_t n)
{
	double med, *d, m;

	if (!n)
		return NAN;
	med = median_sorted(s, n);
	d = xmalloc(n * sizeof(*d));
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(s[i] - med);
	/* The median of the deviations by selection, in O(n): the upper middle, then the largest below it. */
	select_kth(d, 0, n, n / 2);
	m = d[n / 2];
	if (n % 2 == 0) {
		double below = d[0];

		for (size_t i = 1; i < n / 2; i++)
			if (d[i] > below)
				below = d[i];
		m = 0.5 * (below + m);
	}
	free(d);
	return m;
}

double ws_mad(const double *x, size_t n)
{
	return of_sorted_copy(ws_mad_sorted, x, n);
}

int ws_median_ci_sorted(const double *s, size_t n, double conf, double *lo, double *hi)
{
	/*
	 * The median lies between order statistics x(j) and x(n+1-j) (1-based) with probability
	 * 1 - 2 P(Bin(n, 1/2) <= j - 1). Take the largest j that keeps the coverage >= conf. The binomial
	 * terms C(n, k) / 2^n are carried as logarithms: 2^-n underflows past n = 1074 and C(n, k) overflows.
	 */
	double tail = 0.0, log_term = (double)n * log(0.5);
	size_t j = 0;

	*lo = *hi = NAN;
	if (n == 0)
		return -1;
	/* tail accumulates P(Bin <= k); log_term is log(C(n, k) / 2^n). */
	for (size_t k = 0; k < n / 2; k++) {
		tail += exp(log_term);
		if (1.0 - 2.0 * tail < conf)
			break;
		j = k + 1;
		log_term += log((double)(n - k) / (double)(k + 1));
	}
	if (j == 0)
		return -1;
	*lo = s[j - 1];
	*hi = s[n - j];
	return 0;
}

size_t ws_median_ci_min_n(double conf)
{
	size_t n = 1;

	/* ws_median_ci_sorted()'s test for j = 1, the widest interval [x(1), x(n)]: coverage 1 - 2 / 2^n. */
	while (n < 2000 && 1.0 - 2.0 * exp((double)n * log(0.5)) < conf)
		n++;
	return n;
}

int ws_median_ci(const double *x, size_t n, double conf, double *lo, double *hi)
{
	double *s;
	int ret;

	*lo = *hi = NAN;
	if (n == 0)
		return -1;
	s = sorted_copy(x, n);
	ret = ws_median_ci_sorted(s, n, conf, lo, hi);
	free(s);
	return ret;
}

double ws_modified_z(double x, double median, double mad)
{
	if (mad == 0.0)
		return x == median ? 0.0 : (x > median ? INFINITY : -INFINITY);
	return 0.6745 * (x - median) / mad;
}

size_t ws_outliers(const double *x, size_t n, bool *flags)
{
	double med, mad;
	size_t count = 0;

	if (!n)
		return 0;
	{
		double *s = sorted_copy(x, n);

		med = median_sorted(s, n);
		mad = ws_mad_sorted(s, n);
		free(s);
	}
	for (size_t i = 0; i < n; i++) {
		bool out = fabs(ws_modified_z(x[i], med, mad)) > 3.5;

		if (flags)
			flags[i] = out;
		count += out;
	}
	return count;
}

/* --- Tests --- */

double ws_phi(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

/*
 * The normal approximation's two-sided p of a rank statistic `dev` away from its null mean, with null
 * variance var (> 0), and its z. One function for the tests and for the intervals that invert them
 * (normal_k), so that the two agree to the last bit.
 */
static double normal_p(double dev, double var, bool continuity, double *z)
{
	if (continuity)
		dev -= 0.5 * ((dev > 0) - (dev < 0));
	*z = dev / sqrt(var);
	return fmin(1.0, 2.0 * ws_phi(-fabs(*z)));
}

/*
 * Midranks of the pooled sample: returns R1, the first sample's rank sum, and sets *tie_term to
 * sum(t^3 - t) over the tie groups (0 when there are no ties). Both samples are sorted, then walked
 * together one group of equal values at a time.
 */
static double pooled_rank_sum(const double *x, size_t nx, const double *y, size_t ny, double *tie_term)
{
	double *sx = sorted_copy(x, nx), *sy = sorted_copy(y, ny);
	double r1 = 0.0, tt = 0.0;
	size_t i = 0, j = 0, rank = 0;

	while (i < nx || j < ny) {
		double v = j >= ny || (i < nx && sx[i] < sy[j]) ? sx[i] : sy[j];
		size_t in_x = 0, t;

		while (i < nx && sx[i] == v)
			i++, in_x++;
		t = in_x;
		while (j < ny && sy[j] == v)
			j++, t++;
		/* Ranks rank+1 .. rank+t share their mean. */
		r1 += (double)in_x * 0.5 * (double)(2 * rank + 1 + t);
		tt += (double)t * (double)t * (double)t - (double)t;
		rank += t;
	}
	free(sy);
	free(sx);
	*tie_term = tt;
	return r1;
}

/* The biggest sizes whose exact null distribution we tabulate; C(100, 50) ~ 1e29 fits 128 bits easily. */
#define MWU_EXACT_MAX 50

/*
 * The null counts of U for sizes m and n: c[k] for k = 0..m n, the coefficients of the Gaussian binomial
 * [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i). Multiplying by (1 - q^(n+i)) is a
 * descending pass, dividing by (1 - q^i) an ascending one; the division is exact, so every coefficient
 * past degree i n returns to 0. Returns the array (caller frees): m n + m + n + 1 slots for the passes'
 * headroom, of which c[0..m n] hold the counts.
 */
static __int128 *mwu_counts(size_t m, size_t n)
{
	size_t len = m * n + m + n + 1;
	__int128 *c = xcalloc(len, sizeof(*c));

	c[0] = 1;
	for (size_t i = 1; i <= m; i++) {
		for (size_t k = len - 1; k >= n + i; k--)
			c[k] -= c[k - (n + i)];
		for (size_t k = i; k < len; k++)
			c[k] += c[k - i];
	}
	return c;
}

/*
 * The counts c[0..top] alone, top <= m n: both passes are causal (a coefficient depends only on those of
 * lower degree), so leaving out every degree above top changes none below it, and the work shrinks with
 * it. The Moses interval needs only the lower half (caller frees).
 */
static __int128 *mwu_counts_upto(size_t m, size_t n, size_t top)
{
	__int128 *c = xcalloc(top + 1, sizeof(*c));

	c[0] = 1;
	for (size_t i = 1; i <= m; i++) {
		for (size_t k = top; k >= n + i; k--)
			c[k] -= c[k - (n + i)];
		for (size_t k = i; k <= top; k++)
			c[k] += c[k - i];
	}
	return c;
}

/* Sum of c[0..k] for an integer k in [0, top]. */
static __int128 prefix_sum(const __int128 *c, size_t k)
{
	__int128 s = 0;

	for (size_t i = 0; i <= k; i++)
		s += c[i];
	return s;
}

double ws_mwu_exact_cdf(size_t m, size_t n, double u)
{
	__int128 *c, total, below;
	size_t top = m * n;
	double p;

	if (m > MWU_EXACT_MAX || n > MWU_EXACT_MAX || isnan(u))
		return NAN;
	if (u < 0)
		return 0.0;
	if (u >= (double)top)
		return 1.0;
	c = mwu_counts(m, n);
	total = prefix_sum(c, top);
	below = prefix_sum(c, (size_t)floor(u));
	p = (double)below / (double)total;
	free(c);
	return p;
}

double ws_mwu_min_p(size_t m, size_t n)
{
	/* C(m+n, m) as a product of ratios: exact for the sizes that matter, no overflow before ~1e308. */
	double c = 1.0;
	size_t k = m < n ? m : n, big = m < n ? n : m;

	for (size_t i = 1; i <= k; i++)
		c = c * (double)(big + i) / (double)i;
	return fmin(1.0, 2.0 / c);
}

/* Two-sided exact p of an integer U1 (no ties). */
static double mwu_exact_p(size_t m, size_t n, double u1)
{
	__int128 *c = mwu_counts(m, n), total, le, ge;
	size_t u = (size_t)u1, top = m * n;
	double p;

	total = prefix_sum(c, top);
	le = prefix_sum(c, u);
	ge = total - (u ? prefix_sum(c, u - 1) : 0);
	p = 2.0 * (double)(le < ge ? le : ge) / (double)total;
	free(c);
	return fmin(1.0, p);
}

/* The null mean of U for sizes m and n. */
static double mwu_mean(size_t m, size_t n)
{
	return (double)m * (double)n / 2;
}

/* The null variance of U for sizes m and n with the tie term sum(t^3 - t) of the pooled sample. */
static double mwu_variance(size_t m, size_t n, double tie_term)
{
	double n1 = (double)m, n2 = (double)n, N = n1 + n2;

	return n1 * n2 / 12 * ((N + 1) - tie_term / (N * (N - 1)));
}

static int mann_whitney(const double *x, size_t nx, const double *y, size_t ny, bool continuity,
			bool allow_exact, struct ws_mwu *out)
{
	double n1 = (double)nx, tie_term, var;

	if (!nx || !ny)
		return -1;
	out->u1 = pooled_rank_sum(x, nx, y, ny, &tie_term) - n1 * (n1 + 1) / 2;
	if (allow_exact && nx <= MWU_EXACT_MAX && ny <= MWU_EXACT_MAX && tie_term == 0) {
		out->exact = true;
		out->z = NAN;
		out->p = mwu_exact_p(nx, ny, out->u1);
		return 0;
	}
	out->exact = false;
	var = mwu_variance(nx, ny, tie_term);
	if (!(var > 0)) {
		/* Every value equal (or a single pooled value): no evidence either way. */
		out->z = 0.0;
		out->p = 1.0;
		return 0;
	}
	out->p = normal_p(out->u1 - mwu_mean(nx, ny), var, continuity, &out->z);
	return 0;
}

int ws_mann_whitney(const double *x, size_t nx, const double *y, size_t ny, bool continuity,
		    struct ws_mwu *out)
{
	return mann_whitney(x, nx, y, ny, continuity, true, out);
}

int ws_mann_whitney_normal(const double *x, size_t nx, const double *y, size_t ny, bool continuity,
			   struct ws_mwu *out)
{
	return mann_whitney(x, nx, y, ny, continuity, false, out);
}

static int cmp_abs(const void *a, const void *b)
{
	double x = fabs(*(const double *)a), y = fabs(*(const double *)b);

	return (x > y) - (x < y);
}

/* The signed-rank statistic's exact null: 2^n subsets of {1..n}, counted by sum (n <= 50 fits 64 bits). */
static uint64_t *wsr_counts(size_t n)
{
	size_t top = n * (n + 1) / 2;
	uint64_t *c = xcalloc(top + 1, sizeof(*c));

	c[0] = 1;
	for (size_t i = 1; i <= n; i++)
		for (size_t s = top; s >= i; s--)
			c[s] += c[s - i];
	return c;
}

static double wsr_exact_p(size_t n, double w)
{
	size_t top = n * (n + 1) / 2, k = (size_t)w;
	uint64_t *c = wsr_counts(n), le = 0, ge = 0;

	for (size_t s = 0; s <= top; s++) {
		if (s <= k)
			le += c[s];
		if (s >= k)
			ge += c[s];
	}
	free(c);
	/* 2^n is exact in a double for n <= 50. */
	return fmin(1.0, 2.0 * (double)(le < ge ? le : ge) / ldexp(1.0, (int)n));
}

static double wsr_variance(size_t n, double tie_term)
{
	double nn = (double)n;

	return nn * (nn + 1) * (2 * nn + 1) / 24 - tie_term / 48;
}

/* The null mean of W+ for n nonzero differences. */
static double wsr_mean(size_t n)
{
	double nn = (double)n;

	return nn * (nn + 1) / 4;
}

int ws_wilcoxon_signed_rank(const double *d, size_t n, struct ws_wsr *out)
{
	double *a, tie_term = 0.0, w = 0.0, var;
	size_t m = 0;

	if (!n)
		return -1;
	a = xmalloc(n * sizeof(*a));
	for (size_t i = 0; i < n; i++)
		if (d[i] != 0.0)
			a[m++] = d[i];
	qsort(a, m, sizeof(*a), cmp_abs);
	for (size_t i = 0, j; i < m; i = j) {
		double t, rank;

		for (j = i; j < m && fabs(a[j]) == fabs(a[i]); j++)
			;
		t = (double)(j - i);
		rank = 0.5 * (double)(i + 1 + j);
		for (size_t k = i; k < j; k++)
			if (a[k] > 0)
				w += rank;
		tie_term += t * t * t - t;
	}
	free(a);
	out->w_plus = w;
	if (m == 0) {
		/* Every difference was zero: nothing to test. */
		out->exact = true;
		out->z = NAN;
		out->p = 1.0;
		return 0;
	}
	if (m <= 50 && tie_term == 0) {
		out->exact = true;
		out->z = NAN;
		out->p = wsr_exact_p(m, w);
		return 0;
	}
	out->exact = false;
	var = wsr_variance(m, tie_term);
	if (!(var > 0)) {
		out->z = 0.0;
		out->p = 1.0;
		return 0;
	}
	out->p = normal_p(w - wsr_mean(m), var, true, &out->z);
	return 0;
}

/* --- Effect size --- */

/*
 * A running mean: exact for a constant sample (every update adds 0), so identical constant arms give a
 * ratio of exactly 1 whatever their sizes, where sum / n would not (ten 0.1s sum to 0.9999999999999999).
 */
static double running_mean(const double *x, size_t n)
{
	double m = 0.0;

	for (size_t i = 0; i < n; i++)
		m += (x[i] - m) / (double)(i + 1);
	return m;
}

static double center_of(const double *x, size_t n, enum ws_center c)
{
	return c == WS_CENTER_MEAN ? running_mean(x, n) : ws_median(x, n);
}

/*
 * A sample as the bootstrap needs it: the values as given (resampling draws indices into them) and, for
 * the median, each index's rank in sorted order.
 */
struct boot_side {
	const double *v;
	size_t n;
	double *sorted;
	uint32_t *rank;
};

struct vidx {
	double v;
	uint32_t i;
};

/* By value, ties by position: a total order, so the ranks do not depend on qsort's whims. */
static int cmp_vidx(const void *a, const void *b)
{
	const struct vidx *x = a, *y = b;
	int c = cmp_double(&x->v, &y->v);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

static void boot_side_init(struct boot_side *s, const double *v, size_t n)
{
	struct vidx *order = xmalloc(n * sizeof(*order));

	s->v = v;
	s->n = n;
	s->sorted = xmalloc(n * sizeof(*s->sorted));
	s->rank = xmalloc(n * sizeof(*s->rank));
	for (size_t i = 0; i < n; i++)
		order[i] = (struct vidx){ v[i], (uint32_t)i };
	qsort(order, n, sizeof(*order), cmp_vidx);
	for (size_t k = 0; k < n; k++) {
		s->sorted[k] = order[k].v;
		s->rank[order[k].i] = (uint32_t)k;
	}
	free(order);
}

static void boot_side_release(struct boot_side *s)
{
	free(s->sorted);
	free(s->rank);
}

/*
 * One resample's center. Drawn index i stands for the value v[i] = sorted[rank[i]], so the k-th smallest
 * resampled value is sorted[k-th smallest drawn rank]: counting the drawn ranks finds the median in O(n)
 * without sorting anything, and gives exactly the value a sort of the resample would.
 */
static double resample_center(struct ws_rng *r, const struct boot_side *s, enum ws_center c,
			      uint32_t *count)
{
	size_t n = s->n, lo_rank = (n - 1) / 2, hi_rank = n / 2, seen = 0, i = 0;
	double a, b;

	if (c == WS_CENTER_MEAN) {
		double m = 0.0;

		for (size_t k = 0; k < n; k++)
			m += (s->v[rng_below(r, n)] - m) / (double)(k + 1);
		return m;
	}
	memset(count, 0, n * sizeof(*count));
	for (size_t k = 0; k < n; k++)
		count[s->rank[rng_below(r, n)]]++;
	/* seen counts draws of rank < i; the rank-th smallest draw is rank i once seen + count[i] > rank. */
	while (seen + count[i] <= lo_rank)
		seen += count[i++];
	a = s->sorted[i];
	while (seen + count[i] <= hi_rank)
		seen += count[i++];
	b = s->sorted[i];
	return n % 2 ? a : 0.5 * (a + b);
}

static void swap_d(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

/*
 * Move the k-th smallest of v[lo..hi) to v[k], smaller ones before it and larger after (nth_element).
 * Three-way partitioning keeps it linear on the heavy ties that bootstrap ratios of small samples have;
 * a median-of-three pivot, and qsort as a fallback after too many rounds, bound the worst case.
 */
static void select_kth(double *v, size_t lo, size_t hi, size_t k)
{
	int budget = 64;

	while (hi - lo > 16 && budget-- > 0) {
		size_t mid = lo + (hi - lo) / 2, lt = lo, gt = hi, i = lo;
		double a = v[lo], b = v[mid], c = v[hi - 1], pivot;

		pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		/* v[lo..lt) < pivot, v[lt..i) == pivot, v[gt..hi) > pivot. */
		while (i < gt) {
			if (v[i] < pivot)
				swap_d(&v[lt++], &v[i++]);
			else if (v[i] > pivot)
				swap_d(&v[i], &v[--gt]);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return;
	}
	qsort(v + lo, hi - lo, sizeof(*v), cmp_double);
}

/* floor / ceil of a product that should be an integer but may miss it by rounding (0.975 * 10000). */
#define INDEX_SLACK 1e-7

int ws_bootstrap_ratio(const double *x, size_t nx, const double *y, size_t ny, enum ws_center c,
		       size_t B, uint64_t seed, double conf, double *ratio, double *lo, double *hi)
{
	struct boot_side sx, sy;
	double *r, cx, cy, half;
	uint32_t *count;
	struct ws_rng rng;
	size_t klo, khi;

	*ratio = *lo = *hi = NAN;
	/* Ranks and counts are 32-bit: four billion runs of one program is not a benchmark. */
	if (!nx || !ny || !B || !(conf > 0 && conf < 1) || nx > UINT32_MAX || ny > UINT32_MAX)
		return -1;
	cx = center_of(x, nx, c);
	cy = center_of(y, ny, c);
	if (cx == 0.0)
		return -1;
	*ratio = cy / cx;

	boot_side_init(&sx, x, nx);
	boot_side_init(&sy, y, ny);
	count = xmalloc((nx > ny ? nx : ny) * sizeof(*count));
	r = xmalloc(B * sizeof(*r));
	ws_rng_seed(&rng, seed);
	for (size_t b = 0; b < B; b++) {
		/* The order of draws is part of the contract: x's nx draws, then y's ny, in turn. */
		double bx = resample_center(&rng, &sx, c, count);
		double by = resample_center(&rng, &sy, c, count);

		/* Both centers 0 (a counter that is mostly 0 on both sides) is no change, not NAN. */
		r[b] = bx == 0.0 && by == 0.0 ? 1.0 : by / bx;
	}

	half = (1.0 - conf) / 2;
	klo = (size_t)floor(half * (double)B + INDEX_SLACK);
	khi = (size_t)ceil((1.0 - half) * (double)B - INDEX_SLACK);
	khi = khi ? khi - 1 : 0;
	if (klo >= B)
		klo = B - 1;
	if (khi >= B)
		khi = B - 1;
	if (khi < klo)
		khi = klo;
	select_kth(r, 0, B, klo);
	*lo = r[klo];
	/* Everything after klo is >= r[klo]; select the upper bound among those. */
	if (khi > klo)
		select_kth(r, klo + 1, B, khi);
	*hi = r[khi];

	free(r);
	free(count);
	boot_side_release(&sy);
	boot_side_release(&sx);
	return 0;
}

/* --- Hodges-Lehmann shift of log values, Moses CI --- */

/*
 * An interval's k under the normal approximation, by the test's own arithmetic (normal_p, continuity
 * corrected): the first value in [0, hi] of a statistic with null mean `mean` and variance `var` (> 0) that
 * the two-sided test at level alpha does not reject, found by bisection, as p grows with it up to the mean.
 * *coverage is 1 - p(k - 1) when k > 0.
 */
static size_t normal_k(double mean, double var, size_t hi, double alpha, double *coverage)
{
	size_t lo = 0;
	double z;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (normal_p((double)mid - mean, var, true, &z) < alpha)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo)
		*coverage = 1.0 - normal_p((double)(lo - 1) - mean, var, true, &z);
	return lo;
}

/* Windows that small are finished by gathering them: a sweep of every row costs more than the window. */
#define KTH_GATHER 64

/* Pivots drawn from the windows per round: the pair bracketing the answer is chosen among them. */
#define KTH_SAMPLE 4096

struct kth_rows {
	const double *a, *b;
	size_t m, n;
	bool triangle;
	size_t *lo, *hi;   /* each row's window */
};

static inline size_t kth_first(const struct kth_rows *r, size_t i)
{
	return r->triangle ? r->n - 1 - i : 0;
}

/*
 * Count the entries < p (into lt[i], as a column index) and <= p (le[i]) of every row, in one sweep: the
 * number of row i's entries below p only grows with i (a ascending, and rounding is monotone), so one
 * pointer crosses all rows. Returns the totals in *n_lt and *n_le.
 */
static void kth_count(const struct kth_rows *r, double p, size_t *lt, size_t *le, size_t *n_lt, size_t *n_le)
{
	const double *a = r->a, *b = r->b;
	size_t n = r->n, j = 0, jle = 0;

	*n_lt = *n_le = 0;
	for (size_t i = 0; i < r->m; i++) {
		size_t first = kth_first(r, i);

		/* j counts row i's entries < p, jle those <= p, which are at least as many. */
		while (j < n && b[j] - a[i] < p)
			j++;
		if (jle < j)
			jle = j;
		while (jle < n && b[jle] - a[i] <= p)
			jle++;
		lt[i] = j > first ? j : first;
		le[i] = jle > first ? jle : first;
		*n_lt += lt[i] - first;
		*n_le += le[i] - first;
	}
}

/*
 * The k-th smallest (0-based) of the m n differences b[j] - a[i], a and b sorted ascending, without forming
 * them (after Monahan 1984, ACM TOMS algorithm 616). Row i is b[0] - a[i] <= ... <= b[n-1] - a[i], and
 * keeps a window [lo[i], hi[i]) of the columns that may still hold the answer: those left of it are known
 * to be smaller, those right of it larger. Each round draws KTH_SAMPLE entries uniformly from the windows
 * and takes two of them that should bracket the answer, as Floyd and Rivest's selection does: the ones
 * whose ranks in the sample lie a few standard errors either side of the answer's expected rank. Each is
 * counted against every row in one sweep, and the windows shrink to what lies between them (or past the
 * one that missed): a window shrinks by a factor of about sqrt(KTH_SAMPLE) a round, so that 10^6 values a
 * side take a handful of sweeps of O(m + n), where sorting the differences would take O(m n log(m n)) time
 * and m n memory. The pivots come from a fixed seed, but the answer does not depend on them. With
 * `triangle` (m == n), row i holds only the columns j >= n - 1 - i: with b = d/2 and a[i] = -d[n-1-i]/2
 * these are the Walsh averages (d[i'] + d[j]) / 2, i' <= j, of the signed-rank test's interval (halving is
 * exact, so the sums are those of (d[i'] + d[j]) / 2 to the bit).
 */
static double kth_difference(const double *a, size_t m, const double *b, size_t n, bool triangle, size_t k)
{
	struct kth_rows r = { a, b, m, n, triangle, xmalloc(m * sizeof(size_t)), xmalloc(m * sizeof(size_t)) };
	size_t *lt[2] = { xmalloc(m * sizeof(size_t)), xmalloc(m * sizeof(size_t)) };
	size_t *le[2] = { xmalloc(m * sizeof(size_t)), xmalloc(m * sizeof(size_t)) };
	size_t *start = xmalloc((m + 1) * sizeof(*start)); /* prefix sums of the windows' widths */
	double *sample = xmalloc(KTH_SAMPLE * sizeof(*sample));
	size_t below = 0, active = 0;
	struct ws_rng rng;
	double answer = NAN;

	ws_rng_seed(&rng, 616);
	for (size_t i = 0; i < m; i++) {
		r.lo[i] = kth_first(&r, i);
		r.hi[i] = n;
		active += r.hi[i] - r.lo[i];
	}
	for (;;) {
		size_t want = k - below, ns, pos[2], n_lt[2], n_le[2], i, j;
		double p[2], spread;

		if (active <= KTH_GATHER + m) {
			/* Few candidates left: the answer is the (k - below)-th smallest of them. */
			double *v = xmalloc((active ? active : 1) * sizeof(*v));
			size_t nv = 0;

			for (i = 0; i < m; i++)
				for (j = r.lo[i]; j < r.hi[i]; j++)
					v[nv++] = b[j] - a[i];
			select_kth(v, 0, nv, want);
			answer = v[want];
			free(v);
			break;
		}
		start[0] = 0;
		for (i = 0; i < m; i++)
			start[i + 1] = start[i] + (r.hi[i] - r.lo[i]);
		ns = KTH_SAMPLE;
		for (size_t s = 0; s < ns; s++) {
			size_t pick = rng_below(&rng, active), l = 0, h = m;

			/* The row whose window holds entry `pick`: start[l] <= pick < start[l + 1]. */
			while (h - l > 1) {
				size_t mid = l + (h - l) / 2;

				if (start[mid] <= pick)
					l = mid;
				else
					h = mid;
			}
			sample[s] = b[r.lo[l] + (pick - start[l])] - a[l];
		}
		ws_sort_doubles(sample, ns);
		/* The answer's expected rank in the sample, and three standard errors of it either side. */
		spread = 3.0 * sqrt((double)ns * ((double)want / (double)active) *
				    (1.0 - (double)want / (double)active)) + 1.0;
		{
			double at = (double)want / (double)active * (double)ns;

			pos[0] = at - spread <= 0 ? 0 : (size_t)(at - spread);
			pos[1] = at + spread >= (double)(ns - 1) ? ns - 1 : (size_t)(at + spread);
		}
		for (int t = 0; t < 2; t++) {
			p[t] = sample[pos[t]];
			kth_count(&r, p[t], lt[t], le[t], &n_lt[t], &n_le[t]);
			if (k >= n_lt[t] && k < n_le[t]) {
				answer = p[t];
				goto done;
			}
		}
		/* Drop all >= p[0] when the answer is below it, all <= p[1] when above it; else both sides. */
		below = active = 0;
		for (i = 0; i < m; i++) {
			if (k < n_lt[0]) {
				if (r.hi[i] > lt[0][i])
					r.hi[i] = lt[0][i];
			} else if (k >= n_le[1]) {
				if (r.lo[i] < le[1][i])
					r.lo[i] = le[1][i];
			} else {
				if (r.lo[i] < le[0][i])
					r.lo[i] = le[0][i];
				if (r.hi[i] > lt[1][i])
					r.hi[i] = lt[1][i];
			}
			if (r.hi[i] < r.lo[i])
				r.hi[i] = r.lo[i];
			below += r.lo[i] - kth_first(&r, i);
			active += r.hi[i] - r.lo[i];
		}
	}
done:
	free(sample);
	free(start);
	free(le[1]);
	free(le[0]);
	free(lt[1]);
	free(lt[0]);
	free(r.hi);
	free(r.lo);
	return answer;
}

/*
 * The Moses interval's order statistic (Hollander & Wolfe, Nonparametric Statistical Methods, 2nd ed.,
 * section 4.3): the lower bound is the k-th smallest difference and the upper the (m n + 1 - k)-th, where
 * k - 1 is the largest u that the two-sided test at level alpha rejects as a value of U1: computed by the
 * test's own arithmetic, so that the interval excludes a shift exactly when the test rejects it. Returns
 * 0 when no u is rejected (the interval is unbounded). *coverage is 1 - 2 P(U <= k - 1) under the null
 * distribution used.
 */
static size_t moses_k(size_t m, size_t n, bool exact, double tie_term, double alpha, double *coverage)
{
	size_t k = 0;

	*coverage = 1.0;
	if (exact) {
		/* Only the lower half of the counts: beyond m n / 2 the test never rejects a U1. */
		size_t top = (m * n - 1) / 2;
		__int128 *c = mwu_counts_upto(m, n, top), total = 1, le = 0;

		/* C(m+n, m), each step C(n+i, i) exactly. */
		for (size_t i = 1; i <= m; i++)
			total = total * (__int128)(n + i) / (__int128)i;
		for (size_t u = 0; u <= top; u++) {
			le += c[u];
			if (!(fmin(1.0, 2.0 * (double)le / (double)total) < alpha))
				break;
			k = u + 1;
			*coverage = 1.0 - 2.0 * (double)le / (double)total;
		}
		free(c);
	} else {
		double var = mwu_variance(m, n, tie_term);

		if (!(var > 0))
			return 0;
		k = normal_k(mwu_mean(m, n), var, (m * n + 1) / 2, alpha, coverage);
	}
	return k;
}

static double *sorted_logs(const double *x, size_t n)
{
	double *s = xmalloc(n * sizeof(*s));

	for (size_t i = 0; i < n; i++)
		s[i] = log(x[i]);
	ws_sort_doubles(s, n);
	return s;
}

int ws_hodges_lehmann(const double *x, size_t nx, const double *y, size_t ny, double alpha, struct ws_hl *out)
{
	double *lx, *ly, tie_term;
	size_t N = nx * ny;

	out->shift = out->lo = out->hi = out->coverage = NAN;
	out->k = 0;
	out->exact = false;
	if (!nx || !ny || !(alpha > 0 && alpha < 1) || N / nx != ny)
		return -1;
	for (size_t i = 0; i < nx; i++)
		if (!(x[i] > 0) || !isfinite(x[i]))
			return -1;
	for (size_t i = 0; i < ny; i++)
		if (!(y[i] > 0) || !isfinite(y[i]))
			return -1;
	/* Ties are the test's: in the values as measured, which decide between its exact and normal paths. */
	pooled_rank_sum(x, nx, y, ny, &tie_term);
	lx = sorted_logs(x, nx);
	ly = sorted_logs(y, ny);
	if (N % 2)
		out->shift = kth_difference(lx, nx, ly, ny, false, N / 2);
	else
		out->shift = 0.5 * (kth_difference(lx, nx, ly, ny, false, N / 2 - 1) + kth_difference(lx, nx, ly, ny, false, N / 2));
	out->exact = nx <= MWU_EXACT_MAX && ny <= MWU_EXACT_MAX && tie_term == 0;
	if (lx[0] == lx[nx - 1] && ly[0] == ly[ny - 1] && lx[0] == ly[0]) {
		/* One value throughout: every difference is 0, and so is every order statistic. */
		out->lo = out->hi = 0.0;
		out->k = 1;
		out->coverage = 1.0;
	} else {
		out->k = moses_k(nx, ny, out->exact, tie_term, alpha, &out->coverage);
		out->lo = out->k ? kth_difference(lx, nx, ly, ny, false, out->k - 1) : -INFINITY;
		out->hi = out->k ? kth_difference(lx, nx, ly, ny, false, N - out->k) : INFINITY;
	}
	free(ly);
	free(lx);
	return 0;
}

/*
 * Tukey's interval for the signed-rank test (Hollander & Wolfe, section 3.3): as moses_k(), over the
 * n(n+1)/2 Walsh averages, with the null distribution of W+ and the test's own arithmetic.
 */
static size_t tukey_k(size_t n, bool exact, double tie_term, double alpha, double *coverage)
{
	size_t k = 0, M = n * (n + 1) / 2;

	*coverage = 1.0;
	if (exact) {
		uint64_t *c = wsr_counts(n), le = 0;
		double total = ldexp(1.0, (int)n);

		for (size_t w = 0; 2 * w < M; w++) {
			le += c[w];
			if (!(fmin(1.0, 2.0 * (double)le / total) < alpha))
				break;
			k = w + 1;
			*coverage = 1.0 - 2.0 * (double)le / total;
		}
		free(c);
	} else {
		double var = wsr_variance(n, tie_term);

		if (!(var > 0))
			return 0;
		k = normal_k(wsr_mean(n), var, (M + 1) / 2, alpha, coverage);
	}
	return k;
}

int ws_hodges_lehmann_paired(const double *d, size_t n, double alpha, struct ws_hl *out)
{
	double *s, *a, *b, tie_term = 0.0;
	size_t m = 0, M;

	out->shift = out->lo = out->hi = out->coverage = NAN;
	out->k = 0;
	out->exact = false;
	if (!n || !(alpha > 0 && alpha < 1))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(d[i]))
			return -1;
	/* Zeros are dropped, as the test drops them. */
	s = xmalloc(n * sizeof(*s));
	for (size_t i = 0; i < n; i++)
		if (d[i] != 0.0)
			s[m++] = d[i];
	if (m == 0) {
		free(s);
		out->shift = out->lo = out->hi = 0.0;
		out->k = 1;
		out->coverage = 1.0;
		out->exact = true;
		return 0;
	}
	/* The test's ties: among |d|. */
	qsort(s, m, sizeof(*s), cmp_abs);
	for (size_t i = 0, j; i < m; i = j) {
		for (j = i; j < m && fabs(s[j]) == fabs(s[i]); j++)
			;
		tie_term += (double)(j - i) * (double)(j - i) * (double)(j - i) - (double)(j - i);
	}
	ws_sort_doubles(s, m);
	a = xmalloc(m * sizeof(*a));
	b = xmalloc(m * sizeof(*b));
	for (size_t i = 0; i < m; i++) {
		a[i] = -s[m - 1 - i] / 2;
		b[i] = s[i] / 2;
	}
	M = m * (m + 1) / 2;
	if (M % 2)
		out->shift = kth_difference(a, m, b, m, true, M / 2);
	else
		out->shift = 0.5 * (kth_difference(a, m, b, m, true, M / 2 - 1) + kth_difference(a, m, b, m, true, M / 2));
	out->exact = m <= 50 && tie_term == 0;
	out->k = tukey_k(m, out->exact, tie_term, alpha, &out->coverage);
	out->lo = out->k ? kth_difference(a, m, b, m, true, out->k - 1) : -INFINITY;
	out->hi = out->k ? kth_difference(a, m, b, m, true, M - out->k) : INFINITY;
	free(b);
	free(a);
	free(s);
	return 0;
}

/* --- Multiple comparisons --- */

struct pidx {
	double p;
	size_t i;
};

/* Ascending p, ties by input order, so that the adjustment is a pure function of the input. */
static int cmp_pidx(const void *a, const void *b)
{
	const struct pidx *x = a, *y = b;

	if (x->p != y->p)
		return (x->p > y->p) - (x->p < y->p);
	return (x->i > y->i) - (x->i < y->i);
}

static struct pidx *sorted_p(const double *p, size_t m)
{
	struct pidx *s = xmalloc(m * sizeof(*s));

	for (size_t i = 0; i < m; i++)
		s[i] = (struct pidx){ p[i], i };
	qsort(s, m, sizeof(*s), cmp_pidx);
	return s;
}

void ws_holm(const double *p, size_t m, double *adj)
{
	struct pidx *s;
	double run = 0.0;

	if (!m)
		return;
	s = sorted_p(p, m);
	/* 0-based j: the (j+1)-th smallest is multiplied by m - j; a running max keeps the order. */
	for (size_t j = 0; j < m; j++) {
		run = fmax(run, fmin(1.0, (double)(m - j) * s[j].p));
		adj[s[j].i] = run;
	}
	free(s);
}

void ws_bh(const double *p, size_t m, double *adj)
{
	struct pidx *s;
	double run = 1.0;

	if (!m)
		return;
	s = sorted_p(p, m);
	/* From the largest down: a running min of m p_(j) / j. */
	for (size_t j = m; j-- > 0;) {
		run = fmin(run, fmin(1.0, (double)m * s[j].p / (double)(j + 1)));
		adj[s[j].i] = run;
	}
	free(s);
}

/*
 * The gatekept procedure, Holm mode: the adjusted p of a sequentially rejective weighted-Bonferroni
 * procedure (Bretz et al. 2009, section 2.3). At each step a family in play holds 1/A of alpha, A the
 * families with hypotheses left; its next hypothesis is its primary while that stands, else its smallest-p
 * secondary, weighted 1/(A k), k its secondaries left. The hypothesis with the smallest p / weight goes
 * next; its adjusted p is the running maximum of those ratios. It is rejected at level alpha exactly when
 * that is < alpha, whatever alpha, as the weights do not depend on alpha.
 */
struct gk_family {
	size_t primary;   /* index into p, or SIZE_MAX */
	bool pending;     /* the primary not yet rejected */
	size_t *sec, nsec, next;
};

static bool gk_more(const struct gk_family *f)
{
	return f->primary != SIZE_MAX && (f->pending || f->next < f->nsec);
}

static void gatekeep_holm(const double *p, struct gk_family *f, size_t nfam, double *adj)
{
	size_t left = 0;
	double running = 0.0;

	for (size_t k = 0; k < nfam; k++)
		left += gk_more(&f[k]);
	while (left) {
		size_t best = SIZE_MAX, best_i = SIZE_MAX;
		double best_q = INFINITY;

		for (size_t k = 0; k < nfam; k++) {
			size_t i;
			double q;

			if (!gk_more(&f[k]))
				continue;
			i = f[k].pending ? f[k].primary : f[k].sec[f[k].next];
			q = p[i] * (double)left * (f[k].pending ? 1.0 : (double)(f[k].nsec - f[k].next));
			if (q < best_q || (q == best_q && i < best_i)) {
				best_q = q;
				best = k;
				best_i = i;
			}
		}
		running = fmax(running, fmin(1.0, best_q));
		adj[best_i] = running;
		if (f[best].pending)
			f[best].pending = false;
		else
			f[best].next++;
		left -= !gk_more(&f[best]);
	}
}

/*
 * BH mode: BH across the primaries at alpha; in each family whose primary is significant, BH among its
 * secondaries at alpha R / V (R of the V families in play significant; after Benjamini & Bogomolov 2014),
 * as an adjusted p of min(1, BH's V / R), never below the primary's.
 */
static void gatekeep_bh(const double *p, const struct gk_family *f, size_t nfam, double alpha, double *adj)
{
	double *q = xmalloc((nfam + 1) * sizeof(*q)), *a = xmalloc((nfam + 1) * sizeof(*a));
	size_t m = 0, in_play = 0, opened = 0;

	for (size_t k = 0; k < nfam; k++)
		if (f[k].primary != SIZE_MAX)
			q[m++] = p[f[k].primary];
	ws_bh(q, m, a);
	m = 0;
	for (size_t k = 0; k < nfam; k++) {
		if (f[k].primary == SIZE_MAX)
			continue;
		adj[f[k].primary] = a[m++];
		in_play++;
		opened += adj[f[k].primary] < alpha;
	}
	free(q);
	free(a);
	for (size_t k = 0; k < nfam; k++) {
		double scale = (double)in_play / (double)(opened ? opened : 1);

		if (f[k].primary == SIZE_MAX || !f[k].nsec)
			continue;
		q = xmalloc(f[k].nsec * sizeof(*q));
		a = xmalloc(f[k].nsec * sizeof(*a));
		for (size_t j = 0; j < f[k].nsec; j++)
			q[j] = p[f[k].sec[j]];
		ws_bh(q, f[k].nsec, a);
		for (size_t j = 0; j < f[k].nsec; j++)
			adj[f[k].sec[j]] = fmax(adj[f[k].primary], fmin(1.0, a[j] * scale));
		free(q);
		free(a);
	}
}

void ws_gatekeep(const double *p, const size_t *fam, const bool *primary, size_t m, size_t nfam, bool fdr,
		 double alpha, double *adj, bool *closed)
{
	struct gk_family *f = xcalloc(nfam + 1, sizeof(*f));
	struct pidx *order = sorted_p(p, m);

	for (size_t k = 0; k < nfam; k++) {
		f[k].primary = SIZE_MAX;
		f[k].sec = xmalloc((m + 1) * sizeof(*f[k].sec));
	}
	/* Ascending p (ties by position): each family's secondaries in the order Holm takes them. */
	for (size_t j = 0; j < m; j++) {
		size_t i = order[j].i;

		adj[i] = 1.0;
		if (primary[i] && f[fam[i]].primary == SIZE_MAX) {
			f[fam[i]].primary = i;
			f[fam[i]].pending = true;
		} else {
			f[fam[i]].sec[f[fam[i]].nsec++] = i;
		}
	}
	free(order);
	if (fdr)
		gatekeep_bh(p, f, nfam, alpha, adj);
	else
		gatekeep_holm(p, f, nfam, adj);
	for (size_t i = 0; closed && i < m; i++) {
		const struct gk_family *g = &f[fam[i]];

		closed[i] = i != g->primary && (g->primary == SIZE_MAX || !(adj[g->primary] < alpha));
	}
	for (size_t k = 0; k < nfam; k++)
		free(f[k].sec);
	free(f);
}

/* --- Verdict --- */

enum ws_stat_verdict ws_decide(double p_adjusted, double alpha, double lo, double hi, double noise,
			       bool higher_is_better)
{
	bool up;

	/* NAN p (no test) is never significant. */
	if (!(p_adjusted < alpha))
		return WS_SV_SAME;
	/* Closed intervals: touching the band counts as overlapping it. An unknown CI cannot clear it. */
	if (isnan(lo) || isnan(hi) || (lo <= 1.0 + noise && hi >= 1.0 - noise))
		return WS_SV_NOISE;
	up = lo > 1.0 + noise;
	return up == higher_is_better ? WS_SV_BETTER : WS_SV_WORSE;
}

/*
 * Per-index log-ratio log(y/x) for the paired test. Equal values (zeros included) give 0, which the
 * signed-rank test drops; a zero against a positive value gives an infinite difference, which still has
 * a sign and the top rank. Negative values have no log-ratio: -1.
 */
static int log_ratio(double x, double y, double *d)
{
	if (x == y)
		*d = 0.0;
	else if (x > 0 && y > 0)
		*d = log(y / x);
	else if (x >= 0 && y >= 0)
		*d = x == 0 ? INFINITY : -INFINITY;
	else
		return -1;
	return 0;
}

int ws_cell_test(const double *x, size_t nx, const double *y, size_t ny, bool paired, double *p,
		 bool *exact)
{
	*p = NAN;
	*exact = false;
	if (!nx || !ny)
		return -1;
	if (paired) {
		size_t n = nx < ny ? nx : ny;
		double *d = xmalloc(n * sizeof(*d));
		struct ws_wsr w;
		int ret = 0;

		for (size_t i = 0; i < n && !ret; i++)
			ret = log_ratio(x[i], y[i], &d[i]);
		if (!ret)
			ret = ws_wilcoxon_signed_rank(d, n, &w);
		free(d);
		if (ret)
			return -1;
		*p = w.p;
		*exact = w.exact;
	} else {
		struct ws_mwu u;

		if (ws_mann_whitney(x, nx, y, ny, true, &u))
			return -1;
		*p = u.p;
		*exact = u.exact;
	}
	return 0;
}

int ws_compare_cell(const double *x, size_t nx, const double *y, size_t ny, bool paired, uint64_t seed,
		    struct ws_cell *out)
{
	return ws_compare_cell_effect(x, nx, y, ny, paired, WS_EFFECT_BOOTSTRAP, 0.05, seed, out);
}

/* The Hodges-Lehmann half of ws_compare_cell_effect(): 0, or -1 where there is no log to take. */
static int cell_hl(const double *x, size_t nx, const double *y, size_t ny, bool paired, double alpha,
		   struct ws_cell *out)
{
	struct ws_hl h;
	int ret;

	if (paired) {
		size_t n = nx < ny ? nx : ny;
		double *d = xmalloc(n * sizeof(*d));

		ret = 0;
		for (size_t i = 0; i < n && !ret; i++)
			ret = log_ratio(x[i], y[i], &d[i]);
		if (!ret)
			ret = ws_hodges_lehmann_paired(d, n, alpha, &h);
		free(d);
	} else {
		ret = ws_hodges_lehmann(x, nx, y, ny, alpha, &h);
	}
	if (ret)
		return -1;
	out->ratio = exp(h.shift);
	out->lo = exp(h.lo);
	out->hi = exp(h.hi);
	return 0;
}

/* ws_compare_cell_effect() with the CI at level 1 - alpha. */
static int cell_effect(const double *x, size_t nx, const double *y, size_t ny, bool paired, enum ws_effect effect,
		       double alpha, uint64_t seed, struct ws_cell *out)
{
	out->ratio = out->lo = out->hi = NAN;
	out->effect = effect;
	if (ws_cell_test(x, nx, y, ny, paired, &out->p, &out->exact_test))
		return -1;
	if (effect == WS_EFFECT_HL && cell_hl(x, nx, y, ny, paired, alpha, out) == 0)
		return 0;
	out->effect = WS_EFFECT_BOOTSTRAP;
	if (ws_bootstrap_ratio(x, nx, y, ny, WS_CENTER_MEDIAN, WS_BOOTSTRAP_B, seed, 1.0 - alpha, &out->ratio,
			       &out->lo, &out->hi))
		return -1;
	/*
	 * A side too small for its own median to have a distribution-free CI at this level cannot give the
	 * ratio of two medians one either: resampling two runs only restates them, and at n = 2 the percentiles
	 * cleared 1 beside p = 0.33. The ratio stays; the CI is none, as ws_median_ci() has none below n = 6.
	 */
	if ((nx < ny ? nx : ny) < ws_median_ci_min_n(1.0 - alpha))
		out->lo = out->hi = NAN;
	return 0;
}

int ws_compare_cell_effect(const double *x, size_t nx, const double *y, size_t ny, bool paired,
			   enum ws_effect effect, double alpha, uint64_t seed, struct ws_cell *out)
{
	if (!(alpha > 0 && alpha < 1)) {
		out->ratio = out->lo = out->hi = out->p = NAN;
		out->exact_test = false;
		out->effect = effect;
		return -1;
	}
	return cell_effect(x, nx, y, ny, paired, effect, alpha, seed, out);
}

bool ws_precision_reached(const double *x, size_t nx, const double *y, size_t ny, double target,
			  uint64_t seed)
{
	double ratio, lo, hi;

	if (ws_bootstrap_ratio(x, nx, y, ny, WS_CENTER_MEDIAN, WS_BOOTSTRAP_B, seed, 0.95, &ratio, &lo, &hi))
		return false;
	return ratio > 0 && (hi - lo) / 2 <= target * ratio;
}

size_t ws_sequential_schedule(size_t start, size_t cap, size_t *looks, size_t max)
{
	size_t n = 0, at = start ? start : 1;

	if (cap < at)
		at = cap;
	while (at) {
		if (looks && n < max)
			looks[n] = at;
		n++;
		if (at >= cap)
			break;
		/* Half as many again, at least one round more, never past the budget. */
		at = at + (at + 1) / 2 > cap ? cap : at + (at + 1) / 2;
	}
	return n;
}

enum ws_seq_state ws_sequential_state(const double *x, size_t nx, const double *y, size_t ny, bool paired,
				      enum ws_effect effect, double noise, double alpha_different, double alpha_same,
				      uint64_t seed)
{
	struct ws_cell c;

	if (cell_effect(x, nx, y, ny, paired, effect, alpha_different, seed, &c))
		return WS_SEQ_MORE;
	if (isfinite(c.lo) && isfinite(c.hi) && (c.lo > 1.0 + noise || c.hi < 1.0 - noise))
		return WS_SEQ_DIFFERENT;
	if (alpha_same != alpha_different && cell_effect(x, nx, y, ny, paired, effect, alpha_same, seed, &c))
		return WS_SEQ_MORE;
	return ws_ci_inside_band(c.lo, c.hi, noise) ? WS_SEQ_SAME : WS_SEQ_MORE;
}

bool ws_ci_inside_band(double lo, double hi, double noise)
{
	return isfinite(lo) && isfinite(hi) && lo >= 1.0 - noise && hi <= 1.0 + noise;
}
