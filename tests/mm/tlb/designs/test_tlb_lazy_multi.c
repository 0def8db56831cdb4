/*
 * The lazy TLB design with two initiators at once (a stale batch once released twice): the
 * boot CPU and another CPU each unmap pages of one shared address space, flush
 * and free outside the lock as tlbmulti does, so their gathers, batch takes
 * and reaps overlap. Every frame must come back exactly once. The host
 * replays that interleaving exactly (tests/mm/tlb/designs/test_tlb_lazy.c); this is the same
 * on real CPUs. Kernel only.
 */
/* build: kernel only */
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "mm/mm.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "mm/quarantine.h"
#include "mm/tlb/tlb.h"
#include "mm/tlb/designs/lazy.h"
#include "tests/ktest.h"
#include "tests/ktest_smp.h"
#include <arch/arch.h>

#define LM_BASE 0x64000000ul
#define LM_ROUNDS 400
#define LM_STRIDE (4ul << 20) /* each initiator's own level-1 tables */
#define LM_WAIT_MS 120000     /* TCG with more vCPUs than host cores is slow */

static struct {
	struct mm *mm;
	u32 done, failed;
} lm;

static void lm_switch(void *arg)
{
	mm_switch(arg);
}

/* @idx's LM_ROUNDS unmaps: populate one page, clear it under the lock, flush and free without. */
static void lm_unmap_loop(unsigned idx)
{
	const struct tlb_ops *ops = &tlb_ops_lazy;

	for (unsigned i = 0; i < LM_ROUNDS; i++) {
		vaddr_t va = LM_BASE + idx * LM_STRIDE + (vaddr_t)i * PAGE_SIZE;
		struct tlb_batch b;
		int err = mm_populate(lm.mm, va, PAGE_SIZE);

		if (err) {
			atomic_inc(&lm.failed);
			continue;
		}
		write_lock(&lm.mm->lock);
		tlb_batch_begin(&b, lm.mm, ops);
		err = tlb_batch_unmap(&b, va, 1);
		write_unlock(&lm.mm->lock);
		pt_gather_finish(&b.g);
		if (err || b.g.err)
			atomic_inc(&lm.failed);
	}
}

/* The other initiator: task context, interrupts on (its tick drains meanwhile). */
static void lm_other(void *arg)
{
	(void)arg;
	lm_unmap_loop(1);
	atomic_inc(&lm.done);
}

/*
 * Both initiators' unmaps, each queued to the other CPU and drained by its
 * tick, then a settle: every frame comes back exactly once (the free count
 * as it began, no bad free, nothing quarantined, every unmap done). Before
 * the fix a reap could release a batch its new owner was filling (double
 * frees, map counts below zero).
 */
static void test_tlb_lazy_two_initiators(struct ktest *t)
{
	struct pmm_stats before, after;
	struct quarantine_stats qb, qa;
	u64 queued = percpu_counter_sum(PCPU_TLB_LAZY_QUEUED);
	u64 fallbacks = percpu_counter_sum(PCPU_TLB_LAZY_FALLBACKS);
	unsigned other;

	if (!ktest_need_second_cpu(t))
		return;
	other = ktest_other_cpu();
	lm.done = lm.failed = 0;
	/* Enabled before the count: a boot's first enable allocates lazy's batch room, kept. */
	KASSERT_EQ(t, tlb_design_enable(&tlb_ops_lazy, true), 0);
	pmm_drain_all();
	pmm_stats_get(&before);
	quarantine_stats_get(&qb);
	KASSERT_EQ(t, mm_create(&lm.mm), 0);
	KEXPECT_EQ(t, mm_map_region(lm.mm, LM_BASE, 2 * LM_STRIDE, MM_READ | MM_WRITE), 0);
	KEXPECT_EQ(t, smp_call_one(other, lm_switch, lm.mm, true), 0);
	mm_switch(lm.mm);
	KEXPECT_EQ(t, smp_run_async(other, lm_other, NULL), 0);
	lm_unmap_loop(0);
	KEXPECT(t, ktest_wait_count(&lm.done, 1, LM_WAIT_MS));
	KEXPECT_EQ(t, lm.failed, 0);
	KEXPECT_EQ(t, tlb_settle(&tlb_ops_lazy, lm.mm), 0);
	KEXPECT_EQ(t, smp_call_one(other, lm_switch, NULL, true), 0);
	mm_switch(NULL);
	KEXPECT_EQ(t, mm_destroy(lm.mm), 0);
	lm.mm = NULL;
	KEXPECT_EQ(t, tlb_design_enable(&tlb_ops_lazy, false), 0);
	pmm_drain_all();
	pmm_stats_get(&after);
	quarantine_stats_get(&qa);
	KEXPECT_EQ(t, after.free, before.free);
	KEXPECT_EQ(t, after.errors, before.errors);
	KEXPECT_EQ(t, qa.frames, qb.frames);
	ktest_log(t, "%u unmaps on each of 2 CPUs: %lu queued, %lu fallbacks", LM_ROUNDS,
		  (unsigned long)(percpu_counter_sum(PCPU_TLB_LAZY_QUEUED) - queued),
		  (unsigned long)(percpu_counter_sum(PCPU_TLB_LAZY_FALLBACKS) - fallbacks));
}

static const struct ktest_case tlb_lazy_multi_cases[] = {
	KTEST_CASE(test_tlb_lazy_two_initiators),
};
KTEST_SUITE(tlb_lazy_multi, tlb_lazy_multi_cases);
