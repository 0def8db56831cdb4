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

/* The direct map reaches up to the stack area: 64 TiB of physical memory (PML4 slots 256..383). */
#define DIRECT_MAP_MAX_BYTES _UL(0x400000000000)

/*
 * Kernel stacks, one slot per CPU, mapped with 4 KiB pages so the page
 * below each stack stays unmapped as a guard (PML4 slot 384).
 */
#define KSTACK_AREA_BASE _UL(0xffffc00000000000)

/* Device registers the kernel maps uncached (arch/x86_64/kpt.c), PML4 slot 400, 512 GiB. */
#define MMIO_AREA_BASE _UL(0xffffc80000000000)
#define MMIO_AREA_SIZE _UL(0x8000000000)

/* The lower half, where address spaces (mm/mm.h) map their own memory, ends here. */
#define USER_SPACE_TOP _UL(0x0000800000000000)

/* The boot page tables map this much low memory, identity and direct. */
#define BOOT_MAP_BYTES _UL(0x100000000)

#define PAGE_SIZE _UL(4096)
#define PAGE_SHIFT 12

#define BOOT_STACK_SIZE (_UL(16) * 1024)

#endif
