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
	.set has_error_code, 0
	.irp error_vec, 8, 10, 11, 12, 13, 14, 17, 21, 29, 30
	.if vec == \error_vec
	.set has_error_code, 1
	.endif
	.endr
	.if has_error_code == 0
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

/*
 * The call vector's own entry (IPI_VEC_CALL, idt.c): no trap frame and no
 * dispatch table, one direct call. What it must keep for the interrupted
 * code: RIP, CS, RFLAGS, RSP and SS, which the CPU pushed and IRETQ
 * restores (SDM Vol. 3A 6.14.2, 6.14.3); the registers a C function may
 * clobber (the System V x86-64 ABI's caller-saved RAX, RCX, RDX, RSI,
 * RDI, R8-R11; the handler preserves RBX, RBP, R12-R15 itself, and the
 * kernel is built -mgeneral-regs-only, so no x87/SSE state is touched);
 * and DF, which the ABI wants clear at a call and an interrupt gate does
 * not clear (SDM Vol. 3A 6.12.1.3; IRETQ restores the old RFLAGS). In
 * 64-bit mode the CPU aligns RSP to 16 before pushing its five-quadword
 * frame (SDM Vol. 3A 6.14.2), so RSP is 8 mod 16 here; the nine saves
 * make it 0, the two-quadword frame record keeps it so: 16-aligned at the
 * call, as the ABI requires. Interrupts stay off throughout (interrupt
 * gate), so nothing else runs on this stack meanwhile.
 */
	.balign 16
	.globl ipi_call_stub
ipi_call_stub:
	pushq %rax
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	cld
	/* A frame record, so a backtrace from a call function reaches the interrupted code. */
	pushq 72(%rsp)			/* the interrupted RIP, above the nine saves */
	pushq %rbp
	movq %rsp, %rbp
	call ipi_call_interrupt
	popq %rbp
	addq $8, %rsp			/* the RIP copy */
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rax
	iretq
