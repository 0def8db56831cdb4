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

static const char *const counter_names[PCPU_NR_COUNTERS] = {
	[PCPU_IPI_SENT] = "ipi_sent",
	[PCPU_IPI_RECEIVED] = "ipi_received",
	[PCPU_INTERRUPTS] = "interrupts",
	[PCPU_CALLS_RUN] = "calls_run",
	[PCPU_TLB_FLUSH_ONE] = "tlb_flush_one",
	[PCPU_TLB_FLUSH_ALL] = "tlb_flush_all",
	[PCPU_PAGE_FAULTS] = "page_faults",
	[PCPU_TLB_SHOOTDOWNS] = "tlb_shootdowns",
	[PCPU_PIN_FLAG_WRITES] = "pin_flag_writes",
	[PCPU_PAGEMAP_LOOKUPS] = "pagemap_lookups",
	[PCPU_PAGEMAP_REFS] = "pagemap_refs",
	[PCPU_PIN_UNLOADED] = "pin_unloaded",
	[PCPU_PIN_RETRIES] = "pin_retries",
	[PCPU_MAPPING_LOCKS] = "mapping_locks",
	[PCPU_SWAP_CLUSTER_LOCKS] = "swap_cluster_locks",
	[PCPU_SWAP_DEVICE_LOCKS] = "swap_device_locks",
	[PCPU_SWAP_SLOTS_FREED] = "swap_slots_freed",
	[PCPU_SWAP_BATCH_FALLBACKS] = "swap_batch_fallbacks",
	[PCPU_SWAP_OUT_PAGES] = "swap_out_pages",
};

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
	return c < PCPU_NR_COUNTERS ? counter_names[c] : "?";
}

void percpu_set_online(unsigned cpu)
{
	atomic_store_release(&percpu[cpu].online, true);
	cpumask_set_cpu_atomic(cpu, &cpu_online_mask);
	atomic_fetch_add(&ncpus_online, 1);
}
