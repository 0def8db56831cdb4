/*
 * The early_ack TLB design (mm/tlb/designs/early_ack.c): its table line, and its
 * control and gap hook for the self-tests.
 */
#ifndef MM_TLB_EARLY_ACK_H
#define MM_TLB_EARLY_ACK_H

#include "mm/tlb/tlb.h"

extern const struct tlb_ops tlb_ops_early_ack;

/* Its counters (the benchmarks take them from its table entry; tests name them). */
PCPU_COUNTER_DECLARE(PCPU_TLB_EARLY_ACKS); /* requests acknowledged before the flush */
PCPU_COUNTER_DECLARE(PCPU_TLB_EARLY_KEPT); /* frames kept past their gather, to the next */

/*
 * early_ack's control (mm/tlb/designs/early_ack.c): its targets acknowledge before
 * they flush and the frames are released at acknowledgement time, before
 * the flush. Wrong on purpose, not in tlb_designs[]: only
 * tests/mm/tlb/designs/test_tlb_early_ack.c uses it, to show that test catches it.
 */
extern const struct tlb_ops tlb_ops_early_ack_at_ack;
/*
 * Self-tests only (NULL otherwise): run on each target of an early_ack
 * request between its acknowledgement and its flush, interrupts off.
 */
extern void (*tlb_early_ack_gap)(const struct tlb_flush_req *req);

#endif
