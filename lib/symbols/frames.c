/* SPDX-License-Identifier: GPL-2.0-or-later */
/* frames.c - where functions without symbols start and end, from an ELF file's .eh_frame_hdr table. */
#include "symbols/frames.h"
#include "core/util.h"

#include <dwarf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

/* The file bytes of the PT_LOAD segment that holds link address `vaddr`, and that segment's address. */
static const unsigned char *segment_at(Elf *elf, size_t phnum, uint64_t vaddr, uint64_t *seg_vaddr, size_t *size)
{
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);
		Elf_Data *d;

		if (!ph || ph->p_type != PT_LOAD || vaddr < ph->p_vaddr || vaddr - ph->p_vaddr >= ph->p_filesz)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)ph->p_offset, ph->p_filesz, ELF_T_BYTE);
		if (!d || !d->d_buf)
			return NULL;
		*seg_vaddr = ph->p_vaddr;
		*size = d->d_size;
		return d->d_buf;
	}
	return NULL;
}

/* Where the FDE at link address `fde` ends, given the table's start for it; 0 when it does not read back. */
static uint64_t fde_end(const unsigned char *seg, uint64_t seg_vaddr, size_t seg_size, uint64_t fde,
			uint64_t start)
{
	const unsigned char *p;

	if (!seg || fde < seg_vaddr || fde - seg_vaddr > seg_size || seg_size - (fde - seg_vaddr) < 24)
		return 0;
	p = seg + (fde - seg_vaddr);
	/* A 64-bit length, or a CIE (id 0) where an FDE should be: not read. */
	if (ws_get32(p) == 0xffffffffu || ws_get32(p + 4) == 0)
		return 0;
	if (fde + 8 + (uint64_t)(int64_t)(int32_t)ws_get32(p + 8) == start)
		return start + ws_get32(p + 12);
	if (ws_get64(p + 8) == start)
		return start + ws_get64(p + 16);
	return 0;
}

size_t ws_elf_frames(Elf *elf, struct ws_frame **out)
{
	const unsigned char *h = NULL, *seg = NULL;
	size_t phnum, size = 0, p, seg_size = 0, n = 0;
	uint64_t hdr = 0, seg_vaddr = 0;
	struct ws_frame *v;
	uint32_t count;

	*out = NULL;
	if (elf_getphdrnum(elf, &phnum))
		return 0;
	for (size_t i = 0; i < phnum && !h; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);
		Elf_Data *d;

		if (!ph || ph->p_type != PT_GNU_EH_FRAME)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)ph->p_offset, ph->p_filesz, ELF_T_BYTE);
		if (d && d->d_buf) {
			h = d->d_buf;
			size = d->d_size;
			hdr = ph->p_vaddr;
		}
	}
	/* The pointer to .eh_frame (4 or 8 bytes by its encoding), then the count, then the table. */
	if (!h || size < 12 || h[0] != 1 || h[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return 0;
	switch (h[1] & 0x0f) {
	case DW_EH_PE_udata4: case DW_EH_PE_sdata4: p = 4 + 4 + 4; break;
	case DW_EH_PE_udata8: case DW_EH_PE_sdata8: p = 4 + 8 + 4; break;
	default: return 0;
	}
	if (((h[2] & 0x0f) != DW_EH_PE_udata4 && (h[2] & 0x0f) != DW_EH_PE_sdata4) || size < p)
		return 0;
	count = ws_get32(h + p - 4);
	if (!count || (uint64_t)count * 8 > size - p)
		return 0;
	v = xcalloc(count, sizeof(*v));
	for (size_t i = 0; i < count; i++) {
		const unsigned char *e = h + p + i * 8;
		uint64_t fde = hdr + (uint64_t)(int64_t)(int32_t)ws_get32(e + 4);

		v[i].start = hdr + (uint64_t)(int64_t)(int32_t)ws_get32(e);
		/* A table out of order would be searched wrongly: none then. */
		if (i && v[i].start < v[i - 1].start) {
			free(v);
			return 0;
		}
		if (!seg || fde < seg_vaddr || fde - seg_vaddr >= seg_size)
			seg = segment_at(elf, phnum, fde, &seg_vaddr, &seg_size);
		v[i].end = fde_end(seg, seg_vaddr, seg_size, fde, v[i].start);
		n++;
	}
	for (size_t i = 0; i < n; i++)
		if (v[i].end <= v[i].start)
			v[i].end = i + 1 < n ? v[i + 1].start : v[i].start;
	*out = v;
	return n;
}

const struct ws_frame *ws_frame_find(const struct ws_frame *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	/* The last frame starting at or before the address, which must also reach it (frames do not overlap). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < v[lo - 1].end ? &v[lo - 1] : NULL;
}
