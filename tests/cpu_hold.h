/*
 * A CPU held with interrupts off, as a dead one looks to its callers: it
 * answers no IPI until released (kernel self-tests only). One CPU at a time.
 */
#ifndef TESTS_CPU_HOLD_H
#define TESTS_CPU_HOLD_H

#include "types.h"

/* 0 once @cpu sits with interrupts off; -ETIMEDOUT if it never got there. */
int cpu_hold(unsigned cpu);

/* Lets the held CPU go; true once it has interrupts on again (the IPIs it missed arrive). */
bool cpu_hold_release(void);

#endif
