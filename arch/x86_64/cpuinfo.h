/*
 * What CPUID says about this machine: vendor, brand string, hypervisor and
 * the feature bits mmlab cares about. Read once on the boot CPU.
 */
#ifndef ARCH_CPUINFO_H
#define ARCH_CPUINFO_H

#include "types.h"

struct cpuinfo {
	char vendor[13];
	char model[49];      /* brand string, trimmed */
	char hypervisor[13]; /* empty on bare metal */
	u32 family, model_id, stepping;
	u32 max_leaf;	     /* highest basic CPUID leaf */
	bool apic, tsc, msr, pae, pge; /* CPUID.1:EDX[9], [4], [5], [6], [13] */
	bool x2apic, pcid, invpcid, nx, pdpe1gb, tsc_invariant, tsc_deadline, hypervisor_bit;
	bool tcg; /* QEMU's emulator, hypervisor "TCGTCGTCGTCG" */
};

extern struct cpuinfo cpuinfo;

/* Fills cpuinfo from CPUID. */
void cpuinfo_init(void);

/*
 * The first CPU feature mmlab cannot run without that this CPU lacks, as
 * a message naming it and the CPUID bit ("no TSC (CPUID.1:EDX[4] clear)"),
 * or NULL when nothing is missing. Long mode and PAE are checked earlier,
 * in boot/entry.S, before they are used; the local APIC by apic_probe().
 */
const char *cpuinfo_missing(void);

#endif
