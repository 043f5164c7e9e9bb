/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wsim-frames.c - where functions without symbols start, from an object's .eh_frame_hdr table. */

/*
 * A stripped object (every library a distribution ships without its debug package) has no symbol for most
 * of its code, but keeps .eh_frame, which C++ exceptions and backtraces need, and the linker's sorted index
 * of it, .eh_frame_hdr (PT_GNU_EH_FRAME): one entry per frame description (FDE), each covering one function
 * (or its cold part). So code without a symbol is counted per FDE, as "???fde:ADDR" with ADDR the link
 * address the FDE starts at, rather than as one "???" per object; whyslow names it "[unknown] OBJ+0xADDR",
 * and its perf backend finds the same FDE through elfutils (lib/symbols, ws_symobj_unnamed).
 *
 * Only the layout every x86-64 linker writes is read: version 1, a table of 4-byte offsets from the start
 * of the header (DW_EH_PE_datarel | DW_EH_PE_sdata4), a count of 4 bytes. Any other, or an object without
 * the header, keeps its one "???" function. Each FDE's length of code comes from the FDE itself, whose
 * start address is encoded as the CIE says: it is taken when that field, read as a 4-byte pc-relative
 * offset (what GCC and Clang emit) or as an 8-byte absolute address, gives back the table's start; else the
 * FDE is taken to reach the next one's start.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"

#include "wsim.h"

#include <elf.h>

#define SEEK_FROM_START 0 /* lseek's SEEK_SET, which Valgrind's amd64 vki headers do not name */
#define EH_PE_UDATA4 0x03
#define EH_PE_SDATA4 0x0b
#define EH_PE_UDATA8 0x04
#define EH_PE_SDATA8 0x0c
#define EH_PE_DATAREL_SDATA4 0x3b

struct frames {
	struct frames *next;
	const HChar *obj; /* interned: compared by pointer */
	PtrdiffT bias;
	Addr *start, *end; /* link addresses, ascending; [start, end) */
	UInt n;
};

static struct frames *all_frames;

static Bool read_at(Int fd, ULong off, void *buf, Int len)
{
	return VG_(lseek)(fd, (Off64T)off, SEEK_FROM_START) == (Off64T)off && VG_(read)(fd, buf, len) == len;
}

static UInt rd32(const UChar *p)
{
	UInt v;

	VG_(memcpy)(&v, p, sizeof(v));
	return v;
}

static ULong rd64(const UChar *p)
{
	ULong v;

	VG_(memcpy)(&v, p, sizeof(v));
	return v;
}

/* The PT_GNU_EH_FRAME segment of the ELF file `path`: its file offset, link address and size. */
static Bool find_eh_frame_hdr(const HChar *path, ULong *off, Addr *vaddr, ULong *size)
{
	SysRes r = VG_(open)(path, VKI_O_RDONLY, 0);
	Elf64_Ehdr eh;
	Bool found = False;
	Int fd, i;

	if (sr_isError(r))
		return False;
	fd = (Int)sr_Res(r);
	if (read_at(fd, 0, &eh, sizeof(eh)) && VG_(memcmp)(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
		for (i = 0; i < eh.e_phnum && !found; i++) {
			Elf64_Phdr ph;

			if (!read_at(fd, eh.e_phoff + (ULong)i * sizeof(ph), &ph, sizeof(ph)))
				break;
			if (ph.p_type == PT_GNU_EH_FRAME) {
				*off = ph.p_offset;
				*vaddr = ph.p_vaddr;
				*size = ph.p_filesz;
				found = True;
			}
		}
	}
	VG_(close)(fd);
	return found;
}

/*
 * Where the FDE at link address `fde` ends, given where the table says it starts, read from the client's
 * mapping of the object; 0 when its start field is in an encoding not read here.
 */
static Addr fde_end(Addr fde, Addr start, PtrdiffT bias)
{
	const UChar *p = (const UChar *)(fde + bias);

	if (!VG_(am_is_valid_for_client)((Addr)p, 24, VKI_PROT_READ) || rd32(p) == 0xffffffffu || rd32(p + 4) == 0)
		return 0;
	if (fde + 8 + (Addr)(Long)(Int)rd32(p + 8) == start)
		return start + rd32(p + 12);
	if (rd64(p + 8) == start)
		return start + rd64(p + 16);
	return 0;
}

static void load_frames(struct frames *f)
{
	ULong off, size;
	Addr hdr;
	UChar *buf;
	UInt count, i, p;
	Int fd;
	SysRes r;

	if (!find_eh_frame_hdr(f->obj, &off, &hdr, &size) || size < 12 || size > (1u << 30))
		return;
	r = VG_(open)(f->obj, VKI_O_RDONLY, 0);
	if (sr_isError(r))
		return;
	fd = (Int)sr_Res(r);
	buf = VG_(malloc)("wsim.frames.hdr", size);
	if (!read_at(fd, off, buf, (Int)size) || buf[0] != 1 || buf[3] != EH_PE_DATAREL_SDATA4)
		goto out;
	/* The pointer to .eh_frame, not needed, then the count (4 bytes), then the table at p. */
	switch (buf[1] & 0x0f) {
	case EH_PE_UDATA4: case EH_PE_SDATA4: p = 4 + 4 + 4; break;
	case EH_PE_UDATA8: case EH_PE_SDATA8: p = 4 + 8 + 4; break;
	default: goto out;
	}
	if (((buf[2] & 0x0f) != EH_PE_UDATA4 && (buf[2] & 0x0f) != EH_PE_SDATA4) || size < p)
		goto out;
	count = rd32(buf + p - 4);
	if (count == 0 || (ULong)count * 8 > size - p)
		goto out;
	f->start = VG_(malloc)("wsim.frames.start", count * sizeof(Addr));
	f->end = VG_(malloc)("wsim.frames.end", count * sizeof(Addr));
	for (i = 0; i < count; i++) {
		const UChar *e = buf + p + (SizeT)i * 8;

		f->start[i] = hdr + (Addr)(Long)(Int)rd32(e);
		f->end[i] = fde_end(hdr + (Addr)(Long)(Int)rd32(e + 4), f->start[i], f->bias);
		/* A table out of order would be searched wrongly: none then. */
		if (i > 0 && f->start[i] < f->start[i - 1])
			goto out;
	}
	for (i = 0; i < count; i++)
		if (f->end[i] <= f->start[i])
			f->end[i] = i + 1 < count ? f->start[i + 1] : f->start[i];
	f->n = count;
out:
	if (f->n == 0) {
		VG_(free)(f->start);
		VG_(free)(f->end);
		f->start = f->end = NULL;
	}
	VG_(free)(buf);
	VG_(close)(fd);
}

Bool wsim_frame_start(const HChar *obj, PtrdiffT bias, Addr a, Addr *start)
{
	struct frames *f;
	Addr svma = a - bias;
	UInt lo = 0, hi;

	for (f = all_frames; f; f = f->next)
		if (f->obj == obj && f->bias == bias)
			break;
	if (!f) {
		f = VG_(calloc)("wsim.frames", 1, sizeof(*f));
		f->obj = obj;
		f->bias = bias;
		load_frames(f);
		f->next = all_frames;
		all_frames = f;
	}
	/* The last FDE starting at or before the address, which must also cover it. */
	hi = f->n;
	while (lo < hi) {
		UInt mid = lo + (hi - lo) / 2;

		if (f->start[mid] <= svma)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || svma >= f->end[lo - 1])
		return False;
	*start = f->start[lo - 1];
	return True;
}
