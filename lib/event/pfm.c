/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pfm.c - libpfm4 event encoding and enumeration for this CPU's PMUs. */
#include "event/pfm.h"
#include "core/util.h"

#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdlib.h>
#include <string.h>

static int pfm_state; /* 0 untried, 1 ready, -1 failed */

int ws_pfm_init(void)
{
	if (!pfm_state)
		pfm_state = pfm_initialize() == PFM_SUCCESS ? 1 : -1;
	return pfm_state > 0 ? 0 : -ENODEV;
}

int ws_pfm_encode(const char *spec, bool user, bool kernel, void *attr, size_t attr_size, char **fqname)
{
	struct perf_event_attr a;
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL;
	int plm = (user ? PFM_PLM3 : 0) | (kernel ? PFM_PLM0 : 0);
	int ret;

	if (ws_pfm_init() < 0)
		return -ENODEV;
	memset(&a, 0, sizeof(a));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &a;
	arg.size = sizeof(arg);
	arg.fstr = fqname ? &fstr : NULL;
	ret = pfm_get_os_event_encoding(spec, plm ? plm : PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS) {
		free(fstr);
		return ret == PFM_ERR_NOTFOUND ? -ENOENT : -EINVAL;
	}
	/* libpfm4 leaves size 0; the caller's struct (the kernel's own header) decides the size it sends. */
	memset(attr, 0, attr_size);
	memcpy(attr, &a, attr_size < sizeof(a) ? attr_size : sizeof(a));
	if (fqname)
		*fqname = fstr;
	return 0;
}

void ws_pfm_for_each(void (*fn)(const char *pmu, const char *event, const char *desc, void *data), void *data)
{
	if (ws_pfm_init() < 0)
		return;
	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pinfo;

		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info((pfm_pmu_t)p, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
			continue;
		for (int i = pinfo.first_event; i != -1; i = pfm_get_event_next(i)) {
			pfm_event_info_t einfo;

			memset(&einfo, 0, sizeof(einfo));
			einfo.size = sizeof(einfo);
			if (pfm_get_event_info(i, PFM_OS_PERF_EVENT_EXT, &einfo) != PFM_SUCCESS)
				continue;
			fn(pinfo.name, einfo.name, einfo.desc, data);
		}
	}
}

int ws_pfm_core_pmu(struct ws_pfm_pmu *out)
{
	memset(out, 0, sizeof(*out));
	if (ws_pfm_init() < 0)
		return -ENODEV;
	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pinfo;

		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info((pfm_pmu_t)p, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
			continue;
		/* The architecture's default PMU is the core one; "perf" and "perf_raw" are always present. */
		if (!pinfo.is_dfl || pinfo.type != PFM_PMU_TYPE_CORE)
			continue;
		out->name = xstrdup(pinfo.name);
		out->desc = xstrdup(pinfo.desc ? pinfo.desc : pinfo.name);
		out->counters = pinfo.num_cntrs;
		out->fixed = pinfo.num_fixed_cntrs;
		return 0;
	}
	return -ENODEV;
}
