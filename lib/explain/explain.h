/* SPDX-License-Identifier: GPL-2.0-or-later */
/* explain.h - from counter deltas to a cause, a place and a next step, for each variant. */
#ifndef WS_EXPLAIN_H
#define WS_EXPLAIN_H

#include "result/result.h"

#include <stddef.h>
#include <stdint.h>

/*
 * The model. The cycle delta of a variant against the baseline (measured cycles where a PMU counted them,
 * else the simulator's estimated cycles) is split into:
 *   extra instructions x the baseline's base CPI (its CPI net of the modelled stalls; 1 in the simulator),
 *   extra branch misses x the mispredict penalty,
 *   extra L1d, L1i, L2 and last-level misses x the cycles each adds,
 * and whatever remains is reported as "unexplained", never hidden. Only deltas whose comparison is
 * significant (slower, faster or changed) are blamed. The shares sum to 1, unexplained included. Their CI
 * comes from resampling runs, so a noisy cycle count gives a wide share.
 */

/*
 * Materiality: a cause is blamed only when its cycle delta is at least this share of the measured
 * difference (the headline's relative difference times the baseline's estimated cycles, where the estimate
 * stands in for a native measurement; else the cycle delta). A significant delta can be immaterial.
 */
#define WS_MATERIAL 0.05
/*
 * The model's reach: when the simulated estimate reproduces less than this share of a significant measured
 * difference, the summary says so first and lists the candidates outside the model with their native
 * evidence (waiting, parallelism, CPU work the simulator does not charge, the machine).
 */
#define WS_REACH 0.5

struct ws_explain_opts {
	const struct ws_cost *costs; /* cycles per event from --cost; NULL to choose (simulator or defaults) */
	size_t ncosts;
	/*
	 * Each variant's binary (same order as r->variants; entries and the array may be NULL), for the
	 * asm-diff suggestion when baseline and variant are two builds.
	 */
	char *const *binaries;
	/* --own: patterns of the objects that are the program's own code (NULL-terminated), or NULL for the rule
	 * of explain/own.h */
	char *const *own;
	uint64_t seed;
	size_t resamples;            /* for the share CIs; 0 for 1000 */
};

/*
 * Fill r->explain (replacing any) for every variant but the baseline. Needs ws_compare() first. Returns 0.
 */
int ws_explain(struct ws_result *r, const struct ws_explain_opts *o);

/*
 * The comparison a variant's verdict is about, as in its summary: wall time where measured, else the
 * cycles the explanation decomposes, else CPU time, else instructions. NULL when none has a ratio.
 */
const struct ws_comparison *ws_explain_headline(const struct ws_result *r, const char *variant);

/*
 * The documented default cost table for real hardware, by CPU family guessed from the model name: Zen 4
 * for AMD, Golden Cove for Intel, a generic table otherwise. *family names the table. Static storage.
 */
const struct ws_cost *ws_cost_defaults(const char *cpu, size_t *n, const char **family);

/* Read a cost table from a JSON object {"metric": cycles, ...}. Returns 0 or -errno/-EINVAL. */
int ws_cost_load(const char *path, struct ws_cost **out, size_t *n);
void ws_cost_free(struct ws_cost *c, size_t n);

#endif
