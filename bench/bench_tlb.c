/*
 * Benchmark `tlb`, after Mel Gorman's 2015 change ("send one IPI per CPU
 * to TLB flush all entries after unmapping pages"): unmap P pages of an
 * address space that is live on K CPUs. CPU index 0 unmaps; the other K-1
 * have the address space loaded, its pages in their TLBs, and sit idle
 * (halted, interrupts on) answering shootdowns. Before each run (untimed)
 * the pages are mapped again and touched on every CPU.
 *   naive:   one IPI round per page (mm/tlb.c tlb_ops_naive)
 *   batched: one IPI round per batch, page-by-page invalidation up to the
 *            ceiling and a full flush above it (tlb_ops_batched)
 * Metric: cycles per page; counters per page explain it (IPIs sent and
 * received, invalidations, full flushes, shootdown rounds), and the BENCH
 * line adds the interrupt rate each remote CPU saw while the runs lasted.
 */
#include "bench/bench.h"
#include "errno.h"
#include "kernel/json.h"
#include "kernel/smp.h"
#include "lib/math.h"
#include "mm/mm.h"
#include "mm/pt.h"
#include "mm/tlb.h"
#include <arch/arch.h>

#define TLB_BENCH_BASE 0x40000000ul

struct tlb_bench {
	struct mm *mm;
	cpumask_t remotes;
	unsigned pages;
	int prep_err;
};

static struct tlb_bench tb;
static const struct tlb_ops *const tlb_bench_ops[] = { &tlb_ops_naive, &tlb_ops_batched };

static void switch_to_bench_mm(void *arg)
{
	mm_switch(arg);
}

/* Reads one word of each page, so every CPU holds their translations. */
static void touch_pages(void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < tb.pages; i++)
		(void)*(volatile u64 *)(TLB_BENCH_BASE + (vaddr_t)i * PAGE_SIZE);
}

/* Returns 0 or the first error (a remote CPU that did not switch away keeps the mm: -EBUSY). */
static int tlb_bench_teardown(struct bench_ctx *c)
{
	int err = smp_call(&tb.remotes, switch_to_bench_mm, NULL, true);

	(void)c;
	mm_switch(NULL);
	if (tb.mm) {
		int e = mm_destroy(tb.mm);

		if (!err)
			err = e;
	}
	tb.mm = NULL;
	return err;
}

static int tlb_bench_setup(struct bench_ctx *c)
{
	int err;

	tb.pages = (unsigned)bench_param(c, "pages");
	cpumask_clear(&tb.remotes);
	for (unsigned idx = 1; idx < c->ncpus; idx++)
		cpumask_set_cpu(c->cpu[idx], &tb.remotes);
	err = mm_create(&tb.mm);
	if (!err)
		err = mm_map_region(tb.mm, TLB_BENCH_BASE, (u64)tb.pages * PAGE_SIZE,
				    MM_READ | MM_WRITE);
	if (!err)
		err = smp_call(&tb.remotes, switch_to_bench_mm, tb.mm, true);
	if (err) {
		tlb_bench_teardown(c); /* the setup error is the one reported */
		return err;
	}
	mm_switch(tb.mm);
	c->ops = tb.pages;
	return 0;
}

/* Untimed: map the pages again and load their translations on every CPU. */
static int tlb_bench_prepare(struct bench_ctx *c)
{
	int err = mm_populate(tb.mm, TLB_BENCH_BASE, (u64)tb.pages * PAGE_SIZE);

	(void)c;
	if (!err)
		err = smp_call(&tb.remotes, touch_pages, NULL, true);
	touch_pages(NULL);
	return err;
}

static void tlb_bench_run(struct bench_ctx *c, unsigned idx)
{
	int err = tlb_unmap_pages(tb.mm, TLB_BENCH_BASE, tb.pages, tlb_bench_ops[c->variant]);

	(void)idx;
	if (err)
		bench_fail(c, "unmap failed (%s)", errno_name(err));
}

/* Exact promises: naive one round per page, batched one per batch of PT_GATHER_PAGES. */
static int tlb_bench_verify(struct bench_ctx *c)
{
	u64 runs = c->runs_done, remotes = c->ncpus - 1;
	u64 rounds = c->variant == 0 ? tb.pages : (tb.pages + PT_GATHER_PAGES - 1) / PT_GATHER_PAGES;
	u64 sent = c->counter_total[PCPU_IPI_SENT], shootdowns = c->counter_total[PCPU_TLB_SHOOTDOWNS];

	if (shootdowns != runs * rounds || sent != runs * rounds * remotes) {
		bench_fail(c, "%lu shootdown rounds and %lu IPIs in %lu runs; expected %lu and %lu",
			   (unsigned long)shootdowns, (unsigned long)sent, (unsigned long)runs,
			   (unsigned long)(runs * rounds), (unsigned long)(runs * rounds * remotes));
		return -EINVAL;
	}
	return 0;
}

/* The interrupt rate one remote CPU sees while the unmaps run. */
static void tlb_bench_report(const struct bench_ctx *c, struct json *j, u64 median)
{
	u64 remotes = c->ncpus - 1;
	u64 per_run = c->counter_total[PCPU_IPI_RECEIVED] / MAX(c->runs_done, 1ull);
	u64 run_cycles = MAX(median * tb.pages / 1000, 1ull);

	json_u64(j, "remote_irqs_per_sec",
		 remotes ? mul_div_u64(per_run / remotes, arch_tsc_hz(), run_cycles) : 0);
	json_u64(j, "flush_ceiling", tlb_ceiling());
	json_u64(j, "batch_pages", PT_GATHER_PAGES);
}

static const char *const tlb_variants[] = { "naive", "batched" };
static const struct bench_case tlb_cases[] = {
	{ { 1 } }, { { 8 } }, { { 32 } }, { { 64 } }, { { 512 } },
};

const struct bench bench_tlb = {
	.name = "tlb",
	.metric_name = "cycles_per_page",
	.variants = tlb_variants,
	.nvariants = 2,
	.param_names = { "pages" },
	.cases = tlb_cases,
	.ncases = ARRAY_SIZE(tlb_cases),
	.metric = BENCH_CYCLES_PER_OP,
	.min_cpus = 1,
	.idle_targets = true,
	.iters = 10,
	.warmup = 2,
	.counters = { PCPU_IPI_SENT, PCPU_IPI_RECEIVED, PCPU_TLB_FLUSH_ONE, PCPU_TLB_FLUSH_ALL,
		      PCPU_TLB_SHOOTDOWNS },
	.ncounters = 5,
	.setup = tlb_bench_setup,
	.prepare = tlb_bench_prepare,
	.run = tlb_bench_run,
	.verify = tlb_bench_verify,
	.report = tlb_bench_report,
	.teardown = tlb_bench_teardown,
};
