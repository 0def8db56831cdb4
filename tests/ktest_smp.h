/*
 * Helpers of the kernel self-tests that run work on the other CPUs: start
 * it on each of them, then wait, bounded, for a count they raise.
 */
#ifndef TESTS_KTEST_SMP_H
#define TESTS_KTEST_SMP_H

#include "kernel/cpumask.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include <arch/arch.h>

/* Runs @fn(@arg) on every other online CPU (smp_run_async()); returns how many took it. */
static inline unsigned ktest_run_on_others(smp_call_fn fn, void *arg)
{
	unsigned cpu, n = 0;

	for_each_cpu(cpu, &cpu_online_mask)
		if (cpu != arch_cpu_id() && !smp_run_async(cpu, fn, arg))
			n++;
	return n;
}

/* The first online CPU other than this one (callers checked there is one). */
static inline unsigned ktest_other_cpu(void)
{
	unsigned cpu;

	for_each_cpu(cpu, &cpu_online_mask)
		if (cpu != arch_cpu_id())
			break;
	return cpu;
}

/* Waits until *@count reaches @n, at most @ms milliseconds; false on timeout. */
static inline bool ktest_wait_count(u32 *count, u32 n, u64 ms)
{
	u64 deadline = arch_tsc_read() + arch_tsc_hz() / 1000 * ms;

	while (atomic_load_acquire(count) < n) {
		if (arch_tsc_read() > deadline)
			return false;
		arch_cpu_relax();
	}
	return true;
}

#endif
