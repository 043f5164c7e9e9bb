/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse-options.h - declarative option tables over getopt_long: one table gives parsing and -h. */
#ifndef WS_PARSE_OPTIONS_H
#define WS_PARSE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

struct option_spec;

/*
 * A callback gets its row (opt->value is the pointer the row was given, the callback's own state, as git's
 * OPT_CALLBACK has it) and the option's argument (NULL for flags); it returns 0, or -1 after usage_error().
 */
typedef int (*option_cb)(const struct option_spec *opt, const char *arg);

enum option_type {
	OPTION_END,
	OPTION_GROUP,   /* a heading in -h output */
	OPTION_BOOL,    /* bool *, set true */
	OPTION_SIZE,    /* size_t *, non-negative integer */
	OPTION_DOUBLE,  /* double *, finite */
	OPTION_STRING,  /* const char **, borrowed from argv */
	OPTION_LIST,    /* struct string_list *, appended to */
	OPTION_CALLBACK,
};

struct string_list {
	const char **v; /* borrowed from argv */
	size_t n, alloc;
};

void string_list_append(struct string_list *l, const char *s);
void string_list_clear(struct string_list *l);

struct option_spec {
	enum option_type type;
	int short_name;        /* 0 for none */
	const char *long_name; /* NULL for none */
	void *value;           /* where the option's value goes; for a callback, what it works on */
	const char *argh;      /* the argument's name in -h output ("N"); NULL: takes no argument */
	const char *help;
	option_cb callback;
	bool optional_arg;     /* OPTION_CALLBACK with "--opt[=ARG]" */
};

#define OPT_GROUP(h) { OPTION_GROUP, 0, NULL, NULL, NULL, (h), NULL, false }
#define OPT_BOOL(s, l, v, h) { OPTION_BOOL, (s), (l), (v), NULL, (h), NULL, false }
#define OPT_SIZE(s, l, v, a, h) { OPTION_SIZE, (s), (l), (v), (a), (h), NULL, false }
#define OPT_DOUBLE(s, l, v, a, h) { OPTION_DOUBLE, (s), (l), (v), (a), (h), NULL, false }
#define OPT_STRING(s, l, v, a, h) { OPTION_STRING, (s), (l), (v), (a), (h), NULL, false }
#define OPT_LIST(s, l, v, a, h) { OPTION_LIST, (s), (l), (v), (a), (h), NULL, false }
#define OPT_CALLBACK(s, l, v, a, h, cb) { OPTION_CALLBACK, (s), (l), (v), (a), (h), (cb), false }
#define OPT_CALLBACK_OPTARG(s, l, v, a, h, cb) { OPTION_CALLBACK, (s), (l), (v), (a), (h), (cb), true }
#define OPT_END() { OPTION_END, 0, NULL, NULL, NULL, NULL, NULL, false }

/* Stop at the first argument that is not an option (`stat`: the command starts there). */
#define PARSE_STOP_AT_NON_OPTION (1u << 0)

/*
 * Parse argv[1..argc) against `opts`; -h and --help print the usage and the table to stdout and exit 0.
 * Options and other arguments may be intermixed unless PARSE_STOP_AT_NON_OPTION; "--" ends the options.
 * On return argv[0..ret) hold the remaining arguments, in order. A usage error prints one line and exits
 * 129. `cmd` is the full command name, e.g. "whyslow stat"; `usage` is NULL-terminated.
 */
int parse_options(int argc, char **argv, const char *cmd, const char *const *usage,
		  const struct option_spec *opts, unsigned flags);

/* Print the usage lines and option table (as -h does) to stdout. */
void print_usage(const char *const *usage, const struct option_spec *opts);

/* One line "whyslow CMD: MESSAGE (see 'whyslow CMD -h')" to stderr, then exit 129. */
void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* The command name of the parse in progress or last done, for messages. */
const char *current_command(void);

/*
 * Strict number parsing for callbacks: the whole string must be a number. parse_size: 0, -ERANGE for
 * digits past SIZE_MAX (to be said as too large), or -1.
 */
int parse_size(const char *s, size_t *out);

/* Whether `s` names a shell (bash, /bin/zsh, none): a value of hyperfine's --shell, which whyslow's lacks. */
bool is_shell_name(const char *s);
/* The usage error for hyperfine's --shell SHELL: whyslow's --shell takes no value. */
void shell_value_error(const char *value) __attribute__((noreturn));
int parse_double(const char *s, double *out);

#endif
