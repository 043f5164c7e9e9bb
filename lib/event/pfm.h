/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pfm.h - libpfm4, kept behind a small interface: its perf_event.h clashes with the kernel's. */
#ifndef WS_PFM_H
#define WS_PFM_H

#include <stdbool.h>
#include <stddef.h>

/* Initialise libpfm4 once (later calls are free). Returns 0, or -ENODEV when it cannot initialise. */
int ws_pfm_init(void);

/*
 * Encode a libpfm4 event string ("pmu::EVENT:UMASK:u=1", or "EVENT:UMASK" on the default PMU) into a
 * struct perf_event_attr, written into `attr` (kernel ABI, `attr_size` bytes, zeroed first). `user` and
 * `kernel` choose the privilege levels counted when the string does not say. *fqname, if given, receives the
 * fully qualified name (caller frees). Returns 0, -ENOENT for an unknown event, -EINVAL for a bad attribute.
 */
int ws_pfm_encode(const char *spec, bool user, bool kernel, void *attr, size_t attr_size, char **fqname);

/* Call `fn` for every event of every PMU present on this machine, as "pmu::EVENT". */
void ws_pfm_for_each(void (*fn)(const char *pmu, const char *event, const char *desc, void *data), void *data);

struct ws_pfm_pmu {
	char *name;      /* libpfm4's name of the core PMU, e.g. "amd64_fam19h_zen4", "icl"; NULL if none */
	char *desc;
	int counters;    /* generic counters (Intel: the architected PMU's, from CPUID) */
	int fixed;       /* fixed counters */
};

/*
 * The core PMU present here, if any: the model's own (on a hybrid CPU, the first core type's), else the
 * architected one (ix86arch). Returns 0, or -ENODEV. Caller frees the strings.
 */
int ws_pfm_core_pmu(struct ws_pfm_pmu *out);

#endif
