/*
 * naive: every page gets its own IPI round. Each CPU in the mask does one
 * invlpg, and the initiator waits for every acknowledgement before it
 * unmaps the next page. The baseline of the table (order 0). Promises,
 * per page unmapped: one PCPU_TLB_SHOOTDOWNS round, one PCPU_IPI_SENT per
 * remote CPU with the mm loaded. Context: as every design's (mm/tlb/tlb.h).
 */
#include "mm/tlb/tlb.h"

const struct tlb_ops tlb_ops_naive = {
	.d = {
		.name = "naive",
		.desc = "one IPI round per page, each target invalidates that page",
		.source = "the per-page flush_tlb_page() of Linux's reclaim (try_to_unmap) "
			  "before 4.3 (2015), applied here to any unmap",
		.unit = "page",
		.promises = DESIGN_PROMISES(
			PROMISE(PCPU_TLB_SHOOTDOWNS, 1, 1),
			PROMISE(PCPU_IPI_SENT, 1, 1, .per_target = true)
		),
	},
	/* The previous page's round (IPI, wait, free) before the next page goes. */
	.add = tlb_add_flush_first,
	.flush = tlb_flush_send,
};
DESIGN_REGISTER(tlb_designs, tlb_ops_naive, 0);
