/*
 * What a tlb run must show in /proc/interrupts' TLB row to count: with
 * readers on the cpus - 1 other CPUs, each flush call interrupts each once,
 * so naive makes pages x (cpus - 1) and batched cpus - 1. Fewer means a
 * reader was absent (not yet on its CPU, or in idle lazy mode): the run is
 * rejected, counted and run again. More is allowed (another process's flush).
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
