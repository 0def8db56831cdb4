/*
 * mm's per-CPU event counters: the indexes after kernel/'s own
 * (kernel/percpu.h). Each is counted with this_cpu_inc() and named with
 * PCPU_COUNTER in the file that counts it.
 */
#ifndef MM_COUNTERS_H
#define MM_COUNTERS_H

#include "kernel/percpu.h"

/*
 * Plain int constants, not an enum of their own: they index the same
 * counter array as kernel/'s enum pcpu_counter and are passed where it is.
 */
#define PCPU_TLB_FLUSH_ONE (PCPU_KERNEL_COUNTERS + 0) /* single-page invalidations (mm/tlb.c) */
#define PCPU_TLB_FLUSH_ALL (PCPU_KERNEL_COUNTERS + 1) /* full (non-global) flushes */
#define PCPU_PAGE_FAULTS (PCPU_KERNEL_COUNTERS + 2) /* page faults handled (mm/fault.c) */
#define PCPU_TLB_SHOOTDOWNS (PCPU_KERNEL_COUNTERS + 3) /* shootdown rounds this CPU initiated (one IPI wave each) */
#define PCPU_PIN_FLAG_WRITES (PCPU_KERNEL_COUNTERS + 4) /* writes to an mm's shared has_pinned flag (mm/pin.c) */
#define PCPU_PAGEMAP_LOOKUPS (PCPU_KERNEL_COUNTERS + 5) /* device pagemap tree lookups (mm/pagemap.c) */
#define PCPU_PAGEMAP_REFS (PCPU_KERNEL_COUNTERS + 6) /* device pagemap references taken */
#define PCPU_PIN_UNLOADED (PCPU_KERNEL_COUNTERS + 7) /* pin calls on a CPU without the mm loaded: walked under its lock */
#define PCPU_PIN_RETRIES (PCPU_KERNEL_COUNTERS + 8) /* pins undone: their entry changed, or fork ran under a lockless walk */
#define PCPU_MAPPING_LOCKS (PCPU_KERNEL_COUNTERS + 9) /* mapping rwlock acquisitions on the fault path (mm/mapping.c) */
#define PCPU_SWAP_CLUSTER_LOCKS (PCPU_KERNEL_COUNTERS + 10) /* swap cluster lock acquisitions (mm/swap_cluster.c) */
#define PCPU_SWAP_DEVICE_LOCKS (PCPU_KERNEL_COUNTERS + 11) /* swap device lock acquisitions */
#define PCPU_SWAP_SLOTS_FREED (PCPU_KERNEL_COUNTERS + 12) /* swap slots returned to their cluster */
#define PCPU_SWAP_BATCH_FALLBACKS (PCPU_KERNEL_COUNTERS + 13) /* batched swap frees that fell back to one slot at a time (mm/swap_free.c) */
#define PCPU_SWAP_OUT_PAGES (PCPU_KERNEL_COUNTERS + 14) /* pages swapped out (mm/swap_mm.c) */
#define PCPU_PIN_REF_ATOMICS (PCPU_KERNEL_COUNTERS + 15) /* atomic adds to a page's or folio head's pin refcount (mm/pin.c) */
#define PCPU_VMA_LOCKS (PCPU_KERNEL_COUNTERS + 16) /* per-region fault lock acquisitions on the fault path (mm/mapping.c) */
#define PCPU_TLB_LAZY_QUEUED (PCPU_KERNEL_COUNTERS + 17) /* lazy invalidations queued to another CPU (mm/tlb_lazy.c) */
#define PCPU_TLB_LAZY_DRAINED (PCPU_KERNEL_COUNTERS + 18) /* lazy invalidations a CPU took off its queue */
#define PCPU_TLB_LAZY_FALLBACKS (PCPU_KERNEL_COUNTERS + 19) /* lazy flushes sent as an IPI round instead (queue full, tick off) */
#define PCPU_TLB_LAZY_DRAIN_ONE (PCPU_KERNEL_COUNTERS + 20) /* single-page invalidations a drain did */
#define PCPU_TLB_LAZY_DRAIN_ALL (PCPU_KERNEL_COUNTERS + 21) /* full flushes a drain did */
#define PCPU_TLB_EARLY_ACKS (PCPU_KERNEL_COUNTERS + 22) /* early_ack: requests a target acknowledged before flushing (mm/tlb_early_ack.c) */
#define PCPU_TLB_GEN_UPTODATE (PCPU_KERNEL_COUNTERS + 23) /* gen: requests a target received and found already flushed (mm/tlb_gen.c) */
#define PCPU_TLB_GEN_IPI_SKIPPED (PCPU_KERNEL_COUNTERS + 24) /* gen: CPUs an initiator did not interrupt, found up to date */
#define PCPU_MM_COUNTERS_END (PCPU_KERNEL_COUNTERS + 25)

BUILD_ASSERT(PCPU_MM_COUNTERS_END <= PCPU_MAX_COUNTERS);

#endif
