/*
 * GDT and TSS setup, one pair per CPU (statically allocated for MAX_CPUS).
 * Runs once per CPU during its bring-up with interrupts off; nothing changes
 * the tables afterwards.
 */
#include "arch/x86_64/gdt.h"
#include "compiler.h"
#include "lib/string.h"
#include <arch/cpu.h>

#ifndef MAX_CPUS
#error "MAX_CPUS must be set by the Makefile"
#endif

struct tss {
	u32 reserved0;
	u64 rsp[3];
	u64 reserved1;
	u64 ist[7];
	u64 reserved2;
	u16 reserved3;
	u16 iomap_base;
} __packed;

BUILD_ASSERT(sizeof(struct tss) == 104);

#define GDT_ENTRIES 5 /* null, code, data, TSS (two slots) */

struct cpu_gdt {
	u64 gdt[GDT_ENTRIES];
	struct tss tss;
} __aligned(16);

static struct cpu_gdt cpu_gdts[MAX_CPUS];
static u8 boot_ist_stacks[IST_COUNT][IST_STACK_SIZE] __aligned(16);

/* Loads the data segment registers and reloads CS with a far return (arch/x86_64/cpu_asm.S). */
void load_segments(u16 code_sel, u16 data_sel);

/* A 64-bit TSS descriptor spans two GDT slots (SDM Vol. 3A 8.2.3). */
static void set_tss_descriptor(u64 *slot, const struct tss *tss)
{
	u64 base = (u64)(uintptr_t)tss, limit = sizeof(*tss) - 1;

	slot[0] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89ull << 40) |
		  (((limit >> 16) & 0xf) << 48) | (((base >> 24) & 0xff) << 56);
	slot[1] = base >> 32;
}

void gdt_init_cpu(unsigned cpu, const vaddr_t ist_top[IST_COUNT])
{
	struct cpu_gdt *g = &cpu_gdts[cpu];
	struct desc_ptr ptr = { sizeof(g->gdt) - 1, (u64)(uintptr_t)g->gdt };

	memset(g, 0, sizeof(*g));
	g->gdt[1] = 0x00af9a000000ffffull; /* 64-bit code, DPL 0 */
	g->gdt[2] = 0x00cf92000000ffffull; /* data, DPL 0 */
	for (unsigned i = 0; i < IST_COUNT; i++)
		g->tss.ist[i] = ist_top[i];
	g->tss.iomap_base = sizeof(g->tss); /* no I/O bitmap */
	set_tss_descriptor(&g->gdt[3], &g->tss);
	lgdt(&ptr);
	load_segments(GDT_KERNEL_CS, GDT_KERNEL_DS);
	ltr(GDT_TSS);
}

void gdt_boot_ist(vaddr_t ist_top[IST_COUNT])
{
	for (unsigned i = 0; i < IST_COUNT; i++)
		ist_top[i] = (vaddr_t)(uintptr_t)(boot_ist_stacks[i] + IST_STACK_SIZE);
}
