/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-compare.c - `whyslow compare`: a baseline and its variants, interleaved, with honest statistics. */
/*
 * $ whyslow compare -r 20 'sleep 0.01' 'sleep 0.012'
 *
 *  whyslow compare: 2 programs, 20 runs each, interleaved (seed ...), backend perf
 *
 *  metric            sleep 0.01 (baseline)           sleep 0.012
 *  wall-time                      10.6 ms    +18.9% [+18.5, +19.4]
 *  ...
 */
#include "builtin.h"
#include "cli-compare.h"
#include "cli-measure.h"
#include "core/log.h"
#include "core/util.h"
#include "measure/measure.h"
#include "result/metrics.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const compare_usage[] = {
	"whyslow compare [options] <baseline command> <variant command>...",
	"whyslow compare [options] -L VAR a,b,c '<command using {VAR}>'",
	NULL,
};

struct param {
	char *name;
	char **values;
	size_t n;
};

/* The parameters of -L, in order, and the strings join_parameter_lists() made, freed with the command. */
struct params {
	struct param *v;
	size_t n, alloc;
	char **joined;
	size_t njoined;
};

static int parameter_cb(const struct option_spec *opt, const char *arg)
{
	struct params *ps = opt->value;
	const char *eq = strchr(arg, '=');
	struct param p = { 0 };
	char *list, *save = NULL, *tok;
	size_t alloc = 0;

	if (!eq || eq == arg)
		usage_error("-L expects a name and a list of values: -L VAR a,b,c");
	p.name = xstrndup(arg, (size_t)(eq - arg));
	for (const char *s = p.name; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			usage_error("-L: parameter name '%s' may hold only letters, digits and '_'", p.name);
	list = xstrdup(eq + 1);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		WS_ALLOC_GROW(p.values, p.n + 1, alloc);
		p.values[p.n++] = xstrdup(tok);
	}
	free(list);
	if (!p.n)
		usage_error("-L %s: no values given (-L %s a,b,c)", p.name, p.name);
	for (size_t i = 0; i < ps->n; i++)
		if (!strcmp(ps->v[i].name, p.name))
			usage_error("-L %s is given twice", p.name);
	WS_ALLOC_GROW(ps->v, ps->n + 1, ps->alloc);
	ps->v[ps->n++] = p;
	return 0;
}

static void params_release(struct params *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		for (size_t j = 0; j < ps->v[i].n; j++)
			free(ps->v[i].values[j]);
		free(ps->v[i].values);
		free(ps->v[i].name);
	}
	free(ps->v);
	for (size_t i = 0; i < ps->njoined; i++)
		free(ps->joined[i]);
	free(ps->joined);
	memset(ps, 0, sizeof(*ps));
}

/*
 * hyperfine writes `-L VAR a,b,c`: two arguments after the option. getopt takes one, so join them into
 * "VAR=a,b,c" first.
 */
static char **join_parameter_lists(struct params *ps, int argc, char **argv, int *out_argc)
{
	char **nv = xcalloc((size_t)argc + 1, sizeof(*nv));
	int n = 0;

	for (int i = 0; i < argc; i++) {
		bool is_l = !strcmp(argv[i], "-L") || !strcmp(argv[i], "--parameter-list");

		if (!strcmp(argv[i], "--")) {
			while (i < argc)
				nv[n++] = argv[i++];
			break;
		}
		nv[n++] = argv[i];
		if (is_l && i + 2 < argc + 1 && i + 1 < argc && !strchr(argv[i + 1], '=')) {
			if (i + 2 >= argc)
				usage_error("-L expects a name and a list of values: -L VAR a,b,c");
			nv[n++] = xasprintf("%s=%s", argv[i + 1], argv[i + 2]);
			ps->joined = xrealloc(ps->joined, (ps->njoined + 1) * sizeof(*ps->joined));
			ps->joined[ps->njoined++] = nv[n - 1];
			i += 2;
		}
	}
	nv[n] = NULL;
	*out_argc = n;
	return nv;
}

static char *substitute(const struct params *ps, const char *tmpl, const size_t *choice)
{
	char *out = xstrdup(tmpl);

	for (size_t k = 0; k < ps->n; k++) {
		char *key = xasprintf("{%s}", ps->v[k].name), *pos;
		size_t from = 0;

		/* Search on after each inserted value, which may itself hold "{VAR}". */
		while ((pos = strstr(out + from, key))) {
			size_t at = (size_t)(pos - out);
			const char *val = ps->v[k].values[choice[k]];
			char *next = xasprintf("%.*s%s%s", (int)at, out, val, pos + strlen(key));

			free(out);
			out = next;
			from = at + strlen(val);
		}
		free(key);
	}
	return out;
}

struct program_list {
	struct ws_program *v;
	char **owned;   /* names and commands to free */
	size_t n, alloc, nowned, alloc_owned;
};

static char *keep(struct program_list *l, char *s)
{
	WS_ALLOC_GROW(l->owned, l->nowned + 1, l->alloc_owned);
	l->owned[l->nowned++] = s;
	return s;
}

static void add_program(struct program_list *l, char *name, char *command, bool shell)
{
	struct ws_program *p;

	WS_ALLOC_GROW(l->v, l->n + 1, l->alloc);
	p = &l->v[l->n++];
	p->name = keep(l, name);
	p->command = keep(l, command);
	if (shell) {
		p->argv = xcalloc(4, sizeof(char *));
		p->argv[0] = xstrdup("sh");
		p->argv[1] = xstrdup("-c");
		p->argv[2] = xstrdup(command);
	} else {
		p->argv = cli_split_command(command);
		if (!p->argv)
			usage_error("cannot split command '%s' into words: unbalanced quotes, or empty", command);
	}
}

static void expand(struct program_list *l, const struct params *ps, char **cmds, size_t ncmds,
		   const struct string_list *names, bool shell)
{
	size_t nparams = ps->n, combos = 1, *choice = xcalloc(nparams + 1, sizeof(*choice));

	for (size_t k = 0; k < nparams; k++) {
		bool used = false;

		combos *= ps->v[k].n;
		for (size_t c = 0; c < ncmds; c++) {
			char *key = xasprintf("{%s}", ps->v[k].name);

			used |= strstr(cmds[c], key) != NULL;
			free(key);
		}
		if (!used)
			usage_error("-L %s: no command uses {%s}", ps->v[k].name, ps->v[k].name);
	}
	if (names->n && names->n != ncmds * combos && !(nparams && names->n == ncmds))
		usage_error("%zu names (-n) for %zu programs", names->n, ncmds * combos);
	for (size_t c = 0; c < ncmds; c++) {
		memset(choice, 0, (nparams + 1) * sizeof(*choice));
		for (size_t i = 0; i < combos; i++) {
			char *command = substitute(ps, cmds[c], choice), *name;

			if (names->n == ncmds * combos)
				name = xstrdup(names->v[c * combos + i]);
			else if (names->n)
				name = substitute(ps, names->v[c], choice); /* one -n per command, with {VAR} */
			else if (nparams) {
				/* Named after the values, as the table's columns read best that way. */
				char *s = xstrdup("");

				for (size_t k = 0; k < nparams; k++) {
					char *t = xasprintf("%s%s%s", s, k ? "," : "", ps->v[k].values[choice[k]]);

					free(s);
					s = t;
				}
				name = ncmds > 1 ? xasprintf("%s: %s", s, cmds[c]) : s;
				if (ncmds > 1)
					free(s);
			} else {
				name = xstrdup(command);
			}
			add_program(l, name, command, shell);
			/* next combination: the last parameter varies fastest */
			for (size_t k = nparams; k-- > 0;) {
				if (++choice[k] < ps->v[k].n)
					break;
				choice[k] = 0;
			}
		}
	}
	free(choice);
	for (size_t i = 0; i < l->n; i++)
		for (size_t j = i + 1; j < l->n; j++)
			if (!strcmp(l->v[i].name, l->v[j].name))
				usage_error("two programs are named '%s'; name them with -n", l->v[i].name);
}

int cmd_compare(int argc, char **argv)
{
	struct cli_measure c = CLI_MEASURE_INIT;
	struct cli_compare cc = CLI_COMPARE_INIT;
	struct string_list names = { 0 };
	struct params params = { 0 };
	struct option_spec options[] = {
		OPT_LIST('n', "name", &names, "NAME", "name of the next program, in order (may use {VAR})"),
		OPT_CALLBACK('L', "parameter-list", &params, "VAR a,b,c",
			     "expand {VAR} in the commands over these values", parameter_cb),
		CLI_MEASURE_OPTIONS(&c),
		CLI_COMPARE_OPTIONS(&cc),
		OPT_GROUP("Exports"),
		CLI_COMPARE_EXPORTS(&cc),
		OPT_END(),
	};
	struct program_list progs = { 0 };
	struct ws_measure_opts mo;
	struct ws_result res;
	char **args;
	int nargs, n, ret, status;

	args = join_parameter_lists(&params, argc, argv, &nargs);
	n = parse_options(nargs, args, "whyslow compare", compare_usage, options, 0);
	if (n == 0)
		usage_error("no commands given: whyslow compare '<baseline>' '<variant>'...");
	expand(&progs, &params, args, (size_t)n, &names, c.shell);
	if (progs.n < 2)
		usage_error("compare needs a baseline and at least one variant (or -L with two values or more)");
	cc.regions = c.regions;
	/* Stacks come with the callers: asking for them asks for those. */
	c.callers |= cc.export_folded != NULL;
	cli_measure_finish(&c, &mo);
	cli_compare_check(&cc, c.export_json, NULL, 0);
	if (cc.metric && !ws_metric_info(cc.metric)) {
		/* Not the registry's: then it must be one of -e's events, or the gate finds it only after the runs. */
		bool given = false;

		for (size_t i = 0; i < c.ev.n; i++)
			given |= !strcmp(c.ev.v[i].name, cc.metric);
		if (!given)
			usage_error("--metric '%s' is neither a metric whyslow knows nor one of the -e events; "
				    "'whyslow list' shows the names",
				    cc.metric);
	}
	if (cc.reference) {
		mo.baseline = SIZE_MAX;
		for (size_t i = 0; i < progs.n; i++)
			if (!strcmp(progs.v[i].name, cc.reference))
				mo.baseline = i;
		if (mo.baseline == SIZE_MAX)
			usage_error("--reference '%s' names no program", cc.reference);
	}
	cli_install_signals();

	ws_result_init(&res);
	ret = ws_measure(&res, progs.v, progs.n, &mo);
	cli_result_prepare(&res, &c);
	/* Whatever was measured is reported and saved, also after Ctrl-C or a failed run. */
	status = ws_result_has_samples(&res) ? cli_compare_finish(&cc, &res, c.functions != NULL) : WS_EXIT_FAIL;
	status = cli_measure_status(ret, status, &res, c.export_json && status != WS_EXIT_FAIL);
	ws_result_release(&res);
	for (size_t i = 0; i < progs.n; i++)
		cli_free_argv(progs.v[i].argv);
	for (size_t i = 0; i < progs.nowned; i++)
		free(progs.owned[i]);
	free(progs.v);
	free(progs.owned);
	string_list_clear(&names);
	cli_measure_release(&c);
	cli_compare_release(&cc);
	params_release(&params);
	free(args);
	return status;
}
