/* SPDX-License-Identifier: GPL-2.0-or-later */
/* symbols.c - a per-object cache of libdwfl modules: link address -> function, source file and line. */
#include "symbols/symbols.h"
#include "core/log.h"
#include "core/util.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One PT_LOAD segment: the file bytes [off, off + filesz) sit at link address vaddr. */
struct seg {
	uint64_t off, filesz, vaddr;
};

struct ws_symobj {
	char *path;
	/* What the file was when it was read, to notice a rebuilt binary between runs. */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	int err; /* 0, or the -errno that ws_symbols_get() keeps returning for this path */
	bool stale;

	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct seg *segs;
	size_t nr_segs;

	bool symsrc_known;
	bool hinted;
	enum ws_symsrc symsrc;
	struct ws_symobj *next;
};

struct ws_symbols {
	struct ws_symobj *head;
};

/*
 * Offline reporting: each object is a module at its own link addresses (base 0, add_p_vaddr), never at a
 * process's load address, so one module serves every mapping of the file. The standard debuginfo finder
 * follows .gnu_debuglink (next to the file, in .debug/, under /usr/lib/debug) and the build-id under
 * /usr/lib/debug/.build-id, which is what "the .debug link where present" asks for.
 */
static char *debuginfo_path;
static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

struct ws_symbols *ws_symbols_new(void)
{
	/* libelf refuses every call until the version handshake has been made once in the process. */
	elf_version(EV_CURRENT);
	return xcalloc(1, sizeof(struct ws_symbols));
}

static void symobj_free(struct ws_symobj *o)
{
	if (o->dwfl)
		dwfl_end(o->dwfl);
	free(o->segs);
	free(o->path);
	free(o);
}

void ws_symbols_free(struct ws_symbols *s)
{
	struct ws_symobj *o, *next;

	if (!s)
		return;
	for (o = s->head; o; o = next) {
		next = o->next;
		symobj_free(o);
	}
	free(s);
}

static bool same_file(const struct ws_symobj *o, const struct stat *st)
{
	return o->dev == st->st_dev && o->ino == st->st_ino && o->size == st->st_size &&
	       o->mtime.tv_sec == st->st_mtim.tv_sec && o->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* Read the PT_LOAD table; the module is only useful with it, since samples arrive as file offsets. */
static int read_segments(struct ws_symobj *o)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(o->mod, &bias);
	size_t phnum, i, alloc = 0;

	if (!elf || elf_getphdrnum(elf, &phnum))
		return -ENOEXEC;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);

		if (!ph || ph->p_type != PT_LOAD)
			continue;
		WS_ALLOC_GROW(o->segs, o->nr_segs + 1, alloc);
		o->segs[o->nr_segs].off = ph->p_offset;
		o->segs[o->nr_segs].filesz = ph->p_filesz;
		/* Module addresses are link addresses plus the module's bias (0 as reported, but ask). */
		o->segs[o->nr_segs].vaddr = ph->p_vaddr + bias;
		o->nr_segs++;
	}
	return o->nr_segs ? 0 : -ENOEXEC;
}

static int symobj_open(struct ws_symobj *o)
{
	const char *base = strrchr(o->path, '/');
	int ret;

	o->dwfl = dwfl_begin(&offline_callbacks);
	if (!o->dwfl) {
		ws_log(WS_LOG_DEBUG, "symbols: %s: %s", o->path, dwfl_errmsg(-1));
		return -ENOMEM;
	}
	dwfl_report_begin(o->dwfl);
	errno = 0;
	o->mod = dwfl_report_elf(o->dwfl, base ? base + 1 : o->path, o->path, -1, 0, true);
	ret = errno == EACCES || errno == ENOENT ? -errno : -ENOEXEC;
	if (dwfl_report_end(o->dwfl, NULL, NULL) || !o->mod) {
		ws_log(WS_LOG_DEBUG, "symbols: %s: %s", o->path, dwfl_errmsg(-1));
		return ret;
	}
	ret = read_segments(o);
	if (ret)
		ws_log(WS_LOG_DEBUG, "symbols: %s: no loadable segments", o->path);
	return ret;
}

int ws_symbols_get(struct ws_symbols *s, const char *path, struct ws_symobj **out)
{
	struct ws_symobj *o;
	struct stat st;
	bool have_st;
	int stat_err;

	*out = NULL;
	have_st = stat(path, &st) == 0;
	stat_err = have_st ? 0 : errno;
	for (o = s->head; o; o = o->next) {
		if (o->stale || strcmp(o->path, path))
			continue;
		/*
		 * The same file as before, or a file that is gone now: the module read earlier still holds the
		 * file open, so a binary deleted after its run (a temporary build) still resolves. A file that
		 * changed on disk, or appeared since it was found missing, is read again.
		 */
		if (!have_st || same_file(o, &st)) {
			*out = o->err ? NULL : o;
			return o->err;
		}
		o->stale = true;
	}

	o = xcalloc(1, sizeof(*o));
	o->path = xstrdup(path);
	o->next = s->head;
	s->head = o;
	if (!have_st) {
		o->err = -stat_err;
		ws_log(WS_LOG_DEBUG, "symbols: %s: %s", path, strerror(stat_err));
		return o->err;
	}
	o->dev = st.st_dev;
	o->ino = st.st_ino;
	o->size = st.st_size;
	o->mtime = st.st_mtim;
	o->err = symobj_open(o);
	if (o->err) {
		/* Keep the entry as a remembered failure, but without the half-built module. */
		if (o->dwfl)
			dwfl_end(o->dwfl);
		o->dwfl = NULL;
		o->mod = NULL;
		return o->err;
	}
	*out = o;
	return 0;
}

int ws_symobj_vaddr(const struct ws_symobj *o, uint64_t file_offset, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < o->nr_segs; i++) {
		const struct seg *sg = &o->segs[i];

		if (file_offset >= sg->off && file_offset - sg->off < sg->filesz) {
			*vaddr = sg->vaddr + (file_offset - sg->off);
			return 0;
		}
	}
	return -ERANGE;
}

int ws_symobj_lookup(struct ws_symobj *o, uint64_t vaddr, struct ws_sym *sym)
{
	GElf_Off off = 0;
	GElf_Sym es;
	const char *name;

	name = dwfl_module_addrinfo(o->mod, vaddr, &off, &es, NULL, NULL, NULL);
	if (!name || !*name)
		return -ENOENT;
	/*
	 * Only code symbols name a function. A data or section symbol that happens to precede the address (a
	 * stripped object keeps a few in .dynsym) would put a wrong name on the samples; [unknown] is honest.
	 */
	switch (GELF_ST_TYPE(es.st_info)) {
	case STT_FUNC:
	case STT_GNU_IFUNC:
	case STT_NOTYPE: /* hand-written assembly often leaves its functions untyped */
		break;
	default:
		return -ENOENT;
	}
	sym->name = name;
	sym->start = vaddr - off;
	sym->offset = off;
	return 0;
}

int ws_symobj_srcline(struct ws_symobj *o, uint64_t vaddr, const char **file, unsigned *line)
{
	Dwfl_Line *l = dwfl_module_getsrc(o->mod, vaddr);
	const char *f;
	int lineno = 0;

	if (!l)
		return -ENOENT;
	f = dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL);
	if (!f || lineno <= 0)
		return -ENOENT;
	*file = f;
	*line = (unsigned)lineno;
	return 0;
}

static bool elf_file_has_symtab(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	Elf_Scn *scn = NULL;
	bool found = false;

	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);

		/* A debug file's .symtab is real; NOBITS sections are the stubs objcopy leaves. */
		if (sh && sh->sh_type == SHT_SYMTAB && sh->sh_size > 0) {
			found = true;
			break;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

const char *ws_symobj_debugfile(struct ws_symobj *o)
{
	const char *debugfile = NULL;
	Dwarf_Addr bias;

	/* Asking for DWARF is what makes libdwfl look for the separate debug file. */
	dwfl_module_getdwarf(o->mod, &bias);
	dwfl_module_info(o->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	if (debugfile && !strcmp(debugfile, o->path))
		return NULL;
	return debugfile;
}

enum ws_symsrc ws_symobj_symsrc(struct ws_symobj *o)
{
	const char *debugfile;

	if (o->symsrc_known)
		return o->symsrc;
	o->symsrc_known = true;
	if (elf_file_has_symtab(o->path)) {
		o->symsrc = WS_SYMSRC_SYMTAB;
		return o->symsrc;
	}
	debugfile = ws_symobj_debugfile(o);
	if (debugfile && elf_file_has_symtab(debugfile))
		o->symsrc = WS_SYMSRC_DEBUG;
	else
		o->symsrc = dwfl_module_getsymtab(o->mod) > 0 ? WS_SYMSRC_DYNSYM : WS_SYMSRC_NONE;
	return o->symsrc;
}

bool ws_symobj_first_hint(struct ws_symobj *o)
{
	bool first = !o->hinted;

	o->hinted = true;
	return first;
}
