/* SPDX-License-Identifier: GPL-2.0-or-later */
/* measure.c - a measurement session: warm-up, seeded interleaved rounds, native and simulated runs. */
#include "measure/measure.h"
#include "core/log.h"
#include "core/util.h"
#include "perf/perf.h"
#include "result/metrics.h"
#include "sim/sim-presets.h"
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

struct session {
	struct ws_result *res;
	const struct ws_program *progs;
	size_t nprogs;
	const struct ws_measure_opts *o;
	struct ws_backend *native; /* perf; NULL when there are no native runs */
	struct ws_backend *sim;    /* NULL unless a requested metric needs the simulator */
	bool *rusage;              /* per event: a runner metric to record from native runs */
	size_t done, total;
	double t0;
	double phase_time[2];      /* seconds spent in native and simulated runs, for the ETA */
	size_t phase_runs[2];
};

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

static void progress(struct session *s, const char *phase, const char *program)
{
	struct ws_progress p;
	double per_native, per_sim;
	size_t left_native, left_sim;

	if (!s->o->progress)
		return;
	p.done = s->done;
	p.total = s->total;
	p.elapsed = ws_now() - s->t0;
	p.phase = phase;
	p.program = program;
	/* Simulated runs are an order of magnitude slower; estimate each phase by its own pace. */
	per_native = s->phase_runs[0] ? s->phase_time[0] / (double)s->phase_runs[0] : -1;
	per_sim = s->phase_runs[1] ? s->phase_time[1] / (double)s->phase_runs[1] : -1;
	left_sim = s->sim ? s->nprogs * s->o->sim_runs - s->phase_runs[1] : 0;
	left_native = s->total - s->done - left_sim;
	if ((left_native && per_native < 0) || (left_sim && per_sim < 0))
		p.eta = -1;
	else
		p.eta = (double)left_native * (per_native > 0 ? per_native : 0) +
			(double)left_sim * (per_sim > 0 ? per_sim : 0);
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

static char *describe_failure(const struct ws_run_outcome *out)
{
	if (out->timed_out)
		return xstrdup("timed out and was killed");
	if (out->signal)
		return xasprintf("was killed by signal %d (%s)", out->signal, strsignal(out->signal));
	return xasprintf("exited with status %d", out->exit_code);
}

/*
 * One run of program `i`. `record` false for warm-up. `run` is the index the samples take. Returns 0,
 * -EINTR, -ECHILD for a failed run that is not ignored, or the runner's error.
 */
static int run_one(struct session *s, struct ws_backend *be, size_t i, bool record, size_t run, bool simulated)
{
	const struct ws_program *prog = &s->progs[i];
	struct ws_variant *v = &s->res->variants[i];
	struct ws_exec ex = {
		.argv = prog->argv,
		.show_output = s->o->show_output,
		/* The simulator runs a program tens of times slower: the same --timeout would kill it. */
		.timeout = s->o->timeout * (simulated ? WS_SIM_TIMEOUT_FACTOR : 1),
		.cpus = s->o->cpus,
	};
	/* Only a backend that must see the child's pid costs the fork-and-hold path; others spawn. */
	bool held = be->ops->wants_pid && be->ops->wants_pid(be);
	struct ws_run_hooks hooks = { held && be->ops->attach ? attach_hook : NULL,
				      held && be->ops->poll ? poll_hook : NULL, be };
	struct ws_run_outcome out;
	struct ws_run_status st;
	double t = ws_now();
	bool failed;
	int ret;

	if (be->ops->prepare && (ret = be->ops->prepare(be, &ex)) < 0)
		return ret;
	if (be->ops->arm && (ret = be->ops->arm(be)) < 0)
		return ret;
	ret = ws_run(&ex, &hooks, &out);
	s->phase_time[simulated] += ws_now() - t;
	s->phase_runs[simulated]++;
	s->done++;
	if (ret < 0)
		return ret;
	failed = out.exit_code != 0 || out.signal || out.timed_out;
	/* A simulated run killed by a signal wrote no counts: that is an error even with --ignore-failure. */
	if (failed && (!s->o->ignore_failure || (simulated && (out.signal || out.timed_out)))) {
		char *why = describe_failure(&out);

		if (simulated)
			ws_error("'%s' %s under the simulator%s", prog->name, why,
				 out.signal ? " (run it with plain valgrind to see where)" : "");
		else if (!record)
			ws_error("'%s' %s in a warm-up run; use --ignore-failure to keep such runs, or "
				 "--show-output to see its output",
				 prog->name, why);
		else
			ws_error("'%s' %s (run %zu); use --ignore-failure to keep such runs, or --show-output to "
				 "see its output",
				 prog->name, why, run + 1);
		free(why);
		return -ECHILD;
	}
	if (!record)
		return 0;
	/*
	 * The runs list is the runs the report counts: the native ones, or the simulated ones when nothing ran
	 * natively (perf+sim has more native runs than simulated ones, and those are the runs it times).
	 */
	if (!simulated || !s->native) {
		st.exit_code = out.exit_code;
		st.signal = out.signal;
		st.timed_out = out.timed_out;
		ws_variant_push_run(v, &st);
	}
	if (!simulated) {
		for (size_t e = 0; e < s->o->events->n; e++) {
			const char *name = s->o->events->v[e].name;
			double val;

			if (!s->rusage[e])
				continue;
			if (!strcmp(name, "wall-time"))
				val = out.wall;
			else if (!strcmp(name, "user-time"))
				val = out.user;
			else if (!strcmp(name, "system-time"))
				val = out.sys;
			else
				val = out.max_rss;
			ws_push_at(&v->metrics, name, 0, run, val, -1, NAN);
		}
	}
	return be->ops->collect ? be->ops->collect(be, &out, v, run) : 0;
}

/* The runner's own metrics are measured on native runs only: the simulator's wall time means nothing. */
static bool is_rusage(const struct ws_event *ev)
{
	return ev->kind == WS_EVENT_RUSAGE;
}

static int setup_backends(struct session *s, struct ws_claim *claims)
{
	const struct ws_measure_opts *o = s->o;
	const struct ws_event_list *ev = o->events;
	bool want_sim = false, native = strcmp(o->backend, "sim") != 0 || o->sim_native_time;
	int ret;

	s->rusage = xcalloc(ev->n + 1, sizeof(*s->rusage));
	for (size_t i = 0; i < ev->n; i++) {
		if (ev->v[i].kind == WS_EVENT_DERIVED) {
			claims[i].claimed = true; /* computed from its parts */
		} else if (is_rusage(&ev->v[i])) {
			if (native) {
				claims[i].claimed = s->rusage[i] = true;
			} else {
				claims[i].reason = xstrdup("not measured under the simulator (add --sim-native-time)");
			}
		}
	}
	if (native) {
		struct ws_backend_opts bo = o->be;

		/* --backend sim --sim-native-time: natively only what the simulator cannot count. */
		bo.software_only = !strcmp(o->backend, "sim");
		s->native = ws_backend_new("perf", &bo);
		if ((ret = s->native->ops->setup(s->native, ev, claims)) < 0)
			return ret;
	}
	for (size_t i = 0; i < ev->n; i++) {
		if (claims[i].claimed)
			continue;
		if (ev->v[i].kind == WS_EVENT_SIM || ev->v[i].simulable)
			want_sim = true;
	}
	if (!strcmp(o->backend, "perf") || !want_sim)
		return 0;
	s->sim = ws_backend_new("sim", &o->be);
	if (!s->sim) {
		for (size_t i = 0; i < ev->n; i++) {
			if (claims[i].claimed || !(ev->v[i].kind == WS_EVENT_SIM || ev->v[i].simulable))
				continue;
			free(claims[i].reason);
			claims[i].reason = xstrdup("needs the simulator, which this build of whyslow does not have");
		}
		if (!strcmp(o->backend, "sim"))
			return ws_error("this build of whyslow has no simulator backend"), -ENOSYS;
		return 0;
	}
	ret = s->sim->ops->setup(s->sim, ev, claims);
	if (ret < 0) {
		if (!strcmp(o->backend, "sim"))
			return ret;
		/* auto: the native figures are still worth having; what needs the simulator is unsupported. */
		ws_backend_free(s->sim);
		s->sim = NULL;
		return 0;
	}
	if (s->native) {
		/*
		 * Markers that read counters with a system call per region would distort native timings; with
		 * the simulator at hand the regions are counted there, exactly and without perturbing anything.
		 * Likewise per-function counts: exact from the simulator, so native sampling is not needed.
		 */
		s->native->opts.regions = false;
		s->native->opts.functions = false;
		ws_log(WS_LOG_INFO, "no PMU here: simulating cache and branch counters (preset %s); time and "
		       "software counters are measured natively",
		       o->be.sim_preset ? o->be.sim_preset : WS_SIM_PRESET_DEFAULT);
	}
	return 0;
}

static void record_settings(struct session *s)
{
	struct ws_result *r = s->res;
	const struct ws_measure_opts *o = s->o;
	char buf[64];
	time_t now = time(NULL);
	struct tm tm;

	/* What will run: a session without native runs makes --sim-runs simulated ones and no warm-up. */
	r->settings.runs = s->native || !s->sim ? o->runs : o->sim_runs;
	r->settings.warmup = s->native || !s->sim ? o->warmup : 0;
	r->settings.seed = o->seed;
	free(r->settings.order);
	r->settings.order = xstrdup("interleaved");
	r->settings.runs_auto = o->runs_auto && (s->native || !s->sim);
	r->settings.target_ci = o->target_ci * 100;
	r->settings.events = xcalloc(o->events->n + 1, sizeof(char *));
	for (size_t i = 0; i < o->events->n; i++)
		r->settings.events[i] = xstrdup(o->events->v[i].name);
	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	free(r->settings.created);
	r->settings.created = xstrdup(buf);
	ws_machine_probe(&r->machine);
	r->machine.backend = xstrdup(s->native && s->sim ? "perf+sim" : s->sim ? "sim" : "perf");
	if (s->sim)
		r->machine.sim_preset = xstrdup(o->be.sim_preset ? o->be.sim_preset : WS_SIM_PRESET_DEFAULT);
}

/* The metric --runs auto judges precision by: the one asked for, else the first time metric measured. */
static const char *precision_metric(struct session *s)
{
	const char *order[] = { s->o->precision_metric, "wall-time", "task-clock", "cycles", "instructions" };
	struct ws_variant *base = &s->res->variants[s->o->baseline];

	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		const struct ws_metric *m = order[i] ? ws_metric_set_find(&base->metrics, order[i]) : NULL;

		if (m && m->n && !(m->flags & WS_M_UNSUPPORTED))
			return order[i];
	}
	return NULL;
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

static int native_phase(struct session *s)
{
	const struct ws_measure_opts *o = s->o;
	struct ws_rng rng;
	size_t *order = xmalloc(s->nprogs * sizeof(*order));
	size_t rounds = o->runs_auto ? o->max_runs : o->runs;
	int ret = 0;

	ws_rng_seed(&rng, o->seed);
	for (size_t w = 0; w < o->warmup && !ret; w++) {
		for (size_t i = 0; i < s->nprogs && !ret; i++) {
			progress(s, "warm-up", s->progs[i].name);
			ret = run_one(s, s->native, i, false, 0, false);
		}
	}
	for (size_t r = 0; r < rounds && !ret; r++) {
		for (size_t i = 0; i < s->nprogs; i++)
			order[i] = i;
		ws_rng_shuffle(&rng, order, s->nprogs);
		for (size_t k = 0; k < s->nprogs && !ret; k++) {
			progress(s, "measuring", s->progs[order[k]].name);
			ret = run_one(s, s->native, order[k], true, r, false);
		}
		if (ret || !o->runs_auto)
			continue;
		s->res->settings.runs = r + 1;
		if (r + 1 >= o->min_runs && precise_enough(s))
			break;
		if (o->max_time > 0 && ws_now() - s->t0 > o->max_time) {
			ws_log(WS_LOG_WARN, "stopped after %zu runs: --max-time reached before the precision target",
			       r + 1);
			break;
		}
	}
	free(order);
	return ret;
}

static int sim_phase(struct session *s)
{
	int ret = 0;

	for (size_t k = 0; k < s->o->sim_runs && !ret; k++) {
		for (size_t i = 0; i < s->nprogs && !ret; i++) {
			progress(s, "simulating", s->progs[i].name);
			ret = run_one(s, s->sim, i, true, k, true);
		}
	}
	return ret;
}

int ws_measure(struct ws_result *res, const struct ws_program *progs, size_t nprogs,
	       const struct ws_measure_opts *o)
{
	struct session s = { .res = res, .progs = progs, .nprogs = nprogs, .o = o };
	struct ws_claim *claims = xcalloc(o->events->n + 1, sizeof(*claims));
	int ret;

	s.t0 = ws_now();
	/* A command that cannot run fails now, in one line, before any set-up or backend says anything. */
	for (size_t i = 0; i < nprogs; i++) {
		if ((ret = ws_run_check(progs[i].argv[0])) < 0) {
			free(claims);
			return ret;
		}
	}
	for (size_t i = 0; i < nprogs; i++) {
		struct ws_variant *v = ws_result_add_variant(res, progs[i].name, progs[i].command);

		v->baseline = i == o->baseline;
	}
	ret = setup_backends(&s, claims);
	record_settings(&s);
	/* Everything requested that nothing can count is reported as unsupported, with the reason. */
	for (size_t e = 0; e < o->events->n; e++) {
		if (claims[e].claimed)
			continue;
		for (size_t i = 0; i < nprogs; i++)
			ws_metric_set_unsupported(&res->variants[i].metrics, o->events->v[e].name,
						  claims[e].reason ? claims[e].reason : "not supported here");
	}
	if (ret < 0)
		goto out;
	s.total = (s.native ? nprogs * (o->warmup + (o->runs_auto ? o->max_runs : o->runs)) : 0) +
		  (s.sim ? nprogs * o->sim_runs : 0);
	if (s.native)
		ret = native_phase(&s);
	if (!ret && s.sim)
		ret = sim_phase(&s);
	if (s.sim && s.sim->ops->describe)
		s.sim->ops->describe(s.sim, &res->machine);
	if (ret == -EINTR) {
		res->partial = true;
		res->partial_reason = xstrdup("interrupted");
	} else if (ret == -ECHILD) {
		res->partial = true;
		res->partial_reason = xstrdup("a run failed");
	} else if (ret < 0 && (s.done > 0)) {
		res->partial = true;
		res->partial_reason = xasprintf("stopped by an error: %s", strerror(-ret));
	}
out:
	ws_backend_free(s.native);
	ws_backend_free(s.sim);
	for (size_t e = 0; e < o->events->n; e++)
		free(claims[e].reason);
	free(claims);
	free(s.rusage);
	return ret;
}
