/*
 * Turning the machine's description into the kernel's memory: the frame
 * allocator, the kernel map (mm/kernel_map.c), the stack area (mm/kstack.c)
 * and mm_init(). Arch only describes (struct machine_desc) and loads what
 * comes back (struct machine_kmap); kernel/main.c calls the steps in order.
 * Boot CPU, before any AP.
 */
#include "mm/boot_mem.h"
#include "errno.h"
#include "kernel/cpumask.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "lib/format.h"
#include "lib/string.h"
#include "mm/fault.h"
#include "mm/kernel_map.h"
#include "mm/kstack.h"
#include "mm/mm.h"
#include "mm/pmm.h"
#include "mm/pt.h"

BUILD_ASSERT(MACHINE_MAX_RANGES <= PMM_MAX_USABLE);
BUILD_ASSERT(MACHINE_MAX_RESERVED <= PMM_MAX_RESERVED);

static struct pmm_range boot_usable[MACHINE_MAX_RANGES];
static struct pmm_range boot_reserved[MACHINE_MAX_RESERVED];
static struct pmm_node_range boot_nodes[MACHINE_MAX_NODE_RANGES];

BUILD_ASSERT(MACHINE_MAX_NODE_RANGES <= PMM_MAX_NODE_RANGES);

static unsigned copy_node_ranges(const struct machine_desc *d)
{
	unsigned n = MIN(d->nnode_mem, (unsigned)MACHINE_MAX_NODE_RANGES);

	for (unsigned i = 0; i < n; i++)
		boot_nodes[i] = (struct pmm_node_range){ d->node_mem[i].start, d->node_mem[i].end,
							 d->node_mem[i].node };
	return n;
}

static unsigned copy_ranges(struct pmm_range *to, const struct machine_range *from, unsigned n,
			    unsigned max)
{
	n = MIN(n, max);
	for (unsigned i = 0; i < n; i++)
		to[i] = (struct pmm_range){ from[i].start, from[i].end };
	return n;
}

static int boot_pmm(const struct machine_desc *d, char *err, size_t errlen)
{
	struct pmm_config cfg = {
		.usable = boot_usable,
		.nusable = copy_ranges(boot_usable, d->usable, d->nusable, MACHINE_MAX_RANGES),
		.reserved = boot_reserved,
		.nreserved = copy_ranges(boot_reserved, d->reserved, d->nreserved,
					 MACHINE_MAX_RESERVED),
		.direct_limit = d->boot_map_limit,
		.node_ranges = boot_nodes,
		.nnode_ranges = copy_node_ranges(d),
		.nnodes = d->nnodes,
	};
	int rc = pmm_init(&cfg);

	if (rc)
		fmt_snprintf(err, errlen, "frame allocator: pmm_init failed (%s)", errno_name(rc));
	return rc;
}

int mm_boot_build(const struct machine_desc *d, struct machine_kmap *km, char *err,
		  size_t errlen)
{
	int rc = boot_pmm(d, err, errlen);

	if (rc)
		return rc;
	/* Before the first mapping: every leaf made from now on carries NX as the MMU allows. */
	pt_nx_enabled = d->nx;
	rc = kmap_build(d, err, errlen);
	if (rc)
		return rc;
	mm_init(kmap_root(), d->nasids);
	fault_init(); /* the arch's #PF handler reaches mm/fault.c through this hook */
	*km = (struct machine_kmap){
		.root = kmap_root(),
		.ap_root = kmap_ap_root(),
		.asids = d->nasids != 0,
		.map_mmio = kmap_map_mmio,
		.map_firmware = kmap_map_firmware,
	};
	return 0;
}

/*
 * Per-CPU data copies (kernel/percpu.h) for CPUs 1 to @n - 1, packed into
 * blocks of whole pages. A CPU left without one (no memory) is left out of
 * bring-up, as one without stacks is (arch's smpboot checks both).
 */
static void boot_percpu_data(unsigned n)
{
	size_t size = percpu_data_size();
	unsigned order = 0, per_block;

	if (!size)
		return;
	while ((PAGE_SIZE << order) < size)
		order++;
	per_block = (unsigned)((PAGE_SIZE << order) / size);
	for (unsigned cpu = 1; cpu < n; cpu += per_block) {
		struct page *p = page_alloc(order, 0);
		char *block;

		if (!p)
			return;
		block = page_address(p);
		memset(block, 0, PAGE_SIZE << order);
		for (unsigned j = 0; j < per_block && cpu + j < n; j++)
			percpu_data_place(cpu + j, block + j * size);
	}
}

int mm_boot_stacks(const struct machine_desc *d, struct machine_kmap *km, char *err,
		   size_t errlen)
{
	unsigned n = MIN(MAX(d->ncpus, 1u), (unsigned)MAX_CPUS);
	int rc;

	pmm_release_high();
	rc = kstack_init(km->root, d->irq_stacks);
	if (rc) {
		fmt_snprintf(err, errlen, "%u interrupt stacks per CPU: a stack slot holds %u",
			     d->irq_stacks, MACHINE_MAX_IRQ_STACKS);
		return rc;
	}
	km->nstacks = 0;
	while (km->nstacks < n && !kstack_alloc_cpu(km->nstacks))
		km->nstacks++;
	boot_percpu_data(km->nstacks);
	kstack_tops(0, &km->stack0);
	km->stack_stride = kstack_top(1) - kstack_top(0);
	if (!km->nstacks) {
		fmt_snprintf(err, errlen, "no memory for the boot CPU's stacks");
		return -ENOMEM;
	}
	return 0;
}

void mm_boot_done(struct machine_kmap *km)
{
	struct pmm_stats ps;
	struct kmap_stats ks;

	kmap_ap_root_free();
	km->ap_root = 0;
	pmm_stats_get(&ps);
	kmap_stats_get(&ks);
	printk("# mm: %lu frames in use (%lu KiB) of %lu managed, memmap %lu frames; "
	       "%lu page-table pages; direct map %lu MiB (%lu MiB in 1 GiB pages), "
	       "uncached %lu MiB; pcid %s\n",
	       ps.allocated, ps.allocated * (PAGE_SIZE / 1024), ps.managed, ps.memmap_frames,
	       pt_table_pages(), ks.direct_bytes >> 20, ks.direct_1g >> 20, ks.mmio_bytes >> 20,
	       km->asids ? "on" : "off");
}
