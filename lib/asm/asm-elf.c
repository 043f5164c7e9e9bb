/* SPDX-License-Identifier: GPL-2.0-or-later */
/* asm-elf.c - an x86-64 ELF file for asm-diff: its function symbols, sections, PLT and GOT names. */
#include "asm/asm-internal.h"
#include "core/log.h"
#include "core/util.h"
#include "symbols/frames.h"
#include "symbols/names.h"
#include "symbols/plt.h"
#include "symbols/symbols.h"

#include <ctype.h>
#include <inttypes.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The machines a user is likely to hand us by mistake, named as people call them. */
static const char *machine_name(unsigned m)
{
	switch (m) {
	case EM_386: return "i386 (32-bit x86)";
	case EM_ARM: return "ARM (32-bit)";
	case EM_AARCH64: return "AArch64";
	case EM_RISCV: return "RISC-V";
	case EM_PPC: return "PowerPC";
	case EM_PPC64: return "PowerPC64";
	case EM_S390: return "s390";
	case EM_MIPS: return "MIPS";
	case EM_SPARCV9: return "SPARC64";
	case EM_LOONGARCH: return "LoongArch";
	case EM_BPF: return "BPF";
	default: return NULL;
	}
}

const char *ws_asm_bin_path(const struct ws_asm_bin *bin)
{
	return bin->path;
}

bool ws_asm_bin_same_file(const struct ws_asm_bin *a, const struct ws_asm_bin *b)
{
	return a->real && b->real && !strcmp(a->real, b->real);
}

const char *ws_asm_bin_stripped(const struct ws_asm_bin *bin)
{
	return bin->no_names ? "no symbol table that names a function (a stripped binary)" : NULL;
}

const char *ws_asm_bin_build_id(const struct ws_asm_bin *bin)
{
	return bin->build_id;
}

static void syms_free(struct ws_asm_sym *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)v[i].name);
		free((char *)v[i].symbol);
		free((char *)v[i].base);
		free((char *)v[i].shortname);
		free((char *)v[i].key);
		free((char *)v[i].file);
		free((char *)v[i].dwarf);
	}
	free(v);
}

char *ws_asm_base_name(const char *name)
{
	return ws_sym_base(name);
}

static int cmp_names(const void *pa, const void *pb)
{
	const struct asm_name *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	/* Within one address the preferred name last: asm_lookup() walks backwards. */
	if (a->kind != b->kind)
		return a->kind > b->kind ? -1 : 1;
	/* Of aliases, the public one: "memcpy" rather than "__new_memcpy" or "__memcpy_chk_impl". */
	if (strspn(a->name, "_") != strspn(b->name, "_"))
		return strspn(a->name, "_") > strspn(b->name, "_") ? -1 : 1;
	if (strlen(a->name) != strlen(b->name))
		return strlen(a->name) > strlen(b->name) ? -1 : 1;
	return strcmp(b->name, a->name);
}

static int cmp_syms(const void *pa, const void *pb)
{
	const struct ws_asm_sym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	/* Of aliases the public name first, as for names (cmp_names()): pairing keeps the first. */
	if (a->local != b->local)
		return a->local ? 1 : -1;
	if (strspn(a->name, "_") != strspn(b->name, "_"))
		return strspn(a->name, "_") < strspn(b->name, "_") ? -1 : 1;
	if (strlen(a->name) != strlen(b->name))
		return strlen(a->name) < strlen(b->name) ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void add_name(struct ws_asm_bin *bin, size_t *alloc, uint64_t addr, uint64_t size,
		     enum asm_name_kind kind, char *name)
{
	WS_ALLOC_GROW(bin->names, bin->nnames + 1, *alloc);
	bin->names[bin->nnames++] = (struct asm_name){ addr, size, kind, name };
}

const struct asm_name *asm_lookup(const struct ws_asm_bin *bin, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi = bin->nnames;

	/* The first entry starting after addr; then walk back to the nearest one that covers it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (bin->names[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Nested or overlapping ranges are rare (aliases, objects in objects); a short walk finds them. */
	for (size_t i = lo, steps = 0; i > 0 && steps < 64; i--, steps++) {
		const struct asm_name *n = &bin->names[i - 1];

		if (addr < n->addr + (n->size ? n->size : 1)) {
			if (off)
				*off = addr - n->addr;
			return n;
		}
	}
	return NULL;
}

const struct asm_section *asm_section_at(const struct ws_asm_bin *bin, uint64_t addr)
{
	for (size_t i = 0; i < bin->nsecs; i++) {
		const struct asm_section *s = &bin->secs[i];

		if ((s->flags & SHF_ALLOC) && !(s->flags & SHF_TLS) && addr >= s->addr && addr - s->addr < s->size)
			return s;
	}
	return NULL;
}

const uint8_t *asm_bytes_at(const struct ws_asm_bin *bin, uint64_t addr, uint64_t len)
{
	const struct asm_section *s = asm_section_at(bin, addr);
	Elf_Scn *scn;
	Elf_Data *d = NULL;

	if (!s || s->type == SHT_NOBITS || len > s->size - (addr - s->addr))
		return NULL;
	scn = elf_getscn(bin->elf, s->index);
	if (!scn)
		return NULL;
	/* A section read from a file is one data block; find the one holding the range all the same. */
	while ((d = elf_getdata(scn, d))) {
		uint64_t start = s->addr + (uint64_t)d->d_off;

		if (d->d_buf && addr >= start && addr - start + len <= d->d_size)
			return (const uint8_t *)d->d_buf + (addr - start);
	}
	return NULL;
}

char *ws_asm_bin_name_addr(const struct ws_asm_bin *bin, uint64_t addr, bool stable)
{
	uint64_t off = 0;
	const struct asm_name *n = asm_lookup(bin, addr, &off);
	const struct asm_section *s;

	if (n) {
		/* Names are demangled, so Rust's per-build hash is already out of the stable form. */
		char *base = xstrdup(n->name), *r;

		/* In a function an offset moves with every change of code; in an object it is a field. */
		if (!off || (stable && n->kind != ASM_NAME_OBJECT && n->kind != ASM_NAME_GOT))
			return base;
		r = xasprintf("%s+0x%" PRIx64, base, off);
		free(base);
		return r;
	}
	s = asm_section_at(bin, addr);
	if (!s)
		return NULL;
	if (stable || addr == s->addr)
		return xstrdup(s->name);
	return xasprintf("%s+0x%" PRIx64, s->name, addr - s->addr);
}

/* The NT_GNU_BUILD_ID note as lowercase hex, or NULL. */
static char *build_id_of(Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			const unsigned char *desc = (const unsigned char *)d->d_buf + desc_off;
			char *id;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 || !nh.n_descsz ||
			    memcmp((const char *)d->d_buf + name_off, "GNU", 4))
				continue;
			id = xmalloc(2 * nh.n_descsz + 1);
			for (size_t j = 0; j < nh.n_descsz; j++)
				snprintf(id + 2 * j, 3, "%02x", desc[j]);
			return id;
		}
	}
	return NULL;
}

char *asm_read_build_id(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	char *id = NULL;

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		id = build_id_of(elf);
	if (elf)
		elf_end(elf);
	close(fd);
	return id;
}

char *ws_asm_build_id(const char *path)
{
	return asm_read_build_id(path);
}

static int read_sections(struct ws_asm_bin *bin)
{
	size_t shstrndx, alloc = 0;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(bin->elf, &shstrndx) < 0)
		return ws_error("%s: cannot read the section headers: %s", bin->path, elf_errmsg(-1)), -EINVAL;
	while ((scn = elf_nextscn(bin->elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(bin->elf, shstrndx, sh.sh_name);
		WS_ALLOC_GROW(bin->secs, bin->nsecs + 1, alloc);
		bin->secs[bin->nsecs++] = (struct asm_section){
			.name = xstrdup(name ? name : "?"),
			.addr = sh.sh_addr,
			.size = sh.sh_size,
			.flags = sh.sh_flags,
			.entsize = sh.sh_entsize,
			.type = sh.sh_type,
			.index = elf_ndxscn(scn),
		};
	}
	return 0;
}

static const struct asm_section *section_by_index(const struct ws_asm_bin *bin, size_t index)
{
	for (size_t i = 0; i < bin->nsecs; i++)
		if (bin->secs[i].index == index)
			return &bin->secs[i];
	return NULL;
}

static int cmp_key_index(const void *pa, const void *pb, void *data)
{
	const struct ws_asm_sym *syms = data;
	const struct ws_asm_sym *a = &syms[*(const size_t *)pa], *b = &syms[*(const size_t *)pb];
	int c = strcmp(a->key, b->key);

	if (c)
		return c;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* The binary's entry in lib/symbols, for DWARF; NULL when it cannot be read. */
static struct ws_symobj *dwarf_of(struct ws_asm_bin *bin)
{
	if (!bin->symcache) {
		bin->symcache = ws_symbols_new();
		if (ws_symbols_get(bin->symcache, bin->path, &bin->symobj) < 0)
			bin->symobj = NULL;
	}
	return bin->symobj;
}

size_t ws_asm_inlined_into(struct ws_asm_bin *bin, const char *pattern, char **holders, size_t max, char **inlined)
{
	struct ws_symobj *o = dwarf_of(bin);

	*inlined = NULL;
	return o ? ws_symobj_inlined_into(o, pattern, holders, max, inlined) : 0;
}

char *ws_asm_holder_list(char *const *v, size_t n, size_t max)
{
	char *list = xstrdup("");

	for (size_t k = 0; k < n; k++) {
		char *shortname = ws_sym_short(v[k]), *more;

		more = xasprintf("%s%s%s", list, !k ? "" : k == n - 1 && n < max ? " and " : ", ", shortname);
		free(shortname);
		free(list);
		list = more;
	}
	if (n == max) {
		char *more = xasprintf("%s and others", list);

		free(list);
		list = more;
	}
	return list;
}

/*
 * `name` told apart by its instance's DWARF name: "<&T as core::fmt::Debug>::fmt" with DWARF "fmt<u32>" is
 * "<&T as core::fmt::Debug>::fmt::<u32>", the way v0 mangling spells generic arguments; otherwise the
 * DWARF name in brackets.
 */
static char *key_with_dwarf(const char *name, const char *dwarf)
{
	char *shortname = ws_sym_short(name), *key;
	const char *last = shortname, *p, *lt = strchr(dwarf, '<');

	for (p = shortname; (p = strstr(p, "::")); p += 2)
		last = p + 2;
	if (lt && (size_t)(lt - dwarf) == strlen(last) && !strncmp(dwarf, last, strlen(last)))
		key = xasprintf("%s::%s", name, lt);
	else
		key = xasprintf("%s [%s]", name, dwarf);
	free(shortname);
	return key;
}

/*
 * Give each name defined more than once a key that tells the copies apart the same way in both binaries.
 * Monomorphizations of a generic Rust function demangle to one name under the legacy mangling: DWARF names
 * each instance with its generic arguments. Static functions of one name in several files: "name (file.c)"
 * when the STT_FILE symbols tell them apart. Copies that nothing tells apart keep "name #N" (numbered by
 * address) and are marked ambiguous: pairing never matches them by that key (see asm-pair.c).
 */
static void disambiguate_keys(struct ws_asm_bin *bin)
{
	size_t *idx = xmalloc((bin->nsyms + 1) * sizeof(*idx));
	char **keys = xcalloc(bin->nsyms + 1, sizeof(*keys));

	for (size_t i = 0; i < bin->nsyms; i++)
		idx[i] = i;
	qsort_r(idx, bin->nsyms, sizeof(*idx), cmp_key_index, bin->syms);
	for (size_t g = 0, e; g < bin->nsyms; g = e) {
		bool by_dwarf = true, by_file = true;
		char **dw;

		for (e = g + 1; e < bin->nsyms && !strcmp(bin->syms[idx[e]].key, bin->syms[idx[g]].key); e++)
			;
		if (e - g < 2)
			continue;
		dw = xcalloc(e - g, sizeof(*dw));
		for (size_t i = g; i < e && by_dwarf; i++) {
			struct ws_symobj *o = dwarf_of(bin);

			dw[i - g] = o ? ws_symobj_dwarf_name(o, bin->syms[idx[i]].addr) : NULL;
			by_dwarf = dw[i - g] && strchr(dw[i - g], '<');
			for (size_t j = g; j < i && by_dwarf; j++)
				by_dwarf = strcmp(dw[j - g], dw[i - g]) != 0;
		}
		for (size_t i = g; i < e && by_file; i++) {
			const struct ws_asm_sym *s = &bin->syms[idx[i]];

			by_file = s->file != NULL;
			for (size_t j = g; j < e && by_file; j++)
				if (j != i && bin->syms[idx[j]].file && !strcmp(bin->syms[idx[j]].file, s->file))
					by_file = false;
		}
		for (size_t i = g; i < e; i++) {
			struct ws_asm_sym *s = &bin->syms[idx[i]];

			if (by_dwarf) {
				keys[idx[i]] = key_with_dwarf(s->key, dw[i - g]);
				s->dwarf = xstrdup(dw[i - g]);
			} else if (by_file) {
				keys[idx[i]] = xasprintf("%s (%s)", s->key, s->file);
			} else {
				keys[idx[i]] = xasprintf("%s #%zu", s->key, i - g + 1);
				s->ambiguous = true;
			}
		}
		for (size_t i = 0; i < e - g; i++)
			free(dw[i]);
		free(dw);
	}
	for (size_t i = 0; i < bin->nsyms; i++) {
		if (!keys[i])
			continue;
		free((char *)bin->syms[i].key);
		bin->syms[i].key = keys[i];
	}
	free(keys);
	free(idx);
}

/*
 * The name of version `ndx` defined by this object (.gnu.version_d), or NULL. In .dynsym a compat symbol
 * (memcpy@GLIBC_2.2.5 beside the default memcpy@@GLIBC_2.14) has the same name as the default one; only
 * its version tells them apart, as .symtab does by spelling "@VERSION" into the name.
 */
static const char *version_name(Elf *elf, unsigned ndx)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		int off = 0;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_GNU_verdef || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_info; i++) {
			GElf_Verdef vd;
			GElf_Verdaux va;

			if (!gelf_getverdef(d, off, &vd))
				break;
			if (vd.vd_ndx == ndx && gelf_getverdaux(d, off + (int)vd.vd_aux, &va))
				return elf_strptr(elf, sh.sh_link, va.vda_name);
			if (!vd.vd_next)
				break;
			off += (int)vd.vd_next;
		}
	}
	return NULL;
}

/* The .gnu.version data that goes with the dynamic symbol table, or NULL. */
static Elf_Data *versym_data(Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym)
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

/*
 * Read the function and object symbols of `elf` (.symtab, else .dynsym) into bin->syms and bin->names: the
 * binary's own, or its separate debug file's (`debug`), whose sections are placeholders, so a symbol's
 * section is then the binary's section at its address. Returns the number of function symbols found, or -1
 * when there is no symbol table at all.
 */
static long read_symbols(struct ws_asm_bin *bin, Elf *elf, bool debug, size_t *names_alloc)
{
	Elf_Scn *scn = NULL, *symscn = NULL, *dynscn = NULL;
	GElf_Shdr sh;
	Elf_Data *d, *versym;
	size_t alloc = 0, nsym;
	const char *file = NULL;
	bool dynsym_only = false;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			symscn = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dynscn = scn;
	}
	if (!symscn) {
		if (debug)
			return -1;
		symscn = dynscn;
		dynsym_only = true;
	}
	if (!symscn || !gelf_getshdr(symscn, &sh) || !(d = elf_getdata(symscn, NULL)))
		return -1;
	bin->dynsym_only = dynsym_only;
	nsym = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
	versym = dynsym_only ? versym_data(elf) : NULL;
	for (size_t i = 1; i < nsym; i++) {
		GElf_Sym s;
		GElf_Versym vs;
		const char *name;
		char *versioned = NULL;
		const struct asm_section *sec;
		unsigned type;
		bool local;

		if (!gelf_getsym(d, (int)i, &s))
			continue;
		type = GELF_ST_TYPE(s.st_info);
		name = elf_strptr(elf, sh.sh_link, s.st_name);
		if (type == STT_FILE) {
			file = name && *name ? name : NULL;
			continue;
		}
		if (!name || !*name || s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE)
			continue;
		sec = debug ? asm_section_at(bin, s.st_value) : section_by_index(bin, s.st_shndx);
		if (!sec || !(sec->flags & SHF_ALLOC))
			continue;
		local = GELF_ST_BIND(s.st_info) == STB_LOCAL;
		if (versym && gelf_getversym(versym, (int)i, &vs) && (vs & 0x8000)) {
			const char *v = version_name(elf, vs & 0x7fff);

			versioned = xasprintf("%s@%s", name, v ? v : "compat");
			name = versioned;
		}
		if (type == STT_OBJECT && !(sec->flags & SHF_TLS))
			add_name(bin, names_alloc, s.st_value, s.st_size, ASM_NAME_OBJECT, ws_sym_demangle(name));
		if (type == STT_FUNC || type == STT_GNU_IFUNC)
			add_name(bin, names_alloc, s.st_value, s.st_size,
				 local ? ASM_NAME_LOCAL_FUNC : ASM_NAME_FUNC, ws_sym_demangle(name));
		/* Zero-sized functions (hand-written stubs) name addresses but have no extent to show. */
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || !s.st_size || !(sec->flags & SHF_EXECINSTR) ||
		    sec->type == SHT_NOBITS) {
			free(versioned);
			continue;
		}
		WS_ALLOC_GROW(bin->syms, bin->nsyms + 1, alloc);
		{
			char *demangled = ws_sym_demangle(name), *shortname = ws_sym_short(demangled);
			char *base = ws_sym_identity(name);

			bin->syms[bin->nsyms++] = (struct ws_asm_sym){
				.name = demangled,
				.symbol = xstrdup(name),
				.base = base,
				.shortname = shortname,
				/* Demangling leaves Rust's per-build hash out: the name is the key. */
				.key = xstrdup(demangled),
				.file = local && file ? xstrdup(file) : NULL,
				.addr = s.st_value,
				.size = s.st_size,
				.local = local,
			};
		}
		free(versioned);
	}
	if (bin->nsyms)
		qsort(bin->syms, bin->nsyms, sizeof(*bin->syms), cmp_syms);
	disambiguate_keys(bin);
	return (long)bin->nsyms;
}

/* An IRELATIVE slot's resolver (a static binary's ifunc), named after the function at its address. */
static const char *resolver_name(void *data, uint64_t addr)
{
	const struct asm_name *res = asm_lookup(data, addr, NULL);

	return res && res->addr == addr ? res->name : NULL;
}

/* GOT slots and PLT stubs named from the relocations (lib/symbols/plt.c), demangled like the symbols. */
static void read_plt_got(struct ws_asm_bin *bin, size_t *names_alloc)
{
	struct ws_elf_slot *got = NULL, *plt = NULL;
	size_t ngot = ws_elf_got_slots(bin->elf, resolver_name, bin, &got), nplt;

	nplt = ws_elf_plt_stubs(bin->elf, got, ngot, &plt);
	for (int pass = 0; pass < 2; pass++) {
		struct ws_elf_slot *v = pass ? plt : got;
		size_t n = pass ? nplt : ngot;

		for (size_t i = 0; i < n; i++) {
			char *at = strrchr(v[i].name, '@'), *callee = xstrndup(v[i].name, (size_t)(at - v[i].name));
			char *d = ws_sym_demangle(callee);

			add_name(bin, names_alloc, v[i].addr, v[i].size, pass ? ASM_NAME_PLT : ASM_NAME_GOT,
				 xasprintf("%s%s", d, at));
			free(d);
			free(callee);
		}
	}
	ws_elf_slots_free(got, ngot);
	ws_elf_slots_free(plt, nplt);
}

static void sort_names(struct ws_asm_bin *bin)
{
	if (bin->nnames)
		qsort(bin->names, bin->nnames, sizeof(*bin->names), cmp_names);
}

/*
 * Code no symbol names, as whyslow's function tables name it: a function per frame of .eh_frame_hdr
 * (lib/symbols/frames.h) that starts in executable code no named function covers, "[unknown]
 * liblzma.so.5.4.1+0x172d0" (the object's real file name, as the loader mapped it). Such functions pair by
 * that name only when asked for: another build's code at the same address need not be the same function.
 */
static size_t add_unnamed(struct ws_asm_bin *bin, size_t *names_alloc)
{
	struct ws_frame *v;
	size_t n = ws_elf_frames(bin->elf, &v), added = 0, alloc = bin->nsyms, k = 0;
	const char *object = bin->real ? bin->real : bin->path;

	for (size_t i = 0; i < n; i++) {
		const struct asm_section *sec = asm_section_at(bin, v[i].start);
		char *frame, *name;

		/* The named functions (bin->syms, by address) that end before this frame starts; is it in the next? */
		while (k < bin->nsyms && bin->syms[k].addr + bin->syms[k].size <= v[i].start)
			k++;
		if (k < bin->nsyms && bin->syms[k].addr <= v[i].start)
			continue;
		if (!sec || !(sec->flags & SHF_EXECINSTR) || sec->type == SHT_NOBITS || v[i].end <= v[i].start)
			continue;
		/* Within its section: a malformed FDE's length must not send the disassembler past it. */
		if (v[i].end - sec->addr > sec->size)
			v[i].end = sec->addr + sec->size;
		frame = xasprintf("[unknown]+0x%" PRIx64, v[i].start);
		name = ws_sym_unknown_row(frame, object);
		free(frame);
		WS_ALLOC_GROW(bin->syms, bin->nsyms + added + 1, alloc);
		bin->syms[bin->nsyms + added++] = (struct ws_asm_sym){
			.name = name,
			.symbol = xstrdup(name),
			.base = xstrdup(name),
			.shortname = xstrdup(name),
			.key = xstrdup(name),
			.addr = v[i].start,
			.size = v[i].end - v[i].start,
			.local = true,
			.unnamed = true,
		};
		add_name(bin, names_alloc, v[i].start, v[i].end - v[i].start, ASM_NAME_LOCAL_FUNC, xstrdup(name));
	}
	bin->nsyms += added;
	if (added)
		qsort(bin->syms, bin->nsyms, sizeof(*bin->syms), cmp_syms);
	free(v);
	return added;
}

/* The last file warned about using .dynsym. */
static char warned_dynsym[PATH_MAX];

int ws_asm_bin_open(const char *path, struct ws_asm_bin **out)
{
	struct ws_asm_bin *bin = xcalloc(1, sizeof(*bin));
	GElf_Ehdr eh;
	struct stat st;
	size_t names_alloc = 0;
	long nfunc;
	int ret;

	*out = NULL;
	bin->fd = -1;
	bin->path = xstrdup(path);
	bin->real = realpath(path, NULL);
	/* Opening a FIFO without a writer would block for ever: a binary is a regular file. */
	if (ws_not_regular(path) && stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		ret = -EINVAL;
		ws_error("%s: it is %s, not a binary", path, ws_not_regular(path));
		goto error;
	}
	bin->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (bin->fd < 0) {
		ret = -errno;
		ws_error("%s: %s", path, strerror(errno));
		goto error;
	}
	if (fstat(bin->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		ret = -EISDIR;
		ws_error("%s: is a directory, not a binary", path);
		goto error;
	}
	elf_version(EV_CURRENT);
	bin->elf = elf_begin(bin->fd, ELF_C_READ_MMAP, NULL);
	if (!bin->elf || elf_kind(bin->elf) != ELF_K_ELF || !gelf_getehdr(bin->elf, &eh)) {
		ret = -ENOEXEC;
		ws_error("%s: not an ELF file (asm-diff reads compiled binaries)", path);
		goto error;
	}
	if (eh.e_machine != EM_X86_64) {
		const char *m = machine_name(eh.e_machine);

		ret = -EOPNOTSUPP;
		if (m)
			ws_error("%s: an ELF binary for %s; asm-diff reads x86-64 code only", path, m);
		else
			ws_error("%s: an ELF binary for machine %u; asm-diff reads x86-64 code only", path,
				 eh.e_machine);
		goto error;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		ret = -EOPNOTSUPP;
		ws_error("%s: %s; asm-diff reads linked executables and shared libraries (link it first)", path,
			 eh.e_type == ET_REL ? "a relocatable object file" : "not an executable ELF file");
		goto error;
	}
	bin->elf_type = eh.e_type;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &bin->cs) != CS_ERR_OK ||
	    cs_option(bin->cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) {
		ret = -ENOMEM;
		ws_error("%s: cannot start the capstone disassembler", path);
		goto error;
	}
	ret = read_sections(bin);
	if (ret < 0)
		goto error;
	bin->build_id = build_id_of(bin->elf);
	nfunc = read_symbols(bin, bin->elf, false, &names_alloc);
	/* Stripped: the debug file lib/symbols finds (build-id, .gnu_debuglink) has the .symtab. */
	if (nfunc <= 0 || bin->dynsym_only) {
		struct ws_symobj *o = dwarf_of(bin);
		const char *dbg = o ? ws_symobj_debugfile(o) : NULL;
		int dfd = dbg ? open(dbg, O_RDONLY | O_CLOEXEC) : -1;
		Elf *delf = dfd >= 0 ? elf_begin(dfd, ELF_C_READ_MMAP, NULL) : NULL;
		long ndbg;

		if (delf) {
			struct ws_asm_sym *keep = bin->syms;
			size_t nkeep = bin->nsyms, nnames = bin->nnames;
			bool dyn = bin->dynsym_only;

			bin->syms = NULL;
			bin->nsyms = 0;
			ndbg = read_symbols(bin, delf, true, &names_alloc);
			if (ndbg > 0) {
				syms_free(keep, nkeep);
				/* The .dynsym names read first stay: they name the same addresses. */
				bin->debug_path = xstrdup(dbg);
				nfunc = ndbg;
			} else {
				syms_free(bin->syms, bin->nsyms);
				bin->syms = keep;
				bin->nsyms = nkeep;
				for (size_t i = nnames; i < bin->nnames; i++)
					free(bin->names[i].name);
				bin->nnames = nnames;
				bin->dynsym_only = dyn;
			}
			elf_end(delf);
		}
		if (dfd >= 0)
			close(dfd);
	}
	if (nfunc < 0)
		nfunc = 0;
	bin->no_names = nfunc == 0;
	if ((nfunc == 0 || bin->dynsym_only) && !add_unnamed(bin, &names_alloc) && nfunc == 0) {
		ret = -ENODATA;
		ws_error("%s: %s; rebuild it without -s and do not strip it, or give asm-diff the unstripped copy",
			 path, ws_asm_bin_stripped(bin));
		goto error;
	}
	/* Functions first, so that ifunc GOT slots can be named after their resolvers. */
	sort_names(bin);
	read_plt_got(bin, &names_alloc);
	sort_names(bin);
	/* Once per file: asm-diff may be given one library twice, to compare two variants' counts in it. */
	if (bin->dynsym_only && !bin->no_names && (!bin->real || strcmp(bin->real, warned_dynsym))) {
		ws_log(WS_LOG_WARN, "%s: no .symtab and no debug file found; using .dynsym, which lists exported "
		       "functions only (the rest as whyslow's tables name it, '[unknown] FILE+0xADDR')", path);
		snprintf(warned_dynsym, sizeof(warned_dynsym), "%s", bin->real ? bin->real : "");
	} else if (bin->debug_path) {
		ws_log(WS_LOG_DEBUG, "%s: symbols from %s", path, bin->debug_path);
	}
	*out = bin;
	return 0;
error:
	ws_asm_bin_free(bin);
	return ret;
}

void ws_asm_bin_free(struct ws_asm_bin *bin)
{
	if (!bin)
		return;
	syms_free(bin->syms, bin->nsyms);
	ws_symbols_free(bin->symcache);
	free(bin->debug_path);
	for (size_t i = 0; i < bin->nnames; i++)
		free(bin->names[i].name);
	free(bin->names);
	for (size_t i = 0; i < bin->nsecs; i++)
		free(bin->secs[i].name);
	free(bin->secs);
	if (bin->cs)
		cs_close(&bin->cs);
	if (bin->elf)
		elf_end(bin->elf);
	if (bin->fd >= 0)
		close(bin->fd);
	free(bin->build_id);
	free(bin->real);
	free(bin->path);
	free(bin);
}
