/*
 * Deliberately broken TLB designs (make TEST_DESIGN=broken, own O=), never
 * in a real table: each claims batched's promises and breaks them one way
 * (see each below) that the tlb verify must catch and name, by what layers
 * the design does not own count (mm/tlb/tlb.c's flushes, kernel/smp.c's IPIs,
 * acknowledgements and pending call), never by a counter of the design's;
 * tests/steps/design.sh checks it. Broken ipi and pin designs: beside their tables.
 */
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "mm/mm.h"
#include "mm/tlb/tlb.h"
#include <arch/arch.h>

/*
 * Both claim batched's promises (one round per gather, one IPI per remote)
 * and break them their own way, in @flush or in the target's @target_fn.
 */
#define BROKEN_TLB_DESIGN_T(dname, order, what, flush_fn, target_fn)                               \
	static const struct tlb_ops tlb_ops_##dname = {                                           \
		.d = {                                                                             \
			.name = #dname,                                                            \
			.desc = "batched's promises, but " what,                                   \
			.source = "tests/steps/design.sh, verify that can fail",                   \
			.unit = "page",                                                            \
			.promises = DESIGN_PROMISES(                                               \
				PROMISE(PCPU_TLB_SHOOTDOWNS, 1, PT_GATHER_PAGES),                  \
				PROMISE(PCPU_IPI_SENT, 1, PT_GATHER_PAGES, .per_target = true)     \
			),                                                                         \
		},                                                                                 \
		.flush = flush_fn,                                                                 \
		.target_flush = target_fn,                                                         \
	};                                                                                         \
	DESIGN_REGISTER(tlb_designs, tlb_ops_##dname, order)
#define BROKEN_TLB_DESIGN(dname, order, what, flush_fn)                                            \
	BROKEN_TLB_DESIGN_T(dname, order, what, flush_fn, NULL)

/* A new generation, then @mask = the mm's CPUs but this one, as a round's targets. */
static void broken_targets(const struct tlb_flush_req *req, cpumask_t *mask)
{
	atomic_fetch_add(&req->mm->tlb_gen, 1);
	cpumask_copy(mask, mm_cpumask(req->mm));
	cpumask_clear_cpu(arch_cpu_id(), mask);
}

/* broken_skip: batched's round to the mm's CPUs but the caller and the last other one. */
static int tlb_flush_broken_skip(const struct tlb_flush_req *req)
{
	unsigned cpu, last = MAX_CPUS;
	cpumask_t mask;

	broken_targets(req, &mask);
	for_each_cpu(cpu, &mask)
		last = cpu;
	if (last != MAX_CPUS)
		cpumask_clear_cpu(last, &mask);
	return tlb_flush_send_mask(req, sizeof(*req), &mask);
}

BROKEN_TLB_DESIGN(broken_skip, 80, "one remote CPU is never sent the round", tlb_flush_broken_skip);

/* A target of broken_early_free: the request's own flush, as any round's. */
static void broken_target(void *arg)
{
	const struct tlb_flush_req *req = arg;

	req->target(req);
}

/*
 * broken_early_free: serial's round, but nobody waits for it (the next
 * call's drain does, too late): the gather frees the frames as the IPIs
 * leave. Caught by the call still pending when the gather's flush returns.
 */
static int tlb_flush_broken_early_free(const struct tlb_flush_req *req)
{
	cpumask_t mask;

	broken_targets(req, &mask);
	this_cpu_inc(PCPU_TLB_SHOOTDOWNS);
	req->target(req); /* our own flush first (serial's order): the IPIs leave last */
	return smp_call_copy(&mask, broken_target, (void *)req, sizeof(*req), false);
}

BROKEN_TLB_DESIGN(broken_early_free, 81, "frames freed before the acknowledgements",
		  tlb_flush_broken_early_free);

/* As a target (in the call): acknowledged, and no flush. The initiator's own flush is kept. */
static void broken_target_ack_skip(const struct tlb_flush_req *req)
{
	if (!smp_call_ack())
		tlb_target_flush(req);
}

BROKEN_TLB_DESIGN_T(broken_ack_skip, 82, "a target acknowledges and skips its flush",
		    tlb_flush_send, broken_target_ack_skip);

/* As a target: acknowledged first, so the initiator frees the frames while we flush. */
static void broken_target_ack_early(const struct tlb_flush_req *req)
{
	smp_call_ack();
	tlb_target_flush(req);
}

BROKEN_TLB_DESIGN_T(broken_ack_early, 83, "a target acknowledges before it flushes",
		    tlb_flush_send, broken_target_ack_early);
