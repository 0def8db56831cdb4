/*
 * Per-CPU data: one struct percpu per CPU in a static array. The struct
 * starts with a self pointer, which this_cpu() reads through the GS base.
 * A CPU writes only its own copy, except the mailbox, which other CPUs
 * write and which therefore sits on its own cache lines; another CPU's copy
 * is reached only through percpu_of(), and only in kernel/smp.c and
 * arch/x86_64/. Event counters are incremented with one instruction
 * (this_cpu_inc), so an interrupt on the same CPU cannot lose an update.
 */
#ifndef KERNEL_PERCPU_H
#define KERNEL_PERCPU_H

#include "compiler.h"
#include "kernel/cpumask.h"
#include "types.h"

/* Event counters: exact counts that explain benchmark results. */
enum pcpu_counter {
	PCPU_IPI_SENT,		/* IPIs this CPU sent (one per target) */
	PCPU_IPI_RECEIVED,	/* call IPIs this CPU handled */
	PCPU_INTERRUPTS,	/* every interrupt taken, IPIs included */
	PCPU_CALLS_RUN,		/* cross-CPU call functions this CPU ran */
	PCPU_TLB_FLUSH_ONE,	/* single-page invalidations */
	PCPU_TLB_FLUSH_ALL,	/* full (non-global) flushes */
	PCPU_PAGE_FAULTS,	/* page faults handled */
	PCPU_TLB_SHOOTDOWNS,	/* shootdown rounds this CPU initiated (one IPI wave each) */
	PCPU_PIN_FLAG_WRITES,	/* writes to an mm's shared has_pinned flag */
	PCPU_PAGEMAP_LOOKUPS,	/* device pagemap tree lookups */
	PCPU_PAGEMAP_REFS,	/* device pagemap references taken */
	PCPU_PIN_UNLOADED,	/* pin calls on a CPU without the mm loaded: walked under its lock */
	PCPU_PIN_RETRIES,	/* pins undone: their entry changed, or fork ran under a lockless walk */
	PCPU_MAPPING_LOCKS,	/* mapping rwlock acquisitions on the fault path */
	PCPU_SWAP_CLUSTER_LOCKS,   /* swap cluster lock acquisitions (mm/swap_internal.h) */
	PCPU_SWAP_DEVICE_LOCKS,	   /* swap device lock acquisitions */
	PCPU_SWAP_SLOTS_FREED,	   /* swap slots returned to their cluster */
	PCPU_SWAP_BATCH_FALLBACKS, /* batched swap frees that fell back to one slot at a time */
	PCPU_SWAP_OUT_PAGES,	   /* pages swapped out (mm/swap_mm.c) */
	PCPU_NR_COUNTERS,
};

/* Written by other CPUs: posting calls to this CPU (kernel/smp.c). */
struct smp_mailbox {
	cpumask_t callers; /* CPUs whose call descriptor has work for us */
} __cacheline_aligned;

/* Bytes of argument a call descriptor holds a copy of (smp_call_copy()). */
#define SMP_CALL_DATA_MAX 48

/* A call this CPU is making to others (kernel/smp.c). */
struct smp_call_desc {
	void (*fn)(void *arg);
	void *arg;			 /* what @fn gets: the caller's pointer, or @data */
	u64 data[SMP_CALL_DATA_MAX / 8]; /* the copied argument (smp_call_copy) */
	u32 remaining;			 /* targets that may still run the call */
	int err;			 /* -ETIMEDOUT: a target was or went out of the run */
	cpumask_t waiting;		 /* the same, as a set, to name late CPUs */
} __cacheline_aligned;

/* Task-context work handed to an idle CPU (kernel/smp.c, smp_run_async). */
struct smp_work {
	void (*fn)(void *arg);
	void *arg;
};

/*
 * Swap allocation hints (mm/swap_cluster.c): for each swap device and run
 * order, the slot offset + 1 where this CPU allocates next (0: none), so each
 * CPU keeps to its own cluster. A hint is only a guess, checked under the
 * cluster lock; gen drops hints left from an earlier device of the same
 * index. mm/swap.h asserts that its limits fit these.
 */
#define PCPU_SWAP_DEVS 4
#define PCPU_SWAP_ORDERS 10
struct pcpu_swap {
	u32 next[PCPU_SWAP_DEVS][PCPU_SWAP_ORDERS];
	u32 gen[PCPU_SWAP_DEVS]; /* the swap_on() generation the hints belong to */
};

struct percpu {
	struct percpu *self; /* offset 0: this_cpu() reads %gs:0 */
	unsigned cpu_id;
	u32 apic_id;
	bool online;
	unsigned irq_depth;
	unsigned spin_held;	   /* spinlocks this CPU holds (kernel/spinlock.c) */
	const char *spin_last;	   /* the name of the last one it took */
	void *mm; /* the address space loaded on this CPU (struct mm) */
	u64 counters[PCPU_NR_COUNTERS];
	struct pcpu_swap swap; /* written only by this CPU */
	struct smp_work work;
	struct smp_call_desc call;
	struct smp_mailbox mailbox;
} __cacheline_aligned;

extern struct percpu percpu[MAX_CPUS];
extern unsigned ncpus_online;
extern cpumask_t cpu_online_mask;

/* This CPU's data (arch: %gs:0). */
struct percpu *this_cpu(void);

/* CPU @cpu's data. Only kernel/smp.c and arch/x86_64 may use this. */
static inline struct percpu *percpu_of(unsigned cpu)
{
	return &percpu[cpu];
}

/* Adds @v to this CPU's counter with one instruction (arch hook). */
void arch_percpu_add(size_t offset, u64 v);

#define this_cpu_add(counter, v)                                                         \
	arch_percpu_add(offsetof(struct percpu, counters) + (counter) * sizeof(u64), (v))
#define this_cpu_inc(counter) this_cpu_add(counter, 1)

/* Sum of one counter over every online CPU (a racy snapshot while others run). */
u64 percpu_counter_sum(enum pcpu_counter c);

/* Reads counter @c of CPU @cpu. */
u64 percpu_counter_read(unsigned cpu, enum pcpu_counter c);

/* Name of counter @c, e.g. "ipi_sent". */
const char *percpu_counter_name(enum pcpu_counter c);

/* Marks @cpu (whose percpu the arch code has set up) online. Boot CPU / bring-up only. */
void percpu_set_online(unsigned cpu);

#endif
