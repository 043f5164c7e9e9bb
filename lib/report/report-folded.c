/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report-folded.c - call stacks in the folded format that flamegraph.pl, inferno and speedscope read. */
#include "report/report-internal.h"
#include "report/report.h"

#include <math.h>

bool ws_result_has_stacks(const struct ws_result *r)
{
	for (size_t i = 0; i < r->nvariants; i++)
		if (r->variants[i].nstacks)
			return true;
	return false;
}

/* A frame as the format can carry it: ';' separates frames and a newline ends the stack. */
static void frame(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' ? ':' : *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

void ws_report_folded(FILE *f, const struct ws_result *r)
{
	for (size_t i = 0; i < r->nvariants; i++) {
		const struct ws_variant *v = &r->variants[i];

		for (size_t j = 0; j < v->nstacks; j++) {
			const struct ws_stack *st = &v->stacks[j];

			if (!(st->count > 0) || !st->nframes)
				continue;
			/* Several programs in one file: each is a tower of its own under its name. */
			if (r->nvariants > 1) {
				frame(f, v->name);
				fputc(';', f);
			}
			for (size_t k = 0; k < st->nframes; k++) {
				if (k)
					fputc(';', f);
				frame(f, st->frames[k]);
			}
			fprintf(f, " %.0f\n", round(st->count));
		}
	}
}

int ws_export_folded(const struct ws_result *r, const char *path)
{
	return ws_report_export(r, path, ws_report_folded);
}
