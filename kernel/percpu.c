/*
 * The per-CPU array, the per-CPU data copies' offsets and the online set.
 * percpu[] is written only by its own CPU (the mailbox aside, see
 * kernel/smp.c); percpu_data_offset[], cpu_online_mask and ncpus_online
 * change only during bring-up, on the boot CPU.
 */
#include "kernel/percpu.h"
#include "errno.h"
#include "kernel/panic.h"
#include "lib/atomic.h"
#include "lib/string.h"

struct percpu percpu[MAX_CPUS];
unsigned ncpus_online;
cpumask_t cpu_online_mask;

/*
 * Added to an address in the section, the unset offset gives one whose
 * bits 63:47 differ (SDM Vol. 1, 3.3.7.1: non-canonical), for a kernel
 * address and for a host one alike: a #GP, or a host SIGSEGV under ASan.
 */
#define PCPU_DATA_UNSET 0x4000000000000000ul

unsigned long percpu_data_offset[MAX_CPUS] = { [1 ... MAX_CPUS - 1] = PCPU_DATA_UNSET };
static unsigned percpu_data_ids = 1; /* percpu_data_bound() */

/* Bounds of the pcpu_data section: from the host linker or linker.ld. */
extern char __start_pcpu_data[], __stop_pcpu_data[];

size_t percpu_data_size(void)
{
	return ALIGN_UP((size_t)(__stop_pcpu_data - __start_pcpu_data), CACHE_LINE);
}

void percpu_data_place(unsigned cpu, void *copy)
{
	BUG_ON(cpu == 0 || cpu >= MAX_CPUS || percpu_data_placed(cpu));
	percpu_data_offset[cpu] = (uintptr_t)copy - (uintptr_t)__start_pcpu_data;
	percpu_data_ids = MAX(percpu_data_ids, cpu + 1);
}

bool percpu_data_placed(unsigned cpu)
{
	return percpu_data_offset[cpu] != PCPU_DATA_UNSET;
}

unsigned percpu_data_bound(void)
{
	return percpu_data_ids;
}

PCPU_COUNTER(PCPU_IPI_SENT, "ipi_sent");
PCPU_COUNTER(PCPU_IPI_RECEIVED, "ipi_received");
PCPU_COUNTER(PCPU_INTERRUPTS, "interrupts");
PCPU_COUNTER(PCPU_CALLS_RUN, "calls_run");
PCPU_COUNTER(PCPU_CALLS_ACKED_EARLY, "calls_acked_early");
PCPU_COUNTER(PCPU_CALLS_POSTED, "calls_posted");
PCPU_COUNTER(PCPU_WATCHED_WRITES, "watched_writes");

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
