/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-json.c - the result file: a full round trip through jansson, lenient reading, refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/log.h"
#include "core/util.h"
#include "result/result-json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char last_error[1024];

static void capture(enum ws_log_level level, const char *msg, void *data)
{
	(void)data;
	if (level == WS_LOG_ERROR)
		snprintf(last_error, sizeof(last_error), "%s", msg);
}

static void build(struct ws_result *r)
{
	struct ws_variant *v;
	struct ws_metric *m;
	struct ws_group *g;
	struct ws_run_status ok = { 0 }, sig = { .exit_code = -1, .signal = 9 };

	ws_result_init(r);
	r->machine.cpu = xstrdup("Test CPU");
	r->machine.kernel = xstrdup("6.1");
	r->machine.pmu = true;
	r->machine.backend = xstrdup("perf+sim");
	r->machine.sim_preset = xstrdup("zen4");
	r->machine.toolchains = xcalloc(1, sizeof(*r->machine.toolchains));
	r->machine.toolchains[0].program = xstrdup("base");
	r->machine.toolchains[0].compilers = xcalloc(3, sizeof(char *));
	r->machine.toolchains[0].compilers[0] = xstrdup("GCC: (Debian 12.2.0-14) 12.2.0");
	r->machine.toolchains[0].compilers[1] = xstrdup("clang LLVM (rustc version 1.63.0)");
	r->machine.ntoolchains = 1;
	r->settings.runs = 3;
	r->settings.warmup = 1;
	r->settings.seed = 1234567890123ULL;
	r->settings.order = xstrdup("interleaved");
	r->settings.events = xcalloc(2, sizeof(char *));
	r->settings.events[0] = xstrdup("cycles");
	r->settings.shell = true;
	r->settings.prepare = xcalloc(3, sizeof(char *));
	r->settings.prepare[0] = xstrdup("touch {n}");
	r->settings.prepare[1] = xstrdup("sync");
	r->settings.output = xcalloc(2, sizeof(char *));
	r->settings.output[0] = xstrdup("./out.txt");
	r->settings.input = xstrdup("in.txt");
	r->settings.input_bytes = 11;
	r->settings.parameters = xcalloc(1, sizeof(*r->settings.parameters));
	r->settings.nparameters = 1;
	r->settings.parameters[0].name = xstrdup("n");
	r->settings.parameters[0].values = xcalloc(3, sizeof(char *));
	r->settings.parameters[0].values[0] = xstrdup("0.5");
	r->settings.parameters[0].values[1] = xstrdup("1.0");
	r->settings.parameters[0].min = xstrdup("0.5");
	r->settings.parameters[0].max = xstrdup("1");
	r->settings.parameters[0].step = xstrdup("0.5");
	r->partial = true;
	r->partial_reason = xstrdup("interrupted");
	ws_result_warn(r, "noisy machine");

	v = ws_result_add_variant(r, "vec", "./prog --lc vec");
	v->baseline = true;
	ws_variant_add_param(v, "n", "0.5");
	ws_variant_push_run(v, &ok);
	ws_variant_push_run(v, &sig);
	m = ws_metric_set_get(&v->metrics, "wall-time", 0);
	ws_metric_push(m, 0.125, -1);
	ws_metric_push(m, NAN, -1);
	m = ws_metric_set_get(&v->metrics, "cycles", 0);
	ws_metric_push(m, 1000, 1.0);
	ws_metric_push(m, 2000, 0.5);
	m = ws_metric_set_get(&v->metrics, "instructions", WS_M_SIMULATED);
	ws_metric_push(m, 123456789012.0, -1);
	ws_metric_set_unsupported(&v->metrics, "LLC-loads", "no PMU");
	g = ws_group_list_get(&v->regions, "enforce", NULL);
	ws_metric_push(ws_metric_set_get(&g->metrics, "instructions", WS_M_SIMULATED), 42, -1);
	g = ws_group_list_get(&v->functions, "lc_insert", "/bin/prog");
	ws_group_add_symbol(g, "_Z9lc_insertP2LC");
	ws_metric_push(ws_metric_set_get(&g->metrics, "share", 0), 0.25, -1);
	ws_group_add_line(g, "lc.c", 42, 10, NULL, 0);
	ws_group_add_line(g, "lc.c", 7, 4,
			  (const struct ws_inline_frame[]){ { "term_cmp(Term const&, Term const&)", "lc.c", 40 },
							    { "find_slot", "lc.c", 51 } }, 2);
	ws_group_add_line(g, "lc.c", 7, 8, NULL, 0); /* now the hottest */
	/* Monomorphizations of one name are one row with their symbols; an inlined function's row. */
	g = ws_group_list_get(&v->functions, "<&T as core::fmt::Debug>::fmt", "/bin/prog");
	ws_group_add_symbol(g, "_ZN42_$LT$$RF$T$u20$as$u20$core..fmt..Debug$GT$3fmt17h9e3c2a71b0f4d865E");
	ws_group_add_symbol(g, "_ZN42_$LT$$RF$T$u20$as$u20$core..fmt..Debug$GT$3fmt17h1a2b3c4d5e6f7081E");
	ws_group_add_symbol(g, "_ZN42_$LT$$RF$T$u20$as$u20$core..fmt..Debug$GT$3fmt17h9e3c2a71b0f4d865E");
	ws_metric_push(ws_metric_set_get(&g->metrics, "share", 0), 0.01, -1);
	g = ws_group_list_get(&v->functions, "term_cmp(Term const&, Term const&) (inlined)", "/bin/prog");
	g->inlined = true;
	ws_metric_push(ws_metric_set_get(&g->metrics, "share", 0), 0.05, -1);
	v->hot = xcalloc(1, sizeof(*v->hot));
	v->nhot = v->alloc_hot = 1;
	v->hot[0].function = xstrdup("lc_insert");
	v->hot[0].object = xstrdup("/bin/prog");
	v->hot[0].insns = xcalloc(1, sizeof(struct ws_hot_insn));
	v->hot[0].n = v->hot[0].alloc = 1;
	v->hot[0].insns[0] = (struct ws_hot_insn){ 0x401230, 100, 3, 1 };
	v = ws_result_add_variant(r, "sv4", "./prog --lc smallvec4");
	/* The comparison below reads the region's metric on both sides: a file's names must resolve. */
	g = ws_group_list_get(&v->regions, "enforce", NULL);
	ws_metric_push(ws_metric_set_get(&g->metrics, "instructions", WS_M_SIMULATED), 46, -1);
	ws_result_summarize(r);

	r->comparisons = xcalloc(1, sizeof(*r->comparisons));
	r->ncomparisons = r->alloc_comparisons = 1;
	r->comparisons[0] = (struct ws_comparison){ xstrdup("sv4"), xstrdup("vec"), xstrdup("instructions"),
						    xstrdup("enforce"), NULL, 1.098, 1.089, 1.106, 1e-4, 1e-3,
						    WS_VERDICT_SLOWER, false };
	r->comparisons[0].estimate = WS_ESTIMATE_HL;
	r->comparisons[0].family = WS_FAMILY_SECONDARY;
	r->comparisons[0].gate_closed = true;
	r->settings.primary = xstrdup("wall-time");
	r->explain = xcalloc(1, sizeof(*r->explain));
	r->nexplain = r->alloc_explain = 1;
	r->explain[0].variant = xstrdup("sv4");
	r->explain[0].summary = xstrdup("slower by 9.8%");
	r->explain[0].causes = xcalloc(1, sizeof(struct ws_cause));
	r->explain[0].ncauses = r->explain[0].alloc = 1;
	r->explain[0].causes[0].metric = xstrdup("instructions");
	r->explain[0].causes[0].share = 0.71;
	r->explain[0].causes[0].share_lo = 0.6;
	r->explain[0].causes[0].share_hi = 0.8;
	r->explain[0].causes[0].delta_cycles = 1.2e9;
	r->explain[0].causes[0].where = xcalloc(1, sizeof(char *));
	r->explain[0].causes[0].where[0] = xstrdup("lc_insert");
	r->explain[0].causes[0].nwhere = 1;
	r->explain[0].causes[0].material = false;
	r->explain[0].reach_metric = xstrdup("wall-time");
	r->explain[0].measured_rel = 0.958;
	r->explain[0].estimated_rel = -4.2e-6;
	r->explain[0].reproduced = -4.2e-6 / 0.958;
	r->explain[0].outside = xcalloc(1, sizeof(struct ws_outside));
	r->explain[0].noutside = 1;
	r->explain[0].outside[0].cause = xstrdup("waiting");
	r->explain[0].outside[0].evidence = xstrdup("wall-time +96% but task-clock +1%");
}

static void test_round_trip(void **state)
{
	struct ws_result a, b;
	char path[] = "/tmp/ws-json-XXXXXX";
	int fd = mkstemp(path);
	struct ws_variant *v;
	struct ws_metric *m;

	(void)state;
	close(fd);
	build(&a);
	assert_int_equal(ws_result_save(&a, path), 0);
	ws_result_init(&b);
	assert_int_equal(ws_result_load(path, &b), 0);
	unlink(path);

	assert_string_equal(b.machine.cpu, "Test CPU");
	assert_true(b.machine.pmu);
	assert_string_equal(b.machine.sim_preset, "zen4");
	assert_int_equal(b.machine.ntoolchains, 1);
	assert_string_equal(b.machine.toolchains[0].program, "base");
	assert_string_equal(b.machine.toolchains[0].compilers[1], "clang LLVM (rustc version 1.63.0)");
	assert_null(b.machine.toolchains[0].compilers[2]);
	assert_int_equal(b.settings.seed, 1234567890123ULL);
	assert_string_equal(b.settings.events[0], "cycles");
	/* How the programs were run: a hook per program, one not given, --output, --input and its size. */
	assert_true(b.settings.shell);
	assert_string_equal(b.settings.prepare[0], "touch {n}");
	assert_string_equal(b.settings.prepare[1], "sync");
	assert_null(b.settings.prepare[2]);
	assert_null(b.settings.setup);
	assert_string_equal(b.settings.output[0], "./out.txt");
	assert_string_equal(b.settings.input, "in.txt");
	assert_float_equal(b.settings.input_bytes, 11, 0);
	assert_int_equal(b.settings.nparameters, 1);
	assert_string_equal(b.settings.parameters[0].values[1], "1.0");
	assert_string_equal(b.settings.parameters[0].step, "0.5");
	assert_int_equal(b.variants[0].nparams, 1);
	assert_string_equal(b.variants[0].params[0].value, "0.5");
	assert_int_equal(b.variants[1].nparams, 0);
	assert_true(b.partial);
	assert_string_equal(b.partial_reason, "interrupted");
	assert_int_equal(b.nwarnings, 1);
	assert_int_equal(b.nvariants, 2);
	v = &b.variants[0];
	assert_true(v->baseline);
	assert_false(b.variants[1].baseline);
	assert_string_equal(v->command, "./prog --lc vec");
	assert_int_equal(v->nruns, 2);
	assert_int_equal(v->runs[1].signal, 9);
	assert_int_equal(v->failed_runs, 1);
	m = ws_metric_set_find(&v->metrics, "wall-time");
	assert_float_equal(m->samples[0], 0.125, 0);
	assert_true(isnan(m->samples[1])); /* not counted survives as null */
	m = ws_metric_set_find(&v->metrics, "cycles");
	assert_float_equal(m->running[1], 0.5, 0);
	m = ws_metric_set_find(&v->metrics, "instructions");
	assert_true(m->flags & WS_M_SIMULATED);
	assert_float_equal(m->samples[0], 123456789012.0, 0);
	m = ws_metric_set_find(&v->metrics, "LLC-loads");
	assert_true(m->flags & WS_M_UNSUPPORTED);
	assert_string_equal(m->reason, "no PMU");
	assert_non_null(ws_group_list_find(&v->regions, "enforce"));
	assert_string_equal(ws_group_list_find(&v->functions, "lc_insert")->object, "/bin/prog");
	assert_int_equal(ws_group_list_find(&v->functions, "lc_insert")->nlines, 2);
	assert_int_equal(ws_group_list_find(&v->functions, "lc_insert")->lines[0].line, 7);
	assert_float_equal(ws_group_list_find(&v->functions, "lc_insert")->lines[0].samples, 12, 0);
	{
		const struct ws_group *g = ws_group_list_find(&v->functions, "lc_insert");

		assert_int_equal(g->nsymbols, 1);
		assert_string_equal(g->symbols[0], "_Z9lc_insertP2LC");
		assert_false(g->inlined);
		assert_int_equal(g->lines[0].ninlined, 2);
		assert_string_equal(g->lines[0].inlined[0].function, "term_cmp(Term const&, Term const&)");
		assert_string_equal(g->lines[0].inlined[1].call_file, "lc.c");
		assert_int_equal(g->lines[0].inlined[1].call_line, 51);
		assert_int_equal(g->lines[1].ninlined, 0);
		g = ws_group_list_find(&v->functions, "<&T as core::fmt::Debug>::fmt");
		assert_int_equal(g->nsymbols, 2);
		g = ws_group_list_find(&v->functions, "term_cmp(Term const&, Term const&) (inlined)");
		assert_non_null(g);
		assert_true(g->inlined);
		assert_int_equal(g->nsymbols, 0);
	}
	assert_int_equal(v->nhot, 1);
	assert_int_equal(v->hot[0].insns[0].addr, 0x401230);
	assert_float_equal(v->hot[0].insns[0].l1d_misses, 3, 0);
	assert_int_equal(b.ncomparisons, 1);
	assert_float_equal(b.comparisons[0].ratio, 1.098, 1e-15);
	assert_float_equal(b.comparisons[0].ci_hi, 1.106, 1e-15);
	assert_int_equal(b.comparisons[0].verdict, WS_VERDICT_SLOWER);
	assert_string_equal(b.comparisons[0].region, "enforce");
	assert_null(b.comparisons[0].function);
	assert_int_equal(b.comparisons[0].estimate, WS_ESTIMATE_HL);
	assert_int_equal(b.comparisons[0].family, WS_FAMILY_SECONDARY);
	assert_true(b.comparisons[0].gate_closed);
	assert_string_equal(b.settings.primary, "wall-time");
	/* A result written before these fields: its ratios were of medians, and it had no families. */
	assert_int_equal(ws_estimate_parse(NULL), WS_ESTIMATE_MEDIAN_RATIO);
	assert_int_equal(ws_family_parse(NULL), WS_FAMILY_NONE);
	assert_int_equal(ws_family_parse("primary"), WS_FAMILY_PRIMARY);
	assert_int_equal(b.nexplain, 1);
	assert_string_equal(b.explain[0].causes[0].where[0], "lc_insert");
	assert_float_equal(b.explain[0].causes[0].share_hi, 0.8, 0);
	assert_false(b.explain[0].causes[0].material);
	assert_string_equal(b.explain[0].reach_metric, "wall-time");
	assert_float_equal(b.explain[0].measured_rel, 0.958, 0);
	assert_float_equal(b.explain[0].reproduced, -4.2e-6 / 0.958, 0);
	assert_int_equal(b.explain[0].noutside, 1);
	assert_string_equal(b.explain[0].outside[0].cause, "waiting");
	assert_string_equal(b.explain[0].outside[0].evidence, "wall-time +96% but task-clock +1%");
	ws_result_release(&a);
	ws_result_release(&b);
}

/* Call graphs: a function's inclusive metrics and callers, the variant's stacks, and their comparison cells. */
static void test_round_trip_calls(void **state)
{
	struct ws_result a, b;
	char path[] = "/tmp/ws-json-XXXXXX";
	int fd = mkstemp(path);
	const char *const frames[] = { "main", "r1cs_lc_add", "memcpy" };
	struct ws_variant *v;
	struct ws_group *g, *c;

	(void)state;
	close(fd);
	ws_result_init(&a);
	v = ws_result_add_variant(&a, "vec", NULL);
	g = ws_group_list_get(&v->functions, "memcpy", "/lib/libc.so.6");
	ws_metric_push(ws_metric_set_get(&g->metrics, "instructions", WS_M_SIMULATED), 100, -1);
	ws_metric_push(ws_metric_set_get(&g->inclusive, "instructions", WS_M_SIMULATED), 100, -1);
	c = ws_group_list_get(&g->callers, "r1cs_lc_add", "/bin/prog");
	ws_metric_push(ws_metric_set_get(&c->metrics, "instructions", WS_M_SIMULATED), 80, -1);
	c = ws_group_list_get(&g->callers, "r1cs_apply", "/bin/prog");
	ws_metric_push(ws_metric_set_get(&c->metrics, "instructions", WS_M_SIMULATED), 20, -1);
	v->stacks_metric = xstrdup("estimated-cycles");
	v->stacks_runs = 1;
	ws_variant_add_stack(v, frames, 3, 80);
	ws_variant_add_stack(v, frames, 1, 5);
	ws_result_summarize(&a);
	a.comparisons = xcalloc(1, sizeof(*a.comparisons));
	a.ncomparisons = a.alloc_comparisons = 1;
	a.comparisons[0] = (struct ws_comparison){ .variant = xstrdup("vec"), .baseline = xstrdup("vec"),
						   .metric = xstrdup("instructions"), .function = xstrdup("memcpy"),
						   .ratio = 1.0, .ci_lo = 1.0, .ci_hi = 1.0, .p = NAN, .p_adjusted = NAN,
						   .verdict = WS_VERDICT_SAME, .exact = true, .estimate = WS_ESTIMATE_EXACT,
						   .caller = xstrdup("r1cs_apply") };
	assert_int_equal(ws_result_save(&a, path), 0);
	ws_result_init(&b);
	assert_int_equal(ws_result_load(path, &b), 0);
	unlink(path);

	g = ws_group_list_find(&b.variants[0].functions, "memcpy");
	assert_non_null(g);
	assert_float_equal(ws_metric_set_find(&g->inclusive, "instructions")->samples[0], 100, 0);
	assert_int_equal(g->callers.n, 2);
	c = ws_group_list_find(&g->callers, "r1cs_lc_add");
	assert_string_equal(c->object, "/bin/prog");
	assert_true(ws_metric_set_find(&c->metrics, "instructions")->flags & WS_M_SIMULATED);
	ws_result_summarize(&b);
	assert_float_equal(ws_caller_share(g, c), 0.8, 1e-12);
	v = &b.variants[0];
	assert_string_equal(v->stacks_metric, "estimated-cycles");
	assert_int_equal(v->nstacks, 2);
	assert_int_equal(v->stacks[0].nframes, 3);
	assert_string_equal(v->stacks[0].frames[2], "memcpy");
	assert_float_equal(v->stacks[1].count, 5, 0);
	assert_string_equal(b.comparisons[0].caller, "r1cs_apply");
	assert_false(b.comparisons[0].inclusive);
	ws_result_release(&a);
	ws_result_release(&b);
}

static int load_string(const char *text, struct ws_result *r)
{
	json_error_t err;
	json_t *root = json_loads(text, 0, &err);
	int ret;

	assert_non_null(root);
	ws_result_init(r);
	ret = ws_result_from_json(root, r, "test");
	json_decref(root);
	return ret;
}

static void test_minimal_file(void **state)
{
	struct ws_result r;

	(void)state;
	assert_int_equal(load_string("{\"variants\":[{\"name\":\"a\",\"metrics\":{\"t\":{\"samples\":[1,2,null]}}},"
				     "{\"name\":\"b\",\"metrics\":{\"t\":{\"samples\":[3]}}}]}",
				     &r),
			 0);
	assert_int_equal(r.nvariants, 2);
	assert_int_equal(r.variants[0].metrics.v[0].n, 3);
	assert_true(isnan(r.variants[0].metrics.v[0].samples[2]));
	/* A file without them ran no hooks, read /dev/null, and says nothing of its output. */
	assert_null(r.settings.prepare);
	assert_null(r.settings.input);
	assert_true(isnan(r.settings.input_bytes));
	assert_null(r.settings.output);
	ws_result_release(&r);
}

static void test_refusals(void **state)
{
	struct ws_result r;

	(void)state;
	ws_log_set(capture, NULL);
	assert_int_equal(load_string("{\"schema\":\"whyslow/2\",\"variants\":[]}", &r), -EINVAL);
	assert_non_null(strstr(last_error, "whyslow/2"));
	ws_result_release(&r);
	assert_int_equal(load_string("{\"variants\":[]}", &r), -EINVAL);
	assert_non_null(strstr(last_error, "variants[].name"));
	ws_result_release(&r);
	assert_int_equal(load_string("{\"variants\":[{\"name\":\"a\",\"metrics\":{\"t\":{}}}]}", &r), -EINVAL);
	assert_non_null(strstr(last_error, "samples"));
	ws_result_release(&r);
	assert_int_equal(load_string("{\"variants\":[{\"name\":\"a\",\"metrics\":{\"t\":{\"samples\":[\"x\"]}}}]}",
				     &r),
			 -EINVAL);
	ws_result_release(&r);
	assert_int_equal(load_string("{\"variants\":[{\"name\":\"a\",\"metrics\":{}},{\"name\":\"a\",\"metrics\":{}}]}",
				     &r),
			 -EINVAL);
	assert_non_null(strstr(last_error, "two variants"));
	ws_result_release(&r);
	ws_result_init(&r);
	assert_true(ws_result_load("/nonexistent/file.json", &r) < 0);
	ws_result_release(&r);
	ws_log_set(NULL, NULL);
}

/* Two variants, a and b, with a metric t, a region r and a function f called from m; then `comparisons`. */
static int load_with_comparisons(const char *comparisons, struct ws_result *r)
{
	char *text = xasprintf(
		"{\"variants\":["
		"{\"name\":\"a\",\"metrics\":{\"t\":{\"samples\":[1,2]}},"
		"\"regions\":{\"r\":{\"metrics\":{\"t\":{\"samples\":[1,2]}}}},"
		"\"functions\":[{\"name\":\"f\",\"metrics\":{\"t\":{\"samples\":[1]}},"
		"\"callers\":[{\"name\":\"m\",\"metrics\":{\"t\":{\"samples\":[1]}}}]}]},"
		"{\"name\":\"b\",\"metrics\":{\"t\":{\"samples\":[3,4]}},"
		"\"regions\":{\"r\":{\"metrics\":{\"t\":{\"samples\":[1,2]}}}},"
		"\"functions\":[{\"name\":\"f\",\"metrics\":{\"t\":{\"samples\":[1]}},"
		"\"callers\":[{\"name\":\"m\",\"metrics\":{\"t\":{\"samples\":[1]}}}]}]}],"
		"\"comparisons\":[%s]}",
		comparisons);
	int ret = load_string(text, r);

	free(text);
	return ret;
}

/* Every name a comparison gives is resolved at load, or the file is refused naming the field. */
static void test_references(void **state)
{
	static const struct {
		const char *cmp, *error;
	} cases[] = {
		{ "{\"variant\":\"x\",\"baseline\":\"a\",\"metric\":\"t\"}",
		  "test: comparisons[1].variant names 'x', which is not in variants[]" },
		{ "{\"variant\":\"b\",\"baseline\":\"y\",\"metric\":\"t\"}",
		  "test: comparisons[1].baseline names 'y', which is not in variants[]" },
		{ "{\"variant\":\"b\",\"baseline\":\"a\",\"metric\":\"t\",\"region\":\"q\"}",
		  "test: comparisons[1].region names 'q', which is not in the regions of variant 'a'" },
		{ "{\"variant\":\"b\",\"baseline\":\"a\",\"metric\":\"t\",\"function\":\"g\"}",
		  "test: comparisons[1].function names 'g', which is not in the functions of variant 'a'" },
		{ "{\"variant\":\"b\",\"baseline\":\"a\",\"metric\":\"t\",\"function\":\"f\",\"caller\":\"z\"}",
		  "test: comparisons[1].caller names 'z', which is not among the callers of 'f' in variant 'a'" },
		{ "{\"variant\":\"b\",\"baseline\":\"a\",\"metric\":\"u\"}",
		  "test: comparisons[1].metric names 'u', which variant 'a' does not have there" },
		{ "{\"variant\":\"b\\u001b[31m\",\"baseline\":\"a\",\"metric\":\"t\"}",
		  "test: comparisons[1].variant names 'b\\x1b[31m', which is not in variants[]" },
	};
	struct ws_result r;

	(void)state;
	ws_log_set(capture, NULL);
	/* What compare writes resolves: the whole process, a region, a function and a caller. */
	assert_int_equal(load_with_comparisons(
				 "{\"variant\":\"b\",\"baseline\":\"a\",\"metric\":\"t\"},"
				 "{\"variant\":\"b\",\"baseline\":\"a\",\"metric\":\"t\",\"region\":\"r\"},"
				 "{\"variant\":\"b\",\"baseline\":\"a\",\"metric\":\"t\",\"function\":\"f\",\"caller\":\"m\"}",
				 &r),
			 0);
	assert_int_equal(r.ncomparisons, 3);
	ws_result_release(&r);
	/* An entry without a variant, baseline or metric is dropped (the reader is lenient); indices stay the file's. */
	assert_int_equal(load_with_comparisons("{\"variant\":\"b\",\"metric\":\"t\"},"
					       "{\"variant\":\"q\",\"baseline\":\"a\",\"metric\":\"t\"}",
					       &r),
			 -EINVAL);
	assert_string_equal(last_error, "test: comparisons[1].variant names 'q', which is not in variants[]");
	ws_result_release(&r);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *cmp = xasprintf("{\"variant\":\"b\",\"baseline\":\"a\",\"metric\":\"t\"},%s", cases[i].cmp);

		last_error[0] = '\0';
		assert_int_equal(load_with_comparisons(cmp, &r), -EINVAL);
		assert_string_equal(last_error, cases[i].error);
		ws_result_release(&r);
		free(cmp);
	}
	ws_log_set(NULL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_round_trip_calls),
		cmocka_unit_test(test_minimal_file),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_references),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
