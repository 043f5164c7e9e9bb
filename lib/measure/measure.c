/* SPDX-License-Identifier: GPL-2.0-or-later */
/* measure.c - a measurement session: warm-up, seeded interleaved rounds, native and simulated runs. */
#include "measure/measure.h"
#include "core/log.h"
#include "core/util.h"
#include "perf/perf.h"
#include "result/metrics.h"
#include "sim/cpu-features.h"
#include "symbols/symbols.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/*
 * A phase: one backend's runs of every program. The session is a plan of phases, built from the backend
 * table and the traits each backend declares (backend/backend.h), and walked in order: native phases
 * first, in seeded interleaved rounds after warm-up, then the others, one program after another.
 */
struct phase {
	struct ws_backend *be;
	size_t runs;       /* per program (with --runs auto: at most) */
	size_t warmup;     /* per program, not recorded */
	bool interleaved;  /* rounds in a fresh random order each; else program after program */
	bool rusage;       /* record the runner's own metrics (wall-time, ...) from its runs */
	double time;       /* seconds spent in its runs, for the ETA */
	size_t done;       /* runs done, warm-up included */
	size_t jobs;       /* runs at once (-j); 1 for one after another */
	size_t running;    /* runs in flight now */
	double started;    /* the sum of their start times (ws_now()), for the ETA */
};

struct session {
	struct ws_result *res;
	const struct ws_program *progs;
	size_t nprogs;
	const struct ws_measure_opts *o;
	struct phase *phases;      /* in run order */
	size_t nphases;
	struct phase *primary;     /* its runs are the report's runs, and --runs auto judges them; or NULL */
	bool *rusage;              /* per event: a runner metric, recorded from the native runs */
	char *native_env[2];       /* what native runs add to their environment (--sim-cpu-native), or none */
	size_t done, total;
	double t0;
	bool hook_failed;          /* the session stopped because a hook failed, not a run */
	double *native_rss;        /* per program: the largest max-rss of its native runs, 0 before one */
	size_t *rss_low;           /* per program: runs whose max-rss was at or below whyslow's own (ws_run_rss) */
	double *rss_floor;         /* per program: the highest such floor */
};

/*
 * The programs whose max-rss was not known in some runs: the kernel counts the memory a child leaves at
 * its exec, ours, as the child's (ws_run_rss), so a program smaller than whyslow has no peak of its own to
 * report. Where no run knew it, the metric is unsupported with the reason, as one a backend cannot
 * count; where some did, the table marks it counted in some runs, and one line says why.
 */
static void rss_below_floor(struct session *s)
{
	for (size_t i = 0; i < s->nprogs; i++) {
		struct ws_variant *v = &s->res->variants[i];
		const struct ws_metric *m = ws_metric_set_find(&v->metrics, "max-rss");
		size_t known = 0;
		char *why;

		if (!s->rss_low[i] || !m)
			continue;
		for (size_t k = 0; k < m->n; k++)
			known += !isnan(m->samples[k]);
		why = xasprintf("the program's peak is below what the kernel counts for any child of whyslow, its own "
				"memory at the spawn (%.1f MiB)",
				s->rss_floor[i] / (1024.0 * 1024.0));
		if (!known)
			ws_metric_set_unsupported(&v->metrics, "max-rss", why);
		else
			ws_log(WS_LOG_INFO, "max-rss of '%s' not counted in %zu of %zu runs: %s", v->name,
			       s->rss_low[i], m->n, why);
		free(why);
	}
}

void ws_machine_probe(struct ws_machine *m)
{
	struct utsname u;
	char *info = NULL, *line;
	char host[256];

	if (ws_read_file("/proc/cpuinfo", &info, NULL) == 0) {
		line = strstr(info, "model name");
		if (line && (line = strchr(line, ':'))) {
			line += 1 + strspn(line + 1, " \t");
			m->cpu = xstrndup(line, strcspn(line, "\n"));
		}
		free(info);
	}
	if (!m->cpu)
		m->cpu = xstrdup("unknown");
	if (uname(&u) == 0)
		m->kernel = xstrdup(u.release);
	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		m->hostname = xstrdup(host);
	}
	m->ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	m->pmu = ws_perf_pmu_usable();
}

static void progress(struct session *s, const char *what, const char *program)
{
	struct ws_progress p;

	if (!s->o->progress)
		return;
	p.done = s->done;
	p.total = s->total;
	p.elapsed = ws_now() - s->t0;
	p.phase = what;
	p.program = program;
	p.running = 0;
	/*
	 * A simulated run is an order of magnitude slower than a native one: estimate each phase by its pace,
	 * a run's mean duration. With several at once, the runs not started yet share the phase's slots, and
	 * those in flight have part of theirs behind them.
	 */
	p.eta = 0;
	for (size_t k = 0; k < s->nphases && p.eta >= 0; k++) {
		const struct phase *q = &s->phases[k];
		size_t left = s->nprogs * (q->warmup + q->runs) - q->done, at_once;
		double d, work;

		p.running += q->running;
		if (left && !q->done) {
			p.eta = -1;
			continue;
		}
		if (!left)
			continue;
		d = q->time / (double)q->done;
		at_once = q->jobs > 1 ? (q->jobs < left ? q->jobs : left) : 1;
		work = (double)(left - q->running) * d;
		if (q->running)
			work += fmax(0, (double)q->running * (d + p.elapsed + s->t0) - q->started);
		p.eta += work / (double)at_once;
	}
	s->o->progress(&p, s->o->progress_data);
}

static int attach_hook(void *ctx, pid_t pid)
{
	struct ws_backend *be = ctx;

	return be->ops->attach ? be->ops->attach(be, pid) : 0;
}

static void poll_hook(void *ctx)
{
	struct ws_backend *be = ctx;

	if (be->ops->poll)
		be->ops->poll(be);
}

/* What a backend multiplies --timeout by (the simulator's runs are slower): 1 unless it says. */
static unsigned timeout_factor(const struct ws_backend_ops *ops)
{
	return ops->timeout_factor ? ops->timeout_factor : 1;
}

/*
 * `limit`: the --timeout in seconds (0: none) and `factor` what the backend multiplies it by, so that the
 * message names the time the run had and what to raise; `hook`: a hook's, whose stdin --input is not.
 */
static char *describe_failure(const struct ws_run_outcome *out, double limit, double factor, bool hook)
{
	/* Stopped, where nothing would continue it (ws_run_outcome.stopped): the terminal's signals say why. */
	if (out->stopped == SIGTTIN || out->stopped == SIGTTOU)
		return xasprintf("stopped on SIG%s, as it %s the terminal, and was killed: a run cannot use the "
				 "terminal (it is in a process group of its own); give %s its input another way (%s)",
				 sigabbrev_np(out->stopped), out->stopped == SIGTTIN ? "read from" : "wrote to or set up",
				 hook ? "the hook" : "the program",
				 hook ? "its own options, a file" : "--input FILE, its own options");
	/* Only the stopped process's parent learns the signal: likely the terminal's, but not certainly. */
	if (out->stopped == WS_STOPPED_BELOW)
		return xasprintf("was killed as '%s', which it started, stayed stopped: a program stops when it reads "
				 "from or writes to the terminal, which a run cannot use (it is in a process group of its "
				 "own); give %s its input another way (%s)",
				 out->stopped_name, hook ? "the hook" : "the program",
				 hook ? "its own options, a file" : "--input FILE, its own options");
	if (out->stopped)
		return xasprintf("stopped on SIG%s and was killed, as nothing would continue it",
				 sigabbrev_np(out->stopped));
	if (out->timed_out && limit > 0 && factor > 1)
		return xasprintf("timed out and was killed after %g s (--timeout %g, times %g for this backend: "
				 "raise --timeout)", limit * factor, limit, factor);
	if (out->timed_out && limit > 0)
		return xasprintf("timed out and was killed after %g s (raise --timeout)", limit);
	if (out->timed_out)
		return xstrdup("timed out and was killed");
	if (out->signal)
		return xasprintf("was killed by signal %d (%s)", out->signal, strsignal(out->signal));
	return xasprintf("exited with status %d", out->exit_code);
}

static const char *const hook_options[WS_NHOOKS] = { "--setup", "--prepare", "--conclude", "--cleanup" };

/*
 * A program as a message names it: its name, and its command where the two differ. A name of -n, or the
 * values of -L ("'9' exited with status 1"), does not say what ran, and a failure is read to fix it.
 */
static char *who(const struct ws_program *prog)
{
	char *name = ws_quote_name(prog->name), *out;

	if (!prog->command || !strcmp(prog->name, prog->command))
		return name;
	out = xasprintf("%s (%s)", name, prog->command);
	free(name);
	return out;
}

/*
 * Run hook `k` of program `i`, if it has one: natively, with no backend armed, so that nothing of it is
 * counted, and never under the simulator. Its stdin is /dev/null; its output goes to the terminal when the
 * program's does, else nowhere; it has no timeout (a build may take long) but Ctrl-C stops it. `when`
 * places it for the message (" before run 3"). Returns 0, -EINTR, -ECHILD when it failed (the message
 * names the hook, the program and the exit status), or the runner's error.
 */
static int run_hook(struct session *s, size_t i, enum ws_hook_kind k, const char *when)
{
	const struct ws_program *prog = &s->progs[i];
	struct ws_exec ex = {
		.argv = prog->hooks[k],
		.output = prog->output == WS_OUTPUT_INHERIT ? WS_OUTPUT_INHERIT : WS_OUTPUT_NULL,
		/* A hook is no run: a server that --setup starts for the runs lives until whyslow ends. */
		.keep_children = true,
	};
	struct ws_run_outcome out;
	char *why, *what;
	int ret;

	if (!ex.argv)
		return 0;
	what = xasprintf("the %s of '%s'", hook_options[k], prog->name);
	ex.what = what;
	ret = ws_run(&ex, NULL, &out);
	free(what);
	if (ret < 0)
		return ret;
	if (out.exit_code == 0 && !out.signal)
		return 0;
	why = describe_failure(&out, 0, 1, true); /* a hook has no timeout */
	/* As a failed run is: kept going past with --ignore-failure, said each time, else the end of the session. */
	ws_log(s->o->ignore_failure ? WS_LOG_WARN : WS_LOG_ERROR, "%s of '%s' %s%s%s%s", hook_options[k], prog->name,
	       why, when, prog->output == WS_OUTPUT_INHERIT ? "" : "; --output inherit shows its output",
	       s->o->ignore_failure ? " (kept going: --ignore-failure)" : "");
	free(why);
	if (s->o->ignore_failure)
		return 0;
	s->hook_failed = true;
	return -ECHILD;
}

/* " before run 3", " after a warm-up run", " before simulated run 2": which run a hook belongs to. */
static char *hook_when(const struct phase *ph, bool record, size_t run, const char *where)
{
	if (!record)
		return xasprintf(" %s a warm-up run", where);
	return xasprintf(" %s %srun %zu", where, ph->be->ops->traits & WS_BE_NATIVE ? "" : "simulated ", run + 1);
}

/*
 * The environment padding of a run, or -1 for none. Native runs: a length drawn from the seed, the program
 * and the run, so that the same --seed gives the same paddings and a warm-up run its own. Deterministic
 * backends with --layouts K: run k of a program has k 4096 / K bytes, the same for every program, so that
 * baseline and variant are compared layout by layout.
 */
static int layout_pad(const struct session *s, const struct phase *ph, size_t i, bool record, size_t run)
{
	const struct ws_measure_opts *o = s->o;

	if (ph->be->ops->traits & WS_BE_NATIVE) {
		struct ws_rng rng;

		if (!o->randomize_layout)
			return -1;
		ws_rng_seed(&rng, o->seed ^ (0x9e3779b97f4a7c15ULL * (i + 1)) ^ ((uint64_t)(run + 1) << 32) ^
					  (record ? 0 : 0xa5a5a5a5ULL));
		return (int)ws_rng_below(&rng, WS_LAYOUT_PAD_MAX + 1);
	}
	if ((ph->be->ops->traits & WS_BE_DETERMINISTIC) && o->layouts > 1)
		return ws_layout_pad_of(o->layouts, run);
	return -1;
}

int ws_layout_pad_of(size_t layouts, size_t run)
{
	return (int)(run % layouts * (WS_LAYOUT_PAD_MAX + 1) / layouts);
}

char *ws_layout_pad_env(int pad)
{
	/* Up to 4 KiB of spaces: filled by memset, as printf's padding cost 8 us a run. */
	size_t name = strlen(WS_LAYOUT_PAD_ENV);
	char *env = xmalloc(name + 1 + (size_t)pad + 1);

	memcpy(env, WS_LAYOUT_PAD_ENV, name);
	env[name] = '=';
	memset(env + name + 1, ' ', (size_t)pad);
	env[name + 1 + (size_t)pad] = '\0';
	return env;
}

/* One run, from its preparation until its values are collected (several at once with -j). */
struct pending {
	size_t prog, run;          /* program index, run index */
	bool record;               /* false for warm-up */
	void *state;               /* the backend's run_new(), or NULL */
	struct ws_exec ex;
	char **env;                /* ex.env_add with what native runs add (--sim-cpu-native, layout), or NULL */
	int pad;                   /* its environment padding (layout_pad), or -1 */
	char *pad_env;
	char *output;              /* --output FILE of a run among others: its own file until its collection */
	struct ws_job *job;        /* while it runs beside others */
	struct ws_run_outcome out;
	double t_start;
	bool finished;
};

/* The backend's preparation, its counters armed: `r` is ready to run. Returns 0 or a negative errno. */
static int run_prepare(struct session *s, struct phase *ph, struct pending *r)
{
	struct ws_backend *be = ph->be;
	const struct ws_backend_ops *ops = be->ops;
	const struct ws_program *prog = &s->progs[r->prog];
	int ret;

	r->ex = (struct ws_exec){
		.argv = prog->argv,
		.output = prog->output,
		.output_path = r->output ? r->output : prog->output_path,
		.input_fd = s->o->input_fd,
		.timeout = s->o->timeout * timeout_factor(ops),
		.cpus = s->o->cpus,
	};
	int pad = r->pad = layout_pad(s, ph, r->prog, r->record, r->run);

	if (ops->run_new && !r->state)
		r->state = ops->run_new(be);
	be->run = r->state;
	if (ops->prepare && (ret = ops->prepare(be, &r->ex)) < 0)
		return ret;
	if (((ops->traits & WS_BE_NATIVE) && s->native_env[0]) || pad >= 0) {
		size_t n = 0;

		while (r->ex.env_add && r->ex.env_add[n])
			n++;
		r->env = xcalloc(n + 3, sizeof(*r->env));
		if (n)
			memcpy(r->env, r->ex.env_add, n * sizeof(*r->env));
		if ((ops->traits & WS_BE_NATIVE) && s->native_env[0])
			r->env[n++] = s->native_env[0];
		if (pad >= 0) {
			r->pad_env = ws_layout_pad_env(pad);
			r->env[n++] = r->pad_env;
		}
		r->ex.env_add = r->env;
	}
	if (ops->arm && (ret = ops->arm(be)) < 0)
		return ret;
	return 0;
}

static void run_release(struct phase *ph, struct pending *r)
{
	if (r->job)
		ws_job_kill(r->job);
	if (r->output)
		unlink(r->output);
	if (r->state && ph->be->ops->run_free)
		ph->be->ops->run_free(ph->be, r->state);
	if (ph->be->run == r->state)
		ph->be->run = NULL;
	free(r->env);
	free(r->pad_env);
	free(r->output);
	memset(r, 0, sizeof(*r));
}

/*
 * A run that has ended: its status judged, its values collected. Returns 0, -ECHILD for a failed run that
 * is not ignored, or the backend's error.
 */
static int run_finish(struct session *s, struct phase *ph, struct pending *r)
{
	struct ws_backend *be = ph->be;
	const struct ws_backend_ops *ops = be->ops;
	const struct ws_program *prog = &s->progs[r->prog];
	struct ws_variant *v = &s->res->variants[r->prog];
	const struct ws_run_outcome *out = &r->out;
	struct ws_run_status st;
	bool failed;

	/* The last run's output is the file's, as when they run one after another. */
	if (r->output && rename(r->output, prog->output_path) < 0)
		ws_log(WS_LOG_WARN, "cannot put a simulated run's output in '%s': %s", prog->output_path,
		       strerror(errno));
	if ((ops->traits & WS_BE_NATIVE) && out->max_rss > s->native_rss[r->prog])
		s->native_rss[r->prog] = out->max_rss;
	failed = out->exit_code != 0 || out->signal || out->timed_out;
	/* A run we killed for stopping measured how soon we saw it: never kept, --ignore-failure or not. */
	if (failed && (!s->o->ignore_failure || out->stopped ||
		       ((ops->traits & WS_BE_COUNTS_AT_EXIT) && (out->signal || out->timed_out)))) {
		char *why = describe_failure(out, s->o->timeout, timeout_factor(ops), false), *name = who(prog);
		/* --ignore-failure keeps an exit status or a crash natively, never a stop. */
		const char *keep = out->stopped ? "" : "; use --ignore-failure to keep such runs, or --show-output to "
						       "see its output";

		if (!(ops->traits & WS_BE_NATIVE))
			/* An exit status is kept with --ignore-failure here too; a crash or a timeout never is. */
			ws_error("%s %s%s%s%s", name, why, ops->running_where ? ops->running_where : "",
				 out->signal && !out->timed_out && !out->stopped && ops->crash_hint ? ops->crash_hint : "",
				 out->signal || out->timed_out ? ""
				 : "; use --ignore-failure to keep such runs, or --show-output to see its output");
		else if (!r->record)
			ws_error("%s %s in a warm-up run%s", name, why, keep);
		else
			ws_error("%s %s (run %zu)%s", name, why, r->run + 1, keep);
		free(name);
		free(why);
		return -ECHILD;
	}
	if (!r->record)
		return 0;
	/*
	 * The runs list is the runs the report counts: the native ones, or the simulated ones when nothing ran
	 * natively (perf+sim has more native runs than simulated ones, and those are the runs it times).
	 */
	if (ph == s->primary) {
		st.exit_code = out->exit_code;
		st.signal = out->signal;
		st.timed_out = out->timed_out;
		st.env_pad = r->pad;
		ws_variant_push_run(v, &st);
	}
	for (size_t e = 0; ph->rusage && e < s->o->events->n; e++) {
		const char *name = s->o->events->v[e].name;
		double val;

		if (!s->rusage[e])
			continue;
		if (!strcmp(name, "wall-time"))
			val = out->wall;
		else if (!strcmp(name, "user-time"))
			val = out->user;
		else if (!strcmp(name, "system-time"))
			val = out->sys;
		else if (isnan(val = ws_run_rss(out)) && !isnan(out->max_rss)) {
			/* Not known at or below whyslow's own peak: not counted, and said at the end. */
			s->rss_low[r->prog]++;
			if (out->rss_floor > s->rss_floor[r->prog])
				s->rss_floor[r->prog] = out->rss_floor;
		}
		ws_push_at(&v->metrics, name, 0, r->run, val, -1, NAN);
	}
	if (ph->rusage && (ops->traits & WS_BE_NATIVE) && isfinite(out->cpu_wait)) {
		v->cpu_wait += out->cpu_wait;
		v->cpu_wait_runs++;
	}
	be->run = r->state;
	return ops->collect ? ops->collect(be, out, v, r->run) : 0;
}

/*
 * The run itself: the backend's preparation, its counters armed, the run (or, for one made elsewhere, its
 * result put in place), its values collected. Returns 0, -EINTR, -ECHILD for a failed run that is not
 * ignored, or the runner's error.
 */
static int measured_run(struct session *s, struct phase *ph, size_t i, bool record, size_t run)
{
	struct ws_backend *be = ph->be;
	const struct ws_backend_ops *ops = be->ops;
	/* Only a backend that must see the child's pid costs the fork-and-hold path; others spawn. */
	bool held = ops->wants_pid && ops->wants_pid(be);
	struct ws_run_hooks hooks = { held && ops->attach ? attach_hook : NULL, held && ops->poll ? poll_hook : NULL,
				      be };
	struct pending r = { .prog = i, .run = run, .record = record };
	int ret = run_prepare(s, ph, &r);

	if (!ret) {
		if (s->o->supply && !(ops->traits & WS_BE_NATIVE)) {
			memset(&r.out, 0, sizeof(r.out));
			ret = s->o->supply(s->o->supply_data, i, run, ops->run_dir ? ops->run_dir(be) : NULL, &r.out);
		} else {
			ret = ws_run(&r.ex, &hooks, &r.out);
		}
		ph->done++;
		s->done++;
		if (!ret)
			ret = run_finish(s, ph, &r);
	}
	run_release(ph, &r);
	return ret;
}

/*
 * One run of program `i` in phase `ph`, between its --prepare and --conclude hooks. `record` false for
 * warm-up. `run` is the index the samples take. Returns 0, -EINTR, -ECHILD for a failed run that is not
 * ignored or a failed hook, or the runner's error.
 */
static int run_one(struct session *s, struct phase *ph, size_t i, bool record, size_t run)
{
	double t = ws_now();
	/* Said only when there is a hook: most sessions have none, and a run should allocate little. */
	char *when = s->progs[i].hooks[WS_HOOK_PREPARE] ? hook_when(ph, record, run, "before") : NULL;
	int ret = run_hook(s, i, WS_HOOK_PREPARE, when);

	free(when);
	if (!ret)
		ret = measured_run(s, ph, i, record, run);
	if (!ret && s->progs[i].hooks[WS_HOOK_CONCLUDE]) {
		when = hook_when(ph, record, run, "after");
		ret = run_hook(s, i, WS_HOOK_CONCLUDE, when);
		free(when);
	}
	/* The hooks' time counts for the ETA, which is about the clock, not what is measured. */
	ph->time += ws_now() - t;
	return ret;
}

/*
 * The backends of this session, in the order they claim events: the one --backend names (then, with
 * --sim-native-time, the native ones to time the programs), or every backend `auto` uses, in table order.
 * Returns how many, at most one per table entry.
 */
static size_t choose_backends(const struct ws_measure_opts *o, const struct ws_backend_ops **out)
{
	const struct ws_backend_ops *named = strcmp(o->backend, "auto") ? ws_backend_find(o->backend) : NULL;
	size_t n = 0;

	if (named)
		out[n++] = named;
	for (const struct ws_backend_entry *e = ws_backend_table; e->ops; e++) {
		if (e->ops == named || !e->in_auto)
			continue;
		if (!named || (o->native_time && !(named->traits & WS_BE_NATIVE) && (e->ops->traits & WS_BE_NATIVE)))
			out[n++] = e->ops;
	}
	return n;
}

/*
 * Build the plan: set up each chosen backend in claim order, keep those that claimed something (a native
 * one always: it times the runs), and order them for running. Returns 0 or a negative errno; events that
 * nothing claimed keep the reasons the backends gave.
 */
static int plan(struct session *s, struct ws_claim *claims)
{
	const struct ws_measure_opts *o = s->o;
	const struct ws_event_list *ev = o->events;
	size_t ntable = 0, nchosen;
	const struct ws_backend_ops **chosen;
	bool any_native = false, exact_groups = false, rusage_taken = false;
	struct phase *natives, *others;
	size_t nnat = 0, noth = 0;
	int ret = 0;

	while (ws_backend_table[ntable].ops)
		ntable++;
	chosen = xcalloc(ntable + 1, sizeof(*chosen));
	nchosen = choose_backends(o, chosen);
	for (size_t k = 0; k < nchosen; k++)
		any_native |= !!(chosen[k]->traits & WS_BE_NATIVE);
	natives = xcalloc(nchosen + 1, sizeof(*natives));
	others = xcalloc(nchosen + 1, sizeof(*others));
	s->rusage = xcalloc(ev->n + 1, sizeof(*s->rusage));
	for (size_t i = 0; i < ev->n; i++) {
		if (ev->v[i].kind == WS_EVENT_DERIVED)
			claims[i].claimed = true; /* computed from its parts */
		else if (ev->v[i].kind == WS_EVENT_RUSAGE && !any_native)
			claims[i].reason = xstrdup("not measured under the simulator (add --sim-native-time)");
		/*
		 * perf's events where only the simulator runs: the software ones a native run would count here,
		 * not "not supported"; the hardware ones it has no model of, cycles its own estimate.
		 */
		else if (ev->v[i].kind == WS_EVENT_PERF && !any_native && !ev->v[i].simulable)
			claims[i].reason = xstrdup(!ev->v[i].hardware ? "not measured under the simulator (add --sim-native-time)"
						   : !strcmp(ev->v[i].name, "cycles")
						   ? "not counted by the simulator (its estimate is estimated-cycles)"
						   : "not counted by the simulator");
	}
	for (size_t k = 0; k < nchosen; k++) {
		const struct ws_backend_ops *ops = chosen[k];
		bool native = ops->traits & WS_BE_NATIVE, wanted = native, took = false;
		bool *before = xcalloc(ev->n + 1, sizeof(*before));
		struct ws_backend_opts bo = o->be;
		struct ws_backend *be;

		for (size_t i = 0; i < ev->n; i++) {
			before[i] = claims[i].claimed;
			wanted |= !claims[i].claimed && (!ops->could_count || ops->could_count(&ev->v[i]));
		}
		if (!wanted) {
			free(before);
			continue;
		}
		/* The runner's own metrics come from the first native backend's runs. */
		if (native && !rusage_taken) {
			for (size_t i = 0; i < ev->n; i++)
				if (ev->v[i].kind == WS_EVENT_RUSAGE && !claims[i].claimed)
					claims[i].claimed = s->rusage[i] = took = true;
		}
		bo.beside_native = any_native && !native;
		be = ws_backend_new(ops, &bo);
		ret = ops->setup(be, ev, claims);
		for (size_t i = 0; i < ev->n; i++)
			took |= claims[i].claimed && !before[i];
		free(before);
		if (ret < 0) {
			ws_backend_free(be);
			/* auto: the other backends' figures are still worth having; what needs this one is unsupported. */
			if (native || !strcmp(o->backend, ops->name))
				goto out;
			ret = 0;
			continue;
		}
		if (!took && !native) {
			ws_backend_free(be);
			continue;
		}
		if (native) {
			natives[nnat++] = (struct phase){ be, o->runs_auto ? o->max_runs : o->runs, o->warmup, true,
							  !rusage_taken };
			rusage_taken = true;
		} else {
			exact_groups |= !!(ops->traits & WS_BE_EXACT_GROUPS);
			/* With --layouts each simulated run is one environment size. */
			others[noth++] = (struct phase){ be, o->layouts > 1 ? o->layouts : o->sim_runs, 0, false,
							  false };
		}
	}
	/*
	 * Markers that read counters with a system call per region would distort native timings; with a
	 * backend at hand that counts regions exactly and without perturbing anything, they are counted there.
	 * Likewise per-function counts: exact there, so native sampling is not needed.
	 */
	for (size_t k = 0; exact_groups && k < nnat; k++)
		natives[k].be->opts.regions = natives[k].be->opts.functions = false;
out:
	s->phases = xcalloc(nnat + noth + 1, sizeof(*s->phases));
	for (size_t k = 0; k < nnat; k++)
		s->phases[s->nphases++] = natives[k];
	for (size_t k = 0; k < noth; k++)
		s->phases[s->nphases++] = others[k];
	s->primary = s->nphases ? &s->phases[0] : NULL;
	free(natives);
	free(others);
	free(chosen);
	return ret;
}

/*
 * The simulated CPU against this one. Valgrind's virtual CPU reports other features than the host's (no
 * AVX-512, for one), so glibc's string functions and any code that dispatches on CPUID can run another
 * implementation simulated than natively: where a report mixes the two, say so; with --sim-cpu-native,
 * mask what glibc can in the native runs. Returns 0, or a negative errno when --sim-cpu-native cannot
 * be honoured (the features are unknown).
 */
static int cpu_features(struct session *s)
{
	const struct ws_measure_opts *o = s->o;
	struct ws_cpu_features f = WS_CPU_FEATURES_INIT;
	bool native = false, simulated = false;
	char *hidden, *added;

	for (size_t k = 0; k < s->nphases; k++) {
		native |= !!(s->phases[k].be->ops->traits & WS_BE_NATIVE);
		simulated |= !!(s->phases[k].be->ops->traits & WS_BE_DETERMINISTIC);
	}
	if (!(native && simulated) && !(o->sim_cpu_native && native))
		return 0;
	if (ws_cpu_features_probe(&f) < 0) {
		ws_cpu_features_release(&f);
		if (!o->sim_cpu_native)
			return 0;
		return ws_error("--sim-cpu-native: the CPU features the simulator hides are unknown here (see "
				"'whyslow doctor')"),
		       -ENOENT;
	}
	hidden = ws_cpu_features_join(f.hidden);
	added = ws_cpu_features_join(f.added);
	if (o->sim_cpu_native) {
		const char *user = getenv("GLIBC_TUNABLES");
		char *unreached = NULL, *mask = ws_cpu_features_tunable(&f, &unreached);

		/* Appended to the user's own tunables, so that theirs still apply and ours come last. */
		if (mask)
			s->native_env[0] = xasprintf("GLIBC_TUNABLES=%s%s%s", user && *user ? user : "",
						     user && *user ? ":" : "", mask);
		if (mask)
			ws_log(WS_LOG_INFO, "native runs hide what the simulator hides, as far as glibc reaches: "
			       "GLIBC_TUNABLES=%s", mask);
		if (unreached)
			ws_result_warn(s->res, "--sim-cpu-native: glibc cannot mask %s, so code that dispatches on "
				       "those itself still runs differently natively", unreached);
		s->res->settings.sim_cpu_native = true;
		free(unreached);
		free(mask);
	} else if (hidden) {
		ws_result_warn(s->res, "the simulator hides CPU features this machine has (%s): glibc's string "
			       "functions and any code that dispatches on CPUID can run other implementations "
			       "natively than simulated; --sim-cpu-native masks them in the native runs", hidden);
	}
	if (added && simulated)
		ws_result_warn(s->res, "the simulator shows CPU features this machine lacks (%s): simulated code can "
			       "take paths the native runs cannot", added);
	s->res->machine.cpu_features_host = f.host;
	s->res->machine.cpu_features_sim = f.sim;
	f.host = f.sim = NULL;
	free(hidden);
	free(added);
	ws_cpu_features_release(&f);
	return 0;
}

/*
 * What built each program, so that a result says which rustc or GCC made the code it measured: read from
 * the executable a program runs directly (not through a shell, whose own build says nothing of the script).
 */
static void record_toolchains(struct session *s)
{
	struct ws_machine *m = &s->res->machine;

	m->toolchains = xcalloc(s->nprogs, sizeof(*m->toolchains));
	for (size_t i = 0; i < s->nprogs; i++) {
		char *const *argv = s->progs[i].argv;
		char *path;

		if (!argv || !argv[0] || (argv[1] && !strcmp(argv[1], "-c")))
			continue;
		path = ws_find_in_path(argv[0]);
		if (path && (m->toolchains[m->ntoolchains].compilers = ws_elf_toolchain(path)))
			m->toolchains[m->ntoolchains++].program = xstrdup(s->progs[i].name);
		free(path);
	}
}

static void record_settings(struct session *s)
{
	struct ws_result *r = s->res;
	const struct ws_measure_opts *o = s->o;
	bool native = !s->primary || (s->primary->be->ops->traits & WS_BE_NATIVE);
	char buf[64];
	time_t now = time(NULL);
	struct tm tm;
	char *names = NULL;

	/* What will run: a session without native runs makes --sim-runs simulated ones and no warm-up. */
	r->settings.runs = native ? o->runs : s->primary->runs;
	r->settings.warmup = native ? o->warmup : 0;
	r->settings.randomize_layout = o->randomize_layout && native && s->primary;
	r->settings.layouts = o->layouts > 1 ? o->layouts : 0;
	r->settings.seed = o->seed;
	free(r->settings.order);
	r->settings.order = xstrdup("interleaved");
	r->settings.runs_auto = o->runs_auto && native;
	/* None where several programs decide without one (compare): null, not a target of 0. */
	r->settings.target_ci = o->target_ci > 0 ? o->target_ci * 100 : NAN;
	r->settings.events = xcalloc(o->events->n + 1, sizeof(char *));
	for (size_t i = 0; i < o->events->n; i++)
		r->settings.events[i] = xstrdup(o->events->v[i].name);
	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	free(r->settings.created);
	r->settings.created = xstrdup(buf);
	ws_machine_probe(&r->machine);
	record_toolchains(s);
	/* The backends that ran, in run order: "perf", "sim", "perf+sim". */
	for (size_t k = 0; k < s->nphases; k++) {
		char *next = xasprintf("%s%s%s", names ? names : "", names ? "+" : "", s->phases[k].be->ops->name);

		free(names);
		names = next;
	}
	r->machine.backend = names ? names : xstrdup(o->backend);
}

/*
 * The metric --runs auto judges: the primary asked for, else the one the comparison will make primary
 * (cycles where a PMU counted them, else wall time), else the first time metric measured natively.
 */
static const char *precision_metric(struct session *s)
{
	const char *order[] = { s->o->precision_metric, "cycles", "wall-time", "task-clock", "instructions" };
	struct ws_variant *base = &s->res->variants[s->o->baseline];

	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		const struct ws_metric *m = order[i] ? ws_metric_set_find(&base->metrics, order[i]) : NULL;

		if (m && m->n && !(m->flags & (WS_M_UNSUPPORTED | WS_M_SIMULATED)))
			return order[i];
	}
	return NULL;
}

/* The finite samples of `m`, in a new array; *n their count. */
static double *finite_samples(const struct ws_metric *m, size_t *n)
{
	double *x = xmalloc((m->n + 1) * sizeof(*x));

	*n = 0;
	for (size_t i = 0; i < m->n; i++)
		if (isfinite(m->samples[i]))
			x[(*n)++] = m->samples[i];
	return x;
}

/*
 * --runs auto with several programs: is every variant's answer decided at this look, `looks` being how
 * many the schedule has? Each primary's CI at 1 - alpha / (looks V) against the noise band for "different",
 * at 1 - alpha for "same" (docs/statistics.md, 16: the union bound over looks and variants keeps false
 * "different" calls at most alpha).
 */
static bool decided(struct session *s, size_t looks)
{
	const struct ws_measure_opts *o = s->o;
	struct ws_variant *base = &s->res->variants[o->baseline];
	const char *metric = precision_metric(s);
	struct ws_metric *bm = metric ? ws_metric_set_find(&base->metrics, metric) : NULL;
	double alpha_diff = o->alpha / (double)(looks * (s->nprogs - 1));
	bool all = true;
	size_t nx;
	double *x;

	if (!bm || !bm->n)
		return false;
	x = finite_samples(bm, &nx);
	for (size_t i = 0; i < s->nprogs && all; i++) {
		struct ws_metric *vm;
		size_t ny;
		double *y;

		if (i == o->baseline)
			continue;
		vm = ws_metric_set_find(&s->res->variants[i].metrics, metric);
		if (!vm) {
			all = false;
			break;
		}
		y = finite_samples(vm, &ny);
		/* Paired needs the rounds in step: the samples, not the finite ones, where every run counted. */
		all = ws_sequential_state(o->paired ? bm->samples : x, o->paired ? bm->n : nx,
					  o->paired ? vm->samples : y, o->paired ? vm->n : ny, o->paired, o->effect,
					  o->noise, alpha_diff, o->alpha, o->seed + i) != WS_SEQ_MORE;
		free(y);
	}
	free(x);
	return all;
}

/* --runs auto: has every variant's ratio (or the single program's median) reached the target? */
static bool precise_enough(struct session *s)
{
	const struct ws_measure_opts *o = s->o;
	struct ws_variant *base = &s->res->variants[o->baseline];
	const char *metric = precision_metric(s);
	struct ws_metric *bm = metric ? ws_metric_set_find(&base->metrics, metric) : NULL;
	bool ok = true;

	/* Nothing to judge precision by: keep going to --max-runs rather than claim a precision unchecked. */
	if (!bm || !bm->n)
		return false;
	if (s->nprogs == 1) {
		double lo, hi, med = ws_median(bm->samples, bm->n);

		if (ws_median_ci(bm->samples, bm->n, 0.95, &lo, &hi) < 0 || med == 0)
			return false;
		return (hi - lo) / 2 / fabs(med) <= o->target_ci;
	}
	for (size_t i = 0; i < s->nprogs && ok; i++) {
		struct ws_metric *vm;

		if (i == o->baseline)
			continue;
		vm = ws_metric_set_find(&s->res->variants[i].metrics, metric);
		if (vm && vm->n)
			ok = ws_precision_reached(bm->samples, bm->n, vm->samples, vm->n, o->target_ci,
						  o->seed + i);
	}
	return ok;
}

/* A native phase: warm-up, then seeded rounds, each running every program once in a fresh random order. */
static int interleaved_phase(struct session *s, struct phase *ph)
{
	const struct ws_measure_opts *o = s->o;
	bool runs_auto = o->runs_auto && ph == s->primary;
	/* Several programs without a precision target: stop when the answer is decided, at scheduled looks. */
	bool decide = runs_auto && s->nprogs > 1 && o->target_ci == 0;
	size_t nlooks = decide ? ws_sequential_schedule(o->min_runs, ph->runs, NULL, 0) : 0, look = 0;
	size_t *looks = xcalloc(nlooks + 1, sizeof(*looks));
	struct ws_rng rng;
	size_t *order = xmalloc(s->nprogs * sizeof(*order));
	bool stopped = false;
	int ret = 0;

	if (decide)
		ws_sequential_schedule(o->min_runs, ph->runs, looks, nlooks);

	ws_rng_seed(&rng, o->seed);
	for (size_t w = 0; w < ph->warmup && !ret; w++) {
		for (size_t i = 0; i < s->nprogs && !ret; i++) {
			progress(s, "warm-up", s->progs[i].name);
			ret = run_one(s, ph, i, false, 0);
		}
	}
	for (size_t r = 0; r < ph->runs && !ret; r++) {
		for (size_t i = 0; i < s->nprogs; i++)
			order[i] = i;
		ws_rng_shuffle(&rng, order, s->nprogs);
		for (size_t k = 0; k < s->nprogs && !ret; k++) {
			progress(s, "measuring", s->progs[order[k]].name);
			ret = run_one(s, ph, order[k], true, r);
		}
		if (ret || !runs_auto)
			continue;
		s->res->settings.runs = r + 1;
		if (decide) {
			if (look < nlooks && r + 1 == looks[look] && (look++, decided(s, nlooks))) {
				stopped = true;
				break;
			}
		} else if (r + 1 >= o->min_runs && precise_enough(s)) {
			stopped = true;
			break;
		}
		/*
		 * The time budget never cuts a session short of its first look (min_runs, 10): fewer rounds cannot
		 * decide anything, so stopping there would spend the time and report nothing, and a slow program
		 * (5 s a run against the 30 s default) would never get a comparison. hyperfine keeps its minimum
		 * runs whatever the time too.
		 */
		if (o->max_time > 0 && r + 1 >= o->min_runs && ws_now() - s->t0 > o->max_time)
			break;
	}
	/*
	 * Stopped on its answer or not, the session stopped where the primary's looks said: every other
	 * comparison is judged at the per-look level (statistics.md, 16: a correlated secondary at the full alpha
	 * came out other than `same` 9.1% of the time, nearly all of it `noise`).
	 */
	if (decide && !ret)
		s->res->settings.schedule_looks = nlooks;
	/* A budget spent is said, with what was not reached: never taken for an answer. */
	if (runs_auto && !ret && !stopped) {
		size_t n = s->res->settings.runs;

		if (decide) {
			/* Undecided: a CI still wide, or one reaching across an edge of the band; not only the latter. */
			ws_result_warn(s->res, "--runs auto stopped at %zu rounds (%s) before the answer was decided: "
				       "the interval is neither clear of the noise band (±%g%%) nor inside it; more "
				       "rounds would narrow it", n,
				       n >= ph->runs ? "--max-runs" : "--max-time", 100 * o->noise);
			/*
			 * The report on these samples is one more look: at the full alpha it added its own 5% to the
			 * looks' alpha / L (6.6% false alarms with --noise 0). Judged at alpha / L, as a look is, it
			 * stays inside the union bound (statistics.md, 16); a time budget spent between two looks
			 * takes the place of the next. A decided session needs none of this: a "different" stop
			 * already cleared the band at alpha / (L V), a "same" one cannot give slower or faster.
			 */
			s->res->settings.looks = nlooks;
		} else
			ws_result_warn(s->res, "--runs auto stopped at %zu rounds (%s) before the CI reached ±%g%%", n,
				       n >= ph->runs ? "--max-runs" : "--max-time", 100 * o->target_ci);
	}
	free(order);
	free(looks);
	return ret;
}

/* Any other phase, one run at a time: its runs confirm deterministic counts, so program after program, round by round. */
static int serial_phase(struct session *s, struct phase *ph)
{
	int ret = 0;

	for (size_t k = 0; k < ph->runs && !ret; k++) {
		for (size_t i = 0; i < s->nprogs && !ret; i++) {
			progress(s, "simulating", s->progs[i].name);
			ret = run_one(s, ph, i, true, k);
		}
	}
	return ret;
}

/* The CPUs the runs may use: --cpu's, else whyslow's own affinity. */
static size_t usable_cpus(const struct ws_measure_opts *o)
{
	cpu_set_t set;

	if (o->cpus)
		return (size_t)CPU_COUNT(o->cpus);
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (size_t)CPU_COUNT(&set);
	return 1;
}

/*
 * MemAvailable from /proc/meminfo in bytes, or -1 when unknown. WHYSLOW_TEST_MEM_AVAILABLE (bytes) replaces
 * it: a test interface, as WHYSLOW_TEST_PERF_FAULTS is, so that the limit can be tested on any machine.
 */
static double mem_available(void)
{
	const char *test = getenv("WHYSLOW_TEST_MEM_AVAILABLE");
	char *info = NULL, *line;
	double kib = -1;

	if (test && *test)
		return strtod(test, NULL);
	if (ws_read_file("/proc/meminfo", &info, NULL) < 0)
		return -1;
	if ((line = strstr(info, "MemAvailable:")))
		kib = strtod(line + strlen("MemAvailable:"), NULL);
	free(info);
	return kib > 0 ? kib * 1024 : -1;
}

#define MIB (1024.0 * 1024.0)

/*
 * Runs of a phase that is not native, several at once (-j): their counts do not depend on timing, so they
 * may overlap. They start in the order a serial phase would run them and are collected strictly in that
 * order, whatever order they end in, so that the result is the serial one to the byte. The first runs
 * alone: its peak size (max-rss, the whole process tree under the simulator) is what one run takes, and
 * the runs in flight never add up to more than the memory available then (MemAvailable, less a tenth kept
 * free), each counted at its program's largest peak so far (the largest of any program before its first).
 * A run that fails stops the phase when its turn comes, as it would one run at a time; the runs after it
 * are killed.
 */
/*
 * At the first simulation's end, which took `peak` bytes at most: lower *jobs to what `budget` holds, or
 * refuse a number the user gave (-ENOMEM, said with the reason). `name` is the program it simulated.
 */
static int fit_jobs(struct session *s, size_t *jobs, size_t total, double peak, double budget, const char *name)
{
	size_t fit = *jobs;

	if (budget > 0 && peak > 0) {
		fit = (size_t)(budget / peak);
		if (fit < 1)
			fit = 1;
	}
	if (fit < *jobs && s->o->jobs_given && fit < total) {
		ws_error("-j %zu: a simulation of '%s' took up to %.0f MiB, and %zu at once would need %.0f MiB, more "
			 "than the %.0f MiB free for them (MemAvailable, less a tenth); give -j %zu or less",
			 *jobs, name, peak / MIB, *jobs, (double)*jobs * peak / MIB, budget / MIB, fit);
		return -ENOMEM;
	}
	if (fit < *jobs) {
		ws_log(WS_LOG_INFO, "simulating %zu at a time, not %zu: one took up to %.0f MiB, and %.0f MiB are "
		       "free for them", fit, *jobs, peak / MIB, budget / MIB);
		*jobs = fit;
	}
	ws_log(WS_LOG_DEBUG, "simulations: up to %zu at once (one took %.0f MiB; %.0f MiB free)", *jobs,
	       peak / MIB, budget / MIB);
	return 0;
}

/* A simulation's size before any has said otherwise: larger than every one measured here (40-110 MiB). */
#define SIM_GUESS (1024 * MIB)

/*
 * What a simulation of program `i` is expected to take: the largest peak its simulations reached so far;
 * before one has ended, twice the peak of its native runs plus 128 MiB (the tool's tables and translations:
 * 35-90 MiB more than native on seven programs), else the largest simulation of any program, else SIM_GUESS.
 */
static double sim_need(const struct session *s, const double *peak, double max_peak, size_t i)
{
	if (peak[i] > 0)
		return peak[i];
	if (s->native_rss[i] > 0)
		return 2 * s->native_rss[i] + 128 * MIB;
	return max_peak > 0 ? max_peak : SIM_GUESS;
}

/*
 * Runs of a phase that is not native, several at once (-j): their counts do not depend on timing, so they
 * may overlap. They start in the order a serial phase would run them and are collected strictly in that
 * order, whatever order they end in, so that the result is the serial one to the byte. Memory: the runs in
 * flight never add up to more than the memory available when the phase starts (MemAvailable, less a tenth),
 * each counted at sim_need(); the first to end says what one takes (max-rss, the whole process tree under
 * the simulator), and -j is lowered to what fits, or refused if the user gave it. A run that fails stops
 * the phase when its turn comes, as it would one run at a time; the runs after it are killed.
 */
static int parallel_phase(struct session *s, struct phase *ph)
{
	const struct ws_measure_opts *o = s->o;
	size_t total = ph->runs * s->nprogs, next = 0, head = 0, jobs = ph->jobs, cpus = usable_cpus(o);
	struct pending *r = xcalloc(total + 1, sizeof(*r));
	struct ws_job **slot = xcalloc(jobs + 1, sizeof(*slot));
	size_t *slot_run = xcalloc(jobs + 1, sizeof(*slot_run));
	double *peak = xcalloc(s->nprogs + 1, sizeof(*peak)), *need = xcalloc(total + 1, sizeof(*need));
	double max_peak = 0, budget = mem_available(), held = 0;
	bool measured = false, refused = false;
	int ret = 0;

	if (budget > 0)
		budget *= 0.9;
	for (size_t t = 0; t < total; t++) {
		const struct ws_program *prog = &s->progs[t % s->nprogs];

		r[t] = (struct pending){ .prog = t % s->nprogs, .run = t / s->nprogs, .record = true };
		/* Each run writes an --output file of its own, which becomes the file when its turn comes. */
		if (prog->output == WS_OUTPUT_FILE)
			r[t].output = xasprintf("%s.whyslow-run-%zu", prog->output_path, t);
	}
	while (head < total && !ret) {
		struct ws_run_outcome out;
		size_t k;

		/* Start what the slots and the memory allow (one at least). */
		while (!refused && next < total && ph->running < jobs) {
			struct pending *q = &r[next];

			need[next] = sim_need(s, peak, max_peak, q->prog);
			if (ph->running && budget > 0 && held + need[next] > budget)
				break;
			for (k = 0; slot[k]; k++)
				;
			/* With every CPU taken by a run, none has a CPU for a helper thread. */
			ph->be->opts.cpus_full = jobs >= cpus;
			if ((ret = run_prepare(s, ph, q)) < 0 || (ret = ws_job_start(&q->ex, &slot[k])) < 0)
				break;
			q->t_start = ws_now();
			slot_run[k] = next++;
			held += need[slot_run[k]];
			ph->running++;
			ph->started += q->t_start;
			/* After the start, so that the line counts it among those in flight. */
			progress(s, "simulating", s->progs[q->prog].name);
		}
		if (ret)
			break;
		/* Collect strictly in order: the next one may have ended while later ones ran. */
		if (r[head].finished) {
			ret = run_finish(s, ph, &r[head]);
			run_release(ph, &r[head]);
			head++;
			continue;
		}
		if (refused) {
			ret = -ENOMEM;
			break;
		}
		ret = ws_job_wait_any(slot, ph->jobs, &k, &out);
		if (ret == -EINTR)
			break;
		{
			size_t t = slot_run[k];
			struct pending *q = &r[t];

			q->out = out;
			q->finished = true;
			ph->running--;
			ph->started -= q->t_start;
			held -= need[t];
			ph->time += out.wall;
			ph->done++;
			s->done++;
			if (out.max_rss > peak[q->prog])
				peak[q->prog] = out.max_rss;
			if (out.max_rss > max_peak)
				max_peak = out.max_rss;
			if (ret < 0)
				break;
			/* The first to end says what one takes; the runs that ended before the refusal are kept. */
			if (!measured) {
				measured = true;
				refused = fit_jobs(s, &jobs, total, max_peak, budget, s->progs[q->prog].name) < 0;
			}
		}
	}
	for (size_t k = 0; k < ph->jobs; k++)
		ws_job_kill(slot[k]);
	ph->running = 0;
	for (size_t t = 0; t < total; t++)
		run_release(ph, &r[t]);
	free(peak);
	free(need);
	free(slot);
	free(slot_run);
	free(r);
	return ret;
}

/*
 * How many runs of phase `ph` may run at once: one for a native phase (timed runs are never disturbed),
 * for runs made elsewhere, for a backend that keeps its run in priv, and when hooks run around each run
 * (a --prepare expects its run to follow it alone); else -j, by default one per CPU the runs may use, at
 * most the phase's runs.
 */
static size_t phase_jobs(struct session *s, const struct phase *ph)
{
	const struct ws_measure_opts *o = s->o;
	const struct ws_backend_ops *ops = ph->be->ops;
	size_t jobs = o->jobs ? o->jobs : usable_cpus(o), runs = ph->runs * s->nprogs;
	bool hooks = false;

	if (ph->interleaved || (ops->traits & WS_BE_NATIVE) || o->supply || !ops->run_new ||
	    (ops->wants_pid && ops->wants_pid(ph->be)))
		return 1;
	for (size_t i = 0; i < s->nprogs; i++)
		hooks |= s->progs[i].hooks[WS_HOOK_PREPARE] || s->progs[i].hooks[WS_HOOK_CONCLUDE];
	if (hooks) {
		if (o->jobs_given && o->jobs > 1)
			ws_log(WS_LOG_INFO, "-j %zu: simulated runs go one at a time, as --prepare and --conclude "
			       "expect their run to be the only one", o->jobs);
		return 1;
	}
	return jobs < runs ? jobs : runs;
}

/*
 * --sim-scope regions or regions-warm on a program that opened no region: nothing of it was simulated, its
 * counts are not counted. Said in the result file and under the report, not only on stderr as it happened,
 * where the report's "-" cells and a "no cycle counts" would otherwise be all that is left of it.
 */
static void scope_found_nothing(struct session *s)
{
	for (size_t k = 0; k < s->nphases; k++) {
		const struct ws_backend *be = s->phases[k].be;
		const char *scope = be->opts.sim_scope;

		if ((be->ops->traits & WS_BE_NATIVE) || !scope || !strcmp(scope, "all"))
			continue;
		for (size_t i = 0; i < s->nprogs; i++) {
			const struct ws_metric *m = ws_metric_set_find(&s->res->variants[i].metrics, "instructions");
			bool counted = false;

			for (size_t j = 0; m && j < m->n; j++)
				counted |= !isnan(m->samples[j]);
			if (m && m->n && !counted) {
				char *qn = ws_quote_name(s->res->variants[i].name);

				ws_result_warn(s->res, "%s opened no region, and --sim-scope %s simulates only inside "
					       "regions: nothing of it was simulated, and its simulated counts are not "
					       "counted (mark its regions with include/whyslow.h)",
					       qn, scope);
				free(qn);
			}
		}
	}
}

/* A share of the fewest instructions by which a threaded program's simulated runs may differ unremarked. */
#define SCHEDULE_SPREAD 0.01

/*
 * Simulated runs that repeat one another (not --layouts, whose runs differ on purpose) count the same, or
 * nearly (WS_EXACT_SPREAD): where they do not, the result says why, once per program.
 *
 * Threads: Valgrind runs one thread at a time, for a time slice (100,000 blocks) or until a system call. A
 * thread that waits for another by polling a flag polls for the rest of its slice, where hardware would
 * see the flag set within a few hundred cycles; where the slices fall moves from run to run, and the
 * polling loop's counts with it (docs/simulator.md, Known limits). A C ping-pong of 200 handoffs through
 * one atomic flag simulated 120 to 730 million instructions in three runs, for a few thousand natively.
 * One run alone cannot show it.
 *
 * Else, past WS_EXACT_SPREAD: the program does not do the same work each run. python3 and perl randomise their hashing at
 * start (a Python loop's instructions moved by 1.8% between runs, by 0.0002% with PYTHONHASHSEED=0).
 */
static void warn_spread(struct session *s)
{
	const struct ws_measure_opts *o = s->o;
	bool simulated = false;

	for (size_t k = 0; k < s->nphases; k++)
		simulated |= !!(s->phases[k].be->ops->traits & WS_BE_DETERMINISTIC);
	if (!simulated || o->layouts > 1)
		return;
	for (size_t i = 0; i < s->nprogs; i++) {
		const struct ws_variant *v = &s->res->variants[i];
		const struct ws_metric *m = ws_metric_set_find(&v->metrics, "instructions");
		const char *what = "instructions";
		double lo = INFINITY, hi = -INFINITY, pct;
		char *qn;

		/* Counted by a PMU beside the simulator, instructions are not the simulator's to judge. */
		if (!m || !m->n || !(m->flags & WS_M_SIMULATED)) {
			m = ws_metric_set_find(&v->metrics, "estimated-cycles");
			what = "estimated-cycles";
		}
		for (size_t j = 0; m && j < m->n; j++) {
			if (isnan(m->samples[j]))
				continue;
			lo = fmin(lo, m->samples[j]);
			hi = fmax(hi, m->samples[j]);
		}
		if (!(lo > 0))
			continue;
		qn = ws_quote_name(v->name);
		pct = 100 * (hi - lo) / lo;
		if (o->sim_runs == 1 && v->sim_threads > 1)
			ws_result_warn(s->res, "%s ran %u threads, whose simulated counts can move from run to run with "
				       "Valgrind's thread schedule, and one simulated run cannot show by how much: "
				       "--sim-runs 3 does", qn, v->sim_threads);
		else if (v->sim_threads > 1 && hi - lo > SCHEDULE_SPREAD * lo)
			ws_result_warn(s->res, "%s ran %u threads, and its simulated %s differ by %.*f%% between runs "
				       "(%.0f to %.0f): the simulator runs one thread at a time, so a thread that waits for "
				       "another by polling (a spin-wait) polls until Valgrind switches threads, not for the "
				       "few hundred cycles hardware takes, and its counts follow that schedule; compare "
				       "such programs by time (--sim-native-time, or a PMU), and see which functions move "
				       "with --functions", qn, v->sim_threads, what, pct < 10 ? 1 : 0, pct, lo, hi);
		else if (hi - lo > WS_EXACT_SPREAD * lo)
			ws_result_warn(s->res, "%s: its simulated %s differ by %.*f%% between runs (%.0f to %.0f), so it "
				       "does not do the same work each run: it reads the clock or random numbers, or "
				       "randomises its hashing (PYTHONHASHSEED=0 for python3 and PERL_HASH_SEED=0 for "
				       "perl make theirs repeat); its counts are compared statistically, not exactly",
				       qn, what, pct < 10 ? 1 : 0, pct, lo, hi);
		free(qn);
	}
}

int ws_measure(struct ws_result *res, const struct ws_program *progs, size_t nprogs,
	       const struct ws_measure_opts *o)
{
	struct session s = { .res = res, .progs = progs, .nprogs = nprogs, .o = o };
	struct ws_claim *claims = xcalloc(o->events->n + 1, sizeof(*claims));
	int ret;

	s.t0 = ws_now();
	/*
	 * A command that cannot run fails now, in one line, before any set-up or backend says anything; but a
	 * program with a --setup hook is checked after it, which may be what builds it. Runs made elsewhere
	 * run nothing here.
	 */
	for (size_t i = 0; i < nprogs && !o->supply; i++) {
		for (size_t k = 0; k < WS_NHOOKS; k++) {
			char *what;

			if (!progs[i].hooks[k])
				continue;
			what = xasprintf("the %s of '%s'", hook_options[k], progs[i].name);
			ret = ws_run_check(progs[i].hooks[k][0], what);
			free(what);
			if (ret < 0) {
				free(claims);
				return ret;
			}
		}
		if (!progs[i].hooks[WS_HOOK_SETUP] && (ret = ws_run_check(progs[i].argv[0], NULL)) < 0) {
			free(claims);
			return ret;
		}
	}
	for (size_t i = 0; i < nprogs; i++) {
		struct ws_variant *v = ws_result_add_variant(res, progs[i].name, progs[i].command);

		v->baseline = i == o->baseline;
		for (size_t k = 0; k < progs[i].nparams; k++)
			ws_variant_add_param(v, progs[i].params[k].name, progs[i].params[k].value);
	}
	s.native_rss = xcalloc(nprogs + 1, sizeof(*s.native_rss));
	s.rss_low = xcalloc(nprogs + 1, sizeof(*s.rss_low));
	s.rss_floor = xcalloc(nprogs + 1, sizeof(*s.rss_floor));
	ret = plan(&s, claims);
	record_settings(&s);
	if (!ret)
		ret = cpu_features(&s);
	/* Everything requested that nothing can count is reported as unsupported, with the reason. */
	for (size_t e = 0; e < o->events->n; e++) {
		const struct ws_metric_info *mi = ws_metric_info(o->events->v[e].name);

		if (claims[e].claimed)
			continue;
		/* No backend of the plan said why: a metric of the simulator's alone, under --backend perf. */
		if (!claims[e].reason && mi && mi->sources == WS_SRC_SIM)
			claims[e].reason = xstrdup("counted only by the simulator (--backend sim)");
		for (size_t i = 0; i < nprogs; i++)
			ws_metric_set_unsupported(&res->variants[i].metrics, o->events->v[e].name,
						  claims[e].reason ? claims[e].reason : "not supported here");
	}
	/*
	 * Nothing asked for that any backend here counts (-e wall-time under the simulator alone, -e
	 * estimated-cycles under perf): the runs would measure nothing, so none is made. A derived metric
	 * counts through its parts, which are in the list.
	 */
	if (!ret && !o->supply) {
		const struct ws_event *none = NULL;
		const char *why = NULL;
		bool any = false;

		for (size_t e = 0; e < o->events->n && !any; e++) {
			if (o->events->v[e].kind == WS_EVENT_DERIVED)
				continue;
			any = claims[e].claimed;
			if (!none) {
				none = &o->events->v[e];
				why = claims[e].reason;
			}
		}
		if (!any && none) {
			ws_error("none of the metrics asked for can be measured here (%s: %s): nothing was run; ask for "
				 "others (-e, 'whyslow list') or another --backend", none->name, why ? why : "not supported here");
			ret = -EINVAL;
		}
	}
	if (!ret && o->planned)
		ret = o->planned(res, o->planned_data);
	if (ret < 0)
		goto out;
	for (size_t k = 0; k < s.nphases; k++) {
		s.total += nprogs * (s.phases[k].warmup + s.phases[k].runs);
		s.phases[k].jobs = phase_jobs(&s, &s.phases[k]);
	}
	/*
	 * Every program's --setup before the first run of any: the programs are interleaved, so each one's
	 * first run may come in any order after them.
	 */
	for (size_t i = 0; i < nprogs && !ret; i++) {
		ret = run_hook(&s, i, WS_HOOK_SETUP, "");
		if (!ret && progs[i].hooks[WS_HOOK_SETUP])
			ret = ws_run_check(progs[i].argv[0], NULL);
	}
	for (size_t k = 0; k < s.nphases && !ret; k++) {
		struct phase *ph = &s.phases[k];

		if (ph->interleaved)
			ret = interleaved_phase(&s, ph);
		else if (ph->jobs > 1)
			ret = parallel_phase(&s, ph);
		else
			ret = serial_phase(&s, ph);
	}
	for (size_t k = 0; k < s.nphases; k++)
		if (s.phases[k].be->ops->describe)
			s.phases[k].be->ops->describe(s.phases[k].be, &res->machine);
	scope_found_nothing(&s);
	warn_spread(&s);
	rss_below_floor(&s);
	/*
	 * A session stopped before a phase ran (Ctrl-C during the native runs of auto, before the simulated
	 * ones) has nothing of what only that phase counts: those metrics are there, unsupported with the
	 * reason, not missing as though never asked for.
	 */
	if (ret < 0) {
		char *why = ret == -EINTR ? xstrdup("interrupted before the runs that count it")
					  : xasprintf("the session stopped (%s) before the runs that count it",
						      ret == -ECHILD ? (s.hook_failed ? "a hook failed" : "a run failed")
								     : strerror(-ret));

		for (size_t e = 0; e < o->events->n; e++) {
			if (!claims[e].claimed)
				continue;
			for (size_t i = 0; i < nprogs; i++) {
				const struct ws_metric *m = ws_metric_set_find(&res->variants[i].metrics,
									       o->events->v[e].name);

				if (!m || (!m->n && !(m->flags & WS_M_UNSUPPORTED)))
					ws_metric_set_unsupported(&res->variants[i].metrics, o->events->v[e].name, why);
			}
		}
		free(why);
	}
	if (ret == -EINTR) {
		res->partial = true;
		res->partial_reason = xstrdup("interrupted");
	} else if (ret == -ECHILD) {
		res->partial = true;
		res->partial_reason = xstrdup(s.hook_failed ? "a hook failed" : "a run failed");
	} else if (ret < 0 && (s.done > 0)) {
		res->partial = true;
		res->partial_reason = xasprintf("stopped by an error: %s", strerror(-ret));
	}
	/*
	 * --cleanup after the session's last run. A session that stopped early runs nothing more, as hyperfine
	 * does; a cleanup that fails after every run was made leaves the result whole, but the exit status says so.
	 */
	for (size_t i = 0; i < nprogs && !ret; i++)
		ret = run_hook(&s, i, WS_HOOK_CLEANUP, "");
out:
	for (size_t k = 0; k < s.nphases; k++)
		ws_backend_free(s.phases[k].be);
	free(s.phases);
	for (size_t e = 0; e < o->events->n; e++)
		free(claims[e].reason);
	free(claims);
	free(s.rusage);
	free(s.native_rss);
	free(s.rss_low);
	free(s.rss_floor);
	free(s.native_env[0]);
	return ret;
}
