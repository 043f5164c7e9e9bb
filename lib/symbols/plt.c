/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plt.c - PLT stubs and GOT slots named from the relocation table, for sampling profiles and asm-diff. */
#include "symbols/plt.h"
#include "core/util.h"

#include <capstone/capstone.h>
#include <elf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

static void add_slot(struct ws_elf_slot **v, size_t *n, size_t *alloc, uint64_t addr, uint64_t size, char *name)
{
	WS_ALLOC_GROW(*v, *n + 1, *alloc);
	(*v)[(*n)++] = (struct ws_elf_slot){ addr, size, name };
}

static int cmp_slots(const void *pa, const void *pb)
{
	const struct ws_elf_slot *a = pa, *b = pb;

	return (a->addr > b->addr) - (a->addr < b->addr);
}

size_t ws_elf_got_slots(Elf *elf, ws_elf_name_fn resolver, void *data, struct ws_elf_slot **out)
{
	struct ws_elf_slot *v = NULL;
	size_t n = 0, alloc = 0;
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Scn *symscn;
		Elf_Data *d, *symd;
		GElf_Shdr sh, symsh;
		size_t nrel;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !(sh.sh_flags & SHF_ALLOC) ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		symscn = sh.sh_link ? elf_getscn(elf, sh.sh_link) : NULL;
		symd = symscn ? elf_getdata(symscn, NULL) : NULL;
		if (symscn && !gelf_getshdr(symscn, &symsh))
			symd = NULL;
		nrel = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t j = 0; j < nrel; j++) {
			GElf_Rela r;
			GElf_Sym s;
			unsigned type;
			const char *name = NULL;

			if (!gelf_getrela(d, (int)j, &r))
				continue;
			type = (unsigned)GELF_R_TYPE(r.r_info);
			if (type == R_X86_64_IRELATIVE) {
				name = resolver ? resolver(data, (uint64_t)r.r_addend) : NULL;
				if (name && *name)
					add_slot(&v, &n, &alloc, r.r_offset, 8, xasprintf("%s@got", name));
				continue;
			}
			if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT && type != R_X86_64_64)
				continue;
			if (symd && gelf_getsym(symd, (int)GELF_R_SYM(r.r_info), &s))
				name = elf_strptr(elf, symsh.sh_link, s.st_name);
			if (name && *name)
				add_slot(&v, &n, &alloc, r.r_offset, 8, xasprintf("%s@got", name));
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_slots);
	*out = v;
	return n;
}

static const struct ws_elf_slot *slot_at(const struct ws_elf_slot *got, size_t ngot, uint64_t addr)
{
	struct ws_elf_slot key = { .addr = addr };

	return bsearch(&key, got, ngot, sizeof(*got), cmp_slots);
}

size_t ws_elf_plt_stubs(Elf *elf, const struct ws_elf_slot *got, size_t ngot, struct ws_elf_slot **out)
{
	struct ws_elf_slot *v = NULL;
	size_t n = 0, alloc = 0, shstrndx;
	Elf_Scn *scn = NULL;
	cs_insn *insn;
	csh cs;

	*out = NULL;
	if (!ngot || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return 0;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return 0;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	insn = cs_malloc(cs);
	while (insn && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *sname;
		Elf_Data *d;
		const uint8_t *p;
		size_t left;
		uint64_t addr, ent;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_type == SHT_NOBITS)
			continue;
		sname = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!sname || strncmp(sname, ".plt", 4) || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		ent = sh.sh_entsize >= 8 ? sh.sh_entsize : 16;
		p = d->d_buf;
		left = d->d_size;
		addr = sh.sh_addr;
		while (left) {
			const cs_x86 *x;
			const struct ws_elf_slot *slot;
			uint64_t start;
			const char *at;

			if (!cs_disasm_iter(cs, &p, &left, &addr, insn)) {
				p++, left--, addr++;
				continue;
			}
			x = &insn->detail->x86;
			if (insn->id != X86_INS_JMP || x->op_count != 1 || x->operands[0].type != X86_OP_MEM ||
			    x->operands[0].mem.base != X86_REG_RIP)
				continue;
			slot = slot_at(got, ngot, insn->address + insn->size + (uint64_t)x->operands[0].mem.disp);
			if (!slot || !(at = strrchr(slot->name, '@')))
				continue;
			start = sh.sh_addr + (insn->address - sh.sh_addr) / ent * ent;
			add_slot(&v, &n, &alloc, start, ent, xasprintf("%.*s@plt", (int)(at - slot->name), slot->name));
		}
	}
	if (insn)
		cs_free(insn, 1);
	cs_close(&cs);
	if (n)
		qsort(v, n, sizeof(*v), cmp_slots);
	*out = v;
	return n;
}

void ws_elf_slots_free(struct ws_elf_slot *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}
