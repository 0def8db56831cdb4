/*
 * The gather (mm/pt_gather.c): what an unmap removed, held until the TLB
 * flush that covers it, then freed or handed to its owner.
 */
#ifndef MM_PT_GATHER_H
#define MM_PT_GATHER_H

#include "mm/pt_types.h"
#include <arch/mmu.h>

void pt_gather_init(struct pt_gather *g, pt_flush_fn *flush, void *arg);

/*
 * Flushes what @g gathered (if anything), then frees its table pages and
 * hands its frames to @g->release, and leaves @g empty for reuse. If the
 * flush did not complete (it set g->err), the tables and frames go to the
 * quarantine instead (mm/quarantine.h): never freed, never reused. The
 * caller must hold nothing the flush needs (IPIs are sent with interrupts on).
 */
void pt_gather_finish(struct pt_gather *g);

/*
 * pt_gather_finish() from inside an unmap's walk (a pt_leaf_fn, or the
 * gather itself when full): drops g->lock around the flush, and keeps the
 * batch pages @g grew into for the rest of the walk.
 */
void pt_gather_cut(struct pt_gather *g);

/* Frame @i (0 .. g->nr_pages - 1) that @g holds, in the order gathered. */
struct page *pt_gather_page_at(const struct pt_gather *g, unsigned i);

/*
 * Every frame @g holds, in the order gathered, into @out (room for
 * g->nr_pages): one pass over its batches, where pt_gather_page_at() for
 * each index walks them from the first again.
 */
void pt_gather_copy_pages(const struct pt_gather *g, struct page **out);

/* For mm/pt*.c only (mm/pt.c, mm/pt_leaf.c and the designs' gathers). */

/* Widens @g's flush range to [start, last] (mm/pt_gather.c). */
void pt_gather_range(struct pt_gather *g, vaddr_t start, vaddr_t last, bool global);

/* Queues table page @p, unlinked, to be freed after @g's flush (flushing first if @g is full). */
void pt_gather_table(struct pt_gather *g, struct page *p);

/* Queues the frame removed 4 KiB leaf @old mapped for g->release; its range is gathered already. */
void pt_gather_page(struct pt_gather *g, pte_t old);

/* Queues swap entry @swp, removed from the page at @va, for g->swap_free. */
void pt_gather_swap(struct pt_gather *g, vaddr_t va, u64 swp);

/* Hands the pending run of swap entries to g->swap_free. */
void pt_gather_swaps_flush(struct pt_gather *g);

#endif
