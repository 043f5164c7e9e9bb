/* SPDX-License-Identifier: GPL-2.0-or-later */
/* builtin.h - the subcommands of the whyslow program, one cmd-*.c file each. */
#ifndef WS_BUILTIN_H
#define WS_BUILTIN_H

/*
 * Each command gets argv with argv[0] its own name and returns the process exit status:
 * 0 success, 1 a failed measurement or I/O, 3 a --fail-if-slower gate tripped, 129 usage (from
 * usage_error(), which exits directly).
 */
#define WS_EXIT_OK 0
#define WS_EXIT_FAIL 1
#define WS_EXIT_GATE 3
#define WS_EXIT_USAGE 129

int cmd_stat(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_list(int argc, char **argv);

struct ws_result;

/* Record the whyslow command line and working directory in the result (settings.command_line, cwd). */
void record_invocation(struct ws_result *r);

/* Install the program's logger for engine messages ("whyslow: error: ..." on stderr). */
void setup_logging(int verbose);

int cmd_asm_diff(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_sim_job(int argc, char **argv);

#endif
