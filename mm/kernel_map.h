/*
 * The kernel's own page tables, built from the machine's description
 * (mm/kernel_map.c): the kernel root every CPU runs on and every address
 * space copies its kernel half from, the APs' first root, and later
 * additions to the kernel half (device registers, firmware tables).
 */
#ifndef MM_KERNEL_MAP_H
#define MM_KERNEL_MAP_H

#include "machine.h"
#include "types.h"

struct kmap_stats {
	u64 direct_bytes; /* physical memory in the direct map */
	u64 direct_1g;	  /* ... of it mapped by 1 GiB pages */
	u64 direct_2m;	  /* ... by 2 MiB pages */
	u64 firmware_4k;  /* 4 KiB pages of firmware tables added since */
	u64 mmio_bytes;	  /* device registers mapped uncached */
};

/*
 * Builds the kernel root from @d (every kernel-half top-level entry, the
 * image by section, the direct map) and the APs' first root, while the
 * boot tables are still loaded: page-table frames must come from below
 * d->boot_map_limit meanwhile (the frame allocator's direct_limit). Boot
 * CPU, once, before any CPU loads the root. Returns 0, or a negative error
 * with @err naming the step that failed.
 */
int kmap_build(const struct machine_desc *d, char *err, size_t errlen);

/* Physical address of the kernel root (0 before kmap_build()). */
paddr_t kmap_root(void);

/* The APs' first root, 0 once freed. */
paddr_t kmap_ap_root(void);

/* Frees the APs' first root once no CPU runs on it any more. Boot CPU. */
void kmap_ap_root_free(void);

/*
 * Maps @len bytes of device registers at physical @pa uncached, read-write
 * and not executable, in the MMIO area. Returns their kernel address, or
 * NULL (no memory, area full, bad range). Any CPU, task context.
 */
void *kmap_map_mmio(paddr_t pa, u64 len);

/*
 * Makes [pa, pa + len) readable through the direct map: RAM already is;
 * other pages (firmware tables in reserved memory) are added read-only and
 * not executable. Returns false when the range cannot be mapped, and before
 * kmap_build() (what the boot tables reach is arch's to know).
 */
bool kmap_map_firmware(paddr_t pa, u64 len);

/* What kmap_build() built and what was added since. */
void kmap_stats_get(struct kmap_stats *s);

#endif
