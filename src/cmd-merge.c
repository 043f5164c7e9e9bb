/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-merge.c - `whyslow merge`: the result of a compare whose simulations ran elsewhere (--plan-jobs). */
/*
 * $ whyslow compare --backend sim --plan-jobs jobs.txt './old' './new'
 * $ parallel < jobs.txt > pieces          # or parallel --sshlogin ..., or a Slurm job array
 * $ whyslow merge jobs.txt pieces
 *
 * Every piece is checked before anything is written: one from another whyslow, another plan, another
 * build of a program or an edited job line, a duplicate, a missing one or a truncated file is refused in one line, exit 1. Then
 * the compare runs as it would have here, its simulated runs taken from the pieces: the same report, and
 * the same result file, counts to the byte.
 */
#include "builtin.h"
#include "cli-compare.h"
#include "cli-plan.h"
#include "core/util.h"
#include "ws-config.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const merge_usage[] = {
	"whyslow merge [options] <plan> <piece file>...",
	NULL,
};

/*
 * The exports merge takes, the planned compare's options of the same names: the result goes where the
 * plan's --export-* said, but for the kinds given here. Not --export-folded: the stacks are the plan's to
 * ask for (compare --callers or --export-folded), as the jobs must record them.
 */
static const char *const export_opts[] = { "--export-json", "--export-csv", "--export-markdown", "--export-html" };

/* Whether plan argument `arg` is export option `opt`, as "--export-json" (its value next) or "--export-json=F". */
static int is_export(const char *arg, const char *opt)
{
	size_t n = strlen(opt);

	if (strncmp(arg, opt, n))
		return 0;
	return !arg[n] ? 2 : arg[n] == '=' ? 1 : 0;
}

struct merge {
	const char *plan_path;
	json_t *manifest;
	const char *plan_id;
	size_t nprogs, runs;
	struct piece_list pieces;
	struct piece **slot;  /* [prog * runs + run] */
};

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "whyslow merge: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(WS_EXIT_FAIL);
}

static const char *program_name(const struct merge *m, size_t i)
{
	return json_string_value(json_object_get(json_array_get(json_object_get(m->manifest, "programs"), i),
						 "name"));
}

static void read_manifest(struct merge *m)
{
	char *path = xasprintf("%s.manifest", m->plan_path);
	json_error_t err;
	json_t *progs, *args, *digests;
	const char *format, *version;

	if (ws_not_regular(path))
		fail("cannot read the plan's manifest '%s': it is %s", path, ws_not_regular(path));
	m->manifest = json_load_file(path, 0, &err);
	if (!m->manifest) {
		if (access(path, F_OK) < 0)
			fail("'%s' has no manifest '%s': give the plan compare --plan-jobs wrote", m->plan_path, path);
		fail("cannot read the plan's manifest '%s': %s (line %d)", path, ws_escape_ctl(err.text), err.line);
	}
	format = json_string_value(json_object_get(m->manifest, "format"));
	version = json_string_value(json_object_get(m->manifest, "whyslow"));
	m->plan_id = json_string_value(json_object_get(m->manifest, "plan"));
	progs = json_object_get(m->manifest, "programs");
	args = json_object_get(m->manifest, "arguments");
	if (!format || strcmp(format, WS_PLAN_FORMAT) || !m->plan_id || !json_is_array(progs) ||
	    !json_is_array(args) || !json_is_integer(json_object_get(m->manifest, "runs")))
		fail("'%s' is not the manifest of a whyslow plan", path);
	if (!version || strcmp(version, WS_VERSION))
		fail("the plan was made by whyslow %s, and this is %s: plan and merge with the same whyslow",
		     version ? version : "(unknown)", WS_VERSION);
	m->nprogs = json_array_size(progs);
	m->runs = (size_t)json_integer_value(json_object_get(m->manifest, "runs"));
	for (size_t i = 0; i < m->nprogs; i++)
		if (!json_is_string(json_object_get(json_array_get(progs, i), "build_id")) || !program_name(m, i))
			fail("'%s' is not the manifest of a whyslow plan", path);
	for (size_t i = 0; i < json_array_size(args); i++)
		if (!json_is_string(json_array_get(args, i)))
			fail("'%s' is not the manifest of a whyslow plan", path);
	digests = json_object_get(m->manifest, "job_digests");
	if (json_array_size(digests) != m->nprogs * m->runs)
		fail("'%s' is not the manifest of a whyslow plan", path);
	for (size_t i = 0; i < json_array_size(digests); i++)
		if (!json_is_string(json_array_get(digests, i)))
			fail("'%s' is not the manifest of a whyslow plan", path);
	free(path);
}

/* Every piece belongs to this plan and this whyslow, comes once, and none is missing. */
static void check_pieces(struct merge *m)
{
	json_t *progs = json_object_get(m->manifest, "programs");

	m->slot = xcalloc(m->nprogs * m->runs + 1, sizeof(*m->slot));
	for (size_t i = 0; i < m->pieces.n; i++) {
		struct piece *p = &m->pieces.v[i];
		const char *want;

		if (strcmp(p->version, WS_VERSION))
			fail("%s was made by whyslow %s, and this is %s: run its job with this whyslow", p->source,
			     p->version, WS_VERSION);
		if (strcmp(p->plan, m->plan_id))
			fail("%s belongs to another plan (%s, not %s): give the pieces of %s's jobs", p->source,
			     p->plan, m->plan_id, m->plan_path);
		if (p->prog >= m->nprogs || p->run >= m->runs)
			fail("%s names program %zu run %zu, which the plan does not have", p->source, p->prog, p->run);
		want = json_string_value(json_object_get(json_array_get(progs, p->prog), "build_id"));
		if (strcmp(p->build_id, want))
			fail("%s simulated another build of '%s' (build-id %s, the plan's %s): run its job with the "
			     "planned binary, or plan again",
			     p->source, program_name(m, p->prog), p->build_id, want);
		/* The job's line as compare wrote it: an edited one simulated something the plan does not say. */
		want = json_string_value(json_array_get(json_object_get(m->manifest, "job_digests"),
							p->run * m->nprogs + p->prog));
		if (strcmp(p->job, want))
			fail("%s was run from a line other than line %zu of %s (its command, options, directory or "
			     "environment were changed): run the line as compare wrote it, or plan again",
			     p->source, p->run * m->nprogs + p->prog + 1, m->plan_path);
		if (m->slot[p->prog * m->runs + p->run])
			fail("%s and %s are both run %zu of '%s': give each job's piece once", m->slot[p->prog * m->runs +
			     p->run]->source, p->source, p->run + 1, program_name(m, p->prog));
		m->slot[p->prog * m->runs + p->run] = p;
	}
	for (size_t k = 0; k < m->runs; k++)
		for (size_t i = 0; i < m->nprogs; i++)
			if (!m->slot[i * m->runs + k])
				fail("no piece for run %zu of '%s' (line %zu of %s): run that job and give its output",
				     k + 1, program_name(m, i), k * m->nprogs + i + 1, m->plan_path);
}

/*
 * The binaries here are those the plan simulated: the result's function rows take their inlined code,
 * files and lines from the binary on this machine, and another build's would give rows that never ran.
 * One not found here is left as it is (its rows keep the names the pieces hold).
 */
static void check_programs(void *data, const struct ws_program *progs, size_t n)
{
	struct merge *m = data;
	json_t *planned = json_object_get(m->manifest, "programs");

	for (size_t i = 0; i < n && i < m->nprogs; i++) {
		const char *want = json_string_value(json_object_get(json_array_get(planned, i), "build_id"));
		char *id = cli_program_id(progs[i].argv);

		if (strcmp(id, "unknown") && strcmp(id, want))
			fail("'%s' here is another build than the plan simulated (build-id %s, the plan's %s): merge "
			     "where that binary is, or plan and run the jobs again",
			     progs[i].argv[0], id, want);
		free(id);
	}
}

/* The session's run of program `prog`, `run`: its piece's files into the run's directory. */
static int supply(void *data, size_t prog, size_t run, const char *dir, struct ws_run_outcome *out)
{
	struct merge *m = data;
	const struct piece *p = prog < m->nprogs && run < m->runs ? m->slot[prog * m->runs + run] : NULL;

	if (!p || !dir)
		return fprintf(stderr, "whyslow merge: no piece for run %zu of program %zu\n", run + 1, prog), -ENOENT;
	for (size_t i = 0; i < p->nfiles; i++) {
		char *path = xasprintf("%s/%s", dir, p->files[i].name);
		int err = ws_write_atomic(path, p->files[i].data, p->files[i].len);

		free(path);
		if (err < 0) {
			fprintf(stderr, "whyslow merge: cannot put %s's results in '%s': %s\n", p->source, dir,
				strerror(-err));
			return err;
		}
	}
	*out = p->out;
	return 0;
}

int cmd_merge(int argc, char **argv)
{
	const char *exports[ARRAY_SIZE(export_opts)] = { NULL };
	struct option_spec options[] = {
		OPT_STRING(0, "export-json", &exports[0], "FILE", "the result as JSON, here rather than where the plan said"),
		OPT_STRING(0, "export-csv", &exports[1], "FILE", "every comparison as CSV, in place of the plan's"),
		OPT_STRING(0, "export-markdown", &exports[2], "FILE", "the report as Markdown, in place of the plan's"),
		OPT_STRING(0, "export-html", &exports[3], "FILE", "the HTML report with plots, in place of the plan's"),
		OPT_END(),
	};
	char *own[ARRAY_SIZE(export_opts)] = { NULL }, here[PATH_MAX];
	struct merge m = { 0 };
	const char *cwd;
	json_t *args;
	char **cargv;
	size_t ncargv, nargs, k = 0;
	int n, status;

	n = parse_options(argc, argv, "whyslow merge", merge_usage, options, 0);
	if (n < 2)
		usage_error("give the plan compare --plan-jobs wrote, then the files its jobs printed");
	m.plan_path = argv[0];
	read_manifest(&m);
	for (int i = 1; i < n; i++)
		if (cli_piece_read(argv[i], &m.pieces) < 0)
			exit(WS_EXIT_FAIL);
	check_pieces(&m);
	/* An export over what merge reads would lose it: the plan, its manifest or a piece. */
	for (size_t e = 0; e < ARRAY_SIZE(export_opts); e++) {
		char *manifest = xasprintf("%s.manifest", m.plan_path);

		for (int i = -1; exports[e] && i < n; i++)
			if (ws_same_file(exports[e], i < 0 ? manifest : argv[i]))
				usage_error("%s '%s' is %s: writing it would replace it", export_opts[e], exports[e],
					    i < 0 ? "the plan's manifest" : i == 0 ? "the plan" : "a piece being merged");
		free(manifest);
	}
	/*
	 * The plan's arguments are relative to its directory (--input ../data, ./prog, --export-json r.json),
	 * so the compare runs there, wherever merge was started; merge's own exports stay relative to here.
	 */
	cwd = json_string_value(json_object_get(m.manifest, "cwd"));
	if (!cwd || !getcwd(here, sizeof(here)))
		fail("cannot tell the plan's directory or this one: merge in the directory the plan was made in");
	for (size_t e = 0; e < ARRAY_SIZE(export_opts); e++)
		if (exports[e] && exports[e][0] != '/' && strcmp(exports[e], "-"))
			exports[e] = own[e] = xasprintf("%s/%s", here, exports[e]);
	if (chdir(cwd) < 0)
		fail("cannot work in the plan's directory '%s': %s (merge where the plan was made)", cwd,
		     strerror(errno));
	args = json_object_get(m.manifest, "arguments");
	nargs = json_array_size(args);
	/*
	 * The plan's arguments, less its exports of the kinds given here, with these right after the command
	 * word: they replace the plan's without relying on the last of an option winning, or on options
	 * being taken after the programs. The plan's options end at its "--", if any.
	 */
	cargv = xcalloc(nargs + 2 * ARRAY_SIZE(export_opts) + 1, sizeof(*cargv));
	for (size_t i = 0, opts = 1; i < nargs; i++) {
		const char *a = json_string_value(json_array_get(args, i));
		int skip = 0;

		if (opts && !strcmp(a, "--"))
			opts = 0;
		for (size_t e = 0; opts && i > 0 && !skip && e < ARRAY_SIZE(export_opts); e++)
			if (exports[e])
				skip = is_export(a, export_opts[e]);
		if (skip) {
			i += (size_t)skip - 1; /* and its value, when apart */
			continue;
		}
		cargv[k++] = xstrdup(a);
		if (i == 0)
			for (size_t e = 0; e < ARRAY_SIZE(export_opts); e++)
				if (exports[e]) {
					cargv[k++] = xstrdup(export_opts[e]);
					cargv[k++] = xstrdup(exports[e]);
				}
	}
	ncargv = k;
	status = compare_main((int)ncargv, cargv, supply, &m, check_programs);
	for (size_t i = 0; i < ncargv; i++)
		free(cargv[i]);
	free(cargv);
	for (size_t e = 0; e < ARRAY_SIZE(export_opts); e++)
		free(own[e]);
	for (size_t i = 0; i < m.pieces.n; i++)
		cli_piece_release(&m.pieces.v[i]);
	free(m.pieces.v);
	free(m.slot);
	json_decref(m.manifest);
	return status;
}
