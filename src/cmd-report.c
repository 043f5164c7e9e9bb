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
#include <string.h>

/*
 * The exports stat and compare write, written here from the saved result: a file each ('-': standard
 * output, the terminal report then on stderr), besides whatever the report prints.
 */
struct report_export {
	const char *opt;
	const char *path;
	int (*write)(const struct ws_result *r, const char *path);
	bool needs_comparisons;
};

static const char *const report_usage[] = {
	"whyslow report [--markdown | --csv | --html] [--regions] [--functions] [--export-* FILE] <result.json>",
	NULL,
};

int cmd_report(int argc, char **argv)
{
	bool markdown = false, csv = false, html = false, regions = false, functions = false, needs_comparisons;
	const char *export_folded = NULL;
	struct report_export ex[] = {
		{ "--export-markdown", NULL, ws_export_markdown, true },
		{ "--export-csv", NULL, ws_export_csv, true },
		{ "--export-html", NULL, ws_export_html, false },
	};
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
		OPT_STRING(0, "export-markdown", &ex[0].path, "FILE", "also write the Markdown report to FILE ('-': stdout)"),
		OPT_STRING(0, "export-csv", &ex[1].path, "FILE", "also write the CSV table to FILE"),
		OPT_STRING(0, "export-html", &ex[2].path, "FILE", "also write the HTML report to FILE"),
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
	export_folded = cli_stdout_alias(export_folded);
	for (size_t i = 0; i < ARRAY_SIZE(ex); i++)
		ex[i].path = cli_stdout_alias(ex[i].path);
	if (export_folded && ws_same_file(export_folded, argv[0]))
		usage_error("--export-folded '%s' is the result being read: writing it would replace that result",
			    export_folded);
	for (size_t i = 0; i < ARRAY_SIZE(ex); i++) {
		if (ex[i].path && ws_same_file(ex[i].path, argv[0]))
			usage_error("%s '%s' is the result being read: writing it would replace that result", ex[i].opt,
				    ex[i].path);
		/* Printed to stdout already, and '-' would print it twice, or the two interleaved. */
		if (ex[i].path && !strcmp(ex[i].path, "-") && (markdown || csv || html))
			usage_error("%s and --%s both write to standard output: give the export a file", ex[i].opt,
				    markdown ? "markdown" : csv ? "csv" : "html");
		cli_check_distinct(ex[i].opt, ex[i].path, "--export-folded", export_folded);
		for (size_t j = 0; j < i; j++)
			cli_check_distinct(ex[j].opt, ex[j].path, ex[i].opt, ex[i].path);
	}
	for (size_t i = 0; i < ARRAY_SIZE(ex); i++)
		cli_check_output(ex[i].opt, ex[i].path);
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
	needs_comparisons = markdown || csv;
	for (size_t i = 0; i < ARRAY_SIZE(ex); i++)
		needs_comparisons |= ex[i].path && ex[i].needs_comparisons;
	if (needs_comparisons && !r.ncomparisons) {
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
	for (size_t i = 0; i < ARRAY_SIZE(ex); i++) {
		int err = ex[i].path ? ex[i].write(&r, ex[i].path) : 0;

		if (err < 0) {
			fprintf(stderr, "whyslow report: cannot write '%s': %s\n", ex[i].path, strerror(-err));
			status = WS_EXIT_FAIL;
		}
	}
	if (export_folded && cli_export_folded(&r, export_folded) < 0)
		status = WS_EXIT_FAIL;
	ws_result_release(&r);
	free(own_patterns);
	string_list_clear(&own);
	return status;
}
