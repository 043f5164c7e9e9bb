/* SPDX-License-Identifier: GPL-2.0-or-later */
/* callchain.h - a sample's call chain: frame pointers with a frameless leaf's caller put back, or DWARF unwinding. */
#ifndef WS_CALLCHAIN_H
#define WS_CALLCHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ws_symobj;

/*
 * x86-64's perf register numbers (arch/x86/include/uapi/asm/perf_regs.h): a sample's user registers come in
 * this order, those of its sample_regs_user mask only.
 */
enum {
	WS_CC_REG_AX, WS_CC_REG_BX, WS_CC_REG_CX, WS_CC_REG_DX, WS_CC_REG_SI, WS_CC_REG_DI, WS_CC_REG_BP,
	WS_CC_REG_SP, WS_CC_REG_IP, WS_CC_REG_R8 = 16, WS_CC_REG_R15 = 23, WS_CC_NR_REGS = 24,
};

/* What the frame-pointer fix needs (sp, and bp and ip for checks); what DWARF unwinding needs (all it uses). */
#define WS_CC_FP_REGS ((1ULL << WS_CC_REG_BP) | (1ULL << WS_CC_REG_SP) | (1ULL << WS_CC_REG_IP))
#define WS_CC_DWARF_REGS (((1ULL << (WS_CC_REG_IP + 1)) - 1) | (0xffULL << WS_CC_REG_R8))

/* The user stack a sample copies: a frameless leaf's return address sits near the stack pointer ... */
#define WS_CC_FP_STACK 512
/* ... DWARF unwinding needs every frame's, as perf record --call-graph dwarf takes by default. */
#define WS_CC_DWARF_STACK 8192

/* Frames kept per sample: deeper chains are cut, their outermost frames dropped. */
#define WS_CC_MAX_FRAMES 128

/* What one sample brought for its chain, pointing into its record (valid while the record is). */
struct ws_cc_sample {
	const uint64_t *ips;        /* PERF_SAMPLE_CALLCHAIN, PERF_CONTEXT_* markers included; NULL: none */
	size_t nips;
	uint64_t regs[WS_CC_NR_REGS]; /* PERF_SAMPLE_REGS_USER by perf register number */
	bool have_regs;             /* the kernel gave user registers (it does not for a kernel thread) */
	const unsigned char *stack; /* PERF_SAMPLE_STACK_USER: stack_len bytes from regs[SP] up */
	size_t stack_len;
};

/*
 * The user frames of a frame-pointer chain, leaf first, into pcs[] (at most `max`): the kernel's walk of
 * the rbp chain from the sample. That walk skips the caller of a leaf that has no frame of its own (libc's
 * memcpy, or any function before its prologue's mov rbp, rsp), because rbp still holds the caller's frame:
 * where the leaf's CFI (`leaf`, at link address `leaf_vaddr`; NULL: no fix) says its canonical frame
 * address comes from rsp, the return address is read from the copied stack at CFA - 8 and put back as the
 * second frame, unless the chain has it there already. Returns the number of frames; pcs[0] is the
 * sample's user ip.
 */
size_t ws_cc_fp(const struct ws_cc_sample *s, struct ws_symobj *leaf, uint64_t leaf_vaddr, uint64_t *pcs,
		size_t max);

/* A mapping of the sampled process, for the DWARF unwinder. */
struct ws_cc_map {
	uint64_t start, end, pgoff; /* as an MMAP2 record gives them */
	const char *path;           /* the mapped file */
	struct ws_symobj *so;       /* its symbols (for the load bias); NULL when it cannot be read */
};

/*
 * DWARF unwinding for one process, with elfutils (dwfl_attach_state, dwfl_getthread_frames), as perf record
 * --call-graph dwarf does: from the sample's user registers and its copy of the user stack, through the CFI
 * (.eh_frame, .debug_frame) of every object mapped. The objects are reported once per unwinder, at their load
 * addresses; make a new one when the process's mappings change.
 */
struct ws_cc_unwinder;

/* An unwinder for process `pid` with its file mappings `maps`; NULL when elfutils cannot set one up. */
struct ws_cc_unwinder *ws_cc_unwinder_new(pid_t pid, const struct ws_cc_map *maps, size_t n);

/* The frames of sample `s`, innermost first, into pcs[] (at most `max`); 0 when it cannot unwind at all. */
size_t ws_cc_dwarf(struct ws_cc_unwinder *u, const struct ws_cc_sample *s, uint64_t *pcs, size_t max);

void ws_cc_unwinder_free(struct ws_cc_unwinder *u);

#endif
