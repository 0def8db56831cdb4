/*
 * serial: batched's gather and rounds, but the initiator flushes its own
 * TLB before it sends the IPIs (Linux before 5.13), so nothing overlaps:
 * the cost that sending first removes, on its own. Context: as batched's.
 */
#include "mm/tlb/tlb.h"

/*
 * Linux before 5.13: flush_tlb_mm_range() flushed the local TLB first and
 * only then called flush_tlb_others(), so the initiator's own invalidation
 * never overlapped the IPIs' flight and the targets' work. Nadav Amit's
 * "x86/mm/tlb: Flush remote and local TLBs concurrently" (Linux 5.13,
 * commit 4ce94eabac16) sends first. serial is batched with the old order
 * and nothing else changed (same gather, same smp_call() rounds, same
 * target), so batched against serial measures that reordering alone.
 */
static int tlb_flush_serial(const struct tlb_flush_req *req)
{
	return tlb_flush_send_ordered(req, true);
}

const struct tlb_ops tlb_ops_serial = {
	.d = {
		.name = "serial",
		.desc = "batched, but the local flush before the IPIs, not overlapping them",
		.source = "Linux before 5.13; Nadav Amit, \"x86/mm/tlb: Flush remote and local "
			  "TLBs concurrently\" (4ce94eabac16)",
		.unit = "page",
		.promises = DESIGN_PROMISES(
			PROMISE(PCPU_TLB_SHOOTDOWNS, 1, PT_GATHER_PAGES),
			PROMISE(PCPU_IPI_SENT, 1, PT_GATHER_PAGES, .per_target = true)
		),
	},
	.flush = tlb_flush_serial,
};
DESIGN_REGISTER(tlb_designs, tlb_ops_serial, 20);
