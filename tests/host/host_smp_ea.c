/*
 * early_ack (mm/tlb/designs/early_ack.c) on kernel/smp.c's real calls, threads as
 * CPUs (tests/host/host_smp.h): a target acknowledges, the caller resumes, and
 * the target goes on in a gap (tlb_early_ack_gap) before its flush. No frame
 * goes back before every target flushed; the control that releases at
 * acknowledgement is caught; each late target is judged on its own deadline.
 */
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/quarantine.h"
#include "mm/tlb/tlb.h"
#include "mm/tlb/designs/early_ack.h"
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
/* The late-target case: CPU 2 flushes this many turns into the initiator's wait for it. */
#define HE_FLUSH_TURN 100

/* How a target's gap ends. */
enum he_gap_mode {
	HE_GAP_UNTIL_WAITED, /* the frame is reused, or the initiator waits for flushes */
	HE_GAP_LATE,	     /* the late-target case: per CPU, below */
};

static struct {
	struct mm *mm;
	paddr_t old_pa;
	enum he_gap_mode mode;
	u32 armed;	 /* the unmap returned: a clock read now is a flush wait's */
	u32 waited;	 /* the initiator read the clock in a bounded wait */
	u32 reused;	 /* the old frame was written by its "next owner" */
	u32 gaps;	 /* targets that ran the gap */
	u32 seen_reused; /* of them, those that saw the write while still translating to it */
	u32 clock_reads;
	u32 let_late_go;     /* CPU 1 (late) may flush */
	u32 base_set;	     /* base below holds */
	unsigned long base;  /* fake_relax_count when CPU 1 was seen late */
	u32 flushed_at;	     /* CPU 2's turn of the initiator's wait for it when it flushed */
	u32 written_off_at;  /* ... or when it was written off before that (0: not) */
	u32 cpu2_done;	     /* CPU 2 left its gap */
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

static unsigned long he_turns(void)
{
	return atomic_load_relaxed(&fake_relax_count) - he.base;
}

/* CPU 2 in the late case: flushes at HE_FLUSH_TURN of the wait for it, unless written off. */
static void he_gap_cpu2(u64 deadline)
{
	while (!atomic_load_acquire(&he.base_set) && arch_tsc_read() < deadline)
		sched_yield();
	while (he_turns() < HE_FLUSH_TURN && arch_tsc_read() < deadline) {
		if (smp_cpu_dead(2)) {
			he.written_off_at = (u32)he_turns();
			atomic_store_release(&he.cpu2_done, 1);
			return;
		}
		sched_yield();
	}
	he.flushed_at = (u32)he_turns();
	atomic_store_release(&he.cpu2_done, 1);
}

static void he_gap(const struct tlb_flush_req *req)
{
	u64 deadline = arch_tsc_read() + HE_GAP_SECONDS * arch_tsc_hz();
	unsigned self = arch_cpu_id();

	if (req->mm != he.mm || req->start > HE_BASE || req->last < HE_BASE)
		return;
	atomic_fetch_add(&he.gaps, 1);
	if (he.mode == HE_GAP_LATE && self == 1) {
		while (!atomic_load_acquire(&he.let_late_go) && arch_tsc_read() < deadline)
			sched_yield();
	} else if (he.mode == HE_GAP_LATE && self == 2) {
		he_gap_cpu2(deadline);
	} else if (he.mode == HE_GAP_UNTIL_WAITED) {
		/* sched_yield(), not arch_cpu_relax(): only the initiator's turns count. */
		while (!atomic_load_acquire(&he.reused) && !atomic_load_acquire(&he.waited) &&
		       arch_tsc_read() < deadline)
			sched_yield();
		if (atomic_load_acquire(&he.reused) && fake_tlb_holds(self, he.old_pa, PAGE_SIZE))
			atomic_fetch_add(&he.seen_reused, 1);
	}
}

/* CPU 0's clock: once armed, a read is a bounded wait's (for flushes, the unmap being done). */
static u64 he_clock_waited(u64 now)
{
	if (atomic_load_acquire(&he.armed))
		atomic_store_release(&he.waited, 1);
	return now;
}

/*
 * The late case's clock: the first armed read starts the initiator's
 * deadline (waiting for CPU 1, first in the mask), the second is an hour
 * later, and so is every read after it: CPU 1 is late. The turns from then
 * on are the waits for the CPUs after it.
 */
static u64 he_clock_late(u64 now)
{
	if (!atomic_load_acquire(&he.armed) || ++he.clock_reads < 2)
		return now;
	if (he.clock_reads == 2) {
		he.base = atomic_load_relaxed(&fake_relax_count);
		atomic_store_release(&he.base_set, 1);
	}
	return now + 3600ull * arch_tsc_hz();
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
 * returned; the gap hooked in @mode. NULL on failure.
 */
static struct page *he_start(struct ktest *t, const struct tlb_ops *ops, enum he_gap_mode mode)
{
	struct page *old;

	memset(&he, 0, sizeof(he));
	he.mode = mode;
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
	atomic_store_release(&he.let_late_go, 1);
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
	struct page *old = he_start(t, ops, HE_GAP_UNTIL_WAITED);

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


/*
 * CPU 1 acknowledges and stays in its gap past the initiator's deadline
 * (the clock jumps an hour at the wait's second read): it is written off
 * and the kept frame quarantined. CPU 2 flushes HE_FLUSH_TURN turns into
 * the wait for it: an ordinary flush, within its own deadline, so it must
 * stay in the run. Before the fix the wait for CPU 2 went on with CPU 1's
 * deadline, long passed, and wrote CPU 2 off at its first clock read.
 */
static void test_early_ack_threads_late_cpu_own_deadline(struct ktest *t)
{
	struct quarantine_stats q0, q1;
	struct page *old = he_start(t, &tlb_ops_early_ack, HE_GAP_LATE);
	int err = 0;

	if (old) {
		quarantine_stats_get(&q0);
		KEXPECT_EQ(t, tlb_unmap_pages(he.mm, HE_BASE, 1, &tlb_ops_early_ack), 0);
		host_smp_clock_hook = he_clock_late;
		atomic_store_release(&he.armed, 1);
		err = tlb_settle(&tlb_ops_early_ack, he.mm);
		host_smp_clock_hook = NULL;
		quarantine_stats_get(&q1);
		while (!atomic_load_acquire(&he.cpu2_done))
			sched_yield(); /* it may notice it was written off only now */
		if (he.written_off_at)
			ktest_log(t, "CPU 2 written off after %u turns of its own wait (it flushes at "
				  "turn %u)", he.written_off_at, HE_FLUSH_TURN);
		else
			ktest_log(t, "CPU 2 flushed at turn %u of its own wait, in the run",
				  he.flushed_at);
		KEXPECT_EQ(t, err, -ETIMEDOUT); /* CPU 1's */
		KEXPECT(t, smp_cpu_dead(1));
		KEXPECT(t, !smp_cpu_dead(2));
		KEXPECT(t, !smp_cpu_dead(3));
		KEXPECT_EQ(t, he.written_off_at, 0);
		KEXPECT_GE(t, he.flushed_at, HE_FLUSH_TURN);
		KEXPECT_EQ(t, q1.frames - q0.frames, 1);
	}
	he_end(t, &tlb_ops_early_ack, old);
}

static const struct ktest_case early_ack_threads_cases[] = {
	KTEST_CASE(test_early_ack_threads_frees_after_flush),
	KTEST_CASE(test_early_ack_threads_released_at_next_gather),
	KTEST_CASE(test_early_ack_threads_control_caught),
	KTEST_CASE(test_early_ack_threads_late_cpu_own_deadline),
};
KTEST_SUITE_EXT(early_ack_threads, early_ack_threads_cases, he_init, he_exit, NULL);
