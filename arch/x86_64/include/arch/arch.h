/*
 * The architecture interface that architecture-neutral code (mm/, kernel/,
 * bench/, tests/) may call. arch/x86_64 implements it for the kernel;
 * tests/host/fake_arch.c implements it for host unit tests, recording calls so
 * tests can count flushes and IPIs. Nothing here is x86 inline asm: that
 * lives only in arch/cpu.h, which architecture-neutral code never includes.
 */
#ifndef ARCH_ARCH_H
#define ARCH_ARCH_H

#include "types.h"

struct options;
struct machine_desc;
struct machine_kmap;
/*
 * Boot-CPU bring-up before the header is printed: CPU identification,
 * GDT/TSS and IDT, and the console: console= from @opt (NULL when the
 * command line did not parse), else the firmware's console UART (ACPI
 * SPCR), else COM1. Returns false when the UART console= names is absent
 * (COM1 is used instead).
 */
bool arch_early_init(const struct options *opt);

/*
 * Bring-up after arch_early_init(), in the order kernel/main.c calls it,
 * with mm's steps (mm/boot_mem.h) between: arch describes, mm builds, arch
 * loads, then the CPUs start. Problems that leave a usable machine are
 * printed as warnings; a fatal one returns a negative error with @err set.
 *
 * arch_init(): firmware tables and clocks, then fills @d with the machine's
 * memory map, image sections and MMU features (include/machine.h).
 */
int arch_init(const struct options *opt, struct machine_desc *d, char *err, size_t errlen);

/* Switches the boot CPU to the kernel map mm built (@km must outlive the run). */
void arch_load_kmap(const struct machine_kmap *km);

/*
 * The boot CPU's TSS on its stacks from the kernel map, its local APIC, the
 * legacy interrupt controllers.
 */
int arch_start_boot_cpu(char *err, size_t errlen);

/* Every other CPU the options allow, on the kernel map; then the TSC check. */
int arch_start_aps(const struct options *opt, char *err, size_t errlen);

/* Switches this CPU to the stack whose top is @top and calls @fn there; never returns. */
__attribute__((noreturn)) void arch_run_on_stack(vaddr_t top, void (*fn)(void));

/* Interrupt state: returns the previous state for arch_irq_restore(). */
unsigned long arch_irq_save(void);
void arch_irq_restore(unsigned long flags);
bool arch_irqs_enabled(void);
void arch_irq_enable(void);

/* Enables interrupts and waits for one, atomically (no wake-up is lost). */
void arch_idle(void);

/* Spin-wait hint, once per turn of a loop that waits for another CPU's store (x86: PAUSE). */
void arch_cpu_relax(void);

/*
 * Whether the turns of a cross-CPU wait relax (kernel/smp.h; the header's
 * "spin_pause"): true unless spin_pause=off asked for a wait without it
 * (a like-for-like row against a peer that does not pause). Set once at boot.
 */
extern bool arch_spin_pause;

/*
 * True when a spinning CPU may be a host thread that arch_cpu_relax() does
 * not yield to the others (x86: QEMU TCG): spinlocks then hand a freed lock
 * to whichever waiter is running rather than to the next in line. Set once
 * at boot, before any other CPU runs; every spin_lock() reads it.
 */
extern bool arch_spin_unfair_mode;

static inline bool arch_spin_unfair(void)
{
	return arch_spin_unfair_mode;
}

/* Logical number of the calling CPU, 0..ncpus-1 (0 on the host). */
unsigned arch_cpu_id(void);

/*
 * NUMA as the firmware describes it (x86: SRAT and SLIT). arch_cpu_node():
 * the node of logical CPU @cpu (0 when unknown). arch_node_count(): nodes,
 * 1 when the firmware names none. arch_node_distance(): the SLIT's relative
 * distance (10 local), or 0 when no distances are known. Any context.
 */
unsigned arch_cpu_node(unsigned cpu);
unsigned arch_node_count(void);
unsigned arch_node_distance(unsigned from, unsigned to);

/* Where a CPU sits, as the header's "topology" names it. */
struct arch_cpu_pos {
	u32 node, socket, core, thread;
};

/* Logical CPU @cpu's place (all zero when the firmware and CPUID say nothing). After bring-up. */
struct arch_cpu_pos arch_cpu_where(unsigned cpu);

/* Serialised timestamp counter read; arch_tsc_hz() is its frequency. */
u64 arch_tsc_read(void);
u64 arch_tsc_hz(void);

/*
 * A periodic tick on the calling CPU only (x86: the local APIC timer in
 * periodic mode, SDM Vol. 3A 11.5.4, on a vector of its own), about @hz
 * times a second; each tick calls @fn in interrupt context, interrupts
 * off. One @fn for every CPU. The first start measures the timer against
 * the TSC (10 ms of busy waiting): make it on one CPU before the others.
 * Returns 0, -EINVAL (@hz 0, no @fn) or -ERANGE (@hz out of the timer's
 * reach). arch_tick_stop() stops it; any context.
 */
int arch_tick_start(unsigned hz, void (*fn)(void));
void arch_tick_stop(void);

/* TLB maintenance on the calling CPU only. */
void arch_tlb_flush_one(vaddr_t va);
void arch_tlb_flush_all(void);        /* non-global entries of the current address space */
void arch_tlb_flush_everything(void); /* global entries too */

/* Write console bytes (serial); callers serialise. */
void arch_console_write(const char *s, size_t n);

/*
 * How a run ends. Under QEMU each maps to an isa-debug-exit value that run.sh
 * decodes; on real hardware the machine halts after the trailer line.
 */
enum arch_exit_status { EXIT_PASS, EXIT_FAIL, EXIT_USAGE, EXIT_PANIC };
__attribute__((noreturn)) void arch_exit(enum arch_exit_status status);

struct json;
/* Adds the architecture's facts (CPU vendor/model, hypervisor, TSC) to the MMLAB header. */
void arch_describe(struct json *j);

/* Prints a backtrace of the caller's stack with function names. */
void arch_backtrace(void);

/* Stop every other CPU (NMI or IPI) so a panic report is not overwritten. */
void arch_stop_other_cpus(void);

/* Halt this CPU for good, interrupts off. */
__attribute__((noreturn)) void arch_halt(void);

/*
 * Loads page-table root @root (physical address of the top table) on this
 * CPU, tagging its translations with address-space identifier @asid (x86:
 * the PCID; 0 is the kernel root's, and the only one when the MMU has none).
 * With @flush, translations this CPU cached earlier under @asid are dropped
 * (global ones stay); without ASIDs every load drops them anyway.
 */
void arch_load_root(paddr_t root, u16 asid, bool flush);

/*
 * The page-fault hook: how the arch's #PF handler reaches whoever resolves
 * faults (mm/fault.c's fault_init(), from mm_boot_build()), so arch calls no mm
 * function and knows no mm type. The arch decodes its error code into
 * ARCH_FAULT_* flags. Without a hook every page fault is reported.
 */
#define ARCH_FAULT_WRITE (1u << 0)   /* the access was a write */
#define ARCH_FAULT_PRESENT (1u << 1) /* the page was present: a protection violation */
#define ARCH_FAULT_EXEC (1u << 2)    /* the access was an instruction fetch */

struct arch_fault_hook {
	/*
	 * Interrupts off: whether a fault at lower-half @addr is the hook's (an
	 * address space is loaded).
	 */
	bool (*wants)(vaddr_t addr);
	/*
	 * Resolves it, interrupts on when the faulting code had them. Returns 0
	 * (retry the access) or a negative error (the exception is reported).
	 */
	int (*handle)(vaddr_t addr, unsigned flags);
	/* A sentence on why handle() returned @err, for the exception report. */
	const char *(*strerror)(int err);
};

/* Installs @hook (it must outlive the run). Boot CPU, before the first fault it should see. */
void arch_set_fault_hook(const struct arch_fault_hook *hook);

/*
 * Write watches (debug registers, this CPU only): every write to the
 * @len bytes at @addr (1, 2, 4 or 8, aligned to @len) traps after it is
 * done, and the trap adds one to this CPU's PCPU_WATCHED_WRITES, then the
 * code goes on. Slots 0..3. -EINVAL for a bad slot, length or alignment.
 */
int arch_watch_writes(unsigned slot, const void *addr, unsigned len);
void arch_watch_clear(unsigned slot);

#endif
