/*
 * batched: pages are gathered (the whole call, up to PT_GATHER_PAGES, then
 * the batch is flushed mid-walk: the bound and its reason are in mm/pt.h);
 * one IPI per target CPU per batch carries the range; a target invalidates
 * page by page up to the ceiling (tlb_ceiling=, default TLB_FLUSH_CEILING)
 * and flushes everything above it; the initiator's own flush overlaps the
 * wait for the acknowledgements. The promise's rounding up is exact except
 * at k * PT_GATHER_PAGES + 1 pages, one round fewer (mm/pt.h).
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
