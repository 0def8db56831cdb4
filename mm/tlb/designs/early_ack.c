/*
 * TLB design early_ack, after Amit et al., "Don't shoot down TLB
 * shootdowns!" (EuroSys 2020): a target acknowledges before it flushes, and
 * the initiator returns then; the gather's frames are kept per initiating
 * CPU until every target flushed. Requests that free tables, frameless
 * gathers and a disabled design keep the old order. Locking: a CPU's ea_keep
 * lock -> the frame allocator's. Targets run in the call IPI, interrupts off.
 */
#include "errno.h"
#include "kernel/json.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "lib/atomic.h"
#include "mm/mm.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "mm/quarantine.h"
#include "mm/tlb/tlb.h"
#include "mm/tlb/designs/early_ack.h"
#include <arch/arch.h>

PCPU_COUNTER(PCPU_TLB_EARLY_ACKS, "tlb_early_acks");
PCPU_COUNTER(PCPU_TLB_EARLY_KEPT, "tlb_early_kept_frames");

/*
 * Per CPU: as a target, how many early requests it started (counted
 * before it acknowledges) and flushed (after the flush).
 */
struct ea_cpu {
	u64 started;
	u64 flushed;
} __cacheline_aligned;

/*
 * Per CPU: as an initiator, the frames of its last early gather, kept
 * until each of @targets flushed. @pages has room for a whole gather
 * (PT_GATHER_PAGES) from the first enable on; NULL before: nothing is kept.
 */
struct ea_keep {
	spinlock_t lock;
	unsigned nr;
	cpumask_t targets;
	struct page **pages;
};

#define EA_PAGES_ORDER 4
BUILD_ASSERT(PT_GATHER_PAGES * sizeof(struct page *) <= (PAGE_SIZE << EA_PAGES_ORDER));

static struct ea_cpu ea_cpu __pcpu_data;
static struct ea_keep ea_keep __pcpu_data;
static bool ea_on; /* enabled: gathers keep their frames */

void (*tlb_early_ack_gap)(const struct tlb_flush_req *req);

/*
 * The early target: copy, count, acknowledge, then flush (the request
 * copy may be rewritten once we acknowledged). Interrupts off throughout,
 * also when the initiator runs it for itself: the counts are this CPU's.
 * The range may be mapped again once the initiator returns: a target that
 * acknowledged is in here and flushes before it runs anything that could
 * use a translation. Only the frames wait.
 */
static void ea_target_early(const struct tlb_flush_req *req)
{
	unsigned long flags = arch_irq_save();
	struct ea_cpu *me = this_cpu_ptr(ea_cpu);
	struct tlb_flush_req r = *req;
	void (*gap)(const struct tlb_flush_req *) = READ_ONCE(tlb_early_ack_gap);

	atomic_store_release(&me->started, me->started + 1);
	if (smp_call_ack()) {
		this_cpu_inc(PCPU_TLB_EARLY_ACKS);
		if (gap)
			gap(&r);
	}
	tlb_target_flush(&r);
	atomic_store_release(&me->flushed, me->flushed + 1);
	arch_irq_restore(flags);
}

/*
 * Waits until @cpu flushed what it had started when the wait for it
 * began, so every request it acknowledged before (acquire: its flush is
 * done before we release frames). Judged on its own time: its own
 * deadline, timeout_ms from then, never what another CPU's wait left of
 * one. A CPU still behind at its deadline is as late as one that never
 * answered, so it is written off (out of the run, named on the console);
 * one already out of the run is not waited for. Returns 0 or -ETIMEDOUT.
 */
static int ea_wait_cpu_flushed(unsigned cpu)
{
	struct ea_cpu *t = per_cpu_ptr(ea_cpu, cpu);
	u64 want = atomic_load_acquire(&t->started);
	struct smp_wait w = SMP_WAIT_INIT;

	while (atomic_load_acquire(&t->flushed) < want) {
		if (smp_cpu_dead(cpu))
			return -ETIMEDOUT;
		if (smp_wait_turn(&w)) {
			smp_cpu_write_off(cpu, "tlb early_ack flush");
			return -ETIMEDOUT;
		}
	}
	return 0;
}

/* Every CPU of @mask, each on its own (above). -ETIMEDOUT: the frames are quarantined. */
static int ea_wait_flushed(const cpumask_t *mask)
{
	unsigned cpu;
	int err = 0;

	for_each_cpu(cpu, mask)
		if (ea_wait_cpu_flushed(cpu))
			err = -ETIMEDOUT;
	return err;
}

/*
 * One round as batched's, to a snapshot of the mask, which it leaves in
 * @mask (the CPUs waited for are the CPUs sent to); with @early the
 * targets acknowledge first and, with @wait, we wait for their real flush
 * before returning.
 */
static int ea_send(const struct tlb_flush_req *req, bool early, bool wait, cpumask_t *mask)
{
	struct tlb_flush_req r = *req;
	int err;

	if (early)
		r.target = ea_target_early;
	/* Before the mask is read, as tlb_flush_send() (mm/tlb/tlb.c). */
	atomic_fetch_add(&r.mm->tlb_gen, 1);
	cpumask_copy_acquire(mask, mm_cpumask(r.mm));
	cpumask_clear_cpu(arch_cpu_id(), mask);
	err = tlb_flush_send_mask(&r, sizeof(r), mask);
	if (!err && early && wait)
		err = ea_wait_flushed(mask);
	return err;
}

static int tlb_flush_early_ack(const struct tlb_flush_req *req)
{
	cpumask_t mask;

	return ea_send(req, req->frees_no_tables, true, &mask);
}

/* quiesce hook: every CPU flushed every early request it started; nothing released. */
static int tlb_quiesce_early_ack(void)
{
	return ea_wait_flushed(&cpu_online_mask);
}

/* ---- kept frames ---- */

/*
 * Gives back what @k keeps once its targets flushed: to the allocator, or
 * to the quarantine when one of them did not in time. Returns 0 or
 * -ETIMEDOUT. @k's lock held.
 */
static int ea_release_locked(struct ea_keep *k)
{
	int err;

	if (!k->nr)
		return 0;
	err = ea_wait_flushed(&k->targets);
	if (err) {
		for (unsigned i = 0; i < k->nr; i++)
			quarantine_frame(k->pages[i]);
		quarantine_count_flush();
	} else {
		mm_pages_drop(k->pages, k->nr); /* batched, as every gather's release */
	}
	k->nr = 0; /* emptied: no later release may find these frames again */
	return err;
}

/* Releases what CPU @cpu keeps (a CPU that never had room for frames keeps none). */
static int ea_release(unsigned cpu)
{
	struct ea_keep *k = per_cpu_ptr(ea_keep, cpu);
	int err;

	if (!atomic_load_acquire(&k->pages))
		return 0; /* its lock is not set up either */
	spin_lock(&k->lock);
	err = ea_release_locked(k);
	spin_unlock(&k->lock);
	return err;
}

/* Moves @g's frames into this CPU's (empty) keep, sent to @targets. */
static void ea_keep_take(struct ea_keep *k, struct pt_gather *g, const cpumask_t *targets)
{
	spin_lock(&k->lock);
	pt_gather_copy_pages(g, k->pages);
	k->nr = g->nr_pages;
	k->targets = *targets;
	spin_unlock(&k->lock);
	this_cpu_add(PCPU_TLB_EARLY_KEPT, g->nr_pages);
	g->nr_pages = 0; /* the gather frees nothing of them */
}

/*
 * The gather's flush: first the frames this CPU kept at its last gather
 * go back (their targets have flushed since, or we wait until they have);
 * then one round, acknowledged early when no table is freed, and this
 * gather's frames are kept in their turn. With tables, no frames, or the
 * design off, the round is complete on return and the gather frees as
 * every design's.
 */
static void tlb_early_ack_gather_flush(struct pt_gather *g)
{
	struct tlb_batch *tb = container_of(g, struct tlb_batch, g);
	struct tlb_flush_req req = { tb->mm, tlb_target_flush, g->start, g->last, g->global,
				     g->nr_tables == 0 };
	struct ea_keep *k = this_cpu_ptr(ea_keep);
	bool keep = req.frees_no_tables && g->nr_pages && atomic_load_acquire(&ea_on) &&
		    atomic_load_acquire(&k->pages);
	cpumask_t mask;
	int err;

	/*
	 * A late flush of what we kept is its targets' failure, not this
	 * gather's: they are written off and those frames quarantined. This
	 * gather's round fails only if it needs one of them.
	 */
	(void)ea_release(arch_cpu_id());
	err = ea_send(&req, req.frees_no_tables, !keep, &mask);
	if (!err && keep && !cpumask_empty(&mask))
		ea_keep_take(k, g, &mask);
	if (err && !g->err)
		g->err = err;
}

/*
 * Every CPU's kept frames go back once their targets flushed: any CPU,
 * several at once (each keep under its lock). @mm: unused, the keeps hold
 * every mm's frames. Returns 0 or -ETIMEDOUT (those frames quarantined).
 */
static int tlb_settle_early_ack(struct mm *mm)
{
	unsigned cpu;
	int err = 0;

	(void)mm;
	for_each_cpu(cpu, &cpu_online_mask)
		if (ea_release(cpu))
			err = -ETIMEDOUT;
	return err;
}

/*
 * On: every online CPU's keep gets its lock and its room for frames, once
 * (they stay, as lazy's batches do: the torture counts them as the design's,
 * not as a leak). Off: every keep given back, and gathers keep nothing.
 */
static int tlb_enable_early_ack(bool on)
{
	unsigned cpu;

	if (!on) {
		atomic_store_release(&ea_on, false);
		return tlb_settle_early_ack(NULL);
	}
	for_each_cpu(cpu, &cpu_online_mask) {
		struct ea_keep *k = per_cpu_ptr(ea_keep, cpu);
		struct page *p;

		if (k->pages)
			continue;
		p = page_alloc(EA_PAGES_ORDER, 0);
		if (!p)
			return -ENOMEM;
		spin_lock_init(&k->lock, "tlb_early_keep");
		atomic_store_release(&k->pages, (struct page **)page_address(p));
	}
	atomic_store_release(&ea_on, true);
	return 0;
}

/* report hook: where the frames go back, which the timed unmap call pays. */
static void tlb_early_ack_report(struct json *j)
{
	json_str(j, "frames_released", "at the initiator's next gather: each timed unmap "
				       "releases the frames of the run before it");
}

const struct tlb_ops tlb_ops_early_ack = {
	.d = {
		.name = "early_ack",
		.desc = "batched, targets acknowledge before flushing; frames kept until "
			"the initiator's next gather",
		.source = "Amit, Tai, Wei, \"Don't shoot down TLB shootdowns!\" (EuroSys 2020), "
			  "early acknowledgement",
		.unit = "page",
		.promises = DESIGN_PROMISES(
			PROMISE(PCPU_TLB_SHOOTDOWNS, 1, PT_GATHER_PAGES),
			PROMISE(PCPU_IPI_SENT, 1, PT_GATHER_PAGES, .per_target = true)
		),
		.counters = DESIGN_COUNTERS(PCPU_TLB_EARLY_ACKS, PCPU_TLB_EARLY_KEPT),
	},
	.flush = tlb_flush_early_ack,
	.enable = tlb_enable_early_ack,
	.settle = tlb_settle_early_ack,
	.quiesce = tlb_quiesce_early_ack,
	.gather_flush = tlb_early_ack_gather_flush,
	.report = tlb_early_ack_report,
};
DESIGN_REGISTER(tlb_designs, tlb_ops_early_ack, 40);

/* ---- the control: frames released at acknowledgement time ---- */

static int tlb_flush_early_ack_at_ack(const struct tlb_flush_req *req)
{
	cpumask_t mask;

	return ea_send(req, true, false, &mask);
}

/* The detector's second control: tests/mm/tlb/designs/test_tlb_early_ack.c must catch it. */
const struct tlb_ops tlb_ops_early_ack_at_ack = {
	.d = {
		.name = "early_ack-at-ack",
		.desc = "early_ack releasing frames at acknowledgement: before targets flush",
		.source = "the early_ack detector's control (tests/mm/tlb/designs/test_tlb_early_ack.c)",
		.unit = "page",
		.control = true, /* promises nothing */
	},
	.flush = tlb_flush_early_ack_at_ack,
};
