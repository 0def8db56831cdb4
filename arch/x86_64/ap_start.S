/*
 * AP trampoline: smpboot.c copies ap_trampoline_start..end below 1 MiB,
 * patches the parameter block at its end and sends INIT-SIPI-SIPI. The AP
 * wakes in real mode (SDM Vol. 3A 9.4.4), goes through protected mode to long
 * mode on the kernel's tables and calls the 64-bit entry with its CPU number
 * on its own stack. Position independent: EBX holds the linear address.
 */
#define TR(sym) ((sym) - ap_trampoline_start)

	.section .rodata.ap_trampoline, "a"
	.balign 4096
	.globl ap_trampoline_start, ap_trampoline_end
	.globl ap_tramp_far32, ap_tramp_far64, ap_tramp_gdt_ptr, ap_tramp_gdt
	.globl ap_tramp_cr3, ap_tramp_cr4, ap_tramp_efer, ap_tramp_stack
	.globl ap_tramp_entry, ap_tramp_cpu

	.code16
ap_trampoline_start:
	cli
	cld
	mov %cs, %ax
	mov %ax, %ds
	xor %ebx, %ebx
	mov %ax, %bx
	shl $4, %ebx
	lgdtl TR(ap_tramp_gdt_ptr)
	mov %cr0, %eax
	or $1, %eax			/* PE */
	mov %eax, %cr0
	ljmpl *TR(ap_tramp_far32)

	.code32
ap_tramp_32:
	mov $0x10, %ax
	mov %ax, %ds
	mov %ax, %es
	mov %ax, %ss
	mov TR(ap_tramp_cr4)(%ebx), %eax
	mov %eax, %cr4
	mov TR(ap_tramp_cr3)(%ebx), %eax
	mov %eax, %cr3
	mov $0xc0000080, %ecx		/* EFER */
	rdmsr
	or TR(ap_tramp_efer)(%ebx), %eax
	wrmsr
	mov %cr0, %eax
	or $((1 << 31) | (1 << 16)), %eax	/* PG | WP */
	mov %eax, %cr0
	ljmp *TR(ap_tramp_far64)(%ebx)

	.code64
ap_tramp_64:
	mov %ebx, %ebx			/* upper halves are undefined after the mode switch */
	mov TR(ap_tramp_stack)(%rbx), %rsp
	mov TR(ap_tramp_cpu)(%rbx), %edi
	mov TR(ap_tramp_entry)(%rbx), %rax
	xor %ebp, %ebp
	pushq $0			/* a zero return address ends backtraces */
	jmp *%rax

	.balign 8
ap_tramp_gdt:
	.quad 0
	.quad 0x00af9a000000ffff	/* 0x08: 64-bit code */
	.quad 0x00cf92000000ffff	/* 0x10: data */
	.quad 0x00cf9a000000ffff	/* 0x18: 32-bit code */
ap_tramp_gdt_end:

/* Parameter block, patched by smpboot.c for each AP. */
	.balign 8
ap_tramp_gdt_ptr:
	.short ap_tramp_gdt_end - ap_tramp_gdt - 1
	.long 0				/* linear address of ap_tramp_gdt */
	.balign 8
ap_tramp_far32:
	.long 0				/* linear address of ap_tramp_32 */
	.short 0x18
	.balign 8
ap_tramp_far64:
	.long 0				/* linear address of ap_tramp_64 */
	.short 0x08
	.balign 8
ap_tramp_cr3:
	.quad 0
ap_tramp_cr4:
	.quad 0
ap_tramp_efer:
	.quad 0
ap_tramp_stack:
	.quad 0
ap_tramp_entry:
	.quad 0
ap_tramp_cpu:
	.quad 0
ap_trampoline_end:

/* Offsets smpboot.c needs to patch the far pointers. */
	.globl ap_tramp_32_off, ap_tramp_64_off
	.set ap_tramp_32_off, TR(ap_tramp_32)
	.set ap_tramp_64_off, TR(ap_tramp_64)
