/*
 * no-remote: the stale-translation detector's control (tests/mm/tlb/test_tlb_stale.c)
 * and tlb's silent control (bench.silent_design). Flushes the initiator
 * only, never the others: stale entries elsewhere, on purpose (design.control).
 */
#include "lib/atomic.h"
#include "mm/mm.h"
#include "mm/tlb/tlb.h"

/* The request never leaves this CPU: no round, no IPI (the generation still moves). */
static int tlb_flush_no_remote(const struct tlb_flush_req *req)
{
	atomic_fetch_add(&req->mm->tlb_gen, 1);
	req->target(req);
	return 0;
}

const struct tlb_ops tlb_ops_no_remote = {
	.d = {
		.name = "no-remote",
		.desc = "flushes the initiator only: stale entries elsewhere, on purpose",
		.source = "the stale-translation detector's control run (tests/mm/tlb/test_tlb_stale.c)",
		.unit = "page",
		.control = true, /* promises nothing */
	},
	.flush = tlb_flush_no_remote,
};
DESIGN_REGISTER(tlb_designs, tlb_ops_no_remote, 60);
