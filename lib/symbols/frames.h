/* SPDX-License-Identifier: GPL-2.0-or-later */
/* frames.h - where functions without symbols start and end, from an ELF file's .eh_frame_hdr table. */
#ifndef WS_FRAMES_H
#define WS_FRAMES_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A frame description (FDE) of .eh_frame: the code of one function, or of its cold part, [start, end) in
 * link-time virtual addresses. Stripping keeps .eh_frame (C++ exceptions and backtraces need it) and its
 * sorted index .eh_frame_hdr, so a stripped object's code can still be told apart by function.
 */
struct ws_frame {
	uint64_t start, end;
};

/*
 * The frames of `elf`'s .eh_frame_hdr table (PT_GNU_EH_FRAME), ascending, in the one layout x86-64 linkers
 * write and the simulator reads too (sim/wsim-frames.c): version 1, a 4-byte count, entries of two 4-byte
 * offsets from the header. Each frame's end comes from its FDE when that FDE's address fields read back the
 * table's start (4-byte pc-relative, what GCC and Clang emit, or 8-byte absolute), else it is the next
 * frame's start. Returns how many (0: no table, or one in another layout); *out is the caller's to free.
 */
size_t ws_elf_frames(Elf *elf, struct ws_frame **out);

/* The frame of `v` (n of them, ascending) that holds `addr`, or NULL. */
const struct ws_frame *ws_frame_find(const struct ws_frame *v, size_t n, uint64_t addr);

#endif
