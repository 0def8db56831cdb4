/*
 * The TLB designs (struct tlb_ops, mm/tlb.h) and their table. A new design
 * is one more section here (or a file of its own) and one line in
 * tlb_designs[]; the benchmark, its verify and the self-tests pick it up
 * from the table. The three here:
 *   naive:   every page gets its own IPI round: each CPU in the mask does one
 *            invlpg, and the initiator waits for every acknowledgement before
 *            it unmaps the next page.
 *   batched: pages are gathered (the whole call, up to PT_GATHER_PAGES,
 *            then the batch is flushed mid-walk: the bound and its reason
 *            are in mm/pt.h); one IPI per target CPU per batch carries the range;
 *            a target invalidates page by page up to the ceiling (tlb_ceiling=,
 *            default TLB_FLUSH_CEILING) and flushes everything above it; the
 *            initiator's own flush overlaps the wait for the acknowledgements.
 *   serial:  batched's gather and rounds, but the initiator flushes its own
 *            TLB before it sends the IPIs (Linux before 5.13), so nothing
 *            overlaps: the cost that sending first removes, on its own.
 * The others are in files of their own (mm/tlb_lazy.c, mm/tlb_early_ack.c,
 * mm/tlb_gen.c).
 *
 * Promises count per page unmapped: PCPU_TLB_SHOOTDOWNS rounds the
 * initiator sends, PCPU_IPI_SENT per remote CPU with the mm loaded (lazy,
 * in mm/tlb_lazy.c: PCPU_TLB_LAZY_QUEUED entries instead, and none of those).
 * The gathering designs promise one round per PT_GATHER_PAGES pages, which
 * is one round per tlb_unmap_pages() call up to that bound (mm/pt.h). The
 * promise's rounding up is exact except at k * 8192 + 1 pages, one round
 * fewer: the gather cuts when a frame does not fit, after that page's range
 * joined the round, so 8193 pages take one round and 8194 two (the tlb
 * bench's case above the bound is 8194 pages for that reason).
 */
#include "lib/atomic.h"
#include "mm/mm.h"
#include "mm/tlb.h"
#include "mm/tlb_early_ack.h"
#include "mm/tlb_gen.h"
#include "mm/tlb_lazy.h"

/* ---- naive ---- */

const struct tlb_ops tlb_ops_naive = {
	.d = {
		.name = "naive",
		.desc = "one IPI round per page, each target invalidates that page",
		.source = "the per-page flush_tlb_page() of Linux's reclaim (try_to_unmap) "
			  "before 4.3 (2015), applied here to any unmap",
		.unit = "page",
		.promises = DESIGN_PROMISES(
			{ PCPU_TLB_SHOOTDOWNS, 1, 1, false, false },
			{ PCPU_IPI_SENT, 1, 1, true, false }
		),
	},
	/* The previous page's round (IPI, wait, free) before the next page goes. */
	.add = tlb_add_flush_first,
	.flush = tlb_flush_send,
	.target_flush = tlb_target_flush,
};

/* ---- batched ---- */

const struct tlb_ops tlb_ops_batched = {
	.d = {
		.name = "batched",
		.desc = "one IPI round per gather of pages, page by page up to the ceiling",
		.source = "Mel Gorman, \"send one IPI per CPU to TLB flush all entries after "
			  "unmapping pages\" (Linux 4.3, 2015)",
		.unit = "page",
		.promises = DESIGN_PROMISES(
			{ PCPU_TLB_SHOOTDOWNS, 1, PT_GATHER_PAGES, false, false },
			{ PCPU_IPI_SENT, 1, PT_GATHER_PAGES, true, false }
		),
	},
	.add = tlb_add_queued,
	.flush = tlb_flush_send,
	.target_flush = tlb_target_flush,
};

/* ---- serial ---- */

/*
 * Linux before 5.13: flush_tlb_mm_range() flushed the local TLB first and
 * only then called flush_tlb_others(), so the initiator's own invalidation
 * never overlapped the IPIs' flight and the targets' work. Nadav Amit's
 * "x86/mm/tlb: Flush remote and local TLBs concurrently" (Linux 5.13,
 * commit 4ce94eabac16) sends first. serial is batched with the old order
 * and nothing else changed (same gather, same smp_call() rounds, same target), so
 * batched against serial measures that reordering alone.
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
			{ PCPU_TLB_SHOOTDOWNS, 1, PT_GATHER_PAGES, false, false },
			{ PCPU_IPI_SENT, 1, PT_GATHER_PAGES, true, false }
		),
	},
	.add = tlb_add_queued,
	.flush = tlb_flush_serial,
	.target_flush = tlb_target_flush,
};

/* ---- no-remote: the detector's control ---- */

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
		.source = "the stale-translation detector's control run (tests/test_tlb_stale.c)",
		.unit = "page",
		.control = true, /* promises nothing */
	},
	.add = tlb_add_queued,
	.flush = tlb_flush_no_remote,
	.target_flush = tlb_target_flush,
};

/* ---- the table ---- */

#ifdef MMLAB_TEST_DESIGN
extern const struct tlb_ops tlb_ops_example;
#endif
#ifdef MMLAB_TEST_DESIGN_BROKEN
/* tests/design_broken.c */
extern const struct tlb_ops tlb_ops_broken_skip, tlb_ops_broken_early_free;
extern const struct tlb_ops tlb_ops_broken_ack_skip, tlb_ops_broken_ack_early;
#endif

const struct design *const tlb_designs[] = {
	&tlb_ops_naive.d,
	&tlb_ops_batched.d,
	&tlb_ops_serial.d,
	&tlb_ops_lazy.d, /* mm/tlb_lazy.c */
	&tlb_ops_early_ack.d, /* mm/tlb_early_ack.c */
	&tlb_ops_gen.d,	      /* mm/tlb_gen.c */
	&tlb_ops_no_remote.d,
#ifdef MMLAB_TEST_DESIGN
	&tlb_ops_example.d, /* tests/design_example.c, make TEST_DESIGN=1 only */
#endif
#ifdef MMLAB_TEST_DESIGN_BROKEN
	&tlb_ops_broken_skip.d, /* tests/design_broken.c, make TEST_DESIGN=broken only */
	&tlb_ops_broken_early_free.d,
	&tlb_ops_broken_ack_skip.d,
	&tlb_ops_broken_ack_early.d,
#endif
	NULL,
};
