/* SPDX-License-Identifier: GPL-2.0-or-later */
/* callchain.c - a sample's call chain: frame pointers with a frameless leaf's caller put back, or DWARF unwinding. */
#include "perf/callchain.h"
#include "symbols/symbols.h"
#include "core/log.h"
#include "core/util.h"

#include <elfutils/libdwfl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

/* x86-64's DWARF register numbers, rsp and rbp: what a CFA rule is computed from. */
#define DWARF_RBP 6
#define DWARF_RSP 7

size_t ws_cc_fp(const struct ws_cc_sample *s, struct ws_symobj *leaf, uint64_t leaf_vaddr, uint64_t *pcs,
		size_t max)
{
	size_t n = 0;
	bool user = false;
	int reg;
	int64_t off;

	/* The kernel's part (excluded, but a marker may still come) and the markers themselves are not frames. */
	for (size_t i = 0; i < s->nips && n < max; i++) {
		if (s->ips[i] >= (uint64_t)PERF_CONTEXT_MAX) {
			user = s->ips[i] == (uint64_t)PERF_CONTEXT_USER;
			continue;
		}
		if (user)
			pcs[n++] = s->ips[i];
	}
	if (!n || !leaf || !s->have_regs || s->regs[WS_CC_REG_IP] != pcs[0] || !s->stack)
		return n;
	/*
	 * The leaf's CFA from rsp: it has not set rbp to a frame of its own, so the kernel's walk went from the
	 * caller's frame and skipped the caller. Its return address is at CFA - 8, in the copied stack.
	 */
	if (ws_symobj_cfa(leaf, leaf_vaddr, &reg, &off) == 0 && reg == DWARF_RSP && off >= 8 &&
	    (uint64_t)off <= s->stack_len) {
		uint64_t ra;

		memcpy(&ra, s->stack + off - 8, sizeof(ra));
		if (ra && (n < 2 || pcs[1] != ra)) {
			if (n == max)
				n--;
			memmove(pcs + 2, pcs + 1, (n - 1) * sizeof(*pcs));
			pcs[1] = ra;
			n++;
		}
	}
	return n;
}

struct ws_cc_unwinder {
	Dwfl *dwfl;
	pid_t pid;
	const struct ws_cc_sample *cur; /* the sample being unwound */
};

static char *no_debuginfo_path;
static const Dwfl_Callbacks unwind_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &no_debuginfo_path,
};

/* One thread: the sample's. dwfl_getthread_frames() asks for it by the process id it was attached with. */
static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	struct ws_cc_unwinder *u = arg;

	(void)dwfl;
	if (*thread_arg)
		return 0;
	*thread_arg = u;
	return u->pid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	(void)dwfl;
	(void)tid;
	*thread_arg = arg;
	return true;
}

/* Memory is the copied stack and nothing else: the CFI of the objects is read from their files. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	const struct ws_cc_sample *s = ((struct ws_cc_unwinder *)arg)->cur;
	uint64_t sp = s->regs[WS_CC_REG_SP];

	(void)dwfl;
	if (addr < sp || addr - sp > s->stack_len || s->stack_len - (addr - sp) < sizeof(*result))
		return false;
	memcpy(result, s->stack + (addr - sp), sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const uint64_t *r = ((struct ws_cc_unwinder *)arg)->cur->regs;
	/* DWARF's order: rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp, r8-r15, and the return address column, rip. */
	Dwarf_Word d[17] = {
		r[WS_CC_REG_AX], r[WS_CC_REG_DX], r[WS_CC_REG_CX], r[WS_CC_REG_BX],
		r[WS_CC_REG_SI], r[WS_CC_REG_DI], r[WS_CC_REG_BP], r[WS_CC_REG_SP],
	};

	for (int i = 0; i < 8; i++)
		d[8 + i] = r[WS_CC_REG_R8 + i];
	d[16] = r[WS_CC_REG_IP];
	if (!dwfl_thread_state_registers(thread, 0, 17, d))
		return false;
	dwfl_thread_state_register_pc(thread, r[WS_CC_REG_IP]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

struct ws_cc_unwinder *ws_cc_unwinder_new(pid_t pid, const struct ws_cc_map *maps, size_t n)
{
	struct ws_cc_unwinder *u = xcalloc(1, sizeof(*u));
	size_t reported = 0;

	u->pid = pid;
	u->dwfl = dwfl_begin(&unwind_callbacks);
	if (!u->dwfl)
		goto fail;
	dwfl_report_begin(u->dwfl);
	for (size_t i = 0; i < n; i++) {
		const char *base = strrchr(maps[i].path, '/');
		uint64_t vaddr;
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(maps[j].path, maps[i].path);
		if (seen || !maps[i].so || ws_symobj_vaddr(maps[i].so, maps[i].pgoff, &vaddr))
			continue;
		/* The load bias: where link address 0 is. libdwfl adds the segments' own addresses to it. */
		if (dwfl_report_elf(u->dwfl, base ? base + 1 : maps[i].path, maps[i].path, -1, maps[i].start - vaddr,
				    true))
			reported++;
		else
			ws_log(WS_LOG_DEBUG, "unwind: %s: %s", maps[i].path, dwfl_errmsg(-1));
	}
	if (dwfl_report_end(u->dwfl, NULL, NULL) || !reported)
		goto fail;
	if (!dwfl_attach_state(u->dwfl, NULL, pid, &thread_callbacks, u)) {
		ws_log(WS_LOG_DEBUG, "unwind: process %d: %s", (int)pid, dwfl_errmsg(-1));
		goto fail;
	}
	return u;
fail:
	ws_cc_unwinder_free(u);
	return NULL;
}

struct frames {
	uint64_t *pcs;
	size_t n, max;
};

static int frame_callback(Dwfl_Frame *frame, void *arg)
{
	struct frames *f = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(frame, &pc, &activation) || !pc)
		return DWARF_CB_ABORT;
	f->pcs[f->n++] = pc;
	return f->n < f->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

size_t ws_cc_dwarf(struct ws_cc_unwinder *u, const struct ws_cc_sample *s, uint64_t *pcs, size_t max)
{
	struct frames f = { pcs, 0, max };

	if (!u || !s->have_regs || !max)
		return 0;
	u->cur = s;
	/*
	 * It ends with an error where the copied stack or the CFI ends (a frame above the copy, a function
	 * without CFI): the frames found until then are the chain.
	 */
	dwfl_getthread_frames(u->dwfl, u->pid, frame_callback, &f);
	u->cur = NULL;
	return f.n;
}

void ws_cc_unwinder_free(struct ws_cc_unwinder *u)
{
	if (!u)
		return;
	if (u->dwfl)
		dwfl_end(u->dwfl);
	free(u);
}
