/*
 * First instructions: both boot protocols enter _start32 in 32-bit protected
 * mode, paging off, EAX = boot magic, EBX = physical address of the boot
 * information. This code runs at its physical address, clears the BSS,
 * builds the boot page tables (low 4 GiB identity-mapped and direct-mapped,
 * first 1 GiB at KERNEL_VIRT_BASE, all with 2 MiB pages), enters long mode
 * and jumps to the higher-half kernel, which calls kmain(magic, info).
 * The boot tables live in .bss until mm/ builds the kernel's own.
 */
#include <arch/layout.h>
#include <arch/qemu_exit.h>

#define PHYS(sym) ((sym) - KERNEL_VIRT_BASE)

#define PTE_P 0x1
#define PTE_RW 0x2
#define PTE_PS 0x80
#define EFER_LME (1 << 8)
#define EFER_NXE (1 << 11)
#define CPUID_EXT_LM (1 << 29)
#define CPUID_EXT_NX (1 << 20)
#define COM1 0x3f8

	.section .boot.text, "ax"
	.code32
	.globl _start32
_start32:
	cli
	cld
	mov %eax, %ebp			/* magic and info: kept in EBP/ESI until kmain */
	mov %ebx, %esi

	/* Clear the BSS before anything lives there (stack, boot tables). */
	mov $PHYS(__bss_start), %edi
	mov $PHYS(__bss_end), %ecx
	sub %edi, %ecx
	xor %eax, %eax
	rep stosb
	mov $PHYS(boot_stack_top), %esp

	/* CPUID 0x80000001 must exist and report long mode (SDM Vol. 3A 9.8.5). */
	mov $0x80000000, %eax
	cpuid
	cmp $0x80000001, %eax
	jb no_long_mode
	mov $0x80000001, %eax
	cpuid
	test $CPUID_EXT_LM, %edx
	jz no_long_mode
	mov %edx, %edi			/* NX support, needed below */

	call build_boot_tables

	mov %cr4, %eax
	or $(1 << 5), %eax		/* PAE */
	mov %eax, %cr4
	mov $PHYS(boot_pml4), %eax
	mov %eax, %cr3

	mov $0xc0000080, %ecx		/* EFER */
	rdmsr
	or $EFER_LME, %eax
	test $CPUID_EXT_NX, %edi
	jz 1f
	or $EFER_NXE, %eax
1:	wrmsr

	mov %cr0, %eax
	or $((1 << 31) | (1 << 16)), %eax	/* PG | WP */
	mov %eax, %cr0

	lgdt boot_gdt_ptr
	ljmp $0x08, $start64_low

/* Fills the four boot tables; clobbers EAX, ECX, EDX. */
build_boot_tables:
	/* 2048 PD entries of 2 MiB: physical 0 .. 4 GiB */
	mov $PHYS(boot_pd), %edx
	xor %ecx, %ecx
1:	mov %ecx, %eax
	shl $21, %eax
	or $(PTE_P | PTE_RW | PTE_PS), %eax
	mov %eax, (%edx, %ecx, 8)
	inc %ecx
	cmp $2048, %ecx
	jb 1b

	/*
	 * Identity and direct-map PDPTs: four entries each, one per PD page
	 * (1 GiB each). Separate PDPTs, so the direct map can later grow
	 * beyond 4 GiB without growing the identity map.
	 */
	mov $PHYS(boot_pd), %eax
	or $(PTE_P | PTE_RW), %eax
	xor %ecx, %ecx
2:	mov %eax, PHYS(boot_pdpt_low)(, %ecx, 8)
	mov %eax, PHYS(boot_pdpt_direct)(, %ecx, 8)
	add $4096, %eax
	inc %ecx
	cmp $4, %ecx
	jb 2b

	/* High PDPT: entry 510 (KERNEL_VIRT_BASE) -> the first GiB. */
	mov $PHYS(boot_pd), %eax
	or $(PTE_P | PTE_RW), %eax
	mov %eax, PHYS(boot_pdpt_high) + 510 * 8

	/* PML4: identity (0), direct map (256), kernel (511). */
	mov $PHYS(boot_pdpt_low), %eax
	or $(PTE_P | PTE_RW), %eax
	mov %eax, PHYS(boot_pml4)
	mov $PHYS(boot_pdpt_direct), %eax
	or $(PTE_P | PTE_RW), %eax
	mov %eax, PHYS(boot_pml4) + 256 * 8
	mov $PHYS(boot_pdpt_high), %eax
	or $(PTE_P | PTE_RW), %eax
	mov %eax, PHYS(boot_pml4) + 511 * 8
	ret

/* No long mode: say so on COM1, then leave QEMU with the panic status. */
no_long_mode:
	mov $no_lm_msg, %esi
1:	lodsb
	test %al, %al
	jz 2f
	mov %al, %bl
3:	mov $(COM1 + 5), %dx
	inb %dx, %al
	test $0x20, %al
	jz 3b
	mov %bl, %al
	mov $COM1, %dx
	outb %al, %dx
	jmp 1b
2:	mov $QEMU_EXIT_PANIC, %eax
	mov $QEMU_EXIT_PORT, %dx
	outl %eax, %dx
4:	hlt
	jmp 4b

	.code64
start64_low:
	mov $0x10, %ax
	mov %ax, %ds
	mov %ax, %es
	mov %ax, %ss
	xor %ax, %ax
	mov %ax, %fs
	mov %ax, %gs
	movabs $start64, %rax
	jmp *%rax

	.section .boot.data, "a"
	.balign 8
boot_gdt:
	.quad 0
	.quad 0x00af9a000000ffff	/* 0x08: 64-bit code */
	.quad 0x00cf92000000ffff	/* 0x10: data */
boot_gdt_end:
boot_gdt_ptr:
	.short boot_gdt_end - boot_gdt - 1
	.long boot_gdt
no_lm_msg:
	.asciz "mmlab: this CPU has no long mode (x86-64); cannot boot\r\n"

	.text
	.code64
start64:
	movabs $boot_stack_top, %rsp
	mov %ebp, %edi			/* kmain(magic, info_phys), zero-extended */
	mov %esi, %esi
	xor %ebp, %ebp			/* ends frame-pointer backtraces */
	call kmain
1:	cli
	hlt
	jmp 1b

	.section .bss.boot, "aw", @nobits
	.balign 4096
	.globl boot_pml4, boot_stack, boot_stack_top
boot_pml4:
	.skip 4096
boot_pdpt_low:
	.skip 4096
boot_pdpt_high:
	.skip 4096
boot_pdpt_direct:
	.skip 4096
boot_pd:
	.skip 4 * 4096
boot_stack:
	.skip BOOT_STACK_SIZE
boot_stack_top:
