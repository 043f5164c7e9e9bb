/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backend.c - backends by name, and appending a run's value at its run index (groups: with the runs' fills). */
#include "backend/backend.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct ws_backend_ops *ws_backend_find(const char *name)
{
	for (const struct ws_backend_entry *e = ws_backend_table; e->ops; e++)
		if (!strcmp(e->ops->name, name))
			return e->ops;
	return NULL;
}

struct ws_backend *ws_backend_new(const struct ws_backend_ops *ops, const struct ws_backend_opts *opts)
{
	struct ws_backend *be = xcalloc(1, sizeof(*be));

	be->ops = ops;
	if (opts)
		be->opts = *opts;
	return be;
}

void ws_backend_free(struct ws_backend *be)
{
	if (!be)
		return;
	if (be->ops->teardown)
		be->ops->teardown(be);
	free(be);
}

/* Put `value` at run `run` of `m`, which has at least `run` samples already. */
static void put_at(struct ws_metric *m, size_t run, double value, double running)
{
	if (m->n == run)
		ws_metric_push(m, value, running);
	else
		m->samples[run] = value; /* the run already has a value: the later one replaces it */
}

void ws_push_at(struct ws_metric_set *set, const char *name, unsigned flags, size_t run, double value,
		double running, double fill)
{
	struct ws_metric *m = ws_metric_set_get(set, name, flags);

	m->flags |= flags;
	while (m->n < run)
		ws_metric_push(m, fill, -1);
	put_at(m, run, value, running);
}

static struct ws_run_fills *fills_find(const struct ws_group_fills *f, const struct ws_group_list *l,
				       const char *metric)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].list == l && (metric ? f->v[i].metric && !strcmp(f->v[i].metric, metric) : !f->v[i].metric))
			return &f->v[i];
	return NULL;
}

/* The record metric `name` of list `l` takes its fills from: its own, else the list's; NULL if neither. */
static const struct ws_run_fills *fills_for(const struct ws_group_fills *f, const struct ws_group_list *l,
					    const char *name)
{
	const struct ws_run_fills *rf = fills_find(f, l, name);

	return rf ? rf : fills_find(f, l, NULL);
}

static double fill_at(const struct ws_run_fills *rf, size_t run)
{
	return rf && run < rf->n ? rf->fill[run] : NAN;
}

void ws_group_push(struct ws_group_fills *f, const struct ws_group_list *l, struct ws_group *g, const char *name,
		   unsigned flags, size_t run, double value, double running)
{
	const struct ws_run_fills *rf = fills_for(f, l, name);
	struct ws_metric *m = ws_metric_set_get(&g->metrics, name, flags);

	m->flags |= flags;
	while (m->n < run)
		ws_metric_push(m, fill_at(rf, m->n), -1);
	put_at(m, run, value, running);
}

void ws_group_list_pad(struct ws_group_fills *f, struct ws_group_list *l, const char *metric, size_t run,
		       double fill)
{
	struct ws_run_fills *rf = fills_find(f, l, metric);

	if (!rf) {
		WS_ALLOC_GROW(f->v, f->n + 1, f->alloc);
		rf = &f->v[f->n++];
		memset(rf, 0, sizeof(*rf));
		rf->list = l;
		rf->metric = metric ? xstrdup(metric) : NULL;
	}
	/* Runs between the last recorded one and this one failed before their data was read: not counted. */
	WS_ALLOC_GROW(rf->fill, run + 1, rf->alloc);
	while (rf->n < run)
		rf->fill[rf->n++] = NAN;
	rf->fill[run] = fill;
	if (rf->n == run)
		rf->n++;
	for (size_t i = 0; i < l->n; i++) {
		struct ws_metric_set *set = &l->v[i].metrics;

		for (size_t k = 0; k < set->n; k++) {
			struct ws_metric *m = &set->v[k];

			if (metric ? strcmp(m->name, metric) : fills_find(f, l, m->name) != NULL)
				continue;
			while (m->n <= run)
				ws_metric_push(m, fill_at(rf, m->n), -1);
		}
	}
}

void ws_group_fills_release(struct ws_group_fills *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].metric);
		free(f->v[i].fill);
	}
	free(f->v);
	memset(f, 0, sizeof(*f));
}
