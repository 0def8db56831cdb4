/*
 * Loading the kernel page tables mm built (struct machine_kmap): CR3 and CR4
 * on the boot CPU (kpt_load()), on each AP (kpt_load_ap()), and address
 * space roots (arch_load_root()). With PCID the kernel root is PCID 0.
 * Later additions to the kernel half go through the functions mm put in the
 * map: arch never calls mm.
 */
#include "arch/x86_64/kpt.h"
#include "compiler.h"
#include <arch/arch.h>
#include <arch/cpu.h>
#include <arch/layout.h>

static const struct machine_kmap *kpt_km;

/* Loads the kernel root as PCID 0, then turns on global pages and PCIDs. */
static void kpt_load_this_cpu(void)
{
	u64 cr4 = read_cr4() | X86_CR4_PGE;

	/* CR3[11:0] must be 0 when CR4.PCIDE is set (SDM Vol. 3A 4.10.1). */
	write_cr3(kpt_km->root);
	if (kpt_km->asids)
		cr4 |= X86_CR4_PCIDE;
	/* Setting PGE flushes every TLB entry, global ones included (SDM Vol. 3A 4.10.4.1). */
	write_cr4(cr4);
}

void kpt_load(const struct machine_kmap *km)
{
	kpt_km = km;
	kpt_load_this_cpu();
}

/*
 * An AP starts on the APs' first root (the kernel half plus low memory
 * identity-mapped, as ap_start.S turns paging on at the trampoline's
 * physical address) and switches to the kernel root here, from ap_main().
 */
void kpt_load_ap(void)
{
	kpt_load_this_cpu();
}

void arch_load_root(paddr_t root, u16 asid, bool flush)
{
	if (!kpt_km || !kpt_km->asids) {
		write_cr3(root);
		return;
	}
	write_cr3(root | (asid & X86_CR3_PCID_MASK) | (flush ? 0 : X86_CR3_NOFLUSH));
}

paddr_t kpt_root(void)
{
	return kpt_km ? kpt_km->root : 0;
}

paddr_t kpt_trampoline_root(void)
{
	return kpt_km ? kpt_km->ap_root : 0;
}

bool kpt_pcid(void)
{
	return kpt_km && kpt_km->asids;
}

bool kpt_stacks(unsigned cpu, struct machine_stacks *out)
{
	u64 off;

	if (!kpt_km || cpu >= kpt_km->nstacks)
		return false;
	off = cpu * kpt_km->stack_stride;
	out->top = kpt_km->stack0.top + off;
	for (unsigned i = 0; i < ARRAY_SIZE(out->irq_top); i++)
		out->irq_top[i] = kpt_km->stack0.irq_top[i] ? kpt_km->stack0.irq_top[i] + off : 0;
	return true;
}

void *kpt_map_mmio(paddr_t pa, u64 len)
{
	return kpt_km ? kpt_km->map_mmio(pa, len) : NULL;
}

bool kpt_map_firmware(paddr_t pa, u64 len)
{
	if (!len || pa + len < pa || pa + len > DIRECT_MAP_MAX_BYTES)
		return false;
	if (!kpt_km) /* still on the boot tables */
		return pa + len <= BOOT_MAP_BYTES;
	return kpt_km->map_firmware(pa, len);
}
