/*
 * The unmap gather (see mm/pt.h): what an unmap leaves behind, the range
 * to flush and the table pages, frames and swap entries to hand on once
 * that flush is done, and the flush itself (the caller's, or this CPU's).
 * mm/pt.c adds to it as it clears entries.
 */
#include "mm/pt.h"
#include "mm/page.h"
#include "mm/pt_internal.h"
#include "mm/quarantine.h"
#include "mm/tlb.h"

void pt_gather_init(struct pt_gather *g, pt_flush_fn *flush, void *arg)
{
	g->start = ~0ull;
	g->last = 0;
	g->global = false;
	g->nr_tables = g->nr_pages = 0;
	g->unmapped = g->swap_cleared = g->flushes = 0;
	g->err = 0;
	g->flush = flush;
	g->arg = arg;
	g->lock = NULL;
	g->release = NULL;
	g->swap_free = NULL;
	g->nr_swaps = 0;
	g->swap_next = 0;
}

static void pt_flush_local(struct pt_gather *g)
{
	tlb_flush_local(g->start, g->last, g->global);
}

/* Hands the pending run of swap entries to g->swap_free. */
void pt_gather_swaps_flush(struct pt_gather *g)
{
	if (g->nr_swaps)
		g->swap_free(g, g->swaps, g->nr_swaps);
	g->nr_swaps = 0;
}

/*
 * Flushes what @g gathered, if anything; true when the flush did not
 * complete (g->err keeps the first error over the gather's life).
 */
static bool pt_gather_flush(struct pt_gather *g)
{
	int before = g->err;
	bool failed;

	if (g->start > g->last && !g->nr_tables)
		return false;
	g->err = 0;
	(g->flush ? g->flush : pt_flush_local)(g);
	g->flushes++;
	failed = g->err != 0;
	if (before)
		g->err = before;
	if (failed)
		quarantine_count_flush();
	return failed;
}

void pt_gather_finish(struct pt_gather *g)
{
	bool failed = pt_gather_flush(g);
	unsigned i;

	/* A CPU that missed the flush may still translate to these: never reuse them. */
	for (i = 0; i < g->nr_tables; i++) {
		if (failed)
			quarantine_table(g->tables[i]);
		else
			pt_table_free(g->tables[i]);
	}
	for (i = 0; i < g->nr_pages; i++) {
		if (failed)
			quarantine_frame(g->pages[i]);
		else
			g->release(g, g->pages[i]);
	}
	g->nr_tables = g->nr_pages = 0;
	g->start = ~0ull;
	g->last = 0;
	g->global = false;
}

void pt_gather_range(struct pt_gather *g, vaddr_t start, vaddr_t last, bool global)
{
	g->start = MIN(g->start, start);
	g->last = MAX(g->last, last);
	g->global |= global;
}

/*
 * A full gather flushes in the middle of an unmap. The flush waits for
 * other CPUs, so the caller's g->lock is dropped around it: a CPU spinning
 * on that lock with interrupts off would never answer (mm/pt.h).
 */
static void pt_gather_finish_midwalk(struct pt_gather *g)
{
	if (g->lock)
		spin_unlock(g->lock);
	pt_gather_finish(g);
	if (g->lock)
		spin_lock(g->lock);
}

void pt_gather_table(struct pt_gather *g, struct page *p)
{
	if (g->nr_tables == PT_GATHER_MAX)
		pt_gather_finish_midwalk(g);
	g->tables[g->nr_tables++] = p;
}

/* The frame a removed 4 KiB leaf @old mapped, for g->release; its range is gathered already. */
void pt_gather_page(struct pt_gather *g, pte_t old)
{
	u64 pfn = pte_addr(old, 1) >> PAGE_SHIFT;

	if (!g->release || !pfn_valid(pfn))
		return;
	/*
	 * Flush when a page does not fit, not when the batch becomes full: a
	 * table emptied by this last page then still joins this batch, and an
	 * unmap of n * PT_GATHER_PAGES pages costs exactly n flush rounds.
	 */
	if (g->nr_pages == PT_GATHER_PAGES)
		pt_gather_finish_midwalk(g);
	g->pages[g->nr_pages++] = pfn_to_page(pfn);
}

/*
 * Swap entry @swp, removed from the page at @va, for g->swap_free. A run
 * ends at a gap and at each PT_GATHER_SWAPS-page boundary, so aligned folios
 * stay whole; that boundary also ends every level-1 table, and a run of
 * consecutive pages reaches it before it could overflow the buffer.
 */
void pt_gather_swap(struct pt_gather *g, vaddr_t va, u64 swp)
{
	if (!g->swap_free)
		return;
	if (g->nr_swaps && (va != g->swap_next || IS_ALIGNED(va, PT_GATHER_SWAPS * PT_PAGE_4K)))
		pt_gather_swaps_flush(g);
	g->swaps[g->nr_swaps++] = swp;
	g->swap_next = va + PT_PAGE_4K;
}
