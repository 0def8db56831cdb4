/*
 * The TSC as mmlab's clock: its frequency (from CPUID where that is exact,
 * else calibrated against the PIT), delays built on it, and the cross-CPU
 * synchronisation check.
 */
#ifndef ARCH_TSC_H
#define ARCH_TSC_H

#include "types.h"

/* Determines the TSC frequency on the boot CPU. Returns 0 or -EIO (no usable reference). */
int tsc_init(void);

u64 tsc_hz(void);
const char *tsc_method(void); /* "cpuid-15h", "hypervisor-leaf", "pit" or "none" */

/* Busy-waits at least @us microseconds (TSC-based once calibrated). */
void udelay(u64 us);

/* Converts TSC cycles to nanoseconds (0 when not calibrated). */
u64 tsc_cycles_to_ns(u64 cycles);

/* TSC value @ms milliseconds from now. */
u64 tsc_deadline_ms(u64 ms);

#endif
