/*
 * The clock side of a bounded spin-wait (struct smp_wait, kernel/smp.h):
 * out of line, since a wait reads it once per SMP_WAIT_CLOCK_TURNS turns.
 * Portable: the host builds wait with it too.
 */
#include "kernel/smp.h"
#include <arch/arch.h>

static u32 deadline_scale = 1;

void smp_set_deadline_scale(u32 scale)
{
	deadline_scale = scale ? scale : 1;
}

u32 smp_deadline_scale(void)
{
	return deadline_scale;
}

u32 smp_deadline_ms(void)
{
	u64 ms = (u64)smp_timeout_ms() * deadline_scale;

	return ms > SMP_DEADLINE_MAX_MS ? SMP_DEADLINE_MAX_MS : (u32)ms;
}

bool smp_wait_clock_passed(struct smp_wait *w)
{
	u64 now = arch_tsc_read();

	if (!w->deadline) {
		w->deadline = now + arch_tsc_hz() / 1000 * smp_deadline_ms();
		return false;
	}
	return now > w->deadline;
}
