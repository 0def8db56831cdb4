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

/*
 * Event counters: exact counts that explain benchmark results. kernel/
 * owns the first PCPU_KERNEL_COUNTERS indexes; a module that counts gives
 * its counters the indexes after them in its own header (mm/counters.h)
 * and names each one with PCPU_COUNTER next to the code that counts it.
 */
enum pcpu_counter {
	PCPU_IPI_SENT,	   /* IPIs this CPU sent (one per target) */
	PCPU_IPI_RECEIVED, /* call IPIs this CPU handled */
	PCPU_INTERRUPTS,   /* every interrupt taken, IPIs included */
	PCPU_CALLS_RUN,	   /* cross-CPU call functions this CPU ran */
	PCPU_KERNEL_COUNTERS,
};

/* Counter slots in every CPU's array: every index a module may give out. */
#define PCPU_MAX_COUNTERS 32
#define PCPU_NR_COUNTERS PCPU_MAX_COUNTERS

/* A counter's name, e.g. "ipi_sent", registered by its owner (PCPU_COUNTER). */
struct pcpu_counter_desc {
	unsigned index;
	const char *name;
};

/*
 * PCPU_COUNTER(PCPU_X, "x") at file scope names counter PCPU_X in the
 * pcpu_counters section (a C identifier: the host linker provides its
 * bounds, linker.ld defines them too).
 */
#define PCPU_COUNTER(idx, cname)                                                                   \
	_Static_assert((idx) < PCPU_MAX_COUNTERS, #idx ": no counter slot");                       \
	static const struct pcpu_counter_desc pcpu_counter_##idx __used                            \
		__section("pcpu_counters") __aligned(8) = { idx, cname }

/*
 * Written by other CPUs: posting calls to this CPU (kernel/smp.c). @pending
 * shares the first cache line with the callers of CPUs 0..447, so a post
 * from one of them writes one line.
 */
struct smp_mailbox {
	u64 pending;	   /* bit w: callers.bits[w] may have a bit set */
	cpumask_t callers; /* CPUs whose call descriptor has work for us */
} __cacheline_aligned;
BUILD_ASSERT(CPUMASK_WORDS <= 64); /* one pending bit per word of callers */

/* Bytes of argument a call descriptor holds a copy of (smp_call_copy()). */
#define SMP_CALL_DATA_MAX 48

/* A call this CPU is making to others (kernel/smp.c). */
struct smp_call_desc {
	void (*fn)(void *arg);
	void *arg;			 /* what @fn gets: the caller's pointer, or @data */
	u64 data[SMP_CALL_DATA_MAX / 8]; /* the copied argument (smp_call_copy) */
	/* Cache line 2 on: what the targets write back. */
	cpumask_t waiting; /* targets that may still run the call; each clears its bit */
	u64 words;	   /* bit w: waiting.bits[w] may be non-zero (the caller's own) */
	int err;	   /* -ETIMEDOUT: a target was or went out of the run */
} __cacheline_aligned;
/* fn, arg and data fill the first line, which targets only read. */
BUILD_ASSERT(offsetof(struct smp_call_desc, waiting) == 64);

/* Task-context work handed to an idle CPU (kernel/smp.c, smp_run_async). */
struct smp_work {
	void (*fn)(void *arg);
	void *arg;
};

/*
 * What a CPU writes on every call it runs and around every HLT
 * (kernel/smp.c): on a line of its own that no other CPU reads or writes,
 * so those stores never bounce a line between CPUs (as one array indexed
 * by CPU did: 16 CPUs' call_unacked on one line).
 */
struct smp_local {
	unsigned call_unacked; /* the caller (plus one; 0: none) whose call runs here unacknowledged */
	bool idle_halted;      /* in cpu_idle()'s HLT: an interrupt handler seeing it woke the CPU */
} __cacheline_aligned;

struct percpu {
	struct percpu *self; /* offset 0: this_cpu() reads %gs:0 */
	unsigned cpu_id;
	u32 apic_id;
	bool online;
	unsigned irq_depth;
	unsigned spin_held;	   /* spinlocks this CPU holds (kernel/spinlock.c) */
	const char *spin_last;	   /* the name of the last one it took */
	void *mm; /* the address space loaded on this CPU (struct mm) */
	u64 counters[PCPU_MAX_COUNTERS];
	struct smp_work work;
	struct smp_call_desc call;
	struct smp_mailbox mailbox;
	struct smp_local local;
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

/* Name of counter @c, e.g. "ipi_sent" ("?" when no module named it). */
const char *percpu_counter_name(enum pcpu_counter c);

/* Marks @cpu (whose percpu the arch code has set up) online. Boot CPU / bring-up only. */
void percpu_set_online(unsigned cpu);

#endif
