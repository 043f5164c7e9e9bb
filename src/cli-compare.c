/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli-compare.c - shared tail of compare and diff: statistics, report, exports and the --fail-if-slower gate. */
#include "cli-compare.h"
#include "builtin.h"
#include "cli-measure.h"
#include "compare/compare.h"
#include "core/log.h"
#include "core/util.h"
#include "explain/explain.h"
#include "report/report.h"
#include "result/metrics.h"
#include "result/result-json.h"

#include <math.h>
#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

/* No two exports into one file, and none over an input of diff: one would replace the other. */
static void check_distinct(const struct cli_compare *c, char *const *inputs, int ninputs)
{
	const char *opt[] = { "--export-json", "--export-csv", "--export-markdown", "--export-html", "--export-folded" };
	const char *path[] = { c->export_json, c->export_csv, c->export_markdown, c->export_html, c->export_folded };

	for (size_t i = 0; i < ARRAY_SIZE(path); i++) {
		if (!path[i])
			continue;
		for (size_t j = i + 1; j < ARRAY_SIZE(path); j++)
			cli_check_distinct(opt[i], path[i], opt[j], path[j]);
		/* An input "-" is stdin and an export "-" stdout: those never meet. */
		for (int k = 0; k < ninputs; k++)
			if (strcmp(inputs[k], "-") && ws_same_file(path[i], inputs[k]))
				usage_error("%s '%s' is a result being read: writing it would replace that result", opt[i],
					    path[i]);
	}
}

void cli_compare_check(struct cli_compare *c, const char *export_json, char *const *inputs, int ninputs)
{
	if (!(c->noise >= 0 && c->noise < 100))
		usage_error("--noise expects a percentage between 0 and 100, not %g", c->noise);
	if (!(c->alpha > 0 && c->alpha < 1))
		usage_error("--alpha expects a probability between 0 and 1, not %g", c->alpha);
	if (!isnan(c->fail_if_slower) && !(c->fail_if_slower >= 0))
		usage_error("--fail-if-slower expects a percentage >= 0, not %g", c->fail_if_slower);
	if (c->metric && isnan(c->fail_if_slower))
		usage_error("--metric chooses the metric of --fail-if-slower; give that too");
	/* The gate judges the primary: a gated metric tested behind another would read `same` unseen. */
	if (c->metric && c->primary && strcmp(c->metric, c->primary))
		usage_error("--metric %s and --primary %s: the gate judges the primary; give one of them", c->metric,
			    c->primary);
	if (c->metric)
		c->primary = c->metric;
	if (c->effect && strcmp(c->effect, "hl") && strcmp(c->effect, "bootstrap"))
		usage_error("--effect expects hl or bootstrap, not '%s'", c->effect);
	/* A bad file, like any input that is not an option's syntax: status 1, before any run. */
	if (c->cost && ws_cost_load(c->cost, &c->costs, &c->ncosts) < 0)
		exit(WS_EXIT_FAIL);
	c->export_json = cli_stdout_alias(export_json);
	c->export_csv = cli_stdout_alias(c->export_csv);
	c->export_markdown = cli_stdout_alias(c->export_markdown);
	c->export_html = cli_stdout_alias(c->export_html);
	c->export_folded = cli_stdout_alias(c->export_folded);
	check_distinct(c, inputs, ninputs);
	cli_check_output("--export-json", c->export_json);
	cli_check_output("--export-csv", c->export_csv);
	cli_check_output("--export-markdown", c->export_markdown);
	cli_check_output("--export-html", c->export_html);
	cli_check_output("--export-folded", c->export_folded);
	if (c->own.n) {
		c->own_patterns = xcalloc(c->own.n + 1, sizeof(*c->own_patterns));
		for (size_t i = 0; i < c->own.n; i++)
			c->own_patterns[i] = (char *)c->own.v[i];
	}
}

void cli_compare_release(struct cli_compare *c)
{
	ws_cost_free(c->costs, c->ncosts);
	c->costs = NULL;
	c->ncosts = 0;
	free(c->own_patterns);
	c->own_patterns = NULL;
	string_list_clear(&c->own);
}

/*
 * Each variant's binary: the first word of its command, found in PATH, as an absolute path; NULL where it
 * cannot be found (a shell command, a file since removed). NULL-padded array the caller frees.
 */
static char **resolve_binaries(const struct ws_result *r)
{
	char **bins = xcalloc(r->nvariants + 1, sizeof(*bins));

	for (size_t i = 0; i < r->nvariants; i++) {
		char **argv = r->variants[i].command ? cli_split_command(r->variants[i].command) : NULL;
		char *found = argv ? ws_find_in_path(argv[0]) : NULL;
		char *path = found ? realpath(found, NULL) : NULL;

		free(found);
		bins[i] = path;
		cli_free_argv(argv);
	}
	return bins;
}

static void free_binaries(char **b, size_t n)
{
	if (!b)
		return;
	for (size_t i = 0; i < n; i++)
		free(b[i]);
	free(b);
}

void cli_compare_pick_baseline(struct cli_compare *c, struct ws_result *r)
{
	struct ws_variant *b = NULL;

	if (c->reference) {
		b = ws_result_find_variant(r, c->reference);
		if (!b)
			usage_error("--reference '%s' names no program (names: %s%s)", c->reference,
				    r->variants[0].name, r->nvariants > 1 ? ", ..." : "");
	}
	for (size_t i = 0; i < r->nvariants; i++)
		r->variants[i].baseline = b ? &r->variants[i] == b : i == 0;
}

/*
 * Decimals for the gate's message: one, or as many as it takes for `worse_pct` not to print as the limit it
 * exceeds or below it (+0.02% against a 0.01% gate must not read "worse by 0.0%, more than the 0.01%").
 */
static int gate_decimals(double worse_pct, double limit_pct)
{
	char buf[64];
	int d;

	for (d = 1; d < 6; d++) {
		snprintf(buf, sizeof(buf), "%.*f", d, worse_pct);
		if (strtod(buf, NULL) > limit_pct)
			break;
	}
	return d;
}

static int gate(const struct cli_compare *c, struct ws_result *r, const struct ws_compare_opts *co)
{
	/* The primary, tested at the full alpha: --metric made it so, else the default one. */
	const char *metric = r->settings.primary ? r->settings.primary : "wall-time";
	const struct ws_variant *b = ws_result_baseline((struct ws_result *)r);
	bool found = false, tripped = false;

	bool higher = ws_metric_better(metric) == WS_HIGHER_BETTER, untested = false, missing = false;

	for (size_t i = 0; i < r->nvariants; i++) {
		const struct ws_variant *v = &r->variants[i];
		const struct ws_comparison *cmp;
		double worse;

		if (v == b)
			continue;
		cmp = ws_comparison_find(r, v->name, metric, NULL, NULL);
		if (!cmp) {
			/* Said below, once we know whether any variant had it: a variant without it is not a pass. */
			missing = true;
			continue;
		}
		found = true;
		if (cmp->verdict == WS_VERDICT_NONE || !ws_comparison_reachable(r, cmp, co)) {
			/* A gate that could not look must not pass silently: nor one whose test could not say. */
			fprintf(stderr, "%s: cannot gate '%s' on %s: too few runs to compare (-r)\n", current_command(),
				v->name, metric);
			untested = true;
			continue;
		}
		/* How much worse, as a ratio above 1, whichever way this metric is worse. */
		worse = higher ? (cmp->ratio > 0 ? 1 / cmp->ratio : INFINITY) : cmp->ratio;
		/*
		 * `noise` is significant too, its CI reaching into the noise band: +5.6% [+0.8, +10.3] against a
		 * band of 1% is no reason to let a 2% gate pass.
		 */
		if ((cmp->verdict == WS_VERDICT_SLOWER ||
		     ((cmp->verdict == WS_VERDICT_CHANGED || cmp->verdict == WS_VERDICT_NOISE) && worse > 1)) &&
		    worse > 1 + c->fail_if_slower / 100) {
			int d = gate_decimals(100 * (worse - 1), c->fail_if_slower);

			fprintf(stderr, "%s: '%s' is worse than '%s' by %.*f%% in %s (%+.*f%%), more than the %g%% allowed\n",
				current_command(), v->name, b->name, d, 100 * (worse - 1), metric, d,
				100 * (cmp->ratio - 1), c->fail_if_slower);
			tripped = true;
		}
	}
	/*
	 * One of several variants without a comparison of the metric (it did not measure it) could not be
	 * gated: name it and fail as "could not compare", as for too few runs, unless another one tripped.
	 */
	if (found && missing) {
		for (size_t i = 0; i < r->nvariants; i++) {
			const struct ws_variant *v = &r->variants[i];

			if (v != b && !ws_comparison_find(r, v->name, metric, NULL, NULL))
				fprintf(stderr, "%s: cannot gate '%s' on %s: it has no %s to compare (not measured for "
					"it); pick a metric every program has with --metric\n",
					current_command(), v->name, metric, metric);
		}
		untested = true;
	}
	if (untested && !tripped)
		return WS_EXIT_FAIL;
	if (!found) {
		fprintf(stderr, "%s: --fail-if-slower: no comparison of metric '%s' (not measured?); pick one with "
			"--metric\n",
			current_command(), metric);
		return WS_EXIT_FAIL;
	}
	return tripped ? WS_EXIT_GATE : WS_EXIT_OK;
}

int cli_compare_planned(const struct ws_result *r, void *data)
{
	const struct cli_compare *c = data;
	const struct ws_variant *b = NULL;
	const struct ws_metric *m;

	for (size_t i = 0; i < r->nvariants && !b; i++)
		if (r->variants[i].baseline)
			b = &r->variants[i];
	m = c->primary && b ? ws_metric_set_find(&b->metrics, c->primary) : NULL;
	/* A ratio is derived after the runs (ipc): it cannot be where one of its parts cannot. */
	if (!m && c->primary && b) {
		size_t nd;
		const struct ws_derived *d = ws_derived_all(&nd);

		for (size_t i = 0; i < nd && !m; i++) {
			const struct ws_metric *num, *den;

			if (strcmp(d[i].name, c->primary))
				continue;
			num = ws_metric_set_find(&b->metrics, d[i].num);
			den = ws_metric_set_find(&b->metrics, d[i].den);
			m = num && (num->flags & WS_M_UNSUPPORTED)   ? num
			    : den && (den->flags & WS_M_UNSUPPORTED) ? den
								     : NULL;
		}
	}
	/* Else a metric not there yet is one the runs may still give: cli_compare_finish() tells. */
	if (!m || !(m->flags & WS_M_UNSUPPORTED))
		return 0;
	/* The reason a backend gave, where one did; the engine's stand-in says nothing this line would not. */
	fprintf(stderr, "%s: --%s '%s' cannot be measured here (%s%s%s): nothing was run; pick another metric\n",
		current_command(), c->metric ? "metric" : "primary", c->primary,
		strcmp(m->name, c->primary) ? m->name : "", strcmp(m->name, c->primary) ? ": " : "",
		m->reason && strcmp(m->reason, "not supported here") ? m->reason
								      : "no backend of this session counts it");
	return -EINVAL;
}

int cli_compare_finish(struct cli_compare *c, struct ws_result *r, bool functions)
{
	struct ws_compare_opts co = {
		.alpha = c->alpha,
		.noise = c->noise / 100,
		.paired = c->paired,
		.fdr = c->fdr,
		.seed = r->settings.seed,
		.primary = c->primary,
		.effect = c->effect && !strcmp(c->effect, "bootstrap") ? WS_EFFECT_BOOTSTRAP : WS_EFFECT_HL,
		/* Measured here and stopped at the budget undecided; diff's files were not (no looks in their settings). */
		.looks = r->settings.looks,
		/* Any session that looked: where it stopped was chosen on the primary, so the rest pays for the looks. */
		.secondary_looks = r->settings.schedule_looks,
	};
	struct ws_report_opts ro = {
		.color = cli_use_color(cli_report_stream()),
		.regions = c->regions,
		.functions = functions,
		.top = c->top,
		.full_names = c->full_names,
		.own = c->own_patterns,
	};
	struct ws_explain_opts eo = {
		.seed = r->settings.seed,
		.costs = c->costs,
		.ncosts = c->ncosts,
		.own = c->own_patterns,
	};
	int status = WS_EXIT_OK, err;
	bool json_failed = false, nothing_written = false;

	if (c->primary) {
		/* Said in the words of the option given, with the reason the backend gave for not counting it. */
		const struct ws_variant *b = ws_result_baseline(r);
		const struct ws_metric *m = b ? ws_metric_set_find(&b->metrics, c->primary) : NULL;

		if (!m || (m->flags & WS_M_UNSUPPORTED) || !m->sum.n) {
			fprintf(stderr, "%s: --%s '%s' was not measured%s%s%s; pick a measured one\n", current_command(),
				c->metric ? "metric" : "primary", c->primary, m && m->reason ? " (" : "",
				m && m->reason ? m->reason : "", m && m->reason ? ")" : "");
			return WS_EXIT_FAIL;
		}
	}
	if (ws_compare(r, &co) < 0)
		return WS_EXIT_FAIL;
	if (c->explain) {
		/* Each variant's binary, so that the next step can name an asm-diff command. */
		char **bins = resolve_binaries(r);

		eo.binaries = bins;
		ws_explain(r, &eo);
		free_binaries(bins, r->nvariants);
	}
	ws_report_compare(cli_report_stream(), r, &ro);
	/* ws_result_save() rescues the result itself when its path fails. */
	if (c->export_json && ws_result_save(r, c->export_json) < 0)
		json_failed = true;
	if (c->export_csv && (err = ws_export_csv(r, c->export_csv)) < 0) {
		ws_error("cannot write '%s': %s", c->export_csv, ws_write_error(err));
		status = WS_EXIT_FAIL;
	}
	if (c->export_markdown && (err = ws_export_markdown(r, c->export_markdown)) < 0) {
		ws_error("cannot write '%s': %s", c->export_markdown, ws_write_error(err));
		status = WS_EXIT_FAIL;
	}
	if (c->export_html && (err = ws_export_html(r, c->export_html)) < 0) {
		ws_error("cannot write '%s': %s", c->export_html, ws_write_error(err));
		status = WS_EXIT_FAIL;
	}
	if (c->export_folded && (err = cli_export_folded(r, c->export_folded)) < 0) {
		status = WS_EXIT_FAIL;
		/* No stacks recorded is not a write that failed: nothing to rescue for it alone. */
		if (err == -ENODATA)
			nothing_written = true;
	}
	if (status == WS_EXIT_FAIL && c->measured && !c->export_json && !nothing_written)
		cli_rescue(r);
	if (json_failed)
		status = WS_EXIT_FAIL;
	if (!isnan(c->fail_if_slower) && status == WS_EXIT_OK)
		status = gate(c, r, &co);
	return status;
}
