/*
 * Page migration (mm/migrate.c): an address space's pages moved to frames
 * of another NUMA node, the old translations flushed through a TLB
 * design's gather (mm/tlb/tlb.h), batch by batch as Linux's migrate_pages().
 */
#ifndef MM_MIGRATE_H
#define MM_MIGRATE_H

#include "types.h"

struct mm;
struct tlb_ops;

/* Pages one gather takes before its flush: Linux's NR_MAX_BATCHED_MIGRATION is a 2 MiB folio's. */
#define MIGRATE_BATCH 32

struct migrate_counts {
	u64 moved;   /* pages now mapped to a frame of the destination node */
	u64 copies;  /* pages copied (one per page moved) */
	u64 flushes; /* flush rounds the gathers did */
};

/*
 * Moves the @npages 4 KiB pages mapped from @va in @mm to new frames of
 * node @dst_node (that node only, no fallback): for each, a frame
 * allocated there, the content copied, the leaf pointed at the new frame;
 * the old translation goes into the batch's gather, flushed @ops' way
 * (naive: before each next page; batched: once per MIGRATE_BATCH pages)
 * and the old frame freed after the flush covering it (by the design,
 * later, for one that defers). The copy is made before the switch, so no
 * CPU may write the range during the call; readers may, and see the same
 * values throughout. Task context, interrupts on; takes mm->lock's write
 * side per batch. Adds to *@out (may be NULL). Returns 0, -ENOMEM (the
 * node has no frame left: the pages moved so far stay moved), -EAGAIN (a
 * page is not mapped) or the flush's -ETIMEDOUT.
 */
int mm_migrate_range(struct mm *mm, vaddr_t va, unsigned npages, unsigned dst_node,
		     const struct tlb_ops *ops, struct migrate_counts *out);

#endif
