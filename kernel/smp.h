/*
 * Cross-CPU calls: the only place that turns "run this function on these
 * CPUs" into IPIs. Each CPU owns one call descriptor (struct smp_call_desc
 * in its percpu) and each CPU has a mailbox naming the CPUs whose
 * descriptor has work for it, so calls to different CPUs never serialise.
 *
 * Deadlock rule: never wait for acknowledgements with interrupts off unless
 * the wait loop also serves this CPU's own mailbox; smp_call's waits do.
 * Called functions run in interrupt context on the target with interrupts
 * off: they must be short and must not call smp_call themselves.
 */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include "kernel/cpumask.h"
#include "types.h"

typedef void (*smp_call_fn)(void *arg);

/* What an arch provides to smp.c (arch/x86_64/ipi.c). */
void arch_send_call_ipi(unsigned cpu);

/*
 * Runs @fn(@arg) on every online CPU in @mask except the caller. With @wait,
 * returns once all have run it; without, returns once the IPIs are sent (the
 * next smp_call from this CPU waits for the previous one first). Each wait
 * is bounded by the timeout_ms option: a CPU that does not answer is named
 * on the console and the call returns -ETIMEDOUT. Returns 0, -ETIMEDOUT, or
 * -EINVAL for an offline or out-of-range CPU in @mask. @mask may change
 * meanwhile (it is read once). Any context but a call function.
 */
int smp_call(const cpumask_t *mask, smp_call_fn fn, void *arg, bool wait);

/* smp_call() to one CPU. */
int smp_call_one(unsigned cpu, smp_call_fn fn, void *arg, bool wait);

/* smp_call() to every online CPU but the caller. */
int smp_call_others(smp_call_fn fn, void *arg, bool wait);

/* Waits until this CPU's previous call has been acknowledged (bounded). Returns 0 or -ETIMEDOUT. */
int smp_call_wait(void);

/*
 * Runs the calls posted to this CPU. The IPI handler calls it; wait loops
 * with interrupts off call it too. Interrupts must be off.
 */
void smp_handle_mailbox(void);

/*
 * Hands @fn(@arg) to idle CPU @cpu, which runs it from its idle loop in task
 * context with interrupts on (so, unlike a call function, it can take IPIs
 * and run for long). Returns once the CPU has accepted the work: 0,
 * -EBUSY if it still has earlier work, or an smp_call() error. Completion
 * is the caller's business (a counter or barrier in @arg).
 */
int smp_run_async(unsigned cpu, smp_call_fn fn, void *arg);

/* The idle loop of every CPU but the boot CPU: runs handed-over work, else halts. */
__attribute__((noreturn)) void cpu_idle(void);

/* Sets the bound on every wait, in milliseconds (timeout_ms option). */
void smp_set_timeout_ms(u32 ms);
u32 smp_timeout_ms(void);

#endif
