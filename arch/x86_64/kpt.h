/*
 * The kernel's own page tables as arch sees them (arch/x86_64/kpt.c): mm
 * builds them from the machine's description and hands back a struct
 * machine_kmap; arch loads it on every CPU and keeps it for the AP
 * trampoline, the stacks, and later additions to the kernel half.
 */
#ifndef ARCH_KPT_H
#define ARCH_KPT_H

#include "machine.h"
#include "types.h"

/*
 * Switches the boot CPU to @km's kernel root (CR4.PGE, and CR4.PCIDE when
 * km->asids) and keeps @km, which must outlive the run (mm updates its
 * ap_root and stacks in place). Boot CPU, once, before any AP.
 */
void kpt_load(const struct machine_kmap *km);

/* Physical address of the kernel root (0 before kpt_load()). */
paddr_t kpt_root(void);

/*
 * The APs' first root: the kernel half plus low memory identity-mapped,
 * below 4 GiB (loaded in 32-bit mode). 0 once mm freed it.
 */
paddr_t kpt_trampoline_root(void);

/* True when every CPU runs with CR4.PCIDE. */
bool kpt_pcid(void);

/* Fills @out with CPU @cpu's stacks as mm mapped them; false when it has none. */
bool kpt_stacks(unsigned cpu, struct machine_stacks *out);

/*
 * On an AP, first thing in 64-bit C code: loads the kernel root and enables
 * PCID as the boot CPU did.
 */
void kpt_load_ap(void);

/*
 * Maps @len bytes of device registers at physical @pa uncached, read-write
 * and not executable. Returns their kernel address, or NULL (no memory,
 * area full, bad range, or before kpt_load()). Any CPU, task context.
 */
void *kpt_map_mmio(paddr_t pa, u64 len);

/*
 * Makes [pa, pa + len) readable through the direct map: RAM already is;
 * other pages (firmware tables in reserved memory) are added read-only and
 * not executable. Before kpt_load(), true only for what the boot tables
 * (BOOT_MAP_BYTES) reach. Returns false when the range cannot be mapped.
 */
bool kpt_map_firmware(paddr_t pa, u64 len);

#endif
