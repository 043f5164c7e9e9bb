/* SPDX-License-Identifier: GPL-2.0-or-later */
/* proc.h - a process's identity over time (pid and start time), and temporary folders named for their owner. */
#ifndef WS_PROC_H
#define WS_PROC_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * When `pid` started, in clock ticks after boot (field 22 of /proc/PID/stat), or 0 when there is no such
 * process (or no /proc). A pid alone names a different process once it is reused; a pid and its start time
 * name one process for the life of the machine.
 */
unsigned long long ws_proc_start_time(pid_t pid);

/* Whether the process `pid` that started at `start` is still running (a zombie counts as gone). */
bool ws_proc_alive(pid_t pid, unsigned long long start);

/*
 * Create a fresh directory $TMPDIR/whyslow-WHAT.PID.START.XXXXXX (or under /tmp), named for this process,
 * so that a later whyslow can tell that its owner died without removing it (SIGKILL) and remove it.
 * Returns the path (the caller frees it) or NULL with errno set.
 */
char *ws_tmpdir_make(const char *what);

/*
 * Remove the directories of ws_tmpdir_make() in $TMPDIR (or /tmp) whose owner is gone, with all they
 * hold: only this user's, and only names of that exact form; and the files Valgrind leaves there when it is
 * killed as it starts a program (valgrind_proc_PID_cmdline_XXXXXXXX, ..._auxv_...) of processes that are
 * gone. Returns how many were removed.
 */
int ws_tmpdir_clean_stale(void);

#endif
