/* SPDX-License-Identifier: GPL-2.0-or-later */
/* result-json.c - serialise the result model to JSON and back, through jansson. */
#include "result/result-json.h"
#include "core/log.h"
#include "core/util.h"
#include "result/metrics.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* JSON has no NaN or infinity: a value that was not measured is null. */
static json_t *jnum(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

/* Counts read better, and round-trip exactly, as integers. */
static json_t *jsample(double x)
{
	if (!isfinite(x))
		return json_null();
	if (x == floor(x) && fabs(x) < 9e15)
		return json_integer((json_int_t)x);
	return json_real(x);
}

/*
 * A string as valid UTF-8 (caller frees): a command or a path may hold any bytes, and jansson refuses
 * invalid ones, which would silently drop the field. Each byte that does not start a valid sequence
 * becomes U+FFFD.
 */
static char *utf8_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = xmalloc(3 * strlen(s) + 1), *o = out;

	while (*p) {
		size_t len = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : (*p & 0xf8) == 0xf0 ? 4 : 0;

		for (size_t k = 1; len && k < len; k++)
			if ((p[k] & 0xc0) != 0x80)
				len = 0;
		if (len) {
			memcpy(o, p, len);
			o += len;
			p += len;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			p++;
		}
	}
	*o = '\0';
	return out;
}

static json_t *jstr(const char *s)
{
	json_t *j;
	char *clean;

	if (!s)
		return json_null();
	if ((j = json_string(s)))
		return j;
	clean = utf8_clean(s);
	j = json_string(clean);
	free(clean);
	return j ? j : json_null();
}

/* Set `key` (any bytes) in object `o`. */
static void set_key(json_t *o, const char *key, json_t *v)
{
	char *clean = utf8_clean(key);

	json_object_set_new(o, clean, v);
	free(clean);
}

static json_t *metric_to_json(const struct ws_metric *m)
{
	json_t *o = json_object(), *samples, *running;
	const struct ws_summary *s = &m->sum;

	json_object_set_new(o, "unit", json_string(ws_unit_name(ws_metric_unit(m->name))));
	if (m->flags & WS_M_UNSUPPORTED) {
		json_object_set_new(o, "unsupported", jstr(m->reason ? m->reason : "not supported"));
		return o;
	}
	samples = json_array();
	for (size_t i = 0; i < m->n; i++)
		json_array_append_new(samples, jsample(m->samples[i]));
	json_object_set_new(o, "samples", samples);
	if (m->running) {
		running = json_array();
		for (size_t i = 0; i < m->n; i++)
			json_array_append_new(running, jnum(m->running[i]));
		json_object_set_new(o, "running", running);
	}
	json_object_set_new(o, "n", json_integer((json_int_t)s->n));
	json_object_set_new(o, "mean", jnum(s->mean));
	json_object_set_new(o, "median", jnum(s->median));
	json_object_set_new(o, "stddev", jnum(s->stddev));
	json_object_set_new(o, "mad", jnum(s->mad));
	json_object_set_new(o, "min", jnum(s->min));
	json_object_set_new(o, "max", jnum(s->max));
	json_object_set_new(o, "ci", json_pack("[oo]", jnum(s->ci_lo), jnum(s->ci_hi)));
	if (isfinite(s->running))
		json_object_set_new(o, "scaled_share", json_real(s->running));
	json_object_set_new(o, "outliers", json_integer((json_int_t)s->outliers));
	json_object_set_new(o, "exact", json_boolean(m->flags & WS_M_EXACT));
	if ((m->flags & WS_M_EXACT) && s->max != s->min && s->median != 0)
		json_object_set_new(o, "spread", json_real((s->max - s->min) / fabs(s->median)));
	json_object_set_new(o, "simulated", json_boolean(m->flags & WS_M_SIMULATED));
	if (m->flags & WS_M_DERIVED)
		json_object_set_new(o, "derived", json_true());
	return o;
}

static json_t *metrics_to_json(const struct ws_metric_set *set)
{
	json_t *o = json_object();

	for (size_t i = 0; i < set->n; i++)
		set_key(o, set->v[i].name, metric_to_json(&set->v[i]));
	return o;
}

static json_t *jrange(int lo, int hi)
{
	return lo == WS_NO_SPAN ? json_null() : json_pack("[i,i]", lo, hi);
}

static json_t *contention_to_json(const struct ws_variant *v)
{
	json_t *a = json_array();

	for (size_t i = 0; i < v->ncontention; i++) {
		const struct ws_contention *c = &v->contention[i];
		json_t *fns = json_array(), *threads = json_array();

		for (size_t k = 0; k < c->nfunctions; k++)
			json_array_append_new(fns, jstr(c->functions[k]));
		for (size_t k = 0; k < c->nthreads; k++) {
			const struct ws_contention_thread *t = &c->threads[k];

			json_array_append_new(threads, json_pack("{s:i,s:i,s:o,s:o,s:o,s:o,s:o}", "thread", (int)t->thread,
								 "core", t->core, "reads", jsample(t->reads), "writes",
								 jsample(t->writes), "coherence-misses",
								 jsample(t->coherence_misses), "read_bytes",
								 jrange(t->read_lo, t->read_hi), "write_bytes",
								 jrange(t->write_lo, t->write_hi)));
		}
		json_array_append_new(a, json_pack("{s:o,s:o,s:s,s:o,s:s,s:o,s:o}", "address", jstr(c->address),
						   "variable", c->variable ? jstr(c->variable) : json_null(),
						   "bytes_from", c->from_variable ? "variable" : "line",
						   "coherence-misses", jsample(c->coherence_misses), "verdict",
						   ws_sharing_name(c->verdict), "functions", fns,
						   "threads", threads));
	}
	return a;
}

static json_t *variant_to_json(const struct ws_variant *v)
{
	json_t *o = json_object(), *runs = json_array(), *regions = json_object(), *fns = json_array();

	json_object_set_new(o, "name", jstr(v->name));
	json_object_set_new(o, "command", jstr(v->command));
	json_object_set_new(o, "baseline", json_boolean(v->baseline));
	{
		json_t *params = json_object();

		for (size_t i = 0; i < v->nparams; i++)
			set_key(params, v->params[i].name, jstr(v->params[i].value));
		json_object_set_new(o, "parameters", params);
	}
	for (size_t i = 0; i < v->nruns; i++) {
		const struct ws_run_status *st = &v->runs[i];

		json_t *ro = json_pack("{s:o,s:o,s:b}", "exit_code", st->signal ? json_null() : json_integer(st->exit_code),
				       "signal", st->signal ? json_integer(st->signal) : json_null(), "timed_out",
				       st->timed_out);

		if (st->env_pad >= 0)
			json_object_set_new(ro, "env_pad", json_integer(st->env_pad));
		json_array_append_new(runs, ro);
	}
	json_object_set_new(o, "runs", runs);
	json_object_set_new(o, "failed_runs", json_integer((json_int_t)v->failed_runs));
	if (v->cpu_wait_runs)
		json_object_set_new(o, "cpu_wait", json_pack("{s:f,s:I}", "mean", v->cpu_wait / (double)v->cpu_wait_runs,
							     "runs", (json_int_t)v->cpu_wait_runs));
	json_object_set_new(o, "metrics", metrics_to_json(&v->metrics));
	for (size_t i = 0; i < v->regions.n; i++)
		set_key(regions, v->regions.v[i].name,
				    json_pack("{s:o}", "metrics", metrics_to_json(&v->regions.v[i].metrics)));
	json_object_set_new(o, "regions", regions);
	for (size_t i = 0; i < v->functions.n; i++) {
		const struct ws_group *g = &v->functions.v[i];

		json_t *fo = json_pack("{s:o}", "name", jstr(g->name));

		if (g->own_name)
			json_object_set_new(fo, "own_name", jstr(g->own_name));
		if (g->nsymbols == 1) {
			json_object_set_new(fo, "symbol", jstr(g->symbols[0]));
		} else if (g->nsymbols > 1) {
			json_t *syms = json_array();

			for (size_t k = 0; k < g->nsymbols; k++)
				json_array_append_new(syms, jstr(g->symbols[k]));
			json_object_set_new(fo, "symbols", syms);
		}
		json_object_set_new(fo, "object", jstr(g->object));
		if (g->inlined)
			json_object_set_new(fo, "inlined", json_true());
		json_object_set_new(fo, "metrics", metrics_to_json(&g->metrics));
		if (g->nlines) {
			json_t *lines = json_array();

			for (size_t k = 0; k < g->nlines; k++) {
				const struct ws_line *l = &g->lines[k];
				json_t *lo = json_pack("{s:o,s:i,s:o}", "file", jstr(l->file), "line", (int)l->line,
						       "samples", jsample(l->samples));

				if (l->ninlined) {
					json_t *chain = json_array();

					for (size_t j = 0; j < l->ninlined; j++)
						json_array_append_new(chain, json_pack("{s:o,s:o,s:i}", "function",
							jstr(l->inlined[j].function), "call_file",
							jstr(l->inlined[j].call_file), "call_line",
							(int)l->inlined[j].call_line));
					json_object_set_new(lo, "inlined", chain);
				}
				json_array_append_new(lines, lo);
			}
			json_object_set_new(fo, "lines", lines);
		}
		if (g->inclusive.n)
			json_object_set_new(fo, "inclusive", metrics_to_json(&g->inclusive));
		if (g->callers.n) {
			json_t *callers = json_array();

			for (size_t k = 0; k < g->callers.n; k++) {
				const struct ws_group *c = &g->callers.v[k];

				json_array_append_new(callers, json_pack("{s:o,s:o,s:o}", "name", jstr(c->name), "object",
									 jstr(c->object), "metrics",
									 metrics_to_json(&c->metrics)));
			}
			json_object_set_new(fo, "callers", callers);
		}
		json_array_append_new(fns, fo);
	}
	json_object_set_new(o, "functions", fns);
	if (v->nhot) {
		json_t *hot = json_array();

		for (size_t i = 0; i < v->nhot; i++) {
			const struct ws_hot_fn *h = &v->hot[i];
			json_t *insns = json_array();

			for (size_t j = 0; j < h->n; j++) {
				char addr[32];

				snprintf(addr, sizeof(addr), "0x%" PRIx64, h->insns[j].addr);
				json_array_append_new(insns, json_pack("{s:s,s:o,s:o,s:o}", "addr", addr, "executions",
								       jsample(h->insns[j].executions),
								       "L1-dcache-misses", jsample(h->insns[j].l1d_misses),
								       "branch-misses", jsample(h->insns[j].branch_misses)));
			}
			json_array_append_new(hot, json_pack("{s:o,s:o,s:o}", "function", jstr(h->function), "object",
							     jstr(h->object), "insns", insns));
		}
		json_object_set_new(o, "hot_code", hot);
	}
	if (v->nstacks) {
		json_t *st = json_array();

		for (size_t i = 0; i < v->nstacks; i++) {
			json_t *frames = json_array();

			for (size_t k = 0; k < v->stacks[i].nframes; k++)
				json_array_append_new(frames, jstr(v->stacks[i].frames[k]));
			json_array_append_new(st, json_pack("{s:o,s:o}", "frames", frames, "count",
							    jsample(v->stacks[i].count)));
		}
		json_object_set_new(o, "stacks", json_pack("{s:o,s:I,s:o}", "metric", jstr(v->stacks_metric), "runs",
							   (json_int_t)v->stacks_runs, "folded", st));
	}
	if (v->ncontention)
		json_object_set_new(o, "contention", contention_to_json(v));
	if (v->ncores) {
		json_t *cores = json_array();

		for (size_t i = 0; i < v->ncores; i++) {
			const struct ws_core_counts *c = &v->cores[i];

			json_array_append_new(cores, json_pack("{s:i,s:i,s:o,s:o,s:o,s:o}", "core", c->core, "threads",
							       (int)c->threads, "instructions", jsample(c->instructions),
							       "estimated-cycles", jsample(c->estimated_cycles),
							       "L1-dcache-load-misses", jsample(c->l1d_misses),
							       "coherence-misses", jsample(c->coherence_misses)));
		}
		json_object_set_new(o, "sim_cores", cores);
	}
	return o;
}

static json_t *comparison_to_json(const struct ws_comparison *c)
{
	json_t *o = json_object();

	json_object_set_new(o, "variant", jstr(c->variant));
	json_object_set_new(o, "baseline", jstr(c->baseline));
	json_object_set_new(o, "metric", jstr(c->metric));
	if (c->region)
		json_object_set_new(o, "region", jstr(c->region));
	if (c->function)
		json_object_set_new(o, "function", jstr(c->function));
	if (c->caller)
		json_object_set_new(o, "caller", jstr(c->caller));
	if (c->inclusive)
		json_object_set_new(o, "inclusive", json_true());
	json_object_set_new(o, "ratio", jnum(c->ratio));
	json_object_set_new(o, "ci", json_pack("[oo]", jnum(c->ci_lo), jnum(c->ci_hi)));
	json_object_set_new(o, "p", jnum(c->p));
	json_object_set_new(o, "p_adjusted", jnum(c->p_adjusted));
	json_object_set_new(o, "verdict", json_string(ws_verdict_name(c->verdict)));
	json_object_set_new(o, "exact", json_boolean(c->exact));
	json_object_set_new(o, "estimate", json_string(ws_estimate_name(c->estimate)));
	json_object_set_new(o, "family", c->family == WS_FAMILY_NONE ? json_null() : json_string(ws_family_name(c->family)));
	if (c->gate_closed)
		json_object_set_new(o, "gate", json_string("closed"));
	if (c->layout_sensitive)
		json_object_set_new(o, "layout_sensitive", json_true());
	return o;
}

static json_t *explanation_to_json(const struct ws_explanation *e)
{
	json_t *o = json_object(), *causes = json_array();

	json_object_set_new(o, "variant", jstr(e->variant));
	json_object_set_new(o, "summary", jstr(e->summary));
	for (size_t i = 0; i < e->ncauses; i++) {
		const struct ws_cause *c = &e->causes[i];
		json_t *co = json_object(), *where = json_array();

		json_object_set_new(co, "metric", jstr(c->metric));
		json_object_set_new(co, "share", jnum(c->share));
		json_object_set_new(co, "share_ci", json_pack("[oo]", jnum(c->share_lo), jnum(c->share_hi)));
		json_object_set_new(co, "delta_cycles", jnum(c->delta_cycles));
		for (size_t j = 0; j < c->nwhere; j++)
			json_array_append_new(where, jstr(c->where[j]));
		json_object_set_new(co, "where", where);
		if (c->next_step)
			json_object_set_new(co, "next_step", jstr(c->next_step));
		json_object_set_new(co, "material", json_boolean(c->material));
		json_array_append_new(causes, co);
	}
	json_object_set_new(o, "causes", causes);
	if (e->reach_metric) {
		json_t *reach = json_object(), *outside = json_array();

		json_object_set_new(reach, "metric", jstr(e->reach_metric));
		json_object_set_new(reach, "measured", jnum(e->measured_rel));
		json_object_set_new(reach, "estimated", jnum(e->estimated_rel));
		json_object_set_new(reach, "reproduced", jnum(e->reproduced));
		for (size_t i = 0; i < e->noutside; i++)
			json_array_append_new(outside, json_pack("{s:o,s:o}", "cause", jstr(e->outside[i].cause),
								 "evidence", jstr(e->outside[i].evidence)));
		json_object_set_new(reach, "outside", outside);
		json_object_set_new(o, "reach", reach);
	}
	if (e->has_topdown) {
		json_t *td = json_object(), *b = json_object(), *v = json_object();

		for (int k = 0; k < 4; k++) {
			json_object_set_new(b, ws_topdown_metrics[k], jnum(e->topdown_base[k]));
			json_object_set_new(v, ws_topdown_metrics[k], jnum(e->topdown_var[k]));
		}
		json_object_set_new(td, "baseline", b);
		json_object_set_new(td, "variant", v);
		json_object_set_new(o, "topdown", td);
	}
	return o;
}

/* A NULL-terminated list of strings as an array; NULL as the empty one. */
static json_t *jstrings(char *const *v)
{
	json_t *a = json_array();

	for (char *const *e = v; e && *e; e++)
		json_array_append_new(a, jstr(*e));
	return a;
}

json_t *ws_result_to_json(const struct ws_result *r)
{
	json_t *root = json_object(), *machine, *settings, *arr;

	json_object_set_new(root, "schema", json_string(WS_SCHEMA));
	machine = json_object();
	json_object_set_new(machine, "cpu", jstr(r->machine.cpu));
	json_object_set_new(machine, "kernel", jstr(r->machine.kernel));
	json_object_set_new(machine, "hostname", jstr(r->machine.hostname));
	json_object_set_new(machine, "ncpus", json_integer(r->machine.ncpus));
	json_object_set_new(machine, "pmu", json_boolean(r->machine.pmu));
	json_object_set_new(machine, "backend", jstr(r->machine.backend));
	json_object_set_new(machine, "sim_preset", jstr(r->machine.sim_preset));
	if (r->machine.ncosts) {
		json_t *costs = json_object();

		for (size_t i = 0; i < r->machine.ncosts; i++)
			json_object_set_new(costs, r->machine.costs[i].metric, json_real(r->machine.costs[i].cycles));
		json_object_set_new(machine, "sim_costs", costs);
	}
	if (r->machine.cpu_features_host && r->machine.cpu_features_sim) {
		json_t *f = json_object();

		json_object_set_new(f, "host", jstrings(r->machine.cpu_features_host));
		json_object_set_new(f, "simulated", jstrings(r->machine.cpu_features_sim));
		json_object_set_new(machine, "cpu_features", f);
	}
	if (r->machine.ntoolchains) {
		json_t *t = json_object();

		for (size_t i = 0; i < r->machine.ntoolchains; i++)
			json_object_set_new(t, r->machine.toolchains[i].program,
					    jstrings(r->machine.toolchains[i].compilers));
		json_object_set_new(machine, "toolchains", t);
	}
	json_object_set_new(root, "machine", machine);

	settings = json_object();
	json_object_set_new(settings, "runs", json_integer((json_int_t)r->settings.runs));
	json_object_set_new(settings, "warmup", json_integer((json_int_t)r->settings.warmup));
	json_object_set_new(settings, "seed", json_integer((json_int_t)r->settings.seed));
	json_object_set_new(settings, "order", jstr(r->settings.order));
	json_object_set_new(settings, "runs_auto", json_boolean(r->settings.runs_auto));
	if (r->settings.runs_auto)
		json_object_set_new(settings, "target_ci", jnum(r->settings.target_ci));
	if (r->settings.looks)
		json_object_set_new(settings, "looks", json_integer((json_int_t)r->settings.looks));
	if (r->settings.schedule_looks)
		json_object_set_new(settings, "schedule_looks", json_integer((json_int_t)r->settings.schedule_looks));
	json_object_set_new(settings, "noise", jnum(r->settings.noise));
	json_object_set_new(settings, "alpha", jnum(r->settings.alpha));
	json_object_set_new(settings, "paired", json_boolean(r->settings.paired));
	json_object_set_new(settings, "correction", json_string(r->settings.fdr ? "bh" : "holm"));
	if (r->settings.primary)
		json_object_set_new(settings, "primary", jstr(r->settings.primary));
	json_object_set_new(settings, "events", jstrings(r->settings.events));
	json_object_set_new(settings, "created", jstr(r->settings.created));
	if (r->settings.sim_cpu_native)
		json_object_set_new(settings, "sim_cpu_native", json_true());
	json_object_set_new(settings, "randomize_layout", json_boolean(r->settings.randomize_layout));
	if (r->settings.layouts > 1)
		json_object_set_new(settings, "layouts", json_integer((json_int_t)r->settings.layouts));
	if (r->settings.sim_scope)
		json_object_set_new(settings, "sim_scope", json_string(r->settings.sim_scope));
	json_object_set_new(settings, "shell", json_boolean(r->settings.shell));
	json_object_set_new(settings, "setup", jstrings(r->settings.setup));
	json_object_set_new(settings, "prepare", jstrings(r->settings.prepare));
	json_object_set_new(settings, "conclude", jstrings(r->settings.conclude));
	json_object_set_new(settings, "cleanup", jstrings(r->settings.cleanup));
	json_object_set_new(settings, "input", jstr(r->settings.input));
	if (r->settings.input)
		json_object_set_new(settings, "input_bytes", jsample(r->settings.input_bytes));
	json_object_set_new(settings, "output", jstrings(r->settings.output));
	arr = json_array();
	for (size_t i = 0; i < r->settings.nparameters; i++) {
		const struct ws_parameter *p = &r->settings.parameters[i];
		json_t *po = json_object();

		json_object_set_new(po, "name", jstr(p->name));
		json_object_set_new(po, "values", jstrings(p->values));
		if (p->min) {
			json_object_set_new(po, "min", jstr(p->min));
			json_object_set_new(po, "max", jstr(p->max));
			json_object_set_new(po, "step", jstr(p->step));
		}
		json_array_append_new(arr, po);
	}
	json_object_set_new(settings, "parameters", arr);
	if (r->settings.command_line) {
		arr = json_array();
		for (char **a = r->settings.command_line; *a; a++)
			json_array_append_new(arr, jstr(*a));
		json_object_set_new(settings, "command_line", arr);
	}
	if (r->settings.cwd)
		json_object_set_new(settings, "cwd", jstr(r->settings.cwd));
	json_object_set_new(root, "settings", settings);

	json_object_set_new(root, "partial", json_boolean(r->partial));
	if (r->partial_reason)
		json_object_set_new(root, "partial_reason", jstr(r->partial_reason));
	arr = json_array();
	for (size_t i = 0; i < r->nwarnings; i++)
		json_array_append_new(arr, jstr(r->warnings[i]));
	json_object_set_new(root, "warnings", arr);

	arr = json_array();
	for (size_t i = 0; i < r->nvariants; i++)
		json_array_append_new(arr, variant_to_json(&r->variants[i]));
	json_object_set_new(root, "variants", arr);
	arr = json_array();
	for (size_t i = 0; i < r->ncomparisons; i++)
		json_array_append_new(arr, comparison_to_json(&r->comparisons[i]));
	json_object_set_new(root, "comparisons", arr);
	arr = json_array();
	for (size_t i = 0; i < r->nexplain; i++)
		json_array_append_new(arr, explanation_to_json(&r->explain[i]));
	json_object_set_new(root, "explain", arr);
	return root;
}

/* --- reading --- */

/*
 * Refuse a file with one error line: what it quotes from the file (names, jansson's "near '...'") is the
 * file's, so its control bytes are escaped before they reach a terminal. Returns -EINVAL.
 */
static int __attribute__((format(printf, 1, 2))) refuse(const char *fmt, ...)
{
	va_list ap;
	char *msg, *esc;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	esc = ws_escape_ctl(msg ? msg : "invalid result file");
	ws_error("%s", esc);
	free(esc);
	free(msg);
	return -EINVAL;
}

static char *get_str(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

static double get_num(const json_t *o, const char *key, double dflt)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : dflt;
}

static bool get_bool(const json_t *o, const char *key)
{
	return json_is_true(json_object_get(o, key));
}

static void get_pair(const json_t *o, const char *key, double *lo, double *hi)
{
	const json_t *a = json_object_get(o, key);

	*lo = *hi = NAN;
	if (json_is_array(a) && json_array_size(a) == 2) {
		if (json_is_number(json_array_get(a, 0)))
			*lo = json_number_value(json_array_get(a, 0));
		if (json_is_number(json_array_get(a, 1)))
			*hi = json_number_value(json_array_get(a, 1));
	}
}

static int metrics_from_json(const json_t *obj, struct ws_metric_set *set, const char *where)
{
	const char *name;
	const json_t *m;

	if (!json_is_object(obj))
		return ws_error("%s: \"metrics\" is not an object", where), -EINVAL;
	json_object_foreach((json_t *)obj, name, m) {
		const json_t *samples, *running, *unsup;
		struct ws_metric *mm;
		unsigned flags = 0;
		size_t i;
		json_t *x;

		if (!json_is_object(m))
			return ws_error("%s: metric '%s' is not an object", where, name), -EINVAL;
		unsup = json_object_get(m, "unsupported");
		if (json_is_string(unsup)) {
			ws_metric_set_unsupported(set, name, json_string_value(unsup));
			continue;
		}
		samples = json_object_get(m, "samples");
		if (!json_is_array(samples))
			return ws_error("%s: metric '%s' has no \"samples\" array", where, name), -EINVAL;
		if (get_bool(m, "simulated"))
			flags |= WS_M_SIMULATED;
		if (get_bool(m, "derived"))
			flags |= WS_M_DERIVED;
		mm = ws_metric_set_get(set, name, flags);
		running = json_object_get(m, "running");
		if (!json_is_array(running) || json_array_size(running) != json_array_size(samples))
			running = NULL;
		json_array_foreach(samples, i, x) {
			double v = NAN, run = -1;

			if (json_is_number(x))
				v = json_number_value(x);
			else if (!json_is_null(x))
				return ws_error("%s: metric '%s' sample %zu is not a number", where, name, i), -EINVAL;
			if (running && json_is_number(json_array_get(running, i)))
				run = json_number_value(json_array_get(running, i));
			ws_metric_push(mm, v, run);
		}
	}
	return 0;
}

/*
 * Entry `i` of a list of functions or callers (`x`: its "name" and "object") into `l`, or NULL when it has no
 * name. Two of one name (static functions in two objects) stay two: the later one is told apart by its index.
 */
static struct ws_group *named_group_from_json(const json_t *x, size_t i, struct ws_group_list *l)
{
	char *name = get_str(x, "name"), *obj = get_str(x, "object");
	struct ws_group *g;

	if (!name) {
		free(obj);
		return NULL;
	}
	if (ws_group_list_find(l, name)) {
		char *other = xasprintf("%s (%zu)", name, i);

		free(name);
		name = other;
	}
	g = ws_group_list_get(l, name, obj);
	free(name);
	free(obj);
	return g;
}

/* A function's `inclusive` metrics and `callers`, both optional. */
static int callers_from_json(const json_t *fo, struct ws_group *g, const char *where)
{
	const json_t *inc = json_object_get(fo, "inclusive"), *callers = json_object_get(fo, "callers"), *x;
	size_t i;
	int ret;

	if (inc && (ret = metrics_from_json(inc, &g->inclusive, where)) < 0)
		return ret;
	json_array_foreach(callers, i, x) {
		struct ws_group *c = named_group_from_json(x, i, &g->callers);

		if (!c)
			return ws_error("%s: function '%s': caller %zu has no \"name\"", where, g->name, i), -EINVAL;
		if ((ret = metrics_from_json(json_object_get(x, "metrics"), &c->metrics, where)) < 0)
			return ret;
	}
	return 0;
}

static void stacks_from_json(const json_t *so, struct ws_variant *v)
{
	const json_t *folded = json_object_get(so, "folded"), *x;
	size_t i;

	if (!json_is_array(folded))
		return;
	v->stacks_metric = get_str(so, "metric");
	v->stacks_runs = (size_t)get_num(so, "runs", 1);
	json_array_foreach(folded, i, x) {
		const json_t *frames = json_object_get(x, "frames"), *f;
		const char **names;
		size_t k, n = 0;

		if (!json_is_array(frames) || !json_array_size(frames) || !json_is_number(json_object_get(x, "count")))
			continue;
		names = xcalloc(json_array_size(frames) + 1, sizeof(*names));
		json_array_foreach(frames, k, f)
			names[n++] = json_is_string(f) ? json_string_value(f) : "?";
		ws_variant_add_stack(v, names, n, get_num(x, "count", 0));
		free(names);
	}
}

static void range_from_json(const json_t *r, int *lo, int *hi)
{
	*lo = *hi = WS_NO_SPAN;
	if (json_is_array(r) && json_array_size(r) == 2 && json_is_integer(json_array_get(r, 0)) &&
	    json_is_integer(json_array_get(r, 1))) {
		*lo = (int)json_integer_value(json_array_get(r, 0));
		*hi = (int)json_integer_value(json_array_get(r, 1));
	}
}

static void contention_from_json(const json_t *a, struct ws_variant *v)
{
	const json_t *x;
	size_t i;

	if (!json_is_array(a) || !json_array_size(a))
		return;
	v->contention = xcalloc(json_array_size(a), sizeof(*v->contention));
	json_array_foreach(a, i, x) {
		struct ws_contention *c = &v->contention[v->ncontention++];
		const json_t *fns = json_object_get(x, "functions"), *th = json_object_get(x, "threads"), *y;
		const char *verdict = json_string_value(json_object_get(x, "verdict"));
		const char *from = json_string_value(json_object_get(x, "bytes_from"));
		size_t k;

		c->address = get_str(x, "address");
		c->variable = get_str(x, "variable");
		c->from_variable = from && !strcmp(from, "variable");
		c->coherence_misses = get_num(x, "coherence-misses", 0);
		c->verdict = ws_sharing_from_name(verdict);
		if (json_is_array(fns) && json_array_size(fns)) {
			c->functions = xcalloc(json_array_size(fns), sizeof(*c->functions));
			json_array_foreach(fns, k, y)
				if (json_is_string(y))
					c->functions[c->nfunctions++] = xstrdup(json_string_value(y));
		}
		if (json_is_array(th) && json_array_size(th)) {
			c->threads = xcalloc(json_array_size(th), sizeof(*c->threads));
			json_array_foreach(th, k, y) {
				struct ws_contention_thread *t = &c->threads[c->nthreads++];

				t->thread = (unsigned)get_num(y, "thread", 0);
				t->core = (int)get_num(y, "core", 0);
				t->reads = get_num(y, "reads", 0);
				t->writes = get_num(y, "writes", 0);
				t->coherence_misses = get_num(y, "coherence-misses", 0);
				range_from_json(json_object_get(y, "read_bytes"), &t->read_lo, &t->read_hi);
				range_from_json(json_object_get(y, "write_bytes"), &t->write_lo, &t->write_hi);
			}
		}
	}
}

static void cores_from_json(const json_t *a, struct ws_variant *v)
{
	const json_t *x;
	size_t i;

	if (!json_is_array(a) || !json_array_size(a))
		return;
	v->cores = xcalloc(json_array_size(a), sizeof(*v->cores));
	json_array_foreach(a, i, x) {
		struct ws_core_counts *c = &v->cores[v->ncores++];

		c->core = (int)get_num(x, "core", 0);
		c->threads = (unsigned)get_num(x, "threads", 0);
		c->instructions = get_num(x, "instructions", 0);
		c->estimated_cycles = get_num(x, "estimated-cycles", 0);
		c->l1d_misses = get_num(x, "L1-dcache-load-misses", 0);
		c->coherence_misses = get_num(x, "coherence-misses", 0);
	}
}

static int variant_from_json(const json_t *vo, struct ws_result *r, const char *source, size_t idx)
{
	const json_t *name = json_object_get(vo, "name"), *x, *runs, *regions, *fns, *hot;
	struct ws_variant *v;
	char where[512];
	const char *key;
	size_t i;
	int ret;

	if (!json_is_string(name))
		return ws_error("%s: variant %zu has no \"name\"", source, idx), -EINVAL;
	snprintf(where, sizeof(where), "%s: variant '%s'", source, json_string_value(name));
	if (ws_result_find_variant(r, json_string_value(name)))
		return ws_error("%s: two variants are named '%s'; rename one (-n)", source, json_string_value(name)),
		       -EINVAL;
	x = json_object_get(vo, "command");
	v = ws_result_add_variant(r, json_string_value(name), json_is_string(x) ? json_string_value(x) : NULL);
	v->baseline = get_bool(vo, "baseline");
	{
		const json_t *params = json_object_get(vo, "parameters"), *pv;
		const char *k;

		if (json_is_object(params))
			json_object_foreach((json_t *)params, k, pv)
				if (json_is_string(pv))
					ws_variant_add_param(v, k, json_string_value(pv));
	}
	runs = json_object_get(vo, "runs");
	if (json_is_array(runs)) {
		json_array_foreach(runs, i, x) {
			struct ws_run_status st = { 0 };

			st.exit_code = (int)get_num(x, "exit_code", -1);
			st.signal = (int)get_num(x, "signal", 0);
			st.timed_out = get_bool(x, "timed_out");
			st.env_pad = (int)get_num(x, "env_pad", -1);
			ws_variant_push_run(v, &st);
		}
	}
	{
		const json_t *w = json_object_get(vo, "cpu_wait");
		double mean = get_num(w, "mean", NAN), n = get_num(w, "runs", 0);

		/* Kept as the mean and its runs, so that diff makes compare's off-CPU warning again as it was. */
		if (isfinite(mean) && mean >= 0 && n >= 1) {
			v->cpu_wait_runs = (size_t)n;
			v->cpu_wait = mean * n;
		}
	}
	if ((ret = metrics_from_json(json_object_get(vo, "metrics"), &v->metrics, where)) < 0)
		return ret;
	regions = json_object_get(vo, "regions");
	if (json_is_object(regions)) {
		json_object_foreach((json_t *)regions, key, x) {
			struct ws_group *g = ws_group_list_get(&v->regions, key, NULL);

			if ((ret = metrics_from_json(json_object_get(x, "metrics"), &g->metrics, where)) < 0)
				return ret;
		}
	}
	fns = json_object_get(vo, "functions");
	if (json_is_array(fns)) {
		json_array_foreach(fns, i, x) {
			struct ws_group *g = named_group_from_json(x, i, &v->functions);

			if (!g)
				return ws_error("%s: function %zu has no \"name\"", where, i), -EINVAL;
			g->inlined = get_bool(x, "inlined");
			if (json_is_string(json_object_get(x, "own_name")) && !g->own_name)
				g->own_name = xstrdup(json_string_value(json_object_get(x, "own_name")));
			if (json_is_string(json_object_get(x, "symbol")))
				ws_group_add_symbol(g, json_string_value(json_object_get(x, "symbol")));
			{
				const json_t *syms = json_object_get(x, "symbols"), *sy;
				size_t k;

				json_array_foreach(syms, k, sy)
					if (json_is_string(sy))
						ws_group_add_symbol(g, json_string_value(sy));
			}
			{
				const json_t *lines = json_object_get(x, "lines"), *ln;
				size_t k;

				json_array_foreach(lines, k, ln) {
					const char *file = json_string_value(json_object_get(ln, "file"));
					const json_t *chain = json_object_get(ln, "inlined"), *fr;
					struct ws_inline_frame *inl = NULL;
					size_t ninl = 0, j;

					if (!file)
						continue;
					if (json_is_array(chain) && json_array_size(chain)) {
						inl = xcalloc(json_array_size(chain), sizeof(*inl));
						json_array_foreach(chain, j, fr) {
							const char *fn = json_string_value(json_object_get(fr, "function"));

							if (!fn)
								continue;
							inl[ninl].function = (char *)fn;
							inl[ninl].call_file =
								(char *)json_string_value(json_object_get(fr, "call_file"));
							inl[ninl].call_line = (unsigned)get_num(fr, "call_line", 0);
							ninl++;
						}
					}
					ws_group_add_line(g, file, (unsigned)get_num(ln, "line", 0), get_num(ln, "samples", 0),
							  inl, ninl);
					free(inl);
				}
			}
			if ((ret = metrics_from_json(json_object_get(x, "metrics"), &g->metrics, where)) < 0)
				return ret;
			if ((ret = callers_from_json(x, g, where)) < 0)
				return ret;
		}
	}
	stacks_from_json(json_object_get(vo, "stacks"), v);
	contention_from_json(json_object_get(vo, "contention"), v);
	cores_from_json(json_object_get(vo, "sim_cores"), v);
	hot = json_object_get(vo, "hot_code");
	if (json_is_array(hot)) {
		json_array_foreach(hot, i, x) {
			const json_t *insns = json_object_get(x, "insns"), *in;
			struct ws_hot_fn *h;
			size_t j;

			WS_ALLOC_GROW(v->hot, v->nhot + 1, v->alloc_hot);
			h = &v->hot[v->nhot++];
			memset(h, 0, sizeof(*h));
			h->function = get_str(x, "function");
			h->object = get_str(x, "object");
			if (!h->function)
				h->function = xstrdup("?");
			json_array_foreach(insns, j, in) {
				const char *a = json_string_value(json_object_get(in, "addr"));

				if (!a)
					continue;
				WS_ALLOC_GROW(h->insns, h->n + 1, h->alloc);
				h->insns[h->n].addr = strtoull(a, NULL, 0);
				h->insns[h->n].executions = get_num(in, "executions", NAN);
				h->insns[h->n].l1d_misses = get_num(in, "L1-dcache-misses", NAN);
				h->insns[h->n].branch_misses = get_num(in, "branch-misses", NAN);
				h->n++;
			}
		}
	}
	return 0;
}

/* An array of strings as a NULL-terminated list; NULL when absent or empty. Other values read as "?". */
static char **get_strings(const json_t *o, const char *key)
{
	const json_t *a = json_object_get(o, key), *x;
	char **v;
	size_t i;

	if (!json_is_array(a) || !json_array_size(a))
		return NULL;
	v = xcalloc(json_array_size(a) + 1, sizeof(char *));
	json_array_foreach(a, i, x)
		v[i] = xstrdup(json_is_string(x) ? json_string_value(x) : "?");
	return v;
}

/*
 * Where comparison `c` reads its metric in variant `v` (the whole process, a region, a function, its inclusive
 * metrics or one caller's): NULL after refusing the file, naming comparisons[i]'s field that does not resolve.
 */
static const struct ws_metric_set *comparison_set(const struct ws_variant *v, const struct ws_comparison *c,
						  size_t i, const char *source)
{
	const struct ws_group *g;

	if (c->region && c->function) {
		refuse("%s: comparisons[%zu] names both a region and a function; give one", source, i);
		return NULL;
	}
	if (c->region) {
		if (!(g = ws_group_list_find(&v->regions, c->region))) {
			refuse("%s: comparisons[%zu].region names '%s', which is not in the regions of variant '%s'",
			       source, i, c->region, v->name);
			return NULL;
		}
		return &g->metrics;
	}
	if (!c->function)
		return &v->metrics;
	if (!(g = ws_group_list_find(&v->functions, c->function))) {
		refuse("%s: comparisons[%zu].function names '%s', which is not in the functions of variant '%s'",
		       source, i, c->function, v->name);
		return NULL;
	}
	if (c->inclusive)
		return &g->inclusive;
	if (!c->caller)
		return &g->metrics;
	if (!(g = ws_group_list_find(&g->callers, c->caller))) {
		refuse("%s: comparisons[%zu].caller names '%s', which is not among the callers of '%s' in variant '%s'",
		       source, i, c->caller, c->function, v->name);
		return NULL;
	}
	return &g->metrics;
}

/*
 * A loaded result is checked once, here, so that the renderers and diff can trust the model: every name a
 * comparison (JSON entry `i`) gives resolves, on both sides, to what it names. Returns 0 or -EINVAL.
 */
static int check_comparison(struct ws_result *r, const struct ws_comparison *c, size_t i, const char *source)
{
	const char *side[2] = { c->baseline, c->variant }, *field[2] = { "baseline", "variant" };

	for (int k = 0; k < 2; k++) {
		const struct ws_variant *v = ws_result_find_variant(r, side[k]);
		const struct ws_metric_set *set;

		if (!v)
			return refuse("%s: comparisons[%zu].%s names '%s', which is not in variants[]", source, i,
				      field[k], side[k]);
		if (!(set = comparison_set(v, c, i, source)))
			return -EINVAL;
		if (!ws_metric_set_find(set, c->metric))
			return refuse("%s: comparisons[%zu].metric names '%s', which variant '%s' does not have there",
				      source, i, c->metric, v->name);
	}
	return 0;
}

/*
 * A name from a result file goes to the terminal as it is: an escape sequence in it or a bidi override
 * would act on the reader's terminal. So every string and key of a result file read is escaped by
 * ws_escape_ctl(), visibly and the same in every file, so that names still pair across files.
 * docs/result-schema.md says so.
 */

/* Whether any string or key under `j` has something ws_escape_ctl() escapes. */
static bool needs_defang(const json_t *j)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_string(j))
		return ws_needs_escape(json_string_value(j));
	if (json_is_array(j)) {
		json_array_foreach((json_t *)j, i, v)
			if (needs_defang(v))
				return true;
		return false;
	}
	if (json_is_object(j))
		json_object_foreach((json_t *)j, key, v)
			if (ws_needs_escape(key) || needs_defang(v))
				return true;
	return false;
}

/*
 * ws_escape_ctl() on every string and key under `j`, in place. A key whose escaped spelling another key of
 * the object already has would replace that one's value: the file is refused (the key, escaped, into
 * *clash, which the caller frees) rather than a name lost unsaid.
 */
static void defang(json_t *j, char **clash)
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_string(j)) {
		if (ws_needs_escape(json_string_value(j))) {
			char *t = ws_escape_ctl(json_string_value(j));

			json_string_set(j, t);
			free(t);
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			defang(v, clash);
	} else if (json_is_object(j)) {
		/* Keys renamed after the walk: an object is not changed while it is iterated. */
		char **old = NULL;
		size_t n = 0, alloc = 0;

		json_object_foreach(j, key, v) {
			defang(v, clash);
			if (ws_needs_escape(key)) {
				WS_ALLOC_GROW(old, n + 1, alloc);
				old[n++] = xstrdup(key);
			}
		}
		for (i = 0; i < n; i++) {
			char *t = ws_escape_ctl(old[i]);

			if (json_object_get(j, t) && !*clash)
				*clash = xstrdup(t);
			v = json_incref(json_object_get(j, old[i]));
			json_object_del(j, old[i]);
			json_object_set_new(j, t, v);
			free(t);
			free(old[i]);
		}
		free(old);
	}
}

static int from_json(const json_t *root, struct ws_result *r, const char *source);

int ws_result_from_json(const json_t *root, struct ws_result *r, const char *source)
{
	json_t *safe;
	char *clash = NULL;
	int ret;

	if (!needs_defang(root))
		return from_json(root, r, source);
	safe = json_deep_copy(root);
	if (!safe)
		return ws_error("%s: out of memory", source), -ENOMEM;
	defang(safe, &clash);
	if (clash) {
		ws_error("%s: two names read the same once their control characters are escaped ('%s'): rename one",
			 source, clash);
		free(clash);
		json_decref(safe);
		return -EINVAL;
	}
	ret = from_json(safe, r, source);
	json_decref(safe);
	return ret;
}

static int from_json(const json_t *root, struct ws_result *r, const char *source)
{
	const json_t *schema, *variants, *x, *settings, *machine, *arr;
	size_t i;
	int ret;

	if (!json_is_object(root))
		return ws_error("%s: not a JSON object", source), -EINVAL;
	schema = json_object_get(root, "schema");
	if (schema && (!json_is_string(schema) || strcmp(json_string_value(schema), WS_SCHEMA)))
		return ws_error("%s: schema is '%s', this whyslow reads '%s'", source,
				json_is_string(schema) ? json_string_value(schema) : "?", WS_SCHEMA),
		       -EINVAL;
	variants = json_object_get(root, "variants");
	if (!json_is_array(variants) || !json_array_size(variants))
		return ws_error("%s: no \"variants\" array (expected variants[].name and "
				"variants[].metrics.<metric>.samples)", source),
		       -EINVAL;
	machine = json_object_get(root, "machine");
	if (json_is_object(machine)) {
		r->machine.cpu = get_str(machine, "cpu");
		r->machine.kernel = get_str(machine, "kernel");
		r->machine.hostname = get_str(machine, "hostname");
		r->machine.ncpus = (int)get_num(machine, "ncpus", 0);
		r->machine.pmu = get_bool(machine, "pmu");
		r->machine.backend = get_str(machine, "backend");
		r->machine.sim_preset = get_str(machine, "sim_preset");
		{
			const json_t *costs = json_object_get(machine, "sim_costs"), *v;
			const char *k;

			if (json_is_object(costs)) {
				r->machine.costs = xcalloc(json_object_size(costs) + 1, sizeof(*r->machine.costs));
				json_object_foreach((json_t *)costs, k, v) {
					if (!json_is_number(v))
						continue;
					r->machine.costs[r->machine.ncosts].metric = xstrdup(k);
					r->machine.costs[r->machine.ncosts++].cycles = json_number_value(v);
				}
			}
		}
		{
			const json_t *f = json_object_get(machine, "cpu_features");

			if (json_is_object(f)) {
				r->machine.cpu_features_host = get_strings(f, "host");
				r->machine.cpu_features_sim = get_strings(f, "simulated");
			}
		}
		{
			const json_t *t = json_object_get(machine, "toolchains"), *v;
			const char *k;

			if (json_is_object(t)) {
				r->machine.toolchains = xcalloc(json_object_size(t), sizeof(*r->machine.toolchains));
				json_object_foreach((json_t *)t, k, v) {
					struct ws_toolchain *tc = &r->machine.toolchains[r->machine.ntoolchains];

					if (!json_is_array(v))
						continue;
					tc->program = xstrdup(k);
					tc->compilers = get_strings(t, k);
					r->machine.ntoolchains++;
				}
			}
		}
	}
	settings = json_object_get(root, "settings");
	if (json_is_object(settings)) {
		const json_t *ev = json_object_get(settings, "events"), *seed = json_object_get(settings, "seed");
		char *corr = get_str(settings, "correction");

		r->settings.runs = (size_t)get_num(settings, "runs", 0);
		r->settings.warmup = (size_t)get_num(settings, "warmup", 0);
		if (json_is_integer(seed))
			r->settings.seed = (uint64_t)json_integer_value(seed);
		r->settings.order = get_str(settings, "order");
		r->settings.runs_auto = get_bool(settings, "runs_auto");
		r->settings.target_ci = get_num(settings, "target_ci", NAN);
		r->settings.looks = (size_t)get_num(settings, "looks", 0);
		r->settings.schedule_looks = (size_t)get_num(settings, "schedule_looks", 0);
		r->settings.noise = get_num(settings, "noise", 0.01);
		r->settings.alpha = get_num(settings, "alpha", 0.05);
		r->settings.paired = get_bool(settings, "paired");
		r->settings.fdr = corr && !strcmp(corr, "bh");
		free(corr);
		r->settings.primary = get_str(settings, "primary");
		r->settings.created = get_str(settings, "created");
		r->settings.sim_cpu_native = get_bool(settings, "sim_cpu_native");
		r->settings.randomize_layout = get_bool(settings, "randomize_layout");
		r->settings.layouts = (size_t)get_num(settings, "layouts", 0);
		r->settings.cwd = get_str(settings, "cwd");
		arr = json_object_get(settings, "command_line");
		if (json_is_array(arr) && json_array_size(arr)) {
			size_t n = 0;

			r->settings.command_line = xcalloc(json_array_size(arr) + 1, sizeof(char *));
			json_array_foreach(arr, i, x)
				if (json_is_string(x))
					r->settings.command_line[n++] = xstrdup(json_string_value(x));
		}
		r->settings.sim_scope = get_str(settings, "sim_scope");
		if (json_is_array(ev)) {
			r->settings.events = xcalloc(json_array_size(ev) + 1, sizeof(char *));
			json_array_foreach(ev, i, x)
				r->settings.events[i] = xstrdup(json_is_string(x) ? json_string_value(x) : "?");
		}
		r->settings.shell = get_bool(settings, "shell");
		r->settings.setup = get_strings(settings, "setup");
		r->settings.prepare = get_strings(settings, "prepare");
		r->settings.conclude = get_strings(settings, "conclude");
		r->settings.cleanup = get_strings(settings, "cleanup");
		r->settings.output = get_strings(settings, "output");
		r->settings.input = get_str(settings, "input");
		r->settings.input_bytes = get_num(settings, "input_bytes", NAN);
		arr = json_object_get(settings, "parameters");
		if (json_is_array(arr) && json_array_size(arr)) {
			r->settings.parameters = xcalloc(json_array_size(arr), sizeof(*r->settings.parameters));
			json_array_foreach(arr, i, x) {
				struct ws_parameter *p = &r->settings.parameters[r->settings.nparameters];

				if (!json_is_object(x) || !(p->name = get_str(x, "name")))
					continue;
				p->values = get_strings(x, "values");
				p->min = get_str(x, "min");
				p->max = get_str(x, "max");
				p->step = get_str(x, "step");
				r->settings.nparameters++;
			}
		}
	}
	r->partial = get_bool(root, "partial");
	r->partial_reason = get_str(root, "partial_reason");
	arr = json_object_get(root, "warnings");
	json_array_foreach(arr, i, x)
		if (json_is_string(x))
			ws_result_warn(r, "%s", json_string_value(x));
	json_array_foreach(variants, i, x) {
		if (!json_is_object(x))
			return ws_error("%s: variant %zu is not an object", source, i), -EINVAL;
		if ((ret = variant_from_json(x, r, source, i)) < 0)
			return ret;
	}
	arr = json_object_get(root, "comparisons");
	json_array_foreach(arr, i, x) {
		struct ws_comparison *c;
		char *verdict = get_str(x, "verdict");

		WS_ALLOC_GROW(r->comparisons, r->ncomparisons + 1, r->alloc_comparisons);
		c = &r->comparisons[r->ncomparisons++];
		memset(c, 0, sizeof(*c));
		c->variant = get_str(x, "variant");
		c->baseline = get_str(x, "baseline");
		c->metric = get_str(x, "metric");
		c->region = get_str(x, "region");
		c->function = get_str(x, "function");
		c->caller = c->function ? get_str(x, "caller") : NULL;
		c->inclusive = c->function && get_bool(x, "inclusive");
		c->ratio = get_num(x, "ratio", NAN);
		get_pair(x, "ci", &c->ci_lo, &c->ci_hi);
		c->p = get_num(x, "p", NAN);
		c->p_adjusted = get_num(x, "p_adjusted", NAN);
		c->verdict = verdict ? ws_verdict_parse(verdict) : WS_VERDICT_NONE;
		c->exact = get_bool(x, "exact");
		{
			char *est = get_str(x, "estimate"), *fam = get_str(x, "family"), *gate = get_str(x, "gate");

			c->estimate = c->exact ? WS_ESTIMATE_EXACT : ws_estimate_parse(est);
			c->family = ws_family_parse(fam);
			c->gate_closed = gate && !strcmp(gate, "closed");
			c->layout_sensitive = get_bool(x, "layout_sensitive");
			free(est);
			free(fam);
			free(gate);
		}
		free(verdict);
		if (!c->variant || !c->baseline || !c->metric) {
			r->ncomparisons--;
			ws_comparison_release(c);
		} else if ((ret = check_comparison(r, c, i, source)) < 0) {
			return ret;
		}
	}
	arr = json_object_get(root, "explain");
	json_array_foreach(arr, i, x) {
		struct ws_explanation *e;
		const json_t *causes = json_object_get(x, "causes"), *co;
		size_t j;

		WS_ALLOC_GROW(r->explain, r->nexplain + 1, r->alloc_explain);
		e = &r->explain[r->nexplain++];
		memset(e, 0, sizeof(*e));
		e->variant = get_str(x, "variant");
		e->summary = get_str(x, "summary");
		e->measured_rel = e->estimated_rel = e->reproduced = NAN;
		{
			const json_t *reach = json_object_get(x, "reach"), *out;
			size_t k;

			if (json_is_object(reach)) {
				e->reach_metric = get_str(reach, "metric");
				e->measured_rel = get_num(reach, "measured", NAN);
				e->estimated_rel = get_num(reach, "estimated", NAN);
				e->reproduced = get_num(reach, "reproduced", NAN);
				json_array_foreach(json_object_get(reach, "outside"), k, out) {
					char *cause = get_str(out, "cause"), *evidence = get_str(out, "evidence");

					if (!cause || !evidence) {
						free(cause);
						free(evidence);
						continue;
					}
					e->outside = xrealloc(e->outside, (e->noutside + 1) * sizeof(*e->outside));
					e->outside[e->noutside].cause = cause;
					e->outside[e->noutside].evidence = evidence;
					e->noutside++;
				}
			}
		}
		{
			const json_t *td = json_object_get(x, "topdown");

			if (json_is_object(td)) {
				e->has_topdown = true;
				for (int k = 0; k < 4; k++) {
					e->topdown_base[k] = get_num(json_object_get(td, "baseline"), ws_topdown_metrics[k], NAN);
					e->topdown_var[k] = get_num(json_object_get(td, "variant"), ws_topdown_metrics[k], NAN);
				}
			}
		}
		if (!e->variant)
			e->variant = xstrdup("?");
		else if (!ws_result_find_variant(r, e->variant))
			return refuse("%s: explain[%zu].variant names '%s', which is not in variants[]", source, i,
				      e->variant);
		json_array_foreach(causes, j, co) {
			struct ws_cause *c;
			const json_t *where = json_object_get(co, "where"), *w;
			size_t k;

			WS_ALLOC_GROW(e->causes, e->ncauses + 1, e->alloc);
			c = &e->causes[e->ncauses++];
			memset(c, 0, sizeof(*c));
			c->metric = get_str(co, "metric");
			if (!c->metric)
				c->metric = xstrdup("?");
			c->share = get_num(co, "share", NAN);
			get_pair(co, "share_ci", &c->share_lo, &c->share_hi);
			c->delta_cycles = get_num(co, "delta_cycles", NAN);
			c->next_step = get_str(co, "next_step");
			/* Results written before materiality blamed every significant cause. */
			c->material = json_is_boolean(json_object_get(co, "material"))
					      ? json_is_true(json_object_get(co, "material"))
					      : true;
			if (json_is_array(where)) {
				c->where = xcalloc(json_array_size(where) + 1, sizeof(char *));
				json_array_foreach(where, k, w)
					if (json_is_string(w))
						c->where[c->nwhere++] = xstrdup(json_string_value(w));
			}
		}
	}
	return 0;
}

/* The file's text, newline-terminated (caller frees), or NULL. */
static char *serialise(const struct ws_result *r, size_t *len)
{
	json_t *root = ws_result_to_json(r);
	char *text = json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(17));

	json_decref(root);
	if (!text)
		return NULL;
	*len = strlen(text);
	text = xrealloc(text, *len + 2);
	text[(*len)++] = '\n';
	text[*len] = '\0';
	return text;
}

/* Where a result goes when its own path cannot take it, in order; *n of them (the strings are the env's). */
static size_t rescue_dirs(const char *dirs[3])
{
	const char *tmp = getenv("TMPDIR"), *home = getenv("HOME");
	size_t n = 0;

	dirs[n++] = tmp && *tmp ? tmp : "/tmp";
	dirs[n++] = ".";
	if (home && *home)
		dirs[n++] = home;
	return n;
}

/* Write `text` to the first rescue directory that takes it; its path (caller frees), or NULL. */
static char *rescue_text(const char *text, size_t len)
{
	const char *dirs[3];
	size_t n = rescue_dirs(dirs);
	char *out = NULL;

	for (size_t i = 0; i < n && !out; i++)
		if (ws_write_new(dirs[i], "whyslow-rescued", text, len, &out) < 0)
			out = NULL;
	return out;
}

char *ws_result_rescue(const struct ws_result *r)
{
	size_t len;
	char *text = serialise(r, &len), *out;

	if (!text)
		return NULL;
	out = rescue_text(text, len);
	free(text);
	return out;
}

/*
 * Whether `path` holds a whyslow result that is complete: one an interrupted session must not replace. Only
 * a regular file can: reading a pipe, a FIFO or a terminal would block, or take what its reader waits for.
 */
static bool holds_complete_result(const char *path)
{
	struct stat st;
	json_error_t err;
	json_t *root = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? json_load_file(path, 0, &err) : NULL;
	bool complete = root && json_is_object(root) && json_is_array(json_object_get(root, "variants")) &&
			!json_is_true(json_object_get(root, "partial"));

	json_decref(root);
	return complete;
}

/* "keep.json" -> "keep.partial.json", "out" -> "out.partial": beside it, still read as what it is. */
static char *partial_path(const char *path)
{
	const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');

	if (dot && (!slash || dot > slash + 1))
		return xasprintf("%.*s.partial%s", (int)(dot - path), path, dot);
	return xasprintf("%s.partial", path);
}

int ws_result_save(const struct ws_result *r, const char *path)
{
	size_t len;
	char *text = serialise(r, &len), *rescued, *beside = NULL;
	int ret;

	if (!text)
		return ws_error("cannot serialise the result"), -ENOMEM;
	/*
	 * A session cut short (a failed run, Ctrl-C) keeps what it measured, but not at the cost of a complete
	 * result the path held from an earlier session: that was measured too. The partial one goes beside it.
	 */
	if (r->partial && strcmp(path, "-") && holds_complete_result(path)) {
		beside = partial_path(path);
		ws_log(WS_LOG_WARN, "'%s' holds a complete result, which this partial one does not replace: it is "
				    "saved in '%s'", path, beside);
		path = beside;
	}
	ret = ws_write_atomic(path, text, len);
	if (ret < 0) {
		/* Nothing measured is lost: a full disk, EIO or a directory removed since leaves a copy elsewhere. */
		rescued = rescue_text(text, len);
		if (rescued)
			ws_error("cannot write '%s': %s; the result is saved in '%s' instead", path, ws_write_error(ret),
				 rescued);
		else
			ws_error("cannot write '%s': %s, nor a copy in TMPDIR, the current directory or HOME", path,
				 ws_write_error(ret));
		free(rescued);
	}
	free(beside);
	free(text);
	return ret;
}

/*
 * hyperfine's --export-json, read as a result: results[] of { command, times[], memory_usage_byte[],
 * exit_codes[], parameters{} } become variants with wall-time samples (and max-rss, where hyperfine measured
 * it per run), so that diff brings its statistics to two hyperfine runs. hyperfine's user and system times
 * are means over the runs, not samples: they are left out, not made up. The backend is "hyperfine". NULL
 * when `root` is not such a file.
 */
static json_t *from_hyperfine(const json_t *root)
{
	const json_t *results = json_object_get(root, "results"), *res;
	json_t *vars;
	size_t i;

	if (json_object_get(root, "variants") || !json_is_array(results) || !json_array_size(results))
		return NULL;
	vars = json_array();
	json_array_foreach(results, i, res) {
		const json_t *cmd = json_object_get(res, "command"), *times = json_object_get(res, "times");
		const json_t *mem = json_object_get(res, "memory_usage_byte"), *codes = json_object_get(res, "exit_codes");
		const json_t *params = json_object_get(res, "parameters"), *x;
		json_t *metrics, *v, *runs;
		size_t k;

		if (!json_is_string(cmd) || !json_is_array(times) || !json_array_size(times)) {
			json_decref(vars);
			return NULL;
		}
		metrics = json_pack("{s:{s:s, s:O}}", "wall-time", "unit", "s", "samples", times);
		if (json_is_array(mem) && json_array_size(mem) == json_array_size(times))
			json_object_set_new(metrics, "max-rss", json_pack("{s:s, s:O}", "unit", "bytes", "samples", mem));
		v = json_pack("{s:O, s:O, s:o}", "name", cmd, "command", cmd, "metrics", metrics);
		if (json_is_object(params))
			json_object_set(v, "parameters", (json_t *)params);
		if (json_is_array(codes) && json_array_size(codes) == json_array_size(times)) {
			runs = json_array();
			json_array_foreach(codes, k, x)
				json_array_append_new(runs, json_pack("{s:I}", "exit_code",
								     json_is_integer(x) ? json_integer_value(x) : -1));
			json_object_set_new(v, "runs", runs);
		}
		json_array_append_new(vars, v);
	}
	/* Its backend, as a result file names its own: diff warns when it compares them with another's. */
	return json_pack("{s:o, s:{s:s}}", "variants", vars, "machine", "backend", "hyperfine");
}

int ws_result_load(const char *path, struct ws_result *r)
{
	const char *kind;
	json_error_t err;
	json_t *root;
	struct stat st;
	int ret;

	/*
	 * jansson reads a directory as an empty file, and a FIFO without a writer would block for ever: a result
	 * file is a regular file, or "-" for stdin, and anything else is refused at once.
	 */
	if (strcmp(path, "-") && (kind = ws_not_regular(path))) {
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return ws_error("cannot read '%s': it is a directory, not a result file", path), -EISDIR;
		return ws_error("cannot read '%s': it is %s, not a result file (give a regular file, or - for stdin)",
				path, kind),
		       -EINVAL;
	}
	if (!strcmp(path, "-"))
		root = json_loadf(stdin, 0, &err);
	else
		root = json_load_file(path, 0, &err);
	if (!root) {
		if (err.line < 1) {
			char *esc = ws_escape_ctl(err.text);

			ws_error("cannot read '%s': %s", path, esc);
			free(esc);
			return -ENOENT;
		}
		return refuse("%s:%d: invalid JSON: %s", path, err.line, err.text);
	}
	{
		json_t *hf = from_hyperfine(root);

		if (hf) {
			json_decref(root);
			root = hf;
		}
	}
	ret = ws_result_from_json(root, r, path);
	json_decref(root);
	return ret;
}
