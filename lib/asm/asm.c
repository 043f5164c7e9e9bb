/* SPDX-License-Identifier: GPL-2.0-or-later */
/* asm.c - disassemble one x86-64 function with capstone: listing, normalised form and summary. */
#include "asm/asm-internal.h"
#include "symbols/names.h"
#include "core/log.h"
#include "core/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- register classes, for renaming by first appearance ---- */

enum reg_class { REG_OTHER, REG_GPR, REG_VEC };

struct reg_info {
	unsigned char cls;    /* enum reg_class */
	unsigned char family; /* GPR 0..15 (rax .. r15), vector 0..31 */
	char width;           /* GPR: 'q' 64, 'd' 32, 'w' 16, 'b' low 8, 'h' high 8; vector: 'x', 'y', 'z' */
};

#define FAM_RSP 7
#define FAM_RBP 6

static const char *const gpr_names[16][5] = {
	{ "rax", "eax", "ax", "al", "ah" }, { "rbx", "ebx", "bx", "bl", "bh" },
	{ "rcx", "ecx", "cx", "cl", "ch" }, { "rdx", "edx", "dx", "dl", "dh" },
	{ "rsi", "esi", "si", "sil", NULL }, { "rdi", "edi", "di", "dil", NULL },
	{ "rbp", "ebp", "bp", "bpl", NULL }, { "rsp", "esp", "sp", "spl", NULL },
	{ "r8", "r8d", "r8w", "r8b", NULL }, { "r9", "r9d", "r9w", "r9b", NULL },
	{ "r10", "r10d", "r10w", "r10b", NULL }, { "r11", "r11d", "r11w", "r11b", NULL },
	{ "r12", "r12d", "r12w", "r12b", NULL }, { "r13", "r13d", "r13w", "r13b", NULL },
	{ "r14", "r14d", "r14w", "r14b", NULL }, { "r15", "r15d", "r15w", "r15b", NULL },
};

static struct reg_info reg_table[X86_REG_ENDING];
static bool reg_table_ready;

/* Classify capstone's register ids once, by their names (the ids are an implementation detail). */
static void init_reg_table(csh cs)
{
	static const char widths[] = "qdwbh";

	if (reg_table_ready)
		return;
	for (unsigned r = 1; r < X86_REG_ENDING; r++) {
		const char *name = cs_reg_name(cs, r);
		unsigned n;
		char c;

		if (!name)
			continue;
		for (unsigned f = 0; f < 16; f++)
			for (unsigned w = 0; w < 5; w++)
				if (gpr_names[f][w] && !strcmp(gpr_names[f][w], name))
					reg_table[r] = (struct reg_info){ REG_GPR, (unsigned char)f, widths[w] };
		if (sscanf(name, "%cmm%u", &c, &n) == 2 && (c == 'x' || c == 'y' || c == 'z') && n < 32)
			reg_table[r] = (struct reg_info){ REG_VEC, (unsigned char)n, c };
	}
	reg_table_ready = true;
}

/* ---- a growing string ---- */

struct sbuf {
	char *s;
	size_t len, alloc;
};

static void sb_addf(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_addf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	WS_ALLOC_GROW(sb->s, sb->len + (size_t)n + 1, sb->alloc);
	va_start(ap, fmt);
	vsnprintf(sb->s + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

static char *sb_detach(struct sbuf *sb)
{
	char *s = sb->s ? sb->s : xstrdup("");

	sb->s = NULL;
	sb->len = sb->alloc = 0;
	return s;
}

/* ---- per-function state ---- */

struct fn_ctx {
	const struct ws_asm_bin *bin; /* may be NULL */
	const char *name;             /* the function's own name for "<name+0x1f>"; may be NULL */
	uint64_t start, end;
	csh cs;
	int gpr_map[16], vec_map[32]; /* canonical number, 0 = not seen yet */
	int ngpr, nvec;
	bool frame_pointer;
};

static void format_reg(struct fn_ctx *c, struct sbuf *sb, unsigned reg)
{
	const struct reg_info *ri = reg < X86_REG_ENDING ? &reg_table[reg] : NULL;

	if (!ri || ri->cls == REG_OTHER) {
		const char *name = cs_reg_name(c->cs, reg);

		sb_addf(sb, "%s", name ? name : "?");
		return;
	}
	if (ri->cls == REG_VEC) {
		if (!c->vec_map[ri->family])
			c->vec_map[ri->family] = ++c->nvec;
		sb_addf(sb, "v%d%c", c->vec_map[ri->family], ri->width);
		return;
	}
	/* The stack pointer is never allocated; rbp is not while it is the frame pointer. */
	if (ri->family == FAM_RSP || (ri->family == FAM_RBP && c->frame_pointer)) {
		sb_addf(sb, "%s", cs_reg_name(c->cs, reg));
		return;
	}
	if (!c->gpr_map[ri->family])
		c->gpr_map[ri->family] = ++c->ngpr;
	if (ri->width == 'q')
		sb_addf(sb, "r%d", c->gpr_map[ri->family]);
	else
		sb_addf(sb, "r%d%c", c->gpr_map[ri->family], ri->width);
}

static bool is_stack_base(const struct fn_ctx *c, unsigned reg)
{
	const struct reg_info *ri = reg < X86_REG_ENDING ? &reg_table[reg] : NULL;

	return ri && ri->cls == REG_GPR &&
	       (ri->family == FAM_RSP || (ri->family == FAM_RBP && c->frame_pointer));
}

/* The stable name of an address for the normalised form; "<addr>" when nothing names it. */
static char *stable_addr_name(const struct fn_ctx *c, uint64_t addr)
{
	char *n = c->bin ? ws_asm_bin_name_addr(c->bin, addr, true) : NULL;

	return n ? n : xstrdup("<addr>");
}

static void format_mem(struct fn_ctx *c, struct sbuf *sb, const cs_insn *in, const cs_x86_op *op)
{
	const x86_op_mem *m = &op->mem;
	bool any = false;

	if (m->segment != X86_REG_INVALID)
		sb_addf(sb, "%s:", cs_reg_name(c->cs, m->segment));
	sb_addf(sb, "m%u[", op->size);
	if (m->base == X86_REG_RIP) {
		char *n = stable_addr_name(c, in->address + in->size + (uint64_t)m->disp);

		sb_addf(sb, "rip:%s]", n);
		free(n);
		return;
	}
	if (m->base == X86_REG_INVALID && m->index == X86_REG_INVALID && c->bin &&
	    asm_section_at(c->bin, (uint64_t)m->disp)) {
		/* An absolute address (non-PIE code): name it as a rip-relative one would be. */
		char *n = stable_addr_name(c, (uint64_t)m->disp);

		sb_addf(sb, "abs:%s]", n);
		free(n);
		return;
	}
	if (m->base != X86_REG_INVALID) {
		format_reg(c, sb, m->base);
		any = true;
	}
	if (m->index != X86_REG_INVALID) {
		if (any)
			sb_addf(sb, "+");
		format_reg(c, sb, m->index);
		if (m->scale != 1)
			sb_addf(sb, "*%d", m->scale);
		any = true;
	}
	/* Stack slots move whenever a spill is added or removed; struct field offsets do not. */
	if (m->base != X86_REG_INVALID && is_stack_base(c, m->base))
		sb_addf(sb, "+S");
	else if (m->disp || !any)
		sb_addf(sb, "%s0x%" PRIx64, any ? (m->disp < 0 ? "-" : "+") : (m->disp < 0 ? "-" : ""),
			m->disp < 0 ? (uint64_t)0 - (uint64_t)m->disp : (uint64_t)m->disp);
	sb_addf(sb, "]");
}

/* ---- classification ---- */

static bool has_group(const cs_insn *in, uint8_t g)
{
	for (uint8_t i = 0; i < in->detail->groups_count; i++)
		if (in->detail->groups[i] == g)
			return true;
	return false;
}

static bool starts_with_any(const char *s, const char *const *prefixes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strncmp(s, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

static bool is_one_of(const char *s, const char *const *words, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, words[i]))
			return true;
	return false;
}

/* The mnemonic without "lock ", "rep ", "bnd ", "notrack " ... prefixes. */
static const char *bare_mnemonic(const char *m)
{
	const char *sp;

	while ((sp = strchr(m, ' ')))
		m = sp + 1;
	return m;
}

/* Instructions that name a memory operand but do not access it (or only as a hint). */
static bool no_memory_access(const char *m)
{
	static const char *const pre[] = { "lea", "nop", "prefetch", "clflush", "clwb", "cldemote" };

	return starts_with_any(m, pre, ARRAY_SIZE(pre));
}

/*
 * Capstone 4's operand access flags are unreliable for stores (movdqa, movq, vmovdqu, pextrd, fstp ... to
 * memory are marked read-only), so memory destinations are classified here: in Intel syntax the first of
 * two or more operands is written unless the instruction only compares; these stores do not also read it.
 */
static bool is_pure_store(const char *m)
{
	static const char *const pre[] = {
		"mov", "vmov", "kmov", "stos", "pextr", "vpextr", "extractps", "vextract", "maskmov",
		"vmaskmov", "vpmaskmov", "vpscatter", "vscatter", "vcvtps2ph", "vpmov", "set", "fst", "fist",
		"fnst", "stmxcsr", "vstmxcsr", "fxsave", "xsave", "sgdt", "sidt", "str", "smsw",
	};

	return starts_with_any(m, pre, ARRAY_SIZE(pre));
}

static bool is_compare_only(const char *m)
{
	static const char *const words[] = { "cmp", "test", "bt", "cmpsb", "cmpsw", "cmpsd", "cmpsq" };

	return is_one_of(m, words, ARRAY_SIZE(words));
}

static void classify_memory(const cs_insn *in, unsigned *flags)
{
	const cs_x86 *x = &in->detail->x86;
	const char *m = bare_mnemonic(in->mnemonic);

	if (no_memory_access(m))
		return;
	for (uint8_t i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];
		bool rd, wr;

		if (op->type != X86_OP_MEM)
			continue;
		rd = op->access & CS_AC_READ;
		wr = op->access & CS_AC_WRITE;
		if (i == 0 && !is_compare_only(m) && (x->op_count >= 2 || is_pure_store(m))) {
			wr = true;
			if (is_pure_store(m))
				rd = false;
		}
		if (!rd && !wr)
			rd = true; /* access unknown to capstone: a memory operand is at least read */
		if (rd)
			*flags |= WS_ASM_LOAD;
		if (wr)
			*flags |= WS_ASM_STORE;
	}
}

static bool is_simd(const cs_insn *in)
{
	static const uint8_t groups[] = {
		X86_GRP_SSE1, X86_GRP_SSE2, X86_GRP_SSE3, X86_GRP_SSE41, X86_GRP_SSE42, X86_GRP_SSE4A,
		X86_GRP_SSSE3, X86_GRP_AVX, X86_GRP_AVX2, X86_GRP_AVX512, X86_GRP_FMA, X86_GRP_FMA4,
		X86_GRP_F16C, X86_GRP_MMX, X86_GRP_3DNOW, X86_GRP_XOP, X86_GRP_CDI, X86_GRP_ERI, X86_GRP_DQI,
		X86_GRP_BWI, X86_GRP_PFI,
	};
	/* In those groups but not vector work: hints, fences, MXCSR and non-temporal integer stores. */
	static const char *const not_simd[] = {
		"prefetch", "lfence", "mfence", "sfence", "pause", "clflush", "ldmxcsr", "stmxcsr", "vldmxcsr",
		"vstmxcsr", "movnti",
	};

	if (starts_with_any(bare_mnemonic(in->mnemonic), not_simd, ARRAY_SIZE(not_simd)))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(groups); i++)
		if (has_group(in, groups[i]))
			return true;
	return false;
}

static bool is_wide(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	for (uint8_t i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		if (op->type == X86_OP_REG && op->reg < X86_REG_ENDING && reg_table[op->reg].cls == REG_VEC &&
		    reg_table[op->reg].width != 'x')
			return true;
		if (op->type == X86_OP_MEM && op->size >= 32)
			return true;
	}
	return false;
}

static bool is_nop(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	if (in->id == X86_INS_NOP || in->id == X86_INS_FNOP)
		return true;
	/* 66 90 and friends: xchg of a register with itself */
	return in->id == X86_INS_XCHG && x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
	       x->operands[1].type == X86_OP_REG && x->operands[0].reg == x->operands[1].reg;
}

/* ---- one instruction ---- */

/* A name for a branch or call target: the callee for the summary, or "<fwd>"-style inside the function. */
static void name_target(struct fn_ctx *c, uint64_t target, char **display, char **stable, bool *inside,
			bool *at_start)
{
	uint64_t off = 0;
	const struct asm_name *n = c->bin ? asm_lookup(c->bin, target, &off) : NULL;

	*inside = target >= c->start && target < c->end;
	*at_start = n && !off;
	if (*inside) {
		*display = c->name ? (target == c->start ? xstrdup(c->name) :
				      xasprintf("%s+0x%" PRIx64, c->name, target - c->start))
				   : xasprintf("+0x%" PRIx64, target - c->start);
		*stable = NULL;
		return;
	}
	*display = c->bin ? ws_asm_bin_name_addr(c->bin, target, false) : NULL;
	*stable = stable_addr_name(c, target);
}

/*
 * The function a shown name belongs to: without C++'s "[clone .cold]" notes (names are demangled) and
 * without C's clone suffixes, so that a jump to one's own .cold part is no tail call.
 */
static char *display_identity(const char *name)
{
	const char *note = strstr(name, " [clone ");
	char *head = note ? xstrndup(name, (size_t)(note - name)) : xstrdup(name), *base = ws_sym_base(head);

	free(head);
	return base;
}

/* "memcpy@plt" and "memcpy@got" are calls of memcpy. */
static char *callee_name(const char *display)
{
	size_t len = strlen(display);

	if (len > 4 && (!strcmp(display + len - 4, "@plt") || !strcmp(display + len - 4, "@got")))
		return xstrndup(display, len - 4);
	return xstrdup(display);
}

static void add_insn(struct ws_asm_func *f, const struct ws_asm_insn *insn)
{
	WS_ALLOC_GROW(f->insns, f->n + 1, f->alloc);
	f->insns[f->n++] = *insn;
}

static void do_insn(struct fn_ctx *c, const cs_insn *in, struct ws_asm_func *f)
{
	const cs_x86 *x = &in->detail->x86;
	struct ws_asm_insn out = { .addr = in->address, .size = in->size };
	struct sbuf text = { 0 }, norm = { 0 };
	bool jump = has_group(in, X86_GRP_JUMP), call = has_group(in, X86_GRP_CALL);
	char *rip_note = NULL;

	sb_addf(&text, "%s%s%s", in->mnemonic, in->op_str[0] ? " " : "", in->op_str);
	if (is_nop(in)) {
		out.flags |= WS_ASM_NOP;
		sb_addf(&norm, "nop");
		goto done;
	}
	classify_memory(in, &out.flags);
	if (is_simd(in))
		out.flags |= WS_ASM_SIMD;
	if (is_wide(in))
		out.flags |= WS_ASM_SIMD_WIDE;
	if (has_group(in, X86_GRP_RET))
		out.flags |= WS_ASM_RET;
	if (call)
		out.flags |= WS_ASM_CALL;
	if (jump && in->id != X86_INS_JMP && in->id != X86_INS_LJMP)
		out.flags |= WS_ASM_COND_BRANCH;
	else if (jump)
		out.flags |= WS_ASM_JUMP;
	if ((jump || call) && x->op_count >= 1 && x->operands[0].type != X86_OP_IMM)
		out.flags |= WS_ASM_INDIRECT;

	sb_addf(&norm, "%s", in->mnemonic);
	for (uint8_t i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		sb_addf(&norm, i ? ", " : " ");
		switch (op->type) {
		case X86_OP_REG:
			format_reg(c, &norm, op->reg);
			break;
		case X86_OP_MEM:
			format_mem(c, &norm, in, op);
			if (op->mem.base == X86_REG_RIP && c->bin && !rip_note) {
				uint64_t a = in->address + in->size + (uint64_t)op->mem.disp;
				char *n = ws_asm_bin_name_addr(c->bin, a, false);

				rip_note = n ? xasprintf("0x%" PRIx64 " <%s>", a, n) : NULL;
				free(n);
			}
			break;
		case X86_OP_IMM:
			if ((jump || call) && i == 0) {
				uint64_t target = (uint64_t)op->imm;
				char *display, *stable;
				bool inside, at_start;

				name_target(c, target, &display, &stable, &inside, &at_start);
				if (display)
					sb_addf(&text, " <%s>", display);
				if (inside && call && target == c->start) {
					/* Recursion: a call of this very function, named like any other callee. */
					sb_addf(&norm, "<recurse>");
					out.target = c->name ? xstrdup(c->name) : xasprintf("0x%" PRIx64, target);
				} else if (inside) {
					sb_addf(&norm, "%s", target > in->address ? "<fwd>" :
							     target < in->address ? "<back>" : "<self>");
				} else {
					sb_addf(&norm, "%s", stable);
					/*
					 * A jump to the start of another function (not to this one's .cold part) is
					 * a tail call: for the question "what does it call?" it counts as one.
					 */
					if (jump && display && at_start) {
						char *self_base = c->name ? display_identity(c->name) : NULL;
						char *their_base = display_identity(display);

						if (!self_base || strcmp(self_base, their_base))
							out.flags |= WS_ASM_TAIL_CALL;
						free(self_base);
						free(their_base);
					}
					if (call || (out.flags & WS_ASM_TAIL_CALL))
						out.target = display ? callee_name(display)
								     : xasprintf("0x%" PRIx64, target);
				}
				free(display);
				free(stable);
			} else if (c->bin && c->bin->elf_type == ET_EXEC && op->imm >= 0x10000 &&
				   asm_section_at(c->bin, (uint64_t)op->imm)) {
				/* A non-PIE binary loads addresses as immediates: name them like rip operands. */
				char *n = stable_addr_name(c, (uint64_t)op->imm);
				char *d = ws_asm_bin_name_addr(c->bin, (uint64_t)op->imm, false);

				sb_addf(&norm, "<%s>", n);
				if (d && !rip_note)
					rip_note = xasprintf("<%s>", d);
				free(n);
				free(d);
			} else {
				sb_addf(&norm, "%s0x%" PRIx64, op->imm < 0 ? "-" : "",
					op->imm < 0 ? (uint64_t)0 - (uint64_t)op->imm : (uint64_t)op->imm);
			}
			break;
		default:
			sb_addf(&norm, "?");
			break;
		}
	}
	if ((call || jump) && (out.flags & WS_ASM_INDIRECT)) {
		/* call [rip + slot] through a named GOT slot (-fno-plt) still names its callee. */
		const cs_x86_op *op = &x->operands[0];

		if (op->type == X86_OP_MEM && op->mem.base == X86_REG_RIP && c->bin) {
			uint64_t off = 0;
			const struct asm_name *n =
				asm_lookup(c->bin, in->address + in->size + (uint64_t)op->mem.disp, &off);

			if (n && !off && n->kind == ASM_NAME_GOT)
				out.target = callee_name(n->name);
		}
		if (!out.target && call)
			out.target = xstrdup("*indirect");
		if (out.target && jump)
			out.flags |= WS_ASM_TAIL_CALL;
	}
	if (rip_note)
		sb_addf(&text, "  # %s", rip_note);
done:
	free(rip_note);
	out.text = sb_detach(&text);
	out.norm = sb_detach(&norm);
	add_insn(f, &out);
}

static void add_bad(struct ws_asm_func *f, uint64_t addr, uint8_t byte)
{
	struct ws_asm_insn out = { .addr = addr, .size = 1, .flags = WS_ASM_BAD };

	out.text = xasprintf("(bad) 0x%02x", byte);
	out.norm = xasprintf("(bad) 0x%02x", byte);
	add_insn(f, &out);
}

/* ---- the summary ---- */

static void add_call(struct ws_asm_summary *s, const char *name, size_t *alloc)
{
	for (size_t i = 0; i < s->ncalls; i++)
		if (!strcmp(s->calls[i], name))
			return;
	WS_ALLOC_GROW(s->calls, s->ncalls + 1, *alloc);
	s->calls[s->ncalls++] = xstrdup(name);
}

static bool is_rsp(const cs_x86_op *op)
{
	return op->type == X86_OP_REG && op->reg == X86_REG_RSP;
}

static void summarize(struct ws_asm_func *f, const cs_insn *const *ins)
{
	struct ws_asm_summary *s = &f->sum;
	size_t calls_alloc = 0, pushes = 0;
	int64_t depth = 0, sub = 0;

	for (size_t i = 0; i < f->n; i++) {
		const struct ws_asm_insn *in = &f->insns[i];
		const cs_insn *ci = ins[i];

		s->bytes += in->size;
		s->instructions++;
		s->loads += !!(in->flags & WS_ASM_LOAD);
		s->stores += !!(in->flags & WS_ASM_STORE);
		s->cond_branches += !!(in->flags & WS_ASM_COND_BRANCH);
		s->indirect_branches += !!(in->flags & WS_ASM_INDIRECT);
		s->simd += !!(in->flags & WS_ASM_SIMD);
		s->simd_wide += !!(in->flags & WS_ASM_SIMD_WIDE);
		s->bad += !!(in->flags & WS_ASM_BAD);
		if (in->flags & (WS_ASM_CALL | WS_ASM_TAIL_CALL)) {
			s->call_sites++;
			if (in->target)
				add_call(s, in->target, &calls_alloc);
		}
		if (!ci)
			continue;
		/* The stack depth along the code in address order; its maximum is the frame. */
		if (ci->id == X86_INS_PUSH) {
			depth += 8;
			pushes++;
		} else if (ci->id == X86_INS_POP) {
			depth -= 8;
			if (pushes)
				pushes--;
		} else if ((ci->id == X86_INS_SUB || ci->id == X86_INS_ADD) && ci->detail->x86.op_count == 2 &&
			   is_rsp(&ci->detail->x86.operands[0])) {
			const cs_x86_op *src = &ci->detail->x86.operands[1];

			if (src->type == X86_OP_IMM) {
				int64_t d = ci->id == X86_INS_SUB ? src->imm : -src->imm;

				depth += d;
				sub += d;
			} else if (ci->id == X86_INS_SUB) {
				s->frame_dynamic = true;
			}
		} else if (ci->id == X86_INS_MOV && ci->detail->x86.op_count == 2 &&
			   ci->detail->x86.operands[0].type == X86_OP_REG &&
			   ci->detail->x86.operands[0].reg == X86_REG_RBP && is_rsp(&ci->detail->x86.operands[1])) {
			s->frame_pointer = true;
		}
		if (depth > 0 && (uint64_t)depth > s->frame) {
			s->frame = (uint64_t)depth;
			s->frame_pushes = pushes;
			s->frame_sub = sub > 0 ? (uint64_t)sub : 0;
		}
		if (depth < 0) /* a second epilogue after a ret: the walk restarts at the frame's top */
			depth = 0, sub = 0, pushes = 0;
	}
}

/* ---- entry points ---- */

static bool sets_frame_pointer(csh cs, const uint8_t *code, size_t len, uint64_t addr)
{
	cs_insn *in = cs_malloc(cs);
	bool fp = false;

	/* Only the prologue: the first few instructions (endbr64, push rbp, mov rbp, rsp). */
	for (int i = 0; in && i < 6 && cs_disasm_iter(cs, &code, &len, &addr, in); i++) {
		const cs_x86 *x = &in->detail->x86;

		if (in->id == X86_INS_MOV && x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
		    x->operands[0].reg == X86_REG_RBP && is_rsp(&x->operands[1])) {
			fp = true;
			break;
		}
	}
	if (in)
		cs_free(in, 1);
	return fp;
}

static int disassemble(const struct ws_asm_bin *bin, const char *name, const uint8_t *code, size_t len,
		       uint64_t addr, struct ws_asm_func *f)
{
	struct fn_ctx c = { .bin = bin, .name = name, .start = addr, .end = addr + len };
	csh own = 0;
	cs_insn **kept = NULL;
	size_t kept_alloc = 0;
	const uint8_t *p = code;
	size_t left = len;
	uint64_t pc = addr;
	int ret = 0;

	f->addr = addr;
	if (bin) {
		c.cs = bin->cs;
	} else {
		if (cs_open(CS_ARCH_X86, CS_MODE_64, &own) != CS_ERR_OK ||
		    cs_option(own, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) {
			if (own)
				cs_close(&own);
			return ws_error("cannot start the capstone disassembler"), -ENOMEM;
		}
		c.cs = own;
	}
	init_reg_table(c.cs);
	c.frame_pointer = sets_frame_pointer(c.cs, code, len, addr);
	while (left) {
		cs_insn *in = cs_malloc(c.cs);

		if (!in) {
			ret = -ENOMEM;
			break;
		}
		WS_ALLOC_GROW(kept, f->n + 1, kept_alloc);
		if (cs_disasm_iter(c.cs, &p, &left, &pc, in)) {
			do_insn(&c, in, f);
			kept[f->n - 1] = in;
		} else {
			/* Like objdump: one undecodable byte, then carry on. */
			cs_free(in, 1);
			add_bad(f, pc, *p);
			kept[f->n - 1] = NULL;
			p++, left--, pc++;
		}
	}
	summarize(f, (const cs_insn *const *)kept);
	for (size_t i = 0; i < f->n; i++)
		if (kept[i])
			cs_free(kept[i], 1);
	free(kept);
	if (own)
		cs_close(&own);
	return ret;
}

int ws_asm_func_load(const struct ws_asm_bin *bin, const struct ws_asm_sym *sym, struct ws_asm_func *out)
{
	const uint8_t *code;

	memset(out, 0, sizeof(*out));
	out->sym = sym;
	out->addr = sym->addr;
	code = asm_bytes_at(bin, sym->addr, sym->size);
	if (!code) {
		ws_error("%s: cannot read the %" PRIu64 " bytes of %s at 0x%" PRIx64, bin->path, sym->size,
			 sym->name, sym->addr);
		return -EIO;
	}
	return disassemble(bin, sym->name, code, sym->size, sym->addr, out);
}

int ws_asm_func_from_code(const struct ws_asm_bin *bin, const uint8_t *code, size_t len, uint64_t addr,
			  struct ws_asm_func *out)
{
	memset(out, 0, sizeof(*out));
	return disassemble(bin, NULL, code, len, addr, out);
}

void ws_asm_func_release(struct ws_asm_func *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->insns[i].text);
		free(f->insns[i].norm);
		free(f->insns[i].target);
	}
	free(f->insns);
	for (size_t i = 0; i < f->sum.ncalls; i++)
		free(f->sum.calls[i]);
	free(f->sum.calls);
	memset(f, 0, sizeof(*f));
}
