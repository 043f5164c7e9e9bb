/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats.c - the statistical method of STATS.md (libm only). */
#include "stats.h"
#include "util.h"

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

uint64_t ws_rng_next(struct ws_rng *r)
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

uint64_t ws_rng_below(struct ws_rng *r, uint64_t n)
{
	/* Lemire's method: the high half of x * n is uniform once the low half clears the bias zone. */
	unsigned __int128 m = (unsigned __int128)ws_rng_next(r) * n;
	uint64_t low = (uint64_t)m;

	if (low < n) {
		uint64_t threshold = -n % n;

		while (low < threshold) {
			m = (unsigned __int128)ws_rng_next(r) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
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

static double *sorted_copy(const double *x, size_t n)
{
	double *s = xmalloc(n * sizeof(*s));

	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

static double median_sorted(const double *s, size_t n)
{
	return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

double ws_median(const double *x, size_t n)
{
	double *s, m;

	if (!n)
		return NAN;
	s = sorted_copy(x, n);
	m = median_sorted(s, n);
	free(s);
	return m;
}

double ws_mad(const double *x, size_t n)
{
	double med, *d, m;

	if (!n)
		return NAN;
	med = ws_median(x, n);
	d = xmalloc(n * sizeof(*d));
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(x[i] - med);
	m = ws_median(d, n);
	free(d);
	return m;
}

int ws_median_ci(const double *x, size_t n, double conf, double *lo, double *hi)
{
	/*
	 * The median lies between order statistics x(j) and x(n+1-j) (1-based) with probability
	 * 1 - 2 P(Bin(n, 1/2) <= j - 1). Take the largest j that keeps the coverage >= conf.
	 */
	double *s, tail = 0.0, coef = 1.0, half_n = pow(0.5, (double)n);
	size_t j = 0;

	*lo = *hi = NAN;
	if (n == 0)
		return -1;
	/* tail accumulates P(Bin <= k); coef is C(n, k). */
	for (size_t k = 0; k < n / 2; k++) {
		tail += coef * half_n;
		if (1.0 - 2.0 * tail < conf)
			break;
		j = k + 1;
		coef = coef * (double)(n - k) / (double)(k + 1);
	}
	if (j == 0)
		return -1;
	s = sorted_copy(x, n);
	*lo = s[j - 1];
	*hi = s[n - j];
	free(s);
	return 0;
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
	med = ws_median(x, n);
	mad = ws_mad(x, n);
	for (size_t i = 0; i < n; i++) {
		bool out = fabs(ws_modified_z(x[i], med, mad)) > 3.5;

		if (flags)
			flags[i] = out;
		count += out;
	}
	return count;
}
