/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-sim-output.c - unit tests of the wsim result reader: a good file, malformed ones, and adding files up. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/log.h"
#include "sim/sim-output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The last error the reader logged, so tests can check it names the line. */
static char last_error[1024];
static int n_errors;

static void capture(enum ws_log_level level, const char *msg, void *data)
{
	(void)data;
	if (level != WS_LOG_ERROR)
		return;
	snprintf(last_error, sizeof(last_error), "%s", msg);
	n_errors++;
}

static int setup(void **state)
{
	(void)state;
	ws_log_set(capture, NULL);
	last_error[0] = '\0';
	n_errors = 0;
	return 0;
}

/* A two-level (cachegrind preset) file: no L2-misses, no return or prefetch counters. */
static const char good_cg[] =
	"wsim\t1\n"
	"config\tpreset\tcachegrind\n"
	"config\tL1i\t32768,8,64\n"
	"config\tLL\t8388608,16,64,non-inclusive\n"
	"command\t/bin/prog\tan\\targ\n"
	"pid\t4242\n"
	"ppid\t1\n"
	"exit\t-1\n"
	"threads\t2\n"
	"counters\tinstructions\testimated-cycles\tL1-dcache-load-misses\tfuture-counter\n"
	"total\t1000\t5000\t10\t77\n"
	"function\t0\thot\\tfn\t/src/a.c\t/bin/prog\t600\t4000\t8\t1\n"
	"function\t1\tcold\t???\t/lib/libc.so.6\t400\t1000\t2\t0\n"
	"region\tphase one\t3\t900\t4500\t9\t0\n"
	"hot\t0\t0x1140\t100\t3\t1\n"
	"hot\t0\t0x1130\t100\t5\t0\n"
	"end\n";

static void test_parse_good(void **state)
{
	struct ws_sim_output o;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(ws_sim_output_parse(&o, good_cg, strlen(good_cg), "good"), 0);
	assert_int_equal(n_errors, 0);
	assert_int_equal(o.version, 1);
	assert_int_equal(o.processes, 1);
	assert_string_equal(ws_sim_config(&o, "preset"), "cachegrind");
	assert_string_equal(ws_sim_config(&o, "LL"), "8388608,16,64,non-inclusive");
	assert_null(ws_sim_config(&o, "L2"));
	assert_int_equal(o.argc, 2);
	assert_string_equal(o.argv[1], "an\targ");
	assert_null(o.argv[2]);
	assert_int_equal(o.pid, 4242);
	assert_int_equal(o.ppid, 1);
	assert_int_equal(o.exit_status, -1);
	assert_int_equal(o.threads, 2);

	assert_true(ws_sim_has(&o, WS_SIM_INSTRUCTIONS));
	assert_true(ws_sim_has(&o, WS_SIM_L1_DCACHE_LOAD_MISSES));
	assert_false(ws_sim_has(&o, WS_SIM_L2_MISSES));
	assert_int_equal(ws_sim_get(&o, &o.total, "instructions", &v), 0);
	assert_int_equal(v, 1000);
	assert_int_equal(ws_sim_get(&o, &o.total, "L1-dcache-load-misses", &v), 0);
	assert_int_equal(v, 10);
	/* Not produced by this model: absent, not 0. */
	assert_int_equal(ws_sim_get(&o, &o.total, "L2-misses", &v), -ENOENT);
	assert_int_equal(ws_sim_get(&o, &o.total, "future-counter", &v), -ENOENT);
	assert_int_equal(ws_sim_get(&o, &o.total, "cycles", &v), -ENOENT);

	assert_int_equal(o.nr_functions, 2);
	assert_string_equal(o.functions[0].name, "hot\tfn");
	assert_string_equal(o.functions[0].file, "/src/a.c");
	assert_string_equal(o.functions[0].object, "/bin/prog");
	assert_int_equal(o.functions[0].counts.v[WS_SIM_ESTIMATED_CYCLES], 4000);
	assert_int_equal(o.functions[1].counts.v[WS_SIM_INSTRUCTIONS], 400);
	/* Hot rows come back ascending by address, whatever the file's order. */
	assert_int_equal(o.functions[0].nr_insns, 2);
	assert_int_equal(o.functions[0].insns[0].addr, 0x1130);
	assert_int_equal(o.functions[0].insns[0].l1d_misses, 5);
	assert_int_equal(o.functions[0].insns[1].addr, 0x1140);
	assert_int_equal(o.functions[0].insns[1].mispredicts, 1);
	assert_int_equal(o.functions[1].nr_insns, 0);

	assert_int_equal(o.nr_regions, 1);
	assert_string_equal(o.regions[0].name, "phase one");
	assert_int_equal(o.regions[0].entries, 3);
	assert_int_equal(o.regions[0].counts.v[WS_SIM_INSTRUCTIONS], 900);
	ws_sim_output_release(&o);
	assert_int_equal(o.nr_functions, 0);
	assert_null(o.functions);
}

static void test_counter_names(void **state)
{
	(void)state;
	for (int c = 0; c < WS_SIM_NR_COUNTERS; c++) {
		assert_non_null(ws_sim_counter_name(c));
		assert_int_equal(ws_sim_counter_from_name(ws_sim_counter_name(c)), c);
	}
	assert_string_equal(ws_sim_counter_name(WS_SIM_LLC_ICACHE_MISSES), "LLC-icache-misses");
	assert_int_equal(ws_sim_counter_from_name("cycles"), -1);
}

/* Replace the first occurrence of `from` in the good file with `to`, parse, and expect a failure at `line`. */
static void expect_malformed(const char *from, const char *to, int line, const char *what)
{
	char buf[4096], want[64];
	const char *at = strstr(good_cg, from);
	struct ws_sim_output o;
	size_t pre;

	assert_non_null(at);
	pre = (size_t)(at - good_cg);
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)pre, good_cg, to, at + strlen(from));
	n_errors = 0;
	assert_int_equal(ws_sim_output_parse(&o, buf, strlen(buf), "bad"), -EINVAL);
	assert_int_equal(n_errors, 1);
	snprintf(want, sizeof(want), "bad:%d: ", line);
	if (strncmp(last_error, want, strlen(want)) || !strstr(last_error, what))
		fail_msg("expected '%s...%s', got '%s'", want, what, last_error);
	/* A failed parse leaves nothing behind. */
	assert_int_equal(o.nr_functions, 0);
	assert_int_equal(o.processes, 0);
}

static void test_malformed(void **state)
{
	(void)state;
	expect_malformed("wsim\t1\n", "cachegrind\t1\n", 1, "not a wsim result file");
	expect_malformed("wsim\t1\n", "wsim\t4\n", 1, "format version 4");
	expect_malformed("wsim\t1\n", "wsim\t0\n", 1, "format version 0");
	expect_malformed("total\t1000\t5000\t10\t77\n", "total\t1000\t5000\t10\n", 11, "has 3 values");
	expect_malformed("total\t1000\t5000", "total\t1000\t5x00", 11, "'5x00' is not an unsigned");
	expect_malformed("total\t1000\t5000", "total\t-1000\t5000", 11, "not an unsigned");
	expect_malformed("total\t1000\t5000", "total\t99999999999999999999\t5000", 11, "too large");
	expect_malformed("region\tphase", "regime\tphase", 14, "unknown record 'regime'");
	expect_malformed("function\t1\tcold", "function\t7\tcold", 13, "out of sequence");
	expect_malformed("hot\t0\t0x1140", "hot\t9\t0x1140", 15, "which has no row");
	expect_malformed("hot\t0\t0x1140", "hot\t0\t1140", 15, "0x-prefixed");
	expect_malformed("\\targ", "\\qarg", 5, "bad escape");
	expect_malformed("pid\t4242", "pid\tmany", 6, "not a decimal");
	expect_malformed("L1-dcache-load-misses\tfuture", "instructions\tfuture", 10, "listed twice");
	expect_malformed("counters\t", "counter\t", 10, "unknown record");
	expect_malformed("end\n", "", 17, "truncated");
	expect_malformed("end\n", "end", 17, "no newline");
	expect_malformed("end\n", "end\nconfig\tx\ty\n", 18, "after 'end'");
	expect_malformed("config\tpreset\tcachegrind\n", "config\tpreset\n", 2, "has 2 fields, expected 3");
}

static void test_empty_and_total_missing(void **state)
{
	struct ws_sim_output o;
	const char *no_total = "wsim\t1\ncounters\tinstructions\nend\n";
	const char *before = "wsim\t1\ntotal\t1\ncounters\tinstructions\nend\n";

	(void)state;
	assert_int_equal(ws_sim_output_parse(&o, "", 0, "empty"), -EINVAL);
	assert_non_null(strstr(last_error, "empty"));
	assert_int_equal(ws_sim_output_parse(&o, no_total, strlen(no_total), "nt"), -EINVAL);
	assert_non_null(strstr(last_error, "no 'total'"));
	assert_int_equal(ws_sim_output_parse(&o, before, strlen(before), "bc"), -EINVAL);
	assert_non_null(strstr(last_error, "bc:2: 'total' record before the counters line"));
}

static void test_read_file(void **state)
{
	char path[] = "/tmp/ws-sim-output-XXXXXX";
	struct ws_sim_output o;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, good_cg, strlen(good_cg)), (ssize_t)strlen(good_cg));
	close(fd);
	assert_int_equal(ws_sim_output_read(&o, path), 0);
	assert_int_equal(o.total.v[WS_SIM_INSTRUCTIONS], 1000);
	ws_sim_output_release(&o);
	unlink(path);
	assert_int_equal(ws_sim_output_read(&o, path), -ENOENT);
	assert_non_null(strstr(last_error, path));
}

/* A second process of the same model: `cold` shared, `child` new, one hot address shared. */
static const char second_cg[] =
	"wsim\t1\n"
	"config\tpreset\tcachegrind\n"
	"config\tL1i\t32768,8,64\n"
	"config\tLL\t8388608,16,64,non-inclusive\n"
	"command\t/bin/child\n"
	"pid\t4243\n"
	"threads\t1\n"
	"counters\tinstructions\testimated-cycles\tL1-dcache-load-misses\tfuture-counter\n"
	"total\t3000\t9000\t30\t1\n"
	"function\t0\tchild\t/src/c.c\t/bin/child\t2000\t8000\t20\t0\n"
	"function\t1\thot\\tfn\t/src/a.c\t/bin/prog\t1000\t1000\t10\t0\n"
	"region\tphase one\t1\t100\t200\t1\t0\n"
	"region\tother\t1\t5\t6\t0\t0\n"
	"hot\t1\t0x1130\t7\t1\t2\n"
	"hot\t1\t0x1120\t1\t0\t0\n"
	"end\n";

/* Format 3: per-core counts and the contention report. */
static const char threads_file[] =
	"wsim\t3\n"
	"config\tpreset\tzen4\n"
	"config\tcores\t16,8\n"
	"threads\t3\n"
	"counters\tinstructions\tcoherence-misses\n"
	"total\t1000\t50\n"
	"function\t0\tw\t/src/s.c\t/bin/s\t900\t50\n"
	"function\t1\tmain\t/src/s.c\t/bin/s\t100\t0\n"
	"core\t0\t1\t100\t0\n"
	"core\t1\t1\t450\t10\n"
	"core\t2\t1\t450\t40\n"
	"brief-threads\t1\n"
	"line\t0x4040\tshared\t0x4040\t50\t0,1\n"
	"line-core\t1\t2\t100\t100\t0-7\t0-7\t25\n"
	"line-core\t2\t3\t100\t100\t8-15\t8-15\t25\n"
	"line-core\t0\t1\t1\t0\t0-15\t-\t0\n"
	"line\t0x5000\t-\t-\t2\t-\n"
	"end\n";

/* LINE-CORE rows after one line with MISSES coherence misses: the verdict on it. */
static enum ws_sharing verdict(uint64_t misses, const char *rows)
{
	char buf[1024];
	struct ws_sim_output o;
	enum ws_sharing v;

	snprintf(buf, sizeof(buf),
		 "wsim\t3\nconfig\tpreset\tzen4\nthreads\t5\ncounters\tinstructions\ntotal\t1\n"
		 "line\t0x4040\tcounters\t0x4040\t%llu\t-\n%send\n",
		 (unsigned long long)misses, rows);
	assert_int_equal(ws_sim_output_parse(&o, buf, strlen(buf), "v"), 0);
	assert_int_equal(o.nr_lines, 1);
	v = ws_sim_line_verdict(&o.lines[0]);
	ws_sim_output_release(&o);
	return v;
}

/*
 * The verdict says true sharing only where two threads write the same bytes. The first two lines are
 * whyslow stat runs of four counters bumped 100,000 and 300,000 times each: main's two reads of the results
 * at the end carry all of a short run's misses, so it takes part, and its read spans the writers' bytes.
 */
static void test_verdicts(void **state)
{
	(void)state;
	/* Two writers on disjoint bytes, main reading both: false sharing, not "the same bytes". */
	assert_int_equal(verdict(2, "line-core\t1\t2\t99999\t100000\t0-7\t0-7\t0\n"
				    "line-core\t2\t3\t99999\t100000\t8-15\t8-15\t0\n"
				    "line-core\t0\t1\t2\t0\t0-15\t-\t2\n"),
			 WS_SHARING_FALSE);
	/* One writer, main reading its bytes: a writer and its readers. */
	assert_int_equal(verdict(2, "line-core\t2\t3\t299999\t300000\t8-15\t8-15\t0\n"
				    "line-core\t0\t1\t2\t0\t0-15\t-\t2\n"),
			 WS_SHARING_ONE_WRITER);
	/* One writer, the other thread on other bytes of the line: padding helps, false sharing. */
	assert_int_equal(verdict(50, "line-core\t1\t2\t100\t100\t0-7\t0-7\t25\n"
				     "line-core\t2\t3\t100\t0\t8-15\t-\t25\n"),
			 WS_SHARING_FALSE);
	/* Two writers on the same bytes. */
	assert_int_equal(verdict(50, "line-core\t1\t2\t100\t100\t0-7\t0-7\t25\n"
				     "line-core\t2\t3\t100\t100\t0-7\t0-7\t25\n"),
			 WS_SHARING_TRUE);
	/* Overlapping writes by a thread under 1% do not count: it does not take part. */
	assert_int_equal(verdict(1000, "line-core\t1\t2\t100000\t100000\t0-7\t0-7\t500\n"
				       "line-core\t2\t3\t100000\t100000\t8-15\t8-15\t500\n"
				       "line-core\t0\t1\t1\t1\t0-15\t0-15\t0\n"),
			 WS_SHARING_FALSE);
	/* Four threads on two cores (round-robin): rows per thread, so cores repeat; still disjoint. */
	assert_int_equal(verdict(100, "line-core\t1\t2\t100\t100\t0-7\t0-7\t25\n"
				      "line-core\t0\t3\t100\t100\t8-15\t8-15\t25\n"
				      "line-core\t1\t4\t100\t100\t16-23\t16-23\t25\n"
				      "line-core\t0\t5\t100\t100\t24-31\t24-31\t25\n"
				      "line-core\t0\t1\t4\t0\t0-31\t-\t0\n"),
			 WS_SHARING_FALSE);
	/* A flag written once (under 1%) and read in a spin: the writer still counts, its readers read it. */
	assert_int_equal(verdict(100, "line-core\t1\t2\t10000\t0\t0-3\t-\t50\n"
				      "line-core\t2\t3\t10000\t0\t0-3\t-\t50\n"
				      "line-core\t0\t1\t0\t1\t-\t0-3\t0\n"),
			 WS_SHARING_ONE_WRITER);
	/* The threads past the tool's limit, merged as thread 0, could write each other's bytes: not told. */
	assert_int_equal(verdict(100, "line-core\t1\t2\t100\t100\t0-7\t0-7\t50\n"
				      "line-core\t2\t0\t100\t100\t8-15\t8-15\t50\n"),
			 WS_SHARING_UNKNOWN);
	/* ... but two named threads on the same bytes are true sharing whatever the merged row holds. */
	assert_int_equal(verdict(100, "line-core\t1\t2\t100\t100\t0-7\t0-7\t40\n"
				      "line-core\t2\t3\t100\t100\t0-7\t0-7\t40\n"
				      "line-core\t3\t0\t100\t100\t8-15\t8-15\t20\n"),
			 WS_SHARING_TRUE);
}

static void test_threads(void **state)
{
	struct ws_sim_output a, sum = WS_SIM_OUTPUT_INIT;
	const struct ws_sim_line *l;

	(void)state;
	assert_int_equal(ws_sim_output_parse(&a, threads_file, strlen(threads_file), "t"), 0);
	assert_int_equal(a.version, 3);
	assert_true(ws_sim_has(&a, WS_SIM_COHERENCE_MISSES));
	assert_int_equal(a.nr_cores, 3);
	assert_int_equal(a.cores[2].id, 2);
	assert_int_equal(a.cores[2].counts.v[WS_SIM_COHERENCE_MISSES], 40);
	assert_int_equal(a.brief_threads, 1);
	assert_int_equal(a.nr_lines, 2);
	l = &a.lines[0];
	assert_int_equal(l->addr, 0x4040);
	assert_string_equal(l->symbol, "shared");
	assert_int_equal(l->symbol_addr, 0x4040);
	assert_int_equal(l->misses, 50);
	assert_int_equal(l->nr_functions, 2);
	assert_string_equal(l->functions[0], "w");
	assert_string_equal(l->functions[1], "main");
	assert_int_equal(l->nr_cores, 3);
	assert_int_equal(l->cores[1].thread, 3);
	assert_int_equal(l->cores[1].write_lo, 8);
	assert_int_equal(l->cores[1].write_hi, 15);
	assert_int_equal(l->cores[2].write_lo, -1);
	assert_null(a.lines[1].symbol);
	assert_int_equal(a.lines[1].nr_functions, 0);
	assert_int_equal(a.lines[1].nr_cores, 0);
	/* Two processes: per-core counts add up by core, lines are kept apart with their process. */
	assert_int_equal(ws_sim_output_add(&sum, &a), 0);
	assert_int_equal(ws_sim_output_add(&sum, &a), 0);
	assert_int_equal(sum.nr_cores, 3);
	assert_int_equal(sum.cores[1].counts.v[WS_SIM_INSTRUCTIONS], 900);
	assert_int_equal(sum.cores[1].threads, 2);
	assert_int_equal(sum.brief_threads, 2);
	assert_int_equal(sum.nr_lines, 4);
	assert_int_equal(sum.lines[2].process, 1);
	assert_string_equal(sum.lines[2].symbol, "shared");
	assert_int_equal(sum.lines[2].cores[0].write_hi, 7);
	/* A line's functions by index too, into the sum's own (merged and re-sorted) functions. */
	for (size_t i = 0; i < sum.nr_lines; i++)
		for (size_t j = 0; j < sum.lines[i].nr_functions; j++)
			assert_string_equal(sum.functions[sum.lines[i].function_ids[j]].name, sum.lines[i].functions[j]);
	assert_int_equal(sum.lines[2].nr_functions, 2);
	ws_sim_output_release(&sum);
	ws_sim_output_release(&a);
	assert_int_equal(a.nr_lines, 0);
}

static void test_threads_malformed(void **state)
{
	static const struct {
		const char *from, *to, *what;
	} cases[] = {
		{ "line-core\t1\t2\t100\t100\t0-7", "line-core\t1\t2\t100\t100\t7-0", "byte ranges" },
		{ "line\t0x4040\tshared\t0x4040\t50\t0,1", "line\t0x4040\tshared\t0x4040\t50\t0,9", "no row" },
		{ "line\t0x4040", "line-core\t1\t2\t1\t1\t-\t-\t0\nline\t0x4040", "before any 'line'" },
		{ "brief-threads\t1", "brief-threads\tmany", "brief threads" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[4096];
		const char *at = strstr(threads_file, cases[i].from);
		struct ws_sim_output o;

		assert_non_null(at);
		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - threads_file), threads_file, cases[i].to,
			 at + strlen(cases[i].from));
		n_errors = 0;
		assert_int_equal(ws_sim_output_parse(&o, buf, strlen(buf), "bad"), -EINVAL);
		assert_int_equal(n_errors, 1);
		if (!strstr(last_error, cases[i].what))
			fail_msg("expected '%s', got '%s'", cases[i].what, last_error);
	}
}

static void test_add(void **state)
{
	struct ws_sim_output a, b, sum = WS_SIM_OUTPUT_INIT;
	const struct ws_sim_function *hot;

	(void)state;
	assert_int_equal(ws_sim_output_parse(&a, good_cg, strlen(good_cg), "a"), 0);
	assert_int_equal(ws_sim_output_parse(&b, second_cg, strlen(second_cg), "b"), 0);
	assert_int_equal(ws_sim_output_add(&sum, &a), 0);
	assert_int_equal(ws_sim_output_add(&sum, &b), 0);
	assert_int_equal(sum.processes, 2);
	assert_int_equal(sum.threads, 3);
	assert_int_equal(sum.pid, 4242); /* the first file's */
	assert_string_equal(sum.argv[0], "/bin/prog");
	assert_int_equal(sum.total.v[WS_SIM_INSTRUCTIONS], 4000);
	assert_int_equal(sum.total.v[WS_SIM_L1_DCACHE_LOAD_MISSES], 40);
	assert_false(ws_sim_has(&sum, WS_SIM_L2_MISSES));

	/* Hottest first after merging: child 8000, hot fn 5000, cold 1000. */
	assert_int_equal(sum.nr_functions, 3);
	assert_string_equal(sum.functions[0].name, "child");
	hot = &sum.functions[1];
	assert_string_equal(hot->name, "hot\tfn");
	assert_int_equal(hot->counts.v[WS_SIM_INSTRUCTIONS], 1600);
	assert_int_equal(hot->counts.v[WS_SIM_ESTIMATED_CYCLES], 5000);
	assert_int_equal(hot->nr_insns, 3);
	assert_int_equal(hot->insns[0].addr, 0x1120);
	assert_int_equal(hot->insns[1].addr, 0x1130);
	assert_int_equal(hot->insns[1].executions, 107);
	assert_int_equal(hot->insns[1].l1d_misses, 6);
	assert_int_equal(hot->insns[1].mispredicts, 2);
	assert_int_equal(hot->insns[2].addr, 0x1140);
	assert_string_equal(sum.functions[2].name, "cold");

	assert_int_equal(sum.nr_regions, 2);
	assert_string_equal(sum.regions[0].name, "phase one");
	assert_int_equal(sum.regions[0].entries, 4);
	assert_int_equal(sum.regions[0].counts.v[WS_SIM_INSTRUCTIONS], 1000);
	assert_string_equal(sum.regions[1].name, "other");

	/* The sources are untouched. */
	assert_int_equal(a.total.v[WS_SIM_INSTRUCTIONS], 1000);
	assert_int_equal(a.functions[0].nr_insns, 2);
	ws_sim_output_release(&a);
	ws_sim_output_release(&b);
	ws_sim_output_release(&sum);
}

static void test_add_different_models(void **state)
{
	struct ws_sim_output a, b, sum = WS_SIM_OUTPUT_INIT;
	char other[sizeof(second_cg) + 16];
	const char *at = strstr(second_cg, "8388608,16");

	(void)state;
	snprintf(other, sizeof(other), "%.*s4194304%s", (int)(at - second_cg), second_cg, at + strlen("8388608"));
	assert_int_equal(ws_sim_output_parse(&a, good_cg, strlen(good_cg), "a"), 0);
	assert_int_equal(ws_sim_output_parse(&b, other, strlen(other), "b"), 0);
	assert_int_equal(ws_sim_output_add(&sum, &a), 0);
	n_errors = 0;
	assert_int_equal(ws_sim_output_add(&sum, &b), -EINVAL);
	assert_int_equal(n_errors, 1);
	assert_non_null(strstr(last_error, "different models"));
	assert_int_equal(sum.processes, 1);
	assert_int_equal(sum.total.v[WS_SIM_INSTRUCTIONS], 1000);
	assert_int_equal(sum.nr_functions, 2);
	ws_sim_output_release(&a);
	ws_sim_output_release(&b);
	ws_sim_output_release(&sum);
}

/*
 * Call tracking (version 2): main calls f and g, f calls g. main's own code 100 instructions, f 200, g
 * called from main 50 and from f 30; a context past the limit in g, 5.
 */
static const char calls_v2[] =
	"wsim\t2\n"
	"config\tpreset\tcachegrind\n"
	"command\t/bin/prog\n"
	"counters\tinstructions\testimated-cycles\n"
	"total\t385\t385\n"
	"function\t0\tf\t???\t/bin/prog\t200\t200\n"
	"function\t1\tmain\t???\t/bin/prog\t100\t100\n"
	"function\t2\tg\t???\t/lib/libg.so\t85\t85\n"
	"stacks\t100000\t1\n"
	"node\t0\t-\t1\t100\t100\n"
	"node\t1\t0\t0\t200\t200\n"
	"node\t2\t1\t2\t30\t30\n"
	"node\t3\t0\t2\t50\t50\n"
	"node\t4\t-\t-\t0\t0\n"
	"node\t5\t4\t2\t5\t5\n"
	"end\n";

/* A second process: main calls g only, whose row comes first here. */
static const char calls_v2_b[] =
	"wsim\t2\n"
	"config\tpreset\tcachegrind\n"
	"command\t/bin/prog\n"
	"counters\tinstructions\testimated-cycles\n"
	"total\t1010\t1010\n"
	"function\t0\tg\t???\t/lib/libg.so\t1000\t1000\n"
	"function\t1\tmain\t???\t/bin/prog\t10\t10\n"
	"stacks\t100000\t0\n"
	"node\t0\t-\t1\t10\t10\n"
	"node\t1\t0\t0\t1000\t1000\n"
	"end\n";

static void test_calls(void **state)
{
	struct ws_sim_output a, b, sum = WS_SIM_OUTPUT_INIT;
	const struct ws_sim_node *n;
	char buf[1024];

	(void)state;
	assert_int_equal(ws_sim_output_parse(&a, calls_v2, strlen(calls_v2), "a"), 0);
	assert_true(a.has_stacks);
	assert_int_equal(a.stacks_dropped, 1);
	assert_int_equal(a.nr_nodes, 6);
	assert_int_equal(a.nodes[0].parent, -1);
	assert_int_equal(a.nodes[2].parent, 1);
	assert_int_equal(a.nodes[2].function, 2);
	assert_int_equal(a.nodes[4].function, -1);
	assert_int_equal(a.nodes[3].counts.v[WS_SIM_INSTRUCTIONS], 50);

	/* g's row moves to the front when the second process adds its 1000; the contexts follow it. */
	assert_int_equal(ws_sim_output_parse(&b, calls_v2_b, strlen(calls_v2_b), "b"), 0);
	assert_int_equal(ws_sim_output_add(&sum, &a), 0);
	assert_int_equal(ws_sim_output_add(&sum, &b), 0);
	assert_string_equal(sum.functions[0].name, "g");
	assert_int_equal(sum.nr_nodes, 6);
	assert_int_equal(sum.stacks_dropped, 1);
	n = &sum.nodes[3];
	assert_int_equal(n->parent, 0);
	assert_string_equal(sum.functions[n->function].name, "g");
	assert_int_equal(n->counts.v[WS_SIM_INSTRUCTIONS], 1050);
	assert_string_equal(sum.functions[sum.nodes[0].function].name, "main");
	assert_int_equal(sum.nodes[0].counts.v[WS_SIM_INSTRUCTIONS], 110);
	assert_string_equal(sum.functions[sum.nodes[2].function].name, "g");
	assert_int_equal(sum.nodes[2].parent, 1);
	ws_sim_output_release(&a);
	ws_sim_output_release(&b);
	ws_sim_output_release(&sum);

	/* Malformed contexts. */
	snprintf(buf, sizeof(buf), "%s", calls_v2);
	memcpy(strstr(buf, "node\t2\t1"), "node\t2\t5", 8);
	assert_int_equal(ws_sim_output_parse(&a, buf, strlen(buf), "c"), -EINVAL);
	assert_non_null(strstr(last_error, "c:12: node 2 has parent 5, which does not come before it"));
	snprintf(buf, sizeof(buf), "%s", calls_v2);
	memcpy(strstr(buf, "node\t3\t0\t2"), "node\t3\t0\t9", 10);
	assert_int_equal(ws_sim_output_parse(&a, buf, strlen(buf), "c"), -EINVAL);
	assert_non_null(strstr(last_error, "c:13: node 3 is in function 9, which has no row"));
	snprintf(buf, sizeof(buf), "%s", calls_v2);
	memcpy(strstr(buf, "stacks"), "stackz", 6);
	assert_int_equal(ws_sim_output_parse(&a, buf, strlen(buf), "c"), -EINVAL);
	assert_non_null(strstr(last_error, "unknown record 'stackz'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_parse_good, setup),
		cmocka_unit_test_setup(test_counter_names, setup),
		cmocka_unit_test_setup(test_malformed, setup),
		cmocka_unit_test_setup(test_empty_and_total_missing, setup),
		cmocka_unit_test_setup(test_read_file, setup),
		cmocka_unit_test_setup(test_add, setup),
		cmocka_unit_test_setup(test_add_different_models, setup),
		cmocka_unit_test_setup(test_calls, setup),
		cmocka_unit_test_setup(test_threads, setup),
		cmocka_unit_test_setup(test_verdicts, setup),
		cmocka_unit_test_setup(test_threads_malformed, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
