/*
 * The "adding a design" proof (docs/design.md): a trivial TLB design built
 * only with make TEST_DESIGN=1, never into the real table. It is naive
 * again under another name, so its promises are naive's; what it shows is
 * that this file and one line in tlb_designs[] put it in the benchmark
 * (BENCH lines with "variant":"example", and so in the plots) and in every
 * design-table test suite, with no other file touched. tests/run-all.sh
 * checks that it does.
 */
#include "mm/tlb.h"

/* Before each page goes, the previous one is flushed and freed: one round per page. */
static int tlb_add_example(struct tlb_batch *b, vaddr_t va)
{
	(void)va;
	pt_gather_cut(&b->g);
	return 0;
}

const struct tlb_ops tlb_ops_example = {
	.d = {
		.name = "example",
		.desc = "naive under another name: the test-only design of docs/design.md",
		.source = "docs/design.md, \"Adding a design\"",
		.unit = "page",
		.promises = DESIGN_PROMISES(
			{ PCPU_TLB_SHOOTDOWNS, 1, 1, false, false },
			{ PCPU_IPI_SENT, 1, 1, true, false }
		),
	},
	.add = tlb_add_example,
	.flush = tlb_flush_send,
	.target_flush = tlb_target_flush,
};
