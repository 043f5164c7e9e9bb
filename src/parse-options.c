/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse-options.c - option tables over getopt_long, with -h generated from the table (git's approach). */
#include "parse-options.h"
#include "core/util.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *cur_cmd = "whyslow";

const char *current_command(void)
{
	return cur_cmd;
}

void string_list_append(struct string_list *l, const char *s)
{
	WS_ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = s;
}

void string_list_clear(struct string_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}

/* parse_options()'s tables while it runs: a usage error found in them exits, and frees them first (ASan). */
static struct option *live_longopts;
static const struct option_spec **live_by_index;
static char *live_shortopts;

static void free_live(void)
{
	free(live_longopts);
	free(live_by_index);
	free(live_shortopts);
	live_longopts = NULL;
	live_by_index = NULL;
	live_shortopts = NULL;
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cur_cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see '%s -h')\n", cur_cmd);
	free_live();
	exit(129);
}

int parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	/* All digits but past 2^64 - 1: said as too large, not as "not a number". */
	if (errno == ERANGE && !*end)
		return -ERANGE;
	if (errno || *end)
		return -1;
	*out = (size_t)v;
	return 0;
}

int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

static void option_name(const struct option_spec *o, char *buf, size_t n)
{
	if (o->long_name)
		snprintf(buf, n, "--%s", o->long_name);
	else
		snprintf(buf, n, "-%c", o->short_name);
}

void print_usage(const char *const *usage, const struct option_spec *opts)
{
	for (size_t i = 0; usage[i]; i++)
		printf("%s%s\n", i ? "   or: " : "usage: ", usage[i]);
	putchar('\n');
	for (const struct option_spec *o = opts; o->type != OPTION_END; o++) {
		char left[80];
		int len = 0;

		if (o->type == OPTION_GROUP) {
			printf("\n%s\n", o->help);
			continue;
		}
		len += snprintf(left + len, sizeof(left) - len, "    ");
		if (o->short_name)
			len += snprintf(left + len, sizeof(left) - len, "-%c%s", o->short_name,
					o->long_name ? ", " : "");
		if (o->long_name)
			len += snprintf(left + len, sizeof(left) - len, "--%s", o->long_name);
		if (o->argh)
			len += snprintf(left + len, sizeof(left) - len, o->optional_arg ? "[=%s]" : " %s",
					o->argh);
		if (len < 30)
			printf("%-30s%s\n", left, o->help);
		else
			printf("%s\n%30s%s\n", left, "", o->help);
	}
	printf("    %-26s%s\n", "-h, --help", "show this help");
}

static void apply(const struct option_spec *o, const char *arg)
{
	char name[64];

	option_name(o, name, sizeof(name));
	/*
	 * "--export-json -- true" gave the option "--" and wrote a file of that name: "--" ends the options
	 * everywhere else, and a value that is "--" is almost always a value forgotten.
	 */
	if (arg && !strcmp(arg, "--") && (o->type == OPTION_STRING || o->type == OPTION_LIST))
		usage_error("%s needs a value before '--', which ends the options (a file named '--' is ./--)", name);
	switch (o->type) {
	case OPTION_BOOL:
		*(bool *)o->value = true;
		break;
	case OPTION_SIZE: {
		int e = parse_size(arg, o->value);

		if (e == -ERANGE)
			usage_error("%s %s is too large: at most %zu", name, arg, SIZE_MAX);
		if (e < 0)
			usage_error("%s expects a non-negative integer, not '%s'", name, arg);
		break;
	}
	case OPTION_DOUBLE:
		if (parse_double(arg, o->value) < 0)
			usage_error("%s expects a number, not '%s'", name, arg);
		break;
	case OPTION_STRING:
		*(const char **)o->value = arg;
		break;
	case OPTION_LIST:
		string_list_append(o->value, arg);
		break;
	case OPTION_CALLBACK:
		if (o->callback(o, arg) < 0)
			usage_error("invalid argument '%s' for %s", arg ? arg : "", name);
		break;
	case OPTION_GROUP:
	case OPTION_END:
		break;
	}
}

/*
 * Options of hyperfine and perf stat that whyslow has under another name, or has no need of: their users
 * type them from habit, and "unknown option" alone leaves them to search the help. An entry is the short
 * and long spellings (either may be NULL) and the hint; `instead` is the long option the hint names, given
 * only where this command has it (NULL: the hint stands on its own).
 */
static const struct {
	const char *short_name, *long_name, *hint, *instead;
} foreign_options[] = {
	{ "-N", NULL, "commands run without a shell unless --shell (hyperfine's -N is the default here): drop it", NULL },
	{ "-i", NULL, "hyperfine's -i is --ignore-failure here", "ignore-failure" },
	{ "-S", NULL, "hyperfine's -S SHELL is --shell here, which takes no value and runs sh -c (for another shell, "
		      "the command 'bash -c ...')", "shell" },
	{ "-m", "--min-runs", "give the number of runs with -r N, or -r auto to run until the answer is decided", "runs" },
	{ "-M", NULL, "hyperfine's -M is --max-runs here (with -r auto)", "max-runs" },
	{ NULL, "--command-name", "name the programs with -n/--name", "name" },
	{ NULL, "--min-benchmarking-time", "give the number of runs with -r N, or -r auto with --max-time SECONDS",
	  "max-time" },
	{ NULL, "--norc", "--shell runs sh -c, which reads no rc file: drop it", "shell" },
	{ "-V", "--version", "the version is 'whyslow --version'", NULL },
	{ NULL, "--style", "colour follows the terminal and NO_COLOR, and progress shows only on a terminal", NULL },
	{ "-u", "--time-unit", "units are chosen per metric", NULL },
	{ NULL, "--sort", "the report keeps the command line's order", NULL },
	{ NULL, "--export-asciidoc", "use --export-markdown", "export-markdown" },
	{ NULL, "--export-orgmode", "use --export-markdown", "export-markdown" },
	{ NULL, "--reference-name", "name the baseline with -n and give --reference NAME", "reference" },
	{ "-x", "--field-separator", "for machine-readable output give --export-json FILE", "export-json" },
	{ "-o", NULL, "the result file is --export-json FILE", "export-json" },
	{ NULL, "--pid", "whyslow measures the command it runs: give it after --", NULL },
	{ "-a", "--all-cpus", "whyslow measures the command it runs, not the whole system", NULL },
	{ "-d", NULL, "see 'whyslow list' for what this machine counts, and choose with -e", "events" },
};

/*
 * hyperfine's --shell takes a shell (--shell=bash, --shell none); whyslow's is a switch, always sh. Given
 * one from habit, "takes no value" does not say what to do instead, and "--shell bash" as two words even
 * ran: it benchmarked bash (reading /dev/null) as the baseline. A word that names a shell is taken for
 * such a value.
 */
static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

bool is_shell_name(const char *s)
{
	static const char *const shells[] = { "none", "default", "sh", "bash", "dash", "zsh", "ksh", "mksh", "fish" };
	const char *base = base_of(s);

	for (size_t i = 0; i < ARRAY_SIZE(shells); i++)
		if (!strcmp(base, shells[i]))
			return true;
	return false;
}

void __attribute__((noreturn)) shell_value_error(const char *value)
{
	if (!strcmp(value, "none"))
		usage_error("--shell takes no value: commands run without a shell unless --shell (hyperfine's "
			    "--shell=none is the default here): drop it");
	if (!is_shell_name(value) || !strcmp(value, "default") || !strcmp(base_of(value), "sh"))
		usage_error("--shell takes no value (it always runs sh -c): give --shell alone");
	usage_error("--shell takes no value (it always runs sh -c): give --shell alone, or run '%s -c ...' as the "
		    "command", value);
}

static bool same_name(const char *a, const char *b)
{
	return a && !strcmp(a, b);
}

/* An unknown option `name` ("-N", "--style"): one line, with what to use instead where that is known. */
static void __attribute__((noreturn)) unknown_option(const char *name, const struct option_spec *opts)
{
	for (size_t i = 0; i < ARRAY_SIZE(foreign_options); i++) {
		const char *instead = foreign_options[i].instead;
		bool has = !instead;

		if (!same_name(foreign_options[i].short_name, name) && !same_name(foreign_options[i].long_name, name))
			continue;
		for (const struct option_spec *o = opts; !has && o->type != OPTION_END; o++)
			has = o->long_name && !strcmp(o->long_name, instead);
		if (has)
			usage_error("unknown option '%s': %s", name, foreign_options[i].hint);
	}
	usage_error("unknown option '%s'", name);
}

int parse_options(int argc, char **argv, const char *cmd, const char *const *usage,
		  const struct option_spec *opts, unsigned flags)
{
	size_t nopts = 0, nlong = 0;
	struct option *longopts;
	char *shortopts, *sp;
	const struct option_spec **by_index;
	int rest = 0, c;

	cur_cmd = cmd;
	for (const struct option_spec *o = opts; o->type != OPTION_END; o++)
		nopts++;
	longopts = xcalloc(nopts + 2, sizeof(*longopts));
	by_index = xcalloc(nopts + 2, sizeof(*by_index));
	sp = shortopts = xcalloc(3 * nopts + 8, 1);
	live_longopts = longopts;
	live_by_index = by_index;
	live_shortopts = shortopts;
	/* '+' stops at the first non-option; ':' reports a missing argument as ':' rather than '?'. */
	if (flags & PARSE_STOP_AT_NON_OPTION)
		*sp++ = '+';
	*sp++ = ':';
	*sp++ = 'h';
	for (size_t i = 0; i < nopts; i++) {
		const struct option_spec *o = &opts[i];

		if (o->type == OPTION_GROUP)
			continue;
		if (o->short_name) {
			*sp++ = (char)o->short_name;
			if (o->argh) {
				*sp++ = ':';
				if (o->optional_arg)
					*sp++ = ':';
			}
		}
		if (o->long_name) {
			longopts[nlong].name = o->long_name;
			longopts[nlong].has_arg = o->argh ? (o->optional_arg ? optional_argument : required_argument)
							  : no_argument;
			/* flag NULL + val 0x100+i: getopt_long returns val, which indexes by_index. */
			longopts[nlong].val = 0x100 + (int)i;
			by_index[i] = o;
			nlong++;
		}
	}
	longopts[nlong].name = "help";
	longopts[nlong].val = 'h';

	/* Only where options and commands intermix: elsewhere, the word after it may be the command's. */
	for (int i = 1; !(flags & PARSE_STOP_AT_NON_OPTION) && i + 1 < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--shell") && is_shell_name(argv[i + 1]))
			for (const struct option_spec *o = opts; o->type != OPTION_END; o++)
				if (o->long_name && !strcmp(o->long_name, "shell") && o->type == OPTION_BOOL)
					shell_value_error(argv[i + 1]);
	opterr = 0;
	optind = 0; /* glibc: 0 fully re-initialises getopt for a second parse */
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct option_spec *o = NULL;

		if (c == 'h') {
			print_usage(usage, opts);
			free_live();
			exit(0);
		}
		if (c == '?') {
			/* A long option that takes no value, given one (--shell=x): getopt gives its val in optopt. */
			const char *eq = optind > 0 ? strchr(argv[optind - 1], '=') : NULL;

			if (optopt >= 0x100 && by_index[optopt - 0x100] &&
			    !strcmp(by_index[optopt - 0x100]->long_name, "shell") && eq && eq[1])
				shell_value_error(eq + 1);
			if (optopt >= 0x100 && by_index[optopt - 0x100])
				usage_error("option '--%s' takes no value", by_index[optopt - 0x100]->long_name);
			if (optopt) {
				char name[3] = { '-', (char)optopt, 0 };

				unknown_option(name, opts);
			}
			/* --style=basic: the option's name alone. */
			argv[optind - 1][strcspn(argv[optind - 1], "=")] = '\0';
			unknown_option(argv[optind - 1], opts);
		}
		if (c == ':') {
			if (optopt && optopt < 0x100)
				usage_error("option '-%c' needs an argument", optopt);
			usage_error("option '%s' needs an argument", argv[optind - 1]);
		}
		if (c >= 0x100) {
			o = by_index[c - 0x100];
		} else {
			for (const struct option_spec *p = opts; p->type != OPTION_END; p++)
				if (p->short_name == c && p->type != OPTION_GROUP)
					o = p;
		}
		if (!o)
			usage_error("unknown option '-%c'", c);
		apply(o, o->argh ? optarg : NULL);
	}
	for (int i = optind; i < argc; i++)
		argv[rest++] = argv[i];
	argv[rest] = NULL;
	free_live();
	return rest;
}
