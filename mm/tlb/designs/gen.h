/* The gen TLB design (mm/tlb/designs/gen.c), for its table line and its self-tests. */
#ifndef MM_TLB_GEN_H
#define MM_TLB_GEN_H

#include "mm/tlb/tlb.h"

extern const struct tlb_ops tlb_ops_gen;

/* Its counters (the benchmarks take them from its table entry; tests name them). */
PCPU_COUNTER_DECLARE(PCPU_TLB_GEN_UPTODATE);	/* requests a target found already flushed */
PCPU_COUNTER_DECLARE(PCPU_TLB_GEN_IPI_SKIPPED); /* CPUs not interrupted, found up to date */

#endif
