/* SPDX-License-Identifier: GPL-2.0-or-later */
/* symbols.h - function names and source lines for addresses in ELF objects, through elfutils' libdwfl. */
#ifndef WS_SYMBOLS_H
#define WS_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A cache of ELF objects, keyed by path. Each object is opened once with libdwfl (offline, at its own link-time
 * addresses), its symbol table read on first use, its DWARF on the first line or inline lookup. Addresses are
 * ELF virtual addresses of the object as linked ("link addresses", what `nm` prints), so the same cache serves
 * every process and every run that maps the object, wherever it was loaded.
 *
 * Debug information is looked for in the order the tools people use look for it (gdb, perf, eu-stack):
 *   1. the object itself (.symtab, DWARF);
 *   2. DIR/.build-id/xx/yyyy.debug, from the object's GNU build-id;
 *   3. the .gnu_debuglink file: next to the object, in its .debug/ directory, under DIR/ + the object's directory;
 *   4. debuginfod, through elfutils' libdebuginfod, only when DEBUGINFOD_URLS is set (libdwfl decides that);
 *   and the exported symbols of .dynsym when nothing better was found.
 * DIR is /usr/lib/debug, where Debian's -dbgsym packages install, or $WHYSLOW_DEBUG_DIR: a test interface, so
 * that a test can put a debug file under a temporary directory of its own (ws_symbols_debug_dir()).
 *
 * Names come out in the forms of names.h: `symbol` as in the object, `name` demangled once, here, per symbol.
 * PLT stubs, which no symbol covers, are named "memcpy@plt" from the relocation table, as objdump and perf do.
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

/* What a link address resolves to. Strings are owned by the cache. */
struct ws_sym {
	const char *name;   /* demangled (ws_sym_demangle()): "r1cs::lc::Indexer::insert_or_update", "memcpy@plt" */
	const char *symbol; /* as in the object's symbol table (mangled for C++ and Rust): what names.h calls symbol */
	uint64_t start;     /* link address of the symbol */
	uint64_t size;      /* its st_size (0 when the table gives none) */
	uint64_t offset;    /* vaddr - start */
};

/*
 * The function containing link address `vaddr`. Returns 0 and fills *sym, or -ENOENT when no function symbol
 * and no PLT stub covers it (a stripped object, or code between symbols): the caller names the address by its
 * frame (ws_symobj_unnamed), else files it as "[unknown]" in its object. Of aliases (two names at one address) libdwfl's choice is taken, the same for
 * every backend.
 */
int ws_symobj_lookup(struct ws_symobj *o, uint64_t vaddr, struct ws_sym *sym);
/* The same through libdwfl's scan of the whole table every time: what the tests compare the quick way with. */
int ws_symobj_lookup_slow(struct ws_symobj *o, uint64_t vaddr, struct ws_sym *sym);

/*
 * The function whose symbol table name is `symbol` (as another reader of the object, Valgrind, reported it),
 * resolved as ws_symobj_lookup() resolves its address: so an alias comes back under the name every backend
 * gives it. Returns 0 and fills *sym, or -ENOENT.
 */
int ws_symobj_find(struct ws_symobj *o, const char *symbol, struct ws_sym *sym);

/*
 * The DWARF name of the function at link address `vaddr` (its DW_AT_name: for Rust, with the generic
 * arguments of the instance, "fill<u8>"), or NULL without DWARF there. What tells two monomorphizations of
 * one Rust function apart when their legacy symbols demangle to one name. A new string.
 */
char *ws_symobj_dwarf_name(struct ws_symobj *o, uint64_t vaddr);

/* One function inlined at an address: the innermost first in a chain. Owned by the cache. */
struct ws_inline {
	char *name;      /* demangled from its linkage name, or its DWARF name: "smallvec::SmallVec<A>::insert" */
	char *call_file; /* where it was inlined from (the call site in the function or inline around it) */
	unsigned call_line;
};

/*
 * The inline chain at link address `vaddr` from DWARF: the functions inlined there, innermost first, up to
 * (not including) the function the code belongs to. Returns how many (0: not inlined code, or no DWARF) and
 * sets *out to the chain, owned by the cache (each address is looked up once per cache).
 */
size_t ws_symobj_inlines(struct ws_symobj *o, uint64_t vaddr, const struct ws_inline **out);

/*
 * Where a function with no code of its own went: the functions holding an inlined instance of one that
 * `pattern` names (as ws_sym_match() takes it: a mangled or demangled name, or a glob). Up to `max` distinct
 * holders, demangled, go to holders[], and the first instance's name to *inlined (NULL if none); the caller
 * frees them. Returns how many holders. The first question reads every function's DWARF, once per object.
 */
size_t ws_symobj_inlined_into(struct ws_symobj *o, const char *pattern, char **holders, size_t max, char **inlined);

/*
 * The source file and line of link address `vaddr` from the DWARF line table (of the object or its debug
 * file). Returns 0 with *file (owned by the cache) and *line set, or -ENOENT without line information.
 */
int ws_symobj_srcline(struct ws_symobj *o, uint64_t vaddr, const char **file, unsigned *line);

/*
 * The rule for the canonical frame address (the caller's stack pointer) at link address `vaddr`, from the
 * object's CFI (.eh_frame, else .debug_frame): CFA = DWARF register *reg + *offset (x86-64: 7 is rsp, 6 is
 * rbp); the return address is at CFA - 8. A PLT stub, a jump, is rsp + 8. Returns 0, or -ENOENT when no CFI
 * covers the address or the rule is an expression rather than a register and an offset.
 */
int ws_symobj_cfa(struct ws_symobj *o, uint64_t vaddr, int *reg, int64_t *offset);

/*
 * A name for code no symbol covers, by the function it is in: where the object's .eh_frame_hdr table has a
 * frame covering link address `vaddr` (frames.h), "[unknown]+0x1f2a0", the link address that frame starts
 * at, which is the function's entry (its cold part's, for a function split hot and cold). NULL where no
 * frame covers it: the object's one "[unknown]" bucket then. Owned by the cache. ws_sym_unknown_row() makes
 * it a row. The simulator splits its code the same way, from the same table (sim/wsim-frames.c).
 */
const char *ws_symobj_unnamed(struct ws_symobj *o, uint64_t vaddr);

/*
 * The share of the object's functions that keep a frame pointer: of up to 400 function symbols of 16 bytes or
 * more, those whose CFA in the middle of their code is computed from rbp. NAN when none has CFI there. What
 * tells whether frame-pointer call chains will work for a program.
 */
double ws_symobj_frame_pointer_share(struct ws_symobj *o);

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

/*
 * The directory searched for separate debug files instead of /usr/lib/debug: $WHYSLOW_DEBUG_DIR when set
 * (a test interface), else /usr/lib/debug. Borrowed.
 */
const char *ws_symbols_debug_dir(void);

/*
 * How to get the object's debug information, for a hint: on Debian, the -dbgsym package of the package
 * that installed it ("install coreutils-dbgsym (the debian-debug archive)"), found with dpkg -S; else a
 * general line. A new string; never NULL.
 */
char *ws_symobj_debug_hint(struct ws_symobj *o);

/*
 * The compilers that built an ELF file: its .comment section ("GCC: (Debian 12.2.0-14) 12.2.0"), then the
 * producers of its DWARF compile units ("clang LLVM (rustc version 1.63.0)", "GNU C17 12.2.0 -O2 -g"):
 * each string once, in the order found, at most 16, NULL-terminated; NULL when the file is not ELF or
 * records none.
 */
char **ws_elf_toolchain(const char *path);

#endif
