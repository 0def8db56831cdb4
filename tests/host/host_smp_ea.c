/*
 * early_ack (mm/tlb_early_ack.c) on kernel/smp.c's real calls, threads as
 * CPUs (tests/host/host_smp.h): a target acknowledges, the caller resumes,
 * and the target goes on in a gap (tlb_early_ack_gap) before its flush.
 *   early_ack_threads: no frame goes back before every target flushed;
 *     the control releasing at acknowledgement is caught.
 * The gap holds each target until the initiator frees the frame (caught)
 * or spins in a bounded wait (reads the clock: it waits for the flushes).
 */
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/quarantine.h"
#include "mm/tlb.h"
#include "mm/tlb_early_ack.h"
#include "tests/ktest.h"
#include "tests/mm_emul.h"
#include "tests/host/fake_arch.h"
#include "tests/host/fake_tlb.h"
#include "tests/host/host_smp.h"
#include <arch/arch.h>
#include <sched.h>
#include <string.h>

#define HE_BASE 0x34000000ul
#define HE_POISON 0x4541524c59414b21ull
/* A gap's bound: far past any case's own waits, so only a broken case meets it. */
#define HE_GAP_SECONDS 5

static struct {
	struct mm *mm;
	paddr_t old_pa;
	u32 armed;	 /* the unmap returned: a clock read now is a flush wait's */
	u32 waited;	 /* the initiator read the clock in a bounded wait */
	u32 reused;	 /* the old frame was written by its "next owner" */
	u32 gaps;	 /* targets that ran the gap */
	u32 seen_reused; /* of them, those that saw the write while still translating to it */
} he;

static void he_switch(void *arg)
{
	mm_switch(arg);
}

static void he_touch(void *arg)
{
	u64 v;

	(void)arg;
	(void)emul_touch(he.mm, HE_BASE, false, &v);
}

static void he_gap(const struct tlb_flush_req *req)
{
	u64 deadline = arch_tsc_read() + HE_GAP_SECONDS * arch_tsc_hz();

	if (req->mm != he.mm || req->start > HE_BASE || req->last < HE_BASE)
		return;
	atomic_fetch_add(&he.gaps, 1);
	while (!atomic_load_acquire(&he.reused) && !atomic_load_acquire(&he.waited) &&
	       arch_tsc_read() < deadline)
		sched_yield();
	if (atomic_load_acquire(&he.reused) && fake_tlb_holds(arch_cpu_id(), he.old_pa, PAGE_SIZE))
		atomic_fetch_add(&he.seen_reused, 1);
}

/* CPU 0's clock: once armed, a read is a bounded wait's (for flushes, the unmap being done). */
static u64 he_clock_waited(u64 now)
{
	if (atomic_load_acquire(&he.armed))
		atomic_store_release(&he.waited, 1);
	return now;
}

static void he_revive_all(void)
{
	for (unsigned cpu = 1; cpu < HOST_SMP_CPUS; cpu++) {
		host_smp_hold(cpu, false);
		host_smp_quiesce(cpu);
		(void)smp_cpu_revive(cpu);
	}
}

static int he_init(struct ktest *t)
{
	int err = emul_suite_init(t);

	if (err)
		return err;
	host_smp_start();
	he_revive_all();
	smp_set_timeout_ms(1000);
	return 0;
}

static void he_exit(struct ktest *t)
{
	(void)t;
	WRITE_ONCE(tlb_early_ack_gap, NULL);
	host_smp_clock_hook = NULL;
	host_smp_stop();
}

/*
 * @ops on, a 3-page address space loaded on every other CPU, page 0
 * cached by each, its frame held by us (never reaching the allocator) and
 * returned; the gap hooked. NULL on failure.
 */
static struct page *he_start(struct ktest *t, const struct tlb_ops *ops)
{
	struct page *old;

	memset(&he, 0, sizeof(he));
	if (!KEXPECT_EQ(t, tlb_design_enable(ops, true), 0) ||
	    !KEXPECT_EQ(t, mm_create(&he.mm), 0))
		return NULL;
	KEXPECT_EQ(t, mm_map_region(he.mm, HE_BASE, 3 * PAGE_SIZE, MM_READ | MM_WRITE), 0);
	KEXPECT_EQ(t, mm_populate(he.mm, HE_BASE, 3 * PAGE_SIZE), 0);
	for (unsigned cpu = 1; cpu < HOST_SMP_CPUS; cpu++) {
		host_smp_run_on(cpu, he_switch, he.mm);
		host_smp_run_on(cpu, he_touch, NULL);
	}
	old = emul_page_at(he.mm, HE_BASE, NULL);
	if (!KEXPECT(t, old != NULL))
		return NULL;
	he.old_pa = page_to_phys(old);
	page_ref_inc(old);
	WRITE_ONCE(tlb_early_ack_gap, he_gap);
	return old;
}

/* Every target past its gap and flush, every CPU away and in the run, @ops off. */
static void he_end(struct ktest *t, const struct tlb_ops *ops, struct page *old)
{
	atomic_store_release(&he.reused, 1);
	host_smp_clock_hook = NULL;
	he_revive_all();
	/* Runs after each target's handler, so after its gap and flush. */
	KEXPECT_EQ(t, smp_call_others(he_switch, NULL, true), 0);
	WRITE_ONCE(tlb_early_ack_gap, NULL);
	if (old && page_ref_dec_and_test(old))
		page_free(old, 0);
	if (he.mm)
		KEXPECT_EQ(t, mm_destroy(he.mm), 0);
	he.mm = NULL;
	KEXPECT_EQ(t, tlb_design_enable(ops, false), 0);
}

/* This CPU's next gather, in an address space no other CPU has: it releases what we kept. */
static int he_next_gather(const struct tlb_ops *ops)
{
	struct mm *mm;
	int err = mm_create(&mm);

	if (err)
		return err;
	err = mm_map_region(mm, HE_BASE, PAGE_SIZE, MM_READ | MM_WRITE);
	if (!err)
		err = mm_populate(mm, HE_BASE, PAGE_SIZE);
	if (!err)
		err = tlb_unmap_pages(mm, HE_BASE, 1, ops);
	return mm_destroy(mm) ? -EBUSY : err;
}

/*
 * Unmaps page 0 through @ops; once its frame is back (at return, or after
 * a settle or the next gather when @ops kept it) writes it as its next
 * owner. Returns the targets that saw the write while still translating
 * to the frame, before their flush; *@kept: the frame was held at return.
 */
static u32 he_run(struct ktest *t, const struct tlb_ops *ops, bool by_gather, bool *kept)
{
	struct page *old = he_start(t, ops);

	*kept = false;
	if (old) {
		host_smp_clock_hook = he_clock_waited;
		KEXPECT_EQ(t, tlb_unmap_pages(he.mm, HE_BASE, 1, ops), 0);
		atomic_store_release(&he.armed, 1);
		*kept = page_ref_count(old) != 1;
		if (*kept)
			KEXPECT_EQ(t, by_gather ? he_next_gather(ops) : tlb_settle(ops, he.mm), 0);
		KEXPECT_EQ(t, page_ref_count(old), 1); /* the mapping's reference is gone */
		*(volatile u64 *)page_address(old) = HE_POISON;
		atomic_store_release(&he.reused, 1);
	}
	he_end(t, ops, old);
	ktest_log(t, "%s: %u targets acknowledged early, %u saw the frame reused before their "
		  "flush; frame %s at return", ops->d.name, he.gaps, he.seen_reused,
		  *kept ? "kept" : "released");
	return he.seen_reused;
}

/*
 * The targets acknowledge and stay in their gap after the unmap returned;
 * the settle gives the frame back only after every one flushed: none sees
 * it reused. Exact counts: an early ack per target, one frame kept.
 */
static void test_early_ack_threads_frees_after_flush(struct ktest *t)
{
	u64 acks = percpu_counter_sum(PCPU_TLB_EARLY_ACKS);
	u64 kept = percpu_counter_sum(PCPU_TLB_EARLY_KEPT);
	bool held;

	KEXPECT_EQ(t, he_run(t, &tlb_ops_early_ack, false, &held), 0);
	KEXPECT(t, held);
	KEXPECT_EQ(t, he.gaps, HOST_SMP_CPUS - 1);
	KEXPECT_EQ(t, percpu_counter_sum(PCPU_TLB_EARLY_ACKS) - acks, HOST_SMP_CPUS - 1);
	KEXPECT_EQ(t, percpu_counter_sum(PCPU_TLB_EARLY_KEPT) - kept, 1);
}

/* The paper's order: kept past the unmap, given back by this CPU's next gather. */
static void test_early_ack_threads_released_at_next_gather(struct ktest *t)
{
	bool held;

	KEXPECT_EQ(t, he_run(t, &tlb_ops_early_ack, true, &held), 0);
	KEXPECT(t, held);
	KEXPECT_EQ(t, he.gaps, HOST_SMP_CPUS - 1);
}

/* The control releases at acknowledgement: every target, still in its gap, sees the reuse. */
static void test_early_ack_threads_control_caught(struct ktest *t)
{
	bool held;

	KEXPECT_EQ(t, he_run(t, &tlb_ops_early_ack_at_ack, false, &held), HOST_SMP_CPUS - 1);
	KEXPECT(t, !held);
	KEXPECT_EQ(t, he.gaps, HOST_SMP_CPUS - 1);
}


static const struct ktest_case early_ack_threads_cases[] = {
	KTEST_CASE(test_early_ack_threads_frees_after_flush),
	KTEST_CASE(test_early_ack_threads_released_at_next_gather),
	KTEST_CASE(test_early_ack_threads_control_caught),
};
KTEST_SUITE_EXT(early_ack_threads, early_ack_threads_cases, he_init, he_exit, NULL);
