/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli-plan.c - the plan of compare --plan-jobs (job lines and manifest), and the pieces its jobs print. */
#include "cli-plan.h"
#include "builtin.h"
#include "asm/asm.h"
#include "core/util.h"
#include "ws-config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static uint64_t fnv1a(uint64_t h, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * FNV_PRIME;
	return h;
}

char *cli_program_id(char *const *argv)
{
	char *path = ws_find_in_path(argv[0]), *id, buf[1 << 16];
	uint64_t h = FNV_OFFSET;
	ssize_t n;
	int fd;

	if (!path)
		return xstrdup("unknown");
	if ((id = ws_asm_build_id(path))) {
		free(path);
		return id;
	}
	/* A script, or a binary linked without a build-id: its contents say whether it is the same one. */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return xstrdup("unknown");
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		h = fnv1a(h, buf, (size_t)n);
	close(fd);
	return xasprintf("fnv1a64:%016" PRIx64, h);
}

char *cli_job_digest(const char *cwd, char *const *env, char *const *words)
{
	uint64_t h = fnv1a(FNV_OFFSET, cwd, strlen(cwd) + 1);

	for (; env && *env; env++)
		h = fnv1a(h, *env, strlen(*env) + 1);
	/* An empty string between the two lists: no environment entry is one (each has its '='). */
	h = fnv1a(h, "", 1);
	for (; words && *words; words++)
		h = fnv1a(h, *words, strlen(*words) + 1);
	return xasprintf("%016" PRIx64, h);
}

/* A word of a job line, kept for its digest as well as written. */
struct job_words {
	char **v;
	size_t n, alloc;
};

static void word_add(struct job_words *w, char *word)
{
	WS_ALLOC_GROW(w->v, w->n + 2, w->alloc);
	w->v[w->n++] = word;
	w->v[w->n] = NULL;
}

/*
 * The signals a command started from here would find ignored: an ignored signal stays ignored across exec,
 * and a program may look (sort runs other code when SIGALRM is ignored, as GNU parallel leaves it). The
 * runner resets SIGINT, SIGTERM and SIGPIPE, and whyslow itself SIGCHLD. "none" when there are none.
 */
static char *ignored_signals(void)
{
	char *list = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&list, &len);
	bool any = false;

	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;

		if (sig == SIGINT || sig == SIGTERM || sig == SIGPIPE || sig == SIGCHLD || sig == SIGKILL ||
		    sig == SIGSTOP || sigaction(sig, NULL, &sa) < 0 || sa.sa_handler != SIG_IGN)
			continue;
		fprintf(f, "%s%d", any ? "," : "", sig);
		any = true;
	}
	if (!any)
		fputs("none", f);
	fclose(f);
	return list;
}

int cli_signals_apply(const char *list)
{
	bool ign[NSIG] = { false };
	char *copy, *save = NULL;

	if (strcmp(list, "none")) {
		copy = xstrdup(list);
		for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			char *end;
			long sig = strtol(tok, &end, 10);

			if (*end || sig < 1 || sig >= NSIG) {
				free(copy);
				return -1;
			}
			ign[sig] = true;
		}
		free(copy);
	}
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGINT && sig != SIGTERM && sig != SIGPIPE && sig != SIGCHLD && sig != SIGKILL &&
		    sig != SIGSTOP)
			signal(sig, ign[sig] ? SIG_IGN : SIG_DFL);
	return 0;
}

/* One word for sh, quoted as it needs. */
static void put_word(FILE *f, const char *w)
{
	char *q = ws_join_command((char *const[]){ (char *)w, NULL });

	fputc(' ', f);
	fputs(*w ? q : "''", f);
	free(q);
}

static void plan_refuse(const struct cli_measure *c, const struct ws_measure_opts *o)
{
	if (strcmp(o->backend, "sim"))
		usage_error("--plan-jobs spreads simulations, which need --backend sim (timed runs stay on one "
			    "machine)");
	if (c->sim_native_time)
		usage_error("--plan-jobs cannot take --sim-native-time: timed runs stay on one machine");
	for (size_t k = 0; k < WS_NHOOKS; k++)
		if (c->hooks[k].n)
			usage_error("--plan-jobs cannot carry --setup, --prepare, --conclude or --cleanup: run them on "
				    "each machine before its jobs");
	if (c->show_output)
		usage_error("--plan-jobs: the jobs' stdout carries their results; --show-output cannot be used");
	for (size_t i = 0; i < c->output.n; i++)
		if (!strcmp(c->output.v[i], "inherit"))
			usage_error("--plan-jobs: the jobs' stdout carries their results; use --output null, pipe or "
				    "a file");
	if (c->cpus)
		usage_error("--plan-jobs cannot pin with --cpu: the jobs run on other machines");
}

void cli_plan_write(const char *path, const struct cli_measure *c, const struct ws_measure_opts *o,
		    const struct ws_program *progs, size_t nprogs, char **args, size_t nargs)
{
	extern char **environ;
	char cwd[PATH_MAX], self[PATH_MAX], *input = NULL, *jobs = NULL, *manifest_path, *dump, **ids;
	char *ignored = ignored_signals();
	size_t jobs_len = 0, njobs = 0;
	uint64_t h = FNV_OFFSET;
	json_t *m, *a, *pa, *digests;
	ssize_t n;
	FILE *f;
	int err;

	plan_refuse(c, o);
	if (!getcwd(cwd, sizeof(cwd)) || (n = readlink("/proc/self/exe", self, sizeof(self) - 1)) < 0) {
		fprintf(stderr, "%s: cannot tell where whyslow and this directory are: %s\n", current_command(),
			strerror(errno));
		exit(WS_EXIT_FAIL);
	}
	self[n] = '\0';
	if (c->input_fd > 0)
		input = realpath(c->input, NULL);
	ids = xcalloc(nprogs + 1, sizeof(*ids));
	for (size_t i = 0; i < nprogs; i++)
		ids[i] = cli_program_id(progs[i].argv);
	/* The plan's id: what the jobs depend on, so that a piece of another plan is known for one. */
	h = fnv1a(h, WS_VERSION, strlen(WS_VERSION) + 1);
	h = fnv1a(h, cwd, strlen(cwd) + 1);
	for (size_t i = 0; i < nargs; i++)
		h = fnv1a(h, args[i], strlen(args[i]) + 1);
	for (char **e = environ; *e; e++)
		h = fnv1a(h, *e, strlen(*e) + 1);
	for (size_t i = 0; i < nprogs; i++)
		h = fnv1a(h, ids[i], strlen(ids[i]) + 1);
	h = fnv1a(h, &o->seed, sizeof(o->seed));
	h = fnv1a(h, ignored, strlen(ignored) + 1);
	f = open_memstream(&jobs, &jobs_len);
	digests = json_array();
	/* In the order compare runs them: round by round, program after program. */
	for (size_t k = 0; k < o->sim_runs; k++) {
		for (size_t i = 0; i < nprogs; i++) {
			struct job_words w = { 0 };
			char *digest;

			/* The words sim-job gets after its name, as it will see them: their digest is the job's. */
			word_add(&w, xstrdup("--plan"));
			word_add(&w, xasprintf("%016" PRIx64, h));
			word_add(&w, xstrdup("--program"));
			word_add(&w, xasprintf("%zu", i));
			word_add(&w, xstrdup("--run"));
			word_add(&w, xasprintf("%zu", k));
			word_add(&w, xstrdup("--ignored-signals"));
			word_add(&w, xstrdup(ignored));
			word_add(&w, xstrdup("--sim-preset"));
			word_add(&w, xstrdup(o->be.sim_preset));
			for (size_t j = 0; j < c->sim_cache.n; j++) {
				word_add(&w, xstrdup("--sim-cache"));
				word_add(&w, xstrdup(c->sim_cache.v[j]));
			}
			if (c->sim_cores != SIZE_MAX) {
				word_add(&w, xstrdup("--sim-cores"));
				word_add(&w, xasprintf("%zu", c->sim_cores));
			}
			if (c->regions)
				word_add(&w, xstrdup("--regions"));
			/* --callers, or --export-folded which asks for them: the stacks come from the pieces. */
			if (o->be.callers)
				word_add(&w, xstrdup("--callers"));
			if (c->sim_scope) {
				word_add(&w, xstrdup("--sim-scope"));
				word_add(&w, xstrdup(c->sim_scope));
			}
			if (input) {
				word_add(&w, xstrdup("--input"));
				word_add(&w, xstrdup(input));
			}
			if (c->output.n) {
				word_add(&w, xstrdup("--output"));
				word_add(&w, xstrdup(c->output.v[c->output.n == 1 ? 0 : i]));
			}
			if (c->timeout > 0) {
				word_add(&w, xstrdup("--timeout"));
				word_add(&w, xasprintf("%.17g", c->timeout));
			}
			if (c->keep_children)
				word_add(&w, xstrdup("--keep-children"));
			/* --layouts: run k's environment size, which the job adds as a local run does. */
			if (o->layouts > 1) {
				word_add(&w, xstrdup("--layout-pad"));
				word_add(&w, xasprintf("%d", ws_layout_pad_of(o->layouts, k)));
			}
			word_add(&w, xstrdup("--"));
			for (char **x = progs[i].argv; *x; x++)
				word_add(&w, xstrdup(*x));
			fputs("cd", f);
			put_word(f, cwd);
			fputs(" && env -i", f);
			for (char **e = environ; *e; e++)
				put_word(f, *e);
			put_word(f, self);
			fputs(" sim-job", f);
			for (size_t j = 0; j < w.n; j++)
				put_word(f, w.v[j]);
			fputc('\n', f);
			digest = cli_job_digest(cwd, environ, w.v);
			json_array_append_new(digests, json_string(digest));
			free(digest);
			for (size_t j = 0; j < w.n; j++)
				free(w.v[j]);
			free(w.v);
			njobs++;
		}
	}
	fclose(f);
	m = json_object();
	json_object_set_new(m, "format", json_string(WS_PLAN_FORMAT));
	json_object_set_new(m, "whyslow", json_string(WS_VERSION));
	dump = xasprintf("%016" PRIx64, h);
	json_object_set_new(m, "plan", json_string(dump));
	free(dump);
	json_object_set_new(m, "cwd", json_string(cwd));
	a = json_array();
	/* The seed goes first, so that one given later still wins; the merge then records the same seed. */
	json_array_append_new(a, json_string(args[0]));
	json_array_append_new(a, json_string("--seed"));
	dump = xasprintf("%" PRIu64, o->seed);
	json_array_append_new(a, json_string(dump));
	free(dump);
	for (size_t i = 1; i < nargs; i++)
		json_array_append_new(a, json_string(args[i]));
	json_object_set_new(m, "arguments", a);
	pa = json_array();
	for (size_t i = 0; i < nprogs; i++) {
		json_t *p = json_object();

		json_object_set_new(p, "name", json_string(progs[i].name));
		json_object_set_new(p, "build_id", json_string(ids[i]));
		json_array_append_new(pa, p);
		free(ids[i]);
	}
	free(ids);
	json_object_set_new(m, "programs", pa);
	json_object_set_new(m, "runs", json_integer((json_int_t)o->sim_runs));
	json_object_set_new(m, "jobs", json_integer((json_int_t)njobs));
	/* Each job's digest (cli_job_digest), in the plan's order: a piece of an edited line is known for one. */
	json_object_set_new(m, "job_digests", digests);
	dump = json_dumps(m, JSON_INDENT(2));
	json_decref(m);
	manifest_path = xasprintf("%s.manifest", path);
	/* The manifest last: a plan without one is not a plan, and merge says so. */
	if ((err = ws_write_atomic(path, jobs, jobs_len)) < 0 ||
	    (err = ws_write_atomic(manifest_path, dump, strlen(dump))) < 0) {
		fprintf(stderr, "%s: cannot write the plan '%s': %s\n", current_command(), path, strerror(-err));
		unlink(path);
		exit(WS_EXIT_FAIL);
	}
	fprintf(stderr, "%s: wrote %zu simulations to %s (one command line each) and %s; run them anywhere with "
		"whyslow at %s (e.g. parallel < %s > pieces), then: whyslow merge %s pieces\n",
		current_command(), njobs, path, manifest_path, self, path, path);
	free(manifest_path);
	free(dump);
	free(jobs);
	free(input);
	free(ignored);
}

char *cli_piece_format(const struct piece *p, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	fprintf(f, "%s\t1\nversion\t%s\nplan\t%s\nprogram\t%zu\nrun\t%zu\nbuild-id\t%s\njob\t%s\nexit\t%d\n"
		"signal\t%d\ntimed-out\t%d\n",
		WS_PIECE_MAGIC, p->version, p->plan, p->prog, p->run, p->build_id, p->job, p->out.exit_code,
		p->out.signal, p->out.timed_out);
	for (size_t i = 0; i < p->nfiles; i++) {
		fprintf(f, "file\t%s\t%zu\n", p->files[i].name, p->files[i].len);
		fwrite(p->files[i].data, 1, p->files[i].len, f);
	}
	fputs("end\n", f);
	fclose(f);
	return buf;
}

void cli_piece_release(struct piece *p)
{
	free(p->version);
	free(p->plan);
	free(p->build_id);
	free(p->job);
	for (size_t i = 0; i < p->nfiles; i++) {
		free(p->files[i].name);
		free(p->files[i].data);
	}
	free(p->files);
	free(p->source);
	memset(p, 0, sizeof(*p));
}

/* The next line of buf[*at..len) without its newline, or NULL when there is none (truncated). */
static char *next_line(const char *buf, size_t len, size_t *at)
{
	const char *nl = *at < len ? memchr(buf + *at, '\n', len - *at) : NULL;
	char *line;

	if (!nl)
		return NULL;
	line = xstrndup(buf + *at, (size_t)(nl - (buf + *at)));
	*at = (size_t)(nl - buf) + 1;
	return line;
}

static int bad_piece(const char *path, size_t nth, const char *why)
{
	fprintf(stderr, "%s: '%s' (piece %zu): %s\n", current_command(), path, nth, why);
	return -1;
}

/* Piece `nth` of `path` from buf[*at..): 0, or -1 after the message. */
static int parse_piece(const char *path, size_t nth, const char *buf, size_t len, size_t *at, struct piece *p)
{
	static const char *const keys[] = { "version", "plan", "program", "run", "build-id", "job", "exit",
					    "signal", "timed-out" };
	char *line = next_line(buf, len, at);
	bool ended = false;
	int ret = 0;

	if (!line || strcmp(line, WS_PIECE_MAGIC "\t1")) {
		free(line);
		return bad_piece(path, nth, "not a piece of a whyslow plan (sim-job output starts 'whyslow-piece 1')");
	}
	free(line);
	for (size_t k = 0; k < ARRAY_SIZE(keys) && !ret; k++) {
		char *tab, *end;
		long long v = 0;

		line = next_line(buf, len, at);
		if (!line) {
			ret = bad_piece(path, nth, "truncated: it stops before its end (run its job again)");
			break;
		}
		tab = strchr(line, '\t');
		if (!tab || strncmp(line, keys[k], (size_t)(tab - line)) || strlen(keys[k]) != (size_t)(tab - line)) {
			ret = bad_piece(path, nth, "not a piece of a whyslow plan (a header line is missing)");
		} else if (k == 0) {
			p->version = xstrdup(tab + 1);
		} else if (k == 1) {
			p->plan = xstrdup(tab + 1);
		} else if (k == 4) {
			p->build_id = xstrdup(tab + 1);
		} else if (k == 5) {
			p->job = xstrdup(tab + 1);
		} else {
			errno = 0;
			v = strtoll(tab + 1, &end, 10);
			if (errno || end == tab + 1 || *end || ((k == 2 || k == 3) && v < 0))
				ret = bad_piece(path, nth, "not a piece of a whyslow plan (a number is not one)");
			else if (k == 2)
				p->prog = (size_t)v;
			else if (k == 3)
				p->run = (size_t)v;
			else if (k == 6)
				p->out.exit_code = (int)v;
			else if (k == 7)
				p->out.signal = (int)v;
			else
				p->out.timed_out = v != 0;
		}
		free(line);
	}
	while (!ret && !ended) {
		char *name, *tab2, *end;
		unsigned long long bytes;
		struct piece_file *pf;

		line = next_line(buf, len, at);
		if (!line)
			return bad_piece(path, nth, "truncated: it stops before its end (run its job again)");
		if (!strcmp(line, "end")) {
			ended = true;
		} else if (!strncmp(line, "file\t", 5) && (tab2 = strchr(line + 5, '\t'))) {
			name = xstrndup(line + 5, (size_t)(tab2 - line - 5));
			errno = 0;
			bytes = strtoull(tab2 + 1, &end, 10);
			if (errno || end == tab2 + 1 || *end || strchr(name, '/') || !*name || name[0] == '.') {
				free(name);
				ret = bad_piece(path, nth, "not a piece of a whyslow plan (a file record is malformed)");
			} else if (bytes > len - *at) {
				free(name);
				ret = bad_piece(path, nth, "truncated: it stops before its end (run its job again)");
			} else {
				WS_ALLOC_GROW(p->files, p->nfiles + 1, p->alloc);
				pf = &p->files[p->nfiles++];
				pf->name = name;
				pf->len = (size_t)bytes;
				pf->data = xmalloc(pf->len + 1);
				memcpy(pf->data, buf + *at, pf->len);
				*at += pf->len;
			}
		} else {
			ret = bad_piece(path, nth, "not a piece of a whyslow plan (an unknown record)");
		}
		free(line);
	}
	p->source = xasprintf("'%s' (piece %zu)", path, nth);
	return ret;
}

int cli_piece_read(const char *path, struct piece_list *l)
{
	char *buf = NULL;
	size_t len = 0, at = 0, nth = 0;
	const char *kind = ws_not_regular(path);
	int err;

	/*
	 * As report and diff refuse a result that is not a file: a FIFO without a writer would block in open()
	 * for ever, and a directory reads as nothing.
	 */
	if (kind) {
		fprintf(stderr, "%s: cannot read '%s': it is %s, not the output of a job (give a regular file)\n",
			current_command(), path, kind);
		return -1;
	}
	err = ws_read_file(path, &buf, &len);
	if (err < 0) {
		fprintf(stderr, "%s: cannot read '%s': %s%s\n", current_command(), path, strerror(-err),
			err == -ENOENT ? " (give the file a job's output went to: `sh PLAN > FILE`, or one per job)" : "");
		return -1;
	}
	if (!len) {
		free(buf);
		fprintf(stderr, "%s: '%s' is empty: its job printed nothing (did it fail?)\n", current_command(), path);
		return -1;
	}
	while (at < len) {
		struct piece p = { 0 };

		if (parse_piece(path, ++nth, buf, len, &at, &p) < 0) {
			cli_piece_release(&p);
			free(buf);
			return -1;
		}
		WS_ALLOC_GROW(l->v, l->n + 1, l->alloc);
		l->v[l->n++] = p;
	}
	free(buf);
	return 0;
}
