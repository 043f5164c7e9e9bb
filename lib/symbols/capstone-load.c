/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capstone-load.c - capstone, loaded the first time something disassembles, not at every start of whyslow. */
#include "core/log.h"

#include <capstone/capstone.h>
#include <dlfcn.h>
#include <pthread.h>

/*
 * whyslow is not linked against libcapstone: these are the capstone functions it calls, each forwarding to
 * the library, which the first of them loads. Linked, the dynamic loader relocated capstone's 77,000
 * pointers at every start-up, a copy-on-write fault for each page of its tables (2 ms of each start on the
 * 2-core KVM guest), though only asm-diff and the PLT names of a profile ever disassemble.
 */

#define STR_(x) #x
#define STR(x) STR_(x)
/* The header's major version is the library's soname version (libcapstone.so.4 for capstone 4.x). */
#define CAPSTONE_SONAME "libcapstone.so." STR(CS_API_MAJOR)

static struct {
	__typeof__(&cs_open) open;
	__typeof__(&cs_close) close;
	__typeof__(&cs_option) option;
	__typeof__(&cs_free) free;
	__typeof__(&cs_malloc) malloc;
	__typeof__(&cs_disasm_iter) disasm_iter;
	__typeof__(&cs_reg_name) reg_name;
} cs;
static bool loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	void *h = dlopen(CAPSTONE_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		ws_log(WS_LOG_WARN, "cannot load capstone, so nothing is disassembled: %s", dlerror());
		return;
	}
	/* POSIX's way to take a function from dlsym: its address is written into the pointer's bytes. */
	*(void **)&cs.open = dlsym(h, "cs_open");
	*(void **)&cs.close = dlsym(h, "cs_close");
	*(void **)&cs.option = dlsym(h, "cs_option");
	*(void **)&cs.free = dlsym(h, "cs_free");
	*(void **)&cs.malloc = dlsym(h, "cs_malloc");
	*(void **)&cs.disasm_iter = dlsym(h, "cs_disasm_iter");
	*(void **)&cs.reg_name = dlsym(h, "cs_reg_name");
	loaded = cs.open && cs.close && cs.option && cs.free && cs.malloc && cs.disasm_iter && cs.reg_name;
	if (!loaded)
		ws_log(WS_LOG_WARN, "cannot load capstone, so nothing is disassembled: %s lacks a function of "
		       "capstone %d", CAPSTONE_SONAME, CS_API_MAJOR);
}

/* Every handle comes from cs_open, so the other functions run only once it has loaded the library. */
cs_err cs_open(cs_arch arch, cs_mode mode, csh *handle)
{
	pthread_once(&once, load);
	if (!loaded)
		return CS_ERR_VERSION;
	return cs.open(arch, mode, handle);
}

cs_err cs_close(csh *handle)
{
	return loaded ? cs.close(handle) : CS_ERR_CSH;
}

cs_err cs_option(csh handle, cs_opt_type type, size_t value)
{
	return loaded ? cs.option(handle, type, value) : CS_ERR_CSH;
}

void cs_free(cs_insn *insn, size_t count)
{
	if (loaded)
		cs.free(insn, count);
}

cs_insn *cs_malloc(csh handle)
{
	return loaded ? cs.malloc(handle) : NULL;
}

bool cs_disasm_iter(csh handle, const uint8_t **code, size_t *size, uint64_t *address, cs_insn *insn)
{
	return loaded && cs.disasm_iter(handle, code, size, address, insn);
}

const char *cs_reg_name(csh handle, unsigned int reg_id)
{
	return loaded ? cs.reg_name(handle, reg_id) : NULL;
}
