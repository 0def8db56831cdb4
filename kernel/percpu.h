/*
 * Per-CPU data: one struct percpu per CPU, starting with a self pointer that
 * this_cpu() reads through GS. A CPU writes only its own copy, except that
 * callers post to a target's mailbox, targets ack in a caller's descriptor
 * (each on its own cache lines), and the boot CPU fills an AP's before it
 * starts; percpu_of() is used only in kernel/smp.c and arch/x86_64/. Event
 * counters take one instruction (this_cpu_inc), so no interrupt loses one.
 */
#ifndef KERNEL_PERCPU_H
#define KERNEL_PERCPU_H

#include "compiler.h"
#include "kernel/cpumask.h"
#include "types.h"

/*
 * Event counters: exact counts that explain benchmark results, in the
 * style of Zircon's KCOUNTER. A counter is defined in the file that counts
 * it (PCPU_COUNTER), as a descriptor in the pcpu_counters section; its
 * index into every CPU's counters[] is its position in that section, so
 * adding one touches that file only and no list holds a number. A file
 * that reads another file's counter sees it through PCPU_COUNTER_DECLARE
 * in the owner's header (mm/counters.h for mm/'s).
 *
 * A counter's name is its handle: an array of one descriptor, so the name
 * is a pointer constant, usable in static initializers (promises, a
 * benchmark's list) and passed wherever a counter is.
 */
struct pcpu_counter {
	const char *name; /* e.g. "ipi_sent": the BENCH line's key, "<name>_per_op" */
};

/* Defines counter @var named @cname (a string) in this file. File scope. */
#define PCPU_COUNTER(var, cname)                                                                   \
	const struct pcpu_counter var[1] __used __section("pcpu_counters") __aligned(8) = {        \
		{ cname }                                                                          \
	}

/* Declares a counter another file defines (in the owner's header). */
#define PCPU_COUNTER_DECLARE(var) extern const struct pcpu_counter var[1]

/* A list of counters, NULL-terminated, in static storage: PCPU_COUNTER_LIST(PCPU_X, PCPU_Y). */
#define PCPU_COUNTER_LIST(...) ((const struct pcpu_counter *const[]){ __VA_ARGS__, NULL })

/*
 * Slots in every CPU's counters[]: room for the registered counters (a
 * boot check and test_percpu hold them to it; the count is known only at
 * link time, so the array has a fixed size).
 */
#define PCPU_COUNTER_SLOTS 48

PCPU_COUNTER_DECLARE(PCPU_IPI_SENT);	 /* IPIs this CPU sent (one per target) */
PCPU_COUNTER_DECLARE(PCPU_IPI_RECEIVED); /* call IPIs this CPU handled */
PCPU_COUNTER_DECLARE(PCPU_INTERRUPTS);	 /* every interrupt taken, IPIs included */
PCPU_COUNTER_DECLARE(PCPU_CALLS_RUN);	 /* cross-CPU call functions this CPU ran */
/* Calls this CPU acknowledged from inside their function (smp_call_ack()), as a target. */
PCPU_COUNTER_DECLARE(PCPU_CALLS_ACKED_EARLY);
/*
 * Calls this CPU posted, each to one or more targets. Our one descriptor
 * holds one call, so every IPI of a call leaves before any of its
 * acknowledgements is waited for, and the next call first waits for them
 * all: IPIs sent per call posted is how many went out before an ack.
 */
PCPU_COUNTER_DECLARE(PCPU_CALLS_POSTED);
/* Writes this CPU made to a watched location (arch_watch_writes()), counted by the trap. */
PCPU_COUNTER_DECLARE(PCPU_WATCHED_WRITES);

/* Bounds of the pcpu_counters section: from the host linker or linker.ld. */
extern const struct pcpu_counter __start_pcpu_counters[], __stop_pcpu_counters[];

/* Counter @c's index into counters[]: its position among the registered ones. */
static inline unsigned pcpu_counter_index(const struct pcpu_counter *c)
{
	return (unsigned)(c - __start_pcpu_counters);
}

/* How many counters are registered (kernel and every module linked in). */
static inline unsigned pcpu_counter_count(void)
{
	return (unsigned)(__stop_pcpu_counters - __start_pcpu_counters);
}

/* The counter at index @i (< pcpu_counter_count()). */
static inline const struct pcpu_counter *pcpu_counter_at(unsigned i)
{
	return &__start_pcpu_counters[i];
}

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
	bool unwaited;	   /* sent without waiting, smp_call_wait() not run since */
} __cacheline_aligned;
/* fn, arg and data fill the first line, which targets only read. */
BUILD_ASSERT(offsetof(struct smp_call_desc, waiting) == 64);

/* Task-context work handed to an idle CPU (kernel/smp.c, smp_run_async). */
struct smp_work {
	void (*fn)(void *arg);
	void *arg;
	bool running; /* the CPU is inside fn, taken from here (smp_cpu_running_work) */
};

/*
 * What a CPU writes on every call it runs and around every HLT
 * (kernel/smp.c): on a line of its own that no other CPU reads or writes,
 * so those stores never bounce a line between CPUs (as one array indexed
 * by CPU did: 16 CPUs' call_unacked on one line).
 */
struct smp_local {
	/* The caller (plus one; 0: none) whose call runs here unacknowledged. */
	unsigned call_unacked;
	/* In cpu_idle()'s HLT: an interrupt handler that sees it woke the CPU. */
	bool idle_halted;
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
	u64 counters[PCPU_COUNTER_SLOTS]; /* by pcpu_counter_index() */
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

/*
 * Per-CPU module state, sized by the CPUs that can come up rather than by
 * MAX_CPUS (in the style of Linux's DEFINE_PER_CPU): a file declares
 * `static struct foo foo __pcpu_data;` and reaches CPU c's copy with
 * per_cpu_ptr(foo, c), its own with this_cpu_ptr(foo). The variables live
 * in the pcpu_data section, which is CPU 0's copy, so the boot CPU may use
 * them from the first instruction. Every other CPU's copy is placed at
 * bring-up (percpu_data_place(), mm/boot_mem.c; the host's fake_arch.c
 * places one for every fake CPU id), before that CPU starts. A CPU id
 * never placed has an offset that makes every address non-canonical, so
 * a stray use faults where it happens instead of sharing CPU 0's copy.
 *
 * Copies start zeroed, whatever the section holds: a __pcpu_data
 * variable has no initializer (set it up at init time, per CPU).
 */
#define __pcpu_data __section("pcpu_data") __cacheline_aligned

/* The offset of each CPU's copy from the section (CPU 0: 0). */
extern unsigned long percpu_data_offset[MAX_CPUS];

#define per_cpu_ptr(var, cpu)                                                                      \
	((__typeof__(&(var)))((uintptr_t)&(var) + percpu_data_offset[(cpu)]))
#define this_cpu_ptr(var) per_cpu_ptr(var, arch_cpu_id())

/* Bytes one CPU's copy takes (the section, rounded to a cache line). */
size_t percpu_data_size(void);

/*
 * Makes the percpu_data_size() bytes at @copy (zeroed, cache-line
 * aligned) CPU @cpu's copy. Bring-up only: before @cpu runs, for a @cpu
 * that has none yet (never 0).
 */
void percpu_data_place(unsigned cpu, void *copy);

/* True when CPU @cpu has its copy (CPU 0 always). */
bool percpu_data_placed(unsigned cpu);

/* One past the highest CPU id with a copy: loops over every CPU's copy stop here. */
unsigned percpu_data_bound(void);

/* Adds @v to this CPU's counter with one instruction (arch hook). */
void arch_percpu_add(size_t offset, u64 v);

#define this_cpu_add(counter, v)                                                         \
	arch_percpu_add(offsetof(struct percpu, counters) +                              \
				pcpu_counter_index(counter) * sizeof(u64),               \
			(v))
#define this_cpu_inc(counter) this_cpu_add(counter, 1)

/* Sum of one counter over every online CPU (a racy snapshot while others run). */
u64 percpu_counter_sum(const struct pcpu_counter *c);

/* Reads counter @c of CPU @cpu. */
u64 percpu_counter_read(unsigned cpu, const struct pcpu_counter *c);

/* Name of counter @c, e.g. "ipi_sent". */
const char *percpu_counter_name(const struct pcpu_counter *c);

/* The registered counter named @name, or NULL (the name a BENCH line prints). */
const struct pcpu_counter *percpu_counter_find(const char *name);

/*
 * 0 when every registered counter has a slot in counters[], else -ENOSPC.
 * Checked once at boot (and by test_percpu): a counter past the slots
 * would write the next member of struct percpu.
 */
int percpu_counters_check(void);

/* Marks @cpu (whose percpu the arch code has set up) online. Boot CPU / bring-up only. */
void percpu_set_online(unsigned cpu);

#endif
