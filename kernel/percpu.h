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
	PCPU_NR_COUNTERS,
};

/* Written by other CPUs: posting calls to this CPU (kernel/smp.c). */
struct smp_mailbox {
	cpumask_t callers; /* CPUs whose call descriptor has work for us */
} __cacheline_aligned;

/* A call this CPU is making to others (kernel/smp.c). */
struct smp_call_desc {
	void (*fn)(void *arg);
	void *arg;
	u32 remaining;      /* targets that have not acknowledged yet */
	cpumask_t waiting;  /* the same, as a set, to name late CPUs */
} __cacheline_aligned;

/* Task-context work handed to an idle CPU (kernel/smp.c, smp_run_async). */
struct smp_work {
	void (*fn)(void *arg);
	void *arg;
};

struct percpu {
	struct percpu *self; /* offset 0: this_cpu() reads %gs:0 */
	unsigned cpu_id;
	u32 apic_id;
	bool online;
	unsigned irq_depth;
	void *mm; /* the address space loaded on this CPU (struct mm) */
	u64 counters[PCPU_NR_COUNTERS];
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
