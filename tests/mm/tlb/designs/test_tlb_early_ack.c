/*
 * early_ack's one promise beyond the other designs' (mm/tlb/designs/early_ack.c):
 * a target acknowledges before it flushes, yet no frame the request covers is
 * handed on before every target has flushed. early_ack must leave no target
 * seeing the frame reused; its control (tlb_ops_early_ack_at_ack) must be
 * caught. Kernel only: the same order on host threads is tests/host/host_smp_ea.c.
 */
/* build: kernel only */
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "mm/quarantine.h"
#include "mm/tlb/tlb.h"
#include "mm/tlb/designs/early_ack.h"
#include "tests/ktest.h"
#include <arch/arch.h>

#define EA_BASE 0x5c000000ul
/*
 * Far longer than an initiator needs from its last ack to the write, even
 * with 8 vCPUs on 2 host cores (20 ms was not: a descheduled initiator let
 * 2 of 7 targets flush first); below timeout_ms's default of 1000, which
 * early_ack's initiator waits at most for these flushes.
 */
#define EA_GAP_MS 250
#define EA_POISON 0x4541524c59414b21ull
/* timeout_ms for the late-flush case, whose targets stay in their gap until let go. */
#define EA_LATE_MS 20
/*
 * The late-flush case's gap: its targets are judged one after another,
 * each on its own deadline, so a gap shorter than all their waits would let
 * the last ones flush in time (and rightly stay in the run).
 */
#define EA_LATE_GAP_MS 10000

static struct {
	struct mm *mm;
	u32 reused;	 /* the old frame was written by its "next owner" */
	u32 gaps;	 /* targets that ran the gap */
	u32 seen_reused; /* of them, those that saw the write before flushing */
	u32 gap_ms;	 /* 0: EA_GAP_MS */
} ea;

/*
 * Each target's hook between its acknowledgement and its flush: waits for
 * this CPU's write of the old frame. A target that sees it still held a
 * translation to a frame already reused.
 */
static void ea_gap(const struct tlb_flush_req *req)
{
	u64 deadline = arch_tsc_read() + arch_tsc_hz() / 1000 * (ea.gap_ms ? ea.gap_ms : EA_GAP_MS);

	if (req->mm != ea.mm || req->start > EA_BASE || req->last < EA_BASE)
		return; /* another request than page 0's (the next gather's) */
	atomic_fetch_add(&ea.gaps, 1);
	while (!atomic_load_acquire(&ea.reused) && arch_tsc_read() < deadline)
		arch_cpu_relax();
	if (atomic_load_acquire(&ea.reused))
		atomic_fetch_add(&ea.seen_reused, 1);
}

static void ea_switch(void *arg)
{
	mm_switch(arg);
}

static void ea_touch(void *arg)
{
	(void)arg;
	(void)*(volatile u64 *)EA_BASE;
}

static void ea_nothing(void *arg)
{
	(void)arg;
}

/* An address space of @nr pages, loaded everywhere, page 0 cached by every CPU. */
static int ea_setup(unsigned nr)
{
	int err = mm_create(&ea.mm);

	if (err) {
		ea.mm = NULL; /* nothing to tear down, nothing mapped to touch */
		return err;
	}
	err = mm_map_region(ea.mm, EA_BASE, (u64)nr * PAGE_SIZE, MM_READ | MM_WRITE);
	if (!err)
		err = mm_populate(ea.mm, EA_BASE, (u64)nr * PAGE_SIZE);
	if (!err)
		err = smp_call_others(ea_switch, ea.mm, true);
	mm_switch(ea.mm);
	if (!err)
		err = smp_call_others(ea_touch, NULL, true);
	if (!err)
		ea_touch(NULL);
	return err;
}

static void ea_teardown(struct ktest *t)
{
	KEXPECT_EQ(t, smp_call_others(ea_switch, NULL, true), 0);
	mm_switch(NULL);
	KEXPECT_EQ(t, mm_destroy(ea.mm), 0);
	ea.mm = NULL;
}

/*
 * This CPU's next gather, in an address space no other CPU has loaded: no
 * round, so it returns at once, while the targets of the last one may
 * still sit in their gap; only its release can have waited for them.
 */
static int ea_next_gather(const struct tlb_ops *ops)
{
	struct mm *mm;
	int err = mm_create(&mm);

	if (err)
		return err;
	err = mm_map_region(mm, EA_BASE, PAGE_SIZE, MM_READ | MM_WRITE);
	if (!err)
		err = mm_populate(mm, EA_BASE, PAGE_SIZE);
	if (!err)
		err = tlb_unmap_pages(mm, EA_BASE, 1, ops);
	return mm_destroy(mm) ? -EBUSY : err;
}

/*
 * The start of every case: the counts cleared, @ops enabled, an address
 * space of @nr pages loaded everywhere (ea_setup()), and page 0's frame
 * in *@old. 0 or the first error.
 */
static int ea_start(const struct tlb_ops *ops, unsigned nr, struct page **old)
{
	paddr_t pa;
	int err;

	ea.reused = ea.gaps = ea.seen_reused = 0;
	err = tlb_design_enable(ops, true);
	if (!err)
		err = ea_setup(nr);
	if (!err)
		err = pt_lookup(ea.mm->root, EA_BASE, &pa, NULL, NULL);
	if (!err)
		*old = phys_to_page(pa);
	return err;
}

/* How page 0's frame goes back after its unmap returned, if it did not then. */
enum ea_release { EA_BY_SETTLE, EA_BY_NEXT_GATHER };

/*
 * Unmaps the first @unmap of @nr pages through @ops with the gap hooked;
 * writes page 0's old frame once it went back (at once if the unmap
 * released it, else after @how: a settle, or the unmap of the last page,
 * whose gather releases what this CPU kept); then waits until every target
 * is done. Returns the targets that saw the write before they flushed;
 * *@kept_at_return: the frame was still held when the unmap returned.
 */
static u32 ea_run(struct ktest *t, const struct tlb_ops *ops, unsigned nr, unsigned unmap,
		  enum ea_release how, bool *kept_at_return)
{
	struct page *old = NULL;

	*kept_at_return = false;
	if (KEXPECT_EQ(t, ea_start(ops, nr, &old), 0)) {
		page_ref_inc(old); /* ours: the frame never reaches the allocator */
		WRITE_ONCE(tlb_early_ack_gap, ea_gap);
		KEXPECT_EQ(t, tlb_unmap_pages(ea.mm, EA_BASE, unmap, ops), 0);
		*kept_at_return = page_ref_count(old) != 1;
		if (*kept_at_return && how == EA_BY_SETTLE)
			KEXPECT_EQ(t, tlb_settle(ops, ea.mm), 0);
		if (*kept_at_return && how == EA_BY_NEXT_GATHER)
			KEXPECT_EQ(t, ea_next_gather(ops), 0);
		KEXPECT_EQ(t, page_ref_count(old), 1); /* the mapping's reference is gone */
		*(volatile u64 *)page_address(old) = EA_POISON;
		atomic_store_release(&ea.reused, 1);
		/* Runs after each target's handler, so after its gap and flush. */
		KEXPECT_EQ(t, smp_call_others(ea_nothing, NULL, true), 0);
		WRITE_ONCE(tlb_early_ack_gap, NULL);
		if (page_ref_dec_and_test(old))
			page_free(old, 0);
	}
	if (ea.mm)
		ea_teardown(t);
	KEXPECT_EQ(t, tlb_design_enable(ops, false), 0);
	ktest_log(t, "%s, %u of %u pages: %u targets acknowledged early, %u saw the frame reused "
		  "before their flush; frame %s at return", ops->d.name, unmap, nr, ea.gaps,
		  ea.seen_reused, *kept_at_return ? "kept" : "released");
	return ea.seen_reused;
}

/*
 * No table freed (the other pages keep it): every target acknowledges
 * early, the frame is kept past the call, and none sees it reused once a
 * settle gave it back.
 */
static void test_tlb_early_ack_frees_after_flush(struct ktest *t)
{
	u64 acks = percpu_counter_sum(PCPU_TLB_EARLY_ACKS);
	u64 kept = percpu_counter_sum(PCPU_TLB_EARLY_KEPT);
	bool held;

	if (!ktest_need_second_cpu(t))
		return;
	KEXPECT_EQ(t, ea_run(t, &tlb_ops_early_ack, 3, 1, EA_BY_SETTLE, &held), 0);
	KEXPECT_EQ(t, held, true);
	KEXPECT_EQ(t, ea.gaps, ncpus_online - 1);
	KEXPECT_EQ(t, percpu_counter_sum(PCPU_TLB_EARLY_ACKS) - acks, ncpus_online - 1);
	KEXPECT_EQ(t, percpu_counter_sum(PCPU_TLB_EARLY_KEPT) - kept, 1);
}

/*
 * The paper's order: the unmap returns with the frame kept, and this CPU's
 * next gather (of another address space, with no round to wait for) gives
 * it back, after the targets' flushes: none sees it reused. That gather
 * frees its table, so it keeps nothing itself.
 */
static void test_tlb_early_ack_released_at_next_gather(struct ktest *t)
{
	u64 kept = percpu_counter_sum(PCPU_TLB_EARLY_KEPT);
	bool held;

	if (!ktest_need_second_cpu(t))
		return;
	KEXPECT_EQ(t, ea_run(t, &tlb_ops_early_ack, 3, 1, EA_BY_NEXT_GATHER, &held), 0);
	KEXPECT_EQ(t, held, true);
	KEXPECT_EQ(t, ea.gaps, ncpus_online - 1);
	KEXPECT_EQ(t, percpu_counter_sum(PCPU_TLB_EARLY_KEPT) - kept, 1);
}

/*
 * The control releases at acknowledgement: it must be caught. Every target
 * catches it unless the host deschedules the initiator for longer than the
 * gap, so one catch is what the detector's power needs; the log says how
 * many.
 */
static void test_tlb_early_ack_control_caught(struct ktest *t)
{
	bool held;

	if (!ktest_need_second_cpu(t))
		return;
	KEXPECT_GT(t, ea_run(t, &tlb_ops_early_ack_at_ack, 3, 1, EA_BY_SETTLE, &held), 0);
	KEXPECT_EQ(t, held, false);
	KEXPECT_EQ(t, ea.gaps, ncpus_online - 1);
}

/* Unmapping every page frees their table: the acknowledgement waits for the flush. */
static void test_tlb_early_ack_table_acks_late(struct ktest *t)
{
	u64 acks = percpu_counter_sum(PCPU_TLB_EARLY_ACKS);
	u64 kept = percpu_counter_sum(PCPU_TLB_EARLY_KEPT);
	bool held;

	if (!ktest_need_second_cpu(t))
		return;
	KEXPECT_EQ(t, ea_run(t, &tlb_ops_early_ack, 2, 2, EA_BY_SETTLE, &held), 0);
	KEXPECT_EQ(t, held, false); /* complete on return: freed with the gather */
	KEXPECT_EQ(t, ea.gaps, 0);
	KEXPECT_EQ(t, percpu_counter_sum(PCPU_TLB_EARLY_ACKS) - acks, 0);
	KEXPECT_EQ(t, percpu_counter_sum(PCPU_TLB_EARLY_KEPT) - kept, 0);
}

/* Single-page invalidations every CPU but this one has done. */
static u64 ea_remote_invlpg(void)
{
	u64 n = 0;
	unsigned cpu;

	for_each_cpu(cpu, &cpu_online_mask)
		if (cpu != arch_cpu_id())
			n += percpu_counter_read(cpu, PCPU_TLB_FLUSH_ONE);
	return n;
}

/*
 * The unmap returns while every target sits in its gap, its flush not yet
 * done nor counted; quiesce returns only once each has flushed (the gap
 * lets go after EA_GAP_MS), and gives no frame back.
 */
static void test_tlb_early_ack_quiesce_waits_for_flushes(struct ktest *t)
{
	struct page *old;
	u64 before;

	if (!ktest_need_second_cpu(t))
		return;
	if (KEXPECT_EQ(t, ea_start(&tlb_ops_early_ack, 3, &old), 0)) {
		before = ea_remote_invlpg();
		WRITE_ONCE(tlb_early_ack_gap, ea_gap);
		KEXPECT_EQ(t, tlb_unmap_pages(ea.mm, EA_BASE, 1, &tlb_ops_early_ack), 0);
		KEXPECT_EQ(t, ea_remote_invlpg() - before, 0);
		KEXPECT_EQ(t, tlb_quiesce(&tlb_ops_early_ack), 0);
		KEXPECT_EQ(t, ea_remote_invlpg() - before, ncpus_online - 1);
		KEXPECT_EQ(t, page_ref_count(old), 1); /* still kept: the mapping's reference */
		WRITE_ONCE(tlb_early_ack_gap, NULL);
	}
	if (ea.mm)
		ea_teardown(t);
	KEXPECT_EQ(t, tlb_design_enable(&tlb_ops_early_ack, false), 0);
}

/*
 * A target that acknowledged but has not flushed within timeout_ms is as
 * late as one that never answered: when this CPU's next gather releases
 * the kept frame, the frame is quarantined and the late targets are
 * written off. That gather is in another address space, with no round of
 * its own, so it does not fail for them: its own frame is freed. (The
 * error used to become the next gather's: it returned -ETIMEDOUT and
 * quarantined its own frame too, and no target was written off.)
 */
static void test_tlb_early_ack_late_flush_is_the_late_cpus(struct ktest *t)
{
	u32 saved = smp_timeout_ms();
	unsigned cpu, self = this_cpu()->cpu_id;
	struct quarantine_stats q0, q1;
	struct page *old;

	if (!ktest_need_second_cpu(t))
		return;
	if (KEXPECT_EQ(t, ea_start(&tlb_ops_early_ack, 3, &old), 0)) {
		page_ref_inc(old); /* ours, whether the frame is freed or quarantined */
		quarantine_stats_get(&q0);
		/* Each target waits in its gap, between its acknowledgement and its flush. */
		ea.gap_ms = EA_LATE_GAP_MS;
		WRITE_ONCE(tlb_early_ack_gap, ea_gap);
		KEXPECT_EQ(t, tlb_unmap_pages(ea.mm, EA_BASE, 1, &tlb_ops_early_ack), 0);
		/* After the acknowledgements: only the flushes are to be late, not the calls. */
		smp_set_timeout_ms(EA_LATE_MS);
		KEXPECT_EQ(t, ea_next_gather(&tlb_ops_early_ack), 0);
		smp_set_timeout_ms(saved);
		quarantine_stats_get(&q1);
		KEXPECT_EQ(t, q1.frames - q0.frames, 1); /* page 0's; not the next gather's */
		KEXPECT_EQ(t, q1.flushes - q0.flushes, 1);
		atomic_store_release(&ea.reused, 1); /* the gaps let go */
		for_each_cpu(cpu, &cpu_online_mask) {
			if (cpu == self)
				continue;
			KEXPECT_EQ(t, smp_cpu_dead(cpu), true);
			KEXPECT_EQ(t, smp_cpu_revive(cpu), 0);
		}
		/* Runs after each target's handler, so after its gap and flush. */
		KEXPECT_EQ(t, smp_call_others(ea_nothing, NULL, true), 0);
		WRITE_ONCE(tlb_early_ack_gap, NULL);
		ea.gap_ms = 0;
		KEXPECT_EQ(t, page_ref_count(old), 2); /* ours and the quarantine's */
		if (page_ref_dec_and_test(old))
			page_free(old, 0); /* not quarantined after all: the count said so */
	}
	smp_set_timeout_ms(saved);
	if (ea.mm)
		ea_teardown(t);
	KEXPECT_EQ(t, tlb_design_enable(&tlb_ops_early_ack, false), 0);
}

static const struct ktest_case tlb_early_ack_cases[] = {
	KTEST_CASE(test_tlb_early_ack_frees_after_flush),
	KTEST_CASE(test_tlb_early_ack_released_at_next_gather),
	KTEST_CASE(test_tlb_early_ack_quiesce_waits_for_flushes),
	KTEST_CASE(test_tlb_early_ack_control_caught),
	KTEST_CASE(test_tlb_early_ack_table_acks_late),
	KTEST_CASE(test_tlb_early_ack_late_flush_is_the_late_cpus),
};
KTEST_SUITE(tlb_ack_gap, tlb_early_ack_cases);
