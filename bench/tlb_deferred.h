/*
 * What a completes_later TLB design leaves past its timed call, for the
 * benchmarks that unmap through one (bench/bench_tlb.c, bench_tlb_multi.c):
 * the settle after each timed run, its wait for the targets (their ticks)
 * apart from its release (the frames and tables given back), per variant
 * over a case's episodes. The release is work the call would have done;
 * the wait is not work, only the moment it happens.
 */
#ifndef BENCH_TLB_DEFERRED_H
#define BENCH_TLB_DEFERRED_H

#include "bench/bench_types.h"

struct bench_ctx;
struct json;
struct mm;

struct tlb_deferred {
	u64 wait[BENCH_MAX_VARIANTS], release[BENCH_MAX_VARIANTS], runs[BENCH_MAX_VARIANTS];
};

/* A new case: every variant's sums start again. */
void tlb_deferred_reset(struct tlb_deferred *d);

/*
 * Settles @c's design on @mm: its settle_wait, then tlb_settle(), each
 * timed and booked to @c's variant when the run it settles was timed and
 * the design completes later. Returns 0 or the first error.
 */
int tlb_deferred_settle(struct tlb_deferred *d, const struct bench_ctx *c, struct mm *mm);

/*
 * On a completes_later design's BENCH line: "deferred", "deferred_cost"
 * (the release per unit of @units per run), "deferred_wait" (the wait,
 * likewise) and what they are.
 */
void tlb_deferred_report(const struct tlb_deferred *d, const struct bench_ctx *c,
			 struct json *j, u64 units);

#endif
