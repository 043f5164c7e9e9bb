/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ws-markers.h - the protocol of the region markers: libwhyslow, whyslow and the wsim tool, one header. */
#ifndef WS_MARKERS_PROTOCOL_H
#define WS_MARKERS_PROTOCOL_H

/*
 * Three programs speak it and share nothing else: libwhyslow (marker/, linked into the measured program),
 * whyslow's engine (lib/regions/, which builds the environment and reads the files back) and the wsim tool
 * (sim/, which answers the client requests). Hence plain macros and an enum only: the tool is compiled
 * without a C library.
 */

/*
 * The protocol between whyslow and libwhyslow (marker/marker.c), version 1.
 *
 * whyslow tells the measured program what to do through its environment. libwhyslow reads it once, in a
 * constructor, before main(). Without WHYSLOW_MARKERS the library stays silent and does nothing.
 *
 *   WHYSLOW_MARKERS=perf|sim
 *	perf: count with perf_event_open in the program itself and write one file per process (below).
 *	sim:  issue client requests to the wsim Valgrind tool (sim/ws-requests.h), which counts; no files.
 *	      If the tool does not answer WS_REQ_PING with WS_REQ_MAGIC, the library says so and stays off.
 *   WHYSLOW_MARKERS_EVENTS=EVENT[,EVENT...]                       (perf only; 1 to WS_MARKERS_MAX_EVENTS)
 *	EVENT is TYPE:CONFIG:CONFIG1:CONFIG2:EXCLUDE:NAME, the perf_event_attr fields of one event:
 *	TYPE decimal; CONFIG, CONFIG1, CONFIG2 and EXCLUDE hexadecimal with 0x; EXCLUDE is a bit mask,
 *	1 exclude_user, 2 exclude_kernel, 4 exclude_hv; NAME (what the file calls the event) percent-encoded
 *	(below). The first event leads the group. Example: task-clock and page-faults, user and kernel:
 *	    1:0x1:0x0:0x0:0x0:task-clock,1:0x2:0x0:0x0:0x0:page-faults
 *   WHYSLOW_MARKERS_GROUPS=N[,N...]                                 (perf only; optional)
 *	The events form consecutive groups of these sizes, in order, each led by its first event; the sizes
 *	add up to the number of events. Without it all the events are one group. whyslow sizes the groups to
 *	the PMU's counters (x86 refuses a group that cannot fit, EINVAL) and gives Intel's top-down metric
 *	events a group that "slots" leads, as the kernel wants.
 *   WHYSLOW_MARKERS_OUT=PREFIX                                      (perf only)
 *	Each process writes PREFIX.PID when it exits; PREFIX.PID-N (N = 1, 2, ...) if that name is taken
 *	(the pid was reused within the run). PREFIX is DIR/regions (WS_MARKERS_FILE_BASE), DIR a fresh directory
 *	per run, so that the files of one run, a whole process tree, are exactly DIR/regions.*.
 *   WHYSLOW_MARKERS_FORCE=1                                         (sim only; benchmarks and tests)
 *	Issue the client requests even when the tool does not answer the ping: natively they cost a few
 *	instructions and do nothing, which is what bench/marker-overhead.sh measures.
 *
 * In perf mode each thread opens its own self-monitoring groups (pid 0, cpu -1, the events above, read_format
 * GROUP|ID|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING) at its first marker; the main thread opens its group in the
 * constructor, which also checks that the events open at all. Counts are read with rdpmc through each event's
 * mmapped page when every event of the group allows it (x86: cap_user_rdpmc, and cap_user_time, which the
 * kernel sets only when sched_clock is the stable TSC, so not in most VMs), and with read() of the group
 * otherwise: software events always, and any read where an event is multiplexed out. Both give the same
 * raw counts and times. Each region also records CLOCK_MONOTONIC time. Regions nest and count inclusively; a region
 * entered again while it is active in the same thread (recursion) is counted once, from its outermost begin
 * to its outermost end, and "entries" counts those outermost pairs. Threads accumulate privately and are
 * merged at thread exit and at process exit (exit() or a return from main; _exit(), exec and a fatal signal
 * lose the process's regions). A fork child starts with empty totals: regions active at the fork continue in
 * the child from the fork on, so they are counted (and entered) once in each process.
 *
 * The file, text, one record per line, fields separated by one space, numbers unsigned decimal:
 *
 *	whyslow-regions 1             magic and version: always the first line
 *	pid 4242                      the process
 *	threads 3                     threads that used a marker (or opened counters), exited or not
 *	failed 0                      of those, threads whose counters could not be opened or read
 *	error MESSAGE...              optional, at most once: the first failure, free text to the end of line
 *	events 2                      the number of events, then one line per event, in group order:
 *	event task-clock              NAME, percent-encoded
 *	event page-faults
 *	region NAME ENTRIES WALL_NS UNMATCHED V0 E0 R0 V1 E1 R1 ...
 *	end                           always the last line; a file without it is malformed
 *
 * One region line per region the process registered, in registration order, after the event lines. NAME is
 * percent-encoded. ENTRIES: completed outermost begin/end pairs. WALL_NS: their summed CLOCK_MONOTONIC
 * nanoseconds. UNMATCHED: ends without a begin plus regions still open when their thread or the process
 * ended (those are not counted otherwise). Then, per event, Vi the raw count (not scaled), Ei and Ri the
 * nanoseconds the event was enabled and running, all summed over the entries of every thread. When Ri < Ei
 * the event was multiplexed: scale Vi by Ei / Ri (ws_region_count_scaled()); Ri = 0 means not counted.
 *
 * Percent-encoding: every byte that is not a printable ASCII character (0x21 to 0x7e), and each of "%,:",
 * is written as % and two upper-case hexadecimal digits. Names are never empty.
 */

#define WS_MARKERS_ENV_MODE "WHYSLOW_MARKERS"
#define WS_MARKERS_ENV_EVENTS "WHYSLOW_MARKERS_EVENTS"
#define WS_MARKERS_ENV_OUT "WHYSLOW_MARKERS_OUT"
#define WS_MARKERS_ENV_FORCE "WHYSLOW_MARKERS_FORCE"
#define WS_MARKERS_ENV_GROUPS "WHYSLOW_MARKERS_GROUPS"
#define WS_MARKERS_FILE_BASE "regions"
#define WS_MARKERS_FILE_MAGIC "whyslow-regions"
#define WS_MARKERS_FILE_VERSION 1
#define WS_MARKERS_MAX_EVENTS 16
/* Exclusion bits of the EXCLUDE field. */
#define WS_MARKERS_EXCLUDE_USER 0x1u
#define WS_MARKERS_EXCLUDE_KERNEL 0x2u
#define WS_MARKERS_EXCLUDE_HV 0x4u

/* ---- Client requests: libwhyslow -> wsim ---- */

/*
 * Included by both sides: marker/ (compiled into the measured program, with <valgrind/valgrind.h>) and the
 * tool in sim/ (with Valgrind's pub_tool headers). Natively, and under any other Valgrind tool, a request
 * costs a few instructions and returns its default value, so the markers can always issue them.
 */

#define WS_REQ_BASE (((unsigned int)'W' << 24) | ((unsigned int)'S' << 16)) /* VG_USERREQ_TOOL_BASE('W','S') */

enum ws_request {
	/* Returns WS_REQ_MAGIC when the wsim tool is running this process, else the default (0). */
	WS_REQ_PING = WS_REQ_BASE,
	/* arg1: const char *name, NUL-terminated, read by the tool in place. Regions nest per thread. */
	WS_REQ_REGION_BEGIN,
	WS_REQ_REGION_END,
};

#define WS_REQ_MAGIC 0x77736d31 /* "wsm1" */

#endif
