/*
 * Self-tests of TLB shootdown (mm/tlb/tlb.c), one suite per design of
 * tlb_designs[] (tlb_<design>): exact IPI and invalidation counts, no IPI
 * outside mm_cpumask, frames freed only after the flush that covers them,
 * no stale translation on a CPU that switched away, and a silent CPU
 * written off with its frames quarantined. A design that queues is held to
 * the same with its own counts. Kernel only (stale reads: test_tlb_stale.c).
 */
/* build: kernel only */
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "mm/quarantine.h"
#include "mm/tlb/tlb.h"
#include "mm/tlb/designs/lazy.h"
#include "tests/cpu_hold.h"
#include "tests/ktest.h"
#include <arch/arch.h>

#define TLB_BASE 0x50000000ul
#define TLB_MAX_PAGES 64
#define POISON 0xdeadbeefdeadbeefull
#define GOOD(i) (0x600d000000000000ull | (i))

static struct mm *tmm;

static const struct tlb_ops *ops_of(struct ktest *t)
{
	return tlb_ops_of(ktest_design(t));
}

/* The design's rounds promise: one round per this many pages (every real design makes it). */
static const struct design_promise *rounds_promise(struct ktest *t)
{
	static const struct design_promise none = PROMISE(PCPU_TLB_SHOOTDOWNS, 0, 1);
	const struct design_promise *p = design_promise(&ops_of(t)->d, PCPU_TLB_SHOOTDOWNS);

	KEXPECT(t, p != NULL);
	return p ? p : &none;
}

static void switch_to(void *mm)
{
	mm_switch(mm);
}

static void touch(void *arg)
{
	unsigned n = (unsigned)(uintptr_t)arg;

	for (unsigned i = 0; i < n; i++)
		(void)*(volatile u64 *)(TLB_BASE + (vaddr_t)i * PAGE_SIZE);
}

/* The design's queue-entry promise: only a design that queues (lazy) makes one. */
static const struct design_promise *queued_promise(struct ktest *t)
{
	return design_promise(&ops_of(t)->d, PCPU_TLB_LAZY_QUEUED);
}

static int tlb_suite_init(struct ktest *t)
{
	int err = tlb_design_enable(ops_of(t), true);

	if (err)
		return err;
	if (mm_create(&tmm))
		return -ENOMEM;
	return mm_map_region(tmm, TLB_BASE, TLB_MAX_PAGES * PAGE_SIZE, MM_READ | MM_WRITE);
}

static void tlb_suite_exit(struct ktest *t)
{
	KEXPECT_EQ(t, tlb_settle(ops_of(t), tmm), 0);
	KEXPECT_EQ(t, tlb_design_enable(ops_of(t), false), 0);
	smp_call_others(switch_to, NULL, true);
	mm_switch(NULL);
	KEXPECT_EQ(t, mm_destroy(tmm), 0);
}

/* @mask CPUs (and this one) load the mm and touch @n pages. */
static bool load_on(struct ktest *t, const cpumask_t *mask, unsigned n)
{
	/* The range is mapped again: only once what an earlier unmap deferred is done. */
	if (!KEXPECT_EQ(t, tlb_settle(ops_of(t), tmm), 0))
		return false;
	if (!KEXPECT_EQ(t, mm_populate(tmm, TLB_BASE, (u64)n * PAGE_SIZE), 0))
		return false;
	mm_switch(tmm);
	touch((void *)(uintptr_t)n);
	return KEXPECT_EQ(t, smp_call(mask, switch_to, tmm, true), 0) &&
	       KEXPECT_EQ(t, smp_call(mask, touch, (void *)(uintptr_t)n, true), 0);
}

static void others(cpumask_t *m)
{
	cpumask_copy(m, &cpu_online_mask);
	cpumask_clear_cpu(this_cpu()->cpu_id, m);
}

/* The frames mapped at the first @n pages of the test region (none: NULL). */
static void frames_of(struct page **frames, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		paddr_t pa = 0;

		frames[i] = NULL;
		if (!pt_lookup(tmm->root, TLB_BASE + (vaddr_t)i * PAGE_SIZE, &pa, NULL, NULL))
			frames[i] = phys_to_page(pa);
	}
}

static u64 sum(const struct pcpu_counter *c)
{
	return percpu_counter_sum(c);
}

/*
 * A queuing design's exact counts: no round and no IPI; one entry per
 * gather per remote; the initiator's own flush at once (page by page up to
 * the ceiling); the remotes' the same once drained (tlb_settle()).
 */
static void check_counts_queued(struct ktest *t, unsigned n)
{
	const struct tlb_ops *ops = ops_of(t);
	u64 remotes = ncpus_online - 1, groups = design_expect(queued_promise(t), n, 1);
	bool by_page = (n < queued_promise(t)->per ? n : queued_promise(t)->per) <= tlb_ceiling();
	u64 one = by_page ? n : 0, all = by_page ? 0 : groups;
	u64 c[7];
	static const struct pcpu_counter *const k[7] = {
		PCPU_TLB_SHOOTDOWNS,	 PCPU_IPI_SENT,		  PCPU_TLB_LAZY_QUEUED,
		PCPU_TLB_FLUSH_ONE,	 PCPU_TLB_FLUSH_ALL,	  PCPU_TLB_LAZY_DRAIN_ONE,
		PCPU_TLB_LAZY_DRAIN_ALL,
	};
	cpumask_t m;

	others(&m);
	if (!load_on(t, &m, n))
		return;
	for (unsigned i = 0; i < 7; i++)
		c[i] = sum(k[i]);
	KASSERT_EQ(t, tlb_unmap_pages(tmm, TLB_BASE, n, ops), 0);
	KEXPECT_EQ(t, sum(PCPU_TLB_SHOOTDOWNS) - c[0], 0);
	KEXPECT_EQ(t, sum(PCPU_IPI_SENT) - c[1], 0);
	KEXPECT_EQ(t, sum(PCPU_TLB_LAZY_QUEUED) - c[2], groups * remotes);
	KEXPECT_EQ(t, sum(PCPU_TLB_FLUSH_ONE) - c[3], one);
	KEXPECT_EQ(t, sum(PCPU_TLB_FLUSH_ALL) - c[4], all);
	KEXPECT_EQ(t, tlb_settle(ops, tmm), 0);
	KEXPECT_EQ(t, sum(PCPU_TLB_LAZY_DRAIN_ONE) - c[5], one * remotes);
	KEXPECT_EQ(t, sum(PCPU_TLB_LAZY_DRAIN_ALL) - c[6], all * remotes);
	KEXPECT_EQ(t, sum(PCPU_IPI_SENT) - c[1], 0);
}

/* Exact promises: rounds, IPIs and what each remote CPU invalidates. */
static void check_counts(struct ktest *t, unsigned n)
{
	const struct tlb_ops *ops = ops_of(t);
	unsigned remotes = ncpus_online - 1;
	u64 rounds = design_expect(rounds_promise(t), n, 0);
	u64 sent = percpu_counter_sum(PCPU_IPI_SENT), sd = percpu_counter_sum(PCPU_TLB_SHOOTDOWNS);
	u64 one = percpu_counter_sum(PCPU_TLB_FLUSH_ONE);
	u64 all = percpu_counter_sum(PCPU_TLB_FLUSH_ALL);
	cpumask_t m;

	if (queued_promise(t)) {
		check_counts_queued(t, n);
		return;
	}
	others(&m);
	if (!load_on(t, &m, n))
		return;
	sent = percpu_counter_sum(PCPU_IPI_SENT);
	sd = percpu_counter_sum(PCPU_TLB_SHOOTDOWNS);
	one = percpu_counter_sum(PCPU_TLB_FLUSH_ONE);
	all = percpu_counter_sum(PCPU_TLB_FLUSH_ALL);
	KASSERT_EQ(t, tlb_unmap_pages(tmm, TLB_BASE, n, ops), 0);
	KEXPECT_EQ(t, percpu_counter_sum(PCPU_TLB_SHOOTDOWNS) - sd, rounds);
	KEXPECT_EQ(t, percpu_counter_sum(PCPU_IPI_SENT) - sent, (u64)rounds * remotes);
	/* Each round of at most the promise's pages: page by page up to the ceiling. */
	if ((n < rounds_promise(t)->per ? n : rounds_promise(t)->per) <= tlb_ceiling()) {
		KEXPECT_EQ(t, percpu_counter_sum(PCPU_TLB_FLUSH_ONE) - one, (u64)n * ncpus_online);
		KEXPECT_EQ(t, percpu_counter_sum(PCPU_TLB_FLUSH_ALL) - all, 0);
	} else {
		KEXPECT_EQ(t, percpu_counter_sum(PCPU_TLB_FLUSH_ONE) - one, 0);
		KEXPECT_EQ(t, percpu_counter_sum(PCPU_TLB_FLUSH_ALL) - all, rounds * ncpus_online);
	}
}

static void test_tlb_counts_small(struct ktest *t)
{
	check_counts(t, 8);
}

static void test_tlb_counts_above_ceiling(struct ktest *t)
{
	check_counts(t, TLB_MAX_PAGES);
}

/* tlb_ceiling= moves the knee: 1 makes a batch of 8 a full flush, 512 keeps 64 page by page. */
static void test_tlb_counts_ceiling_option(struct ktest *t)
{
	unsigned saved = tlb_ceiling();

	tlb_set_ceiling(1);
	KEXPECT_EQ(t, tlb_ceiling(), 1);
	check_counts(t, 8);
	tlb_set_ceiling(512);
	check_counts(t, TLB_MAX_PAGES);
	tlb_set_ceiling(saved);
}

/* Only CPUs with the mm loaded are interrupted. */
static void test_tlb_only_mask_interrupted(struct ktest *t)
{
	cpumask_t one;
	unsigned outsider;
	u64 before;

	if (ncpus_online < 3) {
		ktest_skip(t, "needs 3 CPUs");
		return;
	}
	smp_call_others(switch_to, NULL, true);
	outsider = ncpus_online - 1;
	cpumask_clear(&one);
	cpumask_set_cpu(1, &one);
	if (!load_on(t, &one, 4))
		return;
	KEXPECT(t, !cpumask_test_cpu(outsider, mm_cpumask(tmm)));
	before = percpu_counter_read(outsider, PCPU_IPI_RECEIVED);
	KEXPECT_EQ(t, tlb_unmap_pages(tmm, TLB_BASE, 4, ops_of(t)), 0);
	KEXPECT_EQ(t, percpu_counter_read(outsider, PCPU_IPI_RECEIVED), before);
}

/* What the order check saw: frames flushed and released so far, and violations. */
static struct {
	pt_flush_fn *flush;	/* the gather's own flush and release, wrapped */
	pt_page_fn *release;
	unsigned flushed;	/* frames whose flush has completed */
	unsigned released;
	unsigned early;		/* frames released before their flush completed */
	unsigned freed_in_flush; /* frames already freed when their flush began */
	unsigned remote_missed;	/* flush rounds that returned before CPU 1 flushed */
} ord;

static u64 remote_flushes(void)
{
	return percpu_counter_read(1, PCPU_TLB_FLUSH_ONE) +
	       percpu_counter_read(1, PCPU_TLB_FLUSH_ALL);
}

static void ord_flush(struct pt_gather *g)
{
	u64 before = remote_flushes();

	for (unsigned i = 0; i < g->nr_pages; i++) {
		struct page *p = pt_gather_page_at(g, i);

		if (page_test_flags(p, PG_FREED) || page_ref_count(p) == 0)
			ord.freed_in_flush++;
	}
	ord.flush(g);
	if (remote_flushes() == before)
		ord.remote_missed++;
	ord.flushed += g->nr_pages;
}

static void ord_release(struct pt_gather *g, struct page **pages, unsigned n)
{
	if (ord.released + n > ord.flushed)
		ord.early++;
	ord.released += n;
	ord.release(g, pages, n);
}

/* Every one of @frames free again (or, @held, none: each still allocated and referenced). */
static void expect_frames(struct ktest *t, struct page **frames, unsigned n, bool held)
{
	for (unsigned i = 0; i < n; i++) {
		bool freed = frames[i] && (page_test_flags(frames[i], PG_FREED) ||
					   page_test_flags(frames[i], PG_PCP));

		KEXPECT(t, frames[i] && freed == !held);
		if (held)
			KEXPECT(t, frames[i] && page_ref_count(frames[i]) >= 1);
	}
}

/*
 * A queuing design's version: with the targets' ticks paused, nothing
 * drains, so after the unmap returned every frame must still be held (the
 * allocator's free count has not moved); once the ticks drain,
 * tlb_settle() gives them all back.
 */
static void free_after_drain(struct ktest *t)
{
	enum { N = 4 };
	struct page *frames[N];
	struct pmm_stats p0, p1;
	cpumask_t m;

	others(&m);
	if (!load_on(t, &m, N))
		return;
	frames_of(frames, N);
	tlb_lazy_pause_ticks(true);
	pmm_stats_get(&p0);
	KEXPECT_EQ(t, tlb_unmap_pages(tmm, TLB_BASE, N, ops_of(t)), 0);
	pmm_stats_get(&p1);
	KEXPECT_EQ(t, p1.free, p0.free);
	expect_frames(t, frames, N, true);
	tlb_lazy_pause_ticks(false);
	KEXPECT_EQ(t, tlb_settle(ops_of(t), tmm), 0);
	expect_frames(t, frames, N, false);
}

/*
 * Frames go back to the allocator only after the flush that covers them
 * has completed on every CPU: the gather's flush and release are wrapped
 * to check, at each release, that a completed flush (CPU 1's counters
 * moved) already covered that frame, and that no frame was freed when its
 * flush began; at the end every frame is free.
 */
static void test_tlb_free_after_flush(struct ktest *t)
{
	enum { N = 4 };
	struct page *frames[N];
	struct tlb_batch b;
	cpumask_t m;

	if (!ktest_need_second_cpu(t))
		return;
	if (queued_promise(t)) {
		free_after_drain(t);
		return;
	}
	others(&m);
	if (!load_on(t, &m, N))
		return;
	frames_of(frames, N);
	ord = (typeof(ord)){ 0 };
	write_lock(&tmm->lock);
	tlb_batch_begin(&b, tmm, ops_of(t));
	ord.flush = b.g.flush;
	ord.release = b.g.release;
	b.g.flush = ord_flush;
	b.g.release = ord_release;
	KEXPECT_EQ(t, tlb_batch_unmap(&b, TLB_BASE, N), 0);
	/* A round goes when the next page does not fit: all but the last before the finish. */
	KEXPECT_EQ(t, b.g.flushes, design_expect(rounds_promise(t), N, 0) - 1);
	pt_gather_finish(&b.g);
	write_unlock(&tmm->lock);
	KEXPECT_EQ(t, b.g.err, 0);
	KEXPECT_EQ(t, ord.released, N);
	KEXPECT_EQ(t, ord.flushed, N);
	KEXPECT_EQ(t, ord.early, 0);
	KEXPECT_EQ(t, ord.freed_in_flush, 0);
	KEXPECT_EQ(t, ord.remote_missed, 0);
	expect_frames(t, frames, N, false);
}

static u64 lazy_seen;

static void lazy_read_page0(void *arg)
{
	(void)arg;
	mm_switch(tmm);
	lazy_seen = *(volatile u64 *)TLB_BASE;
	mm_switch(NULL);
}

/* A CPU that switched away is skipped, and must not see the old frame when it comes back. */
static void test_tlb_lazy_cpu(struct ktest *t)
{
	cpumask_t one;
	struct page *old;
	paddr_t pa;

	if (!ktest_need_second_cpu(t))
		return;
	cpumask_clear(&one);
	cpumask_set_cpu(1, &one);
	if (!load_on(t, &one, 1))
		return;
	*(volatile u64 *)TLB_BASE = GOOD(0);
	KASSERT_EQ(t, smp_call(&one, switch_to, NULL, true), 0); /* CPU 1 in idle lazy mode */
	KASSERT_EQ(t, pt_lookup(tmm->root, TLB_BASE, &pa, NULL, NULL), 0);
	old = phys_to_page(pa);
	page_ref_inc(old); /* keep the frame to poison it */
	KASSERT_EQ(t, tlb_unmap_pages(tmm, TLB_BASE, 1, ops_of(t)), 0);
	*(volatile u64 *)page_address(old) = POISON;
	KASSERT_EQ(t, smp_call(&one, lazy_read_page0, NULL, true), 0);
	KEXPECT_NE(t, lazy_seen, POISON); /* a fresh zero page, not the old frame */
	KEXPECT_EQ(t, lazy_seen, 0);
	if (page_ref_dec_and_test(old))
		page_free(old, 0);
}

/* CPU 1 sits with interrupts off once this returns 0; *@ipis: its IPI count then. */
static int hold_cpu1(u64 *ipis)
{
	int err;

	err = cpu_hold(1);
	if (err)
		return err;
	*ipis = percpu_counter_read(1, PCPU_IPI_RECEIVED);
	return 0;
}

/* Lets CPU 1 go, waits for it to take the IPI it missed, and puts it back in the run. */
static void release_cpu1(struct ktest *t, u64 ipis)
{
	cpumask_t one;

	KEXPECT(t, cpu_hold_release());
	while (percpu_counter_read(1, PCPU_IPI_RECEIVED) == ipis)
		arch_cpu_relax();
	KEXPECT_EQ(t, smp_cpu_revive(1), 0);
	/* It never flushed: switching away drops what it cached (tlb_gen moved on). */
	cpumask_clear(&one);
	cpumask_set_cpu(1, &one);
	KEXPECT_EQ(t, smp_call(&one, switch_to, NULL, true), 0);
}

/* Lets CPU 1 go (it missed its drain, not a call), back in the run, and switches it away. */
static void release_cpu1_queued(struct ktest *t)
{
	cpumask_t one;

	KEXPECT(t, cpu_hold_release());
	KEXPECT_EQ(t, smp_cpu_revive(1), 0);
	cpumask_clear(&one);
	cpumask_set_cpu(1, &one);
	KEXPECT_EQ(t, smp_call(&one, switch_to, NULL, true), 0);
}

/*
 * A CPU that holds the mm and does not answer: the unmap returns
 * -ETIMEDOUT, the CPU is out of the run, and the frames (and any emptied
 * table) are quarantined, not freed: the allocator's free count does not
 * move and each frame keeps its reference. CPU 1 is held from its idle
 * loop (task context), so no call function calls smp_call().
 */
static void test_tlb_timeout_quarantines(struct ktest *t)
{
	enum { N = 4 };
	unsigned saved = smp_timeout_ms();
	struct quarantine_stats q0, q1;
	struct pmm_stats p0, p1;
	struct page *frames[N];
	cpumask_t one;
	u64 ipis = 0;
	int err;

	if (!ktest_need_second_cpu(t))
		return;
	cpumask_clear(&one);
	cpumask_set_cpu(1, &one);
	if (!load_on(t, &one, N))
		return;
	frames_of(frames, N);
	KASSERT_EQ(t, hold_cpu1(&ipis), 0);
	quarantine_stats_get(&q0);
	pmm_stats_get(&p0);
	smp_set_timeout_ms(50);
	err = tlb_unmap_pages(tmm, TLB_BASE, N, ops_of(t));
	/* A queuing design sends nothing: the wait is its settle's, for CPU 1's drain. */
	if (queued_promise(t) && KEXPECT_EQ(t, err, 0))
		err = tlb_settle(ops_of(t), tmm);
	smp_set_timeout_ms(saved);
	pmm_stats_get(&p1);
	quarantine_stats_get(&q1);
	KEXPECT_EQ(t, err, -ETIMEDOUT);
	KEXPECT_EQ(t, q1.frames - q0.frames, N);
	KEXPECT_EQ(t, p1.free, p0.free);
	expect_frames(t, frames, N, true);
	if (queued_promise(t)) {
		/*
		 * One deferred batch given up; CPU 1 missed its drain: out of
		 * the run, as for a call.
		 */
		KEXPECT_EQ(t, q1.flushes - q0.flushes, 1);
		KEXPECT(t, smp_cpu_dead(1));
		release_cpu1_queued(t);
		return;
	}
	KEXPECT(t, smp_cpu_dead(1));
	KEXPECT_EQ(t, q1.flushes - q0.flushes, design_expect(rounds_promise(t), N, 0));
	release_cpu1(t, ipis);
}

/* A design that sends rounds queues nothing: @n one-page unmaps are @n rounds, no fallback. */
static void queue_none_for_rounds(struct ktest *t, unsigned n)
{
	u64 q, f, sd;
	cpumask_t m;

	others(&m);
	if (!load_on(t, &m, n))
		return;
	q = sum(PCPU_TLB_LAZY_QUEUED);
	f = sum(PCPU_TLB_LAZY_FALLBACKS);
	sd = sum(PCPU_TLB_SHOOTDOWNS);
	for (unsigned i = 0; i < n; i++)
		KEXPECT_EQ(t, tlb_unmap_pages(tmm, TLB_BASE + i * PAGE_SIZE, 1, ops_of(t)), 0);
	KEXPECT_EQ(t, sum(PCPU_TLB_LAZY_QUEUED) - q, 0);
	KEXPECT_EQ(t, sum(PCPU_TLB_LAZY_FALLBACKS) - f, 0);
	KEXPECT_EQ(t, sum(PCPU_TLB_SHOOTDOWNS) - sd, n * design_expect(rounds_promise(t), 1, 0));
}

/*
 * A queuing design with a queue full (its ticks paused, so nothing drains
 * but a switch): the flush after TLB_LAZY_QUEUE_MAX queued ones falls back
 * to one IPI round, counted, whose targets drain their whole queue. The
 * other designs, over the same unmaps, queue nothing and fall back never.
 */
static void test_tlb_queue_full_falls_back(struct ktest *t)
{
	const unsigned n = TLB_LAZY_QUEUE_MAX + 1;
	u64 remotes = ncpus_online - 1, q, d, f, sent, sd;
	cpumask_t m;

	if (!ktest_need_second_cpu(t))
		return;
	if (!queued_promise(t)) {
		queue_none_for_rounds(t, n);
		return;
	}
	BUILD_ASSERT(TLB_LAZY_QUEUE_MAX + 1 <= TLB_MAX_PAGES);
	others(&m);
	if (!load_on(t, &m, n))
		return;
	tlb_lazy_pause_ticks(true);
	q = sum(PCPU_TLB_LAZY_QUEUED), d = sum(PCPU_TLB_LAZY_DRAINED);
	f = sum(PCPU_TLB_LAZY_FALLBACKS), sent = sum(PCPU_IPI_SENT), sd = sum(PCPU_TLB_SHOOTDOWNS);
	for (unsigned i = 0; i < n; i++)
		KEXPECT_EQ(t, tlb_unmap_pages(tmm, TLB_BASE + i * PAGE_SIZE, 1, ops_of(t)), 0);
	KEXPECT_EQ(t, sum(PCPU_TLB_LAZY_QUEUED) - q, (n - 1) * remotes);
	KEXPECT_EQ(t, sum(PCPU_TLB_LAZY_FALLBACKS) - f, 1);
	KEXPECT_EQ(t, sum(PCPU_TLB_SHOOTDOWNS) - sd, 1);
	KEXPECT_EQ(t, sum(PCPU_IPI_SENT) - sent, remotes);
	/* The round's targets drained everything queued before it, with no tick. */
	KEXPECT_EQ(t, sum(PCPU_TLB_LAZY_DRAINED) - d, (n - 1) * remotes);
	tlb_lazy_pause_ticks(false);
	KEXPECT_EQ(t, tlb_settle(ops_of(t), tmm), 0);
}

/*
 * The traits the benchmarks read agree with the hooks: a design whose
 * work completes after the call has a settle, one with a settle but
 * complete on return keeps frames past the call in its own gather flush,
 * and remotes that flush at their drains are a deferred completion too.
 */
static void test_tlb_traits_match_hooks(struct ktest *t)
{
	const struct tlb_ops *ops = ops_of(t);

	KEXPECT(t, !ops->d.completes_later || ops->settle);
	KEXPECT(t, ops->d.completes_later || !ops->settle || ops->gather_flush);
	KEXPECT(t, !ops->d.remotes_flush_at_drain || ops->d.completes_later);
	KEXPECT(t, !ops->d.counts_ranges); /* a TLB design counts per page */
}

static const struct ktest_case tlb_cases[] = {
	KTEST_CASE(test_tlb_traits_match_hooks),
	KTEST_CASE(test_tlb_counts_small),
	KTEST_CASE(test_tlb_counts_above_ceiling),
	KTEST_CASE(test_tlb_counts_ceiling_option),
	KTEST_CASE(test_tlb_only_mask_interrupted),
	KTEST_CASE(test_tlb_free_after_flush),
	KTEST_CASE(test_tlb_lazy_cpu),
	KTEST_CASE(test_tlb_timeout_quarantines),
	KTEST_CASE(test_tlb_queue_full_falls_back),
};
KTEST_SUITE_DESIGNS(tlb, tlb_cases, tlb_suite_init, tlb_suite_exit, tlb_designs);
