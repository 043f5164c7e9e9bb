/* SPDX-License-Identifier: GPL-2.0-or-later */
/* own.h - which code is the program's own (its executable and its build tree's libraries), and which is not. */
#ifndef WS_OWN_H
#define WS_OWN_H

#include "result/result.h"

#include <stdbool.h>

/*
 * The explanation follows a library function's callers up to the program's own code, and the function
 * table names a library function's caller: both ask this. By default the program's own code is its main
 * executable and the libraries under the same build tree: the nearest directory above the executable that
 * holds a build system's or a repository's marker (build.ninja, CMakeCache.txt, Makefile, meson-private,
 * Cargo.toml, .git), else the executable's own directory. Patterns (--own) replace that rule: an object is
 * the program's when its path or its file name matches one of them (fnmatch, so `*` crosses `/` only in the
 * path form).
 */
struct ws_own;

/*
 * For variant `v`: `binary` is its executable where known (may be NULL: then the object of its function
 * `main`, if any), `patterns` a NULL-terminated list or NULL.
 */
struct ws_own *ws_own_new(const struct ws_variant *v, const char *binary, char *const *patterns);
void ws_own_free(struct ws_own *o);

/* Whether code in `object` (a path; "???" or NULL for unknown) is the program's own. */
bool ws_own_object(struct ws_own *o, const char *object);

#endif
