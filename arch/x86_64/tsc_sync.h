/* Cross-CPU TSC synchronisation check (arch/x86_64/tsc_sync.c). */
#ifndef ARCH_TSC_SYNC_H
#define ARCH_TSC_SYNC_H

#include "types.h"

struct tsc_sync_result {
	unsigned checked;      /* APs measured */
	unsigned unchecked;    /* APs not sent the check: our calls were held (each named) */
	u64 max_abs_offset;    /* largest |offset| of an AP's TSC from the boot CPU's, cycles */
	s64 worst_offset;      /* that offset, signed (AP ahead: positive) */
	unsigned worst_cpu;
	u64 max_bound;         /* measurement uncertainty (half the best round trip), cycles */
};

/*
 * Measures every online AP's TSC offset from this (boot) CPU. An AP that
 * misses a deadline is named and out of the run; the others are still
 * measured. Needs interrupts on and the cross-CPU call layer up.
 */
void tsc_sync_check(struct tsc_sync_result *res);

/*
 * Self-tests only: tsc_sync_check() with @hook run on each AP before its
 * first look at the ping line, so a test can make an AP late; with
 * @before_ack, before it acknowledges the call (it holds our descriptor).
 */
void tsc_sync_check_hooked(struct tsc_sync_result *res, void (*hook)(void), bool before_ack);

#endif
