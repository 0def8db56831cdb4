/*
 * The machine's memory as x86-64 describes it to mm at boot
 * (arch/x86_64/mem.c): a struct machine_desc, which mm/boot_mem.c builds
 * the kernel's memory from.
 */
#ifndef ARCH_MEM_H
#define ARCH_MEM_H

#include "machine.h"

/*
 * Fills @d from boot_info (usable RAM; the low 1 MiB, the kernel image, the
 * loader's information and boot modules reserved; RAM-like ranges for the
 * direct map), the linker's section symbols and CPUID (1 GiB pages, NX,
 * PCIDs), with stacks for @ncpus CPUs and the TSS's IST count. Boot CPU,
 * after cpuinfo, before mm_boot_build().
 */
void mem_describe(struct machine_desc *d, unsigned ncpus);

#endif
