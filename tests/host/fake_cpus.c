/*
 * The threaded fake CPUs of tests/host/fake_cpus.h. An interrupt lock is a
 * word naming its holder (a thread token, 0: free); a thread takes its own
 * CPU's lock at each interrupts-off transition and waits for it without a
 * deadline, a caller of smp_call() takes a target's with one.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "errno.h"
#include "kernel/cpumask.h"
#include "tests/host/fake_arch.h"
#include "tests/host/fake_cpus.h"
#include <arch/arch.h>

bool fake_cpus_on;
static u32 fake_cpus_timeout_ms;
static u64 fake_irq_owner[MAX_CPUS];
static bool fake_dead[MAX_CPUS];
static unsigned fake_dead_count;
static u64 fake_token_next;
static __thread u64 fake_token;
/* Set while this thread runs another CPU's call function. */
static __thread bool fake_in_call;

static u64 thread_token(void)
{
	if (!fake_token)
		fake_token = __atomic_add_fetch(&fake_token_next, 1, __ATOMIC_RELAXED);
	return fake_token;
}

void fake_cpus_enable(u32 timeout_ms)
{
	for (unsigned i = 0; i < MAX_CPUS; i++) {
		fake_irq_owner[i] = 0;
		fake_dead[i] = false;
	}
	fake_dead_count = 0;
	fake_cpus_timeout_ms = timeout_ms;
	__atomic_store_n(&fake_cpus_on, true, __ATOMIC_SEQ_CST);
}

void fake_cpus_disable(void)
{
	__atomic_store_n(&fake_cpus_on, false, __ATOMIC_SEQ_CST);
}

/*
 * Takes @cpu's interrupt lock; with @deadline_ns (0: none) false when it
 * passed. With @ticks, the waiting thread's own tick runs meanwhile: a
 * caller that waits for a target with its interrupts on takes its timer
 * interrupts, as in the kernel (lazy drains its queue there; without it a
 * caller stuck on a dark CPU for timeout_ms was written off by another
 * CPU's lazy settle, seen once in a 600 s host torture).
 */
static bool irq_lock_take(unsigned cpu, u64 deadline_ns, bool ticks)
{
	u64 tok = thread_token();

	for (;;) {
		u64 free = 0;

		if (__atomic_compare_exchange_n(&fake_irq_owner[cpu], &free, tok, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return true;
		if (deadline_ns && arch_tsc_read() > deadline_ns)
			return false;
		if (ticks)
			fake_cpus_service();
		sched_yield();
	}
}

static void irq_lock_drop(unsigned cpu)
{
	__atomic_store_n(&fake_irq_owner[cpu], 0, __ATOMIC_RELEASE);
}

void fake_cpus_irq_off(unsigned cpu)
{
	if (fake_in_call || cpu >= MAX_CPUS)
		return;
	if (__atomic_load_n(&fake_irq_owner[cpu], __ATOMIC_RELAXED) == thread_token()) {
		fprintf(stderr, "fake_cpus: cpu %u: interrupts off twice on one thread\n", cpu);
		abort();
	}
	irq_lock_take(cpu, 0, false);
}

void fake_cpus_irq_on(unsigned cpu)
{
	if (!fake_in_call && cpu < MAX_CPUS)
		irq_lock_drop(cpu);
}

bool fake_cpus_dead(unsigned cpu)
{
	return cpu < MAX_CPUS && __atomic_load_n(&fake_dead[cpu], __ATOMIC_ACQUIRE);
}

unsigned fake_cpus_dead_count(void)
{
	return __atomic_load_n(&fake_dead_count, __ATOMIC_RELAXED);
}

void fake_cpus_write_off(unsigned cpu, const char *who)
{
	if (cpu >= MAX_CPUS || __atomic_exchange_n(&fake_dead[cpu], true, __ATOMIC_SEQ_CST))
		return;
	__atomic_add_fetch(&fake_dead_count, 1, __ATOMIC_RELAXED);
	printf("# fake cpu %u written off (%s)\n", cpu, who);
}

void fake_cpus_revive(unsigned cpu)
{
	if (cpu >= MAX_CPUS || !__atomic_exchange_n(&fake_dead[cpu], false, __ATOMIC_SEQ_CST))
		return;
	__atomic_sub_fetch(&fake_dead_count, 1, __ATOMIC_RELAXED);
	printf("# fake cpu %u back in the run\n", cpu);
}

/* Runs @fn(@arg) as @cpu under its interrupt lock; false when it timed out. */
static bool call_one(unsigned cpu, smp_call_fn fn, void *arg, unsigned self)
{
	u64 deadline = arch_tsc_read() + (u64)fake_cpus_timeout_ms * 1000000ull;
	bool had_off = !arch_irqs_enabled();

	/* Our own lock goes while we wait: the kernel's wait serves our mailbox. */
	if (had_off)
		irq_lock_drop(self);
	if (!irq_lock_take(cpu, deadline, !had_off)) {
		if (had_off)
			irq_lock_take(self, 0, false);
		return false;
	}
	fake_in_call = true;
	fake_arch_set_cpu(cpu);
	{
		/* A call function runs with interrupts off. */
		unsigned long flags = arch_irq_save();

		fn(arg);
		arch_irq_restore(flags);
	}
	fake_arch_set_cpu(self);
	fake_in_call = false;
	irq_lock_drop(cpu);
	if (had_off)
		irq_lock_take(self, 0, false);
	return true;
}

int fake_cpus_call(const cpumask_t *mask, smp_call_fn fn, void *arg, unsigned self)
{
	cpumask_t snap;
	unsigned cpu;
	int err = 0;

	/* Read once, with acquire, as kernel/smp.c's smp_call() does (kernel/smp.h). */
	cpumask_copy_acquire(&snap, mask);
	for_each_cpu(cpu, &snap) {
		if (cpu == self)
			continue;
		if (fake_cpus_dead(cpu)) {
			err = -ETIMEDOUT;
			continue;
		}
		if (!call_one(cpu, fn, arg, self)) {
			fake_cpus_write_off(cpu, "smp_call");
			err = -ETIMEDOUT;
		}
	}
	return err;
}

void fake_cpus_service(void)
{
	unsigned long flags;

	if (!fake_cpus_on || fake_in_call || !arch_irqs_enabled())
		return;
	flags = arch_irq_save();
	fake_tick();
	arch_irq_restore(flags);
}
