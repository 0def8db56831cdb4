/*
 * Boot-time memory set-up: the frame allocator over the memory map and the
 * kernel's own page tables (arch/x86_64/kpt.c), and the "# mm:" boot line.
 */
#ifndef ARCH_MEM_H
#define ARCH_MEM_H

#include "types.h"

struct mem_boot_stats {
	u64 ram_bytes;   /* usable RAM in the memory map */
	u64 high_frames; /* frames above the boot map, released once the direct map covered them */
};

/*
 * Initialises the frame allocator from boot_info (leaving out the low 1 MiB,
 * the kernel image, the loader's information and boot modules), builds the
 * kernel page tables and switches the boot CPU to them, then frees the
 * memory above 4 GiB. Boot CPU, once. Returns 0 or a negative error with
 * @err filled.
 */
int mem_boot_init(struct mem_boot_stats *st, char *err, size_t errlen);

/*
 * Prints "# mm: ..." with the frames and page-table pages in use and how
 * the direct map is built. Boot CPU, after bring-up.
 */
void mem_report(void);

#endif
