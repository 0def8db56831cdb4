/*
 * Threads as CPUs for the real kernel/smp.c on the host (build/test-host-smp):
 * the calling thread is CPU 0, one pthread per other CPU serves its mailbox
 * when its "IPI" arrives, with its interrupts off as in the vector handler,
 * ticks the fake timer when asked and runs work handed to it in task context. A
 * held CPU does nothing until released: a CPU spinning with interrupts off.
 * Include only under HOST_BUILD, in that binary.
 */
#ifndef TESTS_HOST_HOST_SMP_H
#define TESTS_HOST_HOST_SMP_H

#include "types.h"

#define HOST_SMP_CPUS 4

/* Puts CPUs 0..HOST_SMP_CPUS-1 online and starts a thread for each but 0. Once. */
void host_smp_start(void);

/* Stops and joins the threads. */
void host_smp_stop(void);

/* @cpu stops (@held) or resumes serving IPIs, ticks and work. */
void host_smp_hold(unsigned cpu, bool held);

/* @cpu's thread runs its fake tick (fake_tick(), interrupts off) on every turn while @on. */
void host_smp_ticking(unsigned cpu, bool on);

/* @cpu's thread starts ticking once @ms milliseconds passed (0: now). */
void host_smp_ticking_after(unsigned cpu, unsigned ms);

/* Runs @fn(@arg) on @cpu's thread in task context (interrupts on) and returns when it did. */
void host_smp_run_on(unsigned cpu, void (*fn)(void *), void *arg);

/* IPIs sent to @cpu (arch_send_call_ipi() calls), and calls served by its thread. */
u64 host_smp_ipis(unsigned cpu);

/* Returns once @cpu served every IPI flagged before the call (at once if it is held). */
void host_smp_quiesce(unsigned cpu);

/*
 * When set, CPU 0's every arch_tsc_read() returns what this makes of the
 * clock's value: a test moves time at an exact point of a wait.
 */
extern u64 (*host_smp_clock_hook)(u64 now);

#endif
