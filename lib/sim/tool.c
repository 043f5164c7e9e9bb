/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tool.c - where the wsim tool is: its VALGRIND_LIB directory, and the programs installed beside it. */
#include "sim/tool.h"
#include "core/util.h"
#include "ws-config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

char *ws_sim_libdir(void)
{
	static const char *const dirs[] = { WS_BUILD_SIMDIR "/vglib", WS_LIBEXECDIR "/vglib" };
	const char *env = getenv("WHYSLOW_SIM_LIB");

	if (env && *env)
		return xstrdup(env);
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *tool = xasprintf("%s/wsim-amd64-linux", dirs[i]);
		bool ok = access(tool, X_OK) == 0;

		free(tool);
		if (ok)
			return xstrdup(dirs[i]);
	}
	return NULL;
}

char *ws_sim_helper(const char *name)
{
	static const char *const dirs[] = { WS_BUILD_SIMDIR, WS_LIBEXECDIR };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *path = xasprintf("%s/%s", dirs[i], name);

		if (access(path, X_OK) == 0)
			return path;
		free(path);
	}
	return NULL;
}
