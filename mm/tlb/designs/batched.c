/*
 * batched: pages are gathered (up to PT_GATHER_PAGES, see mm/pt.h); one IPI
 * per target CPU per batch carries the range; a target invalidates page by
 * page up to the ceiling (TLB_FLUSH_CEILING) and flushes all above it; the
 * initiator's own flush overlaps the wait for the acknowledgements.
 */
#include "mm/tlb/tlb.h"

const struct tlb_ops tlb_ops_batched = {
	.d = {
		.name = "batched",
		.desc = "one IPI round per gather of pages, page by page up to the ceiling",
		.source = "Mel Gorman, \"send one IPI per CPU to TLB flush all entries after "
			  "unmapping pages\" (Linux 4.3, 2015)",
		.unit = "page",
		.promises = DESIGN_PROMISES(
			PROMISE(PCPU_TLB_SHOOTDOWNS, 1, PT_GATHER_PAGES),
			PROMISE(PCPU_IPI_SENT, 1, PT_GATHER_PAGES, .per_target = true)
		),
	},
	.flush = tlb_flush_send,
};
DESIGN_REGISTER(tlb_designs, tlb_ops_batched, 10);
