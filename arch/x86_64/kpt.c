/*
 * The kernel's own page tables. kpt_init() builds a fresh root with
 * mm/pt.c while the boot tables (boot/entry.S) are still loaded: first a
 * PDPT under every kernel-half PML4 entry, so every root copied from it
 * later shares all kernel mappings made at any time; then the image by
 * section (text RX, rodata R, data and bss RW, NX but text), the direct
 * map of RAM (RW, NX, 1 GiB pages where the CPU has them, else 2 MiB),
 * and the stack area. Below 4 GiB the gaps between RAM are mapped too,
 * uncached, as the boot tables mapped all of it: code that reaches device
 * registers or firmware at DIRECT_MAP_BASE + pa under BOOT_MAP_BYTES keeps
 * working, with the right memory type. Everything is global (CR4.PGE).
 *
 * The boot CPU switches to the kernel root in kpt_init(); an AP starts on
 * the trampoline root (kernel half plus low memory identity-mapped, as
 * ap_start.S turns paging on at the trampoline's physical address) and
 * switches in ap_main(). With PCID the kernel root runs as PCID 0 and
 * address spaces get their own (mm/mm.c, through arch_load_root()).
 * Kernel-half mappings are only ever added, never removed, so no kernel
 * table is freed while some PCID may still cache it.
 *
 * Locking: kpt_lock serialises additions to the kernel half after boot
 * (device registers, firmware tables); kstack.c maps stacks only during
 * bring-up, on the boot CPU. The rest runs on the boot CPU before any AP.
 */
#include "arch/x86_64/kpt.h"
#include "arch/x86_64/cpuinfo.h"
#include "boot/bootinfo.h"
#include "errno.h"
#include "kernel/spinlock.h"
#include "lib/format.h"
#include "mm/kstack.h"
#include "mm/mm.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include <arch/arch.h>
#include <arch/cpu.h>
#include <arch/layout.h>

#define KERNEL_HALF_BASE 0xffff800000000000ul
#define KERNEL_HALF_SIZE (1ul << 47)
#define FOUR_GIB 0x100000000ul
/* PCIDs besides 0 (CPUID.1:ECX[17]; CR3[11:0] holds 12 bits). */
#define KPT_PCIDS 4095

extern const char __text_start[], __rodata_start[], __data_start[], __bss_end[];

static paddr_t kpt_root_pa, kpt_tramp_pa;
static bool kpt_pcid;
static spinlock_t kpt_lock = SPINLOCK_INIT("kpt");
static u64 kpt_mmio_used;
static struct kpt_stats kpt_st;
/* RAM ranges for the direct map, 2 MiB aligned, sorted, merged (+1: the first 2 MiB). */
static struct pmm_range kpt_ram[BOOT_MEM_MAX + 1];

/* the direct map */

static bool kpt_is_ram(u32 type)
{
	return type == BOOT_MEM_USABLE || type == BOOT_MEM_ACPI_RECLAIM ||
	       type == BOOT_MEM_ACPI_NVS;
}

static void kpt_ram_sort_merge(unsigned *n)
{
	unsigned i, k = 0;

	for (i = 1; i < *n; i++) {
		struct pmm_range r = kpt_ram[i];
		unsigned j = i;

		for (; j > 0 && kpt_ram[j - 1].start > r.start; j--)
			kpt_ram[j] = kpt_ram[j - 1];
		kpt_ram[j] = r;
	}
	for (i = 0; i < *n; i++) {
		if (k > 0 && kpt_ram[i].start <= kpt_ram[k - 1].end)
			kpt_ram[k - 1].end = MAX(kpt_ram[k - 1].end, kpt_ram[i].end);
		else
			kpt_ram[k++] = kpt_ram[i];
	}
	*n = k;
}

/* RAM-like ranges of the memory map (firmware tables included), widened to 2 MiB. */
static unsigned kpt_collect_ram(void)
{
	unsigned n = 0;

	/* Real-mode memory, the EBDA, the BIOS area and the AP trampoline. */
	kpt_ram[n++] = (struct pmm_range){ 0, PT_PAGE_2M };
	for (unsigned i = 0; i < boot_info.nmem; i++) {
		const struct boot_mem_region *r = &boot_info.mem[i];
		paddr_t end = MIN(r->base + r->len, DIRECT_MAP_MAX_BYTES);

		if (!kpt_is_ram(r->type) || r->base >= end)
			continue;
		kpt_ram[n++] = (struct pmm_range){ ALIGN_DOWN(r->base, PT_PAGE_2M),
						   ALIGN_UP(end, PT_PAGE_2M) };
	}
	kpt_ram_sort_merge(&n);
	return n;
}

/* Where a run of pages of one size starting at @s ends, inside [s, e). */
static paddr_t kpt_direct_run(paddr_t s, paddr_t e, u64 *size)
{
	if (cpuinfo.pdpe1gb && IS_ALIGNED(s, PT_PAGE_1G) && e - s >= PT_PAGE_1G) {
		*size = PT_PAGE_1G;
		return s + ALIGN_DOWN(e - s, PT_PAGE_1G);
	}
	*size = PT_PAGE_2M;
	/* Only up to the next 1 GiB boundary, where 1 GiB pages may start. */
	if (cpuinfo.pdpe1gb)
		return MIN(e, ALIGN_DOWN(s, PT_PAGE_1G) + PT_PAGE_1G);
	return e;
}

/* Maps [s, e) (2 MiB aligned) at DIRECT_MAP_BASE + s with the largest pages that fit. */
static int kpt_map_direct(paddr_t s, paddr_t e, unsigned prot)
{
	while (s < e) {
		u64 size;
		paddr_t stop = kpt_direct_run(s, e, &size);
		int err = pt_map(kpt_root_pa, DIRECT_MAP_BASE + s, s, stop - s, prot, size);

		if (err)
			return err;
		if (prot & PROT_NOCACHE)
			kpt_st.mmio_bytes += stop - s;
		else if (size == PT_PAGE_1G)
			kpt_st.direct_1g += stop - s;
		else
			kpt_st.direct_2m += stop - s;
		s = stop;
	}
	return 0;
}

/* RAM write-back; below 4 GiB, the gaps between it uncached. */
static int kpt_build_direct(void)
{
	unsigned n = kpt_collect_ram();
	paddr_t done = 0;
	int err = 0;

	for (unsigned i = 0; !err && i < n; i++) {
		if (done < MIN(kpt_ram[i].start, FOUR_GIB))
			err = kpt_map_direct(done, MIN(kpt_ram[i].start, FOUR_GIB),
					     PROT_READ | PROT_WRITE | PROT_NOCACHE | PROT_GLOBAL);
		if (!err)
			err = kpt_map_direct(kpt_ram[i].start, kpt_ram[i].end,
					     PROT_READ | PROT_WRITE | PROT_GLOBAL);
		kpt_st.direct_bytes += kpt_ram[i].end - kpt_ram[i].start;
		done = kpt_ram[i].end;
	}
	if (!err && done < FOUR_GIB)
		err = kpt_map_direct(done, FOUR_GIB,
				     PROT_READ | PROT_WRITE | PROT_NOCACHE | PROT_GLOBAL);
	return err;
}

/* the image and the rest of the root */

static int kpt_map_section(const char *start, const char *end, unsigned prot)
{
	vaddr_t va = (vaddr_t)(uintptr_t)start;

	return pt_map(kpt_root_pa, va, va - KERNEL_VIRT_BASE, (vaddr_t)(uintptr_t)end - va,
		      prot | PROT_GLOBAL, PT_PAGE_4K);
}

static int kpt_build_image(void)
{
	int err = kpt_map_section(__text_start, __rodata_start, PROT_READ | PROT_EXEC);

	if (!err)
		err = kpt_map_section(__rodata_start, __data_start, PROT_READ);
	if (!err)
		err = kpt_map_section(__data_start, __bss_end, PROT_READ | PROT_WRITE);
	return err;
}

/*
 * The APs' first root: ap_start.S loads it in 32-bit mode, so it lies below
 * 4 GiB (page_alloc() gives nothing higher before pmm_release_high()), and
 * it maps the trampoline's page where it sits, for the instructions that
 * turn paging on and jump to the kernel half.
 */
static int kpt_build_trampoline(void)
{
	int err = pt_root_alloc(&kpt_tramp_pa, kpt_root_pa);

	if (err)
		return err;
	if (kpt_tramp_pa >= FOUR_GIB)
		return -ENOMEM;
	return pt_map(kpt_tramp_pa, 0, 0, PT_PAGE_2M, PROT_READ | PROT_WRITE | PROT_EXEC,
		      PT_PAGE_2M);
}

static int kpt_build_root(void)
{
	int err = pt_root_alloc(&kpt_root_pa, 0);

	if (err)
		return err;
	return pt_populate(kpt_root_pa, KERNEL_HALF_BASE, KERNEL_HALF_SIZE, PT_PAGE_1G);
}

/* The steps of kpt_init(), in order, and what each builds (for the error message). */
static const struct {
	const char *what;
	int (*build)(void);
} kpt_steps[] = {
	{ "root and kernel-half PDPTs", kpt_build_root },
	{ "image", kpt_build_image },
	{ "direct map", kpt_build_direct },
	{ "AP trampoline root", kpt_build_trampoline },
};

/* switching */

/* Loads the kernel root as PCID 0, then turns on global pages and PCIDs. */
static void kpt_load_this_cpu(void)
{
	u64 cr4 = read_cr4() | X86_CR4_PGE;

	/* CR3[11:0] must be 0 when CR4.PCIDE is set (SDM Vol. 3A 4.10.1). */
	write_cr3(kpt_root_pa);
	if (kpt_pcid)
		cr4 |= X86_CR4_PCIDE;
	/* Setting PGE flushes every TLB entry, global ones included (SDM Vol. 3A 4.10.4.1). */
	write_cr4(cr4);
}

int kpt_init(char *err, size_t errlen)
{
	pt_nx_enabled = cpuinfo.nx;
	kpt_pcid = cpuinfo.pcid;
	for (unsigned i = 0; i < ARRAY_SIZE(kpt_steps); i++) {
		int rc = kpt_steps[i].build();

		if (rc) {
			fmt_snprintf(err, errlen, "kernel page tables: %s: %s", kpt_steps[i].what,
				     errno_name(rc));
			return rc;
		}
	}
	kstack_init(kpt_root_pa);
	kpt_load_this_cpu();
	kpt_st.pcid = kpt_pcid;
	mm_init(kpt_root_pa, kpt_pcid ? KPT_PCIDS : 0);
	return 0;
}

void kpt_load_ap(void)
{
	kpt_load_this_cpu();
}

void arch_load_root(paddr_t root, u16 asid, bool flush)
{
	if (!kpt_pcid) {
		write_cr3(root);
		return;
	}
	write_cr3(root | (asid & X86_CR3_PCID_MASK) | (flush ? 0 : X86_CR3_NOFLUSH));
}

paddr_t kpt_root(void)
{
	return kpt_root_pa;
}

paddr_t kpt_trampoline_root(void)
{
	return kpt_tramp_pa;
}

void kpt_trampoline_free(void)
{
	struct pt_gather g;

	if (!kpt_tramp_pa)
		return;
	pt_gather_init(&g, NULL, NULL);
	pt_unmap(kpt_tramp_pa, 0, PT_PAGE_2M, &g);
	pt_gather_finish(&g);
	pt_root_free(kpt_tramp_pa);
	kpt_tramp_pa = 0;
}

/* later additions */

void *kpt_map_mmio(paddr_t pa, u64 len)
{
	paddr_t base = ALIGN_DOWN(pa, PAGE_SIZE);
	u64 size = ALIGN_UP(pa + len, PAGE_SIZE) - base;
	vaddr_t va;
	int err = -ENOSPC;

	if (!len || pa + len < pa || !kpt_root_pa)
		return NULL;
	spin_lock(&kpt_lock);
	va = MMIO_AREA_BASE + kpt_mmio_used;
	if (size <= MMIO_AREA_SIZE - kpt_mmio_used)
		err = pt_map(kpt_root_pa, va, base, size,
			     PROT_READ | PROT_WRITE | PROT_NOCACHE | PROT_GLOBAL, PT_PAGE_4K);
	if (!err) {
		kpt_mmio_used += size;
		kpt_st.mmio_bytes += size;
	}
	spin_unlock(&kpt_lock);
	return err ? NULL : (void *)(va + (pa - base));
}

static bool kpt_map_firmware_page(paddr_t pa)
{
	vaddr_t va = DIRECT_MAP_BASE + pa;

	if (!pt_lookup(kpt_root_pa, va, NULL, NULL, NULL))
		return true;
	if (pt_map(kpt_root_pa, va, pa, PAGE_SIZE, PROT_READ | PROT_GLOBAL, PT_PAGE_4K))
		return false;
	kpt_st.firmware_4k++;
	return true;
}

bool kpt_map_firmware(paddr_t pa, u64 len)
{
	paddr_t p = ALIGN_DOWN(pa, PAGE_SIZE);
	bool ok = true;

	if (!len || pa + len < pa || pa + len > DIRECT_MAP_MAX_BYTES)
		return false;
	if (!kpt_root_pa) /* still on the boot tables */
		return pa + len <= BOOT_MAP_BYTES;
	spin_lock(&kpt_lock);
	for (; ok && p < pa + len; p += PAGE_SIZE)
		ok = kpt_map_firmware_page(p);
	spin_unlock(&kpt_lock);
	return ok;
}

void kpt_stats_get(struct kpt_stats *s)
{
	spin_lock(&kpt_lock);
	*s = kpt_st;
	spin_unlock(&kpt_lock);
}
