/*
 * What a tlb run must show in /proc/interrupts' TLB row to count: with
 * readers on cpus - 1 other CPUs, each flush call interrupts each of them
 * once, so naive (one madvise per page) makes pages x (cpus - 1) and
 * batched (one for all) cpus - 1. A run with fewer found a reader absent
 * (not yet scheduled on its CPU, or its CPU in idle lazy mode): its time
 * holds no shootdown, so it is rejected, counted and run again. More is
 * allowed: another process's flush may land in the window.
 */
#include "peer.h"

long peer_tlb_irqs_expected(int cpus, long pages, int batched)
{
	if (cpus < 2)
		return 0;
	return (batched ? 1 : pages) * (long)(cpus - 1);
}

/* 1 when a run's TLB interrupt delta is one the run can count (see above). */
int peer_tlb_irqs_ok(long delta, int cpus, long pages, int batched)
{
	return delta >= peer_tlb_irqs_expected(cpus, pages, batched);
}
