/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profwork.h - the one function of libprofwork.so. */
#ifndef PROFWORK_H
#define PROFWORK_H

#include <stdint.h>

/* Burn `seconds` of the calling thread's CPU time in this library's own code; returns a value to sink. */
uint64_t profwork_lib_spin(double seconds);

#endif
