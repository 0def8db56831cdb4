/*
 * Boot loader headers, both in one image: GRUB's multiboot2 loads the ELF64
 * segments at their physical addresses; QEMU's -kernel and iPXE speak only
 * multiboot1 and need the a.out-kludge fields, which describe the image as
 * one contiguous file region (linker.ld keeps it so). Both enter
 * boot/entry.S in 32-bit protected mode, paging off.
 */
#include <arch/layout.h>

#define MB2_MAGIC 0xe85250d6
#define MB2_ARCH_I386 0
#define MB1_MAGIC 0x1badb002
/* page-align modules | memory info | address fields valid (a.out kludge) */
#define MB1_FLAGS ((1 << 0) | (1 << 1) | (1 << 16))

	.section .multiboot2, "a"
	.balign 8
mb2_header:
	.long MB2_MAGIC
	.long MB2_ARCH_I386
	.long mb2_header_end - mb2_header
	.long -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))

	/*
	 * No framebuffer request (tag type 5): under a BIOS it makes GRUB set a
	 * video mode through the VGA BIOS, and with Bochs' VGA BIOS GRUB then
	 * fails before entering the kernel; mmlab talks only to a UART. The price
	 * is GRUB-EFI's harmless "WARNING: no console will be available to OS",
	 * printed for every multiboot kernel without the tag (GRUB 2.06).
	 */
	/*
	 * information request: command line, memory map, ACPI (old and new), EFI
	 * tags; all optional
	 */
	.balign 8
1:	.short 1, 1
	.long 2f - 1b
	.long 1, 6, 14, 15, 11, 12
2:
	/* entry address: boot/entry.S's 32-bit entry (physical) */
	.balign 8
1:	.short 3, 0
	.long 2f - 1b
	.long _start32
2:
	/* modules page-aligned */
	.balign 8
1:	.short 6, 0
	.long 2f - 1b
2:
	.balign 8
	.short 0, 0
	.long 8
mb2_header_end:

	.section .multiboot1, "a"
	.balign 4
mb1_header:
	.long MB1_MAGIC
	.long MB1_FLAGS
	.long -(MB1_MAGIC + MB1_FLAGS)
	.long mb1_header		/* header_addr */
	.long __image_start_phys	/* load_addr */
	.long __image_load_end_phys	/* load_end_addr */
	.long __image_bss_end_phys	/* bss_end_addr */
	.long _start32			/* entry_addr */
