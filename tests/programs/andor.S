/* SPDX-License-Identifier: GPL-2.0-or-later */
/* andor.S - an "if (a && b)" shape whose second test runs 3% of the time, for the exact-count test (t4010). */

/*
 * No C library and no loader: under single-stepping every instruction of the process is this file's, so a
 * count taken natively (tests/programs/single-step.c) is the truth to hold the simulator against. The second
 * test (at `side`) branches back to `join`, the first branch's fall-through: the shape a translator may turn
 * into straight code, counting `side` as run on every pass.
 */
	.globl _start
	.text
_start:
	mov	$5000, %ecx
	mov	$12345, %eax
	xor	%edx, %edx
loop:
	imul	$1103515245, %eax, %eax
	add	$12345, %eax
	cmp	$0xf8000000, %eax
	ja	side
join:
	dec	%ecx
	jnz	loop
	xor	%edi, %edi
	mov	$60, %eax
	syscall
side:
	test	$0x1f00000, %eax
	je	join
	inc	%edx
	jmp	join

	.section .note.GNU-stack,"",@progbits
