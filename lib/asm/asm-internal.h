/* SPDX-License-Identifier: GPL-2.0-or-later */
/* asm-internal.h - what asm-elf.c shares with asm.c: the open binary's layout and its address names. */
#ifndef WS_ASM_INTERNAL_H
#define WS_ASM_INTERNAL_H

#include "asm/asm.h"
#include "symbols/symbols.h"

#include <capstone/capstone.h>
#include <libelf.h>

/* A section of the binary, kept for reading code and for naming addresses no symbol covers. */
struct asm_section {
	char *name;
	uint64_t addr, size, flags, entsize;
	uint32_t type;
	size_t index;
};

enum asm_name_kind {
	/* Lower sorts first among names at one address, and wins a lookup (see asm_lookup()). */
	ASM_NAME_PLT,
	ASM_NAME_GOT,
	ASM_NAME_FUNC,
	ASM_NAME_LOCAL_FUNC,
	ASM_NAME_OBJECT,
};

/* A named address range: a symbol, a PLT entry or a GOT slot. */
struct asm_name {
	uint64_t addr, size;
	enum asm_name_kind kind;
	char *name; /* owned */
};

struct ws_asm_bin {
	char *path, *real, *build_id;
	int fd;
	Elf *elf;
	unsigned elf_type;   /* ET_EXEC or ET_DYN */
	bool dynsym_only;
	bool no_names;       /* no symbol names a function: its functions are all "[unknown] ..." frames */
	csh cs;              /* capstone, x86-64, detail on */
	struct asm_section *secs;
	size_t nsecs;
	struct ws_asm_sym *syms; /* functions, sorted by address, then globals first, then name */
	size_t nsyms;
	struct asm_name *names;  /* sorted by address, then kind */
	size_t nnames;
	char *debug_path;        /* the separate debug file the symbols came from, or NULL */
	struct ws_symbols *symcache; /* lib/symbols, for DWARF and debug files; opened when first needed */
	struct ws_symobj *symobj;
};

/* The name covering `addr`, or NULL; *off gets addr - start. */
const struct asm_name *asm_lookup(const struct ws_asm_bin *bin, uint64_t addr, uint64_t *off);

/* The allocated section holding `addr`, or NULL. */
const struct asm_section *asm_section_at(const struct ws_asm_bin *bin, uint64_t addr);

/* A pointer to `len` bytes of file content at virtual address `addr`, or NULL when no section has them. */
const uint8_t *asm_bytes_at(const struct ws_asm_bin *bin, uint64_t addr, uint64_t len);

/* The GNU build-id of the ELF file at `path` as lowercase hex, or NULL (no file, no note); caller frees. */
char *asm_read_build_id(const char *path);

#endif
