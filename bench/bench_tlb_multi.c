/*
 * Benchmark `tlbmulti`: K CPUs unmap at once, each its own P pages of one
 * address space all have loaded, so each is initiator and target together,
 * where generation coalescing shows. Each clears under the write lock and
 * flushes with it dropped, as Linux's munmap. Variants: tlb_designs[] less
 * the controls, read by traits; metric: cycles per page.
 */
#include "bench/bench.h"
#include "bench/tlb_deferred.h"
#include "errno.h"
#include "kernel/json.h"
#include "kernel/smp.h"
#include "lib/math.h"
#include "lib/string.h"
#include "mm/mm.h"
#include "mm/pt.h"
#include "mm/tlb/tlb.h"
#include <arch/arch.h>

/*
 * Each range has a guard page after it that is never unmapped, so no table
 * is freed (a design that acknowledges before it flushes may do so
 * throughout). Verify holds every design to its promises per unmap (rounds,
 * IPIs; an at-most promise where a design may skip CPUs) and accounts for
 * every (request, CPU) pair exactly: each CPU that has the mm flushed it
 * (page by page or in full), or settled it without a flush as the design
 * counts it (found itself up to date, skipped by its initiator:
 * tlb_ops.settled). A design whose remotes flush at their drain
 * (remotes_flush_at_drain) runs too, K initiators at once (each CPU's
 * gather flush defers its frames while the others' reaps run): it sends no
 * request, so there is nothing to coalesce; what it is held to here
 * (tm_verify_at_drain()) is what holds with several initiators, where a
 * target's queue can fill between two drains or every deferred batch be
 * taken, and the flush then falls back to one IPI round by design: every
 * (gather, target) pair queued exactly once or covered by a fallback round,
 * one round and one IPI per target per fallback, and the flushes exactly
 * the initiators' own plus each fallback round's. Each run's prepare
 * settles (drains every queue and releases every batch), so fallbacks are
 * rare; the count shows as tlb_shootdowns. Such a design's own exact
 * promises (no fallback) are a lone initiator's, held by the self-tests.
 */

#define TM_BASE 0x60000000ul
/* One level-1 table per CPU: its P pages and the guard page never share one. */
#define TM_STRIDE PT_PAGE_2M
#define TM_MAX_PAGES 256
BUILD_ASSERT(TM_MAX_PAGES <= PT_GATHER_PAGES); /* one gather per unmap (tm_verify()) */

static struct {
	struct mm *mm;
	unsigned pages;
} tm;

/* A completes_later design's settles after timed runs, as tlb counts them. */
static struct tlb_deferred tm_deferred;

static int tm_settle(const struct bench_ctx *c)
{
	return tlb_deferred_settle(&tm_deferred, c, tm.mm);
}

static vaddr_t tm_range(unsigned idx)
{
	return TM_BASE + (vaddr_t)idx * TM_STRIDE;
}

static int tm_teardown(struct bench_ctx *c)
{
	const struct tlb_ops *ops = tlb_ops_of(c->design);
	int err = tm.mm ? tm_settle(c) : 0, e = bench_load_mm(c, NULL);

	if (!err)
		err = e;
	if (tm.mm) {
		e = mm_destroy(tm.mm);
		if (!err)
			err = e;
	}
	tm.mm = NULL;
	e = tlb_design_enable(ops, false);
	return err ? err : e;
}

/* Each CPU's range and its guard page, the guards mapped for good. */
static int tm_setup(struct bench_ctx *c)
{
	int err;

	tm.pages = (unsigned)bench_param(c, "pages");
	if (c->episode == 0) { /* a new case: its variants' sums start again */
		tlb_deferred_reset(&tm_deferred);
	}
	if (tm.pages > TM_MAX_PAGES)
		return -EINVAL;
	err = tlb_design_enable(tlb_ops_of(c->design), true);
	if (err)
		return err;
	err = mm_create(&tm.mm);
	for (unsigned idx = 0; idx < c->ncpus && !err; idx++) {
		vaddr_t r = tm_range(idx);

		err = mm_map_region(tm.mm, r, (u64)(tm.pages + 1) * PAGE_SIZE, MM_READ | MM_WRITE);
		if (!err)
			err = mm_populate(tm.mm, r + (vaddr_t)tm.pages * PAGE_SIZE, PAGE_SIZE);
	}
	if (!err)
		err = bench_load_mm(c, tm.mm);
	if (err) {
		tm_teardown(c); /* the setup error is the one reported */
		return err;
	}
	c->ops = (u64)c->ncpus * tm.pages;
	return 0;
}

/* Untimed: the last unmaps complete (completes_later), then every range mapped again. */
static int tm_prepare(struct bench_ctx *c)
{
	int err = tm_settle(c);

	for (unsigned idx = 0; idx < c->ncpus && !err; idx++)
		err = mm_populate(tm.mm, tm_range(idx), (u64)tm.pages * PAGE_SIZE);
	return err;
}

/* Untimed, on every CPU: cache every CPU's range, so each is a target of every unmap. */
static void tm_prepare_cpu(struct bench_ctx *c, unsigned idx)
{
	(void)idx;
	for (unsigned k = 0; k < c->ncpus; k++)
		for (unsigned i = 0; i < tm.pages; i++)
			(void)*(volatile u64 *)(tm_range(k) + (vaddr_t)i * PAGE_SIZE);
}

/* Timed, on every CPU at once: clear our range under the lock, flush and free without it. */
static void tm_run(struct bench_ctx *c, unsigned idx)
{
	const struct tlb_ops *ops = tlb_ops_of(c->design);
	vaddr_t r = tm_range(idx);
	struct tlb_batch b;
	int err;

	write_lock(&tm.mm->lock);
	tlb_batch_begin(&b, tm.mm, ops);
	err = tlb_batch_unmap(&b, r, tm.pages); /* the one walk every design shares */
	write_unlock(&tm.mm->lock);
	/* The entries are gone and no table is freed: nothing below needs the lock. */
	pt_gather_finish(&b.g);
	if (err || b.g.err)
		bench_fail(c, "CPU %u: unmap failed (%s)", c->cpu[idx],
			   errno_name(err ? err : b.g.err));
}

/* The rounds one unmap of tm.pages sends (the design's promise), and each round's pages. */
static u64 tm_rounds(const struct design *d, u64 *per_round)
{
	const struct design_promise *p = design_promise(d, PCPU_TLB_SHOOTDOWNS);

	*per_round = p ? MIN((u64)p->per, (u64)tm.pages) : tm.pages;
	return p ? design_expect(p, tm.pages, 1) : 1;
}

/*
 * Every (request, CPU with the mm) pair, exactly once (@pairs of them):
 * flushed page by page (@per_round invalidations, at or below the
 * ceiling), flushed in full, or settled without a flush, as the design
 * counts it (tlb_ops.settled: found up to date, skipped). For a design
 * that settles none so, this is its exact flush count too.
 */
static int tm_check_pairs(struct bench_ctx *c, u64 pairs, u64 per_round)
{
	const struct pcpu_counter *const *k = tlb_ops_of(c->design)->settled;
	u64 one = bench_counter_total(c, PCPU_TLB_FLUSH_ONE);
	u64 all = bench_counter_total(c, PCPU_TLB_FLUSH_ALL);
	u64 settled = 0, one_each;

	for (; k && *k; k++)
		settled += bench_counter_total(c, *k);
	one_each = per_round <= tlb_ceiling() ? per_round : 0;
	if (one_each ? one % one_each == 0 : one == 0) {
		u64 got = (one_each ? one / one_each : 0) + all + settled;

		if (got == pairs)
			return 0;
	}
	bench_fail(c, "%lu invlpg (%lu per round), %lu full, %lu settled unflushed: "
		   "not one of each for %lu request x CPU pairs",
		   (unsigned long)one, (unsigned long)one_each, (unsigned long)all,
		   (unsigned long)settled, (unsigned long)pairs);
	return -EINVAL;
}

/*
 * A design whose remotes flush at their drain, every CPU an initiator
 * (above): each of the @gathers gather flushes either queued one entry to
 * each of the @targets other CPUs, or fell back to one IPI round to all of
 * them (after queueing to fewer), as its tlb_ops.queued and .fallbacks
 * count. Its flushes: each initiator's own, and per round every CPU's (the
 * targets, and the initiator once more as the round's local target).
 */
static int tm_verify_at_drain(struct bench_ctx *c, u64 gathers, u64 targets)
{
	const struct tlb_ops *ops = tlb_ops_of(c->design);
	u64 fb, queued, rounds = bench_counter_total(c, PCPU_TLB_SHOOTDOWNS);
	u64 sent = bench_counter_total(c, PCPU_IPI_SENT);
	bool ok;

	if (!ops->queued || !ops->fallbacks) {
		bench_fail(c, "%s flushes remotes at their drain but names no queued or "
			   "fallback counter (struct tlb_ops)", c->design->name);
		return -EINVAL;
	}
	fb = bench_counter_total(c, ops->fallbacks);
	queued = bench_counter_total(c, ops->queued);
	ok = fb <= gathers && rounds == fb && sent == fb * targets;
	ok = ok && queued >= (gathers - fb) * targets &&
	     queued <= (gathers - fb) * targets + fb * (targets - 1);
	if (ok)
		return tm_check_pairs(c, gathers + fb * c->ncpus, tm.pages);
	bench_fail(c, "%s: %lu queued, %lu fallbacks, %lu rounds, %lu IPIs in %lu gathers "
		   "to %lu targets: not one entry per target or one round per fallback",
		   c->design->name, (unsigned long)queued, (unsigned long)fb,
		   (unsigned long)rounds, (unsigned long)sent, (unsigned long)gathers,
		   (unsigned long)targets);
	return -EINVAL;
}

static int tm_verify(struct bench_ctx *c)
{
	const struct design *d = c->design;
	u64 unmaps = c->runs_done * c->ncpus, per_round;
	u64 requests = unmaps * tm_rounds(d, &per_round);
	const struct design_promise *p;

	if (d->remotes_flush_at_drain) /* one gather per unmap (tm.pages <= PT_GATHER_PAGES) */
		return tm_verify_at_drain(c, unmaps, c->ncpus - 1);
	design_for_each_promise(p, d) {
		u64 got = bench_counter_total(c, p->counter);

		if (design_kept(p, got, unmaps, tm.pages, c->ncpus - 1))
			continue;
		bench_fail(c, "%s promises %s%u %s per %u pages%s: %lu in %lu unmaps of %u",
			   d->name, p->at_most ? "at most " : "", p->count,
			   percpu_counter_name(p->counter), p->per,
			   p->per_target ? " per target" : "", (unsigned long)got,
			   (unsigned long)unmaps, tm.pages);
		return -EINVAL;
	}
	return tm_check_pairs(c, requests * c->ncpus, per_round);
}

/* A completes_later design's deferred release and wait, per page of every CPU, as tlb's. */
static void tm_report(const struct bench_ctx *c, struct json *j, u64 median)
{
	(void)median;
	tlb_deferred_report(&tm_deferred, c, j, c->ops);
}

static const struct bench_case tm_cases[] = {
	{ { 1 } }, { { 8 } }, { { 32 } }, { { 64 } },
};

const struct bench bench_tlbmulti = {
	.name = "tlbmulti",
	.title = "unmap cost per page, every CPU unmapping at once",
	.exact_metric_name = "instructions_per_page",
	.headline = { { 32 } },
	.metric_name = "cycles_per_page",
	.designs = tlb_designs,
	.param_names = { "pages" },
	.cases = tm_cases,
	.ncases = ARRAY_SIZE(tm_cases),
	.metric = BENCH_CYCLES_PER_OP,
	.min_cpus = 2,
	.iters = 10,
	.warmup = 2,
	/* And each design's own (design.counters): bench_counters(). */
	.counters = BENCH_COUNTERS(PCPU_IPI_SENT, PCPU_TLB_SHOOTDOWNS, PCPU_TLB_FLUSH_ONE,
				   PCPU_TLB_FLUSH_ALL),
	.setup = tm_setup,
	.prepare = tm_prepare,
	.prepare_cpu = tm_prepare_cpu,
	.run = tm_run,
	.verify = tm_verify,
	.report = tm_report,
	.teardown = tm_teardown,
};
BENCH_REGISTER(bench_tlbmulti, 25);
