/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plt.h - names of PLT stubs and GOT slots from an x86-64 ELF file's relocations, as objdump and perf give them. */
#ifndef WS_PLT_H
#define WS_PLT_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

/* A named address range of the file: a GOT slot ("memcpy@got") or a PLT stub ("memcpy@plt"). */
struct ws_elf_slot {
	uint64_t addr, size; /* link-time virtual address, bytes */
	char *name;          /* owned */
};

/*
 * Names a function address for an IRELATIVE slot (a static binary's ifunc: the slot is filled by calling a
 * resolver, so it is named after the resolver's symbol, e.g. "memcpy"); NULL when nothing names it.
 */
typedef const char *(*ws_elf_name_fn)(void *data, uint64_t addr);

/*
 * The GOT slots the dynamic relocations name (JUMP_SLOT, GLOB_DAT, 64-bit absolute, IRELATIVE through
 * `resolver`, which may be NULL), as "SYMBOL@got", sorted by address. Returns how many; *out is the caller's
 * (ws_elf_slots_free()).
 */
size_t ws_elf_got_slots(Elf *elf, ws_elf_name_fn resolver, void *data, struct ws_elf_slot **out);

/*
 * The PLT stubs, as "SYMBOL@plt": whatever the layout (.plt with lazy binding, .plt.sec with IBT, .plt.got),
 * a stub that can be called holds "jmp [rip + X]" through a named GOT slot (`got`, from ws_elf_got_slots());
 * the stub's start and size come from the section's entry size. Decoded with capstone. Returns how many,
 * sorted by address; *out is the caller's.
 */
size_t ws_elf_plt_stubs(Elf *elf, const struct ws_elf_slot *got, size_t ngot, struct ws_elf_slot **out);

void ws_elf_slots_free(struct ws_elf_slot *v, size_t n);

#endif
