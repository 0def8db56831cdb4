/*
 * The kernel's own page tables (arch/x86_64/kpt.c): the kernel root every
 * CPU runs on and every address space copies its kernel half from, the
 * AP trampoline's root, and later additions to the kernel half (device
 * registers, firmware tables).
 */
#ifndef ARCH_KPT_H
#define ARCH_KPT_H

#include "types.h"

struct kpt_stats {
	u64 direct_bytes;  /* physical memory in the direct map */
	u64 direct_1g;	   /* ... of it mapped by 1 GiB pages */
	u64 direct_2m;	   /* ... by 2 MiB pages */
	u64 firmware_4k;   /* 4 KiB pages of firmware tables added since */
	u64 mmio_bytes;	   /* device registers mapped uncached */
	bool pcid;	   /* CR4.PCIDE on every CPU */
};

/*
 * Builds the kernel root (image by section, direct map, stack area, every
 * kernel-half PML4 entry) and the AP trampoline root while the boot tables
 * are still loaded, switches the boot CPU to the kernel root (CR4.PGE, and
 * CR4.PCIDE when CPUID has PCID) and hands it to mm_init(). Page-table
 * frames must come from below 4 GiB meanwhile (pmm's direct_limit): the
 * caller calls pmm_release_high() only after. Boot CPU, once. Returns 0,
 * or a negative error with @err filled.
 */
int kpt_init(char *err, size_t errlen);

/* Physical address of the kernel root. */
paddr_t kpt_root(void);

/*
 * The trampoline's root for APs coming up: the kernel half plus low memory
 * identity-mapped, below 4 GiB (loaded in 32-bit mode). 0 once freed.
 */
paddr_t kpt_trampoline_root(void);

/* Frees the trampoline root once every AP has switched to the kernel root. Boot CPU. */
void kpt_trampoline_free(void);

/* On an AP, first thing in 64-bit C code: loads the kernel root and enables PCID as the boot CPU did. */
void kpt_load_ap(void);

/*
 * Maps @len bytes of device registers at physical @pa uncached, read-write
 * and not executable, in the MMIO area. Returns their kernel address, or
 * NULL (no memory, area full, bad range). Any CPU, task context.
 */
void *kpt_map_mmio(paddr_t pa, u64 len);

/*
 * Makes [pa, pa + len) readable through the direct map: RAM already is;
 * other pages (firmware tables in reserved memory) are added read-only and
 * not executable. Returns false when the range cannot be mapped.
 */
bool kpt_map_firmware(paddr_t pa, u64 len);

/* What kpt_init() built and what was added since. */
void kpt_stats_get(struct kpt_stats *s);

#endif
