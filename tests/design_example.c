/*
 * The "adding a design" proof (docs/design.md): a small TLB design, built
 * only with make TEST_DESIGN=1, that flushes like naive and owns what a real
 * design owns: a counter (PCPU_TLB_EXAMPLE_ROUNDS) its BENCH lines report,
 * its traits, and a promise the tlb benchmark's verify checks. Its
 * DESIGN_REGISTER line alone puts it in the benchmark and every design-table
 * suite; tests/steps/design.sh checks that. Context: as naive's.
 */
#include "mm/pt.h"
#include "mm/tlb/tlb.h"

/* The rounds this design sent: one per page unmapped, its own promise. */
PCPU_COUNTER(PCPU_TLB_EXAMPLE_ROUNDS, "tlb_example_rounds");

/* Before each page goes, the previous one is flushed and freed: one round per page. */
static int tlb_add_example(struct tlb_batch *b, vaddr_t va)
{
	(void)va;
	pt_gather_cut(&b->g);
	return 0;
}

/* One round, as every design sends it, counted as this design's own. */
static int tlb_flush_example(const struct tlb_flush_req *req)
{
	this_cpu_inc(PCPU_TLB_EXAMPLE_ROUNDS);
	return tlb_flush_send(req);
}

static const struct tlb_ops tlb_ops_example = {
	.d = {
		.name = "example",
		.desc = "naive's order, with a round counter of its own: docs/design.md's example",
		.source = "docs/adding-a-design.md",
		.unit = "page",
		/*
		 * Its traits, stated: each round is complete when the unmap
		 * returns, so the benchmark frees and reuses at once, and the
		 * remotes flush in the round, not at a drain of their own.
		 */
		.completes_later = false,
		.remotes_flush_at_drain = false,
		.promises = DESIGN_PROMISES(
			PROMISE(PCPU_TLB_EXAMPLE_ROUNDS, 1, 1),
			PROMISE(PCPU_TLB_SHOOTDOWNS, 1, 1),
			PROMISE(PCPU_IPI_SENT, 1, 1, .per_target = true)
		),
		.counters = DESIGN_COUNTERS(PCPU_TLB_EXAMPLE_ROUNDS),
	},
	.add = tlb_add_example,
	.flush = tlb_flush_example,
};
DESIGN_REGISTER(tlb_designs, tlb_ops_example, 70);
