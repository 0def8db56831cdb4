/*
 * The lazy TLB design (mm/tlb/designs/lazy.c): what its table line, its self-tests
 * and its benchmark knobs need of it.
 */
#ifndef MM_TLB_LAZY_H
#define MM_TLB_LAZY_H

#include "mm/tlb/tlb.h"

/*
 * Invalidations each CPU's queue holds before a flush to it falls back to
 * an IPI round (a gather, up to PT_GATHER_PAGES pages, queues one; a tlb
 * benchmark run queues one or two per CPU between drains); flushes whose
 * frames may wait for drains at once (more than a queue holds, so one slow
 * CPU fills its queue first; when none is free the flush falls back too);
 * and its drain tick's default rate,
 * 1000 Hz (a 1 ms window; LATR drains at the scheduler tick, 1-4 ms in Linux).
 */
#define TLB_LAZY_QUEUE_MAX 16
#define TLB_LAZY_BATCHES (2 * TLB_LAZY_QUEUE_MAX)
#define TLB_LAZY_HZ 1000
/* The tick rates lazy_hz= (and tlb_lazy_set_tick_hz()) accept. */
#define TLB_LAZY_HZ_MIN 10
#define TLB_LAZY_HZ_MAX 10000

extern const struct tlb_ops tlb_ops_lazy;

/* Its counters (the benchmarks take them from its table entry; tests name them). */
PCPU_COUNTER_DECLARE(PCPU_TLB_LAZY_QUEUED);    /* invalidations queued to another CPU */
PCPU_COUNTER_DECLARE(PCPU_TLB_LAZY_DRAINED);   /* invalidations a CPU took off its queue */
PCPU_COUNTER_DECLARE(PCPU_TLB_LAZY_FALLBACKS); /* flushes sent as an IPI round instead */
PCPU_COUNTER_DECLARE(PCPU_TLB_LAZY_DRAIN_ONE); /* single-page invalidations a drain did */
PCPU_COUNTER_DECLARE(PCPU_TLB_LAZY_DRAIN_ALL); /* full flushes a drain did */

/*
 * Self-tests only: while @paused, the lazy design's ticks drain nothing
 * (address-space switches and fallback rounds still do), so a test can
 * fill a queue. Any context.
 */
void tlb_lazy_pause_ticks(bool paused);

/*
 * The drain tick's rate from the design's next enable on (clamped to
 * TLB_LAZY_HZ_MIN..TLB_LAZY_HZ_MAX), and the rate now set. The torture
 * runs lazy at its slowest tick too, where queues hold entries for long.
 */
void tlb_lazy_set_tick_hz(unsigned hz);
unsigned tlb_lazy_tick_hz(void);

#endif
