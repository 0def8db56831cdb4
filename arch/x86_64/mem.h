/*
 * Boot-time memory set-up: the frame allocator over the memory map, the
 * direct map grown to all RAM, and the kernel stack area.
 */
#ifndef ARCH_MEM_H
#define ARCH_MEM_H

#include "types.h"

struct mem_boot_stats {
	u64 ram_bytes;         /* usable RAM in the memory map */
	u64 direct_map_bytes;  /* RAM above 4 GiB added to the direct map */
	u64 high_frames;       /* frames released once the direct map covered them */
};

/*
 * Initialises the frame allocator from boot_info (leaving out the low 1 MiB,
 * the kernel image and boot modules), maps all RAM into the direct map and
 * prepares the stack area. Boot CPU, once. Returns 0 or a negative error
 * with @err filled.
 */
int mem_boot_init(struct mem_boot_stats *st, char *err, size_t errlen);

#endif
