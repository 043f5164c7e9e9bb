/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd-sim-job.c - `whyslow sim-job`: one simulation of a plan (compare --plan-jobs), its piece on stdout. */
/*
 * $ whyslow sim-job --plan 5c1d... --program 1 --run 0 --sim-preset zen4 -- ./prog --size 10 > piece
 *
 * The lines of a plan call it; it runs the command under the simulator exactly as compare would (the
 * same backend, options and environment), and prints what the simulator left, with what identifies the
 * run, for `whyslow merge` (the format is in cli-plan.h).
 */
#include "builtin.h"
#include "cli-measure.h"
#include "cli-plan.h"
#include "backend/backend.h"
#include "measure/measure.h"
#include "core/log.h"
#include "core/util.h"
#include "ws-config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const sim_job_usage[] = {
	"whyslow sim-job --plan ID --program I --run K [options] -- <command> [<args>...]",
	NULL,
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct piece_file *)a)->name, ((const struct piece_file *)b)->name);
}

/* Every file the run left in `dir`, in name order, into the piece. */
static int take_files(const char *dir, struct piece *p)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d) {
		ws_error("cannot read the simulator's results in '%s': %s", dir, strerror(errno));
		return -errno;
	}
	while ((de = readdir(d))) {
		struct piece_file *f;
		char *path;
		int err;

		if (de->d_name[0] == '.')
			continue;
		WS_ALLOC_GROW(p->files, p->nfiles + 1, p->alloc);
		f = &p->files[p->nfiles];
		path = xasprintf("%s/%s", dir, de->d_name);
		err = ws_read_file(path, &f->data, &f->len);
		free(path);
		if (err < 0) {
			closedir(d);
			ws_error("cannot read the simulator's result '%s': %s", de->d_name, strerror(-err));
			return err;
		}
		f->name = xstrdup(de->d_name);
		p->nfiles++;
	}
	closedir(d);
	if (p->nfiles > 1)	/* an empty directory leaves p->files null, which qsort() may not take */
		qsort(p->files, p->nfiles, sizeof(*p->files), by_name);
	return 0;
}

int cmd_sim_job(int argc, char **argv)
{
	extern char **environ;
	struct cli_measure c = CLI_MEASURE_INIT;
	const char *plan = NULL, *ignored = "none";
	size_t prog_i = SIZE_MAX, run = SIZE_MAX, pad = SIZE_MAX;
	char **env = NULL, *pad_env = NULL;
	struct option_spec options[] = {
		OPT_STRING(0, "plan", &plan, "ID", "the plan this run belongs to (its manifest's id)"),
		OPT_SIZE(0, "program", &prog_i, "I", "the program's index in the plan"),
		OPT_SIZE(0, "run", &run, "K", "the run's index"),
		OPT_STRING(0, "ignored-signals", &ignored, "LIST",
			   "signals the command finds ignored, as under compare (default none)"),
		OPT_STRING(0, "sim-preset", &c.sim_preset, "NAME", "the simulated machine"),
		OPT_LIST(0, "sim-cache", &c.sim_cache, "LEVEL=SIZE,ASSOC,LINE", "override a cache level"),
		OPT_SIZE(0, "sim-cores", &c.sim_cores, "N", "virtual cores (default: the preset's)"),
		OPT_BOOL(0, "regions", &c.regions, "count the program's regions (markers)"),
		OPT_BOOL(0, "callers", &c.callers, "track calls: callers, inclusive counts and stacks (as compare's)"),
		OPT_STRING(0, "sim-scope", &c.sim_scope, "all|regions|regions-warm", "simulate only inside the regions"),
		OPT_STRING(0, "input", &c.input, "FILE", "the run reads FILE on stdin (default /dev/null)"),
		OPT_LIST(0, "output", &c.output, "WHERE", "the command's output: null (default), pipe or ./FILE"),
		OPT_DOUBLE(0, "timeout", &c.timeout, "SECONDS", "as compare's --timeout (the simulation gets 100x)"),
		OPT_BOOL(0, "keep-children", &c.keep_children, "as compare's --keep-children"),
		OPT_SIZE(0, "layout-pad", &pad, "BYTES", "the environment padding of this run of --layouts"),
		OPT_END(),
	};
	const struct ws_backend_ops *ops = ws_backend_find("sim");
	struct ws_measure_opts mo;
	struct ws_program prog = { 0 };
	struct ws_claim *claims;
	struct ws_backend *be;
	struct ws_exec ex;
	struct piece p = { 0 };
	char cwd[PATH_MAX], *text, *job;
	size_t len;
	int n, ret;

	/* Before the options are parsed, which moves the words: the digest is of the line as it came. */
	if (!getcwd(cwd, sizeof(cwd))) {
		fprintf(stderr, "whyslow sim-job: cannot tell which directory this is: %s\n", strerror(errno));
		return WS_EXIT_FAIL;
	}
	job = cli_job_digest(cwd, environ, argv + 1);
	n = parse_options(argc, argv, "whyslow sim-job", sim_job_usage, options, PARSE_STOP_AT_NON_OPTION);
	if (n == 0)
		usage_error("no command given: whyslow sim-job --plan ID --program I --run K -- <command>");
	if (!plan || prog_i == SIZE_MAX || run == SIZE_MAX)
		usage_error("--plan, --program and --run say which simulation of which plan this is: give all three");
	for (size_t i = 0; i < c.output.n; i++)
		if (!strcmp(c.output.v[i], "inherit"))
			usage_error("--output inherit: stdout carries the piece; use null, pipe or a file");
	if (pad != SIZE_MAX && pad > WS_LAYOUT_PAD_MAX)
		usage_error("--layout-pad takes 0 to %d bytes, not %zu", WS_LAYOUT_PAD_MAX, pad);
	if (cli_signals_apply(ignored) < 0)
		usage_error("--ignored-signals expects signal numbers like 1,14, or none, not '%s'", ignored);
	c.backend = "sim";
	cli_measure_check_programs(&c, 1);
	cli_measure_program(&c, &prog, 0, NULL, NULL);
	cli_measure_finish(&c, &mo, false);
	/* The simulation's files go to TMPDIR on whichever machine runs the job: said before it starts. */
	cli_check_tmpdir(&mo);
	cli_install_signals();
	if (!ops) {
		fprintf(stderr, "whyslow sim-job: this whyslow has no simulator backend\n");
		return WS_EXIT_FAIL;
	}
	claims = xcalloc(c.ev.n + 1, sizeof(*claims));
	be = ws_backend_new(ops, &mo.be);
	ret = ops->setup(be, &c.ev, claims);
	for (size_t i = 0; i < c.ev.n; i++)
		free(claims[i].reason);
	free(claims);
	if (ret == 0) {
		be->run = ops->run_new ? ops->run_new(be) : NULL;
		ex = (struct ws_exec){
			.argv = argv,
			.output = prog.output,
			.output_path = prog.output_path,
			.input_fd = mo.input_fd,
			.timeout = mo.timeout * (ops->timeout_factor ? ops->timeout_factor : 1),
		};
		ret = ops->prepare(be, &ex);
	}
	/* After the backend's variables, as measure's run_prepare() puts a local run's padding. */
	if (ret == 0 && pad != SIZE_MAX) {
		size_t k = 0;

		while (ex.env_add && ex.env_add[k])
			k++;
		env = xcalloc(k + 2, sizeof(*env));
		if (k)
			memcpy(env, ex.env_add, k * sizeof(*env));
		env[k] = pad_env = ws_layout_pad_env((int)pad);
		ex.env_add = env;
	}
	if (ret == 0)
		ret = ws_run(&ex, NULL, &p.out);
	if (ret == 0)
		ret = take_files(ops->run_dir(be), &p);
	if (ret == 0) {
		p.version = xstrdup(WS_VERSION);
		p.plan = xstrdup(plan);
		p.prog = prog_i;
		p.run = run;
		p.build_id = cli_program_id(argv);
		p.job = job;
		job = NULL;
		text = cli_piece_format(&p, &len);
		/* One write of the whole piece: a job killed half-way leaves no end line, which merge sees. */
		if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0) {
			fprintf(stderr, "whyslow sim-job: cannot write the piece: %s\n", strerror(errno));
			ret = -EIO;
		}
		free(text);
		if (p.out.exit_code != 0 || p.out.signal || p.out.timed_out)
			fprintf(stderr, "whyslow sim-job: '%s' did not exit 0 under the simulator; merge reports it as "
				"compare would\n", argv[0]);
	}
	if (be->run && ops->run_free)
		ops->run_free(be, be->run);
	be->run = NULL;
	ws_backend_free(be);
	cli_piece_release(&p);
	free(job);
	free(env);
	free(pad_env);
	cli_program_release(&prog);
	cli_measure_release(&c);
	if (ret == -EINTR)
		return 128 + cli_stop_signal();
	return ret < 0 ? WS_EXIT_FAIL : WS_EXIT_OK;
}
