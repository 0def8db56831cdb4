/*
 * Boot-time memory set-up from the machine's description (mm/boot_mem.c):
 * the frame allocator, the kernel map, the stack area and mm_init(), in the
 * three steps kernel/main.c calls around arch's loading of the kernel root
 * and its starting of the APs.
 */
#ifndef MM_BOOT_MEM_H
#define MM_BOOT_MEM_H

#include "machine.h"
#include "types.h"

/*
 * Step 1, on the boot tables: the frame allocator over @d's usable memory
 * (leaving out d->reserved; frames above d->boot_map_limit held back), the
 * no-execute bit as @d says, the kernel map and the APs' first root
 * (mm/kernel_map.c), and mm_init() with @d's address-space identifiers.
 * Fills @km for arch to load; its stacks come with step 2. Boot CPU, once.
 * Returns 0, or a negative error with @err filled.
 */
int mm_boot_build(const struct machine_desc *d, struct machine_kmap *km, char *err,
		  size_t errlen);

/*
 * Step 2, once the boot CPU runs on km->root: frees the memory above the
 * boot map that only the new direct map reaches, and maps the stacks of
 * CPUs 0..d->ncpus-1 (fewer when memory runs out: km->nstacks says how
 * many), and places the per-CPU data copies of those CPUs (kernel/percpu.h;
 * a CPU that gets none is left out of bring-up). Returns 0, or -ENOMEM
 * with @err filled when not even the boot CPU's stacks fit.
 */
int mm_boot_stacks(const struct machine_desc *d, struct machine_kmap *km, char *err,
		   size_t errlen);

/*
 * Step 3, after the APs started (every one that came up runs on km->root):
 * frees the APs' first root (km->ap_root becomes 0) and prints the "# mm:"
 * boot line.
 */
void mm_boot_done(struct machine_kmap *km);

#endif
