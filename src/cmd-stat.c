/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-stat.c - `whyslow stat`: run one command N times and report every counter with its statistics. */
/*
 * $ whyslow stat -r 5 -- sleep 0.01
 *
 *  Performance counter stats for 'sleep 0.01' (5 runs, 1 warm-up, backend perf):
 *
 *   metric                                   mean ± sd             median             min    max
 *   wall-time                           10.61 ms  ± 0.6%          10.58 ms       10.55 ms .. 10.72 ms
 *   task-clock                          0.617 ms  ± 4.2%          0.610 ms       0.584 ms .. 0.661 ms
 *   ...
 *   cycles                       not supported on this machine: no usable PMU (a VM without a virtual PMU?)
 */
#include "builtin.h"
#include "cli-measure.h"
#include "backend/runner.h"
#include "compare/compare.h"
#include "core/log.h"
#include "core/util.h"
#include "measure/measure.h"
#include "report/report.h"
#include "result/result-json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const stat_usage[] = {
	"whyslow stat [options] [--] <command> [<args>...]",
	"whyslow stat [options] --shell '<command string>'",
	NULL,
};

int cmd_stat(int argc, char **argv)
{
	struct cli_measure c = CLI_MEASURE_INIT;
	const char *export_html = NULL, *export_folded = NULL;
	struct option_spec options[] = {
		CLI_MEASURE_OPTIONS(&c),
		OPT_STRING(0, "export-html", &export_html, "FILE", "one self-contained HTML page with plots"),
		OPT_STRING(0, "export-folded", &export_folded, "FILE", "call stacks for flame graphs (flamegraph.pl, inferno)"),
		OPT_END(),
	};
	struct ws_measure_opts mo;
	struct ws_result res;
	struct ws_program prog = { 0 };
	struct ws_report_opts ro = { 0 };
	char **cmd_argv, *command, *shell_argv[4] = { NULL };
	int n, ret, err, status = WS_EXIT_OK;
	bool saved = false, no_stacks = false;

	n = parse_options(argc, argv, "whyslow stat", stat_usage, options, PARSE_STOP_AT_NON_OPTION);
	if (n == 0)
		usage_error("no command given: whyslow stat [options] -- <command> [<args>...]");
	/* As compare refuses a command string that splits into no words: nothing to run is the user's slip. */
	if (!*argv[0])
		usage_error("the command is empty: give the program to run, e.g. whyslow stat -- ./prog");
	if (c.shell) {
		/* --shell bash 'cmd', as hyperfine has it: the shell's name is no command to run. */
		if (n > 1 && is_shell_name(argv[0]))
			shell_value_error(argv[0]);
		if (n != 1)
			usage_error("with --shell, give the command as one string");
		shell_argv[0] = (char *)"sh";
		shell_argv[1] = (char *)"-c";
		shell_argv[2] = argv[0];
		cmd_argv = shell_argv;
		command = xstrdup(argv[0]);
	} else {
		char *found = n == 1 && strpbrk(argv[0], " \t") ? ws_find_in_path(argv[0]) : NULL;

		/*
		 * 'sort big.txt', quoted as hyperfine and compare take a command: one word, which names no
		 * program. "command not found" about the whole string after the setup left the cause to guess.
		 */
		if (n == 1 && strpbrk(argv[0], " \t") && !found)
			usage_error("no program is named '%s': give the command's words as separate arguments "
				    "(whyslow stat -- prog arg), or the string with --shell", argv[0]);
		free(found);
		cmd_argv = argv;
		command = ws_join_command(argv);
	}
	cli_measure_check_programs(&c, 1);
	cli_measure_program(&c, &prog, 0, NULL, NULL);
	/* Stacks come with the callers: asking for them asks for those. */
	c.callers |= export_folded != NULL;
	cli_protect_programs(&(struct ws_program){ .argv = cmd_argv, .command = command }, 1, c.shell);
	cli_measure_finish(&c, &mo, false);
	c.export_json = cli_stdout_alias(c.export_json);
	export_html = cli_stdout_alias(export_html);
	export_folded = cli_stdout_alias(export_folded);
	cli_check_distinct("--export-json", c.export_json, "--export-html", export_html);
	cli_check_distinct("--export-json", c.export_json, "--export-folded", export_folded);
	cli_check_distinct("--export-html", export_html, "--export-folded", export_folded);
	cli_export_estimate(&c, &mo, 1);
	cli_check_output("--export-json", c.export_json);
	cli_check_output("--export-html", export_html);
	cli_check_output("--export-folded", export_folded);
	cli_check_tmpdir(&mo);
	cli_install_signals();

	ws_result_init(&res);
	cli_measure_record(&c, &res);
	prog.name = command;
	prog.command = command;
	prog.argv = cmd_argv;
	ret = ws_measure(&res, &prog, 1, &mo);
	cli_result_prepare(&res, &c);
	/* compare warns of a region never closed (ws_compare); a single program's report needs it as much. */
	for (size_t i = 0; i < res.nvariants; i++)
		ws_warn_unclosed_regions(&res, &res.variants[i]);
	/*
	 * Nothing measured is lost: even an interrupted or failed session is reported and saved. But a session
	 * that finished no run (interrupted at once, or its warm-up failed) saves nothing: an empty result
	 * would replace whatever file the path held.
	 */
	if (res.nvariants && (res.variants[0].nruns || res.variants[0].metrics.n)) {
		ro.color = cli_use_color(cli_report_stream());
		ro.regions = c.regions;
		ro.functions = c.functions != NULL;
		ro.callers = c.callers;
		ro.full_names = c.verbose;
		if (ret == 0 || res.variants[0].nruns)
			ws_report_stat(cli_report_stream(), &res, &ro);
		if (c.export_json && (res.variants[0].nruns || ws_result_has_samples(&res))) {
			if (ws_result_save(&res, c.export_json) < 0)
				status = WS_EXIT_FAIL;
			else
				saved = true;
		}
		if (export_html && (res.variants[0].nruns || ws_result_has_samples(&res)) &&
		    (err = ws_export_html(&res, export_html)) < 0) {
			ws_error("cannot write '%s': %s", export_html, ws_write_error(err));
			status = WS_EXIT_FAIL;
		}
		if (export_folded && (err = cli_export_folded(&res, export_folded)) < 0) {
			status = WS_EXIT_FAIL;
			no_stacks = err == -ENODATA;
		}
		/*
		 * A write failed and no result file holds the runs: keep them (a failed JSON rescued itself). No
		 * stacks to export is not a write that failed.
		 */
		if (status == WS_EXIT_FAIL && !c.export_json && !no_stacks)
			cli_rescue(&res);
	}
	status = cli_measure_status(ret, status, &res, saved);
	ws_result_release(&res);
	cli_program_release(&prog);
	cli_measure_release(&c);
	free(command);
	return status;
}
