/* SPDX-License-Identifier: GPL-2.0-or-later */
/* own.c - which code is the program's own: the executable and its build tree's libraries, or --own patterns. */
#include "explain/own.h"
#include "core/util.h"

#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ws_own {
	char *const *patterns;
	char *exe;  /* resolved path of the executable, or NULL */
	char *root; /* its build tree, with a trailing '/', or NULL */
	/* Objects already judged: a result names a few objects many times, and each costs a realpath(). */
	char **seen;
	bool *seen_own;
	size_t nseen, alloc_seen, alloc_own;
};

static const char *const markers[] = { "build.ninja", "CMakeCache.txt", "Makefile", "meson-private", "Cargo.toml",
				       ".git" };

/* The nearest directory above `exe` holding a marker, else exe's directory; with a trailing '/'. */
static char *build_root(const char *exe)
{
	char *dir = xstrdup(exe), *slash = strrchr(dir, '/'), *found = NULL;

	if (!slash) {
		free(dir);
		return NULL;
	}
	*slash = '\0';
	for (char *d = xstrdup(dir); !found;) {
		char *up;

		for (size_t i = 0; i < ARRAY_SIZE(markers) && !found; i++) {
			char *p = xasprintf("%s/%s", d, markers[i]);

			if (access(p, F_OK) == 0)
				found = xasprintf("%s/", d);
			free(p);
		}
		up = strrchr(d, '/');
		if (found || !up || up == d) {
			free(d);
			break;
		}
		*up = '\0';
	}
	if (!found)
		found = xasprintf("%s/", dir);
	free(dir);
	return found;
}

static const char *main_object(const struct ws_variant *v)
{
	const struct ws_group *m = v ? ws_group_list_find(&v->functions, "main") : NULL;

	return m && m->object && strcmp(m->object, "???") ? m->object : NULL;
}

struct ws_own *ws_own_new(const struct ws_variant *v, const char *binary, char *const *patterns)
{
	struct ws_own *o = xcalloc(1, sizeof(*o));
	const char *exe = binary ? binary : main_object(v);

	o->patterns = patterns && patterns[0] ? patterns : NULL;
	if (exe) {
		char *real = realpath(exe, NULL);

		o->exe = real ? real : xstrdup(exe);
		o->root = build_root(o->exe);
	}
	return o;
}

void ws_own_free(struct ws_own *o)
{
	if (!o)
		return;
	free(o->exe);
	free(o->root);
	for (size_t i = 0; i < o->nseen; i++)
		free(o->seen[i]);
	free(o->seen);
	free(o->seen_own);
	free(o);
}

bool ws_own_object(struct ws_own *o, const char *object)
{
	const char *base;
	char *real;
	bool own;

	if (!o || !object || !strcmp(object, "???"))
		return false;
	for (size_t i = 0; i < o->nseen; i++)
		if (!strcmp(o->seen[i], object))
			return o->seen_own[i];
	base = strrchr(object, '/') ? strrchr(object, '/') + 1 : object;
	if (o->patterns) {
		for (char *const *p = o->patterns; *p; p++)
			if (!fnmatch(*p, object, 0) || !fnmatch(*p, base, 0))
				return true;
		return false;
	}
	if (!o->exe)
		return false;
	real = realpath(object, NULL);
	own = !strcmp(real ? real : object, o->exe) ||
	      (o->root && !strncmp(real ? real : object, o->root, strlen(o->root)));
	free(real);
	WS_ALLOC_GROW(o->seen, o->nseen + 1, o->alloc_seen);
	WS_ALLOC_GROW(o->seen_own, o->nseen + 1, o->alloc_own);
	o->seen[o->nseen] = xstrdup(object);
	o->seen_own[o->nseen++] = own;
	return own;
}
