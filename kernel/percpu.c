/*
 * The per-CPU array and the online set. percpu[] is written only by its
 * own CPU (the mailbox aside, see kernel/smp.c); cpu_online_mask and
 * ncpus_online change only during bring-up, on the boot CPU.
 */
#include "kernel/percpu.h"
#include "lib/atomic.h"

struct percpu percpu[MAX_CPUS];
unsigned ncpus_online;
cpumask_t cpu_online_mask;

/* Bounds of the pcpu_counters section: from the host linker or linker.ld. */
extern const struct pcpu_counter_desc __start_pcpu_counters[], __stop_pcpu_counters[];

PCPU_COUNTER(PCPU_IPI_SENT, "ipi_sent");
PCPU_COUNTER(PCPU_IPI_RECEIVED, "ipi_received");
PCPU_COUNTER(PCPU_INTERRUPTS, "interrupts");
PCPU_COUNTER(PCPU_CALLS_RUN, "calls_run");

u64 percpu_counter_read(unsigned cpu, enum pcpu_counter c)
{
	return atomic_load_relaxed(&percpu[cpu].counters[c]);
}

u64 percpu_counter_sum(enum pcpu_counter c)
{
	u64 sum = 0;
	unsigned cpu;

	for_each_cpu(cpu, &cpu_online_mask)
		sum += percpu_counter_read(cpu, c);
	return sum;
}

const char *percpu_counter_name(enum pcpu_counter c)
{
	const struct pcpu_counter_desc *d;

	for (d = __start_pcpu_counters; d < __stop_pcpu_counters; d++) {
		if (d->index == (unsigned)c)
			return d->name;
	}
	return "?";
}

void percpu_set_online(unsigned cpu)
{
	atomic_store_release(&percpu[cpu].online, true);
	cpumask_set_cpu_atomic(cpu, &cpu_online_mask);
	atomic_fetch_add(&ncpus_online, 1);
}
