/*
 * Benchmark `swapfree`, after Barry Song's "mm: attempt to batch free swap
 * entries for zap_pte_range()": map a region in 64 KiB folios, fill it, swap
 * it all out to the RAM device, then time the unmap, with K CPUs each
 * unmapping its own address space's part. The fill is same-filled, so the
 * device keeps no frames and the unmap times the slot bookkeeping. Variants:
 * swap_free_designs[]. Metric: bytes unmapped per ms; counters per folio.
 */
#include "bench/bench.h"
#include "errno.h"
#include "kernel/cmdline.h"
#include "kernel/json.h"
#include "kernel/timing.h"
#include "lib/string.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pt.h"
#include "mm/swap/swap.h"
#include <arch/arch.h>

#define SF_BASE 0x40000000ul
#define SF_FOLIO_PAGES SWAP_FOLIO_SLOTS
#define SF_FOLIO_ORDER 4
#define SF_FOLIO_BYTES ((u64)SF_FOLIO_PAGES * PT_PAGE_4K)
#define SF_FILL 0x11

BUILD_ASSERT(SF_FOLIO_PAGES == 1u << SF_FOLIO_ORDER);

struct sf_bench {
	struct mm *mm[MAX_CPUS];
	u64 bytes; /* per CPU */
	unsigned type;
	bool swap_on;
};

static struct sf_bench sf;

/* Returns 0 or the first error (-EBUSY: an mm still loaded, or swap slots still in use). */
static int sf_teardown(struct bench_ctx *c)
{
	int err = 0;

	for (unsigned idx = 0; idx < c->ncpus; idx++) {
		int e = sf.mm[idx] ? mm_destroy(sf.mm[idx]) : 0;

		if (!err)
			err = e;
		sf.mm[idx] = NULL;
	}
	if (sf.swap_on && swap_off(sf.type)) {
		bench_fail(c, "swap_off failed: slots still in use");
		if (!err)
			err = -EBUSY;
	}
	sf.swap_on = false;
	return err;
}

static u32 swap_mb, swapfree_mb;
/* swap_mb=: the RAM swap device's size; swapfree_mb=: the memory swapped out and freed. */
OPTION_UINT(swap_mb, swap_mb, 1, 16384, 512);
OPTION_UINT(swapfree_mb, swapfree_mb, 1, 16384, 256);
OPTION_CONSTRAINT(swapfree_mb, swap_mb, "the swapfree benchmark swaps it all out");

/*
 * timing=exact, swapfree_mb= not given: the memory swapped out and freed.
 * An exact figure needs no large sample, and swapping out is most of the
 * benchmark's time; the figure is per folio either way.
 */
#define SF_EXACT_MB 16

static u32 sf_mb(const struct bench_ctx *c)
{
	return timing_exact() && !options_given(c->opt, "swapfree_mb") ? SF_EXACT_MB : swapfree_mb;
}

static int sf_setup(struct bench_ctx *c)
{
	u64 total = (u64)sf_mb(c) << 20;
	int err;

	sf.bytes = ALIGN_DOWN(total / c->ncpus, SF_FOLIO_BYTES);
	if (!sf.bytes || (u64)swap_mb << 20 < sf.bytes * c->ncpus) {
		bench_fail(c, "swapfree_mb=%u needs swap_mb >= %u (swap_mb=%u)",
			   sf_mb(c), sf_mb(c), swap_mb);
		return -ENOSPC;
	}
	err = swap_on_ram((u64)swap_mb * SWAP_SLOTS_PER_MB, &sf.type);
	sf.swap_on = !err;
	for (unsigned idx = 0; idx < c->ncpus && !err; idx++)
		err = mm_create(&sf.mm[idx]);
	if (err) {
		sf_teardown(c); /* the setup error is the one reported */
		return err;
	}
	for (unsigned idx = 0; idx < c->ncpus; idx++)
		swap_mm_set_free(sf.mm[idx], swap_free_of(c->design));
	c->ops = sf.bytes * c->ncpus; /* the metric counts bytes */
	return 0;
}

/* Fills every page of the region through the direct map. */
static int sf_fill(struct mm *mm)
{
	for (u64 off = 0; off < sf.bytes; off += PT_PAGE_4K) {
		paddr_t pa;

		if (pt_lookup(mm->root, SF_BASE + off, &pa, NULL, NULL))
			return -ENOENT;
		memset(phys_to_virt(pa), SF_FILL, PT_PAGE_4K);
	}
	return 0;
}

/* Untimed: map this CPU's part with 64 KiB folios, fill it and swap every folio out. */
static void sf_prepare_cpu(struct bench_ctx *c, unsigned idx)
{
	struct mm *mm = sf.mm[idx];
	const char *what = "map";
	int err = mm_map_region(mm, SF_BASE, sf.bytes, MM_READ | MM_WRITE);

	if (!err) {
		what = "populate";
		err = mm_populate_folios(mm, SF_BASE, sf.bytes, SF_FOLIO_ORDER);
	}
	if (!err) {
		what = "fill";
		err = sf_fill(mm);
	}
	for (u64 off = 0; !err && off < sf.bytes; off += SF_FOLIO_BYTES) {
		what = "swap-out";
		err = swap_out_folio(mm, SF_BASE + off, SF_FOLIO_PAGES, sf.type);
	}
	if (err)
		bench_fail(c, "CPU %u: %s failed (%s)", c->cpu[idx], what, errno_name(err));
}

/* Timed: munmap of this CPU's swapped-out part. */
static void sf_run(struct bench_ctx *c, unsigned idx)
{
	int err = mm_unmap_region(sf.mm[idx], SF_BASE, sf.bytes);

	if (err)
		bench_fail(c, "CPU %u: unmap failed (%s)", c->cpu[idx], errno_name(err));
}

/*
 * Exact counts per run: every slot freed once; the design's locks per
 * slot (naive) or per folio (batched), cluster and device alike, and no
 * fallback; and the device empty again.
 */
static int sf_verify(struct bench_ctx *c)
{
	u64 runs = c->runs_done, pages = c->ops / PT_PAGE_4K;
	u64 units = c->design->counts_folios ? pages / SF_FOLIO_PAGES : pages;
	const struct design_promise *p = design_promise(c->design, PCPU_SWAP_CLUSTER_LOCKS);
	u64 locks = p ? design_expect(p, units, 0) : 0;
	u64 freed = bench_counter_total(c, PCPU_SWAP_SLOTS_FREED);
	u64 cl = bench_counter_total(c, PCPU_SWAP_CLUSTER_LOCKS);
	u64 dl = bench_counter_total(c, PCPU_SWAP_DEVICE_LOCKS);
	u64 fallbacks = bench_counter_total(c, PCPU_SWAP_BATCH_FALLBACKS);
	/* Device locks as many as cluster locks, unless the design promises its own. */
	const struct design_promise *dp = design_promise(c->design, PCPU_SWAP_DEVICE_LOCKS);
	bool dl_ok = dp ? design_kept(dp, dl, runs, units, 0) : dl == runs * locks;
	struct swap_stats s;

	if (freed != runs * pages || cl != runs * locks || !dl_ok || fallbacks) {
		bench_fail(c,
			   "%lu slots freed, %lu cluster and %lu device locks, %lu fallbacks in %lu "
			   "runs; expected %lu, %lu, %s%lu, 0",
			   (unsigned long)freed, (unsigned long)cl, (unsigned long)dl,
			   (unsigned long)fallbacks, (unsigned long)runs,
			   (unsigned long)(runs * pages), (unsigned long)(runs * locks),
			   dp && dp->at_most ? "at most " : "",
			   (unsigned long)(dp ? runs * design_expect(dp, units, 0) : runs * locks));
		return -EINVAL;
	}
	if (swap_stats_get(sf.type, &s) || s.inuse) {
		bench_fail(c, "%lu slots still in use after the unmap", (unsigned long)s.inuse);
		return -EINVAL;
	}
	return 0;
}

static void sf_report(const struct bench_ctx *c, struct json *j, u64 median)
{
	(void)median;
	json_u64(j, "mb", c->ops >> 20);
	json_u64(j, "folio_kb", SF_FOLIO_BYTES >> 10);
	json_u64(j, "swap_mb", swap_mb);
}

static const struct bench_case sf_cases[] = {
	{ { SF_FOLIO_PAGES } },
};

const struct bench bench_swapfree = {
	.name = "swapfree",
	.title = "swap-slot release on unmap of swapped-out folios",
	.exact_metric_name = "instructions_per_folio",
	.headline = { { SF_FOLIO_PAGES } },
	.designs = swap_free_designs,
	.param_names = { "folio_pages" },
	.cases = sf_cases,
	.ncases = ARRAY_SIZE(sf_cases),
	.metric = BENCH_BYTES_PER_MS,
	.min_cpus = 1,
	/* A run is short against its episode: more of them steady the median. */
	.iters = 10,
	/*
	 * But its untimed part (fill and swap out swapfree_mb) makes an episode
	 * long under TCG: no adaptive rounds beyond the 10 (CI [x(2), x(9)]).
	 */
	.max_iters = 10,
	.warmup = 2,
	.counters = BENCH_COUNTERS(PCPU_SWAP_CLUSTER_LOCKS, PCPU_SWAP_DEVICE_LOCKS,
				   PCPU_SWAP_SLOTS_FREED, PCPU_SWAP_BATCH_FALLBACKS),
	.counter_unit = "folio",
	.counter_unit_ops = SF_FOLIO_BYTES,
	.setup = sf_setup,
	.prepare_cpu = sf_prepare_cpu,
	.run = sf_run,
	.verify = sf_verify,
	.report = sf_report,
	.teardown = sf_teardown,
};
BENCH_REGISTER(bench_swapfree, 60);
