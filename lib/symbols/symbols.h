/* SPDX-License-Identifier: GPL-2.0-or-later */
/* symbols.h - function names and source lines for addresses in ELF objects, through elfutils' libdwfl. */
#ifndef WS_SYMBOLS_H
#define WS_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A cache of ELF objects, keyed by path. Each object is opened once with libdwfl (offline, at its own link-time
 * addresses), its symbol table read on first use (.symtab, else the .symtab of the debug file found through
 * .gnu_debuglink or the build-id under /usr/lib/debug, else .dynsym), its DWARF line table on the first line
 * lookup. Addresses are ELF virtual addresses of the object as linked ("link addresses", what `nm` prints), so
 * the same cache serves every process and every run that maps the object, wherever it was loaded.
 *
 * A cache is not thread safe: one thread at a time. Pass one cache to successive profiles (ws_profile_opts)
 * so that each object is read once per whyslow invocation, not once per run. An object whose file changed on
 * disk (size, mtime, inode) is read again; the old copy stays alive until the cache is freed, so pointers
 * handed out earlier stay valid.
 */
struct ws_symbols;
/* One object in a cache; owned by the cache. */
struct ws_symobj;

/* A new, empty cache. Never fails (allocation aborts). Free it with ws_symbols_free(). */
struct ws_symbols *ws_symbols_new(void);

/* Free the cache, every object in it and every string it handed out. NULL is a no-op. */
void ws_symbols_free(struct ws_symbols *s);

/*
 * Find `path` in the cache, or open it. Returns 0 and the object in *out (owned by the cache), or -errno with
 * *out NULL: -ENOENT/-EACCES when the file cannot be opened, -ENOEXEC when it is not an ELF object libdwfl
 * accepts. A failure is remembered, so a missing file costs one open per cache, not one per address; it is
 * logged once at debug level.
 */
int ws_symbols_get(struct ws_symbols *s, const char *path, struct ws_symobj **out);

/*
 * The file offset of `ip` inside a mapping that starts at address `map_start` and maps the file from offset
 * `map_pgoff`, as an MMAP2 record or /proc/PID/maps gives them. This and ws_symobj_vaddr() are the whole of
 * the load-bias arithmetic, for PIE, shared libraries and fixed-address executables alike.
 */
static inline uint64_t ws_map_file_offset(uint64_t map_start, uint64_t map_pgoff, uint64_t ip)
{
	return ip - map_start + map_pgoff;
}

/*
 * Translate a file offset into the object's link address, through the PT_LOAD segment that holds the offset.
 * Returns 0, or -ERANGE when no loadable segment covers it (an address in a non-code part of the file).
 */
int ws_symobj_vaddr(const struct ws_symobj *o, uint64_t file_offset, uint64_t *vaddr);

/* What a link address resolves to. */
struct ws_sym {
	const char *name; /* symbol name, owned by the cache; mangled as in the object (C++/Rust not demangled) */
	uint64_t start;   /* link address of the symbol */
	uint64_t offset;  /* vaddr - start */
};

/*
 * The function containing link address `vaddr`. Returns 0 and fills *sym, or -ENOENT when no function symbol
 * covers it (a stripped object, or code between symbols): the caller files the address as "[unknown]" in its
 * object.
 */
int ws_symobj_lookup(struct ws_symobj *o, uint64_t vaddr, struct ws_sym *sym);

/*
 * The source file and line of link address `vaddr` from the DWARF line table (of the object or its debug
 * file). Returns 0 with *file (owned by the cache) and *line set, or -ENOENT without line information.
 */
int ws_symobj_srcline(struct ws_symobj *o, uint64_t vaddr, const char **file, unsigned *line);

/* Where the object's symbols come from: for the "build with symbols" hint. */
enum ws_symsrc {
	WS_SYMSRC_NONE,    /* no symbol table at all */
	WS_SYMSRC_DYNSYM,  /* only the exported symbols of .dynsym: stripped */
	WS_SYMSRC_SYMTAB,  /* a full .symtab in the object itself */
	WS_SYMSRC_DEBUG,   /* a full .symtab in a separate debug file */
};

enum ws_symsrc ws_symobj_symsrc(struct ws_symobj *o);

/* True the first time it is called for `o`: one "build with symbols" hint per object per cache. */
bool ws_symobj_first_hint(struct ws_symobj *o);

/* The debug file used for the object's symbols, or NULL. */
const char *ws_symobj_debugfile(struct ws_symobj *o);

#endif
