/*
 * The lazy TLB design (mm/tlb/designs/lazy.c) with more than one initiator, replayed
 * deterministically on the host: fake CPUs take turns on one thread, and the
 * fake arch's flush hook (fake_flush_hook) is where a test plays another
 * CPU's step or an interrupt, at the exact point of a flush. Host only; the
 * kernel's own two-initiator test is in tests/mm/tlb/test_tlb.c,
 * the dead-CPU cases in tests/host/host_smp.c.
 */
/* build: host only */
#include "errno.h"
#include "kernel/percpu.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/tlb/tlb.h"
#include "mm/tlb/designs/lazy.h"
#include "tests/ktest.h"
#include "tests/mm_emul.h"
#include "tests/host/fake_arch.h"
#include <arch/arch.h>

#define LZ_A 0x31000000ul
#define LZ_B 0x32000000ul
#define RW (MM_READ | MM_WRITE)

static struct mm *lz_mm_new(struct ktest *t, vaddr_t base, unsigned nr)
{
	struct mm *mm = NULL;

	if (!KEXPECT_EQ(t, mm_create(&mm), 0))
		return NULL;
	KEXPECT_EQ(t, mm_map_region(mm, base, (u64)nr * PAGE_SIZE, RW), 0);
	for (unsigned i = 0; i < nr; i++)
		emul_write(t, mm, base + (vaddr_t)i * PAGE_SIZE, 7000 + i);
	return mm;
}

static void lz_load(unsigned cpu, struct mm *mm)
{
	fake_arch_set_cpu(cpu);
	mm_switch(mm);
	fake_arch_set_cpu(0);
}

static void lz_all_away(void)
{
	for (unsigned cpu = 0; cpu < EMUL_FAKE_CPUS; cpu++)
		lz_load(cpu, NULL);
}

static void lz_tick(unsigned cpu)
{
	fake_arch_set_cpu(cpu);
	fake_tick();
	fake_arch_set_cpu(0);
}

static int lz_begin(struct ktest *t)
{
	cpumask_set_first_n(&cpu_online_mask, EMUL_FAKE_CPUS);
	return KEXPECT_EQ(t, tlb_design_enable(&tlb_ops_lazy, true), 0) ? 0 : -EINVAL;
}

static void lz_end(struct ktest *t)
{
	fake_flush_hook = NULL;
	tlb_lazy_pause_ticks(false);
	KEXPECT_EQ(t, tlb_design_enable(&tlb_ops_lazy, false), 0);
	lz_all_away();
	cpumask_clear(&cpu_online_mask);
}

/* CPU 1's whole unmap of its own mm, played inside CPU 0's flush (once). */
static struct mm *lz_second_mm;
static unsigned lz_hook_runs;

static void lz_hook_second_initiator(void)
{
	if (arch_cpu_id() != 0 || lz_hook_runs++)
		return;
	fake_arch_set_cpu(1);
	(void)tlb_unmap_pages(lz_second_mm, LZ_B, 1, &tlb_ops_lazy);
	fake_arch_set_cpu(0);
}

/*
 * Two initiators: the first unmap of A leaves its frame in a deferred
 * batch, released once CPU 2 ticked. The next unmap of A takes that batch
 * again; inside its own flush CPU 1 unmaps B, whose reap must leave the
 * batch alone. Before the fix it released the stale content once more:
 * our extra reference on the first frame went, the map count underflowed.
 */
static void test_lazy_two_initiators(struct ktest *t)
{
	struct mm *a = lz_mm_new(t, LZ_A, 2), *b = lz_mm_new(t, LZ_B, 1);
	u64 warns = fake_warn_calls;
	struct page *old;

	KASSERT(t, a && b && !lz_begin(t));
	lz_load(0, a);
	lz_load(2, a);
	lz_load(1, b);
	old = emul_page_at(a, LZ_A, NULL);
	page_ref_inc(old);
	KEXPECT_EQ(t, tlb_unmap_pages(a, LZ_A, 1, &tlb_ops_lazy), 0);
	KEXPECT_EQ(t, page_ref_count(old), 2); /* ours and the deferred batch's */
	lz_tick(2);
	KEXPECT_EQ(t, tlb_settle(&tlb_ops_lazy, a), 0);
	KEXPECT_EQ(t, page_ref_count(old), 1); /* released once: only ours */
	lz_second_mm = b;
	lz_hook_runs = 0;
	fake_flush_hook = lz_hook_second_initiator;
	KEXPECT_EQ(t, tlb_unmap_pages(a, LZ_A + PAGE_SIZE, 1, &tlb_ops_lazy), 0);
	fake_flush_hook = NULL;
	KEXPECT_EQ(t, lz_hook_runs, 1);
	KEXPECT_EQ(t, page_ref_count(old), 1); /* still only ours: never released twice */
	KEXPECT_EQ(t, page_mapcount(old), 0);
	KEXPECT_EQ(t, fake_warn_calls, warns);
	lz_tick(2);
	KEXPECT_EQ(t, tlb_settle(&tlb_ops_lazy, a), 0);
	if (page_ref_count(old) == 1 && page_ref_dec_and_test(old))
		page_free(old, 0);
	lz_end(t);
	KEXPECT_EQ(t, mm_destroy(a), 0);
	KEXPECT_EQ(t, mm_destroy(b), 0);
}

/*
 * settle_wait is settle's wait alone (what the benchmarks time apart from
 * the release): once the target drained it returns, the deferred frame
 * still held; the settle after it releases the frame. A design that
 * completes in its call has nothing to wait for.
 */
static void test_lazy_settle_wait_releases_nothing(struct ktest *t)
{
	struct mm *a = lz_mm_new(t, LZ_A, 1);
	struct page *old;

	KASSERT(t, a && !lz_begin(t));
	lz_load(0, a);
	lz_load(2, a);
	old = emul_page_at(a, LZ_A, NULL);
	page_ref_inc(old);
	KEXPECT_EQ(t, tlb_unmap_pages(a, LZ_A, 1, &tlb_ops_lazy), 0);
	lz_tick(2);
	KEXPECT_EQ(t, tlb_settle_wait(&tlb_ops_lazy), 0);
	KEXPECT_EQ(t, page_ref_count(old), 2); /* drained, still in the deferred batch */
	KEXPECT_EQ(t, tlb_settle(&tlb_ops_lazy, a), 0);
	KEXPECT_EQ(t, page_ref_count(old), 1); /* released by the settle */
	KEXPECT_EQ(t, tlb_settle_wait(&tlb_ops_batched), 0);
	if (page_ref_dec_and_test(old))
		page_free(old, 0);
	lz_end(t);
	KEXPECT_EQ(t, mm_destroy(a), 0);
}

/* A tick arriving at any flush where interrupts are on (one at a time). */
static unsigned lz_ticks_in, lz_ticks_nested;

static void lz_hook_tick(void)
{
	if (!arch_irqs_enabled() || lz_ticks_nested)
		return;
	lz_ticks_nested++;
	if (fake_tick())
		lz_ticks_in++;
	lz_ticks_nested--;
}

static void lz_fallback_unmap(void *arg)
{
	int *err = arg;

	*err = tlb_unmap_pages(lz_second_mm, LZ_A + TLB_LAZY_QUEUE_MAX * PAGE_SIZE, 1,
			       &tlb_ops_lazy);
}

/*
 * CPU 0's queue holds an entry for B (CPU 1 unmapped it, CPU 0 has it
 * loaded); CPU 2's queue is full of A's. CPU 0 unmaps A once more: the push
 * to CPU 2 fails, the fallback round runs lazy's target on CPU 0 itself,
 * which drains its queue, flushing B's range under the queue's lock. A
 * tick there re-took the lock before the fix: "recursive acquire" panic.
 */
static void test_lazy_local_drain_irqsafe(struct ktest *t)
{
	enum { NR = TLB_LAZY_QUEUE_MAX + 1 };
	struct mm *a = lz_mm_new(t, LZ_A, NR), *b = lz_mm_new(t, LZ_B, 1);
	u64 fallbacks = percpu_counter_read(0, PCPU_TLB_LAZY_FALLBACKS);
	int err = -EINVAL;
	bool panicked;

	KASSERT(t, a && b && !lz_begin(t));
	lz_load(2, a);
	lz_load(0, b);
	lz_load(1, b);
	tlb_lazy_pause_ticks(true);
	for (unsigned i = 0; i < TLB_LAZY_QUEUE_MAX; i++)
		KEXPECT_EQ(t, tlb_unmap_pages(a, LZ_A + (vaddr_t)i * PAGE_SIZE, 1, &tlb_ops_lazy),
			   0);
	fake_arch_set_cpu(1);
	KEXPECT_EQ(t, tlb_unmap_pages(b, LZ_B, 1, &tlb_ops_lazy), 0); /* one entry for CPU 0 */
	fake_arch_set_cpu(0);
	tlb_lazy_pause_ticks(false);
	lz_second_mm = a;
	lz_ticks_in = 0;
	fake_flush_hook = lz_hook_tick;
	panicked = fake_expect_panic(lz_fallback_unmap, &err);
	fake_flush_hook = NULL;
	if (!KEXPECT(t, !panicked)) {
		/* The queue's lock stays taken: nothing below could run. */
		ktest_log(t, "panic: %s", fake_panic_message());
		return;
	}
	KEXPECT_EQ(t, err, 0);
	KEXPECT_EQ(t, percpu_counter_read(0, PCPU_TLB_LAZY_FALLBACKS) - fallbacks, 1);
	lz_tick(0);
	lz_tick(2);
	KEXPECT_EQ(t, tlb_settle(&tlb_ops_lazy, a), 0);
	lz_end(t);
	KEXPECT_EQ(t, mm_destroy(a), 0);
	KEXPECT_EQ(t, mm_destroy(b), 0);
}

static const struct ktest_case tlb_lazy_cases[] = {
	KTEST_CASE(test_lazy_two_initiators),
	KTEST_CASE(test_lazy_settle_wait_releases_nothing),
	KTEST_CASE(test_lazy_local_drain_irqsafe),
};
KTEST_SUITE_EXT(tlb_lazy_replay, tlb_lazy_cases, emul_suite_init, NULL, NULL);
