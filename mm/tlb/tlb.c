/*
 * TLB shootdown (mm/tlb/tlb.h): the flush machinery every design shares; the
 * unmap loop is mm/tlb/tlb_batch.c, the designs are in mm/tlb/designs/.
 * Requests travel through smp_call() alone, so designs differ only in rounds
 * and what targets do. Locking: callers hold mm->lock's write side or own
 * the range; targets run in the call IPI with interrupts off.
 */
#include "mm/tlb/tlb.h"
#include "mm/counters.h"
#include "errno.h"
#include "kernel/cmdline.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "kernel/trace.h"
#include "lib/atomic.h"
#include "mm/mm_types.h"
#include "mm/page.h"
#include <arch/arch.h>

PCPU_COUNTER(PCPU_TLB_FLUSH_ONE, "tlb_flush_one");
PCPU_COUNTER(PCPU_TLB_FLUSH_ALL, "tlb_flush_all");
PCPU_COUNTER(PCPU_TLB_SHOOTDOWNS, "tlb_shootdowns");

BUILD_ASSERT(sizeof(struct tlb_flush_req) <= SMP_CALL_DATA_MAX);

/* Every design's file joins it (DESIGN_REGISTER); design_tables_fill() fills it. */
const struct design *tlb_designs[DESIGN_TABLE_SLOTS];

static unsigned flush_ceiling = TLB_FLUSH_CEILING;
/* tlb_ceiling=: the knee of every flush, set before any CPU flushes. */
OPTION_UINT(tlb_ceiling, flush_ceiling, 1, 512, TLB_FLUSH_CEILING);

/* The enabled design whose switch_out hook mm_switch() runs, or NULL. */
static const struct tlb_ops *tlb_hooked;

static int tlb_hook_register(const struct tlb_ops *ops)
{
	const struct tlb_ops *was = atomic_cmpxchg(&tlb_hooked, NULL, ops);

	return was && was != ops ? -EBUSY : 0;
}

int tlb_design_enable(const struct tlb_ops *ops, bool on)
{
	int err = 0;

	if (on && ops->switch_out) {
		/* Before the design may defer anything: switches drain from then on. */
		err = tlb_hook_register(ops);
		if (err)
			return err;
	}
	if (ops->enable)
		err = ops->enable(on);
	/* Off: after the design's last settle, so its hook has nothing left to do. */
	if (ops->switch_out && (!on || err))
		atomic_cmpxchg(&tlb_hooked, ops, NULL);
	return err;
}

void tlb_mm_switch(void)
{
	const struct tlb_ops *ops = atomic_load_acquire(&tlb_hooked);

	if (ops)
		ops->switch_out();
}

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
void tlb_flush_local_as(vaddr_t start, vaddr_t last, bool global, const struct pcpu_counter *one,
			const struct pcpu_counter *all)
{
	u64 pages = start > last ? ~0ull : ((last - start) >> PAGE_SHIFT) + 1;

	trace_event(pages > flush_ceiling ? TRACE_FLUSH_FULL : TRACE_FLUSH_PAGES, 0, (u32)pages);
	if (pages > flush_ceiling) {
		if (global)
			arch_tlb_flush_everything();
		else
			arch_tlb_flush_all();
		this_cpu_inc(all);
		trace_event(TRACE_FLUSH_END, 0, 0);
		return;
	}
	/* INVLPG also drops every paging-structure cache entry (SDM Vol. 3A 4.10.4.1). */
	for (u64 n = 0; n < pages; n++)
		arch_tlb_flush_one(start + (n << PAGE_SHIFT));
	this_cpu_add(one, pages);
	trace_event(TRACE_FLUSH_END, 0, 0);
}

void tlb_flush_local(vaddr_t start, vaddr_t last, bool global)
{
	tlb_flush_local_as(start, last, global, PCPU_TLB_FLUSH_ONE, PCPU_TLB_FLUSH_ALL);
}

/* What every real design's target does: nothing if it switched away meanwhile. */
void tlb_target_flush(const struct tlb_flush_req *req)
{
	if (mm_current() == req->mm)
		tlb_flush_local(req->start, req->last, req->global);
}

/* On each target, in the IPI: the design's target side. */
static void tlb_flush_ipi(void *arg)
{
	const struct tlb_flush_req *req = arg;

	req->target(req);
}

/* Sends @req to @mask, with our own flush before (@local_first) or after the IPIs, and waits. */
static int tlb_flush_round(const struct tlb_flush_req *req, size_t len, const cpumask_t *mask,
			   bool local_first)
{
	int err, werr;

	this_cpu_inc(PCPU_TLB_SHOOTDOWNS);
	/* serial's order: our own flush while no IPI has left yet. */
	if (local_first)
		req->target(req);
	/*
	 * A copy of the request: a target late past the deadline must not
	 * read this frame after we returned.
	 */
	err = smp_call_copy(mask, tlb_flush_ipi, (void *)req, len, false);
	/* batched's order: IPIs out first, then our own flush while they travel. */
	if (!local_first)
		req->target(req);
	/* Even after an error the live targets were sent the request: wait for them. */
	werr = err == -EINVAL ? 0 : smp_call_wait();
	return err ? err : werr;
}

int tlb_flush_send_ordered(const struct tlb_flush_req *req, bool local_first)
{
	/*
	 * Fully ordered, and before smp_call() reads the mask (once): a CPU that
	 * sets its bit after that read sees the new generation and flushes its
	 * ASID itself.
	 */
	atomic_fetch_add(&req->mm->tlb_gen, 1);
	return tlb_flush_round(req, sizeof(*req), mm_cpumask(req->mm), local_first);
}

int tlb_flush_send_mask(const struct tlb_flush_req *req, size_t len, const cpumask_t *mask)
{
	if (len < sizeof(*req) || len > SMP_CALL_DATA_MAX)
		return -EINVAL;
	return tlb_flush_round(req, len, mask, false);
}

int tlb_flush_send(const struct tlb_flush_req *req)
{
	return tlb_flush_send_ordered(req, false);
}

/* Flushes outside tlb_unmap_pages() (mprotect, a region's unmap): the real designs' way. */
int tlb_flush_range(struct mm *mm, vaddr_t start, vaddr_t last)
{
	struct tlb_flush_req req = { mm, tlb_target_flush, start, last, false, false };

	return tlb_flush_send(&req);
}

int tlb_flush_gather(struct mm *mm, const struct pt_gather *g)
{
	struct tlb_flush_req req = { mm, tlb_target_flush, g->start, g->last, g->global,
				     g->nr_tables == 0 };

	return tlb_flush_send(&req);
}
