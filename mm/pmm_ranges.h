/*
 * The frame allocator's range tables (mm/pmm_ranges.c), for mm/pmm.c:
 * the usable and reserved physical ranges pmm_init() is given, kept as
 * sorted, merged pfn spans, the runs of frames that are usable and not
 * reserved, and the placement of the memmap among them.
 *
 * Locking: none; written by pmm_init() alone (boot, one CPU), read after.
 */
#ifndef MM_PMM_RANGES_H
#define MM_PMM_RANGES_H

#include "compiler.h"
#include "machine.h" /* MACHINE_MAX_NODES */
#include "types.h"

/* Bounds on the ranges pmm_init() accepts (the multiboot map has at most 256). */
#define PMM_MAX_USABLE 256
#define PMM_MAX_RESERVED 64

/* Largest block: 2^10 frames = 4 MiB, enough for a 2 MiB-aligned 2 MiB page. */
#define PMM_MAX_ORDER 10

/* A physical address range [start, end) in bytes. */
struct pmm_range {
	paddr_t start, end;
};

/* NUMA nodes the allocator keeps apart; PMM_NODE_NONE names none. */
#define PMM_MAX_NODES MACHINE_MAX_NODES
#define PMM_NODE_NONE (~0u)

/* Bounds on the node ranges pmm_init() accepts (one per SRAT memory entry). */
#define PMM_MAX_NODE_RANGES 64

/* A physical address range [start, end) whose frames belong to NUMA node @node. */
struct pmm_node_range {
	paddr_t start, end;
	unsigned node;
};

/* Walks runs of frames that are usable, not reserved, and inside a pfn window. */
struct pmm_iter {
	unsigned idx;
	u64 pfn;
};

/*
 * Replaces the tables with @usable (shrunk to whole frames) and @reserved
 * (grown to whole frames), each sorted and merged. The caller checks the
 * counts against the bounds. Returns the number of usable spans left.
 */
unsigned pmm_ranges_load(const struct pmm_range *usable, unsigned nusable,
			 const struct pmm_range *reserved, unsigned nreserved);

/* Next run [*s, *e) of free-able frames inside pfns [lo, hi); false when done. */
bool pmm_iter_next(struct pmm_iter *it, u64 lo, u64 hi, u64 *s, u64 *e);

/* Frames in the runs inside pfns [lo, hi). */
u64 pmm_count_runs(u64 lo, u64 hi);

/*
 * Puts the memmap in the first run below @limit_pfn that can hold it
 * (page_memmap_init()) and reserves its frames. Returns 0 with *@frames
 * set to their number, -ENOMEM when no run fits, or -EINVAL when the
 * reserved table is full.
 */
int pmm_memmap_place(u64 limit_pfn, u64 *frames);

/*
 * Node tables (mm/pmm_node.c). pmm_nodes_load() replaces the node ranges
 * with @r (frames named by their first byte's range; on overlap the
 * range starting lower wins) and returns the node count: @nnodes, or more
 * when a range names a higher node, at most PMM_MAX_NODES.
 */
unsigned pmm_nodes_load(const struct pmm_node_range *r, unsigned n, unsigned nnodes);

/*
 * The node of frame @pfn, with *@seg_end set to the first pfn after it
 * whose node may differ. A frame outside every range is node 0 and
 * *@listed false.
 */
unsigned pmm_pfn_node(u64 pfn, u64 *seg_end, bool *listed);

/*
 * The node to try after @prev when @home has no frame: the nearest node by
 * arch_node_distance() (node number breaks ties; without distances, number
 * order from @home on), or PMM_NODE_NONE after the last.
 */
unsigned pmm_node_next(unsigned home, unsigned prev, unsigned nnodes);

#endif
