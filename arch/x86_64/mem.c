/*
 * Turns the boot memory map into the frame allocator's configuration and
 * grows the boot direct map (low 4 GiB, boot/entry.S) to all usable RAM,
 * with 1 GiB pages where the CPU has them and the range allows, else 2 MiB.
 * Page-table pages for that come from below 4 GiB (pmm's direct_limit), so
 * they are reachable while the map grows. Boot CPU, before any AP.
 */
#include "arch/x86_64/mem.h"
#include "arch/x86_64/cpuinfo.h"
#include "boot/bootinfo.h"
#include "errno.h"
#include "lib/format.h"
#include "mm/kstack.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include <arch/cpu.h>
#include <arch/layout.h>

#define LOW_RESERVED 0x100000 /* real-mode IVT, BIOS data, EBDA, ROMs, the AP trampoline */

extern const char __image_start_phys[], __image_bss_end_phys[];

static struct pmm_range usable[PMM_MAX_USABLE];
static struct pmm_range reserved[PMM_MAX_RESERVED];

static unsigned collect_usable(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < boot_info.nmem && n < PMM_MAX_USABLE; i++) {
		const struct boot_mem_region *r = &boot_info.mem[i];

		if (r->type == BOOT_MEM_USABLE)
			usable[n++] = (struct pmm_range){ r->base, r->base + r->len };
	}
	return n;
}

static unsigned collect_reserved(void)
{
	unsigned n = 0;

	reserved[n++] = (struct pmm_range){ 0, LOW_RESERVED };
	reserved[n++] = (struct pmm_range){ (paddr_t)(uintptr_t)__image_start_phys,
					    (paddr_t)(uintptr_t)__image_bss_end_phys };
	for (unsigned i = 0; i < boot_info.nmods && n < PMM_MAX_RESERVED; i++)
		reserved[n++] = (struct pmm_range){ boot_info.mods[i].start, boot_info.mods[i].end };
	return n;
}

/* Maps [start, end) (2 MiB aligned) into the direct map with the largest pages that fit. */
static int direct_map_range(paddr_t root, paddr_t start, paddr_t end)
{
	while (start < end) {
		u64 size = PT_PAGE_2M;
		int err;

		if (cpuinfo.pdpe1gb && IS_ALIGNED(start, PT_PAGE_1G) && end - start >= PT_PAGE_1G)
			size = PT_PAGE_1G;
		err = pt_map(root, DIRECT_MAP_BASE + start, start, size,
			     PROT_READ | PROT_WRITE | PROT_GLOBAL, size);
		if (err)
			return err;
		start += size;
	}
	return 0;
}

/* Every usable range above the boot map, widened to 2 MiB, without overlaps. */
static int direct_map_high(paddr_t root, unsigned nusable, u64 *bytes)
{
	paddr_t done = BOOT_MAP_BYTES;

	*bytes = 0;
	for (unsigned i = 0; i < nusable; i++) {
		paddr_t lo = MAX(ALIGN_DOWN(usable[i].start, PT_PAGE_2M), done);
		paddr_t hi = ALIGN_UP(usable[i].end, PT_PAGE_2M);
		int err;

		if (hi <= lo)
			continue;
		err = direct_map_range(root, lo, hi);
		if (err)
			return err;
		*bytes += hi - lo;
		done = hi;
	}
	return 0;
}

static void sort_usable(unsigned n)
{
	for (unsigned i = 1; i < n; i++) {
		struct pmm_range r = usable[i];
		unsigned k = i;

		for (; k > 0 && usable[k - 1].start > r.start; k--)
			usable[k] = usable[k - 1];
		usable[k] = r;
	}
}

int mem_boot_init(struct mem_boot_stats *st, char *err, size_t errlen)
{
	unsigned nusable = collect_usable();
	struct pmm_config cfg = {
		.usable = usable,
		.nusable = nusable,
		.reserved = reserved,
		.nreserved = collect_reserved(),
		.direct_limit = BOOT_MAP_BYTES,
	};
	paddr_t root = read_cr3() & ~0xfffull;
	int rc;

	pt_nx_enabled = cpuinfo.nx;
	sort_usable(nusable);
	st->ram_bytes = bootinfo_usable_bytes(&boot_info);
	rc = pmm_init(&cfg);
	if (rc) {
		fmt_snprintf(err, errlen, "frame allocator: pmm_init failed (%s)", errno_name(rc));
		return rc;
	}
	/* The boot tables were built by boot/entry.S: let pt_ learn their entry counts. */
	rc = pt_root_adopt(root);
	if (rc) {
		fmt_snprintf(err, errlen, "adopting the boot page tables: %s", errno_name(rc));
		return rc;
	}
	rc = direct_map_high(root, nusable, &st->direct_map_bytes);
	if (rc) {
		fmt_snprintf(err, errlen, "direct map above 4 GiB: %s", errno_name(rc));
		return rc;
	}
	st->high_frames = pmm_release_high();
	kstack_init(root);
	return 0;
}
