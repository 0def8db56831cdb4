/*
 * Host implementations of the arch/arch.h hooks, panic() and warn_report(),
 * and the fake physical memory arena, so mm/ and kernel/ code runs as a
 * process under ASan/UBSan. The CPU number, interrupt flag and panic trap are
 * per thread, so threads can be fake CPUs. TLB hooks also invalidate the fake
 * CPU's modelled TLB (tests/host/fake_tlb.c); smp_call() runs each target's
 * function as that CPU. Page-table entries are <arch/mmu.h>'s, not faked.
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "errno.h"
#include "kernel/panic.h"
#include "lib/atomic.h"
#include "mm/page.h"
#include "tests/host/fake_arch.h"
#include "tests/host/fake_cpus.h"
#include "tests/host/fake_tlb.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include <arch/arch.h>

u64 fake_flush_one_calls, fake_flush_all_calls, fake_flush_everything_calls;
u64 fake_load_root_calls, fake_warn_calls, fake_ipi_calls;
vaddr_t fake_flush_last_va;
paddr_t fake_loaded_root;
u16 fake_loaded_asid;
bool fake_load_flushed;

static __thread unsigned fake_cpu;
static __thread bool fake_irqs_off;
static __thread jmp_buf *fake_panic_trap;
static __thread char fake_panic_text[256];

void fake_arch_reset_counts(void)
{
	atomic_store_relaxed(&fake_flush_one_calls, 0);
	atomic_store_relaxed(&fake_flush_all_calls, 0);
	atomic_store_relaxed(&fake_flush_everything_calls, 0);
	atomic_store_relaxed(&fake_load_root_calls, 0);
	atomic_store_relaxed(&fake_warn_calls, 0);
	atomic_store_relaxed(&fake_ipi_calls, 0);
}

void fake_arch_set_cpu(unsigned cpu)
{
	fake_cpu = cpu;
}

void fake_arch_set_spin_unfair(bool on)
{
	arch_spin_unfair_mode = on; /* set before the threads that lock start */
}

/* arch.h hooks */

unsigned long arch_irq_save(void)
{
	unsigned long was_on = !fake_irqs_off;

	if (was_on && fake_cpus_on)
		fake_cpus_irq_off(fake_cpu);
	fake_irqs_off = true;
	return was_on;
}

void arch_irq_restore(unsigned long flags)
{
	bool was_off = fake_irqs_off;

	fake_irqs_off = !flags;
	if (was_off && flags && fake_cpus_on)
		fake_cpus_irq_on(fake_cpu);
}

bool arch_irqs_enabled(void)
{
	return !fake_irqs_off;
}

/* Yield: host threads outnumber host cores in the torture tests. */
unsigned long fake_relax_count;

void arch_cpu_relax(void)
{
	__atomic_fetch_add(&fake_relax_count, 1, __ATOMIC_RELAXED); /* the torture's threads too */
	sched_yield();
	if (fake_cpus_on)
		fake_cpus_service(); /* a tick may come in while a CPU spins */
}

/* False unless a test asks: arch_cpu_relax() already yields to the other threads. */
bool arch_spin_unfair_mode;

/* As in the kernel: every turn of a wait relaxes (yields the host thread). */
bool arch_spin_pause = true;

unsigned arch_cpu_id(void)
{
	return fake_cpu;
}

/*
 * Every fake CPU id has its per-CPU data copy (kernel/percpu.h) before
 * main(): host threads take any id below MAX_CPUS. One block, kept, so the
 * leak checker sees it reachable.
 */
static char *fake_percpu_data;

__attribute__((constructor)) static void fake_percpu_data_place(void)
{
	size_t size = percpu_data_size();

	fake_percpu_data = aligned_alloc(CACHE_LINE, size * (MAX_CPUS - 1));
	if (!fake_percpu_data) {
		fprintf(stderr, "fake_arch: no memory for per-CPU data\n");
		abort();
	}
	memset(fake_percpu_data, 0, size * (MAX_CPUS - 1));
	for (unsigned cpu = 1; cpu < MAX_CPUS; cpu++)
		percpu_data_place(cpu, fake_percpu_data + (cpu - 1) * size);
}

/* Per-CPU data on the host: the fake CPU id picks the copy (kernel/percpu.c). */
struct percpu *this_cpu(void)
{
	return percpu_of(fake_cpu);
}

void arch_percpu_add(size_t offset, u64 v)
{
	__atomic_fetch_add((u64 *)((char *)this_cpu() + offset), v, __ATOMIC_RELAXED);
}

#ifdef FAKE_ARCH_REAL_SMP
u64 (*host_smp_clock_hook)(u64 now);
#endif

u64 arch_tsc_read(void)
{
	struct timespec ts;
	u64 now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
#ifdef FAKE_ARCH_REAL_SMP
	if (host_smp_clock_hook && arch_cpu_id() == 0)
		now = host_smp_clock_hook(now);
#endif
	return now;
}

u64 arch_tsc_hz(void)
{
	return 1000000000ull;
}

/*
 * The fake tick: never fires by itself; fake_tick() runs it on the calling
 * fake CPU. Atomic: the threaded fake CPUs start each CPU's tick on its
 * runner thread, several at once, while its own thread may be ticking.
 */
static void (*fake_tick_fn)(void);
static bool fake_tick_on[MAX_CPUS];

int arch_tick_start(unsigned hz, void (*fn)(void))
{
	if (!hz || !fn)
		return -EINVAL;
	__atomic_store_n(&fake_tick_fn, fn, __ATOMIC_RELEASE);
	__atomic_store_n(&fake_tick_on[fake_cpu], true, __ATOMIC_RELEASE);
	return 0;
}

void arch_tick_stop(void)
{
	__atomic_store_n(&fake_tick_on[fake_cpu], false, __ATOMIC_RELEASE);
}

bool fake_tick(void)
{
	void (*fn)(void) = __atomic_load_n(&fake_tick_fn, __ATOMIC_ACQUIRE);

	if (!__atomic_load_n(&fake_tick_on[fake_cpu], __ATOMIC_ACQUIRE) || !fn)
		return false;
	fn();
	return true;
}

/* Tests only: called at every TLB flush hook, the point a test may play an interrupt at. */
void (*fake_flush_hook)(void);

static void fake_flush_point(void)
{
	void (*hook)(void) = fake_flush_hook;

	if (hook)
		hook();
}

void arch_tlb_flush_one(vaddr_t va)
{
	fake_flush_point();
	atomic_inc(&fake_flush_one_calls);
	atomic_store_relaxed(&fake_flush_last_va, va);
	fake_tlb_flush_va(fake_cpu, va);
}

void arch_tlb_flush_all(void)
{
	fake_flush_point();
	atomic_inc(&fake_flush_all_calls);
	fake_tlb_flush_asid(fake_cpu);
}

void arch_tlb_flush_everything(void)
{
	fake_flush_point();
	atomic_inc(&fake_flush_everything_calls);
	fake_tlb_flush_everything(fake_cpu);
}

/*
 * The kernel's printk output, as KTAP diagnostics: each line starts with
 * "# " so it never reads as a test result.
 */
void arch_console_write(const char *s, size_t n)
{
	static __thread bool mid_line;

	for (size_t i = 0; i < n; i++) {
		if (!mid_line)
			fputs("# ", stdout);
		fputc(s[i], stdout);
		mid_line = s[i] != '\n';
	}
}

void arch_exit(enum arch_exit_status status)
{
	exit(status == EXIT_PASS ? 0 : 1);
}

void arch_stop_other_cpus(void)
{
}

void arch_halt(void)
{
	abort();
}

/* The hook fault_init() registered; host tests call fault_handle_mm() directly. */
const struct arch_fault_hook *fake_fault_hook;

void arch_set_fault_hook(const struct arch_fault_hook *hook)
{
	fake_fault_hook = hook;
}

void arch_load_root(paddr_t root, u16 asid, bool flush)
{
	atomic_inc(&fake_load_root_calls);
	atomic_store_relaxed(&fake_loaded_root, root);
	atomic_store_relaxed(&fake_loaded_asid, asid);
	atomic_store_relaxed(&fake_load_flushed, flush);
	fake_tlb_load(fake_cpu, asid, flush);
}

/*
 * The test binary with the real kernel/smp.c and threads as CPUs
 * (tests/host/host_smp_arch.c) builds this file with FAKE_ARCH_REAL_SMP.
 */
#ifndef FAKE_ARCH_REAL_SMP
/*
 * kernel/smp.h on the host: runs @fn "on" each target in turn by switching
 * the calling thread's fake CPU number, with interrupts off as in the
 * call IPI, and counts one IPI per target.
 */
int smp_call(const cpumask_t *mask, smp_call_fn fn, void *arg, bool wait)
{
	unsigned self = fake_cpu, cpu;
	bool irqs_off = fake_irqs_off;

	if (fake_cpus_on)
		return fake_cpus_call(mask, fn, arg, self, wait);
	for_each_cpu(cpu, mask) {
		if (cpu == self)
			continue;
		fake_cpu = cpu;
		fake_irqs_off = true;
		fn(arg);
		fake_irqs_off = irqs_off;
		atomic_inc(&fake_ipi_calls);
	}
	fake_cpu = self;
	return 0;
}

/* smp_call() on a copy of @data, as the kernel's (which keeps it in the descriptor). */
int smp_call_copy(const cpumask_t *mask, smp_call_fn fn, void *data, size_t len, bool wait)
{
	u64 copy[SMP_CALL_DATA_MAX / 8];
	int err;

	if (!len || len > sizeof(copy))
		return -EINVAL;
	if (fake_cpus_on) /* the copy lives in the caller's descriptor: a call may outlive us */
		return fake_cpus_call_copy(mask, fn, data, len, fake_cpu, wait);
	memcpy(copy, data, len);
	err = smp_call(mask, fn, copy, wait);
	memcpy(data, copy, len);
	return err;
}

int smp_call_others(smp_call_fn fn, void *arg, bool wait)
{
	return smp_call(&cpu_online_mask, fn, arg, wait);
}

/* No fake CPU misses a deadline unless the threaded model (fake_cpus.h) is on and wrote it off. */
bool smp_cpu_dead(unsigned cpu)
{
	void (*hook)(unsigned) = __atomic_load_n(&fake_cpus_check_hook, __ATOMIC_ACQUIRE);

	if (fake_cpus_on && hook)
		hook(cpu);
	return fake_cpus_on && fake_cpus_dead(cpu);
}

/* Counts only in the threaded model (fake_cpus.h); else a late drain is the test's to report. */
void smp_cpu_write_off(unsigned cpu, const char *who)
{
	if (fake_cpus_on)
		fake_cpus_write_off(cpu, who);
}

/* The kernel's default bound; host waits on it only when a test forgot a fake tick. */
u32 smp_timeout_ms(void)
{
	return 1000;
}

/* The plain model runs calls synchronously above: nothing is ever left to wait for. */
int smp_call_wait(void)
{
	return fake_cpus_on ? fake_cpus_wait(fake_cpu) : 0;
}

bool smp_call_pending(void)
{
	return fake_cpus_on && fake_cpus_pending(fake_cpu);
}

/*
 * The plain model's call "returns" when its function does, so an early
 * acknowledgement changes nothing there; the threaded one's caller goes on.
 */
bool smp_call_ack(void)
{
	return fake_cpus_on && fake_cpus_ack();
}
#endif /* !FAKE_ARCH_REAL_SMP */

/* panics and warnings */

void panic(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(fake_panic_text, sizeof(fake_panic_text), fmt, ap);
	va_end(ap);
	if (fake_panic_trap)
		longjmp(*fake_panic_trap, 1);
	fprintf(stderr, "PANIC on cpu %u: %s\n", fake_cpu, fake_panic_text);
	abort();
}

void panic_begin(void)
{
}

void panic_end(const char *why)
{
	fprintf(stderr, "PANIC on cpu %u: %s\n", fake_cpu, why);
	abort();
}

bool panic_in_progress(void)
{
	return false;
}

void warn_report(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	atomic_inc(&fake_warn_calls);
	printf("# WARN %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

bool fake_expect_panic(void (*fn)(void *), void *arg)
{
	jmp_buf trap;
	jmp_buf *volatile saved = fake_panic_trap;

	fake_panic_text[0] = '\0';
	if (setjmp(trap)) {
		fake_panic_trap = saved;
		return true;
	}
	fake_panic_trap = &trap;
	fn(arg);
	fake_panic_trap = saved;
	return false;
}

const char *fake_panic_message(void)
{
	return fake_panic_text;
}

/* fake physical memory */

#define MIB (1ull << 20)
#define KIB (1ull << 10)

const struct pmm_range fake_usable[] = {
	{ FAKE_PHYS_BASE, FAKE_PHYS_BASE + 30 * MIB },
	{ FAKE_PHYS_BASE + 10 * MIB, FAKE_PHYS_BASE + 12 * MIB }, /* overlaps, as firmware may */
	{ FAKE_PHYS_BASE + 30 * MIB + 64 * KIB + 0x800, FAKE_PHYS_BASE + 48 * MIB + 0x100 },
	{ FAKE_PHYS_BASE + 49 * MIB, FAKE_PHYS_BASE + FAKE_MEM_SIZE },
};
const unsigned fake_nusable = ARRAY_SIZE(fake_usable);

const struct pmm_range fake_reserved[] = {
	{ FAKE_PHYS_BASE + 1 * MIB, FAKE_PHYS_BASE + 1 * MIB + 300 * KIB },	/* "kernel image" */
	{ FAKE_PHYS_BASE + 40 * MIB + 0x10, FAKE_PHYS_BASE + 41 * MIB - 0x10 }, /* "boot module" */
	{ FAKE_PHYS_BASE + 60 * MIB, FAKE_PHYS_BASE + 60 * MIB + 8 * KIB },	/* "firmware" */
};
const unsigned fake_nreserved = ARRAY_SIZE(fake_reserved);

static void *fake_arena;

int fake_pmm_init(paddr_t direct_limit)
{
	struct pmm_config cfg = {
		.usable = fake_usable,
		.nusable = fake_nusable,
		.reserved = fake_reserved,
		.nreserved = fake_nreserved,
		.direct_limit = direct_limit,
	};

	if (!fake_arena) {
		fake_arena = aligned_alloc(PAGE_SIZE, FAKE_MEM_SIZE);
		if (!fake_arena)
			abort();
	}
	mm_direct_map_base = (vaddr_t)(uintptr_t)fake_arena - FAKE_PHYS_BASE;
	return pmm_init(&cfg);
}

/* NUMA: one node unless a test lays out more with fake_numa_set(). */
static unsigned fake_nnodes = 1;
static u8 fake_cpu_nodes[MAX_CPUS];
static u8 fake_dist[MACHINE_MAX_NODES][MACHINE_MAX_NODES];
static bool fake_dist_valid;

void fake_numa_set(unsigned nnodes, const u8 *cpu_node, unsigned ncpus, const u8 *dist)
{
	nnodes = nnodes ? nnodes : 1;
	fake_nnodes = nnodes;
	memset(fake_cpu_nodes, 0, sizeof(fake_cpu_nodes));
	for (unsigned i = 0; cpu_node && i < ncpus && i < MAX_CPUS; i++)
		fake_cpu_nodes[i] = cpu_node[i];
	fake_dist_valid = dist != NULL;
	for (unsigned a = 0; dist && a < nnodes; a++)
		for (unsigned b = 0; b < nnodes; b++)
			fake_dist[a][b] = dist[a * nnodes + b];
}

unsigned arch_cpu_node(unsigned cpu)
{
	return cpu < MAX_CPUS ? fake_cpu_nodes[cpu] : 0;
}

unsigned arch_node_count(void)
{
	return fake_nnodes;
}

unsigned arch_node_distance(unsigned from, unsigned to)
{
	if (!fake_dist_valid || from >= fake_nnodes || to >= fake_nnodes)
		return 0;
	return fake_dist[from][to];
}

int fake_pmm_init_nodes(const struct pmm_node_range *r, unsigned n, unsigned nnodes)
{
	struct pmm_config cfg = {
		.usable = fake_usable,
		.nusable = fake_nusable,
		.reserved = fake_reserved,
		.nreserved = fake_nreserved,
		.node_ranges = r,
		.nnode_ranges = n,
		.nnodes = nnodes,
	};

	if (fake_pmm_init(0))
		return -EINVAL; /* allocates the arena and checks the plain layout */
	return pmm_init(&cfg);
}
