/*
 * Bringing up the application processors: INIT-SIPI-SIPI through a real-mode
 * trampoline, one AP at a time, each with its own stacks, GDT/TSS and
 * per-CPU data. A CPU that does not answer in time is reported and left out.
 */
#ifndef ARCH_SMPBOOT_H
#define ARCH_SMPBOOT_H

#include "types.h"

#define SMPBOOT_MAX_FAILED 16

struct smpboot_result {
	unsigned started;         /* APs that came online */
	unsigned failed;          /* APs that did not answer */
	u32 failed_apic[SMPBOOT_MAX_FAILED];
	unsigned skipped;         /* left out: APIC ID beyond the mode, or no memory */
	u64 total_cycles;         /* TSC cycles for the whole bring-up */
	u64 max_cycles;           /* slowest single AP, INIT to online */
};

/* Sets up the boot CPU's per-CPU data (GS base) as CPU 0. */
void smpboot_init_bsp(u32 apic_id);

/*
 * Test hook (ap_nostart=): the last @n APs smpboot_start_aps() tries are
 * sent no INIT/SIPI, so the timeout and its report run as for dead CPUs.
 * Boot CPU, before smpboot_start_aps().
 */
void smpboot_set_nostart(unsigned n);

/*
 * Starts the CPUs with APIC IDs @apic_ids[0..n) (the boot CPU's ID is
 * skipped) until @limit CPUs are online in total. The boot CPU must have
 * its APIC enabled and the TSC calibrated. Fills @res; returns 0 or -ENOMEM
 * when no low page is free for the trampoline.
 */
int smpboot_start_aps(const u32 *apic_ids, unsigned n, unsigned limit, struct smpboot_result *res);

/*
 * Under a hypervisor a vCPU is a host thread that may wait for a host core,
 * the longer the more vCPUs share them, and the guest cannot see how many
 * cores there are. The base deadlines were chosen for up to this many vCPUs
 * sharing the project's 2-core hosts: each further such group of vCPUs
 * stretches them once more.
 */
#define SMPBOOT_VCPUS_PER_DEADLINE 16

/*
 * Once the CPUs are up: scales every wait's deadline (kernel/smp.h) to what
 * the platform can deliver with @ncpus CPUs, and returns why that scale, for
 * the MMLAB header. Boot CPU.
 */
const char *smpboot_scale_deadlines(unsigned ncpus);

#endif
