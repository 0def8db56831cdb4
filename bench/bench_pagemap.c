/*
 * Benchmark `pagemap`, after Keith Busch's 2018 gup_benchmark on device-DAX
 * memory: each of K CPUs pins the same device pages, a range at a time,
 * then unpins them. Pinning takes a reference on each page's pagemap, which
 * every pinner shares; the designs of pin_pagemap_designs[] differ in how
 * often they look it up. The metric is the pin phase per round (the
 * slowest CPU's), unpin a second phase; tree lookups per call explain it.
 */
#include "bench/bench.h"
#include "errno.h"
#include "kernel/json.h"
#include "kernel/timing.h"
#include "lib/string.h"
#include "mm/devmem.h"
#include "mm/mm.h"
#include "mm/pin/pin.h"
#include "mm/pmm.h"
#include "mm/pt.h"

#define PAGEMAP_BENCH_RANGES 4
#define PAGEMAP_BENCH_ORDER 7 /* 128 pages per range */
#define PAGEMAP_BENCH_PAGES (PAGEMAP_BENCH_RANGES << PAGEMAP_BENCH_ORDER)
#define PAGEMAP_BENCH_CALLS 50
#define PAGEMAP_BENCH_BASE 0x40000000ul

/* One frame of page pointers per CPU: every call of a round pins the same pages. */
BUILD_ASSERT(PAGEMAP_BENCH_PAGES * sizeof(struct page *) <= PAGE_SIZE);

struct pagemap_bench {
	struct mm *mm;
	struct devmem dm;
	bool dm_made;
	struct page *array_block[MAX_CPUS];
};

static struct pagemap_bench pmb;


static struct page **pages_of(unsigned idx)
{
	return page_address(pmb.array_block[idx]);
}

/* Returns 0 or the first error (-EBUSY: the mm still loaded, or device pages still in use). */
static int pagemap_bench_teardown(struct bench_ctx *c)
{
	int err = bench_load_mm(c, NULL);

	for (unsigned idx = 0; idx < c->ncpus; idx++) {
		if (pmb.array_block[idx])
			page_free(pmb.array_block[idx], 0);
		pmb.array_block[idx] = NULL;
	}
	if (pmb.mm) {
		int e = mm_destroy(pmb.mm);

		if (!err)
			err = e;
	}
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
	if (!err)
		err = bench_load_mm(c, pmb.mm);
	for (unsigned idx = 0; idx < c->ncpus && !err; idx++) {
		pmb.array_block[idx] = page_alloc(0, 0);
		if (!pmb.array_block[idx])
			err = -ENOMEM;
	}
	if (err)
		pagemap_bench_teardown(c); /* the setup error is the one reported */
	/* One operation is one pin_pages_fast() call of 512 pages, over every CPU. */
	c->ops = (u64)c->ncpus * PAGEMAP_BENCH_CALLS;
	return err;
}

/* Pin phase: every call pins the whole range again, stacking pins on the same pages. */
static void pagemap_bench_pin(struct bench_ctx *c, unsigned idx)
{
	/* The pagemap design under test; the flag choice is the default's (fixed). */
	const struct pin_policy pol = { pin_policy_default.flag, pin_pagemap_ops_of(c->design) };

	for (int i = 0; i < PAGEMAP_BENCH_CALLS; i++) {
		int n = pin_pages_fast(pmb.mm, PAGEMAP_BENCH_BASE, PAGEMAP_BENCH_PAGES,
				       PIN_FAST_ONLY, pages_of(idx), &pol);

		if (n != PAGEMAP_BENCH_PAGES) {
			bench_fail(c, "CPU %u: call %d pinned %d of %d pages", c->cpu[idx], i, n,
				   PAGEMAP_BENCH_PAGES);
			return;
		}
		timing_yield(); /* the other pinning CPUs take their turn (exact mode) */
	}
}

/* Unpin phase: drops the pins the pin phase took, call by call. */
static void pagemap_bench_unpin(struct bench_ctx *c, unsigned idx)
{
	if (c->error)
		return;
	for (int i = 0; i < PAGEMAP_BENCH_CALLS; i++) {
		if (unpin_pages(pages_of(idx), PAGEMAP_BENCH_PAGES)) {
			bench_fail(c, "CPU %u: unpin %d found a page not pinned", c->cpu[idx], i);
			return;
		}
		timing_yield();
	}
}

/* What one call covers in the design's unit: its pages, or the pagemap ranges they cross. */
static u64 pagemap_units_per_call(const struct design *d)
{
	return d->counts_ranges ? PAGEMAP_BENCH_RANGES : PAGEMAP_BENCH_PAGES;
}

/* The design's lookups and references per call (per page or per range); none left after. */
static int pagemap_bench_verify(struct bench_ctx *c)
{
	if (bench_check_promises(c, c->ops * pagemap_units_per_call(c->design), 0))
		return -EINVAL;
	if (pin_bench_check_lockless(c))
		return -EINVAL;
	for (unsigned r = 0; r < PAGEMAP_BENCH_RANGES; r++)
		if (pmb.dm.pgmap[r].ref) {
			bench_fail(c, "pagemap %u left with %u references", r, pmb.dm.pgmap[r].ref);
			return -EINVAL;
		}
	for (u64 i = 0; i < PAGEMAP_BENCH_PAGES; i++)
		if (page_maybe_pinned(devmem_page(&pmb.dm, i))) {
			bench_fail(c, "device page %lu still pinned after the runs",
				   (unsigned long)i);
			return -EINVAL;
		}
	return 0;
}

/* The pin phase per pinned page (@median: ns per round of CALLS calls on each CPU). */
static void pagemap_bench_report(const struct bench_ctx *c, struct json *j, u64 median)
{
	(void)c;
	json_fixed(j, "pin_ns_per_page",
		   (s64)(median * 1000 / (PAGEMAP_BENCH_CALLS * PAGEMAP_BENCH_PAGES)), 3);
	json_u64(j, "calls_per_round", PAGEMAP_BENCH_CALLS);
}

static const struct bench_case pagemap_cases[] = {
	{ { PAGEMAP_BENCH_PAGES, PAGEMAP_BENCH_RANGES } },
};

const struct bench bench_pagemap = {
	.name = "pagemap",
	.title = "device-memory pin cost per round",
	.exact_metric_name = "pin_instructions_per_round",
	.exact_phase2_name = "unpin_instructions_per_round",
	.headline = { { PAGEMAP_BENCH_PAGES, PAGEMAP_BENCH_RANGES } },
	.metric_name = "pin_us_per_round",
	.unit = "us",
	.designs = pin_pagemap_designs,
	.param_names = { "pages", "ranges" },
	.cases = pagemap_cases,
	.ncases = ARRAY_SIZE(pagemap_cases),
	.metric = BENCH_US_PER_RUN,
	.min_cpus = 1,
	.iters = 10,
	.warmup = 2,
	.counters = BENCH_COUNTERS(PCPU_PAGEMAP_LOOKUPS, PCPU_PAGEMAP_REFS),
	.setup = pagemap_bench_setup,
	.run = pagemap_bench_pin,
	.run_phase2 = pagemap_bench_unpin,
	.phase2_name = "unpin_us_per_round",
	.verify = pagemap_bench_verify,
	.report = pagemap_bench_report,
	.teardown = pagemap_bench_teardown,
};
BENCH_REGISTER(bench_pagemap, 40);
