/*
 * Benchmark `reclaim`, after Mel Gorman's "mm: send one IPI per CPU to TLB
 * flush all entries after unmapping pages" (Linux 4.3, 2015): readers on
 * the other CPUs keep reading a mapping while the initiator reclaims
 * (swaps out) pages of the same address space in batches of
 * SWAP_CLUSTER_MAX (32) pages, as shrink_page_list() does. Each batch is
 * one swap_out_gather() call through the TLB design's gather (mm/swap/swap.h):
 *   naive:   one shootdown round per page as it is unmapped (the
 *            flush_tlb_page() of try_to_unmap_one() before 4.3)
 *   batched: one round per batch, after its 32 pages were unmapped
 * and the table's other designs as in tlb. A design whose flush completes
 * later (trait completes_later) is left out (runs_design): its flush
 * returns with the invalidations still to come on the readers' CPUs, while
 * swap-out copies each page as soon as the flush returns (mm/swap/swap_mm.c),
 * so a reader could still write a page whose copy is already final; its
 * promises are about an unmap, not a swap-out.
 *
 * Layout: P pages to reclaim (pages=), then the readers' working set
 * (tlb_readers.c: a shared part that stays mapped and a private region per
 * reader), all in one mm loaded on every CPU. Before each run (untimed)
 * the reclaimed range is unmapped (its swap slots freed), mapped and
 * populated again, and every CPU touches it, so each holds its
 * translations, then the readers' baseline window (the initiator halted).
 * The timed run is the initiator's reclaim of the P pages, the readers'
 * timed window around it.
 *
 * Metric: pages reclaimed per second. Beside it, the seed's other
 * figures: the readers' cycles for a fixed amount of work (1000 reads)
 * during the reclaim and in the baseline, IPIs per second, and per page
 * the exact counts. verify checks the design's promises per batch of 32.
 */
#include "bench/bench.h"
#include "bench/tlb_readers.h"
#include "errno.h"
#include "kernel/json.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "mm/mm.h"
#include "mm/pt.h"
#include "mm/swap/swap.h"
#include "mm/tlb/tlb.h"
#include <arch/arch.h>

#define RECLAIM_BATCH 32 /* SWAP_CLUSTER_MAX: pages shrink_page_list() takes at a time */
#define RECLAIM_BASE 0x40000000ul
#define RECLAIM_SHARED 0x44000000ul /* the readers' shared set, never reclaimed */
#define RECLAIM_SHARED_PAGES 32
#define RECLAIM_PRIVATE_BASE 0x48000000ul
#define RECLAIM_PRIVATE_STRIDE 0x00100000ul
#define RECLAIM_PRIVATE_PAGES 32
#define RECLAIM_WINDOW_MIN_US 200
#define RECLAIM_WINDOW_MAX_US 50000
#define RECLAIM_WINDOW_FIRST_US 1000

BUILD_ASSERT(RECLAIM_BATCH <= SWAP_OUT_MAX_PAGES);

struct reclaim_bench {
	struct mm *mm;
	cpumask_t remotes;
	unsigned pages, type;
	bool swap_on, busy, counted;
	u64 last_run_cycles;
};

static struct reclaim_bench rb;

/* A flush that completes later returns before the readers' CPUs invalidate: no final copy. */
static bool reclaim_runs_design(const struct design *d)
{
	return !d->completes_later;
}

static void reclaim_switch_mm(void *arg)
{
	mm_switch(arg);
}

static void reclaim_touch(void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < rb.pages; i++)
		(void)*(volatile u64 *)(RECLAIM_BASE + (vaddr_t)i * PAGE_SIZE);
}

static int reclaim_teardown(struct bench_ctx *c)
{
	int err = 0, e;

	if (rb.busy && tlb_readers_finish(c))
		bench_fail(c, "a reader did not stop");
	rb.busy = false;
	err = smp_call(&rb.remotes, reclaim_switch_mm, NULL, true);
	e = tlb_design_enable(tlb_ops_of(c->design), false);
	err = err ? err : e;
	mm_switch(NULL);
	if (rb.mm) {
		e = mm_destroy(rb.mm);
		err = err ? err : e;
	}
	rb.mm = NULL;
	if (rb.swap_on && swap_off(rb.type)) {
		bench_fail(c, "swap_off failed: slots still in use");
		err = err ? err : -EBUSY;
	}
	rb.swap_on = false;
	return err;
}

/* Where the readers read: the shared set, then each one's own. */
static const struct tlb_readers_layout reclaim_layout = {
	.shared = RECLAIM_SHARED,
	.nshared = RECLAIM_SHARED_PAGES,
	.priv_base = RECLAIM_PRIVATE_BASE,
	.priv_stride = RECLAIM_PRIVATE_STRIDE,
	.npriv = RECLAIM_PRIVATE_PAGES,
};

/* The reclaimed range (its own region), the shared set and each reader's private set. */
static int reclaim_map(const struct bench_ctx *c)
{
	u64 shared_len = RECLAIM_SHARED_PAGES * PAGE_SIZE;
	int err = mm_map_region(rb.mm, RECLAIM_SHARED, shared_len, MM_READ | MM_WRITE);

	if (!err)
		err = mm_populate(rb.mm, RECLAIM_SHARED, shared_len);
	if (!err)
		err = tlb_readers_map_private(c, rb.mm, &reclaim_layout, MM_READ | MM_WRITE);
	if (!err)
		err = mm_map_region(rb.mm, RECLAIM_BASE, (u64)rb.pages * PAGE_SIZE,
				    MM_READ | MM_WRITE);
	return err;
}

static int reclaim_start_readers(const struct bench_ctx *c)
{
	int err = tlb_readers_start(c, &reclaim_layout);

	rb.busy = !err;
	return err;
}

static int reclaim_setup(struct bench_ctx *c)
{
	int err;

	rb.pages = (unsigned)bench_param(c, "pages");
	if (c->episode == 0)
		tlb_readers_sums_reset();
	rb.last_run_cycles = arch_tsc_hz() / 1000000 * RECLAIM_WINDOW_FIRST_US;
	cpumask_clear(&rb.remotes);
	for (unsigned idx = 1; idx < c->ncpus; idx++)
		cpumask_set_cpu(c->cpu[idx], &rb.remotes);
	rb.mm = NULL;
	err = swap_on_ram((u64)rb.pages * 2, &rb.type);
	rb.swap_on = !err;
	if (!err)
		err = tlb_design_enable(tlb_ops_of(c->design), true);
	if (!err)
		err = bench_mm_create(c, &rb.mm);
	if (!err)
		err = reclaim_map(c);
	if (!err)
		err = smp_call(&rb.remotes, reclaim_switch_mm, rb.mm, true);
	if (!err && c->ncpus > 1)
		err = reclaim_start_readers(c);
	if (err) {
		reclaim_teardown(c); /* the setup error is the one reported */
		return err;
	}
	mm_switch(rb.mm);
	c->ops = rb.pages;
	return 0;
}

/* Untimed: the range mapped afresh (the last run's swap slots freed), touched everywhere. */
static int reclaim_prepare(struct bench_ctx *c)
{
	u64 len = (u64)rb.pages * PAGE_SIZE;
	int err = rb.busy ? tlb_readers_sync() : 0;

	rb.counted = c->runs_done >= c->warmup;
	if (!err)
		err = mm_unmap_region(rb.mm, RECLAIM_BASE, len);
	if (!err)
		err = mm_map_region(rb.mm, RECLAIM_BASE, len, MM_READ | MM_WRITE);
	if (!err)
		err = mm_populate(rb.mm, RECLAIM_BASE, len);
	if (!err)
		err = smp_call(&rb.remotes, reclaim_touch, NULL, true);
	reclaim_touch(NULL);
	if (!err && rb.busy)
		err = tlb_readers_baseline(tlb_readers_window_cycles(rb.last_run_cycles,
								   RECLAIM_WINDOW_MIN_US,
								   RECLAIM_WINDOW_MAX_US),
					   rb.counted);
	return err;
}

/* Timed: the P pages swapped out, a batch of 32 per call through the design's gather. */
static void reclaim_run(struct bench_ctx *c, unsigned idx)
{
	const struct tlb_ops *ops = tlb_ops_of(c->design);
	u64 t0 = arch_tsc_read();
	int err = 0;

	(void)idx;
	if (rb.busy)
		tlb_readers_timed_begin(rb.counted);
	for (unsigned p = 0; p < rb.pages && !err; p += RECLAIM_BATCH) {
		struct tlb_batch b;

		tlb_batch_begin(&b, rb.mm, ops);
		err = swap_out_gather(rb.mm, RECLAIM_BASE + (vaddr_t)p * PAGE_SIZE, RECLAIM_BATCH,
				      rb.type, &b.g);
		err = err ? err : b.err;
	}
	if (rb.busy)
		tlb_readers_timed_end();
	rb.last_run_cycles = arch_tsc_read() - t0;
	if (err)
		bench_fail(c, "swap-out failed (%s)", errno_name(err));
}

/*
 * Exact counts: every page swapped out once per run, and the design's
 * promises per batch of RECLAIM_BATCH pages (naive: a round per page and
 * an IPI per page and reader; batched: one round per batch).
 */
static int reclaim_verify(struct bench_ctx *c)
{
	const struct design *d = c->design;
	u64 runs = c->runs_done, batches = rb.pages / RECLAIM_BATCH;
	u64 out = bench_counter_total(c, PCPU_SWAP_OUT_PAGES);
	const struct design_promise *p;

	if (out != runs * rb.pages) {
		bench_fail(c, "%lu pages swapped out in %lu runs; expected %lu",
			   (unsigned long)out, (unsigned long)runs,
			   (unsigned long)(runs * rb.pages));
		return -EINVAL;
	}
	design_for_each_promise(p, d) {
		u64 got = bench_counter_total(c, p->counter);

		if (design_kept(p, got, runs * batches, RECLAIM_BATCH, c->ncpus - 1))
			continue;
		bench_fail(c, "%s promises %s%u %s per %u %s(s) (%lu in %lu batches of %u, "
			   "%u targets)", d->name, p->at_most ? "at most " : "", p->count,
			   percpu_counter_name(p->counter), p->per, d->unit, (unsigned long)got,
			   (unsigned long)(runs * batches), RECLAIM_BATCH, c->ncpus - 1);
		return -EINVAL;
	}
	return 0;
}

static void reclaim_report(const struct bench_ctx *c, struct json *j, u64 median)
{
	const struct tlb_reader_sums *s = tlb_readers_sums(c->variant);
	u64 pages = c->runs_done * rb.pages;
	u64 ipis = bench_counter_total(c, PCPU_IPI_SENT);

	json_u64(j, "batch_pages", RECLAIM_BATCH);
	/* median: pages per second in thousandths; IPIs per page are exact. */
	json_u64(j, "ipis_per_sec", pages ? median / 1000 * ipis / pages : 0);
	json_u64(j, "reader_cycles_per_kread", read_cycles_per_kread(&s->timed));
	json_u64(j, "reader_baseline_cycles_per_kread", read_cycles_per_kread(&s->base));
	json_s64(j, "reader_loss_pct_milli", read_loss_pct_milli(&s->base, &s->timed));
	json_u64(j, "reader_episodes", s->episodes);
}

static const struct bench_case reclaim_cases[] = {
	{ { 256 } },
};

const struct bench bench_reclaim = {
	.name = "reclaim",
	.title = "page reclaim while other CPUs read",
	.exact_metric_name = "instructions_per_page",
	.headline = { { 256 } },
	.metric_name = "pages_reclaimed_per_sec",
	.unit = "pages/s",
	.designs = tlb_designs,
	.runs_design = reclaim_runs_design,
	.param_names = { "pages" },
	.cases = reclaim_cases,
	.ncases = ARRAY_SIZE(reclaim_cases),
	.metric = BENCH_OPS_PER_SEC,
	.min_cpus = 2, /* the workload is readers on other CPUs */
	.idle_targets = true,
	.iters = 10,
	.warmup = 1,
	.counters = BENCH_COUNTERS(PCPU_TLB_SHOOTDOWNS, PCPU_IPI_SENT, PCPU_IPI_RECEIVED,
				   PCPU_TLB_FLUSH_ONE, PCPU_TLB_FLUSH_ALL, PCPU_SWAP_OUT_PAGES),
	.setup = reclaim_setup,
	.prepare = reclaim_prepare,
	.run = reclaim_run,
	.verify = reclaim_verify,
	.report = reclaim_report,
	.teardown = reclaim_teardown,
};
BENCH_REGISTER(bench_reclaim, 27);
