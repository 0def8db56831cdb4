/*
 * Fake CPUs on host threads, each with interrupts of its own
 * (tests/host/fake_cpus.c), for the mm torture; off until fake_cpus_enable().
 * A call function never runs while its target has interrupts off, and may
 * run between any two instructions while they are on, as on hardware; a
 * target that does not answer in time is written off as kernel/smp.c does.
 * Include only under HOST_BUILD.
 */
#ifndef TESTS_HOST_FAKE_CPUS_H
#define TESTS_HOST_FAKE_CPUS_H

#include "kernel/smp.h"
#include "types.h"

/* True between fake_cpus_enable() and fake_cpus_disable(). */
extern bool fake_cpus_on;

/* Turns the model on with no CPU dead; smp_call() waits @timeout_ms at most. */
void fake_cpus_enable(u32 timeout_ms);
void fake_cpus_disable(void);

/* fake_arch.c's hooks: interrupts of the calling thread's fake CPU go off / on. */
void fake_cpus_irq_off(unsigned cpu);
void fake_cpus_irq_on(unsigned cpu);

/* Fake CPUs below this have a runner thread; a call to one above runs on the caller's. */
#define FAKE_CPUS_RUNNERS 16

/*
 * smp_call(), smp_call_copy() (@len > 0) and smp_call_wait() of the model, as kernel/smp.h.
 * The caller waits for each target's acknowledgement (the function's return, or
 * fake_cpus_ack() inside it), letting go of its own interrupt lock meanwhile, as
 * the kernel's waits serve their mailbox.
 */
int fake_cpus_call(const cpumask_t *mask, smp_call_fn fn, void *arg, unsigned self, bool wait);
int fake_cpus_call_copy(const cpumask_t *mask, smp_call_fn fn, void *data, size_t len,
			unsigned self, bool wait);
int fake_cpus_wait(unsigned self);
bool fake_cpus_pending(unsigned self);
/* smp_call_ack() of the model: true inside a call function that had not acknowledged. */
bool fake_cpus_ack(void);

/* What the model counts, for the torture's report of the paths it reached. */
enum fake_cpus_count {
	FAKE_CPUS_EARLY_ACKS,	/* a call function acknowledged before it returned */
	FAKE_CPUS_CONCURRENT,	/* a call met its target busy with another caller's call */
	FAKE_CPUS_COUNTS
};
void fake_cpus_count(enum fake_cpus_count k);
/*
 * Called by smp_cpu_dead(@cpu) before it answers (NULL: none): the mm
 * torture writes its dark CPU off there, at any liveness check of the
 * code under test (in the middle of a push loop, say).
 */
extern void (*fake_cpus_check_hook)(unsigned cpu);
u64 fake_cpus_counted(enum fake_cpus_count k);

bool fake_cpus_dead(unsigned cpu);
void fake_cpus_write_off(unsigned cpu, const char *who);
/*
 * @cpu is back in the run (the mm torture, after a CPU it held dark was
 * written off): its thread must hold its interrupt lock, as a CPU coming
 * out of a reset has interrupts off.
 */
void fake_cpus_revive(unsigned cpu);
/* CPUs written off so far. */
unsigned fake_cpus_dead_count(void);

/*
 * An interrupt window: runs this fake CPU's tick if its interrupts are on. The
 * tick also runs whenever its thread spins (arch_cpu_relax()) or waits in
 * smp_call() with interrupts on.
 */
void fake_cpus_service(void);

#endif
