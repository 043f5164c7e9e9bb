/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-diff.c - `whyslow diff`: compare saved results, e.g. a baseline kept in the repository, in CI. */
#include "builtin.h"
#include "cli-compare.h"
#include "cli-measure.h"
#include "compare/compare.h"
#include "core/log.h"
#include "core/util.h"
#include "result/result-json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const diff_usage[] = {
	"whyslow diff [options] <base.json> <new.json> [<more.json>...]",
	NULL,
};

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/*
 * Machine fingerprints that make samples incomparable: CPU model, kernel, backend, simulator preset.
 * `first` holds the first file's machine.
 */
static int fingerprint_check(const struct ws_result *first, const struct ws_result *r, const char *fa,
			     const char *fb, bool strict)
{
	/*
	 * `none`: what a missing value reads as. An unknown CPU is "?", but a missing preset is known: no
	 * simulator ran (`by_backend`), which is the backend's difference where that differs too.
	 */
	struct {
		const char *what, *a, *b, *none;
		bool by_backend;
	} f[] = {
		{ "CPU", first->machine.cpu, r->machine.cpu, "'?'", false },
		{ "kernel", first->machine.kernel, r->machine.kernel, "'?'", false },
		{ "backend", first->machine.backend, r->machine.backend, "'?'", false },
		{ "simulator preset", first->machine.sim_preset, r->machine.sim_preset, "none (no simulator)", true },
	};
	bool backend_differs = !same(first->machine.backend, r->machine.backend);

	for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
		char *a, *b;

		if (same(f[i].a, f[i].b))
			continue;
		/* A simulator on one side only is the backend line's difference: said once, there. */
		if (f[i].by_backend && backend_differs && (!f[i].a || !f[i].b))
			continue;
		a = f[i].a ? xasprintf("'%s'", f[i].a) : xstrdup(f[i].none);
		b = f[i].b ? xasprintf("'%s'", f[i].b) : xstrdup(f[i].none);
		if (strict) {
			fprintf(stderr, "whyslow diff: %s differs: %s in %s, %s in %s; refusing with --strict\n",
				f[i].what, a, fa, b, fb);
			free(a);
			free(b);
			return -1;
		}
		ws_log(WS_LOG_WARN, "%s differs: %s in %s, %s in %s; the comparison mixes machines", f[i].what, a,
		       fa, b, fb);
		free(a);
		free(b);
	}
	return 0;
}

/* A list of the settings as it reads in a message: 'a', 'b'; "none" when empty. NULL reads as `dflt`. */
static char *strings_show(char *const *v, const char *dflt)
{
	char *out = NULL;

	if (!v && dflt)
		return xasprintf("'%s'", dflt);
	for (char *const *e = v; e && *e; e++) {
		char *next = xasprintf("%s%s'%s'", out ? out : "", out ? ", " : "", *e);

		free(out);
		out = next;
	}
	return out ? out : xstrdup("none");
}

/*
 * How the programs were run: hooks, input, output and shell. Results measured differently are compared all
 * the same (it may be the point), with a warning for each difference; --strict is about machines.
 */
static void settings_check(const struct ws_settings *a, const struct ws_settings *b, const char *fa,
			   const char *fb)
{
	struct {
		const char *what;
		char *const *a, *const *b;
		const char *dflt;
	} lists[] = {
		{ "--setup", a->setup, b->setup, NULL },
		{ "--prepare", a->prepare, b->prepare, NULL },
		{ "--conclude", a->conclude, b->conclude, NULL },
		{ "--cleanup", a->cleanup, b->cleanup, NULL },
		{ "--output", a->output, b->output, "null" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(lists); i++) {
		char *sa = strings_show(lists[i].a, lists[i].dflt), *sb = strings_show(lists[i].b, lists[i].dflt);

		if (strcmp(sa, sb))
			ws_log(WS_LOG_WARN, "%s differs: %s in %s, %s in %s; the programs were run differently",
			       lists[i].what, sa, fa, sb, fb);
		free(sa);
		free(sb);
	}
	if (!same(a->input, b->input))
		ws_log(WS_LOG_WARN, "--input differs: '%s' in %s, '%s' in %s; the programs read different input",
		       a->input ? a->input : "null", fa, b->input ? b->input : "null", fb);
	else if (a->input && a->input_bytes != b->input_bytes && !(isnan(a->input_bytes) && isnan(b->input_bytes)))
		ws_log(WS_LOG_WARN, "--input '%s' held %.0f bytes in %s, %.0f in %s; the programs read different input",
		       a->input, a->input_bytes, fa, b->input_bytes, fb);
	if (a->shell != b->shell)
		ws_log(WS_LOG_WARN, "--shell differs: %s in %s, %s in %s; the commands were run differently",
		       a->shell ? "on" : "off", fa, b->shell ? "on" : "off", fb);
}

/* Move every variant of `from` into `to`, renaming on a clash as "file:name". */
static void take_variants(struct ws_result *to, struct ws_result *from, const char *file)
{
	for (size_t i = 0; i < from->nvariants; i++) {
		struct ws_variant *src = &from->variants[i], *dst;
		char *name = ws_result_find_variant(to, src->name) ? xasprintf("%s:%s", file, src->name)
								  : xstrdup(src->name);

		WS_ALLOC_GROW(to->variants, to->nvariants + 1, to->alloc_variants);
		dst = &to->variants[to->nvariants++];
		*dst = *src;
		free(dst->name);
		dst->name = name;
		dst->baseline = false;
	}
	/* The variants' contents now belong to `to`. */
	free(from->variants);
	from->variants = NULL;
	from->nvariants = from->alloc_variants = 0;
	/* The file's own warnings, less those comparing the samples again will make again (said once). */
	for (size_t i = 0; i < from->nwarnings; i++)
		if (!ws_compare_made_warning(from->warnings[i]))
			ws_result_warn(to, "%s: %s", file, from->warnings[i]);
	if (from->partial) {
		ws_result_warn(to, "%s holds a partial result (%s)", file,
			       from->partial_reason ? from->partial_reason : "stopped early");
		/* A comparison resting on it is partial too: its exports say so, as the warning does here. */
		if (!to->partial) {
			to->partial = true;
			free(to->partial_reason);
			to->partial_reason = xasprintf("%s holds a partial result (%s)", file,
						       from->partial_reason ? from->partial_reason : "stopped early");
		}
	}
}

/*
 * --metric and --primary must name a metric of the results: checked once they are read, and before any
 * warning about them, as a usage error (129). A metric that is there but was not measured is the
 * measurement's fault, said later with its reason (cli_compare_finish(), exit 1).
 */
static void check_metric_names(const struct cli_compare *cc, const struct ws_result *all)
{
	const char *opt = cc->metric ? "--metric" : "--primary", *name = cc->metric ? cc->metric : cc->primary;
	const struct ws_variant *b = NULL;
	char *have = NULL;

	if (!name)
		return;
	for (size_t i = 0; i < all->nvariants; i++) {
		if (ws_metric_set_find(&all->variants[i].metrics, name))
			return;
		if (all->variants[i].baseline)
			b = &all->variants[i];
	}
	if (!b)
		b = &all->variants[0];
	for (size_t i = 0; i < b->metrics.n && i < 6; i++) {
		char *next = xasprintf("%s%s%s", have ? have : "", have ? ", " : "", b->metrics.v[i].name);

		free(have);
		have = next;
	}
	usage_error("%s '%s' is not a metric of these results (the baseline has %s%s)", opt, name,
		    have ? have : "none", b->metrics.n > 6 ? ", ..." : "");
}

/* Progress while reading, on a terminal only: a file of 10^6 runs takes a second to read. */
static void reading(const char *file, size_t i, size_t n)
{
	struct ws_progress p = { .done = i, .total = n, .eta = -1, .phase = "reading", .program = file };

	cli_progress(&p, NULL);
}

int cmd_diff(int argc, char **argv)
{
	struct cli_compare cc = CLI_COMPARE_INIT;
	bool strict = false, functions = false;
	const char *export_json = NULL;
	struct option_spec options[] = {
		OPT_BOOL(0, "strict", &strict, "refuse results from different machines, kernels, backends or presets"),
		OPT_BOOL(0, "regions", &cc.regions, "show per-region tables"),
		OPT_BOOL(0, "functions", &functions, "show per-function tables"),
		CLI_COMPARE_OPTIONS(&cc),
		OPT_GROUP("Exports"),
		OPT_STRING(0, "export-json", &export_json, "FILE", "write the comparison as a result file"),
		CLI_COMPARE_EXPORTS(&cc),
		OPT_END(),
	};
	struct ws_result all, *rs;
	struct ws_settings first; /* how the first file's programs were run, which the others are checked against */
	int n, status = WS_EXIT_FAIL;

	n = parse_options(argc, argv, "whyslow diff", diff_usage, options, 0);
	if (n < 2)
		usage_error("diff needs at least two result files: a baseline and a new one");
	/* Standard input is one stream: a second '-' would read it at its end. */
	for (int i = 0, seen = 0; i < n; i++)
		if (!strcmp(argv[i], "-") && seen++)
			usage_error("'-' (standard input) is given twice: it can hold one result; give the others as files");
	setup_logging(0);
	cli_compare_check(&cc, export_json, argv, n);

	ws_result_init(&all);
	memset(&first, 0, sizeof(first));
	rs = xcalloc((size_t)n, sizeof(*rs));
	for (int i = 0; i < n; i++)
		ws_result_init(&rs[i]);
	/* Read every file first: a usage error (a name the files do not have) comes before any warning. */
	for (int i = 0; i < n; i++) {
		reading(argv[i], (size_t)i, (size_t)n);
		if (ws_result_load(argv[i], &rs[i]) < 0) {
			cli_progress_done();
			goto out;
		}
	}
	cli_progress_done();
	/* The first file's machine and settings describe the comparison. */
	all.machine = rs[0].machine;
	memset(&rs[0].machine, 0, sizeof(rs[0].machine));
	all.settings.seed = rs[0].settings.seed;
	all.settings.runs = rs[0].settings.runs;
	all.settings.warmup = rs[0].settings.warmup;
	first = rs[0].settings;
	memset(&rs[0].settings, 0, sizeof(rs[0].settings));
	for (int i = 0; i < n; i++)
		take_variants(&all, &rs[i], argv[i]);
	cli_compare_pick_baseline(&cc, &all);
	check_metric_names(&cc, &all);
	for (int i = 1; i < n; i++) {
		if (fingerprint_check(&all, &rs[i], argv[0], argv[i], strict) < 0)
			goto out;
		settings_check(&first, &rs[i].settings, argv[0], argv[i]);
	}
	cli_result_prepare(&all, NULL);
	status = cli_compare_finish(&cc, &all, functions);
out:
	for (int i = 0; i < n; i++)
		ws_result_release(&rs[i]);
	free(rs);
	ws_result_release(&all);
	ws_settings_release(&first);
	cli_compare_release(&cc);
	return status;
}
