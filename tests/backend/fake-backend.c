/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fake-backend.c - a backend for the tests only: fixed counts, to show that a backend is a file and a line. */
#include "backend/backend.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * It claims `instructions` and `branches` and, for each run, says that the program executed one million
 * instructions per word of its command line and a tenth as many branches. The program itself runs
 * natively and its output is ignored: what the test checks is that such counts reach the report, the
 * comparison, the explanation and every renderer without any code outside this file and the table knowing
 * this backend. Its runs may overlap (-j): each keeps its word count in a state of its own (be->run).
 */
struct fake_priv {
	bool *mine;
};

struct fake_run {
	size_t words;
};

static void *fake_run_new(struct ws_backend *be)
{
	(void)be;
	return xcalloc(1, sizeof(struct fake_run));
}

static void fake_run_free(struct ws_backend *be, void *run)
{
	(void)be;
	free(run);
}

static bool fake_could_count(const struct ws_event *ev)
{
	return !strcmp(ev->name, "instructions") || !strcmp(ev->name, "branches");
}

static int fake_setup(struct ws_backend *be, const struct ws_event_list *events, struct ws_claim *claims)
{
	struct fake_priv *p = xcalloc(1, sizeof(*p));

	be->priv = p;
	p->mine = xcalloc(events->n + 1, sizeof(*p->mine));
	for (size_t i = 0; i < events->n; i++)
		if (!claims[i].claimed && fake_could_count(&events->v[i]))
			claims[i].claimed = p->mine[i] = true;
	return 0;
}

static int fake_prepare(struct ws_backend *be, struct ws_exec *ex)
{
	struct fake_run *r = be->run;

	for (r->words = 0; ex->argv[r->words]; r->words++)
		;
	return 0;
}

static int fake_collect(struct ws_backend *be, const struct ws_run_outcome *o, struct ws_variant *v, size_t run)
{
	struct fake_run *r = be->run;
	double instructions = 1e6 * (double)r->words;

	(void)o;
	/* Marked simulated: not measured here, and deterministic, so compared exactly. */
	ws_push_at(&v->metrics, "instructions", WS_M_SIMULATED, run, instructions, -1, NAN);
	ws_push_at(&v->metrics, "branches", WS_M_SIMULATED, run, instructions / 10, -1, NAN);
	return 0;
}

static void fake_teardown(struct ws_backend *be)
{
	struct fake_priv *p = be->priv;

	if (p)
		free(p->mine);
	free(p);
}

const struct ws_backend_ops ws_backend_fake = {
	.name = "fake",
	.summary = "fixed counts, for the tests: a million instructions per word of the command",
	.traits = WS_BE_DETERMINISTIC,
	.running_where = " under the fake backend",
	.could_count = fake_could_count,
	.setup = fake_setup,
	.run_new = fake_run_new,
	.run_free = fake_run_free,
	.prepare = fake_prepare,
	.collect = fake_collect,
	.teardown = fake_teardown,
};
