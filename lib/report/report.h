/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.h - renderers: the result model to the terminal, Markdown, CSV and HTML. They read only the model. */
#ifndef WS_REPORT_H
#define WS_REPORT_H

#include "result/result.h"

#include <stdbool.h>
#include <stdio.h>

struct ws_report_opts {
	bool color;       /* ANSI colour (the caller decides: a TTY and no NO_COLOR) */
	bool regions;     /* per-region tables */
	bool functions;   /* per-function tables */
	bool callers;     /* and under each function of stat's, its share with callees and its callers */
	bool all_metrics; /* also show unsupported metrics' reasons in full */
	size_t top;       /* rows of per-function tables (0: 10) */
	bool full_names;  /* function and program names in full (-v); else elided and the width capped */
	char *const *own; /* --own patterns (NULL-terminated) for "grew in", or NULL: explain/own.h's rule */
};

/*
 * The function names of one terminal table, or of one list of names, as its rows show them: each as
 * ws_sym_display() (lib/symbols/names.h) shortens it, but no two that differ alike (ws_sym_display_apart():
 * the part that tells them apart kept); in full with o->full_names. Add every name the table shows before
 * the first is shown: a name asked for that was not added joins, and may change how the others read.
 */
struct ws_report_names;
struct ws_report_names *ws_report_names_new(const struct ws_report_opts *o);
void ws_report_names_add(struct ws_report_names *t, const char *name);

/* `name` as `t` shows it, padded with spaces to `pad` columns (0: no padding). A new string. */
char *ws_report_names_get(struct ws_report_names *t, const char *name, size_t pad);

/*
 * The width of a table's name column that holds `name` as `t` shows it: `at_least`, or the name's width
 * where wider, up to WS_SYM_DISPLAY_WIDTH for -v's full names (a column that wide would push every row);
 * a shortened name is past it only where widened to tell it from a look-alike, and the column holds it.
 * Fold over the rows: w = ws_report_names_column(t, name, w).
 */
size_t ws_report_names_column(struct ws_report_names *t, const char *name, size_t at_least);
void ws_report_names_free(struct ws_report_names *t);

/*
 * Programs' names wider than this are cut in the middle in the terminal's tables: a command of 300
 * characters made its column, and so every row, 300 wide. The exports keep them whole.
 */
#define WS_REPORT_NAME_WIDTH 40

/*
 * The width to cut `r`'s programs' names to (ws_text_elide_middle()) in a terminal table's header:
 * WS_REPORT_NAME_WIDTH, or wider where that would show two programs alike (commands that differ in the
 * middle); 0 (in full) with o->full_names, or where only their full names tell them apart.
 */
size_t ws_report_name_width(const struct ws_report_opts *o, const struct ws_result *r);

/*
 * A sentence of the explanation for the terminal: the long function names of `r` in it (and a clone's
 * function's name without its clone notes, which a move is said of) shortened as ws_sym_display_apart()
 * shortens them, unless o->full_names, each told apart from every function of `r` that would read like it
 * (so a table, which tells its rows apart only from each other, may show a name the sentence widens); an
 * asm-diff command in it is left whole, so that it runs when pasted. A new string.
 * ws_report_sentence_names() holds `r`'s names, shortened once, for all of a report's sentences
 * (ws_report_names_sentence()); ws_report_shorten_names() is both for one sentence.
 */
struct ws_report_names *ws_report_sentence_names(const struct ws_report_opts *o, const struct ws_result *r);
char *ws_report_names_sentence(struct ws_report_names *t, const char *text);
char *ws_report_shorten_names(const struct ws_report_opts *o, const struct ws_result *r, const char *text);

/*
 * A value in its unit for people: seconds as s/ms/us/ns, bytes as KiB/MiB/GiB, counts with thousands
 * separators, ratios with 3 decimals. `buf` of `n` bytes; returns buf. NAN prints as "-".
 */
char *ws_format_value(char *buf, size_t n, const char *metric, double v);

/* `whyslow stat`'s table: one section per variant (usually one). */
void ws_report_stat(FILE *f, const struct ws_result *r, const struct ws_report_opts *o);

/* `compare`/`diff`: one row per metric, one column per program; then warnings and the explanation. */
void ws_report_compare(FILE *f, const struct ws_result *r, const struct ws_report_opts *o);

/* Exports of the comparison. Return 0 or -errno (they write atomically through a buffer). */
int ws_export_csv(const struct ws_result *r, const char *path);
int ws_export_markdown(const struct ws_result *r, const char *path);
int ws_export_html(const struct ws_result *r, const char *path);
void ws_report_markdown(FILE *f, const struct ws_result *r);
void ws_report_csv(FILE *f, const struct ws_result *r);
/*
 * One self-contained HTML page (inline SVG and CSS; no script, nothing fetched): the verdicts and their
 * explanation, a forest plot of the significant comparisons, every run per metric, functions and regions,
 * and how it was measured. Draws what the result holds: a stat result, or one without samples, too.
 */
void ws_report_html(FILE *f, const struct ws_result *r);

/*
 * The call stacks (variants[].stacks) in the folded format: one stack per line, its frames from the
 * outermost joined by ';', a space, then its count (in the variant's stacks_metric). With more than one
 * variant, each stack starts with a frame named after its variant. ';' in a name becomes ':'.
 */
bool ws_result_has_stacks(const struct ws_result *r);
void ws_report_folded(FILE *f, const struct ws_result *r);
int ws_export_folded(const struct ws_result *r, const char *path);

#endif
