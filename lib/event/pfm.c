/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pfm.c - libpfm4 event encoding and enumeration for this CPU's PMUs. */
#include "event/pfm.h"
#include "core/log.h"
#include "core/util.h"

#include <dlfcn.h>
#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdlib.h>
#include <string.h>

/*
 * libpfm4 is loaded here, the first time an event needs it, not linked: the dynamic loader relocated its
 * 41,000 pointers at every start-up of whyslow (its event tables), a copy-on-write fault for each of their
 * pages, though most sessions count generic or software events only.
 */
_Static_assert(PFM_MAJ_VERSION(LIBPFM_VERSION) == 4, "the soname below is libpfm4's");
#define PFM_SONAME "libpfm.so.4"

static struct {
	__typeof__(&pfm_initialize) initialize;
	__typeof__(&pfm_get_os_event_encoding) get_os_event_encoding;
	__typeof__(&pfm_get_pmu_info) get_pmu_info;
	__typeof__(&pfm_get_event_next) get_event_next;
	__typeof__(&pfm_get_event_info) get_event_info;
} pfm;
static int pfm_state; /* 0 untried, 1 ready, -1 failed */

static bool pfm_load(void)
{
	void *h = dlopen(PFM_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		ws_log(WS_LOG_WARN, "cannot load libpfm4, so its event names are unknown: %s", dlerror());
		return false;
	}
	/* POSIX's way to take a function from dlsym: its address is written into the pointer's bytes. */
	*(void **)&pfm.initialize = dlsym(h, "pfm_initialize");
	*(void **)&pfm.get_os_event_encoding = dlsym(h, "pfm_get_os_event_encoding");
	*(void **)&pfm.get_pmu_info = dlsym(h, "pfm_get_pmu_info");
	*(void **)&pfm.get_event_next = dlsym(h, "pfm_get_event_next");
	*(void **)&pfm.get_event_info = dlsym(h, "pfm_get_event_info");
	if (pfm.initialize && pfm.get_os_event_encoding && pfm.get_pmu_info && pfm.get_event_next &&
	    pfm.get_event_info)
		return true;
	ws_log(WS_LOG_WARN, "cannot load libpfm4, so its event names are unknown: %s lacks a function", PFM_SONAME);
	return false;
}

int ws_pfm_init(void)
{
	if (!pfm_state)
		pfm_state = pfm_load() && pfm.initialize() == PFM_SUCCESS ? 1 : -1;
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
	ret = pfm.get_os_event_encoding(spec, plm ? plm : PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
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
		if (pfm.get_pmu_info((pfm_pmu_t)p, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
			continue;
		for (int i = pinfo.first_event; i != -1; i = pfm.get_event_next(i)) {
			pfm_event_info_t einfo;

			memset(&einfo, 0, sizeof(einfo));
			einfo.size = sizeof(einfo);
			if (pfm.get_event_info(i, PFM_OS_PERF_EVENT_EXT, &einfo) != PFM_SUCCESS)
				continue;
			fn(pinfo.name, einfo.name, einfo.desc, data);
		}
	}
}

/*
 * The core PMU: the present PMU of type PFM_PMU_TYPE_CORE that is not the architecture's default ("perf"
 * and "perf_raw" are always present, but of another type). libpfm4 marks as default (is_dfl) only the
 * architected PMUs (x86's ix86arch, Intel's only), so requiring it found no PMU on AMD, Zen 4's included.
 * On Intel the default one is present beside the model's, and its counter count is the one to trust: it
 * comes from CPUID leaf 0xA, per logical CPU (4 on Skylake with Hyper-Threading on, 8 with it off), where
 * the model's table holds one number whatever the core shares (libpfm 4.13: 8 for skl).
 */
int ws_pfm_core_pmu(struct ws_pfm_pmu *out)
{
	pfm_pmu_info_t best, dfl;
	bool have_best = false, have_dfl = false;

	memset(out, 0, sizeof(*out));
	memset(&best, 0, sizeof(best));
	memset(&dfl, 0, sizeof(dfl));
	if (ws_pfm_init() < 0)
		return -ENODEV;
	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t pinfo;

		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm.get_pmu_info((pfm_pmu_t)p, &pinfo) != PFM_SUCCESS || !pinfo.is_present ||
		    pinfo.type != PFM_PMU_TYPE_CORE)
			continue;
		if (pinfo.is_dfl && !have_dfl) {
			dfl = pinfo;
			have_dfl = true;
		} else if (!pinfo.is_dfl && !have_best) {
			best = pinfo; /* a hybrid CPU has two, one per core type: the first will do */
			have_best = true;
		}
	}
	if (!have_best && !have_dfl)
		return -ENODEV;
	if (!have_best)
		best = dfl;
	out->name = xstrdup(best.name);
	out->desc = xstrdup(best.desc ? best.desc : best.name);
	out->counters = have_dfl && dfl.num_cntrs > 0 ? dfl.num_cntrs : best.num_cntrs;
	out->fixed = have_dfl && dfl.num_cntrs > 0 ? dfl.num_fixed_cntrs : best.num_fixed_cntrs;
	return 0;
}
