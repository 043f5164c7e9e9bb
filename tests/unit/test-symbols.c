/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-symbols.c - unit tests of symbolization on the profile examples: PIE, fixed-address and shared-library
 * load-bias arithmetic checked against `nm`, line tables, stripped objects, .gnu_debuglink, a rebuilt file.
 *
 *	test-symbols RATIO RATIO_NOPIE LIBPROFWORK_SO
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/util.h"
#include "symbols/frames.h"
#include "symbols/symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *ratio_path, *nopie_path, *lib_path;

/* The link address of `sym` in `path`, as nm prints it: the independent answer the tests check against. */
static uint64_t nm_addr(const char *path, const char *sym)
{
	char *cmd = xasprintf("nm --defined-only '%s'", path), line[512], name[256], type;
	unsigned long long addr;
	uint64_t found = 0;
	FILE *f = popen(cmd, "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 && !strcmp(name, sym))
			found = addr;
	pclose(f);
	free(cmd);
	assert_true(found != 0);
	return found;
}

/* The executable PT_LOAD segment: where the loader puts the code, page-aligned as mmap requires. */
static void text_segment(const char *path, uint64_t *off, uint64_t *vaddr)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	size_t n, i;
	bool found = false;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getphdrnum(elf, &n), 0);
	for (i = 0; i < n; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);

		if (ph && ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			*off = ph->p_offset;
			*vaddr = ph->p_vaddr;
			found = true;
			break;
		}
	}
	elf_end(elf);
	close(fd);
	assert_true(found);
}

/*
 * Load `path` at `base` as the kernel or ld.so would (each segment at base + p_vaddr, rounded down to a
 * page, from p_offset rounded down alike), take an address `delta` bytes into `sym` at run time, and check
 * that the MMAP2-style arithmetic gives back the symbol, its offset and a source line.
 */
static void check_loaded(struct ws_symbols *s, const char *path, uint64_t base, const char *sym, uint64_t delta,
			 const char *srcfile)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), seg_off = 0, seg_vaddr = 0, link, map_start, map_pgoff, ip;
	uint64_t file_off, vaddr;
	struct ws_symobj *o;
	struct ws_sym found;
	const char *file;
	unsigned line;

	link = nm_addr(path, sym);
	text_segment(path, &seg_off, &seg_vaddr);
	map_start = base + (seg_vaddr & ~(page - 1));
	map_pgoff = seg_off & ~(page - 1);
	ip = base + link + delta;

	assert_int_equal(ws_symbols_get(s, path, &o), 0);
	file_off = ws_map_file_offset(map_start, map_pgoff, ip);
	assert_int_equal(ws_symobj_vaddr(o, file_off, &vaddr), 0);
	assert_int_equal(vaddr, link + delta);
	assert_int_equal(ws_symobj_lookup(o, vaddr, &found), 0);
	assert_string_equal(found.name, sym);
	assert_int_equal(found.start, link);
	assert_int_equal(found.offset, delta);
	assert_int_equal(ws_symobj_srcline(o, vaddr, &file, &line), 0);
	assert_non_null(strstr(file, srcfile));
	assert_true(line > 0);
}

static void test_pie(void **state)
{
	struct ws_symbols *s = ws_symbols_new();

	(void)state;
	/* A typical PIE base, and an address inside both functions. */
	check_loaded(s, ratio_path, 0x555555554000ULL, "ratio_work3", 9, "ratio.c");
	check_loaded(s, ratio_path, 0x555555554000ULL, "ratio_work1", 1, "ratio.c");
	ws_symbols_free(s);
}

static void test_fixed_address(void **state)
{
	struct ws_symbols *s = ws_symbols_new();
	struct ws_symobj *o;
	uint64_t v;

	(void)state;
	/* ET_EXEC: loaded where linked, base 0, and link addresses are run-time addresses. */
	check_loaded(s, nopie_path, 0, "ratio_work3", 4, "ratio.c");
	assert_int_equal(ws_symbols_get(s, nopie_path, &o), 0);
	assert_true(nm_addr(nopie_path, "ratio_work3") >= 0x400000);
	/* An offset past every segment is not code. */
	assert_int_equal(ws_symobj_vaddr(o, (uint64_t)1 << 40, &v), -ERANGE);
	ws_symbols_free(s);
}

static void test_shared_library(void **state)
{
	struct ws_symbols *s = ws_symbols_new();

	(void)state;
	check_loaded(s, lib_path, 0x7f1234560000ULL, "profwork_lib_spin", 17, "profwork.c");
	ws_symbols_free(s);
}

static void test_missing(void **state)
{
	struct ws_symbols *s = ws_symbols_new();
	struct ws_symobj *o = (struct ws_symobj *)1;

	(void)state;
	assert_int_equal(ws_symbols_get(s, "/nonexistent/whyslow-object", &o), -ENOENT);
	assert_null(o);
	/* Remembered, same answer. */
	assert_int_equal(ws_symbols_get(s, "/nonexistent/whyslow-object", &o), -ENOENT);
	/* Not an ELF file. */
	assert_int_equal(ws_symbols_get(s, "/proc/self/status", &o), -ENOEXEC);
	ws_symbols_free(s);
}

static char *tmpdir;

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int rc;

	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		cmd = NULL;
	va_end(ap);
	assert_non_null(cmd);
	rc = system(cmd);
	free(cmd);
	return rc;
}

static uint64_t link_plus(const char *path, const char *sym, uint64_t delta)
{
	return nm_addr(path, sym) + delta;
}

static void test_stripped(void **state)
{
	struct ws_symbols *s = ws_symbols_new();
	char *path = xasprintf("%s/ratio-stripped", tmpdir);
	uint64_t vaddr = link_plus(ratio_path, "ratio_work3", 9);
	struct ws_symobj *o;
	struct ws_sym sym;
	char *name;

	(void)state;
	if (run("command -v strip >/dev/null"))
		skip();
	assert_int_equal(run("cp '%s' '%s' && strip '%s'", ratio_path, path, path), 0);
	assert_int_equal(ws_symbols_get(s, path, &o), 0);
	/* Stripping moves no code: the same link address, now without a name. */
	assert_int_equal(ws_symobj_lookup(o, vaddr, &sym), -ENOENT);
	assert_true(ws_symobj_symsrc(o) == WS_SYMSRC_DYNSYM || ws_symobj_symsrc(o) == WS_SYMSRC_NONE);
	assert_true(ws_symobj_first_hint(o));
	assert_false(ws_symobj_first_hint(o));
	/* Still a function of its own, by where its frame starts: ratio_work3's address. */
	name = xasprintf("[unknown]+0x%" PRIx64, nm_addr(ratio_path, "ratio_work3"));
	assert_string_equal(ws_symobj_unnamed(o, vaddr), name);
	free(name);
	ws_symbols_free(s);
	unlink(path);
	free(path);
}

/*
 * The quick look-up gives libdwfl's answer: the same symbol, start and offset, at the start, middle and last
 * byte of every function of the C library (aliases, IFUNCs, local clones) and of the test programs, and at
 * every 509th byte of their text (gaps, padding).
 */
static void test_quick_lookup(void **state)
{
	const char *paths[] = { "/lib/x86_64-linux-gnu/libc.so.6", ratio_path, nopie_path, lib_path };
	struct ws_symbols *s = ws_symbols_new();

	(void)state;
	for (size_t k = 0; k < 4; k++) {
		struct ws_symobj *o;
		char *cmd = xasprintf("{ nm -S --defined-only '%s'; nm -D -S --defined-only '%s'; } 2>/dev/null", paths[k],
				      paths[k]), line[1024];
		unsigned long long addr, size;
		uint64_t lo = UINT64_MAX, hi = 0;
		size_t checked = 0;
		FILE *f;

		if (access(paths[k], R_OK))
			continue;
		assert_int_equal(ws_symbols_get(s, paths[k], &o), 0);
		f = popen(cmd, "r");
		assert_non_null(f);
		while (fgets(line, sizeof(line), f)) {
			char type;

			if (sscanf(line, "%llx %llx %c", &addr, &size, &type) != 3 || (type != 'T' && type != 't' &&
			    type != 'i' && type != 'W'))
				continue;
			if (addr < lo)
				lo = addr;
			if (addr + size > hi)
				hi = addr + size;
			for (int w = 0; w < 3; w++) {
				uint64_t at = addr + (w == 0 ? 0 : w == 1 ? size / 2 : size - 1);
				struct ws_sym a = { 0 }, b = { 0 };
				int ra = ws_symobj_lookup(o, at, &a), rb = ws_symobj_lookup_slow(o, at, &b);

				assert_int_equal(ra, rb);
				if (ra)
					continue;
				assert_string_equal(a.symbol, b.symbol);
				assert_int_equal(a.start, b.start);
				assert_int_equal(a.offset, b.offset);
				checked++;
			}
		}
		pclose(f);
		free(cmd);
		for (uint64_t at = lo; at < hi; at += 509) {
			struct ws_sym a = { 0 }, b = { 0 };
			int ra = ws_symobj_lookup(o, at, &a), rb = ws_symobj_lookup_slow(o, at, &b);

			assert_int_equal(ra, rb);
			if (!ra)
				assert_string_equal(a.symbol, b.symbol);
		}
		assert_true(checked >= 3);
	}
	ws_symbols_free(s);
}

/* Every function with a size, as the symbol table gives it, is one frame of .eh_frame_hdr, to the byte. */
static void test_frames(void **state)
{
	const char *paths[] = { ratio_path, nopie_path, lib_path };

	(void)state;
	for (size_t k = 0; k < 3; k++) {
		int fd = open(paths[k], O_RDONLY);
		Elf *elf;
		Elf_Scn *scn = NULL;
		struct ws_frame *v;
		size_t n, checked = 0;

		assert_true(fd >= 0);
		elf_version(EV_CURRENT);
		elf = elf_begin(fd, ELF_C_READ, NULL);
		assert_non_null(elf);
		n = ws_elf_frames(elf, &v);
		assert_true(n > 2);
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !(d = elf_getdata(scn, NULL)))
				continue;
			for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym sym;
				const struct ws_frame *f;

				if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size ||
				    sym.st_shndx == SHN_UNDEF)
					continue;
				f = ws_frame_find(v, n, sym.st_value + sym.st_size / 2);
				assert_non_null(f);
				assert_int_equal(f->start, sym.st_value);
				assert_int_equal(f->end, sym.st_value + sym.st_size);
				checked++;
			}
		}
		/* ratio's _start, main, its two work functions and now(); the library's one function */
		assert_true(checked >= (k < 2 ? 5 : 1));
		/* Before the first frame, and in the ELF header: none. */
		assert_null(ws_frame_find(v, n, v[0].start - 1));
		assert_null(ws_frame_find(v, n, 0));
		free(v);
		elf_end(elf);
		close(fd);
	}
}

static void test_debuglink(void **state)
{
	struct ws_symbols *s = ws_symbols_new();
	char *path = xasprintf("%s/ratio-split", tmpdir);
	uint64_t vaddr = link_plus(ratio_path, "ratio_work1", 3);
	struct ws_symobj *o;
	struct ws_sym sym;
	const char *file, *dbg;
	unsigned line;

	(void)state;
	/* The distributions' way: debug info in NAME.debug, the binary stripped with a link to it. */
	if (run("command -v objcopy >/dev/null"))
		skip();
	assert_int_equal(run("cd '%s' && cp '%s' ratio-split && objcopy --only-keep-debug ratio-split ratio-split.debug "
			     "&& objcopy --strip-all ratio-split && objcopy --add-gnu-debuglink=ratio-split.debug "
			     "ratio-split", tmpdir, ratio_path), 0);
	assert_int_equal(ws_symbols_get(s, path, &o), 0);
	assert_int_equal(ws_symobj_lookup(o, vaddr, &sym), 0);
	assert_string_equal(sym.name, "ratio_work1");
	assert_int_equal(sym.offset, 3);
	assert_int_equal(ws_symobj_srcline(o, vaddr, &file, &line), 0);
	assert_non_null(strstr(file, "ratio.c"));
	assert_int_equal(ws_symobj_symsrc(o), WS_SYMSRC_DEBUG);
	dbg = ws_symobj_debugfile(o);
	assert_non_null(dbg);
	assert_non_null(strstr(dbg, "ratio-split.debug"));
	ws_symbols_free(s);
	run("rm -f '%s' '%s.debug'", path, path);
	free(path);
}

static void test_rebuilt_file(void **state)
{
	struct ws_symbols *s = ws_symbols_new();
	char *path = xasprintf("%s/ratio-rebuilt", tmpdir);
	struct ws_symobj *first, *again, *second;
	struct ws_sym sym;

	(void)state;
	assert_int_equal(run("cp '%s' '%s'", ratio_path, path), 0);
	assert_int_equal(ws_symbols_get(s, path, &first), 0);
	assert_int_equal(ws_symbols_get(s, path, &again), 0);
	assert_ptr_equal(first, again);
	/* A different binary under the same name (a rebuild between two runs) is read again. */
	assert_int_equal(run("cp '%s' '%s.new' && mv '%s.new' '%s'", nopie_path, path, path, path), 0);
	assert_int_equal(ws_symbols_get(s, path, &second), 0);
	assert_ptr_not_equal(first, second);
	assert_int_equal(ws_symobj_lookup(second, nm_addr(nopie_path, "ratio_work3"), &sym), 0);
	assert_string_equal(sym.name, "ratio_work3");
	/* The old object is still usable: pointers handed out earlier stay valid. */
	assert_int_equal(ws_symobj_lookup(first, nm_addr(ratio_path, "ratio_work3"), &sym), 0);
	assert_string_equal(sym.name, "ratio_work3");
	/* A file deleted after its run still resolves from the copy already read. */
	unlink(path);
	assert_int_equal(ws_symbols_get(s, path, &again), 0);
	assert_ptr_equal(again, second);
	ws_symbols_free(s);
	free(path);
}


/* The build-id of an ELF file as readelf prints it, or an empty string. */
static void build_id(const char *path, char *out, size_t n)
{
	char *cmd = xasprintf("readelf -n '%s' | sed -n 's/.*Build ID: *//p'", path);
	FILE *f = popen(cmd, "r");

	assert_non_null(f);
	if (!fgets(out, (int)n, f))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	pclose(f);
	free(cmd);
}

static void test_build_id_dir(void **state)
{
	char *path = xasprintf("%s/ratio-bid", tmpdir), *dir = xasprintf("%s/debug", tmpdir), *dbg;
	uint64_t vaddr = link_plus(ratio_path, "ratio_work3", 5);
	struct ws_symbols *s;
	struct ws_symobj *o;
	struct ws_sym sym;
	const char *file;
	char id[128];
	unsigned line;

	(void)state;
	/* Debian's way: a stripped binary, its debug file under the build-id tree of the debug directory. */
	if (run("command -v objcopy >/dev/null && command -v readelf >/dev/null"))
		skip();
	build_id(ratio_path, id, sizeof(id));
	if (strlen(id) < 4)
		skip();
	dbg = xasprintf("%s/.build-id/%.2s/%s.debug", dir, id, id + 2);
	assert_int_equal(run("mkdir -p '%s/.build-id/%.2s' && objcopy --only-keep-debug '%s' '%s' && "
			     "objcopy --strip-all '%s' '%s'", dir, id, ratio_path, dbg, ratio_path, path), 0);
	/* Without the debug directory: nothing names the function. */
	unsetenv("WHYSLOW_DEBUG_DIR");
	s = ws_symbols_new();
	assert_int_equal(ws_symbols_get(s, path, &o), 0);
	assert_int_equal(ws_symobj_lookup(o, vaddr, &sym), -ENOENT);
	ws_symbols_free(s);
	/* With it (the test interface standing in for /usr/lib/debug): named, with lines. */
	setenv("WHYSLOW_DEBUG_DIR", dir, 1);
	s = ws_symbols_new();
	assert_string_equal(ws_symbols_debug_dir(), dir);
	assert_int_equal(ws_symbols_get(s, path, &o), 0);
	assert_int_equal(ws_symobj_lookup(o, vaddr, &sym), 0);
	assert_string_equal(sym.name, "ratio_work3");
	assert_string_equal(sym.symbol, "ratio_work3");
	assert_int_equal(sym.offset, 5);
	assert_int_equal(ws_symobj_srcline(o, vaddr, &file, &line), 0);
	assert_non_null(strstr(file, "ratio.c"));
	assert_int_equal(ws_symobj_symsrc(o), WS_SYMSRC_DEBUG);
	assert_string_equal(ws_symobj_debugfile(o), dbg);
	ws_symbols_free(s);
	unsetenv("WHYSLOW_DEBUG_DIR");
	run("rm -rf '%s' '%s'", dir, path);
	free(dbg);
	free(dir);
	free(path);
}

static void test_plt_and_find(void **state)
{
	struct ws_symbols *s = ws_symbols_new();
	uint64_t plt = 0, addr = link_plus(ratio_path, "ratio_work1", 0);
	char *cmd = xasprintf("objdump -d '%s' | sed -n 's/^0*\\([0-9a-f]*\\) <strtol@plt>:.*/\\1/p'", ratio_path);
	FILE *f = popen(cmd, "r");
	struct ws_symobj *o;
	struct ws_sym sym;
	char line[64];

	(void)state;
	assert_non_null(f);
	if (fgets(line, sizeof(line), f))
		plt = strtoull(line, NULL, 16);
	pclose(f);
	free(cmd);
	if (!plt)
		skip();
	assert_int_equal(ws_symbols_get(s, ratio_path, &o), 0);
	/* A PLT stub: named from the relocation table, as objdump names it. */
	assert_int_equal(ws_symobj_lookup(o, plt + 4, &sym), 0);
	assert_string_equal(sym.name, "strtol@plt");
	assert_int_equal(sym.start, plt);
	/* A function by its table name, as Valgrind reports it. */
	assert_int_equal(ws_symobj_find(o, "ratio_work1", &sym), 0);
	assert_int_equal(sym.start, addr);
	assert_string_equal(sym.name, "ratio_work1");
	assert_int_equal(ws_symobj_find(o, "no_such_function", &sym), -ENOENT);
	ws_symbols_free(s);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pie),         cmocka_unit_test(test_fixed_address),
		cmocka_unit_test(test_shared_library), cmocka_unit_test(test_missing),
		cmocka_unit_test(test_stripped),    cmocka_unit_test(test_frames),
		cmocka_unit_test(test_quick_lookup),
		cmocka_unit_test(test_debuglink),
		cmocka_unit_test(test_rebuilt_file), cmocka_unit_test(test_build_id_dir),
		cmocka_unit_test(test_plt_and_find),
	};
	char tmpl[] = "/tmp/ws-test-symbols-XXXXXX";
	int rc;

	if (argc != 4) {
		fprintf(stderr, "usage: test-symbols RATIO RATIO_NOPIE LIBPROFWORK_SO\n");
		return 2;
	}
	/* Absolute, since some tests work in a temporary directory. */
	ratio_path = realpath(argv[1], NULL);
	nopie_path = realpath(argv[2], NULL);
	lib_path = realpath(argv[3], NULL);
	if (!ratio_path || !nopie_path || !lib_path) {
		fprintf(stderr, "test-symbols: the example programs are not built\n");
		return 2;
	}
	tmpdir = mkdtemp(tmpl);
	if (!tmpdir) {
		perror("mkdtemp");
		return 2;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	rmdir(tmpdir);
	free((char *)ratio_path);
	free((char *)nopie_path);
	free((char *)lib_path);
	return rc;
}
