/*
 * The clock side of a bounded spin-wait (struct smp_wait, kernel/smp.h):
 * out of line, since a wait reads it once per SMP_WAIT_CLOCK_TURNS turns.
 * Portable: the host builds wait with it too.
 */
#include "kernel/smp.h"
#include <arch/arch.h>

bool smp_wait_clock_passed(struct smp_wait *w)
{
	u64 now = arch_tsc_read();

	if (!w->deadline) {
		w->deadline = now + arch_tsc_hz() / 1000 * smp_timeout_ms();
		return false;
	}
	return now > w->deadline;
}
