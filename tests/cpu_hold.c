/*
 * Holding a CPU with interrupts off (tests/cpu_hold.h). The CPU runs task
 * context work (smp_run_async(), not a call function, which the held CPU
 * could not answer), as a CPU stuck in a long critical section or
 * descheduled by the host would. Waits are bounded, so a CPU that never
 * takes the work fails the test instead of hanging it.
 */
#include "tests/cpu_hold.h"
#include "errno.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include <arch/arch.h>

#define CPU_HOLD_WAIT_MS 120000

static u32 hold_release, holding;

static void cpu_hold_task(void *arg)
{
	unsigned long flags = arch_irq_save();

	(void)arg;
	atomic_store_release(&holding, 1);
	while (!atomic_load_acquire(&hold_release))
		arch_cpu_relax();
	atomic_store_release(&holding, 0);
	arch_irq_restore(flags);
}

/* Spins until holding == @want, at most CPU_HOLD_WAIT_MS. */
static bool cpu_hold_wait(u32 want)
{
	u64 end = arch_tsc_read() + arch_tsc_hz() / 1000 * CPU_HOLD_WAIT_MS;

	while (atomic_load_acquire(&holding) != want)
		if (arch_tsc_read() > end)
			return false;
	return true;
}

int cpu_hold(unsigned cpu)
{
	int err;

	atomic_store_release(&hold_release, 0);
	atomic_store_release(&holding, 0);
	err = smp_run_async(cpu, cpu_hold_task, NULL);
	if (err)
		return err;
	return cpu_hold_wait(1) ? 0 : -ETIMEDOUT;
}

bool cpu_hold_release(void)
{
	atomic_store_release(&hold_release, 1);
	return cpu_hold_wait(0);
}
