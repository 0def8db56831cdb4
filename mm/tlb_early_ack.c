/*
 * TLB design early_ack: a target acknowledges a shootdown before it
 * flushes, when the request frees no page-table pages (Nadav Amit, Amy
 * Tai, Michael Wei, "Don't shoot down TLB shootdowns!", EuroSys 2020, one
 * of the four techniques the paper combines for its speedups; Linux did
 * not take it over the safety of what the initiator frees meanwhile). The
 * initiator's wait for the acknowledgements ends as soon as every target
 * has entered its handler; the frames the request covers are released only
 * once every target has actually flushed: each CPU keeps a "started" and a
 * "flushed" generation of the early requests it handles, and the gather's
 * flush (which its frame release follows) waits until each target's
 * flushed generation reached the started one it had when it acknowledged.
 * A request that frees table pages keeps the acknowledgement after the
 * flush (a target's page walks may still use a freed table until then).
 * Everything else is batched's: the gather, one round per gather, the
 * target's flush policy. Also the detector's second control,
 * tlb_ops_early_ack_at_ack: the same acknowledgement, frames released at
 * acknowledgement time (tests/test_tlb_early_ack.c must catch it).
 *
 * Context: as mm/tlb.h. Targets run in the call IPI, interrupts off.
 */
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "mm/mm.h"
#include "mm/tlb.h"
#include "mm/tlb_early_ack.h"
#include <arch/arch.h>

PCPU_COUNTER(PCPU_TLB_EARLY_ACKS, "tlb_early_acks");

/*
 * Per CPU: as a target, how many early requests it started (counted
 * before it acknowledges) and flushed (after the flush).
 */
struct ea_cpu {
	u64 started;
	u64 flushed;
} __cacheline_aligned;

static struct ea_cpu ea_cpu __pcpu_data;

void (*tlb_early_ack_gap)(const struct tlb_flush_req *req);

/*
 * The early target: copy, count, acknowledge, then flush (the request
 * copy may be rewritten once we acknowledged). Interrupts off throughout,
 * also when the initiator runs it for itself: the counts are this CPU's.
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
 * Waits until every CPU of @mask flushed what it had started when it
 * acknowledged (acquire: its flush is done before we release frames).
 * Bounded like every cross-CPU wait: -ETIMEDOUT, and the gather then
 * quarantines the frames.
 */
static int ea_wait_flushed(const cpumask_t *mask)
{
	u64 deadline = arch_tsc_read() + arch_tsc_hz() / 1000 * smp_timeout_ms();
	unsigned cpu;

	for_each_cpu(cpu, mask) {
		struct ea_cpu *t = per_cpu_ptr(ea_cpu, cpu);
		u64 want = atomic_load_acquire(&t->started);

		while (atomic_load_acquire(&t->flushed) < want) {
			if (arch_tsc_read() > deadline)
				return -ETIMEDOUT;
			arch_cpu_relax();
		}
	}
	return 0;
}

/*
 * One round as batched's, to a snapshot of the mask (the CPUs waited for
 * are the CPUs sent to); with @early the targets acknowledge first and,
 * with @wait, we wait for their real flush before returning.
 */
static int ea_send(const struct tlb_flush_req *req, bool early, bool wait)
{
	struct tlb_flush_req r = *req;
	cpumask_t mask;
	int err;

	if (early)
		r.target = ea_target_early;
	/* Before the mask is read, as tlb_flush_send() (mm/tlb.c). */
	atomic_fetch_add(&r.mm->tlb_gen, 1);
	cpumask_copy_acquire(&mask, mm_cpumask(r.mm));
	cpumask_clear_cpu(arch_cpu_id(), &mask);
	err = tlb_flush_send_mask(&r, sizeof(r), &mask);
	if (!err && early && wait)
		err = ea_wait_flushed(&mask);
	return err;
}

static int tlb_flush_early_ack(const struct tlb_flush_req *req)
{
	return ea_send(req, req->frees_no_tables, true);
}

const struct tlb_ops tlb_ops_early_ack = {
	.d = {
		.name = "early_ack",
		.desc = "batched, targets acknowledge before flushing; frames wait for the flush",
		.source = "Amit, Tai, Wei, \"Don't shoot down TLB shootdowns!\" (EuroSys 2020), "
			  "early acknowledgement",
		.unit = "page",
		.promises = DESIGN_PROMISES(
			{ PCPU_TLB_SHOOTDOWNS, 1, PT_GATHER_PAGES, false, false },
			{ PCPU_IPI_SENT, 1, PT_GATHER_PAGES, true, false }
		),
		.counters = DESIGN_COUNTERS(PCPU_TLB_EARLY_ACKS),
	},
	.add = tlb_add_queued,
	.flush = tlb_flush_early_ack,
	.target_flush = tlb_target_flush,
};

/* ---- the control: frames released at acknowledgement time ---- */

static int tlb_flush_early_ack_at_ack(const struct tlb_flush_req *req)
{
	return ea_send(req, true, false);
}

const struct tlb_ops tlb_ops_early_ack_at_ack = {
	.d = {
		.name = "early_ack-at-ack",
		.desc = "early_ack releasing frames at acknowledgement: before targets flush",
		.source = "the early_ack detector's control (tests/test_tlb_early_ack.c)",
		.unit = "page",
		.control = true, /* promises nothing */
	},
	.add = tlb_add_queued,
	.flush = tlb_flush_early_ack_at_ack,
	.target_flush = tlb_target_flush,
};
