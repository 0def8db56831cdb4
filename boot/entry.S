/*
 * First instructions: both boot protocols enter _start32 in 32-bit protected
 * mode, paging off, EAX = boot magic, EBX = boot information. Runs at its
 * physical address: clears the BSS, builds the boot page tables (low 4 GiB
 * identity- and direct-mapped, the first 1 GiB at KERNEL_VIRT_BASE, 2 MiB
 * pages), enters long mode and jumps to kmain(magic, info) in the higher
 * half. The boot tables live in .bss until mm/ builds the kernel's own.
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
#define CPUID_PAE (1 << 6)
#define EFLAGS_ID (1 << 21)
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

	/*
	 * What this code is about to use must exist, checked before it is
	 * used: CPUID itself (EFLAGS.ID can be toggled, SDM Vol. 2A CPUID),
	 * leaf 1 with PAE, and leaf 0x80000001 with long mode (SDM Vol. 3A
	 * 9.8.5). A CPU without one ends the run here, naming it.
	 */
	pushfl
	pop %eax
	mov %eax, %ecx
	xor $EFLAGS_ID, %eax
	push %eax
	popfl
	pushfl
	pop %eax
	push %ecx
	popfl
	xor %ecx, %eax
	mov $msg_no_cpuid, %edi
	test $EFLAGS_ID, %eax
	jz boot_fail
	xor %eax, %eax
	cpuid
	mov $msg_no_leaf1, %edi
	cmp $1, %eax
	jb boot_fail
	mov $1, %eax
	cpuid
	mov $msg_no_pae, %edi
	test $CPUID_PAE, %edx
	jz boot_fail
	mov $0x80000000, %eax
	cpuid
	mov $msg_no_lm, %edi
	cmp $0x80000001, %eax
	jb boot_fail
	mov $0x80000001, %eax
	cpuid
	test $CPUID_EXT_LM, %edx
	jz boot_fail
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

/*
 * A CPU that cannot run mmlab: EDI names what it lacks. Says so on COM1
 * as the 64-bit kernel would (a header, the error, a failing trailer),
 * then leaves QEMU with the fail status; elsewhere the port is unused and
 * the CPU halts.
 */
boot_fail:
	call com1_init
	mov $fail_head, %esi
	call com1_puts
	mov $PHYS(mmlab_version), %esi
	call com1_puts
	mov $fail_head2, %esi
	call com1_puts
	mov %edi, %esi
	call com1_puts
	mov $fail_mid, %esi
	call com1_puts
	mov %edi, %esi
	call com1_puts
	mov $fail_tail, %esi
	call com1_puts
	mov $QEMU_EXIT_FAIL, %eax
	mov $QEMU_EXIT_PORT, %dx
	outl %eax, %dx
1:	hlt
	jmp 1b

/* COM1 at 115200 8N1, FIFOs on, polled: what the loader left may be anything. */
com1_init:
	mov $(COM1 + 1), %dx		/* IER: no interrupts */
	xor %al, %al
	outb %al, %dx
	mov $(COM1 + 3), %dx		/* LCR: divisor latch */
	mov $0x80, %al
	outb %al, %dx
	mov $COM1, %dx			/* divisor 1: 115200 baud */
	mov $1, %al
	outb %al, %dx
	mov $(COM1 + 1), %dx
	xor %al, %al
	outb %al, %dx
	mov $(COM1 + 3), %dx		/* LCR: 8 bits, no parity, 1 stop */
	mov $0x03, %al
	outb %al, %dx
	mov $(COM1 + 2), %dx		/* FCR: FIFOs on and cleared */
	mov $0xc7, %al
	outb %al, %dx
	mov $(COM1 + 4), %dx		/* MCR: DTR, RTS */
	mov $0x03, %al
	outb %al, %dx
	ret

/*
 * Writes the NUL-terminated string at ESI; waits for THR empty (LSR bit 5).
 * Clobbers EAX, EBX, EDX, ESI.
 */
com1_puts:
1:	lodsb
	test %al, %al
	jz 3f
	mov %al, %bl
	mov $(COM1 + 5), %dx
2:	inb %dx, %al
	test $0x20, %al
	jz 2b
	mov %bl, %al
	mov $COM1, %dx
	outb %al, %dx
	jmp 1b
3:	ret

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
/* The header's required keys (docs/output.md), null where nothing is known yet. */
fail_head:
	.asciz "\r\nMMLAB {\"version\":\""
fail_head2:
	.ascii "\",\"cmdline\":null,\"arch\":\"x86_64\",\"cpu_model\":null,\"cpus\":1,"
	.ascii "\"tsc_hz\":null,\"hypervisor\":null,\"firmware\":null,\"mem_bytes\":null,"
	.asciz "\"error\":\"this CPU cannot run mmlab\"}\r\nmmlab: error: "
fail_mid:
	.asciz "\r\nMMLAB-DONE {\"passed\":0,\"failed\":0,\"skipped\":0,\"status\":\"fail\",\"reason\":\""
fail_tail:
	.asciz "\"}\r\n"
msg_no_cpuid:
	.asciz "this CPU has no CPUID instruction (EFLAGS.ID does not toggle)"
msg_no_leaf1:
	.asciz "this CPU has no CPUID leaf 1 (CPUID.0:EAX is 0)"
msg_no_pae:
	.asciz "this CPU has no PAE (CPUID.1:EDX[6] clear): long mode needs it"
msg_no_lm:
	.asciz "this CPU has no long mode (CPUID.80000001h:EDX[29] clear): mmlab is a 64-bit kernel"

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
