/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli-compare.h - what `compare` and `diff` share: statistics options, rendering, exports, the gate. */
#ifndef WS_CLI_COMPARE_H
#define WS_CLI_COMPARE_H

#include "measure/measure.h"
#include "parse-options.h"
#include "result/result.h"

#include <math.h>
#include <stdbool.h>

struct ws_cost; /* explain.h */

struct cli_compare {
	const char *reference;
	bool paired, fdr;
	double noise;        /* percent */
	double alpha;
	double fail_if_slower; /* percent; NAN when not asked */
	const char *metric;  /* the gate's metric; NULL for the default */
	const char *primary; /* --primary: the metric the verdict and the gate are about; NULL for the default */
	const char *effect;  /* --effect hl|bootstrap; NULL for hl */
	const char *export_json, *export_csv, *export_markdown, *export_html, *export_folded;
	bool regions;
	bool full_names; /* -v: function and program names in full in the tables */
	size_t top;
	bool explain;
	const char *cost;    /* --cost FILE */
	struct ws_cost *costs; /* its table, read by cli_compare_check() */
	size_t ncosts;
	bool measured;           /* compare, not diff: a failed export leaves a rescue copy of the result */
	struct string_list own;  /* --own PATTERN... */
	char **own_patterns;     /* the same, NULL-terminated, or NULL (cli_compare_check()) */
};

#define CLI_COMPARE_INIT { .noise = 1.0, .alpha = 0.05, .fail_if_slower = NAN, .explain = true }

#define CLI_COMPARE_OPTIONS(c)                                                                                  \
	OPT_GROUP("Statistics"),                                                                                \
	OPT_STRING(0, "reference", &(c)->reference, "NAME", "the baseline (default: the first)"),              \
	OPT_BOOL(0, "paired", &(c)->paired, "Wilcoxon signed-rank on per-round log-ratios (cancels drift)"),   \
	OPT_BOOL(0, "fdr", &(c)->fdr, "Benjamini-Hochberg instead of Holm (large sweeps)"),                    \
	OPT_DOUBLE(0, "noise", &(c)->noise, "PCT", "differences inside ±PCT are noise (default 1)"),            \
	OPT_DOUBLE(0, "alpha", &(c)->alpha, "P", "significance level of the whole report (default 0.05)"),      \
	OPT_STRING(0, "primary", &(c)->primary, "METRIC",                                                       \
		   "the metric the verdict is about, tested first (default: cycles with a PMU, else wall-time; "   \
		   "the simulator alone, estimated-cycles)"),                                                   \
	OPT_STRING(0, "effect", &(c)->effect, "hl|bootstrap",                                                  \
		   "the ratio's CI: Hodges-Lehmann (default) or a bootstrap of the medians"),                   \
	OPT_STRING(0, "cost", &(c)->cost, "FILE", "cycles per event for the explanation, JSON {\"metric\": cycles}"), \
	OPT_LIST(0, "own", &(c)->own, "PATTERN", "objects that are the program's own code, a glob over paths (default: its build tree)"), \
	OPT_GROUP("Gating"),                                                                                    \
	OPT_DOUBLE(0, "fail-if-slower", &(c)->fail_if_slower, "PCT", "exit 3 if a variant differs significantly and its estimate is over PCT% worse (the CI need not be)"), \
	OPT_STRING(0, "metric", &(c)->metric, "NAME", "the gate's metric, made the primary (default: the primary)")

#define CLI_COMPARE_EXPORTS(c)                                                                                  \
	OPT_STRING(0, "export-csv", &(c)->export_csv, "FILE", "one row per comparison"),                       \
	OPT_STRING(0, "export-markdown", &(c)->export_markdown, "FILE", "a table to paste into a pull request"), \
	OPT_STRING(0, "export-html", &(c)->export_html, "FILE", "one self-contained HTML page with plots"), \
	OPT_STRING(0, "export-folded", &(c)->export_folded, "FILE", "call stacks for flame graphs (flamegraph.pl, inferno)")

/*
 * Check the statistics options (usage errors exit 129) and read the --cost table (a bad one exits 1), then
 * check that no two export paths, and none of them and the `ninputs` files diff reads (`inputs`), name
 * one file (129), and that `export_json` (kept in c) and the other export paths can be written (one line
 * and exit 1): all before any run, so that a typo never costs a measurement. Release with
 * cli_compare_release().
 */
void cli_compare_check(struct cli_compare *c, const char *export_json, char *const *inputs, int ninputs);
void cli_compare_release(struct cli_compare *c);

/* Choose the baseline: --reference by name, else the first. Usage error if the name is unknown. */
void cli_compare_pick_baseline(struct cli_compare *c, struct ws_result *r);

/*
 * ws_measure_opts.planned for compare: a --primary (or --metric) that no backend of the plan can count is
 * said in one line, and the session ends before its first run, rather than after them all with nothing to
 * judge. `data` is the struct cli_compare.
 */
int cli_compare_planned(const struct ws_result *r, void *data);

/*
 * Compare, explain, print the terminal report, write the exports, apply the gate. Returns the exit
 * status: 0, 1 (an export failed), 3 (the gate tripped).
 */
int cli_compare_finish(struct cli_compare *c, struct ws_result *r, bool functions);

/*
 * What merge checks of the programs it is about to report, once compare has parsed them: exits where they
 * are not the ones planned.
 */
typedef void (*cli_programs_check_fn)(void *data, const struct ws_program *progs, size_t n);

/*
 * `whyslow compare` with its arguments (argv[0] "compare"); with `supply`, its simulated runs are taken from
 * runs made elsewhere (whyslow merge) and --plan-jobs is ignored; `check` (or NULL) is given supply_data
 * and the programs before the first run.
 */
int compare_main(int argc, char **argv, ws_supply_fn supply, void *supply_data, cli_programs_check_fn check);

#endif
