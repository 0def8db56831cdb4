/*
 * The memmap and the direct-map base (see mm/page.h). The memmap variables
 * are written once by pmm_init() before other CPUs run and only read
 * afterwards. Pin accounting on struct page is mm/pin/page_pin.c's: it frees a
 * page whose last reference a pin held, so it sits above the frame
 * allocator, which this file sits below.
 */
#include "mm/page.h"

struct page *mm_memmap;
u64 mm_memmap_start_pfn, mm_memmap_end_pfn;
vaddr_t mm_direct_map_base = ARCH_DIRECT_MAP_BASE;

void page_memmap_init(void *storage, u64 start_pfn, u64 end_pfn)
{
	u64 i;

	mm_memmap = storage;
	mm_memmap_start_pfn = start_pfn;
	mm_memmap_end_pfn = end_pfn;
	for (i = 0; i < end_pfn - start_pfn; i++)
		mm_memmap[i] = (struct page){ .flags = PG_RESERVED };
}
