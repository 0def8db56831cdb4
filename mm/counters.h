/*
 * mm's per-CPU event counters that files other than their owner read
 * (kernel/percpu.h): each is defined with PCPU_COUNTER, and counted with
 * this_cpu_inc(), in the file named above it. No numbers: a counter's
 * index is its place in the pcpu_counters section. A counter that only its
 * own file reads needs no line here; a design's own are declared in its
 * header and reach the benchmarks through design.counters.
 */
#ifndef MM_COUNTERS_H
#define MM_COUNTERS_H

#include "kernel/percpu.h"

/* mm/tlb/tlb.c */
PCPU_COUNTER_DECLARE(PCPU_TLB_FLUSH_ONE);  /* single-page invalidations */
PCPU_COUNTER_DECLARE(PCPU_TLB_FLUSH_ALL);  /* full (non-global) flushes */
PCPU_COUNTER_DECLARE(PCPU_TLB_SHOOTDOWNS); /* rounds this CPU initiated, one IPI wave each */
/* gather flushes that returned with a call unacknowledged (mm/tlb/tlb_batch.c) */
PCPU_COUNTER_DECLARE(PCPU_TLB_UNACKED_FREES);
/* mm/fault.c */
PCPU_COUNTER_DECLARE(PCPU_PAGE_FAULTS); /* page faults handled */
/* mm/pin/pin.c */
PCPU_COUNTER_DECLARE(PCPU_PIN_FLAG_WRITES); /* writes to an mm's shared has_pinned flag */
PCPU_COUNTER_DECLARE(PCPU_PIN_UNLOADED);    /* pins on a CPU without the mm loaded: walked locked */
PCPU_COUNTER_DECLARE(PCPU_PIN_RETRIES);	    /* pins undone: entry changed, or fork ran */
PCPU_COUNTER_DECLARE(PCPU_PIN_REF_ATOMICS); /* atomic adds to a page or folio pin refcount */
/* mm/migrate.c */
PCPU_COUNTER_DECLARE(PCPU_MIGRATE_COPIES); /* pages copied to their new frame */
/* mm/pin/pagemap.c */
PCPU_COUNTER_DECLARE(PCPU_PAGEMAP_LOOKUPS); /* device pagemap tree lookups */
PCPU_COUNTER_DECLARE(PCPU_PAGEMAP_REFS);    /* device pagemap references taken */
/* mm/mapping/mapping.c */
PCPU_COUNTER_DECLARE(PCPU_MAPPING_LOCKS); /* mapping rwlock takes on the fault path */
PCPU_COUNTER_DECLARE(PCPU_VMA_LOCKS);	  /* per-region fault lock takes on the fault path */
/* mm/swap/swap_cluster.c, mm/swap/swap_free.c, mm/swap/swap_mm.c */
PCPU_COUNTER_DECLARE(PCPU_SWAP_CLUSTER_LOCKS);	 /* swap cluster lock acquisitions */
PCPU_COUNTER_DECLARE(PCPU_SWAP_DEVICE_LOCKS);	 /* swap device lock acquisitions */
PCPU_COUNTER_DECLARE(PCPU_SWAP_SLOTS_FREED);	 /* swap slots returned to their cluster */
PCPU_COUNTER_DECLARE(PCPU_SWAP_BATCH_FALLBACKS); /* batched frees done one slot at a time */
PCPU_COUNTER_DECLARE(PCPU_SWAP_OUT_PAGES);	 /* pages swapped out */

#endif
