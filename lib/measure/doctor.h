/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doctor.h - what this machine can measure and what will disturb a measurement, each with its fix. */
#ifndef WS_DOCTOR_H
#define WS_DOCTOR_H

#include <stddef.h>

enum ws_check_status {
	WS_CHECK_OK,
	WS_CHECK_INFO,  /* worth knowing, nothing to fix */
	WS_CHECK_WARN,  /* will disturb measurements or limit them; a fix is given */
	WS_CHECK_BAD,   /* a capability is missing */
};

struct ws_check {
	const char *name;    /* static: "pmu", "paranoid", "nmi-watchdog", ... */
	enum ws_check_status status;
	char *value;         /* what was found, short */
	char *detail;        /* one sentence: what it means for measurements */
	char *fix;           /* the exact command or setting, or NULL */
};

struct ws_checks {
	struct ws_check *v;
	size_t n, alloc;
};

/* Run every check. Reads /proc and /sys, opens probe counters, runs `valgrind --version`. */
void ws_doctor(struct ws_checks *out);
void ws_checks_release(struct ws_checks *c);
const char *ws_check_status_name(enum ws_check_status s);

#endif
