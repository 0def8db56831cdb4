/*
 * Deterministic tests of gen's two shortcuts (mm/tlb/designs/gen.c): a target
 * already up to date takes a request without flushing the page
 * (tlb_gen_uptodate), and an initiator skips a CPU that recorded a later
 * generation between its bump and its scan (tlb_gen_ipi_skipped). Each has a
 * control without the interleaving. Kernel only.
 */
/* build: kernel only */
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "mm/mm.h"
#include "mm/tlb/tlb.h"
#include "mm/tlb/designs/gen.h"
#include "tests/ktest.h"
#include <arch/arch.h>

extern void (*tlb_gen_bumped)(struct mm *mm); /* mm/tlb/designs/gen.c */

#define GT_VA 0x40000000ul
#define GT_CPU 1u

static struct {
	struct mm *mm;
	u64 g0;
	bool reload;
	u32 ready, done;
	u64 sent_mark; /* CPU 0's IPIs sent before its scan (after the hook's own handover) */
} gt;

static void gt_switch(void *arg)
{
	mm_switch(arg);
}

static void gt_touch(void *arg)
{
	(void)arg;
	(void)*(volatile u64 *)GT_VA;
}

/* Waits (bounded, 1 s) until *@w is nonzero; with @mailbox, answers calls meanwhile. */
static bool gt_wait(u32 *w, bool mailbox)
{
	u64 end = arch_tsc_read() + arch_tsc_hz();
	unsigned long f = arch_irq_save();

	while (!atomic_load_acquire(w) && arch_tsc_read() < end) {
		if (mailbox)
			smp_handle_mailbox();
		arch_cpu_relax();
	}
	arch_irq_restore(f);
	return atomic_load_acquire(w);
}

static bool gt_setup(struct ktest *t)
{
	gt.mm = NULL;
	gt.ready = gt.done = 0;
	if (!KEXPECT_EQ(t, mm_create(&gt.mm), 0))
		return false;
	KEXPECT_EQ(t, mm_map_region(gt.mm, GT_VA, PAGE_SIZE, MM_READ | MM_WRITE), 0);
	KEXPECT_EQ(t, mm_populate(gt.mm, GT_VA, PAGE_SIZE), 0);
	mm_switch(gt.mm);
	KEXPECT_EQ(t, smp_call_one(GT_CPU, gt_switch, gt.mm, true), 0);
	KEXPECT_EQ(t, smp_call_one(GT_CPU, gt_touch, NULL, true), 0);
	gt_touch(NULL);
	return true;
}

static void gt_teardown(struct ktest *t)
{
	KEXPECT_EQ(t, smp_call_one(GT_CPU, gt_switch, NULL, true), 0);
	mm_switch(NULL);
	KEXPECT_EQ(t, mm_destroy(gt.mm), 0);
	gt.mm = NULL;
}

/* CPU 1, task context: interrupts off until CPU 0's request is sent, the mm reloaded or not. */
static void gt_hold(void *arg)
{
	u64 end = arch_tsc_read() + arch_tsc_hz();
	unsigned long f = arch_irq_save();

	(void)arg;
	atomic_store_release(&gt.ready, 1);
	while (atomic_load_acquire(&gt.mm->tlb_gen) == gt.g0 && arch_tsc_read() < end)
		arch_cpu_relax();
	if (gt.reload) {
		mm_switch(NULL);
		mm_switch(gt.mm);
	}
	arch_irq_restore(f); /* the request is handled here */
	atomic_store_release(&gt.done, 1);
}

/*
 * A target already up to date: CPU 1 holds its interrupts off while CPU 0's
 * request travels and, with @reload, reloads the mm meanwhile (a full flush
 * at the new generation); then it takes the request. Reloaded, it counts
 * tlb_gen_uptodate and flushes no page; the control flushes the page.
 */
static void gt_uptodate_case(struct ktest *t, bool reload, u64 want_uptodate, u64 want_one)
{
	u64 up, one;

	if (!ktest_need_second_cpu(t) || !gt_setup(t))
		return;
	gt.reload = reload;
	gt.g0 = atomic_load_acquire(&gt.mm->tlb_gen);
	up = percpu_counter_read(GT_CPU, PCPU_TLB_GEN_UPTODATE);
	one = percpu_counter_read(GT_CPU, PCPU_TLB_FLUSH_ONE);
	KASSERT(t, smp_run_async(GT_CPU, gt_hold, NULL) == 0);
	KEXPECT(t, gt_wait(&gt.ready, false));
	KEXPECT_EQ(t, tlb_unmap_pages(gt.mm, GT_VA, 1, &tlb_ops_gen), 0);
	KEXPECT(t, gt_wait(&gt.done, false));
	KEXPECT_EQ(t, percpu_counter_read(GT_CPU, PCPU_TLB_GEN_UPTODATE) - up, want_uptodate);
	KEXPECT_EQ(t, percpu_counter_read(GT_CPU, PCPU_TLB_FLUSH_ONE) - one, want_one);
	gt_teardown(t);
}

static void test_tlb_gen_target_uptodate(struct ktest *t)
{
	gt_uptodate_case(t, true, 1, 0);
}

static void test_tlb_gen_target_behind_control(struct ktest *t)
{
	gt_uptodate_case(t, false, 0, 1);
}

/* CPU 1, task context: a gen flush of its own, recording a generation past CPU 0's. */
static void gt_flush_from_1(void *arg)
{
	struct tlb_flush_req req = { arg, tlb_target_flush, GT_VA, GT_VA + PAGE_SIZE - 1, false,
				     false };

	(void)tlb_ops_gen.flush(&req);
	atomic_store_release(&gt.done, 1);
}

/* CPU 0, after its bump: CPU 1 flushes meanwhile (CPU 0 answers its request). */
static void gt_bumped(struct mm *mm)
{
	tlb_gen_bumped = NULL;
	if (smp_run_async(GT_CPU, gt_flush_from_1, mm) == 0)
		(void)gt_wait(&gt.done, true);
	/* The handover to CPU 1 was an IPI too: count from here. */
	gt.sent_mark = percpu_counter_read(arch_cpu_id(), PCPU_IPI_SENT);
}

/*
 * An initiator skipping an up-to-date CPU: with @hook, CPU 1 makes a gen
 * flush of its own between CPU 0's bump and its scan of the records
 * (tlb_gen_bumped), recording a later generation, so CPU 0 sends no IPI and
 * counts tlb_gen_ipi_skipped; the control sends one.
 */
static void gt_skip_case(struct ktest *t, bool hook, u64 want_skipped, u64 want_sent)
{
	unsigned self = arch_cpu_id();
	u64 skipped;

	if (!ktest_need_second_cpu(t) || !gt_setup(t))
		return;
	skipped = percpu_counter_read(self, PCPU_TLB_GEN_IPI_SKIPPED);
	gt.sent_mark = percpu_counter_read(self, PCPU_IPI_SENT);
	tlb_gen_bumped = hook ? gt_bumped : NULL;
	KEXPECT_EQ(t, tlb_unmap_pages(gt.mm, GT_VA, 1, &tlb_ops_gen), 0);
	tlb_gen_bumped = NULL;
	KEXPECT_EQ(t, atomic_load_acquire(&gt.done), hook ? 1u : 0u);
	KEXPECT_EQ(t, percpu_counter_read(self, PCPU_TLB_GEN_IPI_SKIPPED) - skipped, want_skipped);
	KEXPECT_EQ(t, percpu_counter_read(self, PCPU_IPI_SENT) - gt.sent_mark,
		      want_sent);
	gt_teardown(t);
}

static void test_tlb_gen_initiator_skips(struct ktest *t)
{
	gt_skip_case(t, true, 1, 0);
}

static void test_tlb_gen_initiator_sends_control(struct ktest *t)
{
	gt_skip_case(t, false, 0, 1);
}

static const struct ktest_case tlb_gen_cases[] = {
	KTEST_CASE(test_tlb_gen_target_uptodate),
	KTEST_CASE(test_tlb_gen_target_behind_control),
	KTEST_CASE(test_tlb_gen_initiator_skips),
	KTEST_CASE(test_tlb_gen_initiator_sends_control),
};
KTEST_SUITE(tlb_gen_paths, tlb_gen_cases);
