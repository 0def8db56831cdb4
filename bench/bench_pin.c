/*
 * Benchmark `pin`, after gup_test's PIN_FAST_BENCHMARK: each of K CPUs pins
 * every page of a region, per_call pages per pin_pages_fast() call, then
 * (after an untimed barrier) unpins them. Variants: the has_pinned designs
 * (mm/pin/designs/); parameters region and folio: at their enums. Metric:
 * get time per round (slowest CPU), put time as a second phase; verify checks
 * every design's refcount atomics exactly (counter pin_ref_atomics).
 */
#include "bench/bench.h"
#include "errno.h"
#include "kernel/cmdline.h"
#include "kernel/json.h"
#include "kernel/smp.h"
#include "kernel/timing.h"
#include "lib/string.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pin/pin.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include <arch/arch.h>

#define PIN_BENCH_PAGES 1024 /* per region: 4 MiB */
#define PIN_BENCH_BASE 0x40000000ul
#define PIN_BENCH_STRIDE 0x01000000ul /* own regions 16 MiB apart */
#define PIN_PAGES_ORDER 1	      /* 8 KiB of page pointers per CPU */
#define PIN_FOLIO_ORDER 9	      /* folio=2m: 512 pages, one 2 MiB leaf */
#define PIN_FOLIO_PAGES (1u << PIN_FOLIO_ORDER)
#define PIN_FOLIOS (PIN_BENCH_PAGES / PIN_FOLIO_PAGES) /* per region */

/*
 * Parameters. region: "shared" (every CPU on the same pages, as gup_test)
 * or "own" (a region per CPU, isolating the flag's line from the pages'
 * refcounts). folio: "4k" (order-0 pages) or "2m" (each 2 MiB is one
 * order-9 folio under a 2 MiB leaf: naive and fixed add to its head once
 * per page, the folio design once per run of a call's pages in it).
 */
enum pin_region { PIN_REGION_SHARED, PIN_REGION_OWN };
enum pin_folio { PIN_FOLIO_4K, PIN_FOLIO_2M };

struct pin_bench {
	struct mm *mm;
	struct page *array_block[MAX_CPUS];
	/* folio=2m: the blocks mapped by region i's 2 MiB leaves, outside any mm region */
	struct page *folio[MAX_CPUS][PIN_FOLIOS];
	unsigned per_call;
	bool own, large;
	u32 puts[MAX_CPUS]; /* put phases each CPU ran in this episode */
};

static struct pin_bench pb;


static vaddr_t region_of(unsigned idx)
{
	return PIN_BENCH_BASE + (pb.own ? idx * PIN_BENCH_STRIDE : 0);
}

static struct page **pages_of(unsigned idx)
{
	return page_address(pb.array_block[idx]);
}

/*
 * folio=2m: unmaps region @i's leaves and frees their blocks (the mm is
 * loaded nowhere by now: a local flush is enough). Returns 0 or -EBUSY (a
 * block still referenced: a pin left behind).
 */
static int pin_bench_unmap_folios(unsigned i)
{
	struct pt_gather g;
	int err = 0;

	for (unsigned f = 0; f < PIN_FOLIOS; f++) {
		vaddr_t va = region_of(i) + (vaddr_t)f * PT_PAGE_2M;

		if (!pb.folio[i][f])
			continue;
		pt_gather_init(&g, NULL, NULL);
		if (pt_unmap(pb.mm->root, va, PT_PAGE_2M, &g) && !err)
			err = -EBUSY;
		pt_gather_finish(&g);
		if (page_free(pb.folio[i][f], PIN_FOLIO_ORDER) && !err)
			err = -EBUSY;
		pb.folio[i][f] = NULL;
	}
	return err;
}

/*
 * The flag line's two words (has_pinned, flags) watched for writes on this
 * CPU (@mm) or no longer (NULL): the trap counts each write the CPU makes,
 * whoever's code makes it, in PCPU_WATCHED_WRITES.
 */
static void pin_watch_flags(void *mm)
{
	struct mm *m = mm;

	if (!m) {
		arch_watch_clear(0);
		arch_watch_clear(1);
		return;
	}
	arch_watch_writes(0, &m->has_pinned, sizeof(m->has_pinned));
	arch_watch_writes(1, &m->flags, sizeof(m->flags));
}

/*
 * pin_watch=1: verify judges the flag writes by write watches on the flag
 * line (debug registers), not by the design's own count. Off by default:
 * each watched write traps, and in exact mode the traps shift later
 * runs' instruction counts enough to fail an A/A (make test turns it on
 * for the broken designs' run only).
 */
static u32 pin_watch;
OPTION_UINT(pin_watch, pin_watch, 0, 1, 0);

/*
 * The runs whose flag writes the watches count: the warm-ups (at least
 * one), whose figures are discarded, so no timed run pays for a trap.
 */
static u64 pin_watched_runs(const struct bench_ctx *c)
{
	return MIN(c->runs_done, (u64)MAX(c->warmup, 1u));
}

/* pin_watch_flags(@mm) on every CPU of @c. 0 or the smp_call() error. */
static int pin_bench_watch(const struct bench_ctx *c, struct mm *mm)
{
	cpumask_t others;

	cpumask_clear(&others);
	for (unsigned idx = 1; idx < c->ncpus; idx++)
		cpumask_set_cpu(c->cpu[idx], &others);
	pin_watch_flags(mm);
	return smp_call(&others, pin_watch_flags, mm, true);
}

/* Returns 0 or the first error (-EBUSY: the mm still loaded, or a page still pinned). */
static int pin_bench_teardown(struct bench_ctx *c)
{
	int err = pin_watch ? pin_bench_watch(c, NULL) : 0;

	if (!err)
		err = bench_load_mm(c, NULL);

	for (unsigned i = 0; pb.mm && i < c->ncpus; i++) {
		int e = pin_bench_unmap_folios(i);

		if (!err)
			err = e;
	}

	for (unsigned idx = 0; idx < c->ncpus; idx++) {
		if (pb.array_block[idx] && page_free(pb.array_block[idx], PIN_PAGES_ORDER) && !err)
			err = -EBUSY;
		pb.array_block[idx] = NULL;
	}
	if (pb.mm) {
		int e = mm_destroy(pb.mm);

		if (!err)
			err = e;
	}
	pb.mm = NULL;
	return err;
}

/* folio=2m: region @i as PIN_FOLIOS 2 MiB leaves of zeroed order-9 blocks. */
static int pin_bench_map_folios(unsigned i)
{
	for (unsigned f = 0; f < PIN_FOLIOS; f++) {
		struct page *b = page_alloc(PIN_FOLIO_ORDER, PMM_ZERO);

		if (!b)
			return -ENOMEM;
		pb.folio[i][f] = b;
		/* pt_map() checks the 2 MiB alignment of both addresses. */
		if (pt_map(pb.mm->root, region_of(i) + (vaddr_t)f * PT_PAGE_2M, page_to_phys(b),
			   PT_PAGE_2M, PROT_READ | PROT_WRITE | PROT_USER, PT_PAGE_2M)) {
			page_free(b, PIN_FOLIO_ORDER);
			pb.folio[i][f] = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

static int pin_bench_map(struct bench_ctx *c)
{
	unsigned nregions = pb.own ? c->ncpus : 1;
	int err = 0;

	for (unsigned i = 0; i < nregions && !err && pb.large; i++)
		err = pin_bench_map_folios(i);
	for (unsigned i = 0; i < nregions && !err && !pb.large; i++) {
		err = mm_map_region(pb.mm, region_of(i), PIN_BENCH_PAGES * PT_PAGE_4K,
				    MM_READ | MM_WRITE);
		if (!err)
			err = mm_populate(pb.mm, region_of(i), PIN_BENCH_PAGES * PT_PAGE_4K);
	}
	return err;
}

static int pin_bench_setup(struct bench_ctx *c)
{
	int err;

	pb.own = bench_param(c, "region") == PIN_REGION_OWN;
	pb.per_call = (unsigned)bench_param(c, "per_call");
	pb.large = bench_param(c, "folio") == PIN_FOLIO_2M;
	err = bench_mm_create(c, &pb.mm);
	if (!err)
		err = pin_bench_map(c);
	for (unsigned idx = 0; idx < c->ncpus && !err; idx++) {
		pb.array_block[idx] = page_alloc(PIN_PAGES_ORDER, 0);
		if (!pb.array_block[idx])
			err = -ENOMEM;
	}
	memset(pb.puts, 0, sizeof(pb.puts));
	if (!err)
		err = bench_load_mm(c, pb.mm);
	if (!err && pin_watch)
		err = pin_bench_watch(c, pb.mm); /* until each CPU's last watched run's put */
	if (err)
		pin_bench_teardown(c); /* the setup error is the one reported */
	/* One operation is one pin_pages_fast() call, over every CPU. */
	c->ops = (u64)c->ncpus * (PIN_BENCH_PAGES / pb.per_call);
	return err;
}

/* get: pin the whole region, per_call pages at a time. */
static void pin_bench_get(struct bench_ctx *c, unsigned idx)
{
	/* The pin design under test; the pagemap choice is the default's (cached). */
	const struct pin_policy pol = { pin_flag_ops_of(c->design), pin_policy_default.pagemap };
	struct page **pages = pages_of(idx);
	vaddr_t base = region_of(idx);

	for (unsigned i = 0; i < PIN_BENCH_PAGES; i += pb.per_call) {
		int n = pin_pages_fast(pb.mm, base + (vaddr_t)i * PT_PAGE_4K, pb.per_call,
				       PIN_FAST_ONLY, pages + i, &pol);

		if (n != (int)pb.per_call) {
			bench_fail(c, "CPU %u: pin at page %u returned %d", c->cpu[idx], i, n);
			return;
		}
		timing_yield(); /* the other pinning CPUs take their turn (exact mode) */
	}
}

/* put: unpin them, as gup_test does after the get phase. */
static void pin_bench_put(struct bench_ctx *c, unsigned idx)
{
	if (pin_watch && ++pb.puts[idx] == MAX(c->warmup, 1u))
		pin_watch_flags(NULL);
	if (c->error)
		return;
	if (unpin_pages(pages_of(idx), PIN_BENCH_PAGES))
		bench_fail(c, "CPU %u: unpin found a page not pinned", c->cpu[idx]);
}

/* After every run all pins are gone; the flag writes match the design's promise. */
int pin_bench_check_lockless(struct bench_ctx *c)
{
	u64 unloaded = bench_counter_total(c, PCPU_PIN_UNLOADED);
	u64 retries = bench_counter_total(c, PCPU_PIN_RETRIES);

	if (!unloaded && !retries)
		return 0;
	bench_fail(c, "%lu pin calls walked under the lock (mm not loaded), %lu retried: not the "
		      "lockless walk this times", (unsigned long)unloaded, (unsigned long)retries);
	return -EINVAL;
}

/*
 * Refcount atomics: one per page pinned, or (counts_folios) one per run of
 * a call's pages in one folio. Calls are per_call aligned and per_call
 * divides a 2 MiB folio, so a call's pages lie in per_call / run folios.
 */
static int pin_bench_check_atomics(struct bench_ctx *c)
{
	const struct design_promise *p = design_promise(c->design, PCPU_PIN_REF_ATOMICS);
	u64 got = bench_counter_total(c, PCPU_PIN_REF_ATOMICS);
	u64 pages = c->runs_done * c->ops * pb.per_call;
	unsigned run = !c->design->counts_folios || !pb.large ? 1 : pb.per_call;

	if (p && design_kept(p, got, pages / run, 1, 1))
		return 0;
	bench_fail(c, "%s: %lu refcount atomics for %lu pages pinned %u per call break its promise",
		   c->design->name, (unsigned long)got, (unsigned long)pages, pb.per_call);
	return -EINVAL;
}

static int pin_bench_verify(struct bench_ctx *c)
{
	/*
	 * A design promises writes per call (naive), or at most one per CPU
	 * per mm (fixed: the first calls may race past the test on every CPU
	 * before one of them sets the bit; the episode has one mm).
	 */
	const struct design_promise *p = design_promise(c->design, PCPU_PIN_FLAG_WRITES);
	u64 writes = bench_counter_total(c, PCPU_PIN_FLAG_WRITES);
	/* What the CPUs wrote to the flag line in the watched runs, as the watches saw it. */
	u64 seen = bench_counter_total(c, PCPU_WATCHED_WRITES);
	u64 watched_calls = pin_watched_runs(c) * c->ops;
	bool per_mm = p && p->at_most;

	if (!p || (pin_watch && !design_kept(p, seen, per_mm ? 1 : watched_calls, 1, c->ncpus))) {
		bench_fail(c, "%s: the flag line's write watches saw %lu writes for %lu calls on %u "
			   "CPUs (the design counted %lu in all runs): they break its promise",
			   c->design->name, (unsigned long)seen, (unsigned long)watched_calls,
			   c->ncpus, (unsigned long)writes);
		return -EINVAL;
	}
	if (!design_kept(p, writes, per_mm ? 1 : c->runs_done * c->ops, 1, c->ncpus)) {
		bench_fail(c, "%s: %lu flag writes for %lu calls on %u CPUs break its promise",
			   c->design->name, (unsigned long)writes,
			   (unsigned long)(c->runs_done * c->ops), c->ncpus);
		return -EINVAL;
	}
	if (pin_bench_check_atomics(c) || pin_bench_check_lockless(c))
		return -EINVAL;
	for (unsigned i = 0; i < PIN_BENCH_PAGES; i++)
		if (page_maybe_pinned(pages_of(0)[i])) {
			bench_fail(c, "page %u still pinned after the runs", i);
			return -EINVAL;
		}
	for (unsigned i = 0; i < MAX_CPUS; i++)
		for (unsigned f = 0; f < PIN_FOLIOS; f++)
			if (pb.folio[i][f] && page_ref_count(pb.folio[i][f]) != 1) {
				bench_fail(c, "folio %u of region %u: refcount %d after the runs, not 1",
					   f, i, page_ref_count(pb.folio[i][f]));
				return -EINVAL;
			}
	return 0;
}

/* The get phase per pinned page: each CPU pins the whole region in a round (@median: ns). */
static void pin_bench_report(const struct bench_ctx *c, struct json *j, u64 median)
{
	(void)c;
	json_fixed(j, "get_ns_per_page", (s64)(median * 1000 / PIN_BENCH_PAGES), 3);
	json_u64(j, "pages_per_round", PIN_BENCH_PAGES);
}

static const char *const pin_region_words[] = { "shared", "own" };
static const char *const pin_folio_words[] = { "4k", "2m" };
/*
 * per_call 1 is gup_test's default (-n 1); 512 pages per call is a whole 2 MiB
 * folio (gup_test's -m 512 of the 2021 thread is a 512 MiB region, another knob);
 * folio=2m with 512 per call is Martins' case (a whole folio per call).
 */
static const struct bench_case pin_cases[] = {
	{ { PIN_REGION_SHARED, 1, PIN_FOLIO_4K } },  { { PIN_REGION_SHARED, 16, PIN_FOLIO_4K } },
	{ { PIN_REGION_SHARED, 512, PIN_FOLIO_4K } }, { { PIN_REGION_OWN, 1, PIN_FOLIO_4K } },
	{ { PIN_REGION_OWN, 16, PIN_FOLIO_4K } },    { { PIN_REGION_OWN, 512, PIN_FOLIO_4K } },
	{ { PIN_REGION_SHARED, 16, PIN_FOLIO_2M } }, { { PIN_REGION_SHARED, 512, PIN_FOLIO_2M } },
	{ { PIN_REGION_OWN, 512, PIN_FOLIO_2M } },
};
BUILD_ASSERT(PIN_BENCH_PAGES % 512 == 0); /* every per_call divides the region */
BUILD_ASSERT(PIN_FOLIO_PAGES % 512 == 0); /* and a folio: no call crosses one */

const struct bench bench_pin = {
	.name = "pin",
	.title = "pin cost per round of pin calls",
	.exact_metric_name = "get_instructions_per_round",
	.exact_phase2_name = "put_instructions_per_round",
	/* Peter Xu's gup_test: many threads pinning one shared region, 4 KiB pages. */
	.headline = { { PIN_REGION_SHARED, 512, PIN_FOLIO_4K } },
	.metric_name = "get_us_per_round",
	.unit = "us",
	.designs = pin_flag_designs,
	.param_names = { "region", "per_call", "folio" },
	.param_words = { pin_region_words, NULL, pin_folio_words },
	.cases = pin_cases,
	.ncases = ARRAY_SIZE(pin_cases),
	.metric = BENCH_US_PER_RUN,
	.min_cpus = 1,
	.iters = 10,
	.warmup = 2,
	.counters = BENCH_COUNTERS(PCPU_PIN_FLAG_WRITES, PCPU_PIN_REF_ATOMICS),
	.setup = pin_bench_setup,
	.run = pin_bench_get,
	.run_phase2 = pin_bench_put,
	.phase2_name = "put_us_per_round",
	.verify = pin_bench_verify,
	.report = pin_bench_report,
	.teardown = pin_bench_teardown,
};
BENCH_REGISTER(bench_pin, 30);
