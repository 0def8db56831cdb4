/*
 * Turns the boot memory map into the frame allocator's configuration, has
 * arch/x86_64/kpt.c build the kernel's page tables and switch to them, and
 * then frees the RAM above the boot map (4 GiB) that only the new direct
 * map reaches. Page-table pages for the new tables come from below 4 GiB
 * (pmm's direct_limit), reachable through the boot tables while they are
 * built. Boot CPU, before any AP.
 */
#include "arch/x86_64/mem.h"
#include "arch/x86_64/kpt.h"
#include "boot/bootinfo.h"
#include "errno.h"
#include "kernel/printk.h"
#include "lib/format.h"
#include "mm/pmm.h"
#include "mm/pt.h"
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

/*
 * The loader's information structure is kept too: with multiboot2 the RSDP
 * lives in it, and ACPI is parsed again (and the RSDP read by tests) after
 * the allocator hands out frames.
 */
static unsigned collect_reserved(void)
{
	unsigned n = 0;

	reserved[n++] = (struct pmm_range){ 0, LOW_RESERVED };
	reserved[n++] = (struct pmm_range){ (paddr_t)(uintptr_t)__image_start_phys,
					    (paddr_t)(uintptr_t)__image_bss_end_phys };
	if (boot_info.info_end > boot_info.info_start)
		reserved[n++] = (struct pmm_range){ boot_info.info_start, boot_info.info_end };
	for (unsigned i = 0; i < boot_info.nmods && n < PMM_MAX_RESERVED; i++)
		reserved[n++] = (struct pmm_range){ boot_info.mods[i].start, boot_info.mods[i].end };
	return n;
}

int mem_boot_init(struct mem_boot_stats *st, char *err, size_t errlen)
{
	struct pmm_config cfg = {
		.usable = usable,
		.nusable = collect_usable(),
		.reserved = reserved,
		.nreserved = collect_reserved(),
		.direct_limit = BOOT_MAP_BYTES,
	};
	int rc;

	st->ram_bytes = bootinfo_usable_bytes(&boot_info);
	rc = pmm_init(&cfg);
	if (rc) {
		fmt_snprintf(err, errlen, "frame allocator: pmm_init failed (%s)", errno_name(rc));
		return rc;
	}
	rc = kpt_init(err, errlen);
	if (rc)
		return rc;
	st->high_frames = pmm_release_high();
	return 0;
}

void mem_report(void)
{
	struct pmm_stats ps;
	struct kpt_stats ks;

	pmm_stats_get(&ps);
	kpt_stats_get(&ks);
	printk("# mm: %lu frames in use (%lu KiB) of %lu managed, memmap %lu frames; "
	       "%lu page-table pages; direct map %lu MiB (%lu MiB in 1 GiB pages), "
	       "uncached %lu MiB; pcid %s\n",
	       ps.allocated, ps.allocated * (PAGE_SIZE / 1024), ps.managed, ps.memmap_frames,
	       pt_table_pages(), ks.direct_bytes >> 20, ks.direct_1g >> 20, ks.mmio_bytes >> 20,
	       ks.pcid ? "on" : "off");
}
