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
#include "cli-plan.h"
#include "core/log.h"
#include "core/util.h"
#include "measure/measure.h"
#include "result/metrics.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const compare_usage[] = {
	"whyslow compare [options] <baseline command> <variant command>...",
	"whyslow compare [options] -L VAR a,b,c '<command using {VAR}>'",
	"whyslow compare [options] -P VAR MIN MAX [-D STEP] '<command using {VAR}>'",
	NULL,
};

struct param {
	char *name;
	char **values;
	size_t n;
	const char *opt;        /* "-L" or "-P", for messages */
	char *min, *max;        /* -P as given; its values are made once -D is known */
};

/* The parameters of -L and -P, in order, and the strings join_parameter_lists() made, freed with the command. */
struct params {
	struct param *v;
	size_t n, alloc;
	char **joined;
	size_t njoined;
	const char *step;       /* -D, as given */
};

static void check_name(const char *opt, const char *name)
{
	for (const char *s = name; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			usage_error("%s: parameter name '%s' may hold only letters, digits and '_'", opt, name);
}

static void add_param(struct params *ps, struct param *p)
{
	for (size_t i = 0; i < ps->n; i++)
		if (!strcmp(ps->v[i].name, p->name))
			usage_error("%s %s: a parameter of that name is given already", p->opt, p->name);
	WS_ALLOC_GROW(ps->v, ps->n + 1, ps->alloc);
	ps->v[ps->n++] = *p;
}

static int parameter_cb(const struct option_spec *opt, const char *arg)
{
	struct params *ps = opt->value;
	const char *eq = strchr(arg, '=');
	struct param p = { .opt = "-L" };
	size_t alloc = 0, len = 0;
	char *val;

	if (!eq || eq == arg)
		usage_error("-L expects a name and a list of values: -L VAR a,b,c");
	p.name = xstrndup(arg, (size_t)(eq - arg));
	check_name("-L", p.name);
	/*
	 * As hyperfine splits the list: at every comma but an escaped one ("\,"; "\\" is a backslash), an
	 * empty value kept, so that "-L opt ,-O2" measures the command without the option and with it.
	 */
	val = xmalloc(strlen(eq + 1) + 1);
	for (const char *c = eq + 1;; c++) {
		if (*c == '\\' && (c[1] == ',' || c[1] == '\\')) {
			val[len++] = *++c;
			continue;
		}
		if (*c && *c != ',') {
			val[len++] = *c;
			continue;
		}
		WS_ALLOC_GROW(p.values, p.n + 1, alloc);
		p.values[p.n++] = xstrndup(val, len);
		len = 0;
		if (!*c)
			break;
	}
	free(val);
	add_param(ps, &p);
	return 0;
}

/* -P, joined by join_parameter_lists() into "VAR MIN MAX". */
static int scan_cb(const struct option_spec *opt, const char *arg)
{
	struct params *ps = opt->value;
	struct param p = { .opt = "-P" };
	char *copy = xstrdup(arg), *save = NULL, *w[4] = { NULL };
	size_t n = 0;

	for (char *tok = strtok_r(copy, " ", &save); tok && n < 4; tok = strtok_r(NULL, " ", &save))
		w[n++] = tok;
	if (n != 3)
		usage_error("-P expects a name, a minimum and a maximum: -P VAR MIN MAX");
	for (size_t i = 0; i < ps->n; i++)
		if (ps->v[i].min)
			usage_error("-P is given twice: a second parameter takes -L");
	p.name = xstrdup(w[0]);
	check_name("-P", p.name);
	p.min = xstrdup(w[1]);
	p.max = xstrdup(w[2]);
	free(copy);
	add_param(ps, &p);
	return 0;
}

/* A decimal number as hyperfine reads one: `mant` / 10^`scale`, with the scale it was written with. */
struct decimal {
	long long mant;
	int scale;
};

/* [+-]digits[.digits]: 0, with *integer (if not NULL) telling whether it had no point; -1 if it is no such number. */
static int parse_decimal(const char *s, struct decimal *d, bool *integer)
{
	const char *p = s + (*s == '+' || *s == '-');
	bool point = false;
	int digits = 0;

	d->mant = 0;
	d->scale = 0;
	for (; *p; p++) {
		if (*p == '.' && !point) {
			point = true;
			continue;
		}
		if (!isdigit((unsigned char)*p) || ++digits > 18)
			return -1;
		d->mant = d->mant * 10 + (*p - '0');
		d->scale += point;
	}
	if (!digits)
		return -1;
	if (*s == '-')
		d->mant = -d->mant;
	if (integer)
		*integer = !point;
	return 0;
}

/* `d` (at scale `from`) at scale `to` >= from; false when it overflows. */
static bool rescale(long long mant, int from, int to, long long *out)
{
	for (int i = from; i < to; i++)
		if (__builtin_mul_overflow(mant, 10, &mant))
			return false;
	*out = mant;
	return true;
}

/* `mant` / 10^`scale` as hyperfine prints it: 0.50 stays 0.50, an integer has no point. */
static char *decimal_str(long long mant, int scale)
{
	unsigned long long a = mant < 0 ? 0ULL - (unsigned long long)mant : (unsigned long long)mant, p = 1;

	if (!scale)
		return xasprintf("%lld", mant);
	for (int i = 0; i < scale; i++)
		p *= 10;
	return xasprintf("%s%llu.%0*llu", mant < 0 ? "-" : "", a / p, scale, a % p);
}

/* hyperfine's bound, that a typo in MAX does not make a million programs. */
#define SCAN_MAX_VALUES 100000

/*
 * The values of -P VAR MIN MAX [-D STEP], as hyperfine makes them: integers when the three are integers
 * (STEP 1 when not given), else decimals, which need -D; MIN, MIN + STEP, ... up to MAX. The first value
 * keeps MIN's digits after the point, the others those of MIN or STEP, whichever has more (-P x 0 1 -D 0.25:
 * 0, 0.25, 0.50, 0.75, 1.00). Decimals are added exactly, as hyperfine's are.
 */
static void scan_values(struct param *p, const char *step_s)
{
	struct decimal lo, hi, step;
	bool int_lo, int_hi;
	long long a, b, d, span, v;
	int scale, shown;
	size_t alloc = 0;

	if (parse_decimal(p->min, &lo, &int_lo) < 0 || parse_decimal(p->max, &hi, &int_hi) < 0)
		usage_error("-P %s: MIN and MAX must be numbers, not '%s' and '%s'", p->name, p->min, p->max);
	if (step_s && parse_decimal(step_s, &step, NULL) < 0)
		usage_error("-D expects a number, not '%s'", step_s);
	if (!step_s) {
		if (!int_lo || !int_hi)
			usage_error("-P %s %s %s: decimal bounds need a step: -D STEP", p->name, p->min, p->max);
		step = (struct decimal){ 1, 0 };
	}
	scale = lo.scale > hi.scale ? lo.scale : hi.scale;
	scale = step.scale > scale ? step.scale : scale;
	if (!rescale(lo.mant, lo.scale, scale, &a) || !rescale(hi.mant, hi.scale, scale, &b) ||
	    !rescale(step.mant, step.scale, scale, &d) || __builtin_sub_overflow(b, a, &span))
		usage_error("-P %s: the numbers have too many digits", p->name);
	if (d <= 0)
		usage_error("-D %s: the step must be above zero", step_s);
	if (span < 0)
		usage_error("-P %s %s %s: MIN is above MAX", p->name, p->min, p->max);
	if (span / d >= SCAN_MAX_VALUES)
		usage_error("-P %s %s %s: more than %d values; use a larger step (-D)", p->name, p->min, p->max,
			    SCAN_MAX_VALUES);
	shown = lo.scale > step.scale ? lo.scale : step.scale;
	/* span / d + 1 values: MIN + k STEP never passes MAX, so never overflows. */
	for (long long k = 0; k <= span / d; k++) {
		int ds = k ? shown : lo.scale;

		v = a + k * d;
		/* Exact: MIN is a multiple of 10^-lo.scale, and every later value of 10^-shown. */
		for (int i = ds; i < scale; i++)
			v /= 10;
		WS_ALLOC_GROW(p->values, p->n + 1, alloc);
		p->values[p->n++] = decimal_str(v, ds);
	}
}

static void params_release(struct params *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		for (size_t j = 0; j < ps->v[i].n; j++)
			free(ps->v[i].values[j]);
		free(ps->v[i].values);
		free(ps->v[i].name);
		free(ps->v[i].min);
		free(ps->v[i].max);
	}
	free(ps->v);
	for (size_t i = 0; i < ps->njoined; i++)
		free(ps->joined[i]);
	free(ps->joined);
	memset(ps, 0, sizeof(*ps));
}

/*
 * hyperfine writes `-L VAR a,b,c` and `-P VAR MIN MAX`: two and three arguments after the option. getopt
 * takes one, so join them into "VAR=a,b,c" and "VAR MIN MAX" first (MIN may be negative: "-1").
 */
static char **join_parameter_lists(struct params *ps, int argc, char **argv, int *out_argc)
{
	char **nv = xcalloc((size_t)argc + 1, sizeof(*nv));
	int n = 0;

	for (int i = 0; i < argc; i++) {
		bool is_l = !strcmp(argv[i], "-L") || !strcmp(argv[i], "--parameter-list");
		bool is_p = !strcmp(argv[i], "-P") || !strcmp(argv[i], "--parameter-scan");

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
		} else if (is_p) {
			if (i + 3 >= argc)
				usage_error("-P expects a name, a minimum and a maximum: -P VAR MIN MAX");
			nv[n++] = xasprintf("%s %s %s", argv[i + 1], argv[i + 2], argv[i + 3]);
			ps->joined = xrealloc(ps->joined, (ps->njoined + 1) * sizeof(*ps->joined));
			ps->joined[ps->njoined++] = nv[n - 1];
			i += 3;
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

static void program_list_release(struct program_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		cli_free_argv(l->v[i].argv);
		cli_program_release(&l->v[i]);
		free((struct ws_param *)l->v[i].params);
	}
	for (size_t i = 0; i < l->nowned; i++)
		free(l->owned[i]);
	free(l->v);
	free(l->owned);
}

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
	memset(p, 0, sizeof(*p));
	p->name = keep(l, name);
	p->command = keep(l, command);
	p->argv = cli_command_argv(command, shell);
	if (!p->argv)
		usage_error("cannot split command '%s' into words: unbalanced quotes, or empty", command);
	/*
	 * './sp ace' where that file exists: split at its space, './sp' is no program, and "command not found"
	 * about './sp' leaves the cause to guess. Said with the fix, the quotes the command string needs.
	 */
	if (!shell && p->argv[0] && p->argv[1] && access(command, F_OK) == 0) {
		char *found = ws_find_in_path(p->argv[0]);

		if (!found)
			usage_error("'%s' names a file, but a command is split into words at its spaces ('%s' ...): "
				    "quote it, as \"'%s'\"", command, p->argv[0], command);
		free(found);
	}
}

/* One combination of the parameters' values, for substituting them into the hooks. */
struct combination {
	const struct params *ps;
	const size_t *choice;
};

static char *substitute_hook(const char *s, void *data)
{
	const struct combination *cb = data;

	return substitute(cb->ps, s, cb->choice);
}

static void expand(struct program_list *l, const struct params *ps, char **cmds, size_t ncmds,
		   const struct string_list *names, struct cli_measure *cm)
{
	struct string_list outputs = { 0 };
	bool output_vars = false;
	size_t nparams = ps->n, combos = 1, *choice = xcalloc(nparams + 1, sizeof(*choice));
	struct combination cb = { ps, choice };
	bool shell = cm->shell;

	for (size_t k = 0; k < nparams; k++) {
		char *key = xasprintf("{%s}", ps->v[k].name);
		bool used = false;

		combos *= ps->v[k].n;
		/* In a command, or only in a hook (--prepare 'git checkout {rev}' with one command). */
		for (size_t c = 0; c < ncmds; c++)
			used |= strstr(cmds[c], key) != NULL;
		for (size_t h = 0; h < WS_NHOOKS; h++)
			for (size_t j = 0; j < cm->hooks[h].n; j++)
				used |= strstr(cm->hooks[h].v[j], key) != NULL;
		for (size_t j = 0; j < cm->output.n; j++)
			output_vars |= strstr(cm->output.v[j], key) != NULL;
		if (!used)
			usage_error("%s %s: no command uses {%s}, nor any hook", ps->v[k].opt, ps->v[k].name,
				    ps->v[k].name);
		free(key);
	}
	if (names->n && names->n != ncmds * combos && !(nparams && names->n == ncmds)) {
		if (nparams)
			usage_error("%zu name%s (-n) for %zu program%s of %zu command%s: give one -n per program, one "
				    "per command, or none", names->n, names->n == 1 ? "" : "s", ncmds * combos,
				    ncmds * combos == 1 ? "" : "s", ncmds, ncmds == 1 ? "" : "s");
		usage_error("%zu name%s (-n) for %zu program%s: give one -n per program, or none", names->n,
			    names->n == 1 ? "" : "s", ncmds * combos, ncmds * combos == 1 ? "" : "s");
	}
	cli_measure_check_programs(cm, ncmds * combos);
	/* A name that shows nothing is a blank column header and a why line about '': a slip ("-n $NAME"). */
	for (size_t i = 0; i < names->n; i++)
		if (!names->v[i][strspn(names->v[i], " \t\n")])
			usage_error("-n '%s' (name %zu of %zu) is empty: give each program a name it can be told by, "
				    "or no -n", names->v[i], i + 1, names->n);
	/* The commands as given, before {VAR}: a value is data, not syntax (-L re 'a|b' 'grep -E {re}'). */
	for (size_t c = 0; c < ncmds && !shell; c++)
		cli_refuse_shell_syntax("command", cmds[c]);
	/*
	 * hyperfine's order: every command with the first combination of values, then every command with the
	 * next, the first parameter varying fastest.
	 */
	memset(choice, 0, (nparams + 1) * sizeof(*choice));
	for (size_t i = 0; i < combos; i++) {
		for (size_t c = 0; c < ncmds; c++) {
			char *command = substitute(ps, cmds[c], choice), *name;

			if (names->n == ncmds * combos)
				name = xstrdup(names->v[i * ncmds + c]);
			else if (names->n)
				name = substitute(ps, names->v[c], choice); /* one -n per command, with {VAR} */
			else if (nparams) {
				/* Named after the values, as the table's columns read best that way; '' is empty. */
				char *s = xstrdup("");

				for (size_t k = 0; k < nparams; k++) {
					const char *v = ps->v[k].values[choice[k]];
					char *t = xasprintf("%s%s%s", s, k ? "," : "", *v ? v : "''");

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
			cli_measure_program(cm, &l->v[l->n - 1], l->n - 1, substitute_hook, &cb);
			/* --output out-{VAR}.txt: a file per program, as its command has its values. */
			if (output_vars) {
				const char *given = cm->output.v[cm->output.n == 1 ? 0 : l->n - 1];

				string_list_append(&outputs, keep(l, substitute(ps, given, choice)));
				if (l->v[l->n - 1].output == WS_OUTPUT_FILE)
					l->v[l->n - 1].output_path = outputs.v[outputs.n - 1];
			}
			if (nparams) {
				struct ws_param *pv = xcalloc(nparams, sizeof(*pv));

				for (size_t k = 0; k < nparams; k++)
					pv[k] = (struct ws_param){ ps->v[k].name, ps->v[k].values[choice[k]] };
				l->v[l->n - 1].params = pv;
				l->v[l->n - 1].nparams = nparams;
			}
		}
		/* The next combination. */
		for (size_t k = 0; k < nparams; k++) {
			if (++choice[k] < ps->v[k].n)
				break;
			choice[k] = 0;
		}
	}
	free(choice);
	/* The checks before the first run, --plan-jobs and the result's settings then see every program's file. */
	if (output_vars) {
		string_list_clear(&cm->output);
		cm->output = outputs;
	}
	/*
	 * The same command twice is an A/A check, common practice: name the copies "cmd #2", "cmd #3" as they
	 * come. Names given with -n are the user's own, and two equal ones stay a mistake.
	 */
	for (size_t i = 0; i < l->n; i++) {
		size_t copy = 1;

		for (size_t j = i + 1; j < l->n; j++) {
			if (strcmp(l->v[i].name, l->v[j].name))
				continue;
			if (names->n)
				usage_error("two programs are named '%s'; name them apart with -n", l->v[i].name);
			l->v[j].name = keep(l, xasprintf("%s #%zu", l->v[i].name, ++copy));
		}
	}
}

/* The parameters, for the result's settings: each one's values, and -P's bounds and step as given. */
static void record_parameters(const struct params *ps, struct ws_result *r)
{
	if (!ps->n)
		return;
	r->settings.parameters = xcalloc(ps->n, sizeof(*r->settings.parameters));
	for (size_t i = 0; i < ps->n; i++) {
		const struct param *p = &ps->v[i];
		struct ws_parameter *q = &r->settings.parameters[i];

		q->name = xstrdup(p->name);
		q->values = xcalloc(p->n + 1, sizeof(char *));
		for (size_t j = 0; j < p->n; j++)
			q->values[j] = xstrdup(p->values[j]);
		if (p->min) {
			q->min = xstrdup(p->min);
			q->max = xstrdup(p->max);
			q->step = xstrdup(ps->step ? ps->step : "1");
		}
	}
	r->settings.nparameters = ps->n;
}

int compare_main(int argc, char **argv, ws_supply_fn supply, void *supply_data, cli_programs_check_fn check)
{
	const char *plan_jobs = NULL;
	struct cli_measure c = CLI_MEASURE_INIT;
	struct cli_compare cc = CLI_COMPARE_INIT;
	struct string_list names = { 0 };
	struct params params = { 0 };
	struct option_spec options[] = {
		OPT_LIST('n', "name", &names, "NAME", "name of the next program, in order (may use {VAR})"),
		OPT_CALLBACK('L', "parameter-list", &params, "VAR a,b,c",
			     "expand {VAR} in the commands over these values", parameter_cb),
		OPT_CALLBACK('P', "parameter-scan", &params, "VAR MIN MAX",
			     "expand {VAR} over MIN, MIN + STEP, ... MAX (with -L: every combination)", scan_cb),
		OPT_STRING('D', "parameter-step-size", &params.step, "STEP",
			   "the step of -P (default 1; decimal bounds need one)"),
		CLI_MEASURE_OPTIONS(&c),
		OPT_STRING(0, "plan-jobs", &plan_jobs, "FILE",
			   "with --backend sim: write each simulation as a command line to FILE instead (see merge)"),
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
	/* Under merge (runs supplied), its messages are merge's: that is the command the user ran. */
	n = parse_options(nargs, args, supply ? "whyslow merge" : "whyslow compare", compare_usage, options, 0);
	if (n == 0)
		usage_error("no commands given: whyslow compare '<baseline>' '<variant>'...");
	{
		bool scan = false;

		for (size_t i = 0; i < params.n; i++)
			if (params.v[i].min) {
				scan_values(&params.v[i], params.step);
				scan = true;
			}
		if (params.step && !scan)
			usage_error("-D is the step of -P: give -P VAR MIN MAX as well");
	}
	expand(&progs, &params, args, (size_t)n, &names, &c);
	if (progs.n < 2)
		usage_error("compare needs a baseline and at least one variant (or -L with two values or more)");
	cc.regions = c.regions;
	cc.full_names = c.verbose;
	/* Stacks come with the callers: asking for them asks for those. */
	c.callers |= cc.export_folded != NULL;
	cli_protect_programs(progs.v, progs.n, c.shell);
	cli_measure_finish(&c, &mo, true);
	cli_export_estimate(&c, &mo, progs.n);
	cli_compare_check(&cc, c.export_json, NULL, 0);
	if (cc.primary) {
		bool given = false;

		for (size_t i = 0; i < c.ev.n; i++)
			given |= !strcmp(c.ev.v[i].name, cc.primary);
		/* Not the registry's: then it must be one of -e's events, or it is found missing only after the runs. */
		if (!given && !ws_metric_info(cc.primary))
			usage_error("--%s '%s' is neither a metric whyslow knows nor one of the -e events; "
				    "'whyslow list' shows the names",
				    cc.metric ? "metric" : "primary", cc.primary);
		/*
		 * The registry's, outside the default set or -e's list (L1-dcache-stores, task-clock beside -e
		 * wall-time): the verdict is about it, so it is measured, rather than found missing after the runs.
		 */
		if (!given && ws_event_list_parse(&c.ev, cc.primary) < 0)
			exit(WS_EXIT_USAGE);
	}
	/* --runs auto decides with what the report will judge: the primary, alpha, the band, test and CI. */
	mo.precision_metric = cc.primary;
	mo.planned = cli_compare_planned;
	mo.planned_data = &cc;
	mo.alpha = cc.alpha;
	mo.noise = cc.noise / 100;
	mo.paired = cc.paired;
	mo.effect = cc.effect && !strcmp(cc.effect, "bootstrap") ? WS_EFFECT_BOOTSTRAP : WS_EFFECT_HL;
	if (cc.reference) {
		mo.baseline = SIZE_MAX;
		for (size_t i = 0; i < progs.n; i++)
			if (!strcmp(progs.v[i].name, cc.reference))
				mo.baseline = i;
		/*
		 * hyperfine's --reference CMD adds a command; here it names one of the programs, and its users
		 * give a command that is not among them. Say so, and which names there are.
		 */
		if (mo.baseline == SIZE_MAX)
			usage_error("--reference '%s' names no program: it takes a program's name here, such as "
				    "'%s' (hyperfine's adds a command): give it as a command too", cc.reference,
				    progs.v[0].name);
	}
	if (plan_jobs && !supply) {
		/* The plan is a file merge reads back, with its manifest beside it: stdout has no "beside". */
		if (!strcmp(cli_stdout_alias(plan_jobs), "-"))
			usage_error("--plan-jobs needs a file, not '%s' (standard output): merge reads the plan and its "
				    "manifest back", plan_jobs);
		cli_check_output("--plan-jobs", plan_jobs);
		cli_plan_write(plan_jobs, &c, &mo, progs.v, progs.n, argv, (size_t)argc);
		status = WS_EXIT_OK;
		goto out;
	}
	if (check)
		check(supply_data, progs.v, progs.n);
	mo.supply = supply;
	mo.supply_data = supply_data;
	cc.measured = true;
	cli_check_tmpdir(&mo);
	cli_install_signals();

	ws_result_init(&res);
	cli_measure_record(&c, &res);
	record_parameters(&params, &res);
	ret = ws_measure(&res, progs.v, progs.n, &mo);
	cli_result_prepare(&res, &c);
	/* Whatever was measured is reported and saved, also after Ctrl-C or a failed run. */
	status = ws_result_has_samples(&res) ? cli_compare_finish(&cc, &res, c.functions != NULL) : WS_EXIT_FAIL;
	status = cli_measure_status(ret, status, &res, c.export_json && status != WS_EXIT_FAIL);
	ws_result_release(&res);
out:
	program_list_release(&progs);
	string_list_clear(&names);
	cli_measure_release(&c);
	cli_compare_release(&cc);
	params_release(&params);
	free(args);
	return status;
}

int cmd_compare(int argc, char **argv)
{
	return compare_main(argc, argv, NULL, NULL, NULL);
}
