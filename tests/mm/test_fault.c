/*
 * Self-tests of the page-fault path on the hardware: address spaces loaded
 * with mm_switch() and touched with plain loads and stores, so a first touch
 * is a real #PF that arch/x86_64/traps.c hands to mm/fault.c. Contents and
 * exact counts, bad faults caught (trap_catch), mappings seen and unseen by
 * every CPU, high frames, tables freed, throughput passes checked exactly.
 * Other CPUs work through smp_run_async() (interrupts on). Kernel only.
 */
/* build: kernel only */
#include "arch/x86_64/traps.h"
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "mm/fault.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "tests/ktest.h"
#include "tests/mm_test.h"
#include <arch/arch.h>

#define REG 0x20000000ul
#define RW (MM_READ | MM_WRITE)
#define WORDS_PER_PAGE (KB4 / sizeof(u64))
#define RUN_TIMEOUT_S 120
/* Pages each CPU faults in per throughput pass: 2 MiB, one page table's worth. */
#define BENCH_PAGES 512
#define FOUR_GIB 0x100000000ull
/*
 * What each throughput pass writes (xor the page index), so pages of one pass
 * tell from another's.
 */
#define BENCH_TAG_ZERO 0x7a45524f00000000ull
#define BENCH_TAG_COW 0x434f570000000000ull
#define BENCH_TAG_SHARED 0x5348415200000000ull

static volatile u64 *word(vaddr_t va)
{
	return (volatile u64 *)va;
}

/* Runs @fn(@arg) on every online CPU at once, this one included; returns when all are done. */
static struct {
	void (*fn)(void *arg);
	void *arg;
	u32 done;
} on_all;

static void on_all_run(void *unused)
{
	(void)unused;
	on_all.fn(on_all.arg);
	atomic_fetch_add(&on_all.done, 1);
}

static int run_on_all(void (*fn)(void *), void *arg)
{
	unsigned cpu, self = arch_cpu_id(), started = 1;
	u64 deadline = arch_tsc_read() + arch_tsc_hz() * RUN_TIMEOUT_S;
	int err = 0;

	on_all.fn = fn;
	on_all.arg = arg;
	atomic_store_release(&on_all.done, 0);
	for_each_cpu(cpu, &cpu_online_mask) {
		if (cpu != self && !err)
			err = smp_run_async(cpu, on_all_run, NULL);
		started += cpu != self && !err;
	}
	on_all_run(NULL);
	while (atomic_load_acquire(&on_all.done) < started) {
		if (arch_tsc_read() > deadline)
			return -ETIMEDOUT;
		arch_cpu_relax();
	}
	return err;
}

/* Every CPU waits here until all have arrived (@count starts at 0). */
static void barrier_wait(u32 *count)
{
	atomic_fetch_add(count, 1);
	while (atomic_load_acquire(count) < ncpus_online)
		arch_cpu_relax();
}

static u64 my_faults(void)
{
	return percpu_counter_read(arch_cpu_id(), PCPU_PAGE_FAULTS);
}

static __attribute__((noinline)) void provoke_read(void *arg)
{
	(void)*word((vaddr_t)arg);
}

static __attribute__((noinline)) void provoke_write(void *arg)
{
	*word((vaddr_t)arg) = 1;
}

static void test_fault_demand_zero(struct ktest *t)
{
	u64 f0 = my_faults(), z0 = fault_event_count(FAULT_EV_ZERO);
	struct mm *mm;

	KASSERT_EQ(t, mm_create(&mm), 0);
	KEXPECT_EQ(t, mm_map_region(mm, REG, 16 * KB4, RW), 0);
	mm_switch(mm);
	for (unsigned i = 0; i < 16; i++)
		KEXPECT_EQ(t, *word(REG + i * KB4 + 8 * i), 0);
	for (unsigned i = 0; i < 16; i++)
		*word(REG + i * KB4) = 0x5a00 + i;
	KEXPECT_EQ(t, my_faults() - f0, 16);
	KEXPECT_EQ(t, fault_event_count(FAULT_EV_ZERO) - z0, 16);
	for (unsigned i = 0; i < 16; i++)
		KEXPECT_EQ(t, *word(REG + i * KB4), 0x5a00 + i);
	mm_switch(NULL);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

static void test_fault_copy_on_write(struct ktest *t)
{
	u64 copies = fault_event_count(FAULT_EV_COW_COPY);
	struct mm *parent, *child;

	KASSERT_EQ(t, mm_create(&parent), 0);
	KEXPECT_EQ(t, mm_map_region(parent, REG, 4 * KB4, RW), 0);
	mm_switch(parent);
	for (unsigned i = 0; i < 4; i++)
		*word(REG + i * KB4) = i + 1;
	KASSERT_EQ(t, mm_fork(parent, &child), 0);
	*word(REG) = 100;
	KEXPECT_EQ(t, fault_event_count(FAULT_EV_COW_COPY) - copies, 1);
	mm_switch(child);
	KEXPECT_EQ(t, *word(REG), 1);
	KEXPECT_EQ(t, *word(REG + KB4), 2);
	*word(REG + KB4) = 200;
	KEXPECT_EQ(t, fault_event_count(FAULT_EV_COW_COPY) - copies, 2);
	mm_switch(parent);
	KEXPECT_EQ(t, *word(REG), 100);
	KEXPECT_EQ(t, *word(REG + KB4), 2);
	KEXPECT_EQ(t, mm_destroy(child), 0);
	KEXPECT_EQ(t, mm_destroy(parent), 0); /* switches this CPU away first */
	KEXPECT(t, mm_current() == NULL);
}

static void expect_caught(struct ktest *t, void (*fn)(void *), vaddr_t va, u64 error)
{
	struct fault_info fi;

	if (!KEXPECT(t, trap_catch(fn, (void *)va, &fi)))
		return;
	KEXPECT_EQ(t, fi.vector, VEC_PF);
	KEXPECT_EQ(t, fi.cr2, va);
	KEXPECT_EQ(t, fi.error & 0x3, error);
}

/* What mm/fault.c cannot resolve is an exception like any other (caught here). */
static void test_fault_unresolved(struct ktest *t)
{
	u64 failed = fault_event_count(FAULT_EV_FAILED);
	struct mm *mm;

	KASSERT_EQ(t, mm_create(&mm), 0);
	KEXPECT_EQ(t, mm_map_region(mm, REG, KB4, MM_READ), 0);
	mm_switch(mm);
	expect_caught(t, provoke_read, REG + 16 * KB4, 0);
	expect_caught(t, provoke_write, REG, 0x2);
	KEXPECT_EQ(t, *word(REG + 8), 0);
	expect_caught(t, provoke_write, REG, 0x3);
	KEXPECT_EQ(t, fault_event_count(FAULT_EV_FAILED) - failed, 3);
	mm_switch(NULL);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

struct every_cpu {
	struct mm *mm;
	vaddr_t gone; /* a page unmapped while every CPU had it cached */
	u32 bad, caught;
};

static void every_cpu_write(void *arg)
{
	struct every_cpu *e = arg;

	mm_switch(e->mm);
	*word(REG + arch_cpu_id() * KB4) = 0xc0de0000 + arch_cpu_id();
}

static void every_cpu_read(void *arg)
{
	struct every_cpu *e = arg;
	unsigned cpu;

	for_each_cpu(cpu, &cpu_online_mask)
		if (*word(REG + cpu * KB4) != 0xc0de0000 + cpu)
			atomic_fetch_add(&e->bad, 1);
}

static void every_cpu_gone(void *arg)
{
	struct every_cpu *e = arg;

	if (trap_catch(provoke_read, (void *)e->gone, NULL))
		atomic_fetch_add(&e->caught, 1);
	mm_switch(NULL);
}

/* Stores by every CPU seen by every CPU; an unmap reaches every CPU's TLB. */
static void test_fault_every_cpu(struct ktest *t)
{
	struct every_cpu e = { 0 };
	unsigned last = 0, cpu;

	for_each_cpu(cpu, &cpu_online_mask)
		last = cpu;
	KASSERT_EQ(t, mm_create(&e.mm), 0);
	KEXPECT_EQ(t, mm_map_region(e.mm, REG, (last + 1) * KB4, RW), 0);
	KASSERT_EQ(t, run_on_all(every_cpu_write, &e), 0);
	KEXPECT_EQ(t, cpumask_weight(mm_cpumask(e.mm)), ncpus_online);
	KASSERT_EQ(t, run_on_all(every_cpu_read, &e), 0);
	KEXPECT_EQ(t, e.bad, 0);
	e.gone = REG + last * KB4;
	KEXPECT_EQ(t, mm_unmap_region(e.mm, e.gone, KB4), 0);
	KASSERT_EQ(t, run_on_all(every_cpu_gone, &e), 0);
	KEXPECT_EQ(t, e.caught, ncpus_online);
	KEXPECT(t, cpumask_empty(mm_cpumask(e.mm)));
	KEXPECT_EQ(t, mm_destroy(e.mm), 0);
}

struct high_frame {
	struct mm *mm;
	u32 bad;
};

static void high_frame_touch(void *arg)
{
	struct high_frame *h = arg;

	mm_switch(h->mm);
	if (*word(REG) != 0x4141414141414141ull)
		atomic_fetch_add(&h->bad, 1);
	*word(REG + 8 * (1 + arch_cpu_id())) = arch_cpu_id() + 1;
	mm_switch(NULL);
}

/* A frame above 4 GiB, reached through the page tables on every CPU. */
static struct page *alloc_high_frame(struct page_list *held)
{
	for (unsigned i = 0; i < 4096; i++) {
		struct page *p = page_alloc(0, 0);

		if (!p || page_to_phys(p) >= FOUR_GIB)
			return p;
		page_list_add(held, p);
	}
	return NULL;
}

static void test_fault_high_frame(struct ktest *t)
{
	struct high_frame h = { 0 };
	struct page_list held;
	struct page *p, *q;
	unsigned cpu;

	if (mm_memmap_end_pfn <= FOUR_GIB >> PAGE_SHIFT) {
		ktest_skip(t, "no RAM above 4 GiB (boot with --mem 6G)");
		return;
	}
	page_list_init(&held);
	p = alloc_high_frame(&held);
	while ((q = page_list_pop(&held)))
		page_free(q, 0);
	KASSERT(t, p != NULL && page_to_phys(p) >= FOUR_GIB);
	ktest_log(t, "frame at 0x%lx", page_to_phys(p));
	for (unsigned i = 0; i < WORDS_PER_PAGE; i++)
		((u64 *)page_address(p))[i] = 0x4141414141414141ull;
	KASSERT_EQ(t, mm_create(&h.mm), 0);
	KEXPECT_EQ(t, mm_map_region(h.mm, REG, KB4, RW), 0);
	KEXPECT_EQ(t, mm_map_page(h.mm, REG, p), 0);
	KASSERT_EQ(t, run_on_all(high_frame_touch, &h), 0);
	KEXPECT_EQ(t, h.bad, 0);
	for_each_cpu(cpu, &cpu_online_mask)
		KEXPECT_EQ(t, ((u64 *)page_address(p))[1 + cpu], cpu + 1);
	KEXPECT_EQ(t, mm_destroy(h.mm), 0);
	KEXPECT_EQ(t, page_mapcount(p), 0);
	KEXPECT_EQ(t, page_free(p, 0), 0);
}

/* Tables the faults added go when the range is unmapped, with the mm loaded. */
static void test_fault_tables_freed(struct ktest *t)
{
	struct mm *mm;
	u64 tables;

	KASSERT_EQ(t, mm_create(&mm), 0);
	tables = pt_table_pages();
	KEXPECT_EQ(t, mm_map_region(mm, REG, 3 * PT_PAGE_2M, RW), 0);
	mm_switch(mm);
	for (unsigned i = 0; i < 3; i++)
		*word(REG + i * PT_PAGE_2M + 8) = i;
	KEXPECT_EQ(t, pt_table_pages() - tables, 5); /* PDPT, PD, 3 PTs */
	KEXPECT_EQ(t, mm_unmap_region(mm, REG, 3 * PT_PAGE_2M), 0);
	KEXPECT_EQ(t, pt_table_pages(), tables);
	expect_caught(t, provoke_read, REG + 8, 0);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

/* One throughput pass: every CPU writes BENCH_PAGES pages of its own, all at once. */
static struct {
	struct mm *mm[MAX_CPUS]; /* what each CPU runs: its own, or one shared */
	vaddr_t base[MAX_CPUS];
	u64 cycles[MAX_CPUS], faults[MAX_CPUS];
	u64 tag; /* this pass writes tag ^ i into its page i */
	u32 ready;
} bench;

static struct mm *bench_children[MAX_CPUS];

static void bench_run(void *unused)
{
	unsigned cpu = arch_cpu_id();
	u64 f0, t0;

	(void)unused;
	mm_switch(bench.mm[cpu]);
	barrier_wait(&bench.ready);
	f0 = my_faults();
	t0 = arch_tsc_read();
	for (unsigned i = 0; i < BENCH_PAGES; i++)
		*word(bench.base[cpu] + i * KB4) = bench.tag ^ i;
	bench.cycles[cpu] = arch_tsc_read() - t0;
	bench.faults[cpu] = my_faults() - f0;
	mm_switch(NULL);
}

/* Pages of CPU @cpu's part of @mm that do not hold @tag ^ i (read through the tables). */
static unsigned bench_bad_pages(struct mm *mm, unsigned cpu, u64 tag)
{
	unsigned bad = 0;

	for (unsigned i = 0; i < BENCH_PAGES; i++) {
		paddr_t pa;

		bad += pt_lookup(mm->root, bench.base[cpu] + i * KB4, &pa, NULL, NULL) ||
		       *(volatile u64 *)phys_to_virt(pa) != (tag ^ i);
	}
	return bad;
}

/*
 * Runs a pass writing @tag: exactly BENCH_PAGES faults per CPU, each an
 * event @ev, none failed, every page holding what its CPU wrote. Returns
 * the faults per second of one CPU, over all CPUs' time (a diagnostic).
 */
static u64 bench_pass(struct ktest *t, u64 tag, enum fault_event ev)
{
	u64 events = fault_event_count(ev), failed = fault_event_count(FAULT_EV_FAILED);
	u64 cycles = 0;
	unsigned cpu;

	bench.ready = 0;
	bench.tag = tag;
	KEXPECT_EQ(t, run_on_all(bench_run, NULL), 0);
	for_each_cpu(cpu, &cpu_online_mask) {
		KEXPECT_EQ(t, bench.faults[cpu], BENCH_PAGES);
		KEXPECT_EQ(t, bench_bad_pages(bench.mm[cpu], cpu, tag), 0);
		cycles += bench.cycles[cpu];
	}
	KEXPECT_EQ(t, fault_event_count(ev) - events, (u64)BENCH_PAGES * ncpus_online);
	KEXPECT_EQ(t, fault_event_count(FAULT_EV_FAILED) - failed, 0);
	return cycles ? (u64)BENCH_PAGES * ncpus_online * arch_tsc_hz() / cycles : 0;
}

/* Each CPU on its own address space: demand-zero, then copy-on-write after a fork. */
static void bench_own_mm(struct ktest *t, u64 *zero, u64 *cow)
{
	unsigned cpu;

	for_each_cpu(cpu, &cpu_online_mask) {
		KASSERT_EQ(t, mm_create(&bench.mm[cpu]), 0);
		KEXPECT_EQ(t, mm_map_region(bench.mm[cpu], REG, BENCH_PAGES * KB4, RW), 0);
		bench.base[cpu] = REG;
	}
	*zero = bench_pass(t, BENCH_TAG_ZERO, FAULT_EV_ZERO);
	for_each_cpu(cpu, &cpu_online_mask)
		KEXPECT_EQ(t, mm_fork(bench.mm[cpu], &bench_children[cpu]), 0);
	/* Each parent page is shared with the child: every write copies it. */
	*cow = bench_pass(t, BENCH_TAG_COW, FAULT_EV_COW_COPY);
	for_each_cpu(cpu, &cpu_online_mask) {
		/* The children kept the pages as they were at the fork. */
		KEXPECT_EQ(t, bench_bad_pages(bench_children[cpu], cpu, BENCH_TAG_ZERO), 0);
		KEXPECT_EQ(t, mm_destroy(bench_children[cpu]), 0);
		KEXPECT_EQ(t, mm_destroy(bench.mm[cpu]), 0);
	}
}

/* Every CPU in one address space, each in its own part of one region. */
static void bench_shared_mm(struct ktest *t, u64 *rate)
{
	struct mm *mm;
	unsigned cpu;

	KASSERT_EQ(t, mm_create(&mm), 0);
	KEXPECT_EQ(t, mm_map_region(mm, REG, (u64)MAX_CPUS * BENCH_PAGES * KB4, RW), 0);
	for_each_cpu(cpu, &cpu_online_mask) {
		bench.mm[cpu] = mm;
		bench.base[cpu] = REG + (u64)cpu * BENCH_PAGES * KB4;
	}
	*rate = bench_pass(t, BENCH_TAG_SHARED, FAULT_EV_ZERO);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

/*
 * Fault throughput: each pass must take exactly one fault of the expected
 * kind per page and CPU and leave every page as written, and the frames
 * must all come back; the rates are a diagnostic only (the real benchmark
 * is bench/'s), never asserted.
 */
static void test_fault_throughput(struct ktest *t)
{
	u64 zero = 0, cow = 0, shared = 0;
	struct pmm_stats s, after;

	pmm_stats_get(&s);
	if (s.free < 4ull * BENCH_PAGES * ncpus_online) {
		ktest_skip(t, "not enough free memory");
		return;
	}
	/* A first pass for warm caches (and, under TCG, translated code); not counted. */
	bench_shared_mm(t, &shared);
	bench_own_mm(t, &zero, &cow);
	bench_shared_mm(t, &shared);
	pmm_stats_get(&after);
	KEXPECT_EQ(t, after.free, s.free);
	ktest_log(t, "fault: %u CPUs x %u pages: demand-zero %lu faults/s per CPU (own mm), "
		  "%lu (one shared mm); copy-on-write %lu faults/s per CPU (own mm)",
		  ncpus_online, BENCH_PAGES, zero, shared, cow);
}

static const struct ktest_case fault_cases[] = {
	KTEST_CASE(test_fault_demand_zero),
	KTEST_CASE(test_fault_copy_on_write),
	KTEST_CASE(test_fault_unresolved),
	KTEST_CASE(test_fault_every_cpu),
	KTEST_CASE(test_fault_high_frame),
	KTEST_CASE(test_fault_tables_freed),
	KTEST_CASE(test_fault_throughput),
};
KTEST_SUITE(fault, fault_cases);
