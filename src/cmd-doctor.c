/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-doctor.c - `whyslow doctor`: what this machine can measure and what will disturb it, with fixes. */
#include "builtin.h"
#include "cli-measure.h"
#include "measure/doctor.h"
#include "parse-options.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const doctor_usage[] = {
	"whyslow doctor [--json]",
	NULL,
};

int cmd_doctor(int argc, char **argv)
{
	bool as_json = false;
	struct option_spec options[] = {
		OPT_BOOL(0, "json", &as_json, "the same findings as data"),
		OPT_END(),
	};
	struct ws_checks checks;
	bool color;

	if (parse_options(argc, argv, "whyslow doctor", doctor_usage, options, 0) > 0)
		usage_error("doctor takes no arguments");
	ws_doctor(&checks);
	if (as_json) {
		json_t *root = json_object(), *arr = json_array();

		for (size_t i = 0; i < checks.n; i++) {
			const struct ws_check *k = &checks.v[i];

			json_array_append_new(arr, json_pack("{s:s,s:s,s:s,s:s,s:s?}", "name", k->name, "status",
							     ws_check_status_name(k->status), "value", k->value,
							     "detail", k->detail, "fix", k->fix));
		}
		json_object_set_new(root, "checks", arr);
		json_dumpf(root, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(root);
	} else {
		static const char *const mark[] = { "ok  ", "info", "warn", "BAD " };
		static const char *const colr[] = { "\033[32m", "\033[2m", "\033[33m", "\033[31m" };

		color = cli_use_color(stdout);
		for (size_t i = 0; i < checks.n; i++) {
			const struct ws_check *k = &checks.v[i];

			printf("%s%s%s  %-20s %s\n", color ? colr[k->status] : "", mark[k->status],
			       color ? "\033[0m" : "", k->name, k->value);
			printf("      %-20s %s\n", "", k->detail);
			if (k->fix)
				printf("      %-20s fix: %s\n", "", k->fix);
		}
	}
	ws_checks_release(&checks);
	return WS_EXIT_OK;
}
