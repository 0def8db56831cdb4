/*
 * The per-CPU array and the online set. percpu[] is written only by its
 * own CPU (the mailbox aside, see kernel/smp.c); cpu_online_mask and
 * ncpus_online change only during bring-up, on the boot CPU.
 */
#include "kernel/percpu.h"
#include "errno.h"
#include "lib/atomic.h"
#include "lib/string.h"

struct percpu percpu[MAX_CPUS];
unsigned ncpus_online;
cpumask_t cpu_online_mask;

PCPU_COUNTER(PCPU_IPI_SENT, "ipi_sent");
PCPU_COUNTER(PCPU_IPI_RECEIVED, "ipi_received");
PCPU_COUNTER(PCPU_INTERRUPTS, "interrupts");
PCPU_COUNTER(PCPU_CALLS_RUN, "calls_run");

u64 percpu_counter_read(unsigned cpu, const struct pcpu_counter *c)
{
	return atomic_load_relaxed(&percpu[cpu].counters[pcpu_counter_index(c)]);
}

u64 percpu_counter_sum(const struct pcpu_counter *c)
{
	u64 sum = 0;
	unsigned cpu;

	for_each_cpu(cpu, &cpu_online_mask)
		sum += percpu_counter_read(cpu, c);
	return sum;
}

const char *percpu_counter_name(const struct pcpu_counter *c)
{
	return c->name;
}

const struct pcpu_counter *percpu_counter_find(const char *name)
{
	for (const struct pcpu_counter *c = __start_pcpu_counters; c < __stop_pcpu_counters; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

int percpu_counters_check(void)
{
	return pcpu_counter_count() <= PCPU_COUNTER_SLOTS ? 0 : -ENOSPC;
}

void percpu_set_online(unsigned cpu)
{
	atomic_store_release(&percpu[cpu].online, true);
	cpumask_set_cpu_atomic(cpu, &cpu_online_mask);
	atomic_fetch_add(&ncpus_online, 1);
}
