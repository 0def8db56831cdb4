/*
 * TLB shootdown: flushing an address space's translations from mm_cpumask,
 * and the unmap gather (collect, flush, then free). Designs implement struct
 * tlb_ops and join tlb_designs[]; their traits say what callers must know.
 * A frame is freed only after the flush covering it completed; a flush that
 * did not complete quarantines its frames and returns -ETIMEDOUT.
 * Context: task context with interrupts on (acknowledgements are awaited).
 */
#ifndef MM_TLB_H
#define MM_TLB_H

#include "compiler.h"
#include "kernel/cpumask.h"
#include "kernel/design.h"
#include "mm/counters.h"
#include "mm/pt_types.h"
#include "types.h"

struct json;
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
struct tlb_flush_req;

/* What a flush's target runs, on its own CPU. */
typedef void (*tlb_target_fn)(const struct tlb_flush_req *req);

/* One flush request: what a target invalidates. Copied to each target (smp_call_copy()). */
struct tlb_flush_req {
	struct mm *mm;
	tlb_target_fn target;	   /* the design's target_flush: tlb_ops_target() */
	vaddr_t start, last;	   /* start > last: everything */
	bool global;
	/*
	 * Set by an unmap's gather when this flush frees no page-table page
	 * (Linux's flush_tlb_info.freed_tables, inverted so that a request
	 * built elsewhere is the safe case): a target's page walks cannot
	 * reach a freed table, so a design may let it acknowledge before it
	 * flushes. False: unknown, acknowledge after the flush.
	 */
	bool frees_no_tables;
};

/*
 * A TLB design (kernel/design.h): when the gathered pages are flushed
 * (add), how a flush request travels to the CPUs that may hold the
 * translations (flush), and what each of them does with it
 * (target_flush). The unmap around them (tlb_unmap_pages()) is the same
 * for every design: lock, one walk of the page tables over the range
 * (calling add before each leaf it removes), finish.
 */
struct tlb_ops {
	struct design d; /* first: the table holds &ops.d */
	/*
	 * Optional (NULL: the page is queued; the gather flushes when full,
	 * PT_GATHER_PAGES, and at the end of the call, with no call per leaf).
	 * Called by the walk before it removes the leaf at @va (a 4 KiB page,
	 * or a huge one) into b->g: decides whether what the gather holds is
	 * flushed first (tlb_add_flush_first: one page per round). Returns 0,
	 * or an error the unmap returns (the walk goes on: what it cleared
	 * must still be flushed and freed).
	 */
	int (*add)(struct tlb_batch *b, vaddr_t va);
	/*
	 * Sends @req to every CPU of @req->mm's mask (the caller's own flush
	 * included) and returns once it is done: 0 or -ETIMEDOUT. Bumps the
	 * mm's tlb_gen first so CPUs that switched away flush on switching back.
	 */
	int (*flush)(const struct tlb_flush_req *req);
	/*
	 * Optional (NULL: tlb_target_flush(), the flush policy): what a CPU
	 * that received the request does (in the IPI, interrupts off, or the
	 * initiator). The request carries it (req->target), so a design's
	 * flush may send another target for one round.
	 */
	void (*target_flush)(const struct tlb_flush_req *req);
	/*
	 * Optional (NULL: nothing to do), for a design whose flush completes
	 * after it returned (trait completes_later), or one that keeps what a
	 * gather would free past the call (until its next gather, say).
	 * enable(true) before a run unmaps through the design, enable(false)
	 * after its last settle: boot CPU, task context, interrupts on;
	 * returns 0 or an error. settle(@mm) returns once everything the
	 * design deferred for flushes that returned before it began is done on
	 * every CPU: frames and tables released, and what was unmapped from
	 * @mm safe to map again (other CPUs' flushes meanwhile are theirs to
	 * settle; any CPU may settle, several at once). A completes_later
	 * design must be settled before an unmapped range is mapped again;
	 * one that only keeps frames may be, to have them back. Returns 0 or
	 * -ETIMEDOUT (a CPU did not drain in time: what it may still reach is
	 * quarantined, as after a flush that timed out).
	 */
	int (*enable)(bool on);
	int (*settle)(struct mm *mm);
	/*
	 * Optional (NULL: settle waits for nothing), for a completes_later
	 * design: returns once everything settle waits for is done (every CPU
	 * drained what was queued to it when this began) and releases nothing,
	 * so a settle right after it only releases: a benchmark counts the
	 * release, the work the call deferred, apart from the wait. Any CPU,
	 * task context. Returns 0 or -ETIMEDOUT, as settle.
	 */
	int (*settle_wait)(void);
	/*
	 * Optional (NULL: every target is done when the flush returns), for a
	 * design whose targets acknowledge before they finish: returns once
	 * every CPU finished what the design's flushes sent it, its flushes
	 * done and counted, and releases nothing (settle's part). What a
	 * benchmark waits for, untimed, before it reads exact counts: a
	 * target's late invalidations would otherwise land in the next run's
	 * window. Any CPU, task context. Returns 0 or -ETIMEDOUT.
	 */
	int (*quiesce)(void);
	/*
	 * Optional (NULL: the request travels through @flush): the gather's
	 * whole flush, for a design that must keep what the gather would free
	 * (until every CPU flushed, when that is later). Set by
	 * tlb_batch_begin(); runs where any gather flush runs (mm/pt.h).
	 */
	pt_flush_fn *gather_flush;
	/*
	 * Optional (NULL: none). switch_out runs in mm_switch() on a CPU about
	 * to load another root, interrupts off, the old root still loaded,
	 * while the design is enabled: tlb_design_enable() registers it and
	 * mm/mm.c calls it through tlb_mm_switch(), never by name (a design
	 * that queues may drain into the old ASID there). report adds the
	 * design's own fields to its BENCH line (bench/bench_tlb.c).
	 */
	void (*switch_out)(void);
	void (*report)(struct json *j);
	/*
	 * What a verify with several initiators at once reads of the design
	 * (bench/bench_tlb_multi.c), so that it never tests which design it
	 * holds. @settled: counters each of whose events settles one
	 * (request, CPU) pair without a flush (a target found up to date, a
	 * CPU skipped); NULL: none. A design whose remotes flush at their drain
	 * (trait remotes_flush_at_drain) names @queued, the entries it queued
	 * to other CPUs, and @fallbacks, its flushes sent as one IPI round
	 * instead.
	 */
	const struct pcpu_counter *const *settled;
	const struct pcpu_counter *queued, *fallbacks;
};

struct tlb_batch {
	struct mm *mm;
	const struct tlb_ops *ops;
	int err;	    /* the first error add returned */
	struct pt_gather g; /* mm_gather_init()'s: g.err is the first flush error */
};

extern const struct tlb_ops tlb_ops_naive, tlb_ops_batched; /* mm/tlb/designs/ */
/*
 * The control run of the stale-translation detector: flushes the calling
 * CPU only, never the others. Wrong on purpose (design.control): no
 * benchmark runs it as a design; tlb runs it as its silent control.
 */
extern const struct tlb_ops tlb_ops_no_remote;

/* Every TLB design, naive first, NULL-terminated (mm/tlb/designs/, design_tables_fill()). */
extern const struct design *tlb_designs[DESIGN_TABLE_SLOTS];

/* The tlb_ops that design header @d (an entry of tlb_designs[]) begins. */
static inline const struct tlb_ops *tlb_ops_of(const struct design *d)
{
	return container_of(d, struct tlb_ops, d);
}

/*
 * @ops->enable(@on) (0 for a design without one), and registers (@on) or
 * unregisters (!@on) @ops' switch_out hook: one design with such a hook is
 * enabled at a time (-EBUSY for a second). Boot CPU, task context.
 */
int tlb_design_enable(const struct tlb_ops *ops, bool on);

/*
 * Runs the enabled design's switch_out hook, if any (mm_switch(), before
 * the root changes). Interrupts off; one load when no design has a hook.
 */
void tlb_mm_switch(void);

/* @ops->settle(@mm), or 0 for a design whose flush is complete when it returns. */
static inline int tlb_settle(const struct tlb_ops *ops, struct mm *mm)
{
	return ops->settle ? ops->settle(mm) : 0;
}

/* @ops->settle_wait(), or 0 for a design whose settle waits for nothing. */
static inline int tlb_settle_wait(const struct tlb_ops *ops)
{
	return ops->settle_wait ? ops->settle_wait() : 0;
}

/* @ops->quiesce(), or 0 for a design whose targets are done when its flush returns. */
static inline int tlb_quiesce(const struct tlb_ops *ops)
{
	return ops->quiesce ? ops->quiesce() : 0;
}

/* The IPI shootdown every real design's flush is: one round to the mask, each runs req->target. */
int tlb_flush_send(const struct tlb_flush_req *req);

/*
 * tlb_flush_send() with the order of the initiator's own flush chosen:
 * @local_first flushes this CPU before any IPI leaves (serial, Linux
 * before 5.13), else after they are sent, overlapping the wait (what
 * tlb_flush_send() does). One round either way; returns as it does.
 */
int tlb_flush_send_ordered(const struct tlb_flush_req *req, bool local_first);

/*
 * The round of tlb_flush_send() without its generation bump, to @mask (a
 * snapshot the caller took after bumping req->mm's tlb_gen itself; the
 * caller is skipped in it but always runs req->target itself, after the
 * IPIs left). The targets get a copy of the @len bytes at @req
 * (sizeof(*req)..SMP_CALL_DATA_MAX): a design may send a larger request
 * that begins with struct tlb_flush_req (its generation, say).
 * For designs that pick their targets or must know who they were. Returns
 * as tlb_flush_send(), or -EINVAL for a bad @len.
 */
int tlb_flush_send_mask(const struct tlb_flush_req *req, size_t len, const cpumask_t *mask);

/* The target side of the real designs: the flush policy, if the target still has req->mm. */
void tlb_target_flush(const struct tlb_flush_req *req);

/* What @ops's targets run: its target_flush, or the flush policy when it names none. */
static inline tlb_target_fn tlb_ops_target(const struct tlb_ops *ops)
{
	return ops->target_flush ? ops->target_flush : tlb_target_flush;
}

/*
 * Starts an unmap of pages of @mm through @ops: the gather every unmap
 * uses, its flush sent @ops' way, ops->add called before each leaf. Then
 * tlb_batch_unmap() and pt_gather_finish(&b->g). @mm's write side held.
 */
void tlb_batch_begin(struct tlb_batch *b, struct mm *mm, const struct tlb_ops *ops);

/*
 * Unmaps @nr pages from @start into @b with one walk of the page tables,
 * the design's add before each leaf. @mm's write side held. Returns 0,
 * -EINVAL or -ENOMEM (pt_unmap()), or the first error add returned.
 */
int tlb_batch_unmap(struct tlb_batch *b, vaddr_t start, unsigned nr);

/* The add of naive: flushes and frees what the gather holds first (pt_gather_cut()). Returns 0. */
int tlb_add_flush_first(struct tlb_batch *b, vaddr_t va);

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

/* tlb_flush_local() counting its invalidations in counters @one and @all instead. */
void tlb_flush_local_as(vaddr_t start, vaddr_t last, bool global, const struct pcpu_counter *one,
			const struct pcpu_counter *all);

/*
 * Sets the page-by-page ceiling (tlb_ceiling=, 0: the default) for every
 * flush. Boot CPU, while no flush runs (the run applies the option first).
 */
void tlb_set_ceiling(unsigned pages);
unsigned tlb_ceiling(void);

/*
 * Unmaps @nr pages from @start in @mm through @ops (begin, one walk,
 * finish). Returns 0 or an error (the walk's, add's, or the flush's).
 */
int tlb_unmap_pages(struct mm *mm, vaddr_t start, unsigned nr, const struct tlb_ops *ops);

#endif
