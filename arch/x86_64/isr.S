/*
 * Interrupt and exception entry stubs: one 16-byte stub per vector, so the
 * IDT code finds vector v's stub at isr_stubs + 16 * v. Each stub makes the
 * frame uniform (a zero error code where the CPU pushes none), pushes its
 * vector and joins isr_common, which saves the general registers as
 * struct trap_frame (arch/x86_64/traps.h) and calls trap_dispatch().
 * Everything runs in ring 0: there is no swapgs.
 */
#include "arch/x86_64/trap_frame_offsets.h"

	.text
	.code64
	.balign 16
	.globl isr_stubs
isr_stubs:
	.set vec, 0
	.rept 256
	.balign 16
	/* Vectors with a CPU-pushed error code: SDM Vol. 3A 6.13, table 6-1. */
	.if (vec == 8) || (vec == 10) || (vec == 11) || (vec == 12) || (vec == 13) || (vec == 14) || (vec == 17) || (vec == 21) || (vec == 29) || (vec == 30)
	.else
	pushq $0
	.endif
	pushq $vec
	jmp isr_common
	.set vec, vec + 1
	.endr

isr_common:
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	cld
	movq %rsp, %rdi
	/* Link a frame record so backtraces walk from the handler into the interrupted code. */
	pushq TF_RIP(%rsp)
	pushq %rbp
	movq %rsp, %rbp
	call trap_dispatch
	addq $16, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
	addq $16, %rsp			/* vector and error code */
	iretq
