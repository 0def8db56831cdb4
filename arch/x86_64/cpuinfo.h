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
	bool x2apic, pcid, invpcid, nx, pdpe1gb, tsc_invariant, tsc_deadline, hypervisor_bit;
	bool tcg; /* QEMU's emulator, hypervisor "TCGTCGTCGTCG" */
};

extern struct cpuinfo cpuinfo;

/* Fills cpuinfo from CPUID. */
void cpuinfo_init(void);

#endif
