/*
 * The machine's memory as x86-64 describes it to mm (struct machine_desc):
 * the loader's memory map split into usable, reserved and RAM-like ranges,
 * the image by section from the linker's symbols, what the boot tables
 * (boot/entry.S) reach, and the MMU's features from CPUID. Only facts: what
 * to build from them is mm/boot_mem.c's. Boot CPU, before any AP.
 */
#include "arch/x86_64/mem.h"
#include "arch/x86_64/cpuinfo.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/topology.h"
#include "boot/bootinfo.h"
#include "compiler.h"
#include <arch/layout.h>

#define LOW_RESERVED 0x100000 /* real-mode IVT, BIOS data, EBDA, ROMs, the AP trampoline */
#define KERNEL_HALF_BASE 0xffff800000000000ul
#define KERNEL_HALF_SIZE (1ul << 47)
#define FOUR_GIB 0x100000000ul
/* The APs' first root maps the trampoline's page where it sits, with one 2 MiB page. */
#define AP_IDENTITY_BYTES 0x200000ul
/* PCIDs besides 0 (CPUID.1:ECX[17]; CR3[11:0] holds 12 bits). */
#define X86_PCIDS 4095

BUILD_ASSERT(IST_COUNT <= MACHINE_MAX_IRQ_STACKS);

extern const char __text_start[], __rodata_start[], __data_start[], __bss_end[];
extern const char __image_start_phys[], __image_bss_end_phys[];

static void add_range(struct machine_range *tab, unsigned *n, unsigned max, paddr_t s, paddr_t e)
{
	if (*n < max)
		tab[(*n)++] = (struct machine_range){ s, e };
}

static bool is_ram_like(u32 type)
{
	return type == BOOT_MEM_USABLE || type == BOOT_MEM_ACPI_RECLAIM ||
	       type == BOOT_MEM_ACPI_NVS;
}

/* Usable RAM for the allocator, and RAM-like memory (firmware tables too) for the direct map. */
static void describe_ram(struct machine_desc *d)
{
	/* Real-mode memory, the EBDA, the BIOS area and the AP trampoline. */
	add_range(d->ram, &d->nram, ARRAY_SIZE(d->ram), 0, LOW_RESERVED);
	for (unsigned i = 0; i < boot_info.nmem; i++) {
		const struct boot_mem_region *r = &boot_info.mem[i];

		if (r->type == BOOT_MEM_USABLE)
			add_range(d->usable, &d->nusable, ARRAY_SIZE(d->usable), r->base,
				  r->base + r->len);
		if (is_ram_like(r->type))
			add_range(d->ram, &d->nram, ARRAY_SIZE(d->ram), r->base, r->base + r->len);
	}
}

/*
 * The loader's information structure is kept too: with multiboot2 the RSDP
 * lives in it, and ACPI is parsed again (and the RSDP read by tests) after
 * the allocator hands out frames.
 */
static void describe_reserved(struct machine_desc *d)
{
	const unsigned max = ARRAY_SIZE(d->reserved);

	add_range(d->reserved, &d->nreserved, max, 0, LOW_RESERVED);
	add_range(d->reserved, &d->nreserved, max, (paddr_t)(uintptr_t)__image_start_phys,
		  (paddr_t)(uintptr_t)__image_bss_end_phys);
	if (boot_info.info_end > boot_info.info_start)
		add_range(d->reserved, &d->nreserved, max, boot_info.info_start,
			  boot_info.info_end);
	for (unsigned i = 0; i < boot_info.nmods; i++)
		add_range(d->reserved, &d->nreserved, max, boot_info.mods[i].start,
			  boot_info.mods[i].end);
}

/* Text read-execute, rodata read-only, data and bss read-write (linker.ld's order). */
static void describe_image(struct machine_desc *d)
{
	static const struct {
		const char *start, *end;
		unsigned access;
	} sec[] = {
		{ __text_start, __rodata_start, MACHINE_SEC_EXEC },
		{ __rodata_start, __data_start, 0 },
		{ __data_start, __bss_end, MACHINE_SEC_WRITE },
	};

	BUILD_ASSERT(ARRAY_SIZE(sec) <= MACHINE_MAX_SECTIONS);
	for (unsigned i = 0; i < ARRAY_SIZE(sec); i++)
		d->image[i] = (struct machine_section){ (vaddr_t)(uintptr_t)sec[i].start,
							(vaddr_t)(uintptr_t)sec[i].end,
							sec[i].access };
	d->nimage = ARRAY_SIZE(sec);
	d->image_virt_offset = KERNEL_VIRT_BASE;
}

/* The SRAT's memory ranges by node (none without a SRAT: all of it is node 0). */
static void describe_nodes(struct machine_desc *d)
{
	const struct acpi_numa_info *n = topology_numa();

	d->nnodes = n->nnodes;
	for (u32 i = 0; i < n->nmem && d->nnode_mem < ARRAY_SIZE(d->node_mem); i++)
		d->node_mem[d->nnode_mem++] = (struct machine_node_range){ n->mem[i].base,
									   n->mem[i].end,
									   n->mem[i].node };
}

void mem_describe(struct machine_desc *d, unsigned ncpus)
{
	*d = (struct machine_desc){
		/* The boot tables map all of it: the gaps are device registers and firmware. */
		.uncached_gaps_below = FOUR_GIB,
		.boot_map_limit = BOOT_MAP_BYTES,
		.kernel_half_base = KERNEL_HALF_BASE,
		.kernel_half_size = KERNEL_HALF_SIZE,
		.ap_identity_bytes = AP_IDENTITY_BYTES,
		/* ap_start.S loads CR3 in 32-bit mode. */
		.ap_root_below = FOUR_GIB,
		.huge_1g = cpuinfo.pdpe1gb,
		.nx = cpuinfo.nx,
		.nasids = cpuinfo.pcid ? X86_PCIDS : 0,
		.ncpus = ncpus,
		.irq_stacks = IST_COUNT,
	};
	describe_ram(d);
	describe_reserved(d);
	describe_image(d);
	describe_nodes(d);
}
