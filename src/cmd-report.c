/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-report.c - `whyslow report`: re-render a saved result for the terminal, Markdown, CSV or HTML. */
#include "builtin.h"
#include "cli-measure.h"
#include "compare/compare.h"
#include "core/util.h"
#include "report/report.h"
#include "result/result-json.h"
#include "parse-options.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const report_usage[] = {
	"whyslow report [--markdown | --csv | --html] [--regions] [--functions] [--export-folded FILE] <result.json>",
	NULL,
};

int cmd_report(int argc, char **argv)
{
	bool markdown = false, csv = false, html = false, regions = false, functions = false;
	const char *export_folded = NULL;
	struct string_list own = { 0 };
	char **own_patterns = NULL;
	int status = WS_EXIT_OK;
	FILE *out;
	struct option_spec options[] = {
		OPT_BOOL(0, "markdown", &markdown, "a Markdown table, ready for a pull request"),
		OPT_BOOL(0, "csv", &csv, "one row per comparison"),
		OPT_BOOL(0, "html", &html, "one self-contained HTML page"),
		OPT_BOOL(0, "regions", &regions, "per-region tables too (terminal)"),
		OPT_BOOL(0, "functions", &functions, "per-function tables too (terminal)"),
		OPT_LIST(0, "own", &own, "PATTERN", "objects that are the program's own code, for \"grew in\" (default: its build tree)"),
		OPT_STRING(0, "export-folded", &export_folded, "FILE", "also write the call stacks for flame graphs"),
		OPT_END(),
	};
	struct ws_report_opts ro = { 0 };
	struct ws_result r;
	int n;

	n = parse_options(argc, argv, "whyslow report", report_usage, options, 0);
	if (n != 1)
		usage_error("give exactly one result file");
	if (markdown + csv + html > 1)
		usage_error("choose one of --markdown, --csv and --html");
	if (export_folded && ws_same_file(export_folded, argv[0]))
		usage_error("--export-folded '%s' is the result being read: writing it would replace that result",
			    export_folded);
	cli_check_output("--export-folded", export_folded);
	if (own.n) {
		own_patterns = xcalloc(own.n + 1, sizeof(*own_patterns));
		for (size_t i = 0; i < own.n; i++)
			own_patterns[i] = (char *)own.v[i];
	}
	setup_logging(0);
	ws_result_init(&r);
	if (ws_result_load(argv[0], &r) < 0) {
		ws_result_release(&r);
		return WS_EXIT_FAIL;
	}
	/* Statistics are not stored twice: recompute the summaries the file's samples imply. */
	ws_result_summarize(&r);
	if ((markdown || csv) && !r.ncomparisons) {
		fprintf(stderr, "whyslow report: '%s' holds no comparisons: Markdown and CSV need a result of "
			"compare or diff\n", argv[0]);
		ws_result_release(&r);
		return WS_EXIT_FAIL;
	}
	out = cli_report_stream();
	ro.color = cli_use_color(out);
	ro.regions = regions;
	ro.functions = functions;
	ro.callers = functions; /* what the result holds of them, which --callers recorded */
	ro.own = own_patterns;
	if (markdown)
		ws_report_markdown(out, &r);
	else if (csv)
		ws_report_csv(out, &r);
	else if (html)
		ws_report_html(out, &r);
	else if (r.ncomparisons)
		ws_report_compare(out, &r, &ro);
	else
		ws_report_stat(out, &r, &ro);
	if (export_folded && cli_export_folded(&r, export_folded) < 0)
		status = WS_EXIT_FAIL;
	ws_result_release(&r);
	free(own_patterns);
	string_list_clear(&own);
	return status;
}
