/*
 * Threads as CPUs (see tests/host/host_smp.h): the arch hooks kernel/smp.c
 * needs beyond tests/host/fake_arch.c (built with FAKE_ARCH_REAL_SMP): the
 * call IPI, the idle halt, printk() as KTAP diagnostics. Each CPU thread's
 * loop stands in for the local APIC: a flagged IPI runs smp_handle_mailbox()
 * with interrupts off; a held CPU leaves the flag set, the vector pending.
 */
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "tests/host/fake_arch.h"
#include "tests/host/host_smp.h"
#include <arch/arch.h>

struct host_cpu {
	pthread_t thread;
	bool held, ticking;
	u32 ipi_pending;
	u64 ipis;
	u64 tick_at; /* arch_tsc_read() from which it ticks; 0: never */
	void (*work)(void *);
	void *work_arg;
	u32 work_done;
	u64 turns; /* turns done while not held */
};

static struct host_cpu host_cpus[HOST_SMP_CPUS];
static bool host_stop, host_started;

void arch_send_call_ipi(unsigned cpu)
{
	if (cpu >= HOST_SMP_CPUS)
		return;
	atomic_inc(&host_cpus[cpu].ipis);
	atomic_store_release(&host_cpus[cpu].ipi_pending, 1);
}

/* cpu_idle() is never entered on the host (the CPU threads loop below): these only link it. */
void arch_idle(void)
{
	arch_irq_restore(1);
	sched_yield();
}

void arch_irq_enable(void)
{
	arch_irq_restore(1);
}

/* One turn of a CPU: the pending call vector, a tick, then handed-over work. */
static void host_cpu_turn(struct host_cpu *c)
{
	void (*work)(void *);
	unsigned long flags;
	u64 at = atomic_load_acquire(&c->tick_at);

	if (at && arch_tsc_read() >= at)
		atomic_store_release(&c->ticking, true);
	if (atomic_xchg(&c->ipi_pending, 0)) {
		flags = arch_irq_save();
		smp_handle_mailbox();
		arch_irq_restore(flags);
	}
	if (atomic_load_acquire(&c->ticking)) {
		flags = arch_irq_save();
		fake_tick();
		arch_irq_restore(flags);
	}
	work = atomic_load_acquire(&c->work);
	if (work) {
		work(c->work_arg);
		atomic_store_release(&c->work, NULL);
		atomic_store_release(&c->work_done, 1);
	}
	atomic_inc(&c->turns);
}

static void *host_cpu_main(void *arg)
{
	unsigned cpu = (unsigned)(uintptr_t)arg;
	struct host_cpu *c = &host_cpus[cpu];

	fake_arch_set_cpu(cpu);
	while (!atomic_load_acquire(&host_stop)) {
		if (!atomic_load_acquire(&c->held))
			host_cpu_turn(c);
		sched_yield();
	}
	return NULL;
}

void host_smp_start(void)
{
	if (host_started)
		return;
	host_started = true;
	atomic_store_release(&host_stop, false);
	for (unsigned cpu = 0; cpu < HOST_SMP_CPUS; cpu++) {
		percpu_of(cpu)->cpu_id = cpu;
		percpu_of(cpu)->apic_id = cpu;
		if (!cpumask_test_cpu(cpu, &cpu_online_mask))
			percpu_set_online(cpu);
	}
	fake_arch_set_cpu(0);
	for (unsigned cpu = 1; cpu < HOST_SMP_CPUS; cpu++)
		pthread_create(&host_cpus[cpu].thread, NULL, host_cpu_main, (void *)(uintptr_t)cpu);
}

void host_smp_stop(void)
{
	if (!host_started)
		return;
	atomic_store_release(&host_stop, true);
	for (unsigned cpu = 1; cpu < HOST_SMP_CPUS; cpu++)
		pthread_join(host_cpus[cpu].thread, NULL);
	host_started = false;
}

void host_smp_hold(unsigned cpu, bool held)
{
	atomic_store_release(&host_cpus[cpu].held, held);
}

void host_smp_ticking(unsigned cpu, bool on)
{
	atomic_store_release(&host_cpus[cpu].tick_at, 0);
	atomic_store_release(&host_cpus[cpu].ticking, on);
}

void host_smp_ticking_after(unsigned cpu, unsigned ms)
{
	atomic_store_release(&host_cpus[cpu].ticking, false);
	atomic_store_release(&host_cpus[cpu].tick_at, arch_tsc_read() + (u64)ms * 1000000 + 1);
}

void host_smp_run_on(unsigned cpu, void (*fn)(void *), void *arg)
{
	struct host_cpu *c = &host_cpus[cpu];

	if (cpu == 0) {
		fn(arg);
		return;
	}
	atomic_store_release(&c->work_done, 0);
	c->work_arg = arg;
	atomic_store_release(&c->work, fn);
	while (!atomic_load_acquire(&c->work_done))
		sched_yield();
}

u64 host_smp_ipis(unsigned cpu)
{
	return atomic_load_acquire(&host_cpus[cpu].ipis);
}

/* Two whole turns after now: an IPI flagged before the call has been served. */
void host_smp_quiesce(unsigned cpu)
{
	struct host_cpu *c = &host_cpus[cpu];
	u64 from = atomic_load_acquire(&c->turns);

	while (!atomic_load_acquire(&c->held) && atomic_load_acquire(&c->turns) < from + 2)
		sched_yield();
}
