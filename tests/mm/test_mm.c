/*
 * Tests for mm/mm.c, mm/fork.c and mm/fault.c, with the MMU emulated in
 * software (emul_touch() faults as the hardware would): regions, demand-zero
 * and copy-on-write with exact counts, access errors, swap entries, tables
 * freed, out-of-memory, mm_destroy() leaving the allocator as found; on the
 * host also mm_switch(), mm_cpumask, ASIDs and flush IPIs. Host and kernel;
 * the kernel's hardware faults are tests/mm/test_fault.c's.
 */
#include "errno.h"
#include "kernel/percpu.h"
#include "mm/fault.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "tests/ktest.h"
#include "tests/mm_test.h"
#include "tests/mm_emul.h"
#include <arch/arch.h>

#ifdef HOST_BUILD
#include "tests/host/fake_arch.h"
#endif

#define REG 0x10000000ul
#define RW (MM_READ | MM_WRITE)

static u64 faults_here(void)
{
	return percpu_counter_read(arch_cpu_id(), PCPU_PAGE_FAULTS);
}

static const struct mm_region *find(struct mm *mm, vaddr_t va)
{
	const struct mm_region *r;

	read_lock(&mm->lock);
	r = mm_region_find_locked(mm, va);
	read_unlock(&mm->lock);
	return r;
}

static void test_mm_regions(struct ktest *t)
{
	struct mm *mm;

	KASSERT_EQ(t, mm_create(&mm), 0);
	KEXPECT_EQ(t, mm_map_region(mm, REG, 8 * KB4, RW), 0);
	KEXPECT_EQ(t, mm_map_region(mm, REG + 7 * KB4, KB4, RW), -EEXIST);
	KEXPECT_EQ(t, mm_map_region(mm, REG - KB4, 2 * KB4, RW), -EEXIST);
	KEXPECT_EQ(t, mm_map_region(mm, REG + 8 * KB4, 2 * KB4, MM_READ), 0); /* adjacent */
	KEXPECT_EQ(t, mm_map_region(mm, REG + GB1 + 0x800, KB4, RW), -EINVAL);
	KEXPECT_EQ(t, mm_map_region(mm, 0, KB4, RW), -EINVAL);
	KEXPECT_EQ(t, mm_map_region(mm, MM_USER_TOP - KB4, 2 * KB4, RW), -EINVAL);
	KEXPECT_EQ(t, mm_map_region(mm, REG + GB1, KB4, MM_WRITE), -EINVAL);
	KEXPECT_EQ(t, mm_map_region(mm, REG + GB1, KB4, MM_READ | 0x100), -EINVAL);
	KEXPECT_EQ(t, mm->nregions, 2);
	KEXPECT(t, find(mm, REG + 7 * KB4 + 5) == &mm->regions[0]);
	KEXPECT(t, find(mm, REG + 8 * KB4) == &mm->regions[1]);
	KEXPECT(t, find(mm, REG + 10 * KB4) == NULL);
	KEXPECT(t, find(mm, REG - 1) == NULL);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

/* Unmapping as munmap does: holes split regions, cuts trim and remove them. */
static void test_mm_regions_unmap(struct ktest *t)
{
	struct mm *mm;
	int err = 0;

	KASSERT_EQ(t, mm_create(&mm), 0);
	KEXPECT_EQ(t, mm_map_region(mm, REG, 8 * KB4, RW), 0);
	KEXPECT_EQ(t, mm_map_region(mm, REG + 8 * KB4, 2 * KB4, MM_READ), 0);
	KEXPECT_EQ(t, mm_unmap_region(mm, REG + KB4, KB4), 0);
	KEXPECT_EQ(t, mm->nregions, 3);
	KEXPECT_EQ(t, mm->regions[1].start, REG + 2 * KB4);
	KEXPECT_EQ(t, mm->regions[1].flags, RW);
	KEXPECT_EQ(t, mm_unmap_region(mm, REG + 6 * KB4, 4 * KB4), 0);
	KEXPECT_EQ(t, mm->nregions, 2);
	KEXPECT_EQ(t, mm->regions[1].end, REG + 6 * KB4);
	KEXPECT_EQ(t, mm_unmap_region(mm, REG + GB1, KB4), 0); /* nothing there */
	KEXPECT_EQ(t, mm_unmap_region(mm, REG + 1, KB4), -EINVAL);
	/* Full: a new region, or a split, needs a free slot. */
	for (unsigned i = 0; !err; i++)
		err = mm_map_region(mm, REG + GB1 + i * 2 * KB4, KB4, RW);
	KEXPECT_EQ(t, err, -ENOSPC);
	KEXPECT_EQ(t, mm->nregions, MM_MAX_REGIONS);
	KEXPECT_EQ(t, mm_unmap_region(mm, REG + 3 * KB4, KB4), -ENOSPC);
	KEXPECT_EQ(t, mm->regions[1].end, REG + 6 * KB4);
	KEXPECT_EQ(t, mm_unmap_region(mm, REG + 2 * KB4, 4 * KB4), 0);
	KEXPECT_EQ(t, mm->nregions, MM_MAX_REGIONS - 1);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

static void test_mm_demand_zero(struct ktest *t)
{
	struct emul_snap before = emul_snap_take();
	u64 f0 = faults_here(), z0 = fault_event_count(FAULT_EV_ZERO);
	unsigned prot = 0;
	struct page *p;
	struct mm *mm;

	KASSERT_EQ(t, mm_create(&mm), 0);
	KEXPECT_EQ(t, mm_map_region(mm, REG, 16 * KB4, RW), 0);
	KEXPECT(t, emul_page_at(mm, REG, &prot) == NULL);
	KEXPECT_EQ(t, emul_read(t, mm, REG + 8), 0);
	KEXPECT_EQ(t, fault_event_count(FAULT_EV_ZERO) - z0, 1);
	KEXPECT_EQ(t, faults_here() - f0, 1);
	p = emul_page_at(mm, REG, &prot);
	KASSERT(t, p != NULL);
	KEXPECT_EQ(t, prot, pt_prot_effective(PROT_READ | PROT_WRITE));
	KEXPECT_EQ(t, page_ref_count(p), 1);
	KEXPECT_EQ(t, page_mapcount(p), 1);
	/* Mapped writable at once: the store needs no second fault. */
	emul_write(t, mm, REG + 8, 0x1234567890abcdefull);
	KEXPECT_EQ(t, emul_read(t, mm, REG + 8), 0x1234567890abcdefull);
	KEXPECT_EQ(t, faults_here() - f0, 1);
	emul_write(t, mm, REG + 5 * KB4 + 16, 7);
	KEXPECT_EQ(t, emul_read(t, mm, REG + 5 * KB4 + 24), 0);
	KEXPECT_EQ(t, fault_event_count(FAULT_EV_ZERO) - z0, 2);
	KEXPECT_EQ(t, faults_here() - f0, 2);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	emul_snap_expect(t, before);
}

static void test_mm_access_errors(struct ktest *t)
{
	u64 failed = fault_event_count(FAULT_EV_FAILED), v = 1;
	struct mm *mm;

	KASSERT_EQ(t, mm_create(&mm), 0);
	KEXPECT_EQ(t, mm_map_region(mm, REG, 4 * KB4, MM_READ), 0);
	KEXPECT_EQ(t, emul_touch(mm, REG, true, &v), -EFAULT);
	KEXPECT_EQ(t, emul_read(t, mm, REG), 0); /* a read-only region still demand-zeroes */
	KEXPECT_EQ(t, emul_touch(mm, REG, true, &v), -EFAULT);
	KEXPECT_EQ(t, emul_touch(mm, REG + 4 * KB4, false, &v), -EFAULT);
	KEXPECT_EQ(t, fault_handle_mm(mm, REG, FAULT_EXEC | FAULT_PRESENT), -EFAULT);
	KEXPECT_EQ(t, fault_event_count(FAULT_EV_FAILED) - failed, 4);
	/* No address space loaded on this CPU (host accesses load it): nothing to resolve. */
	mm_switch(NULL);
	KEXPECT(t, mm_current() == NULL);
	KEXPECT_EQ(t, fault_handle(REG, 0), -EFAULT);
	KEXPECT_NE(t, fault_strerror(-EFAULT), NULL);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

/* Page-table pages come and go with the mappings, across a 1 GiB boundary. */
static void test_mm_unmap_frees_tables(struct ktest *t)
{
	struct emul_snap before = emul_snap_take();
	struct mm *mm;
	u64 tables;

	KASSERT_EQ(t, mm_create(&mm), 0);
	tables = pt_table_pages();
	KEXPECT_EQ(t, mm_map_region(mm, GB1 - MB2, 2 * MB2, RW), 0);
	KEXPECT_EQ(t, pt_table_pages(), tables);
	KEXPECT_EQ(t, mm_populate(mm, GB1 - MB2, 2 * MB2), 0);
	KEXPECT_EQ(t, pt_table_pages() - tables, 5); /* PDPT, 2 PDs, 2 PTs */
	KEXPECT_EQ(t, mm_unmap_region(mm, GB1 - MB2, MB2), 0);
	KEXPECT_EQ(t, pt_table_pages() - tables, 3);
	KEXPECT_EQ(t, mm_unmap_region(mm, GB1, MB2), 0);
	KEXPECT_EQ(t, pt_table_pages(), tables);
	KEXPECT_EQ(t, mm->nregions, 0);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	emul_snap_expect(t, before);
}

/* Pages, inserted pages and tables on both sides of a PML4 boundary all come back. */
static void test_mm_destroy_restores(struct ktest *t)
{
	struct emul_snap before = emul_snap_take();
	u64 f0 = faults_here();
	struct page *q = page_alloc(0, PMM_ZERO);
	vaddr_t edge = 512 * GB1;
	struct mm *mm;

	KASSERT(t, q != NULL);
	KASSERT_EQ(t, mm_create(&mm), 0);
	KEXPECT_EQ(t, mm_map_region(mm, REG, 64 * KB4, RW), 0);
	KEXPECT_EQ(t, mm_map_region(mm, edge - 8 * KB4, 16 * KB4, RW), 0);
	KEXPECT_EQ(t, mm_populate(mm, REG, 64 * KB4), 0);
	KEXPECT_EQ(t, mm_populate(mm, edge - 8 * KB4, 16 * KB4), 0);
	KEXPECT_EQ(t, faults_here(), f0); /* populating is not faulting */
	KEXPECT_EQ(t, mm_populate(mm, REG, 65 * KB4), -EFAULT);
	KEXPECT_EQ(t, mm_map_page(mm, REG, q), -EEXIST);
	KEXPECT_EQ(t, mm_unmap_region(mm, REG, KB4), 0);
	KEXPECT_EQ(t, mm_map_page(mm, REG, q), -EFAULT);
	KEXPECT_EQ(t, mm_map_page(mm, REG + KB4 + 1, q), -EINVAL);
	KEXPECT_EQ(t, page_ref_count(q), 1);
	KEXPECT_EQ(t, mm_unmap_region(mm, REG + KB4, KB4), 0);
	KEXPECT_EQ(t, mm_map_region(mm, REG + KB4, KB4, RW), 0);
	KEXPECT_EQ(t, mm_map_page(mm, REG + KB4, q), 0);
	KEXPECT_EQ(t, page_ref_count(q), 2);
	KEXPECT_EQ(t, page_mapcount(q), 1);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	KEXPECT_EQ(t, page_ref_count(q), 1);
	KEXPECT_EQ(t, page_mapcount(q), 0);
	KEXPECT_EQ(t, page_free(q, 0), 0);
	emul_snap_expect(t, before);
}

static u64 swap_released, swap_last;

static int fake_swapin(struct mm *mm, const struct mm_region *r, const struct pt_slot *s,
		       u64 swp, unsigned flags)
{
	(void)mm, (void)r, (void)s, (void)flags;
	swap_last = swp;
	return -EIO;
}

static void fake_swap_release(struct mm *mm, const u64 *swp, unsigned n)
{
	(void)mm;
	swap_released += n;
	swap_last = swp[n - 1];
}

static const struct mm_swap_hooks fake_swap = { fake_swapin, fake_swap_release, NULL };

static void test_mm_swap_entry(struct ktest *t)
{
	const struct mm_swap_hooks *saved = mm_swap;
	struct emul_snap before = emul_snap_take();
	struct mm *mm;

	KASSERT_EQ(t, mm_create(&mm), 0);
	KEXPECT_EQ(t, mm_map_region(mm, REG, 4 * KB4, RW), 0);
	write_lock(&mm->lock);
	KEXPECT_EQ(t, pt_swap_set(mm->root, REG + KB4, 99), 0);
	write_unlock(&mm->lock);
	mm_swap = NULL;
	KEXPECT_EQ(t, fault_handle_mm(mm, REG + KB4 + 8, FAULT_WRITE), -ENOSYS);
	mm_swap = &fake_swap;
	KEXPECT_EQ(t, fault_handle_mm(mm, REG + KB4, 0), -EIO);
	KEXPECT_EQ(t, swap_last, 99);
	swap_released = 0;
	KEXPECT_EQ(t, mm_unmap_region(mm, REG, 4 * KB4), 0);
	KEXPECT_EQ(t, swap_released, 1);
	mm_swap = saved;
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	emul_snap_expect(t, before);
}

static void test_mm_oom(struct ktest *t)
{
	struct emul_snap before = emul_snap_take();
	struct mm *mm, *child = NULL;
	u64 v = 0;
	int err = -ENOMEM;

	KASSERT_EQ(t, mm_create(&mm), 0);
	KEXPECT_EQ(t, mm_map_region(mm, REG, 4 * KB4, RW), 0);
	for (u32 k = 0; k < 4; k++) { /* the page, then each table it needs */
		pmm_inject_fail(k, 1);
		KEXPECT_EQ(t, emul_touch(mm, REG, true, &v), -ENOMEM);
	}
	pmm_inject_fail(0, 0);
	emul_write(t, mm, REG, 3);
	for (u32 k = 0; err == -ENOMEM; k++) {
		pmm_inject_fail(k, 1);
		err = mm_fork(mm, &child);
		pmm_inject_fail(0, 0);
		KEXPECT(t, err == -ENOMEM || err == 0);
		KEXPECT_LT(t, k, 10);
	}
	KEXPECT_EQ(t, page_ref_count(emul_page_at(mm, REG, NULL)), 2);
	KEXPECT_EQ(t, mm_destroy(child), 0);
	KEXPECT_EQ(t, page_ref_count(emul_page_at(mm, REG, NULL)), 1);
	KEXPECT_EQ(t, emul_read(t, mm, REG), 3);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
	emul_snap_expect(t, before);
}

#ifdef HOST_BUILD
static void expect_load(struct ktest *t, paddr_t root, u16 asid, bool flush)
{
	KEXPECT_EQ(t, fake_loaded_root, root);
	KEXPECT_EQ(t, fake_loaded_asid, asid);
	KEXPECT_EQ(t, fake_load_flushed, flush);
}

/* ASID slots: kept while nothing changed, flushed when something did or the slot went. */
static void test_mm_switch_asids(struct ktest *t)
{
	struct mm *a, *b, *more[MM_ASID_SLOTS];

	KASSERT_EQ(t, mm_create(&a), 0);
	KASSERT_EQ(t, mm_create(&b), 0);
	mm_switch(a);
	expect_load(t, a->root, 1, true);
	mm_switch(b);
	expect_load(t, b->root, 2, true);
	mm_switch(a);
	expect_load(t, a->root, 1, false); /* nothing changed since: its entries are good */
	mm_switch(NULL);
	expect_load(t, mm_kernel_root(), 0, false);
	mm_flush_all(a); /* as an unmap would, while not loaded here */
	mm_switch(a);
	expect_load(t, a->root, 1, true);
	/* Six more address spaces through the six slots: a's slot goes. */
	for (unsigned i = 0; i < MM_ASID_SLOTS; i++) {
		KASSERT_EQ(t, mm_create(&more[i]), 0);
		mm_switch(more[i]);
	}
	mm_switch(a);
	KEXPECT_EQ(t, fake_load_flushed, true);
	for (unsigned i = 0; i < MM_ASID_SLOTS; i++)
		KEXPECT_EQ(t, mm_destroy(more[i]), 0);
	KEXPECT_EQ(t, mm_destroy(a), 0);
	/* Without ASIDs every load flushes. */
	mm_init(mm_kernel_root(), 0);
	mm_switch(b);
	expect_load(t, b->root, 0, true);
	KEXPECT_EQ(t, mm_destroy(b), 0); /* switches this CPU away first */
	KEXPECT(t, mm_current() == NULL);
}

/* mm_cpumask follows the CPUs that have an address space loaded. */
static void test_mm_switch_cpumask(struct ktest *t)
{
	struct mm *a;

	KASSERT_EQ(t, mm_create(&a), 0);
	mm_switch(a);
	KEXPECT(t, mm_current() == a);
	KEXPECT(t, cpumask_test_cpu(0, mm_cpumask(a)));
	fake_arch_set_cpu(1);
	mm_switch(a);
	fake_arch_set_cpu(0);
	mm_switch(NULL);
	KEXPECT(t, cpumask_test_cpu(1, mm_cpumask(a)) && !cpumask_test_cpu(0, mm_cpumask(a)));
	/* Another CPU has it: it cannot go. */
	KEXPECT_EQ(t, mm_destroy(a), -EBUSY);
	fake_arch_set_cpu(1);
	mm_switch(NULL);
	fake_arch_set_cpu(0);
	KEXPECT(t, cpumask_empty(mm_cpumask(a)));
	KEXPECT_EQ(t, mm_destroy(a), 0);
}

/* Flushes go to the CPUs in mm_cpumask, and to no other. */
static void test_mm_flush_ipis(struct ktest *t)
{
	struct page *old;
	struct mm *mm;

	KASSERT_EQ(t, mm_create(&mm), 0);
	KEXPECT_EQ(t, mm_map_region(mm, REG, 4 * KB4, RW), 0);
	KEXPECT_EQ(t, mm_populate(mm, REG, 4 * KB4), 0);
	for (unsigned cpu = 1; cpu <= 2; cpu++) {
		fake_arch_set_cpu(cpu);
		mm_switch(mm);
	}
	fake_arch_set_cpu(0);
	fake_arch_reset_counts();
	KEXPECT_EQ(t, mm_unmap_region(mm, REG, 4 * KB4), 0);
	KEXPECT_EQ(t, fake_ipi_calls, 2);
	KEXPECT_EQ(t, fake_flush_one_calls, 2 * 4);
	/* A copy-on-write fault flushes its one page everywhere, here too. */
	mm_switch(mm);
	KEXPECT_EQ(t, mm_map_region(mm, REG, KB4, RW), 0);
	KEXPECT_EQ(t, mm_populate(mm, REG, KB4), 0);
	KEXPECT_EQ(t, mm_cow_protect(mm, REG, KB4), 0);
	old = emul_page_at(mm, REG, NULL);
	KASSERT(t, old != NULL);
	page_ref_inc(old); /* as if shared: the write must copy */
	fake_arch_reset_counts();
	KEXPECT_EQ(t, fault_handle_mm(mm, REG, FAULT_WRITE | FAULT_PRESENT), 0);
	KEXPECT_EQ(t, fake_ipi_calls, 2);
	KEXPECT_EQ(t, fake_flush_one_calls, 3);
	KEXPECT(t, emul_page_at(mm, REG, NULL) != old);
	KEXPECT_EQ(t, page_mapcount(old), 0);
	KEXPECT_EQ(t, page_ref_count(old), 1);
	KEXPECT_EQ(t, page_free(old, 0), 0);
	for (unsigned cpu = 0; cpu <= 2; cpu++) {
		fake_arch_set_cpu(cpu);
		mm_switch(NULL);
	}
	fake_arch_set_cpu(0);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}
#else
static void test_mm_switch_cpumask(struct ktest *t)
{
	ktest_skip(t, "fake CPUs and a fake MMU (host only; test_fault covers the kernel)");
}

static void test_mm_switch_asids(struct ktest *t)
{
	ktest_skip(t, "fake CPUs and a fake MMU (host only; test_fault covers the kernel)");
}

static void test_mm_flush_ipis(struct ktest *t)
{
	ktest_skip(t, "counts IPIs through the fake arch (host only)");
}
#endif

static const struct ktest_case mm_cases[] = {
	KTEST_CASE(test_mm_regions),
	KTEST_CASE(test_mm_regions_unmap),
	KTEST_CASE(test_mm_demand_zero),
	KTEST_CASE(test_mm_access_errors),
	KTEST_CASE(test_mm_unmap_frees_tables),
	KTEST_CASE(test_mm_destroy_restores),
	KTEST_CASE(test_mm_swap_entry),
	KTEST_CASE(test_mm_oom),
	KTEST_CASE(test_mm_switch_cpumask),
	KTEST_CASE(test_mm_switch_asids),
	KTEST_CASE(test_mm_flush_ipis),
};
KTEST_SUITE_EXT(mm, mm_cases, emul_suite_init, NULL, NULL);
