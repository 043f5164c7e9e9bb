/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-report.c - `whyslow report`: re-render a saved result for the terminal, Markdown, CSV or HTML. */
#include "builtin.h"
#include "cli-measure.h"
#include "compare/compare.h"
#include "report/report.h"
#include "result/result-json.h"
#include "parse-options.h"

#include <stdio.h>

static const char *const report_usage[] = {
	"whyslow report [--markdown | --csv | --html] [--regions] [--functions] <result.json>",
	NULL,
};

int cmd_report(int argc, char **argv)
{
	bool markdown = false, csv = false, html = false, regions = false, functions = false;
	struct option_spec options[] = {
		OPT_BOOL(0, "markdown", &markdown, "a Markdown table, ready for a pull request"),
		OPT_BOOL(0, "csv", &csv, "one row per comparison"),
		OPT_BOOL(0, "html", &html, "one self-contained HTML page"),
		OPT_BOOL(0, "regions", &regions, "per-region tables too (terminal)"),
		OPT_BOOL(0, "functions", &functions, "per-function tables too (terminal)"),
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
	ro.color = cli_use_color(stdout);
	ro.regions = regions;
	ro.functions = functions;
	if (markdown)
		ws_report_markdown(stdout, &r);
	else if (csv)
		ws_report_csv(stdout, &r);
	else if (html)
		ws_report_html(stdout, &r);
	else if (r.ncomparisons)
		ws_report_compare(stdout, &r, &ro);
	else
		ws_report_stat(stdout, &r, &ro);
	ws_result_release(&r);
	return WS_EXIT_OK;
}
