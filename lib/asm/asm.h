/* SPDX-License-Identifier: GPL-2.0-or-later */
/* asm.h - one function's machine code in two binaries: symbols, disassembly, summaries, diff, annotation. */
#ifndef WS_ASM_H
#define WS_ASM_H

#include "symbols/pair.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Hardware counters say how much and where; the generated code says why (did a change of type stop the
 * compiler from inlining, vectorising or keeping values in registers?). This module answers that for
 * x86-64 ELF binaries: it finds functions through the symbol table (libelf), disassembles them (capstone),
 * summarises each (memory operands, branches, calls with their targets named, SIMD, frame size), diffs
 * two listings on a normalised form that hides addresses and register allocation, and reads the
 * simulator's per-instruction counts from a result file to annotate them.
 *
 * Like the rest of the engine it never prints to stdout and never exits: functions return 0 or -errno and
 * explain failures through ws_log(). Nothing here is thread safe; use one ws_asm_bin per thread.
 */

/* ---- binaries and their function symbols ---- */

struct ws_asm_bin; /* an open ELF file: symbols, sections, PLT names; opaque */

/*
 * One function symbol (STT_FUNC or STT_GNU_IFUNC with a size, in an executable section). Its names are the
 * forms of lib/symbols/names.h, the same as the profiles', so that a name from a profile finds it.
 */
struct ws_asm_sym {
	const char *name;      /* demangled: "foo(int) [clone .isra.0]", "lc::add", "scale.constprop.0" */
	const char *symbol;    /* as in the symbol table (mangled): "_Z3fooi.isra.0" */
	const char *base;      /* its identity across builds, clone suffixes left out: "foo(int)", "scale" */
	const char *shortname; /* without return type and parameters: "foo" */
	const char *key;       /* what pairs it with the other binary's symbol: the name (no Rust hash); for a
				* name defined twice, with the instance's generic arguments from DWARF
				* ("fmt::<u32>"), "name (file.c)", or "name #2" (then `ambiguous`) */
	const char *dwarf;     /* the DWARF name that told it apart ("fmt<u32>"), or NULL */
	const char *file;      /* the STT_FILE a local symbol belongs to, or NULL */
	uint64_t addr;         /* st_value: an ELF virtual address, as objdump and nm print it */
	uint64_t size;         /* st_size: the extent is addr .. addr + size; padding after it is excluded */
	bool local;            /* STB_LOCAL (a static function or a compiler clone) */
	bool ambiguous;        /* shares its name with another function of this binary and nothing told them
				* apart: never paired by name */
	bool unnamed;          /* code no symbol names, told apart by its .eh_frame_hdr frame: "[unknown]
				* liblzma.so.5.4.1+0x172d0", as whyslow's tables name it; paired only when asked for */
};

/*
 * Open the ELF file at `path` and read its function symbols (.symtab; for a stripped file the .symtab of the
 * debug file lib/symbols finds by build-id or .gnu_debuglink; else .dynsym), its sections and the names of
 * its PLT and GOT slots. On success *out is the caller's, to free with ws_asm_bin_free().
 * Returns 0, or a negative errno after logging one line that names the file:
 *   -ENOENT, -EACCES, ... the file cannot be opened;  -EISDIR a directory;
 *   -ENOEXEC not an ELF file;  -EOPNOTSUPP ELF for another machine than x86-64 (the line names it), or a
 *   relocatable object;  -ENODATA no function symbol and no .eh_frame_hdr frame either (the line says how
 *   to fix it). A binary without function symbols but with frames opens: its code is then "[unknown]
 *   FILE+0xADDR" functions only (ws_asm_bin_stripped() says so).
 */
int ws_asm_bin_open(const char *path, struct ws_asm_bin **out);
void ws_asm_bin_free(struct ws_asm_bin *bin);

/* The path it was opened with; borrowed. */
const char *ws_asm_bin_path(const struct ws_asm_bin *bin);
/* The GNU build-id as lowercase hex, or NULL when the file has none; borrowed. */
const char *ws_asm_bin_build_id(const struct ws_asm_bin *bin);
/* Whether both were opened from one file (the same real path). */
bool ws_asm_bin_same_file(const struct ws_asm_bin *a, const struct ws_asm_bin *b);
/* Why the binary has no named function ("no symbol table ... (a stripped binary)"), or NULL when it has. */
const char *ws_asm_bin_stripped(const struct ws_asm_bin *bin);
/* The GNU build-id of the ELF file at `path` as lowercase hex, or NULL (no such file, not ELF, no note); caller frees. */
char *ws_asm_build_id(const char *path);

/*
 * Name the address `addr` of `bin` for a listing: a function or object symbol ("table", "main+0x1c"), a
 * PLT entry ("memcpy@plt"), a GOT slot ("stdout@got"), else its section (".rodata+0x10"). Returns a new
 * string (the caller frees it), or NULL when no section holds the address. With `stable` the offset is
 * left out for functions and sections, so that the name survives relinking (used for normalisation).
 */
char *ws_asm_bin_name_addr(const struct ws_asm_bin *bin, uint64_t addr, bool stable);

/* The base name of a symbol, clone suffixes left out: ws_sym_base() (lib/symbols/names.h). A new string. */
char *ws_asm_base_name(const char *name);

/* ---- pairing functions across two binaries ---- */

struct ws_asm_pair {
	const struct ws_asm_sym *a, *b; /* borrowed from the two binaries; either may be NULL (only in one) */
	enum ws_sym_how how; /* how it was paired, or why it stayed alone (symbols/pair.h) */
};

/*
 * Pair every function of `a` with the one of `b` that has the same symbol, hash and all, where each build
 * has one function of it (Rust's std keeps its hashes between builds of a program); then with the one that
 * has the same key. Then, among those left over, per
 * identity (the demangled base name, split-off .cold parts apart): one on each side are a clone and its
 * original ("scale" in an -O0 build meets "scale.constprop.0" in an -O2 build); several on each side, as
 * many in each, are paired when their sizes are distinct and rank in the same address order in both
 * builds (WS_SYM_BY_SIZE); any other several stay unpaired and WS_SYM_AMBIGUOUS. Aliases (two names at one
 * address) are reported once, under the global, public-looking name (fewer leading underscores, then
 * shorter). *out is the caller's (free()); returns the number of pairs, in order of the A address, then
 * B-only functions in B order.
 */
size_t ws_asm_pair_all(const struct ws_asm_bin *a, const struct ws_asm_bin *b, struct ws_asm_pair **out);

/*
 * The pairs for the functions `pattern` names (ws_sym_match(): a mangled name of either build, a demangled
 * name in any form, a key), with their clones, in either binary, paired as ws_asm_pair_all() pairs; when
 * no name matches exactly and `pattern` is a glob, the functions it matches. *glob (if given) says the
 * latter. Returns the number of pairs (0: nothing matches) and sets *out (caller frees).
 */
size_t ws_asm_pair_named(const struct ws_asm_bin *a, const struct ws_asm_bin *b, const char *pattern,
			 struct ws_asm_pair **out, bool *glob);

/*
 * Up to `max` function names (short forms, which --function takes) of `a` and `b` closest to `pattern`
 * (ws_sym_distance() on their short forms), best first, for "did you mean". Fills out[] with borrowed
 * names; returns how many.
 */
size_t ws_asm_suggest(const struct ws_asm_bin *a, const struct ws_asm_bin *b, const char *pattern,
		      const char **out, size_t max);

/*
 * A function `pattern` names that has no code of its own in `bin` but was inlined, from DWARF: up to `max`
 * functions that hold it go to holders[] (demangled, the caller frees them), the inlined function's name to
 * *inlined (likewise, or NULL). Returns how many holders.
 */
size_t ws_asm_inlined_into(struct ws_asm_bin *bin, const char *pattern, char **holders, size_t max, char **inlined);

/* "f, g and h" of ws_asm_inlined_into()'s holders, in the short forms --function takes; "f, g, h and others"
 * where it stopped at `max`. A new string. */
char *ws_asm_holder_list(char *const *v, size_t n, size_t max);

/* ---- one function's code ---- */

/* What an instruction does, as far as the summary is concerned. */
#define WS_ASM_LOAD        (1u << 0)  /* reads an explicit memory operand (not lea, nop, prefetch) */
#define WS_ASM_STORE       (1u << 1)  /* writes an explicit memory operand */
#define WS_ASM_COND_BRANCH (1u << 2)  /* jcc, jrcxz, loop* */
#define WS_ASM_JUMP        (1u << 3)  /* unconditional jmp */
#define WS_ASM_INDIRECT    (1u << 4)  /* jmp or call through a register or memory */
#define WS_ASM_CALL        (1u << 5)  /* call */
#define WS_ASM_TAIL_CALL   (1u << 6)  /* direct jmp to another function: a call that does not return here */
#define WS_ASM_RET         (1u << 7)
#define WS_ASM_SIMD        (1u << 8)  /* in an SSE/AVX/AVX-512/FMA/MMX group (scalar SSE float math too) */
#define WS_ASM_SIMD_WIDE   (1u << 9)  /* touches a ymm or zmm register: 256- or 512-bit vectors */
#define WS_ASM_NOP         (1u << 10) /* padding: nop of any length, xchg ax, ax, ... */
#define WS_ASM_BAD         (1u << 11) /* bytes capstone could not decode (one byte, like objdump's "(bad)") */

struct ws_asm_insn {
	uint64_t addr;
	unsigned size;   /* bytes */
	unsigned flags;  /* WS_ASM_* */
	char *text;      /* Intel syntax as capstone prints it, targets named as objdump does:
			  * "call 0x1030 <memcpy@plt>", "lea r8, [rip + 0x2ee6]  # 0x4040 <table>" */
	char *norm;      /* the normalised form the diff matches on (see "The normalisation" below) */
	char *target;    /* calls and tail calls: the callee ("memcpy", "scale.constprop.0", "*indirect");
			  * NULL otherwise */
};

struct ws_asm_summary {
	uint64_t bytes;              /* the symbol's size */
	size_t instructions;         /* every decoded instruction in the extent, as objdump -d counts them */
	size_t loads, stores;        /* instructions reading / writing an explicit memory operand (an
				      * add to memory is both; push, pop, call and ret are not counted) */
	size_t cond_branches, indirect_branches; /* indirect: jmp/call through a register or memory */
	size_t call_sites;           /* call instructions plus tail calls */
	char **calls;                /* distinct callees, in order of first call; "memcpy@plt" is "memcpy" */
	size_t ncalls;
	size_t simd, simd_wide;      /* WS_ASM_SIMD and WS_ASM_SIMD_WIDE instructions */
	/*
	 * The stack frame: the largest stack depth reached walking the code in address order, 8 bytes per
	 * push and N per "sub rsp, N" (less per pop / "add rsp, N"), return address not counted. This is the
	 * prologue's size also when shrink-wrapping puts it after an early exit. Red-zone use and alloca
	 * ("sub rsp, reg", flagged in frame_dynamic) are not in it.
	 */
	uint64_t frame;
	size_t frame_pushes;         /* pushes in that deepest prologue */
	uint64_t frame_sub;          /* bytes from sub rsp, N in it */
	bool frame_pointer;          /* the function sets up rbp as a frame pointer (mov rbp, rsp) */
	bool frame_dynamic;          /* sub rsp, REG: alloca or a variable-length array */
	size_t bad;                  /* undecodable bytes */
};

struct ws_asm_func {
	const struct ws_asm_sym *sym; /* borrowed; NULL for code given by ws_asm_func_from_code() */
	uint64_t addr;
	struct ws_asm_insn *insns;    /* owned */
	size_t n, alloc;
	struct ws_asm_summary sum;    /* owned (calls) */
};

/*
 * Disassemble function `sym` of `bin` (a symbol of that binary) into *out, with texts, normalised forms
 * and the summary. Returns 0, or -EIO when the bytes cannot be read (logged). Release *out with
 * ws_asm_func_release() in either case.
 */
int ws_asm_func_load(const struct ws_asm_bin *bin, const struct ws_asm_sym *sym, struct ws_asm_func *out);

/*
 * The same for raw x86-64 code at virtual address `addr`; `bin` (may be NULL) names targets outside it.
 * For tests and for code that is not behind a symbol. Returns 0 or -ENOMEM-like failures of capstone.
 */
int ws_asm_func_from_code(const struct ws_asm_bin *bin, const uint8_t *code, size_t len, uint64_t addr,
			  struct ws_asm_func *out);

void ws_asm_func_release(struct ws_asm_func *f);

/*
 * The normalisation, applied by the two functions above to every instruction of a function:
 *  - registers are renamed by order of first appearance within the function, per class and keeping the
 *    width: the first general register seen is r1 (r1d, r1w, r1b, r1h as 32/16/8/high-8 bits), the first
 *    vector register v1 (v1x, v1y, v1z for xmm/ymm/zmm); rsp and rip keep their names, and so does rbp in a
 *    function that uses it as the frame pointer;
 *  - a branch inside the function becomes "<fwd>", "<back>" or "<self>", a call of the function itself
 *    "<recurse>"; a call or jump elsewhere becomes the target's symbol ("memcpy@plt", "helper"; Rust's
 *    per-build hash left out), or "<addr>" when nothing names it;
 *  - rip-relative operands become "m8[rip:NAME]" with the symbol (or section) they reach, absolute ones in
 *    non-PIE code "m8[abs:NAME]", and an immediate in a non-PIE binary that points into a section "<NAME>";
 *    functions and sections are named without an offset, objects with it (a field of a global);
 *  - rsp- and frame-pointer-relative displacements (stack slots) become "S";
 *  - every form of nop is "nop". Mnemonics, immediates and other displacements (struct fields) stay.
 */

/* ---- the diff ---- */

enum ws_asm_op {
	WS_ASM_EQUAL,  /* the same normalised instruction on both sides */
	WS_ASM_CHANGE, /* an A line and a B line that differ, paired in order within one changed block */
	WS_ASM_DELETE, /* only in A */
	WS_ASM_INSERT, /* only in B */
};

/* One row of a side-by-side diff: indexes into the two sequences, -1 where that side has no line. */
struct ws_asm_row {
	enum ws_asm_op op;
	long a, b;
};

/*
 * A minimal diff (Myers' O((N+M)D) algorithm in linear space) of two sequences of integers, as rows for a
 * side-by-side view: common lines are EQUAL; within each block of differences the deleted and inserted
 * lines are paired in order as CHANGE, and the rest are DELETE or INSERT. *rows is the caller's (free()).
 * Returns the number of rows.
 */
size_t ws_diff_ints(const int *a, size_t na, const int *b, size_t nb, struct ws_asm_row **rows);

/* The same over strings compared with strcmp(). */
size_t ws_diff_strings(const char *const *a, size_t na, const char *const *b, size_t nb,
		       struct ws_asm_row **rows);

/*
 * Diff two functions on their normalised instructions; either may be NULL (only in one binary).
 * *changed (if given) gets the number of rows that are not EQUAL, leaving out rows whose instructions are
 * only padding nops. Returns the number of rows; *rows is the caller's.
 */
size_t ws_asm_diff(const struct ws_asm_func *a, const struct ws_asm_func *b, struct ws_asm_row **rows,
		   size_t *changed);

/* ---- for other steps: the command that shows a function ---- */

/*
 * The asm-diff command line that compares `function` between the binaries `bin_a` and `bin_b`, annotated
 * from `result` when it is not NULL, quoted for a POSIX shell: for an explanation's "next step", e.g.
 *   whyslow asm-diff --function lc_insert --result out.json ./vec ./smallvec
 * Returns a new string (the caller frees it); never fails.
 */
char *ws_asm_command(const char *bin_a, const char *bin_b, const char *function, const char *result);

/* ---- per-instruction counts from a result file ---- */

/* The simulator's per-instruction counts for one binary (a result's variants[].hot_code[]). */
struct ws_asm_counts {
	char **keys;        /* metric names in order of first appearance, "executions" first if present */
	size_t nkeys;
	struct ws_asm_count_row {
		uint64_t addr;  /* ELF virtual address in the binary */
		double *v;      /* nkeys values; NAN where the entry did not give that metric */
	} *rows;            /* sorted by address */
	size_t n;
	char *variant;      /* the variant the counts came from, or NULL when none matched */
	size_t nvariants;   /* how many variants ran the binary */
};

/*
 * Read the "whyslow/1" result file `path` and collect the hot_code entries whose "object" is the file of
 * `bin` (the same realpath, or failing that the same build-id), of the `nth` variant (from 0) that ran it:
 * asm-diff shows one binary twice (a library under two variants of a program) with each side's counts.
 * Where fewer variants ran it, the first is taken. Unknown keys are ignored; numeric ones are metrics.
 * Returns 0 (out->n is 0 when nothing in the file is about this binary) or a negative errno after logging
 * a line: the file cannot be read (-errno), is not JSON or not a whyslow/1 result (-EINVAL).
 * Release with ws_asm_counts_release().
 */
int ws_asm_counts_load(const char *path, const struct ws_asm_bin *bin, size_t nth, struct ws_asm_counts *out);

/* The counts at `addr` (nkeys values), or NULL. Borrowed. */
const double *ws_asm_counts_find(const struct ws_asm_counts *c, uint64_t addr);

void ws_asm_counts_release(struct ws_asm_counts *c);

#endif
