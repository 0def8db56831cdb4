/*
 * Cross-CPU calls, the only place that turns "run this on these CPUs" into
 * IPIs; one descriptor per caller and one mailbox per target, so calls to
 * different CPUs never serialise. Called functions run in interrupt context,
 * IRQs off: short, no nested smp_call. Never wait for acks with IRQs off
 * unless the loop serves this CPU's mailbox. A CPU that misses a deadline is
 * out of the run for good (smp_call()), so stack arguments need smp_call_copy().
 */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include "kernel/cpumask.h"
#include <arch/arch.h>
#include "types.h"

typedef void (*smp_call_fn)(void *arg);

/* What an arch provides to smp.c (arch/x86_64/ipi.c). */
void arch_send_call_ipi(unsigned cpu);

/*
 * Runs @fn(@arg) on every online CPU in @mask except the caller. With @wait,
 * returns once all have run it; without, returns once the IPIs are sent (the
 * next smp_call from this CPU waits for the previous one first). Each wait
 * is bounded by the timeout_ms option: a CPU that does not answer goes out
 * of the run (above) and the call returns -ETIMEDOUT. Returns 0,
 * -ETIMEDOUT (a target is or went out of the run, or one that is still
 * holds this CPU's descriptor: then nothing was sent; without @wait, the
 * live targets were sent the call and smp_call_wait() waits for them), or
 * -EINVAL for an offline or out-of-range CPU in @mask. @mask may change
 * meanwhile (it is read once, each word with acquire: a CPU whose fully
 * ordered clear of its bit the read sees, as mm_switch() leaving an mm,
 * did everything before the clear first). @arg must outlive every target
 * (see above).
 * A late CPU is named once and never called again; later calls naming it
 * return -ETIMEDOUT though their live targets still run them. A flush that
 * gets -ETIMEDOUT is not known complete, so what it covered is never reused
 * (mm/quarantine.h).
 * Any context but a call function.
 */
int smp_call(const cpumask_t *mask, smp_call_fn fn, void *arg, bool wait);

/*
 * smp_call() with the argument copied: the @len bytes (1..SMP_CALL_DATA_MAX)
 * at @data go into this CPU's call descriptor and @fn gets a pointer to
 * that copy, which stays valid until every target has answered or can
 * never run the call. With @wait and a 0 return, the copy (which @fn may
 * have written) is copied back to @data. Returns as smp_call(), or -EINVAL
 * for a bad @len.
 */
int smp_call_copy(const cpumask_t *mask, smp_call_fn fn, void *data, size_t len, bool wait);

/*
 * From inside a call function: acknowledges the call now, before the
 * function returns (the caller's wait ends; nothing is acknowledged again
 * on return) and returns true. The function's argument (an smp_call_copy() copy in the
 * caller's descriptor) may be rewritten from then on: copy what is still
 * needed first. Outside a call function (the initiator running a target
 * function itself) it does nothing and returns false. For a TLB design whose targets
 * acknowledge before they flush.
 */
bool smp_call_ack(void);

/*
 * Whether this CPU's last call was sent without waiting and nobody waited
 * for its acknowledgements since (smp_call_wait()): whatever the targets
 * may still be doing for it, even if they happen to have answered. For a
 * check that nothing is released under a call in flight. Any context.
 */
bool smp_call_pending(void);

/* smp_call() to one CPU. */
int smp_call_one(unsigned cpu, smp_call_fn fn, void *arg, bool wait);

/* smp_call() to every online CPU but the caller. */
int smp_call_others(smp_call_fn fn, void *arg, bool wait);

/*
 * Waits until this CPU's previous call has been acknowledged (bounded).
 * Returns 0, or -ETIMEDOUT when a target missed the deadline (it is out of
 * the run now) or was out of the run already.
 */
int smp_call_wait(void);

/* True when @cpu missed a deadline and is out of the run. Any context. */
bool smp_cpu_dead(unsigned cpu);

/*
 * @cpu missed a deadline of @who's own (not a call's: a TLB drain a
 * design waits for, say): out of the run from now on, as a CPU that missed a call's, and
 * named once on the console. Any context.
 */
void smp_cpu_write_off(unsigned cpu, const char *who);

/* The CPUs out of the run. Any context. */
void smp_dead_cpus(cpumask_t *out);

/*
 * Self-tests only: puts @cpu, which a test held on purpose past a deadline
 * and has released, back in the run. The test must make it flush what it
 * may have cached meanwhile. Returns 0, -EINVAL, or -EBUSY while some
 * CPU's call still waits for @cpu.
 */
int smp_cpu_revive(unsigned cpu);

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

/*
 * True while @cpu runs work smp_run_async() handed it: from just before the
 * function is called until it returns. Accepted work is not yet running: the
 * CPU may still be in the interrupt handler that took it.
 */
bool smp_cpu_running_work(unsigned cpu);

/*
 * In an interrupt handler: true when the interrupt woke this CPU from the
 * idle loop's HLT (the ipi bench counts such wake-ups per round).
 */
bool smp_idle_halted(void);

/* The idle loop of every CPU but the boot CPU: runs handed-over work, else halts. */
__attribute__((noreturn)) void cpu_idle(void);

/* Sets the bound on every wait, in milliseconds (timeout_ms option), before scaling. */
void smp_set_timeout_ms(u32 ms);
u32 smp_timeout_ms(void);

/*
 * Every wait's deadline is timeout_ms times a scale the arch sets once at
 * bring-up from what the platform can deliver (1 on bare metal; more where
 * a CPU is a host thread that may wait for a host core), so a CPU that only
 * waits for its host is not written off. smp_deadline_ms() is the product,
 * at most SMP_DEADLINE_MAX_MS. Any context.
 */
#define SMP_DEADLINE_MAX_MS 3600000u
void smp_set_deadline_scale(u32 scale);
u32 smp_deadline_scale(void);
u32 smp_deadline_ms(void);

/*
 * One bounded spin-wait for another CPU's store, smp_deadline_ms() long: each
 * turn of the loop calls smp_wait_turn(), which relaxes the CPU (unless
 * spin_pause=off) and says whether the deadline passed. The clock is read once every
 * SMP_WAIT_CLOCK_TURNS turns, not every turn: an ordered TSC read costs
 * more than the turn itself (LFENCE; RDTSC on hardware, a helper call out
 * of the translated code under TCG), and the deadline is milliseconds away.
 * The first read starts the deadline, so a wait that ends within its first
 * turns never reads the clock.
 */
#define SMP_WAIT_CLOCK_TURNS 64

struct smp_wait {
	u64 deadline; /* 0: not started */
	u32 turns;
};

#define SMP_WAIT_INIT ((struct smp_wait){ 0, 0 })

bool smp_wait_clock_passed(struct smp_wait *w);

static inline bool smp_wait_turn(struct smp_wait *w)
{
	if (++w->turns % SMP_WAIT_CLOCK_TURNS == 0 && smp_wait_clock_passed(w))
		return true;
	if (arch_spin_pause)
		arch_cpu_relax();
	return false;
}

#endif
