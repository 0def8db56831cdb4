/*
 * The TSC as mmlab's clock: its frequency (from CPUID where that is exact,
 * else calibrated against the PIT or the HPET), and delays built on it.
 */
#ifndef ARCH_TSC_H
#define ARCH_TSC_H

#include "types.h"

/* Which references tsc_init() may use (the tsc_calibrate= option). */
enum tsc_calibration {
	TSC_CAL_AUTO, /* CPUID 0x15, the hypervisor leaf, the PIT, then the HPET */
	TSC_CAL_PIT,  /* the PIT only */
	TSC_CAL_HPET, /* the HPET the ACPI tables list, only */
};

/*
 * Plausible TSC frequencies: a reference outside them is broken. An
 * emulator counts the TSC at its instruction rate: Bochs at its ips=
 * setting, 4 MHz by default, so the floor is far below any real CPU's.
 */
#define TSC_HZ_MIN 1000000ull
#define TSC_HZ_MAX 20000000000ull

/* True when @value (Hz) lies in TSC_HZ_MIN..TSC_HZ_MAX. */
bool tsc_hz_plausible(u64 value);

/* Chooses the references for tsc_init(); default TSC_CAL_AUTO. Boot CPU, before tsc_init(). */
void tsc_set_calibration(enum tsc_calibration cal);

/*
 * Determines the TSC frequency on the boot CPU, from the references
 * tsc_set_calibration() allows, best first. The HPET is found through
 * arch_acpi_info(), so ACPI must be parsed first. A reference that does not
 * tick or gives a frequency outside TSC_HZ_MIN..TSC_HZ_MAX is passed over
 * with a "# WARN tsc:" line, and so is a CPUID leaf's stated frequency that
 * a timer contradicts (the timer's is used). Returns 0 or -EIO (no usable
 * reference).
 */
int tsc_init(void);

u64 tsc_hz(void);
/* "cpuid-15h", "hypervisor-leaf", "pit", "hpet" or "none" */
const char *tsc_method(void);

/*
 * Measures the TSC frequency against the PIT or the HPET alone, for tests
 * that compare the two; 0 when that reference is missing or does not tick.
 * Boot CPU, interrupts off or on (a longer round is discarded).
 */
u64 tsc_measure_pit(void);
u64 tsc_measure_hpet(void);

/* Busy-waits at least @us microseconds (TSC-based once calibrated). */
void udelay(u64 us);

/* Converts TSC cycles to nanoseconds (0 when not calibrated). */
u64 tsc_cycles_to_ns(u64 cycles);

/* TSC value @ms milliseconds from now. */
u64 tsc_deadline_ms(u64 ms);

#endif
