/*
 * Benchmark `pagemap`, after Keith Busch's 2018 gup_benchmark runs on
 * device-DAX memory: pin and unpin 512 pages of device memory (four
 * pagemap ranges of 128 pages) in one pin_pages_fast() call, naive (the
 * pagemap looked up, and a reference taken and dropped, for every page)
 * against cached (the last pagemap kept while the pages stay inside it).
 * One CPU; the metric is cycles per call (pin and unpin), with the tree
 * lookups per call that explain it.
 */
#include "bench/bench.h"
#include "errno.h"
#include "mm/devmem.h"
#include "mm/mm.h"
#include "mm/pin.h"
#include "mm/pt.h"

#define PAGEMAP_BENCH_RANGES 4
#define PAGEMAP_BENCH_ORDER 7 /* 128 pages per range */
#define PAGEMAP_BENCH_PAGES (PAGEMAP_BENCH_RANGES << PAGEMAP_BENCH_ORDER)
#define PAGEMAP_BENCH_CALLS 50
#define PAGEMAP_BENCH_BASE 0x40000000ul

struct pagemap_bench {
	struct mm *mm;
	struct devmem dm;
	bool dm_made;
	struct page *pages[PAGEMAP_BENCH_PAGES];
};

static struct pagemap_bench pmb;

static const struct pin_policy pagemap_bench_policy[] = {
	{ &pin_flag_fixed, &pin_pagemap_naive },
	{ &pin_flag_fixed, &pin_pagemap_cached },
};

/* Returns 0 or the first error (-EBUSY: the mm still loaded, or device pages still in use). */
static int pagemap_bench_teardown(struct bench_ctx *c)
{
	int err = 0;

	(void)c;
	if (pmb.mm)
		err = mm_destroy(pmb.mm);
	pmb.mm = NULL;
	/* Device pages the mm still maps are in use: devmem_destroy() refuses them too. */
	if (pmb.dm_made) {
		int e = devmem_destroy(&pmb.dm);

		if (!err)
			err = e;
	}
	pmb.dm_made = false;
	return err;
}

static int pagemap_bench_map(void)
{
	int err = mm_map_region(pmb.mm, PAGEMAP_BENCH_BASE, PAGEMAP_BENCH_PAGES * PT_PAGE_4K,
				MM_READ | MM_WRITE);

	for (u64 i = 0; i < PAGEMAP_BENCH_PAGES && !err; i++)
		err = mm_map_page(pmb.mm, PAGEMAP_BENCH_BASE + i * PT_PAGE_4K,
				  devmem_page(&pmb.dm, i));
	return err;
}

static int pagemap_bench_setup(struct bench_ctx *c)
{
	int err = devmem_create(&pmb.dm, PAGEMAP_BENCH_RANGES, PAGEMAP_BENCH_ORDER);

	pmb.dm_made = !err;
	if (!err)
		err = mm_create(&pmb.mm);
	if (!err)
		err = pagemap_bench_map();
	if (err)
		pagemap_bench_teardown(c); /* the setup error is the one reported */
	c->ops = PAGEMAP_BENCH_CALLS;
	return err;
}

static void pagemap_bench_run(struct bench_ctx *c, unsigned idx)
{
	const struct pin_policy *pol = &pagemap_bench_policy[c->variant];

	(void)idx;
	for (int i = 0; i < PAGEMAP_BENCH_CALLS; i++) {
		int n = pin_pages_fast(pmb.mm, PAGEMAP_BENCH_BASE, PAGEMAP_BENCH_PAGES,
				       PIN_FAST_ONLY, pmb.pages, pol);

		if (n != PAGEMAP_BENCH_PAGES || unpin_pages(pmb.pages, PAGEMAP_BENCH_PAGES)) {
			bench_fail(c, "call %d pinned %d of %d pages", i, n, PAGEMAP_BENCH_PAGES);
			return;
		}
	}
}

/* naive: one lookup and one reference per page; cached: one per range. */
static int pagemap_bench_verify(struct bench_ctx *c)
{
	u64 calls = c->runs_done * c->ops;
	u64 per_call = c->variant == 0 ? PAGEMAP_BENCH_PAGES : PAGEMAP_BENCH_RANGES;
	u64 lookups = c->counter_total[PCPU_PAGEMAP_LOOKUPS];
	u64 refs = c->counter_total[PCPU_PAGEMAP_REFS];

	if (lookups != calls * per_call || refs != calls * per_call) {
		bench_fail(c, "%lu lookups and %lu references for %lu calls, expected %lu per call",
			   (unsigned long)lookups, (unsigned long)refs, (unsigned long)calls,
			   (unsigned long)per_call);
		return -EINVAL;
	}
	for (unsigned r = 0; r < PAGEMAP_BENCH_RANGES; r++)
		if (pmb.dm.pgmap[r].ref) {
			bench_fail(c, "pagemap %u left with %u references", r, pmb.dm.pgmap[r].ref);
			return -EINVAL;
		}
	return 0;
}

static const char *const pagemap_variants[] = { "naive", "cached" };
static const struct bench_case pagemap_cases[] = {
	{ { PAGEMAP_BENCH_PAGES, PAGEMAP_BENCH_RANGES } },
};

const struct bench bench_pagemap = {
	.name = "pagemap",
	.metric_name = "cycles_per_call",
	.variants = pagemap_variants,
	.nvariants = 2,
	.param_names = { "pages", "ranges" },
	.cases = pagemap_cases,
	.ncases = ARRAY_SIZE(pagemap_cases),
	.metric = BENCH_CYCLES_PER_OP,
	.min_cpus = 1,
	.max_cpus = 1,
	.idle_targets = true,
	.iters = 10,
	.warmup = 2,
	.counters = { PCPU_PAGEMAP_LOOKUPS, PCPU_PAGEMAP_REFS },
	.ncounters = 2,
	.setup = pagemap_bench_setup,
	.run = pagemap_bench_run,
	.verify = pagemap_bench_verify,
	.teardown = pagemap_bench_teardown,
};
