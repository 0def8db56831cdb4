/*
 * The reuse probe: what the targets observe of a batch's frames when a
 * TLB design swaps it out (bench/bench_reclaim.c's verify). The file
 * readers (bench/file_readers.h) hold the batch's translations with their
 * interrupts off while the boot CPU swaps it out and hands its frames on.
 * Boot CPU, task context, interrupts on, the readers started and idle.
 */
#ifndef BENCH_REUSE_PROBE_H
#define BENCH_REUSE_PROBE_H

#include "types.h"

struct mm;
struct tlb_ops;

/* Pages of the probe's batch (one reclaim batch): map none of @mm at @base..+this. */
#define REUSE_PROBE_PAGES 32

/*
 * Maps and tags REUSE_PROBE_PAGES pages at @base in @mm (loaded here and
 * on the readers' CPUs), arms the readers, swaps the batch out to swap
 * device @type through @ops' gather, takes frames back from the allocator
 * and writes a new owner's word in each, releases the readers, and unmaps
 * the batch again. *@handed: the batch's frames among those taken back;
 * *@stale: the readers' reads of anything but the pages' tags (a frame
 * handed on under a live translation). Returns 0 or an error.
 */
int reuse_probe(const struct tlb_ops *ops, struct mm *mm, vaddr_t base, unsigned type,
		u64 *handed, u64 *stale);

#endif
