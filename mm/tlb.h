/*
 * TLB shootdown: flushing translations of an address space from every CPU
 * that has it loaded (mm_cpumask), and the gather that unmapping uses:
 * collect unmapped pages (and emptied page-table pages), flush, then free.
 * Two designs behind one interface, chosen at run time:
 *   naive:   every page gets its own IPI round: each CPU in the mask does one
 *            invlpg, and the initiator waits for every acknowledgement before
 *            it unmaps the next page.
 *   batched: pages are gathered (up to PT_GATHER_PAGES, then the batch is
 *            flushed); one IPI per target CPU per batch carries the range;
 *            a target invalidates page by page up to the ceiling (tlb_ceiling=,
 *            default TLB_FLUSH_CEILING) and flushes everything above it; the
 *            initiator's own flush overlaps the wait for the acknowledgements.
 * Either way a frame is freed only after the flush that covers it completed:
 * a stale entry on another CPU could otherwise reach the frame's next owner.
 * A flush that did not complete (a CPU missed the deadline: it is out of
 * the run from then on, kernel/smp.h) frees nothing: its frames and tables
 * are quarantined for the rest of the run (mm/quarantine.h), the unmap
 * returns -ETIMEDOUT, and so does every later flush of an mm that CPU has
 * loaded. The request travels as a copy in the call descriptor, so a late
 * target never reads the initiator's stack.
 * CPUs that switched away (lazy) are not interrupted: the mm's tlb_gen makes
 * them flush its ASID when they switch back (mm/mm.c, mm_switch).
 *
 * Context: task context with interrupts on (acknowledgements are awaited).
 */
#ifndef MM_TLB_H
#define MM_TLB_H

#include "mm/counters.h"
#include "mm/pt.h"
#include "types.h"

struct mm;

/*
 * Pages a flush invalidates one by one before a full flush is cheaper: 33,
 * Linux's tlb_single_page_flush_ceiling, measured on Haswell-era CPUs where
 * refilling a flushed TLB cost about as much as 33 INVLPGs. The default of
 * the tlb_ceiling= option, which sets the one policy every flush follows
 * (tlb_flush_local()).
 */
#define TLB_FLUSH_CEILING 33

struct tlb_batch;

struct tlb_ops {
	const char *name; /* "naive" | "batched" | "no-remote" (detector control only) */
	/* Starts an unmap of pages of @mm. */
	void (*begin)(struct tlb_batch *b, struct mm *mm);
	/* Unmaps the 4 KiB page at @va: naive shoots it down now; batched queues it. */
	int (*add)(struct tlb_batch *b, vaddr_t va);
	/* Flushes what is queued and frees what was unmapped. */
	void (*finish)(struct tlb_batch *b);
};

struct tlb_batch {
	struct mm *mm;
	const struct tlb_ops *ops;
	struct pt_gather g; /* mm_gather_init()'s: g.err is the first flush error */
};

extern const struct tlb_ops tlb_ops_naive, tlb_ops_batched;
/*
 * The control run of the stale-translation detector: flushes the calling
 * CPU only, never the others. Wrong on purpose; only the self-test uses it.
 */
extern const struct tlb_ops tlb_ops_no_remote;

/*
 * Flushes [start, last] (start > last: everything) of @mm from every CPU
 * that has it loaded, the caller included, and returns when all have
 * acknowledged. Returns 0 or -ETIMEDOUT (a CPU in the mask missed the
 * deadline now or before: it is named on the console once and is out of
 * the run; the flush is not known to be complete, so the caller must never
 * reuse what it covered).
 */
int tlb_flush_range(struct mm *mm, vaddr_t start, vaddr_t last);

/*
 * The gather's flush for @mm: tlb_flush_range() of [g->start, g->last],
 * global translations too when g->global. Returns 0 or -ETIMEDOUT.
 */
int tlb_flush_gather(struct mm *mm, const struct pt_gather *g);

/*
 * The flush policy, on the calling CPU only: [start, last] page by page up
 * to tlb_ceiling() pages, else every non-global translation (every one when
 * @global); start > last flushes in full (a freed table alone still needs
 * the paging-structure caches flushed). Counts PCPU_TLB_FLUSH_ONE per page
 * or PCPU_TLB_FLUSH_ALL. Any context.
 */
void tlb_flush_local(vaddr_t start, vaddr_t last, bool global);

/*
 * Sets the page-by-page ceiling (tlb_ceiling=, 0: the default) for every
 * flush. Boot CPU, while no flush runs (the run applies the option first).
 */
void tlb_set_ceiling(unsigned pages);
unsigned tlb_ceiling(void);

/* Unmaps @nr pages from @start in @mm through @ops (begin, add each, finish). Returns 0 or an error. */
int tlb_unmap_pages(struct mm *mm, vaddr_t start, unsigned nr, const struct tlb_ops *ops);

#endif
