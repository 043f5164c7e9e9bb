/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-result.c - libFuzzer target: a result file read as `report` and `diff` read one, then every renderer,
 * then diff's comparison and explanation, then every renderer again.
 *
 * One target for all of them, so that a result the reader accepts but whose parts disagree (a comparison
 * naming a variant the file does not hold, a metric without samples) reaches each consumer of the model.
 */
#include "fuzz.h"

#include "compare/compare.h"
#include "explain/explain.h"
#include "report/report.h"
#include "result/derive.h"
#include "result/result-json.h"

#include <jansson.h>
#include <stdlib.h>

/* Every renderer `report` and `diff` offer, as they are called: terminal (both tables), Markdown, CSV, HTML,
 * folded stacks and the result file itself. */
static void render_all(struct ws_result *r)
{
	FILE *f = fuzz_sink();
	struct ws_report_opts plain = { 0 };
	struct ws_report_opts full = { .color = true, .regions = true, .functions = true, .all_metrics = true,
				       .top = 3, .full_names = false };
	json_t *j;
	char *text;

	if (r->ncomparisons) {
		ws_report_compare(f, r, &plain);
		ws_report_compare(f, r, &full);
		ws_report_markdown(f, r);
		ws_report_csv(f, r);
	} else {
		ws_report_stat(f, r, &plain);
		ws_report_stat(f, r, &full);
	}
	ws_report_html(f, r);
	if (ws_result_has_stacks(r))
		ws_report_folded(f, r);
	j = ws_result_to_json(r);
	text = json_dumps(j, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
	free(text);
	json_decref(j);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_setup();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ws_compare_opts co = { .alpha = 0.05, .noise = 0.01 };
	/* Few resamples: the share CIs' code runs the same, and the fuzzer gets through more inputs. */
	struct ws_explain_opts eo = { .resamples = 20 };
	json_error_t err;
	json_t *root = json_loadb((const char *)data, size, 0, &err);
	struct ws_result r;

	if (!root)
		return 0;
	ws_result_init(&r);
	if (ws_result_from_json(root, &r, "fuzz") < 0) {
		json_decref(root);
		ws_result_release(&r);
		return 0;
	}
	json_decref(root);

	/* `whyslow report`: the file's own comparisons, the summaries recomputed from its samples. */
	ws_result_summarize(&r);
	render_all(&r);

	/* `whyslow diff`: the first variant the baseline, derived metrics, pruned functions, compared again. */
	for (size_t i = 0; i < r.nvariants; i++)
		r.variants[i].baseline = i == 0;
	ws_result_derive(&r);
	ws_result_summarize(&r);
	ws_result_prune_functions(&r, 0.01);
	co.seed = r.settings.seed;
	if (ws_compare(&r, &co) == 0) {
		eo.seed = r.settings.seed;
		ws_explain(&r, &eo);
		render_all(&r);
	}
	ws_result_release(&r);
	return 0;
}
