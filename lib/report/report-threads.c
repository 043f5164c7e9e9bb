/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report-threads.c - the simulator's threads in the terminal reports: per-core counts and the contended lines. */
#include "report/report-internal.h"

#include <math.h>
#include <stdlib.h>

/* "bytes 0-7" of a range, or NULL-ish "" when the thread made no such access. */
static void range(FILE *f, const char *what, int lo, int hi, bool *any)
{
	char *s;

	if (lo == WS_NO_SPAN)
		return;
	s = ws_span_text(lo, hi);
	fprintf(f, "%s%s %s", *any ? ", " : "", what, s);
	free(s);
	*any = true;
}

/*
 * How many times the program was simulated: its simulated metrics' samples. Not v->nruns, which with
 * --backend auto counts the native runs (10 of them, say, beside the 3 simulated ones).
 */
static size_t simulated_runs(const struct ws_variant *v)
{
	size_t n = 0;

	for (size_t i = 0; i < v->metrics.n; i++) {
		const struct ws_metric *m = &v->metrics.v[i];

		if ((m->flags & WS_M_SIMULATED) && !(m->flags & WS_M_UNSUPPORTED) && m->n > n)
			n = m->n;
	}
	return n ? n : v->nruns;
}

void ws_report_threads(FILE *f, const struct ws_variant *v, const char *label, const struct ws_report_opts *o,
		       int indent)
{
	const char *b = o->color ? C_BOLD : "", *d = o->color ? C_DIM : "", *z = o->color ? C_RESET : "";
	/*
	 * Both blocks are the first simulated run's (backend-sim.c keeps no other), while the table above shows
	 * medians: a threaded program's coherence misses vary from run to run, so the two would seem to disagree.
	 */
	char which[48] = "";
	size_t runs = simulated_runs(v);

	if (runs > 1)
		snprintf(which, sizeof(which), ", first of %zu runs", runs);
	if (v->ncores > 1) {
		fprintf(f, "\n%*s%scores%s%s%s (simulated%s, one thread each, round-robin beyond the count)\n", indent, "",
			b, label ? " of " : "", label ? label : "", z, which);
		for (size_t i = 0; i < v->ncores; i++) {
			const struct ws_core_counts *c = &v->cores[i];

			fprintf(f, "%*s  core %-3d %u thread%s  %15.0f instructions  %15.0f estimated-cycles", indent, "",
				c->core, c->threads, c->threads == 1 ? " " : "s", c->instructions, c->estimated_cycles);
			if (!isnan(c->coherence_misses))
				fprintf(f, "  %12.0f coherence-misses", c->coherence_misses);
			fputc('\n', f);
		}
		fprintf(f, "%*s  %sa coherence miss is charged to the thread whose access finds it, which may be the "
			"second of the two%s\n", indent, "", d, z);
	}
	if (!v->ncontention)
		return;
	fprintf(f, "\n%*s%scontention%s%s%s (simulated%s: lines with coherence misses, hottest first)\n", indent, "",
		b, label ? " in " : "", label ? label : "", z, which);
	for (size_t i = 0; i < v->ncontention; i++) {
		const struct ws_contention *c = &v->contention[i];
		struct ws_report_names *names;

		static const char *const verdicts[] = {
			[WS_SHARING_FALSE] = "false sharing",
			[WS_SHARING_TRUE] = "true sharing",
			[WS_SHARING_ONE_WRITER] = "one writer and its readers",
			[WS_SHARING_UNKNOWN] = "contention",
		};

		fprintf(f, "%*s  %s on %s%s%s (line %s): %.0f coherence miss%s", indent, "",
			verdicts[c->verdict <= WS_SHARING_UNKNOWN ? c->verdict : WS_SHARING_UNKNOWN], b,
			c->variable ? c->variable : c->address, z,
			c->address, c->coherence_misses, c->coherence_misses == 1 ? "" : "es");
		/*
		 * As the function tables show them: a C++ thread's body is a screenful spelt out, and two threads'
		 * bodies read alike where only their lambdas' numbers differ.
		 */
		names = ws_report_names_new(o);
		for (size_t k = 0; k < c->nfunctions; k++)
			ws_report_names_add(names, c->functions[k]);
		for (size_t k = 0; k < c->nfunctions; k++) {
			char *name = ws_report_names_get(names, c->functions[k], 0);

			fprintf(f, "%s%s", k ? ", " : ", in ", name);
			free(name);
		}
		ws_report_names_free(names);
		fputc('\n', f);
		bool before = false;

		for (size_t k = 0; k < c->nthreads; k++) {
			const struct ws_contention_thread *t = &c->threads[k];
			bool any = false;

			before |= (t->read_lo != WS_NO_SPAN && t->read_lo < 0) || (t->write_lo != WS_NO_SPAN && t->write_lo < 0);

			fprintf(f, "%*s    thread %u (core %d): ", indent, "", t->thread, t->core);
			range(f, "writes", t->write_lo, t->write_hi, &any);
			range(f, "reads", t->read_lo, t->read_hi, &any);
			fprintf(f, "%s; %.0f coherence miss%s\n", c->from_variable ? " of it" : " of the line",
				t->coherence_misses, t->coherence_misses == 1 ? "" : "es");
		}
		if (before)
			fprintf(f, "%*s    %sbytes below 0 are this line's bytes before %s (another variable's)%s\n",
				indent, "", d, c->variable ? c->variable : c->address, z);
		if (c->verdict == WS_SHARING_FALSE)
			fprintf(f, "%*s    %sthe threads use different bytes of one line: pad or align them onto lines of "
				"their own%s\n", indent, "", d, z);
		else if (c->verdict == WS_SHARING_ONE_WRITER)
			fprintf(f, "%*s    %sone thread writes bytes the others only read: the data itself is shared "
				"(padding does not help)%s\n", indent, "", d, z);
		else if (c->verdict == WS_SHARING_UNKNOWN)
			fprintf(f, "%*s    %sno verdict: more threads or cores used the line than the simulator keeps "
				"apart, so which bytes each wrote is not known%s\n", indent, "", d, z);
	}
}
