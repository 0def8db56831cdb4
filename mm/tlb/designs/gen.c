/*
 * TLB design gen, after Andy Lutomirski's "x86/mm: Track the TLB's tlb_gen
 * and update the flushing algorithm": requests carry the mm generation they
 * bring targets to, and each CPU records how far it flushed, so an up-to-date
 * target does nothing and one far behind flushes in full once. The record is
 * per CPU, written by it with interrupts off, read under a sequence count.
 * Context: as mm/tlb/tlb.h. Targets run in the call IPI, interrupts off.
 */
#include "kernel/percpu.h"
#include "lib/atomic.h"
#include "mm/mm.h"
#include "mm/tlb/tlb.h"
#include "mm/tlb/designs/gen.h"
#include <arch/arch.h>

PCPU_COUNTER(PCPU_TLB_GEN_UPTODATE, "tlb_gen_uptodate");
PCPU_COUNTER(PCPU_TLB_GEN_IPI_SKIPPED, "tlb_gen_ipi_skipped");

/*
 * Its own counters, both of a (request, CPU) pair settled without a flush:
 * a target found up to date, a CPU the initiator skipped.
 */
static const struct pcpu_counter *const gen_counters[] = {
	PCPU_TLB_GEN_UPTODATE, PCPU_TLB_GEN_IPI_SKIPPED, NULL
};

/* What a target gets: the request and its generation (copied whole, mm/tlb/tlb.h). */
struct gen_req {
	struct tlb_flush_req req;
	u64 gen;
};
BUILD_ASSERT(sizeof(struct gen_req) <= SMP_CALL_DATA_MAX);

/* This CPU has flushed the mm named @ctx_id up to @gen; @seq odd while rewritten. */
struct gen_cpu {
	u32 seq;
	u64 ctx_id;
	u64 gen;
} __cacheline_aligned;

static struct gen_cpu gen_cpu __pcpu_data;

/* How far this CPU has flushed @mm, which it runs now. Interrupts off. */
static u64 gen_local(const struct mm *mm)
{
	const struct gen_cpu *c = this_cpu_ptr(gen_cpu);
	u64 g = c->ctx_id == mm->ctx_id ? c->gen : 0;

	return MAX(g, mm_loaded_gen());
}

static void gen_record(const struct mm *mm, u64 gen)
{
	struct gen_cpu *c = this_cpu_ptr(gen_cpu);

	/*
	 * The seqcount writer (only this CPU writes @c): the odd count, then a
	 * write barrier, then the data, then the even count with release. The
	 * barrier orders the odd store before the data stores whatever their
	 * own order: a reader (gen_cpu_uptodate()) whose acquire load sees new
	 * data then sees the count odd or moved on, and says no.
	 */
	atomic_store_relaxed(&c->seq, c->seq + 1);
	smp_wmb();
	atomic_store_relaxed(&c->ctx_id, mm->ctx_id);
	atomic_store_relaxed(&c->gen, gen);
	atomic_store_release(&c->seq, c->seq + 1);
}

/* From an initiator: whether @cpu has flushed @mm up to @gen (a torn read says no). */
static bool gen_cpu_uptodate(unsigned cpu, const struct mm *mm, u64 gen)
{
	const struct gen_cpu *c = per_cpu_ptr(gen_cpu, cpu);
	u32 seq = atomic_load_acquire(&c->seq);
	bool ok = atomic_load_acquire(&c->ctx_id) == mm->ctx_id &&
		  atomic_load_acquire(&c->gen) >= gen;

	return ok && !(seq & 1) && atomic_load_acquire(&c->seq) == seq;
}

/*
 * The flush decision for a request of generation @gen (interrupts off).
 * A global request flushes its range, global entries included, whatever
 * the record says: the full flush that coalesces keeps global entries.
 */
static void gen_flush(struct mm *mm, const struct tlb_flush_req *req, u64 gen)
{
	u64 local = gen_local(mm);
	/* After the initiators' page-table changes: each bumps after its changes. */
	u64 now = atomic_load_acquire(&mm->tlb_gen);

	if (req->global) {
		tlb_flush_local(req->start, req->last, true);
		return;
	}
	if (local >= gen) {
		this_cpu_inc(PCPU_TLB_GEN_UPTODATE);
		return;
	}
	if (local + 1 == gen && gen == now)
		tlb_flush_local(req->start, req->last, false); /* ours is all we lack */
	else
		tlb_flush_local(1, 0, false); /* several behind: one full flush, up to @now */
	gen_record(mm, now);
}

/* On each target, and on the initiator for itself (interrupts off here too). */
static void tlb_target_gen(const struct tlb_flush_req *req)
{
	const struct gen_req *gr = container_of(req, struct gen_req, req);
	unsigned long flags = arch_irq_save();

	/* Switched away: mm_switch() flushes when it comes back. */
	if (mm_current() == req->mm)
		gen_flush(req->mm, req, gr->gen);
	arch_irq_restore(flags);
}

/* Self-tests only (NULL otherwise): on the initiator between its bump and its scan. */
void (*tlb_gen_bumped)(struct mm *mm);

static int tlb_flush_gen(const struct tlb_flush_req *req)
{
	struct gen_req gr = { .req = *req };
	unsigned self = arch_cpu_id(), cpu;
	cpumask_t mask, send;

	gr.req.target = tlb_target_gen;
	/* Before the mask is read, as tlb_flush_send() (mm/tlb/tlb.c). */
	gr.gen = atomic_fetch_add(&req->mm->tlb_gen, 1) + 1;
	if (tlb_gen_bumped)
		tlb_gen_bumped(req->mm);
	cpumask_copy_acquire(&mask, mm_cpumask(req->mm));
	cpumask_clear(&send);
	for_each_cpu(cpu, &mask) {
		if (cpu == self)
			continue;
		if (!req->global && gen_cpu_uptodate(cpu, req->mm, gr.gen))
			this_cpu_inc(PCPU_TLB_GEN_IPI_SKIPPED);
		else
			cpumask_set_cpu(cpu, &send);
	}
	return tlb_flush_send_mask(&gr.req, sizeof(gr), &send);
}

const struct tlb_ops tlb_ops_gen = {
	.d = {
		.name = "gen",
		.desc = "batched, a target up to date skips (or flushes once for several); "
			"the initiator skips CPUs up to date",
		.source = "Andy Lutomirski, \"x86/mm: Track the TLB's tlb_gen and update the "
			  "flushing algorithm\" (Linux 4.14, b0579ade7cd8)",
		.unit = "page",
		.promises = DESIGN_PROMISES(
			PROMISE(PCPU_TLB_SHOOTDOWNS, 1, PT_GATHER_PAGES),
			PROMISE(PCPU_IPI_SENT, 1, PT_GATHER_PAGES, .per_target = true,
				.at_most = true)
		),
		.counters = gen_counters,
	},
	.flush = tlb_flush_gen,
	/*
	 * What a plain request (no generation: the unmap loop's, before
	 * tlb_flush_gen() wraps it) would get; gen's own carry tlb_target_gen.
	 */
	.settled = gen_counters,
};
DESIGN_REGISTER(tlb_designs, tlb_ops_gen, 50);
