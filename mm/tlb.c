/*
 * TLB shootdown (see mm/tlb.h). The flush request travels through
 * smp_call(): kernel/smp.c is the only place that sends IPIs, so both
 * designs pay for exactly the same IPI machinery and differ only in how
 * many rounds they send and what each target does.
 *
 * Locking: callers hold mm->lock's write side (mm/mm.h) or otherwise own
 * the range; this file takes no lock. Targets run in the call IPI with
 * interrupts off.
 */
#include "mm/tlb.h"
#include "mm/counters.h"
#include "errno.h"
#include "kernel/cmdline.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "mm/mm.h"
#include "mm/page.h"
#include <arch/arch.h>

PCPU_COUNTER(PCPU_TLB_FLUSH_ONE, "tlb_flush_one");
PCPU_COUNTER(PCPU_TLB_FLUSH_ALL, "tlb_flush_all");
PCPU_COUNTER(PCPU_TLB_SHOOTDOWNS, "tlb_shootdowns");

struct tlb_flush_req {
	struct mm *mm;
	vaddr_t start, last;
	bool global;
};

BUILD_ASSERT(sizeof(struct tlb_flush_req) <= SMP_CALL_DATA_MAX);

static unsigned flush_ceiling = TLB_FLUSH_CEILING;
/* tlb_ceiling=: the knee of every flush, set before any CPU flushes. */
OPTION_UINT(tlb_ceiling, flush_ceiling, 1, 512, TLB_FLUSH_CEILING);

void tlb_set_ceiling(unsigned pages)
{
	flush_ceiling = pages ? pages : TLB_FLUSH_CEILING;
}

unsigned tlb_ceiling(void)
{
	return flush_ceiling;
}

/*
 * The one flush policy, for shootdown targets, initiators and the default
 * local flush of a gather alike: page by page up to the ceiling, else one
 * full flush (global entries too when @global).
 */
void tlb_flush_local(vaddr_t start, vaddr_t last, bool global)
{
	u64 pages = start > last ? ~0ull : ((last - start) >> PAGE_SHIFT) + 1;

	if (pages > flush_ceiling) {
		if (global)
			arch_tlb_flush_everything();
		else
			arch_tlb_flush_all();
		this_cpu_inc(PCPU_TLB_FLUSH_ALL);
		return;
	}
	/* INVLPG also drops every paging-structure cache entry (SDM Vol. 3A 4.10.4.1). */
	for (u64 n = 0; n < pages; n++)
		arch_tlb_flush_one(start + (n << PAGE_SHIFT));
	this_cpu_add(PCPU_TLB_FLUSH_ONE, pages);
}

/* On each target, in the IPI: nothing to do if it switched away meanwhile (lazy). */
static void tlb_flush_ipi(void *arg)
{
	const struct tlb_flush_req *req = arg;

	if (mm_current() == req->mm)
		tlb_flush_local(req->start, req->last, req->global);
}

static int tlb_shootdown(struct mm *mm, vaddr_t start, vaddr_t last, bool global)
{
	struct tlb_flush_req req = { mm, start, last, global };
	int err, werr;

	/*
	 * Fully ordered, and before smp_call() reads the mask (once): a CPU that
	 * sets its bit after that read sees the new generation and flushes its
	 * ASID itself.
	 */
	atomic_fetch_add(&mm->tlb_gen, 1);
	this_cpu_inc(PCPU_TLB_SHOOTDOWNS);
	/*
	 * IPIs out first, then our own flush while they travel, then the wait.
	 * A copy of the request: a target late past the deadline must not
	 * read this frame after we returned.
	 */
	err = smp_call_copy(mm_cpumask(mm), tlb_flush_ipi, &req, sizeof(req), false);
	if (mm_current() == mm)
		tlb_flush_local(start, last, global);
	/* Even after an error the live targets were sent the request: wait for them. */
	werr = err == -EINVAL ? 0 : smp_call_wait();
	return err ? err : werr;
}

int tlb_flush_range(struct mm *mm, vaddr_t start, vaddr_t last)
{
	return tlb_shootdown(mm, start, last, false);
}

int tlb_flush_gather(struct mm *mm, const struct pt_gather *g)
{
	return tlb_shootdown(mm, g->start, g->last, g->global);
}

/* ---- shared helpers ---- */

/* The one gather set-up: mm_gather_init()'s flush, frame release and swap-slot release. */
static void tlb_begin(struct tlb_batch *b, struct mm *mm)
{
	b->mm = mm;
	mm_gather_init(&b->g, mm);
}

static int tlb_unmap_one(struct tlb_batch *b, vaddr_t va)
{
	return pt_unmap(b->mm->root, va, PAGE_SIZE, &b->g);
}

static void tlb_finish(struct tlb_batch *b)
{
	pt_gather_finish(&b->g);
}

/* ---- naive ---- */

/* One page, one IPI round, wait, free: then the next page. */
static int tlb_add_naive(struct tlb_batch *b, vaddr_t va)
{
	int err = tlb_unmap_one(b, va);

	pt_gather_finish(&b->g);
	return err;
}

/* ---- batched ---- */

/* Queue only: the gather flushes when it is full, and at finish. */
static int tlb_add_batched(struct tlb_batch *b, vaddr_t va)
{
	return tlb_unmap_one(b, va);
}

/* ---- the detector's control: no remote flush at all ---- */

static void tlb_gather_flush_local_only(struct pt_gather *g)
{
	struct mm *mm = g->arg;

	atomic_fetch_add(&mm->tlb_gen, 1);
	if (mm_current() == mm)
		tlb_flush_local(g->start, g->last, g->global);
}

static void tlb_begin_no_remote(struct tlb_batch *b, struct mm *mm)
{
	tlb_begin(b, mm);
	b->g.flush = tlb_gather_flush_local_only;
}

const struct tlb_ops tlb_ops_naive = { "naive", tlb_begin, tlb_add_naive, tlb_finish };
const struct tlb_ops tlb_ops_batched = { "batched", tlb_begin, tlb_add_batched, tlb_finish };
const struct tlb_ops tlb_ops_no_remote = { "no-remote", tlb_begin_no_remote, tlb_add_batched,
					   tlb_finish };

int tlb_unmap_pages(struct mm *mm, vaddr_t start, unsigned nr, const struct tlb_ops *ops)
{
	struct tlb_batch b;
	int err = 0;

	write_lock(&mm->lock);
	ops->begin(&b, mm);
	for (unsigned i = 0; i < nr && !err; i++)
		err = ops->add(&b, start + (vaddr_t)i * PAGE_SIZE);
	ops->finish(&b);
	write_unlock(&mm->lock);
	return err ? err : b.g.err;
}
