/* SPDX-License-Identifier: GPL-2.0-or-later */
/* derive.c - metrics computed per run from others: rates, IPC, MPKI and level-1 top-down. */
#include "result/derive.h"
#include "result/metrics.h"
#include "core/util.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const struct ws_metric *get(const struct ws_metric_set *s, const char *name)
{
	const struct ws_metric *m = ws_metric_set_find(s, name);

	return m && !(m->flags & WS_M_UNSUPPORTED) && m->n ? m : NULL;
}

static double at(const struct ws_metric *m, size_t i)
{
	return i < m->n ? m->samples[i] : NAN;
}

static bool topdown_inputs(const struct ws_metric_set *s, const char *const *names)
{
	for (int k = 0; k < 4; k++)
		if (!get(s, names[k]))
			return false;
	return true;
}

/*
 * --topdown was asked for (its raw events are in the set) and one of them could not be counted (the kernel
 * refused "slots" under perf_event_paranoid, say): the four metrics are unsupported with that event's
 * reason, where they would otherwise be missing from the result without a word.
 */
static void topdown_unsupported(struct ws_metric_set *s, const char *base_name, const char *const *names)
{
	char *why = NULL;

	for (int k = -1; k < 4 && !why; k++) {
		const struct ws_metric *m = ws_metric_set_find(s, k < 0 ? base_name : names[k]);

		/* A copy: adding a metric below may move the set's array. */
		if (m && (m->flags & WS_M_UNSUPPORTED) && m->reason)
			why = xasprintf("%s: %s", m->name, m->reason);
	}
	for (int k = 0; why && k < 4; k++)
		if (!ws_metric_set_find(s, ws_topdown_metrics[k]))
			ws_metric_set_unsupported(s, ws_topdown_metrics[k], why);
	free(why);
}

/* Level-1 top-down per run, from the raw td-* events (metrics.h), by whichever method's events are there. */
static void topdown_derive(struct ws_metric_set *s)
{
	bool intel = ws_metric_set_find(s, WS_TOPDOWN_SLOTS) != NULL; /* asked for, counted or not */
	const char *const *names = intel ? ws_topdown_intel_inputs : ws_topdown_zen4_inputs;
	const struct ws_metric *base, *in[4];
	struct ws_metric *out[4];
	const char *base_name = intel ? WS_TOPDOWN_SLOTS : WS_TOPDOWN_ZEN4_CYCLES;

	if (!get(s, base_name) || !topdown_inputs(s, names)) {
		topdown_unsupported(s, base_name, names);
		return;
	}
	/* Create the outputs first: creating may move the set's array, so look everything up after. */
	for (int k = 0; k < 4; k++)
		ws_metric_set_get(s, ws_topdown_metrics[k], WS_M_DERIVED);
	base = get(s, intel ? WS_TOPDOWN_SLOTS : WS_TOPDOWN_ZEN4_CYCLES);
	for (int k = 0; k < 4; k++) {
		in[k] = get(s, names[k]);
		out[k] = ws_metric_set_find(s, ws_topdown_metrics[k]);
		out[k]->n = 0;
	}
	for (size_t i = 0; i < base->n; i++) {
		double total = intel ? at(base, i) : WS_TOPDOWN_ZEN4_SLOTS_PER_CYCLE * at(base, i);

		for (int k = 0; k < 4; k++) {
			double v = at(in[k], i);

			/* Zen 4: ops dispatched but never retired were squashed, the bad speculation. */
			if (!intel && k == 1)
				v -= at(in[3], i);
			ws_metric_push(out[k], isfinite(v) && total > 0 ? v / total : NAN, -1);
		}
	}
}

void ws_metric_set_derive(struct ws_metric_set *s)
{
	size_t nd;
	const struct ws_derived *d = ws_derived_all(&nd);

	for (size_t i = 0; i < nd; i++) {
		struct ws_metric *num = ws_metric_set_find(s, d[i].num);
		struct ws_metric *den = ws_metric_set_find(s, d[i].den);
		struct ws_metric *out;
		size_t n;

		if (!num || !den || (num->flags | den->flags) & WS_M_UNSUPPORTED)
			continue;
		/*
		 * A ratio of a simulated count to a measured one would mean nothing; nor one of a count of a
		 * hybrid CPU's P-cores to a count of all its cores (L1d misses over loads read low by the E-cores'
		 * share of the work).
		 */
		if ((num->flags ^ den->flags) & (WS_M_SIMULATED | WS_M_CORE_SUBSET))
			continue;
		n = num->n < den->n ? num->n : den->n;
		if (!n)
			continue;
		out = ws_metric_set_find(s, d[i].name);
		if (out) {
			out->n = 0;
		} else {
			out = ws_metric_set_get(s, d[i].name, WS_M_DERIVED | (num->flags & WS_M_SIMULATED));
			/* ws_metric_set_get may move the array: find the parts again. */
			num = ws_metric_set_find(s, d[i].num);
			den = ws_metric_set_find(s, d[i].den);
		}
		for (size_t k = 0; k < n; k++) {
			double a = num->samples[k], b = den->samples[k];

			ws_metric_push(out, (isnan(a) || isnan(b) || b == 0) ? NAN : d[i].scale * a / b, -1);
		}
	}
	topdown_derive(s);
}

void ws_result_derive(struct ws_result *r)
{
	for (size_t i = 0; i < r->nvariants; i++) {
		struct ws_variant *v = &r->variants[i];

		ws_metric_set_derive(&v->metrics);
		for (size_t j = 0; j < v->regions.n; j++)
			ws_metric_set_derive(&v->regions.v[j].metrics);
		for (size_t j = 0; j < v->functions.n; j++)
			ws_metric_set_derive(&v->functions.v[j].metrics);
	}
}
