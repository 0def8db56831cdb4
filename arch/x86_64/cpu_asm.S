/*
 * The few CPU operations that cannot be one-instruction inline wrappers:
 * reloading CS, and calling a function that may fault on purpose.
 */
	.text
	.code64

/* void load_segments(u16 code_sel, u16 data_sel): reload CS via far return. */
	.globl load_segments
load_segments:
	mov %si, %ds
	mov %si, %es
	mov %si, %ss
	xor %eax, %eax
	mov %ax, %fs
	pushq %rdi
	leaq 1f(%rip), %rax
	pushq %rax
	lretq
1:	ret

/*
 * int fault_catch_call(void (*fn)(void *), void *arg, struct fault_catch *c)
 * Records where to resume in *c (rsp at offset 0, rip at offset 8), calls
 * fn(arg) and returns 0. If fn faults while c is armed, the trap handler
 * resumes at 2: below with the recorded stack, and we return 1. Callee-saved
 * registers are pushed first so the resumed path restores them.
 */
	.globl fault_catch_call
fault_catch_call:
	pushq %rbp
	movq %rsp, %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	subq $8, %rsp			/* keep the call 16-byte aligned */
	movq %rsp, 0(%rdx)
	leaq 2f(%rip), %rax
	movq %rax, 8(%rdx)
	movq %rdi, %rax
	movq %rsi, %rdi
	call *%rax
	xorl %eax, %eax
	jmp 3f
2:	movl $1, %eax
3:	addq $8, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret

/* void arch_run_on_stack(vaddr_t top, void (*fn)(void)): never returns. */
	.globl arch_run_on_stack
arch_run_on_stack:
	movq %rdi, %rsp
	xorl %ebp, %ebp			/* backtraces end here */
	pushq $0			/* zero return address, and 16-byte alignment at the call */
	call *%rsi
1:	cli
	hlt
	jmp 1b

/*
 * void cpu_count_loop(u64 n), n >= 1: executes exactly 2n + 1 instructions
 * (n x dec, jnz; ret), a known count for checking what a clock counts.
 */
	.globl cpu_count_loop
cpu_count_loop:
1:	dec %rdi
	jnz 1b
	ret
