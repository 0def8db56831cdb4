/*
 * The physical frame allocator: a binary buddy allocator over usable RAM with
 * a bounded per-CPU cache of order-0 frames in front. Bad frees (double,
 * never allocated, still mapped or pinned) are refused, counted and WARNed.
 * Lock order: cache lock, then zone lock, both with interrupts off, so
 * page_alloc() and page_free() work in any context.
 */
#ifndef MM_PMM_H
#define MM_PMM_H

#include "mm/page.h"
#include "mm/pmm_check.h"
#include "mm/pmm_ranges.h" /* struct pmm_range, PMM_MAX_ORDER, PMM_MAX_USABLE, ... */
#include "types.h"

/*
 * A per-CPU cache refills or drains PMM_PCP_BATCH frames per trip to the
 * zone lock, so order-0 traffic takes that lock once per 16 frames;
 * PMM_PCP_HIGH bounds the frames one CPU can strand (256 KiB) when it stops
 * freeing.
 */
#define PMM_PCP_BATCH 16
#define PMM_PCP_HIGH 64

/* page_alloc() flags */
#define PMM_ZERO (1u << 0)     /* fill the block with zeroes */
#define PMM_FALLBACK (1u << 1) /* page_alloc_node(): other nodes, nearest first, when it has none */

/* page_alloc_node()'s node: the calling CPU's (arch_cpu_node()). */
#define PMM_NODE_LOCAL (~0u - 1)


struct pmm_config {
	const struct pmm_range *usable; /* RAM the allocator may manage */
	unsigned nusable;
	const struct pmm_range *reserved; /* never handed out: image, modules, low 1 MiB, ... */
	unsigned nreserved;
	/*
	 * Highest address + 1 that phys_to_virt() reaches while pmm_init() runs
	 * (0: all of it). The memmap is placed below it, and frames above it are
	 * held back until pmm_release_high(), so every block handed out before
	 * then (page tables of the new direct map, say) is reachable.
	 */
	paddr_t direct_limit;
	/*
	 * NUMA: the node of each range of memory (none: everything is node
	 * 0), and how many nodes there are (0 or 1: one; nodes with CPUs and
	 * no memory count). Frames outside every range go to node 0, with a
	 * warning.
	 */
	const struct pmm_node_range *node_ranges;
	unsigned nnode_ranges;
	unsigned nnodes;
};

struct pmm_stats {
	u64 start_pfn, end_pfn;	       /* span of the memmap */
	u64 managed;		       /* frames given to the allocator */
	u64 held_back;		       /* frames above direct_limit not released yet */
	u64 memmap_frames;	       /* frames holding the memmap itself */
	u64 free;		       /* in buddy blocks and per-CPU caches */
	u64 pcp;		       /* of which in per-CPU caches */
	u64 allocated;		       /* managed - free */
	u64 blocks[PMM_MAX_ORDER + 1]; /* free buddy blocks of each order */
	u64 errors;		       /* bad page_free() calls refused */
	u64 failed;		       /* page_alloc() calls that returned NULL */
	u64 fallbacks;		       /* allocations served by a node other than the one asked */
	u64 unlisted;		       /* frames outside every node range (given to node 0) */
	unsigned nodes;
};

struct pmm_node_stats {
	u64 managed; /* frames of the node given to the allocator */
	u64 free;    /* in its buddy lists and in caches holding its frames */
	u64 pcp;     /* of which in per-CPU caches */
};

/*
 * Builds the memmap and frees every usable frame that no reserved range
 * covers into the buddy lists. Ranges need not be sorted or page aligned
 * (usable ones are shrunk to whole frames, reserved ones grown); overlaps
 * are merged. Call once at boot on one CPU with the direct map covering
 * [0, direct_limit); host tests may call it again to start over. Returns 0,
 * -EINVAL if there is no usable frame or too many ranges, or -ENOMEM if no
 * free run below direct_limit can hold the memmap.
 */
int pmm_init(const struct pmm_config *cfg);

/*
 * Frees the frames pmm_init() held back above direct_limit, once the direct
 * map covers all RAM. Returns the number of frames released.
 */
u64 pmm_release_high(void);

/*
 * Allocates 2^@order physically contiguous frames, aligned to their size,
 * with the head's refcount 1 and every frame's map and pin counts 0. Any
 * context. Returns the head page, or NULL when no block is free (after
 * draining every CPU's cache) or @order > PMM_MAX_ORDER.
 */
struct page *page_alloc(unsigned order, unsigned flags);

/*
 * page_alloc() from NUMA node @node (PMM_NODE_LOCAL: the calling CPU's).
 * Only @node's frames unless @flags has PMM_FALLBACK, which then tries the
 * other nodes nearest first and counts pmm_stats.fallbacks when one serves.
 * page_alloc() is page_alloc_node(PMM_NODE_LOCAL) with PMM_FALLBACK. Any
 * context. NULL when nothing fits or @node does not exist.
 */
struct page *page_alloc_node(unsigned order, unsigned flags, unsigned node);

/* The node of the calling CPU, as the allocator sees it (0 when beyond its nodes). */
unsigned pmm_local_node(void);

/* Nodes the allocator keeps (1 without node ranges). */
unsigned pmm_node_count(void);

/* Fills @s for @node; returns 0, or -EINVAL when there is no such node. */
int pmm_node_stats_get(unsigned node, struct pmm_node_stats *s);

/* The node the frame @p belongs to. */
static inline unsigned page_node(const struct page *p)
{
	return p->node;
}

/*
 * Returns the block of 2^@order frames headed by @page to the allocator.
 * Any context. Returns 0, -EINVAL if @page is not the head of an allocated
 * block of that order (double free, never allocated, a tail frame, a wrong
 * order), or -EBUSY if a frame of the block is still mapped or pinned. On
 * error the block is left as it was, and the error is counted and reported.
 */
int page_free(struct page *page, unsigned order);

/*
 * Frees @n order-0 frames whose last reference the caller dropped (each
 * refcount already 0, by page_ref_dec_and_test(), which makes the caller
 * the only one who may free it), with one trip to this CPU's cache lock
 * and at most one to the zone lock for all of them. Any context. Frames
 * page_free() would refuse (not an allocated order-0 head, still mapped or
 * pinned, or a refcount not 0) are refused the same way, counted and
 * reported, and left as they were. Reorders @pages. Returns the number freed.
 */
unsigned page_free_dropped(struct page **pages, unsigned n);

/*
 * Turns the allocated block headed by @head (refcount 1, unmapped) into
 * 2^order blocks of order 0, each with refcount 1, to be used and freed one
 * by one (device memory is set aside so). Returns 0 or -EINVAL.
 */
int page_split(struct page *head);

/* Returns every frame in @cpu's cache to the buddy lists. Any CPU, any time. */
void pmm_drain_cpu(unsigned cpu);

/* pmm_drain_cpu() for every CPU. */
void pmm_drain_all(void);

/*
 * Orders every free list by frame number, so what is handed out next
 * depends on which frames are free, not on the order they were freed in.
 * For a benchmark harness between runs (the lists are walked under the
 * allocator's lock); the allocator itself never sorts.
 */
void pmm_sort_free_lists(void);

/* Fills @s with a snapshot; counts taken from different CPUs' caches may be skewed. */
void pmm_stats_get(struct pmm_stats *s);

#endif
