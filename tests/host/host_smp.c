/*
 * kernel/smp.c itself on the host, with threads as CPUs (tests/host/host_smp.h):
 * real IPIs between real threads, real deadlines, CPUs written off. Built
 * into build/test-host-smp only (the main host binary fakes smp_call()).
 * Suites: smp_threads (calls, write-offs and taking calls back) and lazy_dead
 * (the lazy TLB design with a CPU out of the run).
 */
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/quarantine.h"
#include "mm/tlb/tlb.h"
#include "mm/tlb/designs/lazy.h"
#include "tests/ktest.h"
#include "tests/mm_emul.h"
#include "tests/host/fake_arch.h"
#include "tests/host/fake_tlb.h"
#include "tests/host/host_smp.h"
#include <arch/arch.h>
#include <sched.h>

#define HS_BASE 0x33000000ul

static unsigned hs_runs[HOST_SMP_CPUS];

static void hs_count(void *arg)
{
	(void)arg;
	atomic_inc(&hs_runs[arch_cpu_id()]);
}

static void hs_reset_runs(void)
{
	for (unsigned cpu = 0; cpu < HOST_SMP_CPUS; cpu++)
		atomic_store_relaxed(&hs_runs[cpu], 0);
}

struct hs_call {
	unsigned target;
	int err;
};

/* On another CPU's thread: its own waited call to one CPU. */
static void hs_call_from(void *arg)
{
	struct hs_call *c = arg;

	c->err = smp_call_one(c->target, hs_count, NULL, true);
}

/* @cpu, held past a deadline, back in the run once it served its mailbox. */
static void hs_release(struct ktest *t, unsigned cpu)
{
	host_smp_hold(cpu, false);
	host_smp_quiesce(cpu);
	KEXPECT_EQ(t, smp_cpu_revive(cpu), 0);
}

/* Every CPU serving and in the run again (a failing case may have left one out). */
static void hs_revive_all(void)
{
	for (unsigned cpu = 1; cpu < HOST_SMP_CPUS; cpu++) {
		host_smp_hold(cpu, false);
		host_smp_quiesce(cpu);
		(void)smp_cpu_revive(cpu);
	}
}

static int hs_smp_init(struct ktest *t)
{
	(void)t;
	host_smp_start();
	hs_revive_all();
	smp_set_timeout_ms(500); /* live threads answer well within it, even on a loaded host */
	return 0;
}

static void hs_smp_exit(struct ktest *t)
{
	(void)t;
	smp_set_timeout_ms(1000);
	host_smp_stop();
}

/* One waited call to every other CPU: one IPI and one run each. */
static void test_smp_call_all_threads(struct ktest *t)
{
	u64 ipis[HOST_SMP_CPUS];

	hs_reset_runs();
	for (unsigned cpu = 1; cpu < HOST_SMP_CPUS; cpu++)
		ipis[cpu] = host_smp_ipis(cpu);
	KEXPECT_EQ(t, smp_call_others(hs_count, NULL, true), 0);
	KEXPECT_EQ(t, hs_runs[0], 0);
	for (unsigned cpu = 1; cpu < HOST_SMP_CPUS; cpu++) {
		KEXPECT_EQ(t, hs_runs[cpu], 1);
		KEXPECT_EQ(t, host_smp_ipis(cpu) - ipis[cpu], 1);
	}
}

/*
 * A call sent without waiting stays pending until someone waits for it,
 * whether or not the targets have answered meanwhile (what the TLB
 * gather's check of frames freed before the acknowledgements relies on).
 */
static void test_smp_call_pending_until_waited(struct ktest *t)
{
	hs_reset_runs();
	KEXPECT_EQ(t, smp_call_others(hs_count, NULL, true), 0);
	KEXPECT(t, !smp_call_pending());
	KEXPECT_EQ(t, smp_call_others(hs_count, NULL, false), 0);
	KEXPECT(t, smp_call_pending());
	KEXPECT_EQ(t, smp_call_wait(), 0);
	KEXPECT(t, !smp_call_pending());
	for (unsigned cpu = 1; cpu < HOST_SMP_CPUS; cpu++)
		KEXPECT_EQ(t, hs_runs[cpu], 2);
}

/* CPU 1 never answers: written off, CPUs 2 and 3 still run the call, CPU 1 never does. */
static void test_smp_timeout_live_still_called(struct ktest *t)
{
	hs_reset_runs();
	host_smp_hold(1, true);
	KEXPECT_EQ(t, smp_call_others(hs_count, NULL, true), -ETIMEDOUT);
	KEXPECT(t, smp_cpu_dead(1));
	KEXPECT_EQ(t, hs_runs[2], 1);
	KEXPECT_EQ(t, hs_runs[3], 1);
	hs_release(t, 1);
	KEXPECT_EQ(t, hs_runs[1], 0); /* taken back before it claimed it */
}

/*
 * A caller wedged by another's write-off: CPU 0 posts to CPU 1 without
 * waiting; CPU 2's own call to CPU 1 times out and writes CPU 1 off. CPU 0's next call, to live
 * CPU 3, must be sent: CPU 0 takes back the call CPU 1 never claimed.
 * Before the fix smp_drain()'s "held by a dead CPU" shortcut returned
 * -ETIMEDOUT with 0 IPIs sent to CPU 3, on every later call.
 */
static void test_smp_dead_by_other_caller(struct ktest *t)
{
	struct hs_call c2 = { 1, 0 };
	u64 ipis3;

	hs_reset_runs();
	host_smp_hold(1, true);
	KEXPECT_EQ(t, smp_call_one(1, hs_count, NULL, false), 0);
	host_smp_run_on(2, hs_call_from, &c2);
	KEXPECT_EQ(t, c2.err, -ETIMEDOUT);
	KEXPECT(t, smp_cpu_dead(1));
	for (int round = 0; round < 2; round++) {
		ipis3 = host_smp_ipis(3);
		KEXPECT_EQ(t, smp_call_one(3, hs_count, NULL, true), 0);
		KEXPECT_EQ(t, host_smp_ipis(3) - ipis3, 1);
	}
	KEXPECT_EQ(t, hs_runs[3], 2);
	hs_release(t, 1);
	KEXPECT_EQ(t, hs_runs[1], 0); /* neither caller's call ran: both taken back */
}

static unsigned hs_clock_reads;

/*
 * The caller's second clock read is smp_drain()'s first deadline check:
 * there the held target is let go and answers, and the clock jumps past
 * the deadline, the order a caller's vCPU stalled by its host sees.
 */
static u64 hs_clock_answer_then_late(u64 now)
{
	if (++hs_clock_reads != 2)
		return now;
	host_smp_hold(1, false);
	host_smp_quiesce(1);
	return now + 60 * 1000000000ull;
}

/* A target that answered by the time the deadline is seen passed is no timeout. */
static void test_smp_answer_at_deadline(struct ktest *t)
{
	int err;

	hs_reset_runs();
	host_smp_hold(1, true);
	hs_clock_reads = 0;
	host_smp_clock_hook = hs_clock_answer_then_late;
	err = smp_call_one(1, hs_count, NULL, true);
	host_smp_clock_hook = NULL;
	KEXPECT_EQ(t, hs_clock_reads, 2);
	KEXPECT_EQ(t, hs_runs[1], 1);
	KEXPECT_EQ(t, err, 0);
	KEXPECT(t, !smp_cpu_dead(1));
	hs_revive_all();
}

static const struct ktest_case smp_threads_cases[] = {
	KTEST_CASE(test_smp_call_all_threads),
	KTEST_CASE(test_smp_call_pending_until_waited),
	KTEST_CASE(test_smp_timeout_live_still_called),
	KTEST_CASE(test_smp_dead_by_other_caller),
	KTEST_CASE(test_smp_answer_at_deadline),
};
KTEST_SUITE_EXT(smp_threads, smp_threads_cases, hs_smp_init, hs_smp_exit, NULL);

/* ---- the lazy TLB design with a CPU out of the run ---- */

static void hs_switch(void *arg)
{
	mm_switch(arg);
}

static void hs_load(unsigned cpu, struct mm *mm)
{
	host_smp_run_on(cpu, hs_switch, mm);
}

static int hs_lazy_init(struct ktest *t)
{
	int err = emul_suite_init(t);

	if (err)
		return err;
	host_smp_start();
	hs_revive_all();
	smp_set_timeout_ms(1000);
	return tlb_design_enable(&tlb_ops_lazy, true);
}

static void hs_lazy_exit(struct ktest *t)
{
	(void)t;
	(void)tlb_design_enable(&tlb_ops_lazy, false);
	host_smp_stop();
}

static struct mm *hs_mm_new(struct ktest *t)
{
	struct mm *mm = NULL;

	if (!KEXPECT_EQ(t, mm_create(&mm), 0))
		return NULL;
	KEXPECT_EQ(t, mm_map_region(mm, HS_BASE, PAGE_SIZE, MM_READ | MM_WRITE), 0);
	KEXPECT_EQ(t, mm_populate(mm, HS_BASE, PAGE_SIZE), 0);
	return mm;
}

/* Every CPU away from @mm, @dead (held, written off) drained and back in the run. */
static void hs_lazy_cleanup(struct ktest *t, struct mm *mm, unsigned dead)
{
	host_smp_ticking(dead, true);
	hs_release(t, dead);
	for (unsigned cpu = 1; cpu < HOST_SMP_CPUS; cpu++) {
		host_smp_ticking(cpu, true);
		hs_load(cpu, NULL);
		host_smp_ticking(cpu, false);
	}
	KEXPECT_EQ(t, tlb_settle(&tlb_ops_lazy, mm), 0);
	KEXPECT_EQ(t, mm_destroy(mm), 0);
}

/*
 * CPUs 1 and 2 hold an entry; CPU 1 is out of the run, CPU 2 ticks 20 ms
 * into the settle (of 1000). Settle must wait for CPU 2 and leave it in
 * the run (it once stopped at dead CPU 1 and wrote CPU 2 off at once), and
 * the batch CPU 1 never drained goes to the quarantine, never back to the
 * allocator.
 */
static void test_lazy_settle_judges_each_cpu(struct ktest *t)
{
	struct mm *mm = hs_mm_new(t);
	struct quarantine_stats q0, q1;
	u64 drained, t0;
	int err;

	KASSERT(t, mm != NULL);
	hs_load(1, mm);
	hs_load(2, mm);
	KEXPECT_EQ(t, tlb_unmap_pages(mm, HS_BASE, 1, &tlb_ops_lazy), 0);
	host_smp_hold(1, true);
	smp_cpu_write_off(1, "host test");
	drained = percpu_counter_read(2, PCPU_TLB_LAZY_DRAINED);
	host_smp_ticking_after(2, 20);
	quarantine_stats_get(&q0);
	t0 = arch_tsc_read();
	err = tlb_settle(&tlb_ops_lazy, mm);
	ktest_log(t, "settle returned %d after %lu ms", err,
		  (unsigned long)((arch_tsc_read() - t0) / 1000000));
	quarantine_stats_get(&q1);
	KEXPECT_EQ(t, err, -ETIMEDOUT);
	KEXPECT_EQ(t, q1.frames - q0.frames, 1); /* CPU 1 never drained the batch */
	KEXPECT(t, !smp_cpu_dead(2));
	KEXPECT_EQ(t, percpu_counter_read(2, PCPU_TLB_LAZY_DRAINED) - drained, 1);
	hs_lazy_cleanup(t, mm, 1);
}

static u32 hs_clock_reads;

/* CPU 0's clock: from the second read on (its wait for CPU 1), an hour late. */
static u64 hs_clock_late_from_second(u64 now)
{
	return ++hs_clock_reads < 2 ? now : now + 3600ull * arch_tsc_hz();
}

/*
 * CPUs 1 and 2 hold an entry; CPU 1 is live but never drains, so settle's
 * wait for it runs out (the clock jumps an hour) and writes it off; CPU 2
 * ticks 20 ms into the settle. CPU 2 is judged on its own deadline, never
 * on what the wait for CPU 1 left of one: with one deadline shared by the
 * waits, CPU 2 was written off at its wait's first clock read.
 */
static void test_lazy_settle_late_cpu_own_deadline(struct ktest *t)
{
	struct mm *mm = hs_mm_new(t);
	u64 drained;
	int err;

	KASSERT(t, mm != NULL);
	hs_load(1, mm);
	hs_load(2, mm);
	KEXPECT_EQ(t, tlb_unmap_pages(mm, HS_BASE, 1, &tlb_ops_lazy), 0);
	host_smp_hold(1, true);
	drained = percpu_counter_read(2, PCPU_TLB_LAZY_DRAINED);
	host_smp_ticking_after(2, 20);
	hs_clock_reads = 0;
	host_smp_clock_hook = hs_clock_late_from_second;
	err = tlb_settle(&tlb_ops_lazy, mm);
	host_smp_clock_hook = NULL;
	KEXPECT_EQ(t, err, -ETIMEDOUT); /* CPU 1's */
	KEXPECT(t, smp_cpu_dead(1));
	KEXPECT(t, !smp_cpu_dead(2));
	KEXPECT_EQ(t, percpu_counter_read(2, PCPU_TLB_LAZY_DRAINED) - drained, 1);
	hs_lazy_cleanup(t, mm, 1);
}

/*
 * A dead target hides no live one: with CPU 3 out of the run, an unmap of
 * an mm that CPUs 2 and 3 have loaded fails (-ETIMEDOUT) but must still
 * queue the invalidation to CPU 2. Before the fix nothing was queued.
 */
static void test_lazy_send_queues_live(struct ktest *t)
{
	struct mm *mm = hs_mm_new(t);
	u64 queued = percpu_counter_read(0, PCPU_TLB_LAZY_QUEUED);
	u64 drained = percpu_counter_read(2, PCPU_TLB_LAZY_DRAINED);

	KASSERT(t, mm != NULL);
	hs_load(2, mm);
	hs_load(3, mm);
	host_smp_hold(3, true);
	smp_cpu_write_off(3, "host test");
	KEXPECT_EQ(t, tlb_unmap_pages(mm, HS_BASE, 1, &tlb_ops_lazy), -ETIMEDOUT);
	KEXPECT_EQ(t, percpu_counter_read(0, PCPU_TLB_LAZY_QUEUED) - queued, 1);
	host_smp_ticking(2, true);
	KEXPECT_EQ(t, tlb_settle(&tlb_ops_lazy, mm), 0);
	host_smp_ticking(2, false);
	KEXPECT_EQ(t, percpu_counter_read(2, PCPU_TLB_LAZY_DRAINED) - drained, 1);
	hs_lazy_cleanup(t, mm, 3);
}


/* ---- a target written off while lazy pushes to the mask ---- */

/* CPU 0's spin turns on a held lock that show it is inside the push loop. */
#define HS_SPIN_TURNS 64

static struct mm *hs_mm;
static u32 hs_hook_in, hs_hook_runs;

static void hs_touch(void *arg)
{
	u64 v;

	(void)emul_touch(hs_mm, *(vaddr_t *)arg, false, &v);
}

/*
 * On CPU 1's tick, while its drain holds its queue's lock: waits until
 * CPU 0 spins on that lock (only CPU 0 relaxes meanwhile, each turn one
 * arch_cpu_relax()), so CPU 0 is past lazy_send()'s look at the dead CPUs
 * and inside its push loop, at CPU 1; then writes CPU 2 off.
 */
static void hs_hook_write_off_in_push(void)
{
	u64 deadline;
	unsigned long from;

	if (arch_cpu_id() != 1 || hs_hook_runs++)
		return;
	deadline = arch_tsc_read() + 5 * arch_tsc_hz(); /* a bound for a broken case only */
	from = atomic_load_relaxed(&fake_relax_count);
	atomic_store_release(&hs_hook_in, 1);
	while (atomic_load_relaxed(&fake_relax_count) < from + HS_SPIN_TURNS &&
	       arch_tsc_read() < deadline)
		sched_yield();
	smp_cpu_write_off(2, "host test");
}

/*
 * CPU 1 holds page 0's entry; CPU 2 loaded the mm after it and cached
 * page 1. CPU 0 unmaps page 1 and, inside its push loop (stalled at CPU
 * 1's queue lock, which CPU 1's drain holds), CPU 2 is written off. CPU 2
 * gets no entry, still translates page 1 to its old frame and never will
 * drain: the unmap must fail and quarantine the frame. Before the fix it
 * returned 0 and the reap freed the frame (its batch's ticket for CPU 2
 * was stale, so it counted as drained).
 */
static void test_lazy_written_off_in_push(struct ktest *t)
{
	vaddr_t va1 = HS_BASE + PAGE_SIZE;
	struct quarantine_stats q0, q1;
	struct fake_tlb_hit hit = { 0, 0 };
	struct page *old;
	bool holds;
	int err;

	KASSERT(t, (hs_mm = hs_mm_new(t)) != NULL);
	KEXPECT_EQ(t, mm_map_region(hs_mm, va1, PAGE_SIZE, MM_READ | MM_WRITE), 0);
	KEXPECT_EQ(t, mm_populate(hs_mm, va1, PAGE_SIZE), 0);
	hs_load(1, hs_mm);
	KEXPECT_EQ(t, tlb_unmap_pages(hs_mm, HS_BASE, 1, &tlb_ops_lazy), 0); /* CPU 1's entry */
	hs_load(2, hs_mm);
	host_smp_run_on(2, hs_touch, &va1);
	KASSERT(t, (old = emul_page_at(hs_mm, va1, NULL)) != NULL);
	page_ref_inc(old); /* ours: the frame never reaches the allocator */
	quarantine_stats_get(&q0);
	hs_hook_in = hs_hook_runs = 0;
	fake_flush_hook = hs_hook_write_off_in_push;
	host_smp_ticking(1, true);
	while (!atomic_load_acquire(&hs_hook_in))
		sched_yield(); /* not arch_cpu_relax(): the hook counts CPU 0's */
	err = tlb_unmap_pages(hs_mm, va1, 1, &tlb_ops_lazy);
	KEXPECT_EQ(t, tlb_settle(&tlb_ops_lazy, hs_mm), 0); /* CPU 1 ticks: page 1 drained */
	host_smp_ticking(1, false);
	fake_flush_hook = NULL;
	quarantine_stats_get(&q1);
	holds = fake_tlb_lookup(2, va1, &hit) && hit.pa == page_to_phys(old);
	ktest_log(t, "unmap returned %d; frames quarantined +%lu; written-off CPU 2 %s %#lx to "
		  "that frame", err, (unsigned long)(q1.frames - q0.frames),
		  holds ? "still translates" : "no longer translates", (unsigned long)va1);
	KEXPECT(t, smp_cpu_dead(2));
	KEXPECT(t, holds);
	KEXPECT_EQ(t, err, -ETIMEDOUT);
	KEXPECT_EQ(t, q1.frames - q0.frames, 1);
	KEXPECT_EQ(t, page_ref_count(old), 2); /* ours and the quarantine's */
	if (page_ref_dec_and_test(old))
		page_free(old, 0);
	hs_lazy_cleanup(t, hs_mm, 2);
}

static const struct ktest_case lazy_dead_cases[] = {
	KTEST_CASE(test_lazy_settle_judges_each_cpu),
	KTEST_CASE(test_lazy_settle_late_cpu_own_deadline),
	KTEST_CASE(test_lazy_send_queues_live),
	KTEST_CASE(test_lazy_written_off_in_push),
};
KTEST_SUITE_EXT(lazy_dead, lazy_dead_cases, hs_lazy_init, hs_lazy_exit, NULL);
