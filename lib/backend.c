/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backend.c - backends by name, and appending a run's value at its run index. */
#include "backend.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct ws_backend_ops *const backends[] = {
	&ws_backend_perf,
	&ws_backend_sim,
};

struct ws_backend *ws_backend_new(const char *name, const struct ws_backend_opts *opts)
{
	for (size_t i = 0; i < ARRAY_SIZE(backends); i++) {
		if (!strcmp(backends[i]->name, name)) {
			struct ws_backend *be = xcalloc(1, sizeof(*be));

			be->ops = backends[i];
			if (opts)
				be->opts = *opts;
			return be;
		}
	}
	return NULL;
}

void ws_backend_free(struct ws_backend *be)
{
	if (!be)
		return;
	if (be->ops->teardown)
		be->ops->teardown(be);
	free(be);
}

void ws_push_at(struct ws_metric_set *set, const char *name, unsigned flags, size_t run, double value,
		double running, double fill)
{
	struct ws_metric *m = ws_metric_set_get(set, name, flags);

	m->flags |= flags;
	while (m->n < run)
		ws_metric_push(m, fill, -1);
	if (m->n == run)
		ws_metric_push(m, value, running);
	else
		m->samples[run] = value; /* the run already has a value: the later one replaces it */
}
