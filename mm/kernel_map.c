/*
 * The kernel's own page tables, built from the machine's description by
 * kmap_build() while the boot tables are loaded; loading the root is arch's
 * (struct machine_kmap). Kernel-half mappings are only added, never removed,
 * so no kernel table is freed while an address-space identifier caches it.
 * Locking: kmap_lock serialises additions after boot; kmap_build() runs on
 * the boot CPU before any AP.
 */
#include "mm/kernel_map.h"
#include "errno.h"
#include "kernel/spinlock.h"
#include "lib/format.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include <arch/mmu.h>

static const struct machine_desc *kmap_desc;
static paddr_t kmap_root_pa, kmap_ap_root_pa;
static spinlock_t kmap_lock = SPINLOCK_INIT("kmap");
static u64 kmap_mmio_used;
static struct kmap_stats kmap_st;
/* RAM ranges for the direct map, 2 MiB aligned, sorted, merged. */
static struct pmm_range kmap_ram[MACHINE_MAX_RANGES + 1];

/* the direct map */

static void kmap_ram_sort_merge(unsigned *n)
{
	unsigned i, k = 0;

	for (i = 1; i < *n; i++) {
		struct pmm_range r = kmap_ram[i];
		unsigned j = i;

		for (; j > 0 && kmap_ram[j - 1].start > r.start; j--)
			kmap_ram[j] = kmap_ram[j - 1];
		kmap_ram[j] = r;
	}
	for (i = 0; i < *n; i++) {
		if (k > 0 && kmap_ram[i].start <= kmap_ram[k - 1].end)
			kmap_ram[k - 1].end = MAX(kmap_ram[k - 1].end, kmap_ram[i].end);
		else
			kmap_ram[k++] = kmap_ram[i];
	}
	*n = k;
}

/* The description's RAM inside the direct map's reach, widened to 2 MiB. */
static unsigned kmap_collect_ram(const struct machine_desc *d)
{
	unsigned n = 0;

	for (unsigned i = 0; i < d->nram && i < ARRAY_SIZE(kmap_ram); i++) {
		paddr_t end = MIN(d->ram[i].end, ARCH_DIRECT_MAP_MAX_BYTES);

		if (d->ram[i].start >= end)
			continue;
		kmap_ram[n++] = (struct pmm_range){ ALIGN_DOWN(d->ram[i].start, PT_PAGE_2M),
						    ALIGN_UP(end, PT_PAGE_2M) };
	}
	kmap_ram_sort_merge(&n);
	return n;
}

/* Where a run of pages of one size starting at @s ends, inside [s, e). */
static paddr_t kmap_direct_run(paddr_t s, paddr_t e, u64 *size)
{
	bool huge = kmap_desc->huge_1g;

	if (huge && IS_ALIGNED(s, PT_PAGE_1G) && e - s >= PT_PAGE_1G) {
		*size = PT_PAGE_1G;
		return s + ALIGN_DOWN(e - s, PT_PAGE_1G);
	}
	*size = PT_PAGE_2M;
	/* Only up to the next 1 GiB boundary, where 1 GiB pages may start. */
	if (huge)
		return MIN(e, ALIGN_DOWN(s, PT_PAGE_1G) + PT_PAGE_1G);
	return e;
}

/* Maps [s, e) (2 MiB aligned) at ARCH_DIRECT_MAP_BASE + s with the largest pages that fit. */
static int kmap_map_direct(paddr_t s, paddr_t e, unsigned prot)
{
	while (s < e) {
		u64 size;
		paddr_t stop = kmap_direct_run(s, e, &size);
		int err = pt_map(kmap_root_pa, ARCH_DIRECT_MAP_BASE + s, s, stop - s, prot, size);

		if (err)
			return err;
		if (prot & PROT_NOCACHE)
			kmap_st.mmio_bytes += stop - s;
		else if (size == PT_PAGE_1G)
			kmap_st.direct_1g += stop - s;
		else
			kmap_st.direct_2m += stop - s;
		s = stop;
	}
	return 0;
}

/* RAM write-back; below uncached_gaps_below, the gaps between it uncached. */
static int kmap_build_direct(void)
{
	const unsigned gap_prot = PROT_READ | PROT_WRITE | PROT_NOCACHE | PROT_GLOBAL;
	paddr_t low = kmap_desc->uncached_gaps_below, done = 0;
	unsigned n = kmap_collect_ram(kmap_desc);
	int err = 0;

	for (unsigned i = 0; !err && i < n; i++) {
		if (done < MIN(kmap_ram[i].start, low))
			err = kmap_map_direct(done, MIN(kmap_ram[i].start, low), gap_prot);
		if (!err)
			err = kmap_map_direct(kmap_ram[i].start, kmap_ram[i].end,
					      PROT_READ | PROT_WRITE | PROT_GLOBAL);
		kmap_st.direct_bytes += kmap_ram[i].end - kmap_ram[i].start;
		done = kmap_ram[i].end;
	}
	if (!err && done < low)
		err = kmap_map_direct(done, low, gap_prot);
	return err;
}

/* the image and the rest of the root */

static unsigned kmap_section_prot(unsigned access)
{
	unsigned prot = PROT_READ | PROT_GLOBAL;

	if (access & MACHINE_SEC_WRITE)
		prot |= PROT_WRITE;
	if (access & MACHINE_SEC_EXEC)
		prot |= PROT_EXEC;
	return prot;
}

static int kmap_build_image(void)
{
	int err = 0;

	for (unsigned i = 0; !err && i < kmap_desc->nimage; i++) {
		const struct machine_section *s = &kmap_desc->image[i];

		err = pt_map(kmap_root_pa, s->start, s->start - kmap_desc->image_virt_offset,
			     s->end - s->start, kmap_section_prot(s->access), PT_PAGE_4K);
	}
	return err;
}

/*
 * The APs' first root: the kernel half plus low memory where it lies, for
 * the instructions that turn paging on and jump to the kernel half. It must
 * lie below ap_root_below; page_alloc() gives nothing above the boot map
 * before pmm_release_high(), so that holds when the boot map is lower.
 */
static int kmap_build_ap_root(void)
{
	u64 bytes = kmap_desc->ap_identity_bytes;
	int err;

	if (!bytes)
		return 0;
	err = pt_root_alloc(&kmap_ap_root_pa, kmap_root_pa);
	if (err)
		return err;
	if (kmap_ap_root_pa >= kmap_desc->ap_root_below)
		return -ENOMEM;
	return pt_map(kmap_ap_root_pa, 0, 0, bytes, PROT_READ | PROT_WRITE | PROT_EXEC, PT_PAGE_2M);
}

static int kmap_build_root(void)
{
	int err = pt_root_alloc(&kmap_root_pa, 0);

	if (err)
		return err;
	return pt_populate(kmap_root_pa, kmap_desc->kernel_half_base, kmap_desc->kernel_half_size,
			   PT_PAGE_1G);
}

/* The steps of kmap_build(), in order, and what each builds (for the error message). */
static const struct {
	const char *what;
	int (*build)(void);
} kmap_steps[] = {
	{ "root and kernel-half PDPTs", kmap_build_root },
	{ "image", kmap_build_image },
	{ "direct map", kmap_build_direct },
	{ "AP trampoline root", kmap_build_ap_root },
};

int kmap_build(const struct machine_desc *d, char *err, size_t errlen)
{
	kmap_desc = d;
	/* From scratch: host tests build more than one map. */
	kmap_root_pa = kmap_ap_root_pa = 0;
	kmap_mmio_used = 0;
	kmap_st = (struct kmap_stats){ 0 };
	for (unsigned i = 0; i < ARRAY_SIZE(kmap_steps); i++) {
		int rc = kmap_steps[i].build();

		if (rc) {
			fmt_snprintf(err, errlen, "kernel page tables: %s: %s", kmap_steps[i].what,
				     errno_name(rc));
			return rc;
		}
	}
	return 0;
}

paddr_t kmap_root(void)
{
	return kmap_root_pa;
}

paddr_t kmap_ap_root(void)
{
	return kmap_ap_root_pa;
}

void kmap_ap_root_free(void)
{
	struct pt_gather g;

	if (!kmap_ap_root_pa)
		return;
	pt_gather_init(&g, NULL, NULL);
	pt_unmap(kmap_ap_root_pa, 0, kmap_desc->ap_identity_bytes, &g);
	pt_gather_finish(&g);
	pt_root_free(kmap_ap_root_pa);
	kmap_ap_root_pa = 0;
}

/* later additions */

void *kmap_map_mmio(paddr_t pa, u64 len)
{
	paddr_t base = ALIGN_DOWN(pa, PAGE_SIZE);
	u64 size = ALIGN_UP(pa + len, PAGE_SIZE) - base;
	vaddr_t va;
	int err = -ENOSPC;

	if (!len || pa + len < pa || !kmap_root_pa)
		return NULL;
	spin_lock(&kmap_lock);
	va = MMIO_AREA_BASE + kmap_mmio_used;
	if (size <= MMIO_AREA_SIZE - kmap_mmio_used)
		err = pt_map(kmap_root_pa, va, base, size,
			     PROT_READ | PROT_WRITE | PROT_NOCACHE | PROT_GLOBAL, PT_PAGE_4K);
	if (!err) {
		kmap_mmio_used += size;
		kmap_st.mmio_bytes += size;
	}
	spin_unlock(&kmap_lock);
	return err ? NULL : (void *)(va + (pa - base));
}

static bool kmap_map_firmware_page(paddr_t pa)
{
	vaddr_t va = ARCH_DIRECT_MAP_BASE + pa;

	if (!pt_lookup(kmap_root_pa, va, NULL, NULL, NULL))
		return true;
	if (pt_map(kmap_root_pa, va, pa, PAGE_SIZE, PROT_READ | PROT_GLOBAL, PT_PAGE_4K))
		return false;
	kmap_st.firmware_4k++;
	return true;
}

bool kmap_map_firmware(paddr_t pa, u64 len)
{
	paddr_t p = ALIGN_DOWN(pa, PAGE_SIZE);
	bool ok = true;

	if (!len || pa + len < pa || pa + len > ARCH_DIRECT_MAP_MAX_BYTES)
		return false;
	if (!kmap_root_pa) /* still on the boot tables */
		return false;
	spin_lock(&kmap_lock);
	for (; ok && p < pa + len; p += PAGE_SIZE)
		ok = kmap_map_firmware_page(p);
	spin_unlock(&kmap_lock);
	return ok;
}

void kmap_stats_get(struct kmap_stats *s)
{
	spin_lock(&kmap_lock);
	*s = kmap_st;
	spin_unlock(&kmap_lock);
}
