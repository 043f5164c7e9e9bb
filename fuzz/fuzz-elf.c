/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-elf.c - libFuzzer target: an ELF file as asm-diff reads one (symbols, sections, PLT and GOT names,
 * pairing, disassembly, the diff and its report) and as lib/symbols reads one for profiles (symbol lookup,
 * DWARF names, inlines, source lines, CFI, the toolchain notes).
 *
 * Both readers take a path: the input is written to a memfd and read through /proc/self/fd/N.
 */
#include "fuzz.h"

#include "asm/asm.h"
#include "core/util.h"
#include "report/report-asm.h"
#include "symbols/symbols.h"

#include <jansson.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Enough functions to reach every path of the loader and the diff; more only cost time. */
#define FUZZ_MAX_FUNCTIONS 16

static int fd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_setup();
	fd = memfd_create("fuzz-elf", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

/* asm-diff of the binary against itself: every function paired, disassembled, diffed and reported. */
static void asm_diff(void)
{
	struct ws_asm_side sides[2] = { { .label = "A" }, { .label = "B" } };
	struct ws_asm_pair *pairs = NULL;
	const char *suggest[3];
	size_t np;
	bool glob;

	if (ws_asm_bin_open(path, &sides[0].bin) < 0)
		return;
	if (ws_asm_bin_open(path, &sides[1].bin) < 0) {
		ws_asm_bin_free(sides[0].bin);
		return;
	}
	np = ws_asm_pair_all(sides[0].bin, sides[1].bin, &pairs);
	for (size_t i = 0; i < np && i < FUZZ_MAX_FUNCTIONS; i++) {
		struct ws_asm_report r;
		const struct ws_asm_sym *s = pairs[i].a ? pairs[i].a : pairs[i].b;

		if (ws_asm_report_load(sides, &pairs[i], &r) == 0) {
			json_t *j = ws_asm_report_json(sides, &r, true);

			ws_asm_report_print(fuzz_sink(), sides, &r, false);
			json_decref(j);
		}
		ws_asm_report_release(&r);
		free(ws_asm_bin_name_addr(sides[0].bin, s->addr + 1, false));
		free(ws_asm_bin_name_addr(sides[0].bin, s->addr, true));
	}
	free(pairs);
	np = ws_asm_pair_named(sides[0].bin, sides[1].bin, "m*", &pairs, &glob);
	free(pairs);
	ws_asm_suggest(sides[0].bin, sides[1].bin, "main", suggest, 3);
	ws_asm_bin_free(sides[0].bin);
	ws_asm_bin_free(sides[1].bin);
}

/* lib/symbols as the profiler uses it: each function's address looked up, named, placed and unwound. */
static void symbols(void)
{
	struct ws_symbols *cache = ws_symbols_new();
	struct ws_symobj *o;
	struct ws_asm_bin *bin;
	char **tools;

	if (ws_symbols_get(cache, path, &o) == 0) {
		struct ws_sym sym;
		uint64_t addrs[FUZZ_MAX_FUNCTIONS + 1] = { 0 };
		size_t na = 1;

		/* The addresses of the functions asm-diff finds, and 0. */
		if (ws_asm_bin_open(path, &bin) == 0) {
			struct ws_asm_pair *pairs = NULL;
			size_t np = ws_asm_pair_all(bin, bin, &pairs);

			for (size_t i = 0; i < np && na < FUZZ_MAX_FUNCTIONS + 1; i++)
				if (pairs[i].a)
					addrs[na++] = pairs[i].a->addr + pairs[i].a->size / 2;
			free(pairs);
			ws_asm_bin_free(bin);
		}
		for (size_t i = 0; i < na; i++) {
			const struct ws_inline *in;
			const char *file;
			unsigned line;
			int reg;
			int64_t off;
			uint64_t vaddr;

			if (ws_symobj_lookup(o, addrs[i], &sym) == 0)
				ws_symobj_find(o, sym.symbol, &sym);
			free(ws_symobj_dwarf_name(o, addrs[i]));
			ws_symobj_inlines(o, addrs[i], &in);
			ws_symobj_srcline(o, addrs[i], &file, &line);
			ws_symobj_cfa(o, addrs[i], &reg, &off);
			ws_symobj_vaddr(o, addrs[i], &vaddr);
		}
		ws_symobj_frame_pointer_share(o);
		/* Not ws_symobj_debug_hint(): it asks dpkg, which reads no input of ours and takes 0.1 s. */
		ws_symobj_symsrc(o);
	}
	ws_symbols_free(cache);
	tools = ws_elf_toolchain(path);
	for (char **t = tools; t && *t; t++)
		free(*t);
	free(tools);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	asm_diff();
	symbols();
	return 0;
}
