/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpu-features.c - the CPU features the simulated CPU hides from a program, and how to hide them natively. */
#include "sim/cpu-features.h"
#include "core/log.h"
#include "core/util.h"
#include "sim/tool.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define CACHE_MAGIC "wsim-cpuid 1"

/*
 * The names glibc's glibc.cpu.hwcaps tunable takes (sysdeps/x86 cpu-tunables, glibc 2.33 and later) for
 * the features the probe reports, by /proc/cpuinfo name. A feature not here cannot be masked: glibc's
 * choices do not depend on it, or it offers no switch for it.
 */
static const struct {
	const char *feature, *tunable;
} tunables[] = {
	{ "avx512f", "AVX512F" },   { "avx512vl", "AVX512VL" }, { "avx512bw", "AVX512BW" },
	{ "avx512dq", "AVX512DQ" }, { "avx512cd", "AVX512CD" }, { "avx2", "AVX2" },
	{ "avx", "AVX" },           { "fma", "FMA" },           { "fma4", "FMA4" },
	{ "bmi1", "BMI1" },         { "bmi2", "BMI2" },         { "erms", "ERMS" },
	{ "abm", "LZCNT" },         { "movbe", "MOVBE" },       { "popcnt", "POPCNT" },
	{ "sse4_1", "SSE4_1" },     { "sse4_2", "SSE4_2" },     { "ssse3", "SSSE3" },
	{ "rtm", "RTM" },           { "xsave", "XSAVE" },
};

static void list_free(char **l)
{
	for (size_t i = 0; l && l[i]; i++)
		free(l[i]);
	free(l);
}

static bool list_has(char *const *l, const char *s)
{
	for (size_t i = 0; l && l[i]; i++)
		if (!strcmp(l[i], s))
			return true;
	return false;
}

/* The words of `text` (one per line, or comma-separated) as a NULL-terminated list. */
static char **list_parse(const char *text)
{
	size_t n = 0, alloc = 0;
	char **l = NULL;

	while (*text) {
		size_t len = strcspn(text, ",\n");

		if (len) {
			WS_ALLOC_GROW(l, n + 2, alloc);
			l[n++] = xstrndup(text, len);
		}
		text += len + (text[len] != '\0');
	}
	if (!l)
		l = xcalloc(1, sizeof(*l));
	l[n] = NULL;
	return l;
}

/* Those of `a` that `b` lacks. */
static char **list_minus(char *const *a, char *const *b)
{
	size_t n = 0;
	char **l;

	while (a[n])
		n++;
	l = xcalloc(n + 1, sizeof(*l));
	n = 0;
	for (size_t i = 0; a[i]; i++)
		if (!list_has(b, a[i]))
			l[n++] = xstrdup(a[i]);
	return l;
}

/* Run argv with `env` added to the environment and return its standard output, or NULL (errno set). */
static char *capture(char *const *argv, char *const *env_add)
{
	size_t nenv = 0, nadd = 0, len = 0, alloc = 0;
	posix_spawn_file_actions_t fa;
	char **envp, *out = NULL, buf[4096];
	int fd[2], status, err;
	pid_t pid;
	ssize_t r;

	while (environ[nenv])
		nenv++;
	while (env_add && env_add[nadd])
		nadd++;
	envp = xcalloc(nenv + nadd + 1, sizeof(*envp));
	memcpy(envp, environ, nenv * sizeof(*envp));
	if (nadd)
		memcpy(envp + nenv, env_add, nadd * sizeof(*envp));
	if (pipe2(fd, O_CLOEXEC) < 0) {
		free(envp);
		return NULL;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	err = posix_spawn(&pid, argv[0], &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	free(envp);
	close(fd[1]);
	if (err) {
		close(fd[0]);
		errno = err;
		return NULL;
	}
	while ((r = read(fd[0], buf, sizeof(buf))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		WS_ALLOC_GROW(out, len + (size_t)r + 1, alloc);
		memcpy(out + len, buf, (size_t)r);
		len += (size_t)r;
	}
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		free(out);
		errno = EIO;
		return NULL;
	}
	if (!out)
		out = xstrdup("");
	else
		out[len] = '\0';
	return out;
}

/* FNV-1a of the tool's file: the cache's key, so that a rebuilt tool is probed again. */
static int tool_hash(const char *path, uint64_t *h)
{
	unsigned char buf[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	*h = 1469598103934665603ULL;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < r; i++)
			*h = (*h ^ buf[i]) * 1099511628211ULL;
	close(fd);
	return r < 0 ? -EIO : 0;
}

static char *cache_path(uint64_t key)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg == '/')
		return xasprintf("%s/whyslow/wsim-cpuid-%016llx", xdg, (unsigned long long)key);
	if (home && *home == '/')
		return xasprintf("%s/.cache/whyslow/wsim-cpuid-%016llx", home, (unsigned long long)key);
	return NULL;
}

/* The features under the tool: from the cache, or by running the probe under it once. */
static char **simulated(const char *probe)
{
	char *libdir = ws_sim_libdir(), *valgrind = ws_find_in_path("valgrind"), *tool = NULL, *path = NULL;
	char *text = NULL, **l = NULL;
	uint64_t key;

	if (!libdir || !valgrind) {
		ws_log(WS_LOG_INFO, "cannot tell which CPU features the simulator hides: %s",
		       !valgrind ? "valgrind is not installed" : "the wsim tool is not built or installed");
		goto out;
	}
	tool = xasprintf("%s/wsim-amd64-linux", libdir);
	if (tool_hash(tool, &key) == 0 && (path = cache_path(key)) && ws_read_file(path, &text, NULL) == 0 &&
	    !strncmp(text, CACHE_MAGIC "\n", strlen(CACHE_MAGIC) + 1)) {
		l = list_parse(text + strlen(CACHE_MAGIC) + 1);
		goto out;
	}
	free(text);
	{
		char *env0 = xasprintf("VALGRIND_LIB=%s", libdir);
		char *argv[] = { valgrind, (char *)"-q", (char *)"--tool=wsim", (char *)"--ws-out=/dev/null",
				 (char *)"--ws-async=no", (char *)probe, NULL };
		char *env[] = { env0, NULL };

		text = capture(argv, env);
		free(env0);
	}
	if (!text) {
		ws_log(WS_LOG_WARN, "the CPUID probe did not run under the simulator (%s): the CPU features it "
		       "hides are unknown", strerror(errno));
		goto out;
	}
	l = list_parse(text);
	if (path) {
		char *dir = xstrndup(path, (size_t)(strrchr(path, '/') - path));
		char *body = xasprintf(CACHE_MAGIC "\n%s", text);

		/* Best effort: without a cache the next session runs the probe again, that is all. */
		char *parent = xstrndup(dir, (size_t)(strrchr(dir, '/') - dir));

		mkdir(parent, 0755);
		mkdir(dir, 0755);
		free(parent);
		if (ws_write_atomic(path, body, strlen(body)) < 0)
			ws_log(WS_LOG_DEBUG, "could not cache the simulated CPU's features in %s", path);
		free(dir);
		free(body);
	}
out:
	free(text);
	free(path);
	free(tool);
	free(libdir);
	free(valgrind);
	return l;
}

int ws_cpu_features_probe(struct ws_cpu_features *f)
{
	const char *fake = getenv("WHYSLOW_TEST_HOST_CPU_FEATURES");
	char *probe = ws_sim_helper("wsim-cpuid");

	if (!probe) {
		ws_log(WS_LOG_INFO, "cannot tell which CPU features the simulator hides: wsim-cpuid is not built "
		       "or installed");
		return -ENOENT;
	}
	if (fake) {
		f->host = list_parse(fake);
	} else {
		char *argv[] = { probe, NULL }, *text = capture(argv, NULL);

		if (!text) {
			int err = -errno;

			ws_log(WS_LOG_WARN, "the CPUID probe %s did not run: %s", probe, strerror(errno));
			free(probe);
			return err;
		}
		f->host = list_parse(text);
		free(text);
	}
	f->sim = simulated(probe);
	free(probe);
	if (!f->sim)
		return -ENOENT;
	f->hidden = list_minus(f->host, f->sim);
	f->added = list_minus(f->sim, f->host);
	return 0;
}

void ws_cpu_features_release(struct ws_cpu_features *f)
{
	list_free(f->host);
	list_free(f->sim);
	list_free(f->hidden);
	list_free(f->added);
	memset(f, 0, sizeof(*f));
}

char *ws_cpu_features_join(char *const *list)
{
	size_t n = 0;
	char *s;

	while (list && list[n])
		n++;
	if (!n)
		return NULL;
	s = xstrdup(list[0]);
	for (size_t i = 1; i < n; i++) {
		char *next = xasprintf("%s%s%s", s, i + 1 < n ? ", " : " and ", list[i]);

		free(s);
		s = next;
	}
	return s;
}

char *ws_cpu_features_tunable(const struct ws_cpu_features *f, char **unreached)
{
	char *masks = NULL, **rest;
	size_t nrest = 0;

	for (size_t i = 0; f->hidden && f->hidden[i]; i++)
		nrest++;
	rest = xcalloc(nrest + 1, sizeof(*rest));
	nrest = 0;
	for (size_t i = 0; f->hidden && f->hidden[i]; i++) {
		const char *t = NULL;

		for (size_t k = 0; k < ARRAY_SIZE(tunables) && !t; k++)
			if (!strcmp(tunables[k].feature, f->hidden[i]))
				t = tunables[k].tunable;
		if (t) {
			char *next = xasprintf("%s%s-%s", masks ? masks : "glibc.cpu.hwcaps=", masks ? "," : "", t);

			free(masks);
			masks = next;
		} else {
			rest[nrest++] = f->hidden[i];
		}
	}
	if (unreached)
		*unreached = ws_cpu_features_join(rest);
	free(rest);
	return masks;
}
