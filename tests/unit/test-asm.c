/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test-asm.c - unit tests of asm-diff's engine: normalisation, classification, frames, clone names, the diff. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "asm/asm.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Disassemble `code` at `addr` with no binary behind it (targets outside are "<addr>"). */
static void load(const uint8_t *code, size_t len, uint64_t addr, struct ws_asm_func *f)
{
	assert_int_equal(ws_asm_func_from_code(NULL, code, len, addr, f), 0);
}

static const char *norm_of(const uint8_t *code, size_t len, struct ws_asm_func *f)
{
	load(code, len, 0x1000, f);
	assert_int_equal(f->n, 1);
	return f->insns[0].norm;
}

/*
 * GCC 12 -O2 output for mix() in tests/fixtures/asm/regalloc.c, as built and as built with -ffixed-rcx
 * -ffixed-rdx: the same code with r9d/r8d/r10 for ecx/edx/r8, so with other encodings and lengths.
 */
static const uint8_t mix_a[] = {
	0x89, 0xf1, 0x69, 0xd7, 0xb1, 0x79, 0x37, 0x9e, 0x01, 0xfe, 0x83, 0xe7, 0x3f, 0x81, 0xf1, 0x95, 0xe9,
	0xd1, 0x5b, 0x4c, 0x8d, 0x05, 0xe6, 0x2e, 0x00, 0x00, 0x89, 0xc8, 0xc1, 0xe8, 0x0d, 0x31, 0xd0, 0x89,
	0xf2, 0xc1, 0xe2, 0x07, 0x01, 0xca, 0x89, 0xc1, 0xc1, 0xe9, 0x03, 0x29, 0xce, 0x89, 0xc1, 0x0f, 0xaf,
	0xc2, 0x31, 0xd1, 0x31, 0xf1, 0x41, 0x01, 0x0c, 0xb8, 0x01, 0xf0, 0xc3,
};
static const uint8_t mix_b[] = {
	0x41, 0x89, 0xf1, 0x44, 0x69, 0xc7, 0xb1, 0x79, 0x37, 0x9e, 0x01, 0xfe, 0x83, 0xe7, 0x3f, 0x41, 0x81,
	0xf1, 0x95, 0xe9, 0xd1, 0x5b, 0x4c, 0x8d, 0x15, 0x93, 0x2e, 0x00, 0x00, 0x44, 0x89, 0xc8, 0xc1, 0xe8,
	0x0d, 0x44, 0x31, 0xc0, 0x41, 0x89, 0xf0, 0x41, 0xc1, 0xe0, 0x07, 0x45, 0x01, 0xc8, 0x41, 0x89, 0xc1,
	0x41, 0xc1, 0xe9, 0x03, 0x44, 0x29, 0xce, 0x41, 0x89, 0xc1, 0x41, 0x0f, 0xaf, 0xc0, 0x45, 0x31, 0xc1,
	0x41, 0x31, 0xf1, 0x45, 0x01, 0x0c, 0xba, 0x01, 0xf0, 0xc3,
};

static void test_regalloc_and_address_noise(void **state)
{
	struct ws_asm_func a, b;
	struct ws_asm_row *rows = NULL;
	size_t changed = 99, n;

	(void)state;
	load(mix_a, sizeof(mix_a), 0x1140, &a);
	load(mix_b, sizeof(mix_b), 0x1190, &b);
	assert_int_equal(a.n, 22);
	assert_int_equal(b.n, 22);
	for (size_t i = 0; i < a.n; i++)
		assert_string_equal(a.insns[i].norm, b.insns[i].norm);
	/* The texts are the real code, and they differ. */
	assert_string_equal(a.insns[0].text, "mov ecx, esi");
	assert_string_equal(b.insns[0].text, "mov r9d, esi");
	assert_string_equal(a.insns[0].norm, "mov r1d, r2d");
	n = ws_asm_diff(&a, &b, &rows, &changed);
	assert_int_equal(n, 22);
	assert_int_equal(changed, 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(rows[i].op, WS_ASM_EQUAL);
	free(rows);
	ws_asm_func_release(&a);
	ws_asm_func_release(&b);
}

static void test_register_renaming(void **state)
{
	static const uint8_t vpaddd_0_1[] = { 0xc5, 0xfd, 0xfe, 0xc1 }; /* vpaddd ymm0, ymm0, ymm1 */
	static const uint8_t vpaddd_3_5[] = { 0xc5, 0xe5, 0xfe, 0xdd }; /* vpaddd ymm3, ymm3, ymm5 */
	static const uint8_t two_regs[] = {
		0x48, 0x89, 0xd8, /* mov rax, rbx */
		0x89, 0xc3,       /* mov ebx, eax */
		0x88, 0xe0,       /* mov al, ah */
	};
	struct ws_asm_func f;

	(void)state;
	assert_string_equal(norm_of(vpaddd_0_1, sizeof(vpaddd_0_1), &f), "vpaddd v1y, v1y, v2y");
	ws_asm_func_release(&f);
	assert_string_equal(norm_of(vpaddd_3_5, sizeof(vpaddd_3_5), &f), "vpaddd v1y, v1y, v2y");
	ws_asm_func_release(&f);
	/* One number per register family, whatever the width it is used at. */
	load(two_regs, sizeof(two_regs), 0x1000, &f);
	assert_int_equal(f.n, 3);
	assert_string_equal(f.insns[0].norm, "mov r1, r2");
	assert_string_equal(f.insns[1].norm, "mov r2d, r1d");
	assert_string_equal(f.insns[2].norm, "mov r1b, r1h");
	ws_asm_func_release(&f);
}

static void test_memory_operands(void **state)
{
	static const uint8_t slot_18[] = { 0x48, 0x89, 0x44, 0x24, 0x18 }; /* mov [rsp + 0x18], rax */
	static const uint8_t slot_28[] = { 0x48, 0x89, 0x44, 0x24, 0x28 }; /* mov [rsp + 0x28], rax */
	static const uint8_t field_8[] = { 0x48, 0x8b, 0x47, 0x08 };       /* mov rax, [rdi + 8] */
	static const uint8_t field_10[] = { 0x48, 0x8b, 0x47, 0x10 };      /* mov rax, [rdi + 0x10] */
	static const uint8_t rip_rel[] = { 0x48, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00 }; /* mov rax, [rip+0x10] */
	struct ws_asm_func f;
	char *s;

	(void)state;
	/* Stack slots move with spills: equal. */
	s = xstrdup(norm_of(slot_18, sizeof(slot_18), &f));
	ws_asm_func_release(&f);
	assert_string_equal(s, norm_of(slot_28, sizeof(slot_28), &f));
	assert_string_equal(s, "mov m8[rsp+S], r1");
	ws_asm_func_release(&f);
	free(s);
	/* Struct fields do not: different. */
	s = xstrdup(norm_of(field_8, sizeof(field_8), &f));
	ws_asm_func_release(&f);
	assert_string_equal(s, "mov r1, m8[r2+0x8]");
	assert_string_not_equal(s, norm_of(field_10, sizeof(field_10), &f));
	ws_asm_func_release(&f);
	free(s);
	/* rip-relative: the target's name, never the displacement. */
	assert_string_equal(norm_of(rip_rel, sizeof(rip_rel), &f), "mov r1, m8[rip:<addr>]");
	ws_asm_func_release(&f);
}

static void test_branches_and_nops(void **state)
{
	static const uint8_t code[] = {
		0x48, 0x85, 0xff,                   /* 0x1000 test rdi, rdi */
		0x74, 0x0c,                         /* 0x1003 je 0x1011 (forward) */
		0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00, /* 0x1005 nop word ptr [rax + rax] */
		0x48, 0xff, 0xcf,                   /* 0x100b dec rdi */
		0x75, 0xfb,                         /* 0x100e jne 0x100b (backward) */
		0x90,                               /* 0x1010 nop */
		0xe8, 0x00, 0x10, 0x00, 0x00,       /* 0x1011 call 0x2016 (outside) */
		0xff, 0xd0,                         /* 0x1016 call rax */
		0xff, 0xe1,                         /* 0x1018 jmp rcx */
		0xc3,                               /* 0x101a ret */
	};
	struct ws_asm_func f;

	(void)state;
	load(code, sizeof(code), 0x1000, &f);
	assert_int_equal(f.n, 10);
	assert_string_equal(f.insns[1].norm, "je <fwd>");
	assert_string_equal(f.insns[1].text, "je 0x1011 <+0x11>");
	assert_string_equal(f.insns[2].norm, "nop");
	assert_string_equal(f.insns[4].norm, "jne <back>");
	assert_string_equal(f.insns[5].norm, "nop");
	assert_string_equal(f.insns[6].norm, "call <addr>");
	assert_true(f.insns[2].flags & WS_ASM_NOP);
	assert_false(f.insns[2].flags & WS_ASM_LOAD); /* a nop names memory but does not read it */
	assert_int_equal(f.sum.cond_branches, 2);
	assert_int_equal(f.sum.indirect_branches, 2);
	assert_int_equal(f.sum.call_sites, 2);
	assert_int_equal(f.sum.ncalls, 2);
	assert_string_equal(f.sum.calls[0], "0x2016");
	assert_string_equal(f.sum.calls[1], "*indirect");
	assert_true(f.insns[9].flags & WS_ASM_RET);
	ws_asm_func_release(&f);
}

static void test_loads_stores_simd(void **state)
{
	static const uint8_t code[] = {
		0x48, 0x8b, 0x07,             /* mov rax, [rdi]: load */
		0x48, 0x89, 0x07,             /* mov [rdi], rax: store */
		0x48, 0x83, 0x07, 0x01,       /* add qword ptr [rdi], 1: both */
		0x48, 0x39, 0x07,             /* cmp [rdi], rax: load */
		0x48, 0x8d, 0x47, 0x08,       /* lea rax, [rdi + 8]: neither */
		0x66, 0x0f, 0x7f, 0x07,       /* movdqa [rdi], xmm0: store (capstone 4 says read) */
		0xc5, 0xfe, 0x7f, 0x07,       /* vmovdqu [rdi], ymm0: store, 256-bit */
		0x66, 0x0f, 0xfe, 0x07,       /* paddd xmm0, [rdi]: load, SIMD */
		0x0f, 0x18, 0x07,             /* prefetchnta [rdi]: a hint, neither */
	};
	struct ws_asm_func f;
	const unsigned want[] = {
		WS_ASM_LOAD, WS_ASM_STORE, WS_ASM_LOAD | WS_ASM_STORE, WS_ASM_LOAD, 0,
		WS_ASM_STORE | WS_ASM_SIMD, WS_ASM_STORE | WS_ASM_SIMD | WS_ASM_SIMD_WIDE, WS_ASM_LOAD | WS_ASM_SIMD, 0,
	};

	(void)state;
	load(code, sizeof(code), 0x1000, &f);
	assert_int_equal(f.n, ARRAY_SIZE(want));
	for (size_t i = 0; i < f.n; i++) {
		if (f.insns[i].flags != want[i])
			fail_msg("%s: flags 0x%x, want 0x%x", f.insns[i].text, f.insns[i].flags, want[i]);
	}
	assert_int_equal(f.sum.loads, 4);
	assert_int_equal(f.sum.stores, 4);
	assert_int_equal(f.sum.simd, 3);
	assert_int_equal(f.sum.simd_wide, 1);
	assert_int_equal(f.sum.bytes, sizeof(code));
	ws_asm_func_release(&f);
}

static void test_frame(void **state)
{
	static const uint8_t shrink_wrapped[] = {
		0x48, 0x85, 0xff,             /* test rdi, rdi */
		0x74, 0x0d,                   /* je to the early exit */
		0x55,                         /* push rbp */
		0x53,                         /* push rbx */
		0x48, 0x83, 0xec, 0x18,       /* sub rsp, 0x18 */
		0x48, 0x83, 0xc4, 0x18,       /* add rsp, 0x18 */
		0x5b,                         /* pop rbx */
		0x5d,                         /* pop rbp */
		0xc3,                         /* ret */
		0x31, 0xc0,                   /* xor eax, eax */
		0xc3,                         /* ret */
	};
	static const uint8_t with_fp[] = {
		0x55,                         /* push rbp */
		0x48, 0x89, 0xe5,             /* mov rbp, rsp */
		0x48, 0x83, 0xec, 0x20,       /* sub rsp, 0x20 */
		0x48, 0x89, 0x7d, 0xe8,       /* mov [rbp - 0x18], rdi */
		0xc9,                         /* leave */
		0xc3,                         /* ret */
	};
	struct ws_asm_func f;

	(void)state;
	load(shrink_wrapped, sizeof(shrink_wrapped), 0x1000, &f);
	assert_int_equal(f.sum.frame, 0x18 + 16);
	assert_int_equal(f.sum.frame_pushes, 2);
	assert_int_equal(f.sum.frame_sub, 0x18);
	assert_false(f.sum.frame_pointer);
	ws_asm_func_release(&f);
	load(with_fp, sizeof(with_fp), 0x1000, &f);
	assert_int_equal(f.sum.frame, 0x28);
	assert_true(f.sum.frame_pointer);
	/* rbp as the frame pointer keeps its name, and its slots are stack slots. */
	assert_string_equal(f.insns[3].norm, "mov m8[rbp+S], r1");
	ws_asm_func_release(&f);
}

static void test_undecodable(void **state)
{
	static const uint8_t code[] = { 0x90, 0x06, 0xc3 }; /* nop; (bad) in 64-bit mode; ret */
	struct ws_asm_func f;

	(void)state;
	load(code, sizeof(code), 0x1000, &f);
	assert_int_equal(f.n, 3);
	assert_true(f.insns[1].flags & WS_ASM_BAD);
	assert_int_equal(f.sum.bad, 1);
	ws_asm_func_release(&f);
}

static void test_base_name(void **state)
{
	static const char *const cases[][2] = {
		{ "scale.constprop.0", "scale" }, { "norm_x.isra.0", "norm_x" },
		{ "checked_sum.cold", "checked_sum" }, { "cache_fill.part.0", "cache_fill" },
		{ "f.constprop.0.isra.0", "f" }, { "g.lto_priv.0", "g" }, { "h.llvm.1234567", "h" },
		{ "plain", "plain" }, { "counter.1", "counter.1" }, { "a.b", "a.b" }, { ".cold", ".cold" },
		{ "x.part.0.cold", "x" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *b = ws_asm_base_name(cases[i][0]);

		assert_string_equal(b, cases[i][1]);
		free(b);
	}
}

static void test_command(void **state)
{
	char *c;

	(void)state;
	c = ws_asm_command("./vec", "./small vec", "lc_insert", NULL);
	assert_string_equal(c, "whyslow asm-diff --function lc_insert ./vec './small vec'");
	free(c);
	c = ws_asm_command("/a/b", "it's", "f", "out.json");
	assert_string_equal(c, "whyslow asm-diff --function f --result out.json /a/b 'it'\\''s'");
	free(c);
}

/* ---- the diff ---- */

static size_t lcs_length(const int *a, size_t na, const int *b, size_t nb)
{
	size_t *t = xcalloc((na + 1) * (nb + 1), sizeof(*t)), r;

	for (size_t i = 1; i <= na; i++)
		for (size_t j = 1; j <= nb; j++)
			t[i * (nb + 1) + j] = a[i - 1] == b[j - 1] ? t[(i - 1) * (nb + 1) + j - 1] + 1
				: (t[(i - 1) * (nb + 1) + j] > t[i * (nb + 1) + j - 1] ? t[(i - 1) * (nb + 1) + j]
										 : t[i * (nb + 1) + j - 1]);
	r = t[na * (nb + 1) + nb];
	free(t);
	return r;
}

/* The rows walk both sequences in order, every line exactly once, and EQUAL rows pair equal lines. */
static size_t check_rows(const int *a, size_t na, const int *b, size_t nb, const struct ws_asm_row *rows,
			 size_t n)
{
	long ia = 0, ib = 0;
	size_t equal = 0;

	for (size_t i = 0; i < n; i++) {
		const struct ws_asm_row *r = &rows[i];

		if (r->a >= 0)
			assert_int_equal(r->a, ia++);
		if (r->b >= 0)
			assert_int_equal(r->b, ib++);
		switch (r->op) {
		case WS_ASM_EQUAL:
			assert_true(r->a >= 0 && r->b >= 0);
			assert_int_equal(a[r->a], b[r->b]);
			equal++;
			break;
		case WS_ASM_CHANGE:
			assert_true(r->a >= 0 && r->b >= 0);
			break;
		case WS_ASM_DELETE:
			assert_true(r->a >= 0 && r->b < 0);
			break;
		case WS_ASM_INSERT:
			assert_true(r->a < 0 && r->b >= 0);
			break;
		}
	}
	assert_int_equal(ia, na);
	assert_int_equal(ib, nb);
	return equal;
}

static void test_diff_known(void **state)
{
	/* Myers' own example: ABCABBA against CBABAC, an LCS of 4 (D = 5). */
	static const int a[] = { 'A', 'B', 'C', 'A', 'B', 'B', 'A' };
	static const int b[] = { 'C', 'B', 'A', 'B', 'A', 'C' };
	static const int same[] = { 1, 2, 3 };
	struct ws_asm_row *rows;
	size_t n;

	(void)state;
	n = ws_diff_ints(a, ARRAY_SIZE(a), b, ARRAY_SIZE(b), &rows);
	assert_int_equal(check_rows(a, ARRAY_SIZE(a), b, ARRAY_SIZE(b), rows, n), 4);
	free(rows);
	n = ws_diff_ints(same, 3, same, 3, &rows);
	assert_int_equal(n, 3);
	assert_int_equal(check_rows(same, 3, same, 3, rows, n), 3);
	free(rows);
	n = ws_diff_ints(NULL, 0, same, 3, &rows);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(rows[i].op, WS_ASM_INSERT);
	free(rows);
	n = ws_diff_ints(NULL, 0, NULL, 0, &rows);
	assert_int_equal(n, 0);
	free(rows);
}

static void test_diff_side_by_side(void **state)
{
	static const char *const a[] = { "push", "mov", "call memcpy", "add", "pop", "ret" };
	static const char *const b[] = { "push", "mov", "movdqu", "movdqu", "movups", "add", "pop", "ret" };
	struct ws_asm_row *rows;
	size_t n;

	(void)state;
	n = ws_diff_strings(a, ARRAY_SIZE(a), b, ARRAY_SIZE(b), &rows);
	/* push, mov equal; the call paired with the first movdqu; two more only in B; add, pop, ret equal. */
	assert_int_equal(n, 8);
	assert_int_equal(rows[0].op, WS_ASM_EQUAL);
	assert_int_equal(rows[1].op, WS_ASM_EQUAL);
	assert_int_equal(rows[2].op, WS_ASM_CHANGE);
	assert_int_equal(rows[2].a, 2);
	assert_int_equal(rows[2].b, 2);
	assert_int_equal(rows[3].op, WS_ASM_INSERT);
	assert_int_equal(rows[4].op, WS_ASM_INSERT);
	assert_int_equal(rows[5].op, WS_ASM_EQUAL);
	assert_int_equal(rows[5].a, 3);
	assert_int_equal(rows[5].b, 5);
	free(rows);
}

static void test_diff_random_is_minimal(void **state)
{
	unsigned seed = 12345;

	(void)state;
	for (int trial = 0; trial < 2000; trial++) {
		int a[40], b[40];
		size_t na, nb, n, alphabet;
		struct ws_asm_row *rows;

		seed = seed * 1103515245u + 12345u;
		na = (seed >> 16) % 40;
		seed = seed * 1103515245u + 12345u;
		nb = (seed >> 16) % 40;
		alphabet = 2 + trial % 5;
		for (size_t i = 0; i < na; i++) {
			seed = seed * 1103515245u + 12345u;
			a[i] = (int)((seed >> 16) % alphabet);
		}
		for (size_t i = 0; i < nb; i++) {
			seed = seed * 1103515245u + 12345u;
			b[i] = (int)((seed >> 16) % alphabet);
		}
		n = ws_diff_ints(a, na, b, nb, &rows);
		/* Minimal: as many common lines as the longest common subsequence has. */
		assert_int_equal(check_rows(a, na, b, nb, rows, n), lcs_length(a, na, b, nb));
		free(rows);
	}
}

static void test_diff_large(void **state)
{
	size_t na = 20000, nb = 20000;
	int *a = xmalloc(na * sizeof(*a)), *b = xmalloc(nb * sizeof(*b));
	struct ws_asm_row *rows;
	size_t n, changes = 0;

	(void)state;
	/* Two big listings with sparse differences: linear memory, and quick. */
	for (size_t i = 0; i < na; i++)
		a[i] = b[i] = (int)(i % 97);
	for (size_t i = 0; i < nb; i += 1000)
		b[i] = 1000;
	n = ws_diff_ints(a, na, b, nb, &rows);
	for (size_t i = 0; i < n; i++)
		changes += rows[i].op != WS_ASM_EQUAL;
	assert_int_equal(changes, 20);
	free(rows);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regalloc_and_address_noise),
		cmocka_unit_test(test_register_renaming),
		cmocka_unit_test(test_memory_operands),
		cmocka_unit_test(test_branches_and_nops),
		cmocka_unit_test(test_loads_stores_simd),
		cmocka_unit_test(test_frame),
		cmocka_unit_test(test_undecodable),
		cmocka_unit_test(test_base_name),
		cmocka_unit_test(test_command),
		cmocka_unit_test(test_diff_known),
		cmocka_unit_test(test_diff_side_by_side),
		cmocka_unit_test(test_diff_random_is_minimal),
		cmocka_unit_test(test_diff_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
