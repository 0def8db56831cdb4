/*
 * CPUID decoding for the header and for feature checks. Leaves follow SDM
 * Vol. 2A, CPUID; the hypervisor leaf 0x40000000 is the common convention
 * (KVM, Hyper-V, QEMU TCG, Xen all answer it when the hypervisor bit is set).
 */
#include "arch/x86_64/cpuinfo.h"
#include "lib/string.h"
#include <arch/cpu.h>

struct cpuinfo cpuinfo;

static void copy_regs(char *dst, const u32 *regs, unsigned n)
{
	memcpy(dst, regs, 4 * n);
	dst[4 * n] = '\0';
}

static void read_brand(void)
{
	u32 regs[12];
	char *s = cpuinfo.model;
	size_t len;

	if (cpuid(0x80000000).eax < 0x80000004) {
		strlcpy(cpuinfo.model, "unknown", sizeof(cpuinfo.model));
		return;
	}
	for (u32 i = 0; i < 3; i++) {
		struct cpuid_regs r = cpuid(0x80000002 + i);

		regs[4 * i] = r.eax;
		regs[4 * i + 1] = r.ebx;
		regs[4 * i + 2] = r.ecx;
		regs[4 * i + 3] = r.edx;
	}
	copy_regs(s, regs, 12);
	while (*s == ' ')
		s++;
	memmove(cpuinfo.model, s, strlen(s) + 1);
	len = strlen(cpuinfo.model);
	while (len && cpuinfo.model[len - 1] == ' ')
		cpuinfo.model[--len] = '\0';
}

static void read_hypervisor(void)
{
	struct cpuid_regs r;
	u32 regs[3];

	if (!cpuinfo.hypervisor_bit)
		return;
	r = cpuid(0x40000000);
	regs[0] = r.ebx;
	regs[1] = r.ecx;
	regs[2] = r.edx;
	copy_regs(cpuinfo.hypervisor, regs, 3);
	cpuinfo.tcg = strcmp(cpuinfo.hypervisor, "TCGTCGTCGTCG") == 0;
}

void cpuinfo_init(void)
{
	struct cpuid_regs r = cpuid(0);
	u32 max_ext = cpuid(0x80000000).eax;
	u32 vendor[3] = { r.ebx, r.edx, r.ecx };
	u32 max_leaf = r.eax;

	copy_regs(cpuinfo.vendor, vendor, 3);
	cpuinfo.max_leaf = max_leaf;
	r = cpuid(1);
	cpuinfo.apic = r.edx & (1u << 9);
	cpuinfo.tsc = r.edx & (1u << 4);
	cpuinfo.msr = r.edx & (1u << 5);
	cpuinfo.pae = r.edx & (1u << 6);
	cpuinfo.pge = r.edx & (1u << 13);
	cpuinfo.stepping = r.eax & 0xf;
	cpuinfo.model_id = ((r.eax >> 4) & 0xf) | (((r.eax >> 16) & 0xf) << 4);
	cpuinfo.family = ((r.eax >> 8) & 0xf) + ((r.eax >> 20) & 0xff);
	cpuinfo.x2apic = r.ecx & (1u << 21);
	cpuinfo.tsc_deadline = r.ecx & (1u << 24);
	cpuinfo.pcid = r.ecx & (1u << 17);
	cpuinfo.hypervisor_bit = r.ecx & (1u << 31);
	if (max_leaf >= 7)
		cpuinfo.invpcid = cpuid_count(7, 0).ebx & (1u << 10);
	if (max_ext >= 0x80000001) {
		r = cpuid(0x80000001);
		cpuinfo.nx = r.edx & (1u << 20);
		cpuinfo.pdpe1gb = r.edx & (1u << 26);
	}
	if (max_ext >= 0x80000007)
		cpuinfo.tsc_invariant = cpuid(0x80000007).edx & (1u << 8);
	read_brand();
	read_hypervisor();
}

const char *cpuinfo_missing(void)
{
	if (cpuinfo.max_leaf < 1)
		return "no CPUID leaf 1 (CPUID.0:EAX is 0): cannot read the CPU's features";
	if (!cpuinfo.tsc)
		return "no time-stamp counter (CPUID.1:EDX[4] clear): mmlab times everything with it";
	if (!cpuinfo.msr)
		return "no RDMSR/WRMSR (CPUID.1:EDX[5] clear): mmlab needs the APIC base and EFER MSRs";
	/* CR4.PGE is reserved without it (SDM Vol. 3A 2.5): setting it would fault. */
	if (!cpuinfo.pge)
		return "no global pages (CPUID.1:EDX[13] clear): the kernel's page tables use them";
	return NULL;
}
