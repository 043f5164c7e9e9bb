/* SPDX-License-Identifier: GPL-2.0-or-later */
/* symbols.c - a per-object cache of libdwfl modules: link address -> function, inline chain, source line. */
#include "symbols/symbols.h"
#include "symbols/frames.h"
#include "symbols/names.h"
#include "symbols/plt.h"
#include "core/log.h"
#include "core/util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <math.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* One PT_LOAD segment: the file bytes [off, off + filesz) sit at link address vaddr. */
struct seg {
	uint64_t off, filesz, vaddr;
};

/*
 * What was worked out once per key, kept for the cache's life: a symbol's demangled name (keyed by the symbol
 * table string libdwfl hands out, which is stable), an address's inline chain. Open addressing.
 */
struct memo_slot {
	uint64_t key;
	bool used;
	void *val;
	size_t n;
};

struct memo {
	struct memo_slot *v;
	size_t nr, cap;
};

struct fn_range;

/*
 * A sized symbol by address: [start, end), its index in libdwfl's table, the greatest end up to it, and its
 * binding ranked as libdwfl ranks it (global 3, weak 2, local 1, other 0).
 */
struct addr_sym {
	uint64_t start, end, max_end;
	int ndx, rank;
};

/* A function symbol by its table name, for ws_symobj_find(). */
struct byname {
	const char *symbol;
	uint64_t addr;
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

	struct memo demangled; /* symbol -> its demangled name */
	struct byname *names; /* sorted by symbol, read on the first ws_symobj_find() */
	size_t nr_names;
	bool names_read;
	struct ws_elf_slot *plt; /* PLT stubs, sorted by address, read on the first lookup that misses */
	size_t nr_plt;
	char **plt_names;        /* their demangled names */
	bool plt_read;
	struct memo inlines;   /* address -> its inline chain */
	struct memo qualified; /* abstract origin (DIE offset) -> its qualified_name(), for inlined code */
	char **closures;       /* demangled symbols that name a C++ closure type, read when first needed */
	size_t nr_closures;
	bool closures_read;
	struct memo closure_names; /* closure type (DIE offset) -> closure_name(), NULL where not known */
	struct memo types;     /* type (DIE offset) -> type_spelling(), NULL where it spells none */
	bool spell_cut;        /* a spelling from DWARF stopped at SPELL_DEPTH since this was last cleared */
	struct memo unnamed;   /* start of a frame without a symbol -> its name, "[unknown]+0x1f2a0" */
	struct addr_sym *by_addr; /* sized symbols by start, for lookups without libdwfl's scan (quick_lookup) */
	size_t nr_by_addr;
	uint64_t *sizeless;       /* the starts of sizeless symbols, ascending */
	size_t nr_sizeless;
	bool by_addr_read;
	struct ws_frame *frames; /* .eh_frame_hdr's frames, ascending, module addresses; read on first question */
	size_t nr_frames;
	bool frames_read;
	struct fn_range *fn_ranges; /* DWARF functions by address, read on the first DWARF question */
	size_t nr_fn_ranges;
	bool fn_ranges_read;
	struct inlined *inl; /* every inlined instance by the function holding it, read on the first question */
	size_t nr_inl;
	bool inl_read;
	Dwarf *dwarf;
	Dwarf_Addr dwarf_bias;
	struct ws_symobj *next;
};

struct ws_symbols {
	struct ws_symobj *head;
};

/*
 * Offline reporting: each object is a module at its own link addresses (base 0, add_p_vaddr), never at a
 * process's load address, so one module serves every mapping of the file. libdwfl's standard finder is the
 * whole search of symbols.h: the object, the build-id under each absolute directory of debuginfo_path, the
 * .gnu_debuglink next to the file, in .debug/ and under those directories, then debuginfod when
 * DEBUGINFOD_URLS is set. debuginfo_path is ":.debug:DIR"; elfutils' own default is the same with
 * /usr/lib/debug, so only the test interface changes anything.
 */
static char *debuginfo_path;
static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

const char *ws_symbols_debug_dir(void)
{
	const char *dir = getenv("WHYSLOW_DEBUG_DIR");

	return dir && *dir ? dir : "/usr/lib/debug";
}

struct ws_symbols *ws_symbols_new(void)
{
	/* libelf refuses every call until the version handshake has been made once in the process. */
	elf_version(EV_CURRENT);
	free(debuginfo_path);
	debuginfo_path = xasprintf(":.debug:%s", ws_symbols_debug_dir());
	return xcalloc(1, sizeof(struct ws_symbols));
}

static void inlines_free(struct ws_inline *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].call_file);
	}
	free(v);
}

/* An inlined instance: the inlined function's names (as ws_sym_match() takes them) and the function it is in. */
struct inlined {
	char *symbol; /* mangled, or NULL */
	char *name, *shortname, *holder;
};

static void symobj_free(struct ws_symobj *o)
{
	for (size_t i = 0; i < o->nr_inl; i++) {
		free(o->inl[i].symbol);
		free(o->inl[i].name);
		free(o->inl[i].shortname);
		free(o->inl[i].holder);
	}
	free(o->inl);
	for (size_t i = 0; i < o->inlines.cap; i++)
		if (o->inlines.v[i].used)
			inlines_free(o->inlines.v[i].val, o->inlines.v[i].n);
	free(o->inlines.v);
	free(o->fn_ranges);
	for (size_t i = 0; i < o->demangled.cap; i++)
		free(o->demangled.v[i].val);
	free(o->demangled.v);
	for (size_t i = 0; i < o->qualified.cap; i++)
		free(o->qualified.v[i].val);
	free(o->qualified.v);
	for (size_t i = 0; i < o->unnamed.cap; i++)
		free(o->unnamed.v[i].val);
	free(o->unnamed.v);
	free(o->frames);
	free(o->by_addr);
	free(o->sizeless);
	free(o->names);
	for (size_t i = 0; i < o->nr_plt; i++)
		free(o->plt_names[i]);
	free(o->plt_names);
	for (size_t i = 0; i < o->nr_closures; i++)
		free(o->closures[i]);
	free(o->closures);
	for (size_t i = 0; i < o->closure_names.cap; i++)
		free(o->closure_names.v[i].val);
	free(o->closure_names.v);
	for (size_t i = 0; i < o->types.cap; i++)
		free(o->types.v[i].val);
	free(o->types.v);
	ws_elf_slots_free(o->plt, o->nr_plt);
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

static uint64_t key_hash(uint64_t k)
{
	k *= 0x9e3779b97f4a7c15ULL;
	return k ^ (k >> 31);
}

/* The slot of `key` in `m`, a new one (not `used` yet) when the key was never seen. */
static struct memo_slot *memo_slot(struct memo *m, uint64_t key)
{
	size_t i, mask;

	if ((m->nr + 1) * 2 > m->cap) {
		struct memo_slot *old = m->v;
		size_t old_cap = m->cap;

		m->cap = old_cap ? old_cap * 2 : 256;
		m->v = xcalloc(m->cap, sizeof(*m->v));
		for (size_t k = 0; k < old_cap; k++) {
			if (!old[k].used)
				continue;
			for (i = key_hash(old[k].key) & (m->cap - 1); m->v[i].used; i = (i + 1) & (m->cap - 1))
				;
			m->v[i] = old[k];
		}
		free(old);
	}
	mask = m->cap - 1;
	for (i = key_hash(key) & mask; m->v[i].used; i = (i + 1) & mask)
		if (m->v[i].key == key)
			return &m->v[i];
	m->v[i].key = key;
	return &m->v[i];
}

/*
 * The end of a spelling kept per DIE (type_spelling(), closure_name()): `out` is kept under `key` unless
 * SPELL_DEPTH cut it short, the slot looked up again (spelling it may have spelled others and grown the
 * table), and the caller's cut flag, `cut`, comes back. Returns `out`.
 */
static char *memo_keep(struct ws_symobj *o, struct memo *m, uint64_t key, char *out, bool cut)
{
	if (!o->spell_cut) {
		struct memo_slot *sl = memo_slot(m, key);

		sl->used = true;
		sl->val = out ? xstrdup(out) : NULL;
		m->nr++;
	}
	o->spell_cut |= cut;
	return out;
}

/* The demangled name of `symbol`, made on first use and kept: names are demangled once, here. */
static const char *demangled(struct ws_symobj *o, const char *symbol)
{
	struct memo_slot *sl = memo_slot(&o->demangled, (uint64_t)(uintptr_t)symbol);

	if (!sl->used) {
		sl->used = true;
		sl->val = ws_sym_demangle(symbol);
		o->demangled.nr++;
	}
	return sl->val;
}

/* An IRELATIVE slot's resolver, by the symbol at its address. */
static const char *resolver_name(void *data, uint64_t addr)
{
	struct ws_symobj *o = data;
	GElf_Off off = 0;
	GElf_Sym es;
	const char *name = dwfl_module_addrinfo(o->mod, addr, &off, &es, NULL, NULL, NULL);

	return name && !off ? name : NULL;
}

static void read_plt(struct ws_symobj *o)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(o->mod, &bias);
	struct ws_elf_slot *got = NULL;
	size_t ngot;

	o->plt_read = true;
	if (!elf)
		return;
	ngot = ws_elf_got_slots(elf, resolver_name, o, &got);
	o->nr_plt = ws_elf_plt_stubs(elf, got, ngot, &o->plt);
	ws_elf_slots_free(got, ngot);
	o->plt_names = xcalloc(o->nr_plt + 1, sizeof(*o->plt_names));
	for (size_t i = 0; i < o->nr_plt; i++) {
		char *at = strrchr(o->plt[i].name, '@'), *callee = xstrndup(o->plt[i].name, (size_t)(at - o->plt[i].name));
		char *d = ws_sym_demangle(callee);

		/* Link addresses of the module: the object's own plus libdwfl's bias (0 as reported). */
		o->plt[i].addr += bias;
		o->plt_names[i] = xasprintf("%s%s", d, at);
		free(d);
		free(callee);
	}
}

/* The PLT stub holding `vaddr`, or -ENOENT. */
static int plt_lookup(struct ws_symobj *o, uint64_t vaddr, struct ws_sym *sym)
{
	size_t lo = 0, hi;

	if (!o->plt_read)
		read_plt(o);
	hi = o->nr_plt;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ws_elf_slot *e = &o->plt[mid];

		if (vaddr < e->addr) {
			hi = mid;
		} else if (vaddr - e->addr >= e->size) {
			lo = mid + 1;
		} else {
			sym->name = o->plt_names[mid];
			sym->symbol = e->name;
			sym->start = e->addr;
			sym->size = e->size;
			sym->offset = vaddr - e->addr;
			return 0;
		}
	}
	return -ENOENT;
}

static int cmp_addr_sym(const void *a, const void *b)
{
	const struct addr_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->ndx > y->ndx) - (x->ndx < y->ndx);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Every defined symbol libdwfl may answer with (not sections, files or TLS), sized ones by start, sizeless apart. */
static void read_by_addr(struct ws_symobj *o)
{
	int n = dwfl_module_getsymtab(o->mod);
	size_t alloc = 0, salloc = 0;

	o->by_addr_read = true;
	for (int i = 1; i < n; i++) {
		GElf_Sym es;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(o->mod, i, &es, &addr, &shndx, NULL, NULL);
		unsigned type = GELF_ST_TYPE(es.st_info);

		if (!name || !*name || shndx == SHN_UNDEF || type == STT_SECTION || type == STT_FILE || type == STT_TLS)
			continue;
		if (!es.st_size) {
			WS_ALLOC_GROW(o->sizeless, o->nr_sizeless + 1, salloc);
			o->sizeless[o->nr_sizeless++] = addr;
			continue;
		}
		WS_ALLOC_GROW(o->by_addr, o->nr_by_addr + 1, alloc);
		o->by_addr[o->nr_by_addr++] = (struct addr_sym){
			addr, addr + es.st_size, 0, i,
			GELF_ST_BIND(es.st_info) == STB_GLOBAL ? 3 : GELF_ST_BIND(es.st_info) == STB_WEAK ? 2
				: GELF_ST_BIND(es.st_info) == STB_LOCAL ? 1 : 0,
		};
	}
	if (o->nr_by_addr)
		qsort(o->by_addr, o->nr_by_addr, sizeof(*o->by_addr), cmp_addr_sym);
	if (o->nr_sizeless)
		qsort(o->sizeless, o->nr_sizeless, sizeof(*o->sizeless), cmp_u64);
	for (size_t i = 0; i < o->nr_by_addr; i++)
		o->by_addr[i].max_end = i && o->by_addr[i - 1].max_end > o->by_addr[i].end ? o->by_addr[i - 1].max_end
										      : o->by_addr[i].end;
}

/*
 * The symbol libdwfl would give for `vaddr`, where its rules give it plainly: the sized symbols that cover
 * the address all start at one place and have one size (aliases, such as a C++ constructor's C1 and C2),
 * each bound global, weak or local, and no sizeless one lies between there and the address. Of such aliases
 * libdwfl keeps the first of the best binding, scanning its table in order (globals first, then locals,
 * both ascending). Anything else (aliases of two sizes, a unique or other binding, which libdwfl ranks below
 * local but finds among the globals, overlapping symbols, labels) goes to libdwfl: the symbol's table
 * index, or -1 to ask libdwfl. dwfl_module_addrinfo() scans
 * the whole table on every call: cc1, with 28,900 dynamic symbols, took 5 s of a `stat --functions` of
 * `gcc -O2 -S` (one look-up per function, 6,980 of them) against 5.5 s for the simulation. unit-symbols
 * checks that both ways give the same answer on every function of the C library and the test programs.
 */
static int quick_lookup(struct ws_symobj *o, uint64_t vaddr)
{
	size_t lo = 0, hi, first, best;
	const struct addr_sym *a;

	if (!o->by_addr_read)
		read_by_addr(o);
	for (hi = o->nr_by_addr; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->by_addr[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	a = &o->by_addr[lo - 1];
	/* The aliases starting where the last symbol at or before the address starts: by_addr[first..lo). */
	for (first = lo - 1; first > 0 && o->by_addr[first - 1].start == a->start; first--)
		;
	if (first > 0 && o->by_addr[first - 1].max_end > vaddr)
		return -1;
	best = SIZE_MAX;
	for (size_t i = first; i < lo; i++) {
		const struct addr_sym *c = &o->by_addr[i];

		if (vaddr >= c->end)
			continue;
		if (c->rank == 0 || (best != SIZE_MAX && c->end != o->by_addr[best].end))
			return -1;
		if (best == SIZE_MAX || c->rank > o->by_addr[best].rank ||
		    (c->rank == o->by_addr[best].rank && c->ndx < o->by_addr[best].ndx))
			best = i;
	}
	if (best == SIZE_MAX)
		return -1;
	/* A sizeless symbol in [a->start, vaddr]: the first at or after a->start. */
	for (lo = 0, hi = o->nr_sizeless; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->sizeless[mid] < a->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < o->nr_sizeless && o->sizeless[lo] <= vaddr)
		return -1;
	return o->by_addr[best].ndx;
}

static int symobj_lookup(struct ws_symobj *o, uint64_t vaddr, struct ws_sym *sym, bool quick);

int ws_symobj_lookup(struct ws_symobj *o, uint64_t vaddr, struct ws_sym *sym)
{
	return symobj_lookup(o, vaddr, sym, true);
}

int ws_symobj_lookup_slow(struct ws_symobj *o, uint64_t vaddr, struct ws_sym *sym)
{
	return symobj_lookup(o, vaddr, sym, false);
}

static int symobj_lookup(struct ws_symobj *o, uint64_t vaddr, struct ws_sym *sym, bool quick)
{
	GElf_Off off = 0;
	GElf_Sym es;
	const char *name = NULL;
	int ndx;

	/* First the PLT: no symbol covers a stub, but a sizeless one before the section might seem to. */
	if (!plt_lookup(o, vaddr, sym))
		return 0;
	ndx = quick ? quick_lookup(o, vaddr) : -1;
	if (ndx >= 0) {
		GElf_Addr addr;

		name = dwfl_module_getsym_info(o->mod, ndx, &es, &addr, NULL, NULL, NULL);
		off = vaddr - addr;
	}
	if (!name)
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
	sym->symbol = name;
	sym->name = demangled(o, name);
	sym->start = vaddr - off;
	sym->size = es.st_size;
	sym->offset = off;
	return 0;
}

static int cmp_byname(const void *a, const void *b)
{
	const struct byname *x = a, *y = b;
	int c = strcmp(x->symbol, y->symbol);

	return c ? c : (x->addr > y->addr) - (x->addr < y->addr);
}

static void read_names(struct ws_symobj *o)
{
	int n = dwfl_module_getsymtab(o->mod);
	size_t alloc = 0;

	o->names_read = true;
	for (int i = 1; i < n; i++) {
		GElf_Sym es;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(o->mod, i, &es, &addr, NULL, NULL, NULL);
		unsigned type = GELF_ST_TYPE(es.st_info);

		if (!name || !*name || es.st_shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE))
			continue;
		WS_ALLOC_GROW(o->names, o->nr_names + 1, alloc);
		o->names[o->nr_names++] = (struct byname){ name, addr };
	}
	if (o->nr_names)
		qsort(o->names, o->nr_names, sizeof(*o->names), cmp_byname);
}

int ws_symobj_find(struct ws_symobj *o, const char *symbol, struct ws_sym *sym)
{
	struct byname key = { symbol, 0 };
	size_t lo = 0, hi;
	char *plain = NULL;
	int ret = -ENOENT;

	if (!o->names_read)
		read_names(o);
	/* A versioned name as some readers spell it, "memcpy@@GLIBC_2.14", is "memcpy" in the table. */
	if (strchr(symbol, '@') && symbol[0] != '@') {
		plain = xstrndup(symbol, strcspn(symbol, "@"));
		key.symbol = plain;
	}
	hi = o->nr_names;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(o->names[mid].symbol, key.symbol) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < o->nr_names && !strcmp(o->names[lo].symbol, key.symbol)) {
		ret = ws_symobj_lookup(o, o->names[lo].addr, sym);
		/* Not the function's start after all (a label inside another): keep the name asked for. */
		if (ret || sym->offset) {
			sym->symbol = o->names[lo].symbol;
			sym->name = demangled(o, o->names[lo].symbol);
			sym->start = o->names[lo].addr;
			sym->offset = 0;
			ret = 0;
		}
	}
	free(plain);
	return ret;
}

/* ---- DWARF: function names of instances, inline chains ----------------------------------------------- */

/* The DIE's own name, through DW_AT_abstract_origin and DW_AT_specification. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
}

static const char *die_linkage_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));

	return s ? s : dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
}

/* A function's code range from DWARF: [start, end) in module addresses, and its DIE. */
struct fn_range {
	uint64_t start, end;
	Dwarf_Off die;
};

static int cmp_ranges(const void *pa, const void *pb)
{
	const struct fn_range *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->end > b->end) - (a->end < b->end);
}

struct ranges_arg {
	struct ws_symobj *o;
	Dwarf_Addr bias;
	size_t alloc;
};

static int add_function(Dwarf_Die *fn, void *arg)
{
	struct ranges_arg *a = arg;
	struct ws_symobj *o = a->o;
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(fn, off, &base, &start, &end)) > 0) {
		if (end <= start)
			continue;
		WS_ALLOC_GROW(o->fn_ranges, o->nr_fn_ranges + 1, a->alloc);
		o->fn_ranges[o->nr_fn_ranges++] = (struct fn_range){ start + a->bias, end + a->bias, dwarf_dieoffset(fn) };
	}
	return DWARF_CB_OK;
}

/*
 * Every function with code, by address, from each CU's DIEs. dwarf_getscopes() would find the scopes of an
 * address directly, but it does not descend into DIEs without addresses, and Rust nests its functions in
 * namespaces ("r1cs::cs::{impl#0}"); dwarf_getfuncs() does, so the index is made once per object with it.
 */
static void read_fn_ranges(struct ws_symobj *o)
{
	struct ranges_arg a = { o, 0, 0 };
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias = 0;

	o->fn_ranges_read = true;
	o->dwarf = dwfl_module_getdwarf(o->mod, &bias);
	if (!o->dwarf)
		return;
	o->dwarf_bias = bias;
	while ((cu = dwfl_module_nextcu(o->mod, cu, &bias))) {
		a.bias = bias;
		dwarf_getfuncs(cu, add_function, &a, 0);
	}
	if (o->nr_fn_ranges)
		qsort(o->fn_ranges, o->nr_fn_ranges, sizeof(*o->fn_ranges), cmp_ranges);
}

/* The DWARF function whose code holds `vaddr` (the innermost of nested ranges), in *fn. */
static bool function_die(struct ws_symobj *o, uint64_t vaddr, Dwarf_Die *fn)
{
	size_t lo = 0, hi, best = SIZE_MAX;

	if (!o->fn_ranges_read)
		read_fn_ranges(o);
	hi = o->nr_fn_ranges;
	/* The last range starting at or before vaddr, then back over the few that might still cover it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->fn_ranges[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, steps = 0; i > 0 && steps < 64; i--, steps++)
		if (vaddr < o->fn_ranges[i - 1].end) {
			best = i - 1;
			break;
		}
	return best != SIZE_MAX && dwarf_offdie(o->dwarf, o->fn_ranges[best].die, fn) != NULL;
}

/*
 * The scopes inside function `fn` that hold `pc` (a DWARF address), outermost first: inlined subroutines and
 * the lexical blocks around them. Returns how many were put in chain[] (at most `max`).
 */
static size_t inner_scopes(Dwarf_Die *fn, Dwarf_Addr pc, Dwarf_Die *chain, size_t max)
{
	Dwarf_Die die = *fn, child;
	size_t n = 0;

	for (;;) {
		bool deeper = false;

		if (dwarf_child(&die, &child) != 0)
			break;
		do {
			int tag = dwarf_tag(&child);

			if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) && dwarf_haspc(&child, pc) > 0) {
				if (n < max)
					chain[n++] = child;
				die = child;
				deeper = true;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
		if (!deeper)
			break;
	}
	return n;
}

char *ws_symobj_dwarf_name(struct ws_symobj *o, uint64_t vaddr)
{
	Dwarf_Die fn;

	if (!function_die(o, vaddr, &fn) || !die_name(&fn))
		return NULL;
	return xstrdup(die_name(&fn));
}

/*
 * GCC's DWARF spells base types its own way ("long int", "long unsigned int"), in types and in the template
 * arguments of names ("sum<long int>"); the demangler, and so every symbol's name, spells them "long",
 * "unsigned long". Each is put the demangler's way, where it stands as a whole type. A new string.
 */
static char *demangler_types(const char *s)
{
	static const char *const from[][2] = {
		{ "long long unsigned int", "unsigned long long" }, { "long long int", "long long" },
		{ "long unsigned int", "unsigned long" }, { "short unsigned int", "unsigned short" },
		{ "long int", "long" }, { "short int", "short" }, { "__int128 unsigned", "unsigned __int128" },
	};
	size_t n = strlen(s), len = 0;
	char *out = xmalloc(n + 1);

	for (size_t i = 0; i < n;) {
		bool done = false;

		for (size_t k = 0; k < ARRAY_SIZE(from) && !done; k++) {
			size_t fl = strlen(from[k][0]);
			char after = s[i + fl < n ? i + fl : n];

			if ((i == 0 || strchr("<(, ", s[i - 1])) && !strncmp(s + i, from[k][0], fl) &&
			    (!after || strchr(">), *&[", after))) {
				memcpy(out + len, from[k][1], strlen(from[k][1]));
				len += strlen(from[k][1]);
				i += fl;
				done = true;
			}
		}
		if (!done)
			out[len++] = s[i++];
	}
	out[len] = '\0';
	return out;
}

/*
 * Spellings of names, types and functions from DWARF call one another (a template argument is a type, a
 * closure type is named after its function, whose parameters are types): `depth` bounds the recursion
 * that a pathological unit could make endless. Each nested template argument takes a few levels (the
 * type, its scopes, its name), and the standard library's nest deep: "std::map<std::__cxx11::
 * basic_string<char, std::char_traits<char>, ...> >, ...>".
 *
 * A spelling cut short there depends on the depth it was asked at; any other depends on the DIE alone. So
 * each cut sets o->spell_cut, and the memos of types and closures keep only what was spelled without one.
 */
#define SPELL_DEPTH 64

static bool is_closure(Dwarf_Die *die);
static bool is_cxx_unit(Dwarf_Die *die);
static char *type_spelling(struct ws_symobj *o, Dwarf_Die *type, int depth);
static char *closure_name(struct ws_symobj *o, Dwarf_Die *closure, int depth);
static char *spell_function(struct ws_symobj *o, Dwarf_Die *fn, bool with_ret, int depth);

/* "<lambda(long int)>" -> "{lambda(long int)}" in place, throughout `s`. */
static void closure_braces(char *s)
{
	for (char *p = strstr(s, "<lambda("); p; p = strstr(p + 1, "<lambda(")) {
		char *q = p + strlen("<lambda");
		int parens = 0;

		for (; *q; q++)
			if (*q == '(')
				parens++;
			else if (*q == ')' && --parens == 0)
				break;
		if (*q && q[1] == '>') {
			*p = '{';
			q[1] = '}';
		}
	}
}

/*
 * A generic lambda's "auto:7" as "auto:1" throughout `s`, inside each "{lambda(...)}": GCC counts the
 * parameters it invents for `auto` across the unit, the demangler counts a lambda's own from 1, in the
 * order they appear (closure_params() numbers them so too). A new string.
 */
static char *renumber_autos(const char *s)
{
	struct {
		int depth;        /* the parentheses open outside this lambda's */
		unsigned long seen[16]; /* GCC's numbers, in order: the demangler's is the index + 1 */
		size_t n;
	} st[8];
	size_t ns = 0, len = 0, alloc = 0;
	int depth = 0;
	char *out = NULL;

	for (const char *p = s; *p;) {
		const char *from = p;
		char num[32];

		if (!strncmp(p, "{lambda(", strlen("{lambda("))) {
			if (ns == ARRAY_SIZE(st)) {
				/* Lambdas in lambdas' parameters, nested this deep: left as GCC spelt them. */
				free(out);
				return xstrdup(s);
			}
			st[ns].depth = depth;
			st[ns].n = 0;
			ns++;
			depth++;
			p += strlen("{lambda(");
		} else if (!strncmp(p, "auto:", 5) && p[5] >= '0' && p[5] <= '9' &&
			   (p == s || !(p[-1] == '_' || (p[-1] >= '0' && p[-1] <= '9') ||
					((p[-1] | 0x20) >= 'a' && (p[-1] | 0x20) <= 'z')))) {
			char *end;
			unsigned long v = strtoul(p + 5, &end, 10);
			size_t k = 0;

			p = end;
			if (ns) {
				while (k < st[ns - 1].n && st[ns - 1].seen[k] != v)
					k++;
				if (k == st[ns - 1].n && k < ARRAY_SIZE(st[0].seen))
					st[ns - 1].seen[st[ns - 1].n++] = v;
				if (k < st[ns - 1].n) {
					snprintf(num, sizeof(num), "auto:%zu", k + 1);
					WS_ALLOC_GROW(out, len + strlen(num) + 1, alloc);
					memcpy(out + len, num, strlen(num));
					len += strlen(num);
					continue;
				}
			}
		} else {
			if (*p == '(')
				depth++;
			else if (*p == ')' && --depth >= 0 && ns && depth == st[ns - 1].depth)
				ns--;
			p++;
		}
		WS_ALLOC_GROW(out, len + (size_t)(p - from) + 1, alloc);
		memcpy(out + len, from, (size_t)(p - from));
		len += (size_t)(p - from);
	}
	if (!out)
		return xstrdup("");
	out[len] = '\0';
	return out;
}

/*
 * GCC's spelling of closure types in a name, "<lambda(long int)>", "<lambda(auto:7)>", put the demangler's
 * way where the type itself is not known (so without the number): "{lambda(long int)}", "{lambda(auto:1)}".
 * A new string.
 */
static char *closure_text(const char *name)
{
	char *s = xstrdup(name), *out;

	closure_braces(s);
	out = renumber_autos(s);
	free(s);
	return out;
}

/* The template parameters of `die` in order, a pack's members in its place, into tp[] (at most `max`). */
static size_t template_params(Dwarf_Die *die, Dwarf_Die *tp, size_t max)
{
	Dwarf_Die child, member;
	size_t n = 0;

	if (dwarf_child(die, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_template_type_parameter || tag == DW_TAG_template_value_parameter ||
		    tag == DW_TAG_GNU_template_template_param) {
			if (n < max)
				tp[n] = child;
			n++;
		} else if (tag == DW_TAG_GNU_template_parameter_pack && dwarf_child(&child, &member) == 0) {
			do {
				if (n < max)
					tp[n] = member;
				n++;
			} while (dwarf_siblingof(&member, &member) == 0);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

/*
 * The DWARF name `name` of `die` (a function or a class) as the demangler spells it within a symbol. GCC
 * spells its template arguments its own way: "apply<lam::work(int)::<lambda(long int)> >" where the
 * demangler has "apply<lam::work(int)::{lambda(long)#1}>", "total<ns::Seq<long int> >" (a default
 * argument left out) where it has "total<ns::Seq<long, ns::Step<long> > >", "const char*" for "char
 * const*". So each type argument is spelled from the type DWARF gives for it (the DIE's template
 * parameters, in order) as type_spelling() spells a parameter, which knows a lambda's number where a
 * symbol gives it. Where DWARF does not say (another kind of type, a value, a count that differs), the
 * argument is GCC's text with base types the demangler's way (demangler_types()) and a closure's
 * "<lambda(long int)>" as "{lambda(long)}". A new string.
 */
static char *cxx_name(struct ws_symobj *o, Dwarf_Die *die, const char *name, int depth)
{
	Dwarf_Die tp[32];
	size_t len = strlen(name), ntp, nargs = 0, open = 0;
	char *s, *out, *list, **args = NULL;
	size_t alloc = 0;
	int nest = 0;

	/* C++ only: Rust's generic arguments are Rust types ("&i64"), which type_spelling() does not spell. */
	if (len < 2 || name[len - 1] != '>' || !is_cxx_unit(die))
		goto text;
	if (depth > SPELL_DEPTH) {
		o->spell_cut = true;
		goto text;
	}
	/* The argument list is the last "<...>" (a name such as "operator< <T>" has another '<' before it). */
	for (size_t i = len; i-- > 0;) {
		if (strchr(">)}", name[i]))
			nest++;
		else if (strchr("<({", name[i]) && --nest == 0) {
			open = i;
			break;
		}
	}
	if (nest != 0 || name[open] != '<')
		goto text;
	/* Its arguments at depth 0, without the space GCC puts before a '>' that closes after another. */
	for (size_t i = open + 1, start = i; i < len; i++) {
		if (strchr("<({", name[i]))
			nest++;
		else if (i < len - 1 && strchr(">)}", name[i]))
			nest--;
		else if ((name[i] == ',' && nest == 0) || i == len - 1) {
			size_t end = i;

			while (end > start && name[end - 1] == ' ')
				end--;
			WS_ALLOC_GROW(args, nargs + 1, alloc);
			args[nargs++] = xstrndup(name + start, end - start);
			for (start = i + 1; name[start] == ' '; start++)
				i++;
		}
	}
	ntp = template_params(die, tp, ARRAY_SIZE(tp));
	for (size_t k = 0; k < nargs; k++) {
		Dwarf_Attribute attr;
		Dwarf_Die type;
		char *t = NULL;

		if (ntp == nargs && ntp <= ARRAY_SIZE(tp) && dwarf_tag(&tp[k]) == DW_TAG_template_type_parameter &&
		    dwarf_formref_die(dwarf_attr(&tp[k], DW_AT_type, &attr), &type))
			t = type_spelling(o, &type, depth + 1);
		if (t && !strstr(t, "<lambda(")) {
			free(args[k]);
			args[k] = t;
		} else {
			free(t);
			t = closure_text(args[k]);
			free(args[k]);
			args[k] = t;
		}
	}
	list = xstrdup("");
	for (size_t k = 0; k < nargs; k++) {
		char *more = xasprintf("%s%s%s", list, k ? ", " : "", args[k]);

		free(list);
		list = more;
	}
	/* The demangler's own spacing: "> >" only where an argument ends in '>'. */
	s = xasprintf("%.*s<%s%s>", (int)open, name, list, *list && list[strlen(list) - 1] == '>' ? " " : "");
	free(list);
	for (size_t k = 0; k < nargs; k++)
		free(args[k]);
	free(args);
	out = demangler_types(s);
	free(s);
	return out;
text:
	s = closure_text(name);
	out = demangler_types(s);
	free(s);
	return out;
}

/* The namespaces and types around `die`, "ns::Box<long, 8>::", or NULL inside a function (a local type). */
static char *scope_prefix(struct ws_symobj *o, Dwarf_Die *die, int depth)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes_die(die, &scopes);
	char *out = xstrdup("");

	for (int i = n - 1; i >= 1; i--) {
		int tag = dwarf_tag(&scopes[i]);
		const char *name = dwarf_diename(&scopes[i]);
		char *more, *spelt;

		if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine ||
		    ((tag == DW_TAG_class_type || tag == DW_TAG_structure_type || tag == DW_TAG_union_type) && !name)) {
			free(out);
			out = NULL;
			break;
		}
		if (tag != DW_TAG_namespace && tag != DW_TAG_class_type && tag != DW_TAG_structure_type &&
		    tag != DW_TAG_union_type)
			continue;
		spelt = name ? cxx_name(o, &scopes[i], name, depth + 1) : xstrdup("(anonymous namespace)");
		more = xasprintf("%s%s::", out, spelt);
		free(spelt);
		free(out);
		out = more;
	}
	free(scopes);
	return out;
}

/* `in` (freed) under the const, volatile, pointer or reference that DWARF tag `tag` adds, as the demangler puts it. */
static char *wrap_type(int tag, char *in)
{
	char *out;

	switch (tag) {
	case DW_TAG_const_type: out = xasprintf("%s const", in); break;
	case DW_TAG_volatile_type: out = xasprintf("%s volatile", in); break;
	case DW_TAG_pointer_type: out = xasprintf("%s*", in); break;
	case DW_TAG_reference_type: out = xasprintf("%s&", in); break;
	default: out = xasprintf("%s&&", in); break;
	}
	free(in);
	return out;
}

/*
 * A type as the demangler spells it in a parameter list: "std::vector<long, std::allocator<long> > const&",
 * "char const*", typedefs resolved as the mangling resolves them, a lambda's closure type as closure_name()
 * spells it. NULL for what this does not spell (function pointers, arrays, other local and unnamed types):
 * the caller then says nothing rather than something wrong.
 */
static char *spell_type(struct ws_symobj *o, Dwarf_Die *type, int depth)
{
	Dwarf_Attribute attr;
	Dwarf_Die inner;
	bool has_inner = dwarf_formref_die(dwarf_attr(type, DW_AT_type, &attr), &inner) != NULL;
	const char *name = dwarf_diename(type);
	char *in, *out, *prefix;

	switch (dwarf_tag(type)) {
	case DW_TAG_base_type:
	case DW_TAG_unspecified_type:
		return name ? demangler_types(name) : NULL;
	case DW_TAG_typedef:
		return has_inner ? type_spelling(o, &inner, depth + 1) : NULL;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		in = has_inner ? type_spelling(o, &inner, depth + 1) : xstrdup("void");
		return in ? wrap_type(dwarf_tag(type), in) : NULL;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		if (!name && dwarf_tag(type) != DW_TAG_enumeration_type && is_closure(type))
			return closure_name(o, type, depth + 1);
		if (!name)
			return NULL;
		if (!(prefix = scope_prefix(o, type, depth + 1)))
			return NULL;
		in = cxx_name(o, type, name, depth + 1);
		out = xasprintf("%s%s", prefix, in);
		free(in);
		free(prefix);
		return out;
	default:
		return NULL;
	}
}

/*
 * spell_type(), kept per type DIE. The unit's types are shared by all its functions, and a class's scopes
 * come from dwarf_getscopes_die(), which walks the unit from its root: spelling "std::map<...>" afresh for
 * every instance that names it took two thirds of the time to name the inlines of a large C++ unit.
 */
static char *type_spelling(struct ws_symobj *o, Dwarf_Die *type, int depth)
{
	uint64_t key = dwarf_dieoffset(type);
	struct memo_slot *sl;
	bool cut = o->spell_cut;
	char *out;

	if (depth > SPELL_DEPTH) {
		o->spell_cut = true;
		return NULL;
	}
	sl = memo_slot(&o->types, key);
	if (sl->used)
		return sl->val ? xstrdup(sl->val) : NULL;
	o->spell_cut = false;
	out = spell_type(o, type, depth);
	return memo_keep(o, &o->types, key, out, cut);
}

/* Whether `die` is in a C++ compilation unit: C's names are plain, Rust's demangled ones have no parameters. */
static bool is_cxx_unit(Dwarf_Die *die)
{
	Dwarf_Die cu;
	int lang;

	if (!dwarf_diecu(die, &cu, NULL, NULL) || (lang = dwarf_srclang(&cu)) < 0)
		return false;
	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 || lang == DW_LANG_C_plus_plus_11 ||
	       lang == DW_LANG_C_plus_plus_14;
}

/* `type` without its own const and volatile: the mangling leaves a parameter's top-level qualifiers out. */
static void drop_cv(Dwarf_Die *type)
{
	Dwarf_Attribute attr;

	while (dwarf_tag(type) == DW_TAG_const_type || dwarf_tag(type) == DW_TAG_volatile_type)
		if (!dwarf_formref_die(dwarf_attr(type, DW_AT_type, &attr), type))
			break;
}

/*
 * What the demangler prints around the name of function `decl` (its declaration, with its parameters):
 * its parameter list and qualifiers, "(long, unsigned long) const", into *params, and for a function
 * template instance the return type with its space, "long ", into *ret (else ""). False when a type is
 * not one type_spelling() spells.
 */
static bool signature(struct ws_symobj *o, Dwarf_Die *decl, char **ret, char **params, int depth)
{
	Dwarf_Attribute attr;
	Dwarf_Die child, type;
	bool is_template = false, is_const = false, ok = true;
	char *list = xstrdup("");

	if (dwarf_child(decl, &child) == 0) {
		do {
			int tag = dwarf_tag(&child);
			char *t = NULL, *more;
			bool artificial = false;

			if (tag == DW_TAG_template_type_parameter || tag == DW_TAG_template_value_parameter ||
			    tag == DW_TAG_GNU_template_parameter_pack)
				is_template = true;
			if (tag == DW_TAG_unspecified_parameters) {
				t = xstrdup("...");
			} else if (tag == DW_TAG_formal_parameter) {
				dwarf_formflag(dwarf_attr(&child, DW_AT_artificial, &attr), &artificial);
				if (!dwarf_formref_die(dwarf_attr(&child, DW_AT_type, &attr), &type)) {
					ok = false;
					break;
				}
				if (artificial) {
					/* `this`: a pointer to a const class makes a const member function. */
					Dwarf_Die pointee;

					drop_cv(&type);
					if (dwarf_tag(&type) == DW_TAG_pointer_type &&
					    dwarf_formref_die(dwarf_attr(&type, DW_AT_type, &attr), &pointee) &&
					    dwarf_tag(&pointee) == DW_TAG_const_type)
						is_const = true;
					continue;
				}
				drop_cv(&type);
				if (!(t = type_spelling(o, &type, depth + 1))) {
					ok = false;
					break;
				}
			} else {
				continue;
			}
			more = xasprintf("%s%s%s", list, *list ? ", " : "", t);
			free(t);
			free(list);
			list = more;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	*ret = NULL;
	if (ok && is_template) {
		char *r = dwarf_formref_die(dwarf_attr_integrate(decl, DW_AT_type, &attr), &type)
				  ? type_spelling(o, &type, depth + 1)
				  : xstrdup("void");

		ok = r != NULL;
		*ret = r ? xasprintf("%s ", r) : NULL;
		free(r);
	}
	if (!ok) {
		free(list);
		free(*ret);
		*ret = *params = NULL;
		return false;
	}
	if (!*ret)
		*ret = xstrdup("");
	*params = xasprintf("(%s)%s", list, is_const ? " const" : "");
	free(list);
	return true;
}

/* Whether the unnamed class `die` is a lambda's closure type: GCC names its members "<lambda>", "~<lambda>". */
static bool is_closure(Dwarf_Die *die)
{
	Dwarf_Die child;
	const char *name;

	if (dwarf_child(die, &child) != 0)
		return false;
	do {
		if (dwarf_tag(&child) == DW_TAG_subprogram && (name = dwarf_diename(&child)) &&
		    (!strcmp(name, "<lambda>") || !strcmp(name, "~<lambda>")))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/*
 * The symbols of `o` whose mangled names hold a closure type ("Ul...E_", as in a std::sort instance over a
 * lambda), demangled: how the demangler spells lambdas, "f(int)::{lambda(int, int)#1}".
 */
static void read_closures(struct ws_symobj *o)
{
	size_t alloc = 0;

	o->closures_read = true;
	/* From the function symbols read_names keeps, rather than a second pass over the symbol table. */
	if (!o->mod)
		return;
	if (!o->names_read)
		read_names(o);
	for (size_t i = 0; i < o->nr_names; i++) {
		const char *name = o->names[i].symbol;
		char *d;

		if (strncmp(name, "_Z", 2) || !strstr(name, "Ul"))
			continue;
		d = ws_sym_demangle(name);
		if (!strstr(d, "{lambda(")) {
			free(d);
			continue;
		}
		WS_ALLOC_GROW(o->closures, o->nr_closures + 1, alloc);
		o->closures[o->nr_closures++] = d;
	}
}

/*
 * How the demangler spells the lambda of function `fn` (demangled, with its parameters) whose call
 * operator takes `params` ("(int, int)", or NULL when DWARF did not say): "{lambda(int, int)#1}", taken
 * from a symbol that names its closure type; NULL when no symbol does, or when they name several such
 * lambdas of `fn` (the number, GCC's count of the function's lambdas, is not in DWARF). A new string.
 */
static char *closure_spelling(struct ws_symobj *o, const char *fn, const char *params)
{
	char *found = NULL, *want = params ? xasprintf("::{lambda%s#", params) : xstrdup("::{lambda(");
	size_t len = strlen(fn);

	if (!o->closures_read)
		read_closures(o);
	for (size_t i = 0; i < o->nr_closures; i++) {
		for (const char *p = strstr(o->closures[i], fn); p; p = strstr(p + 1, fn)) {
			const char *start = p + len, *end;
			int depth = 0;

			if (strncmp(start, want, strlen(want)))
				continue;
			start += 2;
			for (end = start; *end; end++)
				if (*end == '{')
					depth++;
				else if (*end == '}' && --depth == 0)
					break;
			if (!*end)
				continue;
			if (!found) {
				found = xstrndup(start, (size_t)(end + 1 - start));
			} else if (strncmp(found, start, (size_t)(end + 1 - start)) || found[end + 1 - start]) {
				free(found);
				free(want);
				return NULL;
			}
		}
	}
	free(want);
	return found;
}

/*
 * The function `fn` (a subprogram DIE) as the scope of what is local to it, "lam::work(int)": its symbol's
 * name where it has a linkage name, else spelled from DWARF, without a return type (the demangler prints
 * none for a function that only scopes a local name).
 */
static char *local_scope(struct ws_symobj *o, Dwarf_Die *fn, int depth)
{
	const char *link = die_linkage_name(fn);

	if (link)
		return ws_sym_demangle(link);
	return spell_function(o, fn, false, depth + 1);
}

/*
 * The subprogram that scopes[at] is local to, through lexical blocks, into *fn, from the scopes around it
 * (scopes[at + 1 ..], as dwarf_getscopes_die() gives them); false where it is not in one.
 */
static bool function_in_scopes(Dwarf_Die *scopes, int n, int at, Dwarf_Die *fn)
{
	for (int i = at + 1; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_lexical_block)
			continue;
		if (tag == DW_TAG_subprogram) {
			*fn = scopes[i];
			return true;
		}
		break;
	}
	return false;
}

/*
 * The subprogram that `die` is local to, through lexical blocks, into *fn; false where it is not in one.
 * dwarf_getscopes_die() walks the unit from its root: a caller that has the scopes already uses
 * function_in_scopes().
 */
static bool enclosing_function(Dwarf_Die *die, Dwarf_Die *fn)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes_die(die, &scopes);
	bool found = function_in_scopes(scopes, n, 0, fn);

	free(scopes);
	return found;
}

/*
 * Whether `a` and `b` are one type: one DIE, or one base type, or the same qualifiers and pointers around
 * one, typedefs seen through (as the mangling sees through them).
 */
static bool same_type(Dwarf_Die *a, Dwarf_Die *b, int depth)
{
	Dwarf_Attribute attr;
	Dwarf_Die ia = *a, ib = *b;
	bool ha, hb;
	const char *na, *nb;

	while (dwarf_tag(&ia) == DW_TAG_typedef && dwarf_formref_die(dwarf_attr(&ia, DW_AT_type, &attr), &ia))
		;
	while (dwarf_tag(&ib) == DW_TAG_typedef && dwarf_formref_die(dwarf_attr(&ib, DW_AT_type, &attr), &ib))
		;
	a = &ia;
	b = &ib;
	if (dwarf_dieoffset(a) == dwarf_dieoffset(b))
		return true;
	if (dwarf_tag(a) != dwarf_tag(b) || depth > SPELL_DEPTH)
		return false;
	switch (dwarf_tag(a)) {
	case DW_TAG_base_type:
		return (na = dwarf_diename(a)) && (nb = dwarf_diename(b)) && !strcmp(na, nb);
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: {
		Dwarf_Die inner_a, inner_b;

		ha = dwarf_formref_die(dwarf_attr(a, DW_AT_type, &attr), &inner_a) != NULL;
		hb = dwarf_formref_die(dwarf_attr(b, DW_AT_type, &attr), &inner_b) != NULL;
		return ha && hb ? same_type(&inner_a, &inner_b, depth + 1) : ha == hb;
	}
	default:
		return false;
	}
}

/*
 * Parameter type `type` of a generic lambda's call operator spelled as the lambda declares it, with `name`
 * ("auto:1") for the type `deduced` that its `auto` became, as the demangler spells it: "auto:1 const&" for
 * the "long const&" of a "const auto&" given a long. A deduced reference is a forwarding reference given an
 * lvalue ("auto&&" becomes "long&", and so does the parameter): "auto:1&&". NULL where `deduced` is not in
 * `type`.
 */
static char *auto_spelling(Dwarf_Die *type, Dwarf_Die *deduced, const char *name, int depth)
{
	Dwarf_Attribute attr;
	Dwarf_Die inner;
	char *in;

	if (same_type(type, deduced, 0))
		return xasprintf("%s%s", name,
				 dwarf_tag(deduced) == DW_TAG_reference_type || dwarf_tag(deduced) == DW_TAG_rvalue_reference_type
					 ? "&&"
					 : "");
	if (depth > SPELL_DEPTH || !dwarf_formref_die(dwarf_attr(type, DW_AT_type, &attr), &inner))
		return NULL;
	switch (dwarf_tag(type)) {
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		break;
	default:
		return NULL;
	}
	in = auto_spelling(&inner, deduced, name, depth + 1);
	return in ? wrap_type(dwarf_tag(type), in) : NULL;
}

/* At most this many spellings of one generic lambda's parameters are told apart. */
#define GENERIC_MAX 8

/* One instance of a generic lambda's call operator, and the spellings of its parameters found so far. */
struct generic {
	Dwarf_Die param[16];   /* the parameters' types, without their own const */
	char *concrete[16];    /* each spelled as it is (type_spelling()), or NULL */
	Dwarf_Die deduced[16]; /* what the invented parameters auto:1, auto:2... became, in order */
	size_t nparams, nautos;
	char *found[GENERIC_MAX];
	size_t nfound;
	bool more; /* more than GENERIC_MAX */
};

/*
 * Every way to spell the parameters from the i-th on, the invented parameters from auto:next on still to
 * place, into g->found: a parameter is either the next `auto` (the invented parameters come in the order of
 * the parameters that declare them, one each) or its own type. `so_far` is the list before the i-th.
 */
static void generic_spellings(struct generic *g, size_t i, size_t next, const char *so_far)
{
	char name[32], *a, *more;

	if (g->nfound == GENERIC_MAX) {
		g->more = true;
		return;
	}
	if (i == g->nparams) {
		if (next == g->nautos)
			g->found[g->nfound++] = xasprintf("(%s)", so_far);
		return;
	}
	if (g->nparams - i < g->nautos - next)
		return;
	if (next < g->nautos) {
		snprintf(name, sizeof(name), "auto:%zu", next + 1);
		if ((a = auto_spelling(&g->param[i], &g->deduced[next], name, 0))) {
			more = xasprintf("%s%s%s", so_far, i ? ", " : "", a);
			generic_spellings(g, i + 1, next + 1, more);
			free(more);
			free(a);
		}
	}
	if (g->concrete[i]) {
		more = xasprintf("%s%s%s", so_far, i ? ", " : "", g->concrete[i]);
		generic_spellings(g, i + 1, next, more);
		free(more);
	}
}

/*
 * The spellings of the parameters of `op`, an instance of a generic lambda's call operator ("operator()<int,
 * long int>"), that fit its deduced parameter types, into g->found. False where `op` is not one this
 * spells: a lambda with its own template parameters, a pack ("auto..."), a type type_spelling() does not
 * spell where it is not an `auto`.
 */
static bool generic_instance(struct ws_symobj *o, Dwarf_Die *op, struct generic *g, int depth)
{
	Dwarf_Attribute attr;
	Dwarf_Die child;
	const char *autos[16];
	bool ok = true;

	memset(g, 0, sizeof(*g));
	if (dwarf_child(op, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		const char *name = dwarf_diename(&child);
		bool artificial = false, seen = false;

		if (tag == DW_TAG_template_type_parameter) {
			/* GCC names them "auto:7", counting across the unit, and lists them twice. */
			if (!name || strncmp(name, "auto:", 5)) {
				ok = false;
				break;
			}
			for (size_t k = 0; k < g->nautos && !seen; k++)
				seen = !strcmp(autos[k], name);
			if (seen)
				continue;
			if (g->nautos == ARRAY_SIZE(g->deduced) ||
			    !dwarf_formref_die(dwarf_attr(&child, DW_AT_type, &attr), &g->deduced[g->nautos])) {
				ok = false;
				break;
			}
			autos[g->nautos++] = name;
		} else if (tag == DW_TAG_template_value_parameter || tag == DW_TAG_GNU_template_parameter_pack ||
			   tag == DW_TAG_GNU_template_template_param || tag == DW_TAG_unspecified_parameters) {
			ok = false;
			break;
		} else if (tag == DW_TAG_formal_parameter) {
			dwarf_formflag(dwarf_attr(&child, DW_AT_artificial, &attr), &artificial);
			if (artificial)
				continue;
			if (g->nparams == ARRAY_SIZE(g->param) ||
			    !dwarf_formref_die(dwarf_attr(&child, DW_AT_type, &attr), &g->param[g->nparams])) {
				ok = false;
				break;
			}
			drop_cv(&g->param[g->nparams]);
			g->concrete[g->nparams] = type_spelling(o, &g->param[g->nparams], depth + 1);
			g->nparams++;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	if (ok && g->nautos)
		generic_spellings(g, 0, 0, "");
	for (size_t k = 0; k < g->nparams; k++)
		free(g->concrete[k]);
	return ok && g->nautos;
}

/*
 * A generic lambda's parameters as the demangler spells them in its closure type's name, "(auto:1,
 * auto:2&)", from the instances of its call operator in `closure` (DWARF has only those, with the deduced
 * types: "operator()<int, long int>(int, long int&)"); NULL where it has none this spells. Where a
 * parameter's own type is what an `auto` became too, DWARF does not say which it is: the spellings that
 * every instance fits are kept, then the one a symbol of `o` gives a lambda of `fn` (demangled, or NULL),
 * else the first, which takes the earliest parameters that can be `auto` for `auto`.
 */
static char *generic_params(struct ws_symobj *o, Dwarf_Die *closure, const char *fn, int depth)
{
	Dwarf_Die child;
	struct generic g;
	char *keep[GENERIC_MAX], *out = NULL;
	size_t nkeep = 0, named = 0;
	bool any = false;
	const char *name;

	if (dwarf_child(closure, &child) != 0)
		return NULL;
	do {
		if (dwarf_tag(&child) != DW_TAG_subprogram || !(name = dwarf_diename(&child)) ||
		    strncmp(name, "operator()<", strlen("operator()<")))
			continue;
		if (!generic_instance(o, &child, &g, depth) || g.more) {
			for (size_t k = 0; k < g.nfound; k++)
				free(g.found[k]);
			continue;
		}
		if (!any) {
			/* The first instance: all its spellings. */
			memcpy(keep, g.found, g.nfound * sizeof(*keep));
			nkeep = g.nfound;
			any = true;
			continue;
		}
		/* Another: only the spellings it fits too. */
		for (size_t k = 0; k < nkeep;) {
			bool fits = false;

			for (size_t m = 0; m < g.nfound && !fits; m++)
				fits = !strcmp(keep[k], g.found[m]);
			if (fits) {
				k++;
				continue;
			}
			free(keep[k]);
			memmove(keep + k, keep + k + 1, (nkeep - k - 1) * sizeof(*keep));
			nkeep--;
		}
		for (size_t k = 0; k < g.nfound; k++)
			free(g.found[k]);
	} while (dwarf_siblingof(&child, &child) == 0);
	if (!nkeep)
		return NULL;
	if (nkeep > 1 && fn) {
		if (!o->closures_read)
			read_closures(o);
		for (size_t k = 0; k < nkeep; k++) {
			char *want = xasprintf("%s::{lambda%s#", fn, keep[k]);
			bool found = false;

			for (size_t i = 0; i < o->nr_closures && !found; i++)
				found = strstr(o->closures[i], want) != NULL;
			free(want);
			if (found && !named++)
				out = keep[k];
		}
		if (named != 1)
			out = NULL;
	}
	if (!out)
		out = keep[0];
	for (size_t k = 0; k < nkeep; k++)
		if (keep[k] != out)
			free(keep[k]);
	return out;
}

/*
 * The parameters of closure type `closure`'s call operator, "(long)", as closure_spelling() takes them, a
 * generic lambda's as generic_params() spells them, "(auto:1, auto:2&)"; NULL where DWARF does not say.
 * `fn` is the lambda's function, demangled, or NULL.
 */
static char *closure_params(struct ws_symobj *o, Dwarf_Die *closure, const char *fn, int depth)
{
	Dwarf_Die child;
	char *ret = NULL, *params = NULL, *sig = NULL;
	const char *name;

	if (dwarf_child(closure, &child) != 0)
		return NULL;
	do {
		if (dwarf_tag(&child) == DW_TAG_subprogram && (name = dwarf_diename(&child)) &&
		    !strcmp(name, "operator()")) {
			if (!template_params(&child, NULL, 0) && signature(o, &child, &ret, &params, depth + 1))
				sig = xstrndup(params, (size_t)(strrchr(params, ')') + 1 - params));
			free(ret);
			free(params);
			return sig;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	/* A generic lambda's operator() is a template: DWARF has its instances, "operator()<int>", instead. */
	return generic_params(o, closure, fn, depth + 1);
}

/*
 * How many closure types `die` (a function, or a lexical block in it) holds whose call operators take
 * `params` (any, where NULL), up to 2: its own lambdas, not those of the lambdas inside them. `fn` is the
 * function demangled, as closure_params() takes it.
 */
static int count_closures(struct ws_symobj *o, Dwarf_Die *die, const char *fn, const char *params, int depth)
{
	Dwarf_Die child;
	int n = 0;

	if (dwarf_child(die, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_lexical_block) {
			n += count_closures(o, &child, fn, params, depth);
		} else if ((tag == DW_TAG_structure_type || tag == DW_TAG_class_type) && !dwarf_diename(&child) &&
			   is_closure(&child)) {
			char *p = params ? closure_params(o, &child, fn, depth) : NULL;

			n += !params || (p && !strcmp(p, params));
			free(p);
		}
	} while (n < 2 && dwarf_siblingof(&child, &child) == 0);
	return n;
}

/*
 * The lambda part of closure type `closure`'s name, local to function `fn` (its DIE `fn_die`, demangled
 * `fn`): "{lambda(long)#1}" where a symbol of `o` names it (closure_spelling()), else "{lambda(long)}" with
 * its call operator's parameters and no number; NULL when neither is known. A symbol's number is taken
 * only where DWARF has no other lambda of `fn` with those parameters: GCC numbers all of a function's
 * lambdas, and the one a symbol names may be another, inlined everywhere, that no symbol names.
 */
static char *closure_part(struct ws_symobj *o, Dwarf_Die *closure, Dwarf_Die *fn_die, const char *fn, int depth)
{
	char *sig = closure_params(o, closure, fn, depth), *out = NULL;

	if (count_closures(o, fn_die, fn, sig, depth) == 1)
		out = closure_spelling(o, fn, sig);
	if (!out && sig)
		out = xasprintf("{lambda%s}", sig);
	free(sig);
	return out;
}

/*
 * Closure type `closure` as the demangler spells it, "lam::work(int)::{lambda(long)#1}"; NULL if unknown.
 * Kept, known or not (unless SPELL_DEPTH cut it short): one closure is the template argument and a
 * parameter of every instance it is passed to, closure_spelling() reads all the object's closure symbols
 * each time, and enclosing_function() walks the unit.
 */
static char *closure_name(struct ws_symobj *o, Dwarf_Die *closure, int depth)
{
	uint64_t key = dwarf_dieoffset(closure);
	struct memo_slot *sl = memo_slot(&o->closure_names, key);
	bool cut = o->spell_cut;
	Dwarf_Die fn;
	char *scope, *part, *out = NULL;

	if (sl->used)
		return sl->val ? xstrdup(sl->val) : NULL;
	if (depth > SPELL_DEPTH) {
		o->spell_cut = true;
		return NULL;
	}
	o->spell_cut = false;
	if (enclosing_function(closure, &fn)) {
		scope = local_scope(o, &fn, depth);
		part = closure_part(o, closure, &fn, scope, depth);
		out = part ? xasprintf("%s::%s", scope, part) : NULL;
		free(part);
		free(scope);
	}
	return memo_keep(o, &o->closure_names, key, out, cut);
}

/*
 * Function `fn` (a subprogram DIE: an abstract origin, a definition or a declaration) as the demangler
 * prints the symbol it would have, for an inlined function that has no linkage name (a static C++
 * function, a template instance inlined everywhere, GCC's lambdas), so that it is one name with the
 * function's own row where another build calls it: its DWARF name (cxx_name()) under the namespaces and
 * types that hold its declaration, with the parameter list, a const member's "const" and, where
 * `with_ret`, a template instance's return type spelled from DWARF's types, "long ns::mixed<long>(long,
 * unsigned long)". Where DWARF has a type this does not spell, the name is without the parameters
 * ("names::mix"). A type local to a function is under that function's demangled name; a lambda's closure
 * type is spelled as the demangler spells it where a symbol names that lambda ("{lambda(int, int)#1}"),
 * else with its parameters but no number ("{lambda(int, int)}": GCC counts a function's lambdas, DWARF does
 * not say which this is), in the function's name and in its template arguments and parameters alike;
 * another unnamed class is "{unnamed type}" (never an anonymous namespace, which it is not). C functions
 * are their plain name.
 */
static char *spell_function(struct ws_symobj *o, Dwarf_Die *fn, bool with_ret, int depth)
{
	Dwarf_Attribute attr;
	Dwarf_Die decl = *fn, *scopes = NULL;
	const char *name;
	char *out, *ret = NULL, *params = NULL, *full;
	int n;

	/* The declaration the definition specifies, where a class member's scope and parameters are. */
	if (dwarf_attr(&decl, DW_AT_abstract_origin, &attr))
		dwarf_formref_die(&attr, &decl);
	if (dwarf_attr(&decl, DW_AT_specification, &attr))
		dwarf_formref_die(&attr, &decl);
	name = die_name(&decl);
	out = cxx_name(o, &decl, name ? name : "?", depth);
	if (depth > SPELL_DEPTH) {
		o->spell_cut = true;
		return out;
	}
	/* Only C++'s symbols demangle with their parameters: C's and Rust's names stay as their symbols are. */
	if (is_cxx_unit(&decl))
		signature(o, &decl, &ret, &params, depth);
	n = dwarf_getscopes_die(&decl, &scopes);
	for (int i = 1; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);
		const char *scope = dwarf_diename(&scopes[i]);
		char *more, *spelt;
		Dwarf_Die holder;

		if (tag == DW_TAG_subprogram) {
			/* A function-local type: the function's full name is all the scope there is. */
			spelt = local_scope(o, &scopes[i], depth);
			more = xasprintf("%s::%s", spelt, out);
			free(spelt);
			free(out);
			out = more;
			break;
		}
		if (tag != DW_TAG_namespace && tag != DW_TAG_class_type && tag != DW_TAG_structure_type &&
		    tag != DW_TAG_union_type)
			continue;
		if (tag == DW_TAG_namespace) {
			more = xasprintf("%s::%s", scope ? scope : "(anonymous namespace)", out);
		} else if (scope) {
			spelt = cxx_name(o, &scopes[i], scope, depth + 1);
			more = xasprintf("%s::%s", spelt, out);
			free(spelt);
		} else if (is_closure(&scopes[i]) && function_in_scopes(scopes, n, i, &holder)) {
			/* "f(int)::{lambda(int, int)#1}::operator()": the closure's function is all the scope left. */
			char *part;

			spelt = local_scope(o, &holder, depth);
			part = closure_part(o, &scopes[i], &holder, spelt, depth);
			more = xasprintf("%s::%s::%s", spelt, part ? part : "{lambda}", out);
			free(part);
			free(spelt);
			free(out);
			out = more;
			break;
		} else if (is_closure(&scopes[i])) {
			more = xasprintf("{lambda}::%s", out);
		} else {
			more = xasprintf("{unnamed type}::%s", out);
		}
		free(out);
		out = more;
	}
	free(scopes);
	full = params ? xasprintf("%s%s%s", with_ret ? ret : "", out, params) : xstrdup(out);
	free(ret);
	free(params);
	free(out);
	return full;
}

/* spell_function() of the function that `inlined` (an inlined subroutine named `name`) is an instance of. */
static char *spell_qualified(struct ws_symobj *o, Dwarf_Die *inlined, const char *name)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin;

	if (!dwarf_formref_die(dwarf_attr(inlined, DW_AT_abstract_origin, &attr), &origin))
		return demangler_types(name);
	return spell_function(o, &origin, true, 0);
}

/*
 * qualified_name() of the inlined instance `inlined`, worked out once per function it is an instance of:
 * the spelling walks the unit's scopes and the types of every parameter, and one function is inlined in many
 * places (index_inlined() meets each of them). A new string.
 */
static char *qualified_name(struct ws_symobj *o, Dwarf_Die *inlined, const char *name)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin;
	struct memo_slot *sl;

	if (!dwarf_formref_die(dwarf_attr(inlined, DW_AT_abstract_origin, &attr), &origin))
		return spell_qualified(o, inlined, name);
	sl = memo_slot(&o->qualified, dwarf_dieoffset(&origin));
	if (!sl->used) {
		sl->used = true;
		sl->val = spell_qualified(o, inlined, name);
		o->qualified.nr++;
	}
	return xstrdup(sl->val);
}

static size_t find_inlines(struct ws_symobj *o, uint64_t vaddr, struct ws_inline **out)
{
	Dwarf_Die fn, chain[64], cu;
	struct ws_inline *v = NULL;
	size_t nr = 0, alloc = 0, n;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;

	*out = NULL;
	if (!function_die(o, vaddr, &fn))
		return 0;
	n = inner_scopes(&fn, vaddr - o->dwarf_bias, chain, ARRAY_SIZE(chain));
	if (n && !dwarf_diecu(&fn, &cu, NULL, NULL))
		return 0;
	/* Innermost first. */
	for (size_t i = n; i-- > 0;) {
		Dwarf_Attribute attr;
		Dwarf_Word fileidx = 0, lineno = 0;
		const char *link, *name, *file = NULL;

		if (dwarf_tag(&chain[i]) != DW_TAG_inlined_subroutine)
			continue;
		link = die_linkage_name(&chain[i]);
		name = die_name(&chain[i]);
		if (!link && !name)
			continue;
		if (dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_file, &attr), &fileidx) == 0 &&
		    (files || dwarf_getsrcfiles(&cu, &files, &nfiles) == 0) && fileidx < nfiles)
			file = dwarf_filesrc(files, fileidx, NULL, NULL);
		dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_line, &attr), &lineno);
		WS_ALLOC_GROW(v, nr + 1, alloc);
		v[nr].name = link ? ws_sym_demangle(link) : qualified_name(o, &chain[i], name);
		v[nr].call_file = xstrdup(file ? file : "??");
		v[nr].call_line = (unsigned)lineno;
		nr++;
	}
	*out = v;
	return nr;
}

size_t ws_symobj_inlines(struct ws_symobj *o, uint64_t vaddr, const struct ws_inline **out)
{
	struct memo_slot *sl = memo_slot(&o->inlines, vaddr);

	if (!sl->used) {
		struct ws_inline *chain;

		sl->used = true;
		sl->n = find_inlines(o, vaddr, &chain);
		sl->val = chain;
		o->inlines.nr++;
	}
	*out = sl->val;
	return sl->n;
}

struct inlined_index {
	struct ws_symobj *o;
	size_t alloc, first; /* o->inl[first..] belong to the function being walked */
	const char *holder;  /* its name, demangled; copied for each entry */
};

/* Every inlined instance under `die`, at any depth (inside lexical blocks and other inlines too). */
static void index_inlined(Dwarf_Die *die, struct inlined_index *ix)
{
	struct ws_symobj *o = ix->o;
	Dwarf_Die child;

	if (dwarf_child(die, &child) != 0)
		return;
	do {
		if (dwarf_tag(&child) == DW_TAG_inlined_subroutine) {
			const char *link = die_linkage_name(&child), *dname = die_name(&child);
			char *name = link ? ws_sym_demangle(link) : dname ? qualified_name(o, &child, dname) : NULL;
			bool seen = !name;

			/* A function inlined many times into one holder is one entry. */
			for (size_t k = ix->first; k < o->nr_inl && !seen; k++)
				seen = !strcmp(o->inl[k].name, name);
			if (!seen) {
				WS_ALLOC_GROW(o->inl, o->nr_inl + 1, ix->alloc);
				o->inl[o->nr_inl++] = (struct inlined){ link ? xstrdup(link) : NULL, name,
									 ws_sym_short(name), xstrdup(ix->holder) };
			} else {
				free(name);
			}
		}
		index_inlined(&child, ix);
	} while (dwarf_siblingof(&child, &child) == 0);
}

static int cmp_offs(const void *pa, const void *pb)
{
	Dwarf_Off a = *(const Dwarf_Off *)pa, b = *(const Dwarf_Off *)pb;

	return (a > b) - (a < b);
}

/* Read once per object: a question for each function one build lacks would otherwise walk all of DWARF. */
static void read_inlined(struct ws_symobj *o)
{
	struct inlined_index ix = { o, 0, 0, NULL };

	Dwarf_Off *dies;
	size_t nd = 0;

	o->inl_read = true;
	if (!o->fn_ranges_read)
		read_fn_ranges(o);
	/* Each function once, though it may have several ranges (hot and cold parts). */
	dies = xmalloc((o->nr_fn_ranges + 1) * sizeof(*dies));
	for (size_t i = 0; i < o->nr_fn_ranges; i++)
		dies[i] = o->fn_ranges[i].die;
	qsort(dies, o->nr_fn_ranges, sizeof(*dies), cmp_offs);
	for (size_t i = 0; i < o->nr_fn_ranges; i++)
		if (!nd || dies[i] != dies[nd - 1])
			dies[nd++] = dies[i];
	for (size_t i = 0; i < nd; i++) {
		Dwarf_Die fn;
		const char *link;
		char *holder;

		if (!dwarf_offdie(o->dwarf, dies[i], &fn))
			continue;
		link = die_linkage_name(&fn);
		holder = link ? ws_sym_demangle(link) : xstrdup(die_name(&fn) ? die_name(&fn) : "??");
		ix.first = o->nr_inl;
		ix.holder = holder;
		index_inlined(&fn, &ix);
		free(holder);
	}
	free(dies);
}

size_t ws_symobj_inlined_into(struct ws_symobj *o, const char *pattern, char **holders, size_t max, char **inlined)
{
	size_t n = 0;

	*inlined = NULL;
	if (!o->inl_read)
		read_inlined(o);
	for (size_t i = 0; i < o->nr_inl && n < max; i++) {
		const struct inlined *e = &o->inl[i];
		struct ws_sym_forms f = { e->symbol, e->name, e->name, e->shortname, NULL };
		bool dup = false;

		if (ws_sym_match(pattern, &f) == WS_SYM_NO_MATCH)
			continue;
		if (!*inlined)
			*inlined = xstrdup(e->name);
		for (size_t k = 0; k < n && !dup; k++)
			dup = !strcmp(holders[k], e->holder);
		if (!dup)
			holders[n++] = xstrdup(e->holder);
	}
	return n;
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

/* Append the string [p, p + len) to the NULL-terminated v of n unless it is there; at most `max` kept. */
static void add_unique(char ***v, size_t *n, const char *p, size_t len, size_t max)
{
	for (size_t i = 0; i < *n; i++)
		if (strlen((*v)[i]) == len && !memcmp((*v)[i], p, len))
			return;
	if (!len || *n >= max)
		return;
	*v = xrealloc(*v, (*n + 2) * sizeof(**v));
	(*v)[(*n)++] = xstrndup(p, len);
	(*v)[*n] = NULL;
}

char **ws_elf_toolchain(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	Elf_Scn *scn = NULL;
	Dwarf *dw;
	Dwarf_Off off = 0, next;
	size_t shstrndx, hsize, n = 0;
	char **v = NULL;

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
			const char *name = sh ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;
			Elf_Data *d;

			if (!name || strcmp(name, ".comment") || sh->sh_type != SHT_PROGBITS)
				continue;
			/* NUL-separated strings, one per object file that brought one, mostly the same few. */
			for (d = NULL; (d = elf_getdata(scn, d));) {
				/* A section with no bytes in the file has no buffer: NULL + size is undefined. */
				const char *p = d->d_buf, *end = p ? p + d->d_size : NULL;

				for (size_t len; p && p < end; p += len + 1)
					add_unique(&v, &n, p, len = strnlen(p, (size_t)(end - p)), 16);
			}
		}
	}
	/*
	 * rustc before 1.73 writes no .comment of its own: its version is in each compile unit's producer
	 * ("clang LLVM (rustc version 1.63.0)"), as GCC's flags are in its ("GNU C17 12.2.0 -O2 -g").
	 */
	dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	while (dw && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Attribute attr;
		const char *producer;

		if (dwarf_offdie(dw, off + hsize, &cu) &&
		    (producer = dwarf_formstring(dwarf_attr(&cu, DW_AT_producer, &attr))))
			add_unique(&v, &n, producer, strlen(producer), 16);
		off = next;
	}
	if (dw)
		dwarf_end(dw);
	if (elf)
		elf_end(elf);
	close(fd);
	return v;
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

/* ---- call frame information --------------------------------------------------------------------------- */

int ws_symobj_cfa(struct ws_symobj *o, uint64_t vaddr, int *reg, int64_t *offset)
{
	Dwarf_Addr bias = 0;
	Dwarf_CFI *cfi[2];
	int ret = -ENOENT;
	struct ws_sym plt;

	/*
	 * A PLT stub is a jump: the return address of the call that reached it is at the stack pointer. Its CFI,
	 * where it has any, is an expression for the lazy-binding path.
	 */
	if (!plt_lookup(o, vaddr, &plt)) {
		*reg = 7;
		*offset = 8;
		return 0;
	}

	/* .eh_frame is in every object that can unwind for exceptions; .debug_frame where only that was kept. */
	cfi[0] = dwfl_module_eh_cfi(o->mod, &bias);
	for (int k = 0; k < 2 && ret; k++) {
		Dwarf_Frame *frame = NULL;
		Dwarf_Op *ops;
		size_t nops;

		if (k == 1)
			cfi[1] = dwfl_module_dwarf_cfi(o->mod, &bias);
		if (!cfi[k] || dwarf_cfi_addrframe(cfi[k], vaddr - bias, &frame) != 0)
			continue;
		/* A register-and-offset rule comes back as one DW_OP_bregx; anything else is an expression. */
		if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1 && ops[0].atom == DW_OP_bregx) {
			*reg = (int)ops[0].number;
			*offset = (int64_t)ops[0].number2;
			ret = 0;
		}
		free(frame);
	}
	return ret;
}

const char *ws_symobj_unnamed(struct ws_symobj *o, uint64_t vaddr)
{
	const struct ws_frame *f;
	struct memo_slot *sl;

	if (!o->frames_read) {
		GElf_Addr bias = 0;
		Elf *elf = dwfl_module_getelf(o->mod, &bias);

		o->frames_read = true;
		o->nr_frames = elf ? ws_elf_frames(elf, &o->frames) : 0;
		/* Module addresses are link addresses plus the module's bias (0 as reported, but ask). */
		for (size_t i = 0; i < o->nr_frames; i++) {
			o->frames[i].start += bias;
			o->frames[i].end += bias;
		}
	}
	f = ws_frame_find(o->frames, o->nr_frames, vaddr);
	if (!f)
		return NULL;
	sl = memo_slot(&o->unnamed, f->start);
	if (!sl->used) {
		sl->used = true;
		sl->val = xasprintf("[unknown]+0x%" PRIx64, f->start);
		o->unnamed.nr++;
	}
	return sl->val;
}

double ws_symobj_frame_pointer_share(struct ws_symobj *o)
{
	int n = dwfl_module_getsymtab(o->mod), with_cfi = 0, with_fp = 0;

	for (int i = 1; i < n && with_cfi < 400; i++) {
		GElf_Sym es;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(o->mod, i, &es, &addr, NULL, NULL, NULL);
		int reg;
		int64_t off;

		if (!name || GELF_ST_TYPE(es.st_info) != STT_FUNC || es.st_size < 16 || es.st_shndx == SHN_UNDEF)
			continue;
		if (ws_symobj_cfa(o, addr + es.st_size / 2, &reg, &off))
			continue;
		with_cfi++;
		with_fp += reg == 6;
	}
	return with_cfi ? (double)with_fp / with_cfi : NAN;
}

/* ---- which package to install ------------------------------------------------------------------------- */

/* The first line `dpkg -S PATH` prints, or NULL: "coreutils: /bin/sort". No shell, no output of its own. */
static char *dpkg_search(const char *path)
{
	int fds[2];
	pid_t pid;
	char buf[512];
	ssize_t n;
	size_t len = 0;
	int st;

	if (access("/usr/bin/dpkg", X_OK) || pipe2(fds, O_CLOEXEC))
		return NULL;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(fds[1], 1);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 2);
		}
		execl("/usr/bin/dpkg", "dpkg", "-S", path, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (len < sizeof(buf) - 1 && (n = read(fds[0], buf + len, sizeof(buf) - 1 - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		len += (size_t)n;
	}
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	buf[len] = '\0';
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !len)
		return NULL;
	buf[strcspn(buf, "\n")] = '\0';
	return xstrdup(buf);
}

/* The Debian package that installed `path`, or NULL. */
static char *package_of(const char *path)
{
	char *line = dpkg_search(path), *pkg = NULL;
	char *alt = NULL;

	/* Merged /usr: the kernel names /usr/bin/sort, dpkg's database may list /bin/sort, and the reverse. */
	if (!line && !strncmp(path, "/usr/", 5))
		line = dpkg_search(alt = xstrdup(path + 4));
	else if (!line && path[0] == '/')
		line = dpkg_search(alt = xasprintf("/usr%s", path));
	free(alt);
	/* "coreutils: /bin/sort", "libc6:amd64: /lib/...", "a, b: /path"; not "diversion by ...". */
	if (line && strstr(line, ": ") && strncmp(line, "diversion", 9)) {
		size_t n = strcspn(line, ":, ");

		if (n)
			pkg = xstrndup(line, n);
	}
	free(line);
	return pkg;
}

char *ws_symobj_debug_hint(struct ws_symobj *o)
{
	char *pkg = package_of(o->path), *hint;

	if (!pkg)
		return xasprintf("rebuild it with symbols (-g, without -s or strip), or put its debug file under "
				 "%s/.build-id/", ws_symbols_debug_dir());
	/* glibc keeps its debug files in main; every other package's are its -dbgsym in debian-debug. */
	if (!strcmp(pkg, "libc6"))
		hint = xstrdup("install libc6-dbg");
	else if (getenv("DEBUGINFOD_URLS") && *getenv("DEBUGINFOD_URLS"))
		hint = xasprintf("install %s-dbgsym (from the debian-debug archive; debuginfod had none or could "
				 "not be reached)", pkg);
	else
		hint = xasprintf("install %s-dbgsym (from the debian-debug archive, or set DEBUGINFOD_URLS for "
				 "debuginfod)", pkg);
	free(pkg);
	return hint;
}
