/*
 * Self-tests of the mapping writer's flushes (mm/mapping/mapping.c mapping_zap()):
 * a zap bigger than one gather flushes mid-walk and waits for other CPUs, so
 * it must drop mm->pt_lock first (a CPU spinning on it with interrupts off
 * never answers; debug builds panic on smp_call() under a spinlock). Shareable
 * and private regions, exact shootdown rounds, a CPU taking pt_lock with
 * interrupts off meanwhile. Kernel only.
 */
/* build: kernel only */
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "lib/atomic.h"
#include "mm/mapping/mapping.h"
#include "mm/mm.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "tests/ktest.h"
#include <arch/arch.h>

#define MF_BASE 0x60000000ul
#define MF_PAGES (PT_GATHER_PAGES + 44) /* one mid-walk flush and a final one */
/* Frames the case needs free: its pages, their tables and the allocator's slack, twice over. */
#define MF_FRAMES_NEEDED (2 * (u64)MF_PAGES)
#define MF_ROUNDS ((MF_PAGES + PT_GATHER_PAGES - 1) / PT_GATHER_PAGES)
#define MF_REGION ALIGN_UP((u64)MF_PAGES * PAGE_SIZE, MAPPING_SHARE_ALIGN)

static struct mm_mapping mf_mapping;
static struct mm *mf_mm;
static u32 mf_stop, mf_spinning;

static void mf_switch(void *mm)
{
	mm_switch(mm);
}

/* Task context on CPU 1: takes pt_lock over and over with interrupts off, as a fault path might. */
static void mf_pt_lock_loop(void *arg)
{
	struct mm *mm = arg;

	atomic_store_release(&mf_spinning, 1);
	while (!atomic_load_acquire(&mf_stop)) {
		unsigned long flags = spin_lock_irqsave(&mm->pt_lock);

		spin_unlock_irqrestore(&mm->pt_lock, flags);
	}
	atomic_store_release(&mf_spinning, 0);
}

/* Zaps MF_PAGES of a region with @flags loaded on CPU 1, which hammers pt_lock meanwhile. */
static void mf_zap_case(struct ktest *t, unsigned flags)
{
	cpumask_t one;
	u64 sd, sent;
	paddr_t pa;

	struct pmm_stats st;

	if (!ktest_need_second_cpu(t))
		return;
	/* More than a bound's worth of pages, or no mid-walk flush: a small boot cannot. */
	pmm_stats_get(&st);
	if (st.free < MF_FRAMES_NEEDED) {
		ktest_skip(t, "needs 64 MiB free for more than a gather's bound of pages");
		return;
	}
	cpumask_clear(&one);
	cpumask_set_cpu(1, &one);
	mapping_init(&mf_mapping, "mf_mapping", &fault_lock_ops_fixed);
	KASSERT_EQ(t, mm_create(&mf_mm), 0);
	KASSERT_EQ(t, mm_map_region(mf_mm, MF_BASE, MF_REGION, flags), 0);
	KASSERT_EQ(t, mapping_attach(&mf_mapping, mf_mm, MF_BASE), 0);
	KASSERT_EQ(t, mm_populate(mf_mm, MF_BASE, MF_PAGES * PAGE_SIZE), 0);
	KASSERT_EQ(t, smp_call(&one, mf_switch, mf_mm, true), 0);
	atomic_store_release(&mf_stop, 0);
	KASSERT_EQ(t, smp_run_async(1, mf_pt_lock_loop, mf_mm), 0);
	while (!atomic_load_acquire(&mf_spinning))
		arch_cpu_relax();
	sd = percpu_counter_read(this_cpu()->cpu_id, PCPU_TLB_SHOOTDOWNS);
	sent = percpu_counter_read(this_cpu()->cpu_id, PCPU_IPI_SENT);
	KEXPECT_EQ(t, mapping_zap(&mf_mapping, mf_mm), 0);
	atomic_store_release(&mf_stop, 1);
	while (atomic_load_acquire(&mf_spinning))
		arch_cpu_relax();
	KEXPECT_EQ(t, percpu_counter_read(this_cpu()->cpu_id, PCPU_TLB_SHOOTDOWNS) - sd, MF_ROUNDS);
	KEXPECT_EQ(t, percpu_counter_read(this_cpu()->cpu_id, PCPU_IPI_SENT) - sent, MF_ROUNDS);
	KEXPECT(t, !smp_cpu_dead(1));
	KEXPECT_EQ(t, pt_lookup(mf_mm->root, MF_BASE, &pa, NULL, NULL), -ENOENT);
	KEXPECT_EQ(t, pt_lookup(mf_mm->root, MF_BASE + (u64)(MF_PAGES - 1) * PAGE_SIZE, &pa, NULL,
				NULL), -ENOENT);
	KEXPECT_EQ(t, smp_call(&one, mf_switch, NULL, true), 0);
	KEXPECT_EQ(t, mapping_detach(&mf_mapping, mf_mm, MF_BASE), 0);
	KEXPECT_EQ(t, mm_destroy(mf_mm), 0);
}

static void test_mapping_zap_shareable_drops_pt_lock(struct ktest *t)
{
	mf_zap_case(t, MM_READ | MM_WRITE | MM_PT_SHAREABLE);
}

static void test_mapping_zap_private_drops_pt_lock(struct ktest *t)
{
	mf_zap_case(t, MM_READ | MM_WRITE);
}

static const struct ktest_case mapping_flush_cases[] = {
	KTEST_CASE(test_mapping_zap_shareable_drops_pt_lock),
	KTEST_CASE(test_mapping_zap_private_drops_pt_lock),
};
KTEST_SUITE(mapping_flush, mapping_flush_cases);
