/*
 * The kernel's virtual address layout, shared by the linker script, the boot
 * assembly and C. The kernel image runs in the top 2 GiB (what -mcmodel=kernel
 * needs) at KERNEL_VIRT_BASE + its physical address; all RAM is reachable
 * through the direct map at DIRECT_MAP_BASE + physical address.
 */
#ifndef ARCH_LAYOUT_H
#define ARCH_LAYOUT_H

#ifdef __ASSEMBLER__
#define _UL(x) x
#else
#define _UL(x) x##ul
#endif

#define KERNEL_PHYS_BASE _UL(0x200000)
#define KERNEL_VIRT_BASE _UL(0xffffffff80000000)
#define DIRECT_MAP_BASE _UL(0xffff800000000000)

/*
 * Kernel stacks, one slot per CPU, mapped with 4 KiB pages so the page
 * below each stack stays unmapped as a guard (PML4 slot 384).
 */
#define KSTACK_AREA_BASE _UL(0xffffc00000000000)

/* The boot page tables map this much low memory, identity and direct. */
#define BOOT_MAP_BYTES _UL(0x100000000)

#define PAGE_SIZE _UL(4096)
#define PAGE_SHIFT 12

#define BOOT_STACK_SIZE (_UL(16) * 1024)

#endif
