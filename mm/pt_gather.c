/*
 * The unmap gather (see mm/pt.h): the range to flush, the table pages, frames
 * and swap entries to hand on once that flush is done, and the flush itself.
 * mm/pt.c adds to it as it clears entries. Frames spill from the gather's
 * own array into batch pages it allocates, up to PT_GATHER_PAGES, kept
 * across the flushes of one walk and freed at pt_gather_finish().
 */
#include "mm/pt_gather.h"
#include "mm/pt_root.h"
#include "kernel/panic.h"
#include "lib/string.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt_entry.h"
#include "mm/quarantine.h"
#include "mm/tlb/tlb.h"
#include "torture_hook.h"

struct pt_gather_batch {
	struct pt_gather_batch *next;
	unsigned long nr;
	struct page *pages[PT_GATHER_BATCH];
};
BUILD_ASSERT(sizeof(struct pt_gather_batch) == PT_PAGE_4K);
/* The storage reaches the bound: the local array and at most 16 batch pages. */
BUILD_ASSERT(PT_GATHER_LOCAL + 16 * PT_GATHER_BATCH >= PT_GATHER_PAGES);
/* The tables a bound's worth of contiguous pages empties fit (mm/pt.h). */
BUILD_ASSERT(PT_GATHER_PAGES / 512 + 2 + 2 * (PT_LEVELS - 1) <= PT_GATHER_MAX);

void pt_gather_init(struct pt_gather *g, pt_flush_fn *flush, void *arg)
{
	g->start = ~0ull;
	g->last = 0;
	g->global = false;
	g->nr_tables = g->nr_pages = 0;
	g->batches = g->cur = NULL;
	g->leaf = NULL;
	g->keep_upper = false;
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
	arch_pt_publish();
	(g->flush ? g->flush : pt_flush_local)(g);
	g->flushes++;
	failed = g->err != 0;
	if (before)
		g->err = before;
	if (failed)
		quarantine_count_flush();
	return failed;
}

/* Hands @n frames at @pages to g->release, or to the quarantine when their flush failed. */
static void pt_gather_release(struct pt_gather *g, struct page **pages, unsigned n, bool failed)
{
	unsigned i;

	if (!n)
		return;
	if (!failed) {
		g->release(g, pages, n);
		return;
	}
	for (i = 0; i < n; i++)
		quarantine_frame(pages[i]);
}

/* Flushes, then frees the tables and releases the frames; @g is empty after, its batches kept. */
static void pt_gather_drain(struct pt_gather *g)
{
	bool failed = pt_gather_flush(g);
	unsigned i, left = g->nr_pages - MIN(g->nr_pages, PT_GATHER_LOCAL);
	struct pt_gather_batch *b;

	/* A CPU that missed the flush may still translate to these: never reuse them. */
	for (i = 0; i < g->nr_tables; i++) {
		if (failed)
			quarantine_table(g->tables[i]);
		else
			pt_table_free(g->tables[i]);
	}
	pt_gather_release(g, g->pages, MIN(g->nr_pages, PT_GATHER_LOCAL), failed);
	for (b = g->batches; b && left; b = b->next) {
		pt_gather_release(g, b->pages, (unsigned)b->nr, failed);
		left -= (unsigned)b->nr;
		b->nr = 0;
	}
	g->nr_tables = g->nr_pages = 0;
	g->cur = NULL;
	g->start = ~0ull;
	g->last = 0;
	g->global = false;
}

void pt_gather_finish(struct pt_gather *g)
{
	struct pt_gather_batch *b;

	pt_gather_drain(g);
	while ((b = g->batches)) {
		g->batches = b->next;
		page_free(phys_to_page(virt_to_phys(b)), 0);
	}
}

void pt_gather_range(struct pt_gather *g, vaddr_t start, vaddr_t last, bool global)
{
	g->start = MIN(g->start, start);
	g->last = MAX(g->last, last);
	g->global |= global;
}

/*
 * A flush in the middle of an unmap waits for other CPUs, so the caller's
 * g->lock is dropped around it: a CPU spinning on that lock with
 * interrupts off would never answer (mm/pt.h).
 */
void pt_gather_cut(struct pt_gather *g)
{
	if (g->lock)
		spin_unlock(g->lock);
	pt_gather_drain(g);
	if (g->lock)
		spin_lock(g->lock);
}

void pt_gather_table(struct pt_gather *g, struct page *p)
{
	if (g->nr_tables == PT_GATHER_MAX)
		pt_gather_cut(g);
	g->tables[g->nr_tables++] = p;
}

/*
 * Makes room for one more frame once the local array is full: the next
 * batch page, one kept from an earlier round of this walk or a new one.
 * False when none can be had (out of memory): the caller flushes.
 */
static bool pt_gather_grow(struct pt_gather *g)
{
	struct pt_gather_batch *next = g->cur ? g->cur->next : g->batches;
	struct page *p;

	if (g->nr_pages < PT_GATHER_LOCAL || (g->cur && g->cur->nr < PT_GATHER_BATCH))
		return true;
	if (!next) {
		p = torture_hook_fail(TORTURE_FAIL_BATCH) ? NULL : page_alloc(0, 0);
		if (!p)
			return false;
		next = page_address(p);
		next->next = NULL;
		if (g->cur)
			g->cur->next = next;
		else
			g->batches = next;
	}
	next->nr = 0;
	g->cur = next;
	return true;
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
	if (g->nr_pages == PT_GATHER_PAGES || !pt_gather_grow(g)) {
		pt_gather_cut(g);
		ASSERT(g->nr_pages == 0);
	}
	if (g->nr_pages < PT_GATHER_LOCAL)
		g->pages[g->nr_pages] = pfn_to_page(pfn);
	else
		g->cur->pages[g->cur->nr++] = pfn_to_page(pfn);
	g->nr_pages++;
}

void pt_gather_copy_pages(const struct pt_gather *g, struct page **out)
{
	unsigned local = MIN(g->nr_pages, PT_GATHER_LOCAL), left = g->nr_pages - local;
	const struct pt_gather_batch *b;

	memcpy(out, g->pages, local * sizeof(*out));
	out += local;
	for (b = g->batches; b && left; b = b->next) {
		memcpy(out, b->pages, (unsigned)b->nr * sizeof(*out));
		out += b->nr;
		left -= (unsigned)b->nr;
	}
}

struct page *pt_gather_page_at(const struct pt_gather *g, unsigned i)
{
	const struct pt_gather_batch *b = g->batches;

	ASSERT(i < g->nr_pages);
	if (i < PT_GATHER_LOCAL)
		return g->pages[i];
	for (i -= PT_GATHER_LOCAL; i >= b->nr; b = b->next)
		i -= (unsigned)b->nr;
	return b->pages[i];
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
