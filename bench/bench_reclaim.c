/*
 * Benchmark `reclaim`: Mel Gorman's lru-file-mmap-read (Linux 4.3's one
 * IPI per CPU after unmapping a batch). Readers on the other CPUs read a
 * file-like mapping larger than what stays resident, faulting back in what
 * CPU 0 reclaims; CPU 0 keeps it resident-bounded by swapping out the
 * oldest batch of SWAP_CLUSTER_MAX pages, one gather of the design each.
 * The metric is the readers' time for their fixed work (docs/output.md).
 */
#include "bench/bench.h"
#include "bench/bench_result.h"
#include "bench/file_readers.h"
#include "bench/read_loss.h"
#include "bench/reuse_probe.h"
#include "errno.h"
#include "kernel/json.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/rwlock.h"
#include "kernel/smp.h"
#include "kernel/timing.h"
#include "lib/atomic.h"
#include "lib/format.h"
#include "lib/math.h"
#include "lib/string.h"
#include "mm/fault.h"
#include "mm/mm.h"
#include "mm/pt.h"
#include "mm/swap/swap.h"
#include "mm/tlb/tlb.h"
#include <arch/arch.h>

#define RECLAIM_BATCH 32 /* SWAP_CLUSTER_MAX: pages shrink_page_list() takes at a time */
#define RECLAIM_BASE 0x40000000ul
/* Reads of the whole range per pass: the second finds the first's pages reclaimed. */
#define RECLAIM_PASSES 2
/* What stays resident: this fraction of the range (his file was twice the memory). */
#define RECLAIM_RESIDENT_DIV 2
/* Pages above the limit at which the readers wait for reclaim (direct reclaim's throttle). */
#define RECLAIM_THROTTLE_PAGES (2 * RECLAIM_BATCH)
/* flush=full: a gather of more than one page is one full flush; naive's page stays an invlpg. */
#define RECLAIM_FULL_CEILING 1
#define RECLAIM_MAX_EPISODES 256 /* per variant and case; later ones are not summarised */
/* The reuse probe's batch (verify, after the timed runs), beyond the range. */
#define RECLAIM_PROBE_BASE 0x50000000ul
BUILD_ASSERT(REUSE_PROBE_PAGES == RECLAIM_BATCH);

enum reclaim_flush { RECLAIM_FLUSH_RANGED, RECLAIM_FLUSH_FULL };

BUILD_ASSERT(RECLAIM_BATCH <= SWAP_OUT_MAX_PAGES);

struct reclaim_bench {
	struct mm *mm;
	unsigned pages, resident, type, saved_ceiling, hand;
	bool swap_on, readers, ceiling_set, counted;
	bool stopped;		 /* reclaim failed this pass: the readers no longer wait for it */
	u64 swapins0, out_pages; /* this pass: swap-in faults before it, pages swapped out */
	u64 batches;		 /* batches swapped out in the episode's runs, warm-up included */
	u64 null_cycles;	 /* the readers' cycles in the null pass before this run */
};

static struct reclaim_bench rb;

/* One value per counted episode of the case, per variant. */
struct reclaim_episodes {
	unsigned n;
	s64 loss[RECLAIM_MAX_EPISODES];
	s64 null_kread[RECLAIM_MAX_EPISODES], timed_kread[RECLAIM_MAX_EPISODES];
	s64 irqs_per_sec[RECLAIM_MAX_EPISODES], irqs_per_run[RECLAIM_MAX_EPISODES];
	u64 probe_handed, probe_stale; /* the reuse probes' frames handed on, stale reads seen */
};

static struct reclaim_episodes eps[BENCH_MAX_VARIANTS];
static u64 scratch[RECLAIM_MAX_EPISODES];
/* The readers' null rate of the first result at each CPU count: the one every case must match. */
static u64 first_null_kread[MAX_CPUS + 1];

/* Pages of the range resident now: swapped in since the pass began, less those swapped out. */
static u64 reclaim_resident(void)
{
	return fault_event_count(FAULT_EV_SWAPIN) - atomic_load_relaxed(&rb.swapins0) -
	       atomic_load_relaxed(&rb.out_pages);
}

/* The readers' throttle (any CPU): far enough above the limit that they wait for reclaim. */
static bool reclaim_throttled(void)
{
	return !atomic_load_acquire(&rb.stopped) &&
	       reclaim_resident() >= rb.resident + RECLAIM_THROTTLE_PAGES;
}

/* A flush that completes later returns before the readers' CPUs invalidate: no final copy. */
static bool reclaim_runs_design(const struct design *d)
{
	return !d->completes_later;
}

static void reclaim_switch_mm(void *arg)
{
	mm_switch(arg);
}

static void reclaim_remotes(const struct bench_ctx *c, cpumask_t *m)
{
	cpumask_clear(m);
	for (unsigned idx = 1; idx < c->ncpus; idx++)
		cpumask_set_cpu(c->cpu[idx], m);
}

static int reclaim_teardown(struct bench_ctx *c)
{
	cpumask_t remotes;
	int err = 0, e;

	if (rb.readers && file_readers_stop())
		bench_fail(c, "a reader did not stop");
	rb.readers = false;
	reclaim_remotes(c, &remotes);
	err = smp_call(&remotes, reclaim_switch_mm, NULL, true);
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
	if (rb.ceiling_set)
		tlb_set_ceiling(rb.saved_ceiling);
	rb.ceiling_set = false;
	return err;
}

/* The flush the case asks for: flush=full puts the ceiling below a batch (undone in teardown). */
static void reclaim_set_flush(const struct bench_ctx *c)
{
	if (bench_param(c, "flush") != RECLAIM_FLUSH_FULL)
		return;
	rb.saved_ceiling = tlb_ceiling();
	tlb_set_ceiling(RECLAIM_FULL_CEILING);
	rb.ceiling_set = true;
}

static int reclaim_setup(struct bench_ctx *c)
{
	cpumask_t remotes;
	int err;

	rb = (struct reclaim_bench){ .pages = (unsigned)bench_param(c, "pages") };
	rb.resident = rb.pages / RECLAIM_RESIDENT_DIV;
	if (c->episode == 0)
		memset(eps, 0, sizeof(eps));
	reclaim_set_flush(c);
	reclaim_remotes(c, &remotes);
	err = swap_on_ram((u64)rb.pages * 2, &rb.type);
	rb.swap_on = !err;
	if (!err)
		err = tlb_design_enable(tlb_ops_of(c->design), true);
	if (!err)
		err = bench_mm_create(c, &rb.mm);
	if (!err)
		err = mm_map_region(rb.mm, RECLAIM_BASE, (u64)rb.pages * PAGE_SIZE,
				    MM_READ | MM_WRITE);
	if (!err)
		err = smp_call(&remotes, reclaim_switch_mm, rb.mm, true);
	if (!err)
		err = file_readers_start(c, RECLAIM_BASE, rb.pages, RECLAIM_PASSES,
					 reclaim_throttled);
	rb.readers = !err;
	if (err) {
		reclaim_teardown(c); /* the setup error is the one reported */
		return err;
	}
	mm_switch(rb.mm);
	c->ops = (u64)rb.pages * RECLAIM_PASSES * (c->ncpus - 1); /* pages read per run */
	return 0;
}

static vaddr_t batch_va(unsigned b)
{
	return RECLAIM_BASE + (vaddr_t)b * RECLAIM_BATCH * PAGE_SIZE;
}

/* Whether every page of batch @b is mapped (readers only ever add pages meanwhile). */
static bool batch_resident(unsigned b)
{
	bool all = true;

	read_lock(&rb.mm->lock);
	for (unsigned i = 0; i < RECLAIM_BATCH && all; i++) {
		paddr_t pa;
		u64 size;

		all = !pt_lookup(rb.mm->root, batch_va(b) + (vaddr_t)i * PAGE_SIZE, &pa, NULL,
				 &size);
	}
	read_unlock(&rb.mm->lock);
	return all;
}

/* Swaps out batch @b through the design's gather: what the readers are timed beside. */
static int reclaim_batch(const struct bench_ctx *c, unsigned b)
{
	struct tlb_batch tb;
	int err;

	tlb_batch_begin(&tb, rb.mm, tlb_ops_of(c->design));
	err = swap_out_gather(rb.mm, batch_va(b), RECLAIM_BATCH, rb.type, &tb.g);
	err = err ? err : tb.err;
	if (!err) {
		atomic_store_relaxed(&rb.out_pages, rb.out_pages + RECLAIM_BATCH);
		rb.batches++;
	}
	return err;
}

/* kswapd's part: the oldest fully resident batch (a clock in address order), if any. */
static int reclaim_step(const struct bench_ctx *c)
{
	unsigned nb = rb.pages / RECLAIM_BATCH;

	for (unsigned k = 0; k < nb; k++) {
		unsigned b = rb.hand;

		rb.hand = (rb.hand + 1) % nb;
		if (batch_resident(b))
			return reclaim_batch(c, b);
	}
	arch_cpu_relax();
	return 0;
}

/*
 * One pass of the readers with CPU 0 beside them: reclaiming whenever
 * more than the limit is resident (@reclaim), or only waiting (the null
 * pass: the range stays resident, so no shootdown can happen).
 */
static int reclaim_pass(const struct bench_ctx *c, bool reclaim)
{
	u64 deadline = arch_tsc_read() + arch_tsc_hz() * 60;
	int err = 0;

	atomic_store_relaxed(&rb.out_pages, 0);
	atomic_store_relaxed(&rb.stopped, false);
	atomic_store_relaxed(&rb.swapins0, fault_event_count(FAULT_EV_SWAPIN));
	file_readers_go();
	while (!file_readers_done()) {
		if (arch_tsc_read() > deadline)
			return -ETIMEDOUT;
		if (reclaim && !err && reclaim_resident() >= rb.resident) {
			err = reclaim_step(c);
			atomic_store_release(&rb.stopped, err != 0);
		}
		else
			arch_cpu_relax();
	}
	return err;
}

/* The first word of every page: its tag, which the readers check. */
static void reclaim_tag_pages(void)
{
	for (unsigned i = 0; i < rb.pages; i++)
		*(volatile u64 *)(RECLAIM_BASE + (vaddr_t)i * PAGE_SIZE) = file_page_tag(i);
}

/* Everything swapped out (the default gather): the file on disk, nothing resident. */
static int reclaim_evict_all(void)
{
	int err = 0;

	for (unsigned b = 0; b < rb.pages / RECLAIM_BATCH && !err; b++)
		err = swap_out_folio(rb.mm, batch_va(b), RECLAIM_BATCH, rb.type);
	return err;
}

/*
 * Untimed: the range mapped afresh (the last run's pages and slots freed)
 * and tagged; before a counted run, the null pass over it resident; then
 * all of it swapped out, so the timed run starts with nothing resident.
 */
static int reclaim_prepare(struct bench_ctx *c)
{
	u64 len = (u64)rb.pages * PAGE_SIZE;
	int err;

	rb.counted = c->runs_done >= c->warmup;
	err = mm_unmap_region(rb.mm, RECLAIM_BASE, len);
	if (!err)
		err = mm_map_region(rb.mm, RECLAIM_BASE, len, MM_READ | MM_WRITE);
	if (!err)
		err = mm_populate(rb.mm, RECLAIM_BASE, len);
	if (!err)
		reclaim_tag_pages();
	if (!err && rb.counted) {
		err = reclaim_pass(c, false);
		rb.null_cycles = file_readers_cycles();
	}
	if (!err)
		err = reclaim_evict_all();
	rb.hand = 0;
	return err;
}

/* Interrupts the readers' CPUs have taken so far, summed. */
static u64 receivers_irqs(const struct bench_ctx *c)
{
	u64 n = 0;

	for (unsigned idx = 1; idx < c->ncpus; idx++)
		n += percpu_counter_read(c->cpu[idx], PCPU_INTERRUPTS);
	return n;
}

/* A counted run's per-episode figures: the loss against its null, the rates, the interrupts. */
static void reclaim_record(const struct bench_ctx *c, u64 cycles, u64 irqs)
{
	struct reclaim_episodes *e = &eps[c->variant];
	u64 timed = file_readers_cycles(), reads = MAX(c->ops, 1ull);

	if (e->n >= RECLAIM_MAX_EPISODES)
		return;
	e->loss[e->n] = read_episode_loss_milli(timed, rb.null_cycles);
	e->null_kread[e->n] = (s64)mul_div_u64(rb.null_cycles, 1000, reads);
	e->timed_kread[e->n] = (s64)mul_div_u64(timed, 1000, reads);
	e->irqs_per_sec[e->n] = (s64)mul_div_u64(irqs, arch_tsc_hz(), MAX(cycles, 1ull));
	e->irqs_per_run[e->n] = (s64)irqs;
	e->n++;
}

/* Timed: the readers' fixed work from its start to the last reader's end, CPU 0 reclaiming. */
static void reclaim_run(struct bench_ctx *c, unsigned idx)
{
	u64 irq0 = receivers_irqs(c), t0 = arch_tsc_read();
	int err;

	(void)idx;
	err = reclaim_pass(c, true);
	if (rb.counted)
		reclaim_record(c, arch_tsc_read() - t0, receivers_irqs(c) - irq0);
	if (err)
		bench_fail(c, "reclaim failed (%s)", errno_name(err));
}

/* Verify's last part: the reuse probe, booked for the report; fails @c on a stale read. */
static int reclaim_verify_reuse(struct bench_ctx *c)
{
	struct reclaim_episodes *e = &eps[c->variant];
	u64 handed, stale;
	int err = reuse_probe(tlb_ops_of(c->design), rb.mm, RECLAIM_PROBE_BASE, rb.type, &handed,
			      &stale);

	e->probe_handed += handed;
	e->probe_stale += stale;
	if (err) {
		bench_fail(c, "%s: the reuse probe failed (%s)", c->design->name, errno_name(err));
		return err;
	}
	if (!stale)
		return 0;
	bench_fail(c, "%s: %lu reads of a new owner's data through stale translations, %lu "
		   "of %u frames handed on before the flush completed", c->design->name,
		   (unsigned long)stale, (unsigned long)handed, REUSE_PROBE_PAGES);
	return -EINVAL;
}

/*
 * Exact counts: the pages swapped out are the batches the runs took, the
 * design's promises hold per batch of RECLAIM_BATCH pages, no reader
 * read another page's contents (the pages' tags), and the reuse probe
 * saw no frame handed on under a live translation.
 */
static int reclaim_verify(struct bench_ctx *c)
{
	const struct design *d = c->design;
	u64 out = bench_counter_total(c, PCPU_SWAP_OUT_PAGES), wrong = file_readers_wrong();
	const struct design_promise *p;

	if (wrong) {
		bench_fail(c, "%s: %lu reads saw another page's contents (stale translations of "
			   "reclaimed pages)", d->name, (unsigned long)wrong);
		return -EINVAL;
	}
	if (!rb.batches || out != rb.batches * RECLAIM_BATCH) {
		bench_fail(c, "%s: %lu pages swapped out for %lu batches of %u", d->name,
			   (unsigned long)out, (unsigned long)rb.batches, RECLAIM_BATCH);
		return -EINVAL;
	}
	design_for_each_promise(p, d) {
		u64 got = bench_counter_total(c, p->counter);

		if (design_kept(p, got, rb.batches, RECLAIM_BATCH, c->ncpus - 1))
			continue;
		bench_fail(c, "%s promises %s%u %s per %u %s(s) (%lu in %lu batches of %u, "
			   "%u targets)", d->name, p->at_most ? "at most " : "", p->count,
			   percpu_counter_name(p->counter), p->per, d->unit, (unsigned long)got,
			   (unsigned long)rb.batches, RECLAIM_BATCH, c->ncpus - 1);
		return -EINVAL;
	}
	return reclaim_verify_reuse(c);
}

/* @key's median and interval over @v's episodes, in thousandths (a loss) or whole units. */
static void report_series(struct json *j, const char *key, const s64 *v, unsigned n,
			  unsigned digits, struct read_series *out)
{
	char name[64];

	const char *suffix[3] = { "", "_lo", "_hi" };

	if (read_series_summary(v, n, scratch, out))
		return;
	for (unsigned k = 0; k < 3; k++) {
		s64 x = k == 0 ? out->median : k == 1 ? out->lo : out->hi;

		fmt_snprintf(name, sizeof(name), "%s%s", key, suffix[k]);
		if (digits)
			json_fixed(j, name, x, digits);
		else
			json_s64(j, name, x);
	}
}

/* Stale reads the reuse probes of variant @v saw in the case that ran last (self-tests read it). */
u64 bench_reclaim_reuse_stale(unsigned v)
{
	return v < BENCH_MAX_VARIANTS ? eps[v].probe_stale : 0;
}

/*
 * Whether the readers' null rate (@kread cycles per 1000 reads) is the
 * first result's at this CPU count, within the A/A tolerance (exact mode)
 * or BENCH_CI_TARGET_PCT: a loss is calibrated against it, so a case
 * whose readers ran at another baseline is flagged, not compared.
 */
static bool reclaim_baseline_same(const struct bench_ctx *c, u64 kread)
{
	u64 *ref = &first_null_kread[MIN(c->ncpus, (unsigned)MAX_CPUS)];
	u64 ppm = timing_exact() ? BENCH_EXACT_TOLERANCE_PPM : BENCH_CI_TARGET_PCT * 10000ull;
	char label[96];

	if (!*ref)
		*ref = kread;
	if (read_rate_within(*ref, kread, ppm))
		return true;
	bench_case_label(c, label, sizeof(label), ' ', '=');
	printk("# WARN bench reclaim %s cpus=%u %s: the readers' null pass took %lu cycles per "
	       "1000 reads, the first result's %lu: their baselines differ\n",
	       bench_variant_name(c->b, c->variant), c->ncpus, label, (unsigned long)kread,
	       (unsigned long)*ref);
	return false;
}

static void reclaim_report(const struct bench_ctx *c, struct json *j, u64 median)
{
	const struct reclaim_episodes *e = &eps[c->variant];
	struct read_series loss = { 0 }, null_k = { 0 }, s, ref = { 0 };
	bool full = bench_param(c, "flush") == RECLAIM_FLUSH_FULL;

	(void)median;
	json_u64(j, "batch_pages", RECLAIM_BATCH);
	json_u64(j, "resident_pages", bench_param(c, "pages") / RECLAIM_RESIDENT_DIV);
	json_u64(j, "reader_passes", RECLAIM_PASSES);
	json_u64(j, "flush_ceiling", full ? RECLAIM_FULL_CEILING : tlb_ceiling());
	json_u64(j, "reader_episodes", e->n);
	report_series(j, "reader_loss_pct", e->loss, e->n, 3, &loss);
	report_series(j, "reader_null_cycles_per_kread", e->null_kread, e->n, 0, &null_k);
	report_series(j, "reader_cycles_per_kread", e->timed_kread, e->n, 0, &s);
	report_series(j, "receiver_irqs_per_sec", e->irqs_per_sec, e->n, 0, &s);
	report_series(j, "receiver_irqs_per_run", e->irqs_per_run, e->n, 0, &s);
	json_u64(j, "reuse_probe_frames_handed_on", e->probe_handed);
	json_u64(j, "reuse_probe_stale_reads", e->probe_stale);
	if (e->n)
		json_bool(j, "reader_baseline_same", reclaim_baseline_same(c, (u64)null_k.median));
	if (bench_variant_is_aa(c->b, c->variant) &&
	    !read_series_summary(eps[0].loss, eps[0].n, scratch, &ref))
		json_bool(j, "reader_loss_aa_agrees", read_series_agree(&loss, &ref));
}

static const char *const reclaim_flush_words[] = { "ranged", "full", NULL };

static const struct bench_case reclaim_cases[] = {
	{ { 512, RECLAIM_FLUSH_RANGED } },
	{ { 512, RECLAIM_FLUSH_FULL } },
};

const struct bench bench_reclaim = {
	.name = "reclaim",
	.title = "readers' time for a fixed read of a range larger than stays resident",
	.metric_name = "reader_elapsed_us",
	.unit = "us",
	.exact_metric_name = "reader_elapsed_instructions",
	.headline = { { 512, RECLAIM_FLUSH_FULL } }, /* his patch's full flush per batch */
	.designs = tlb_designs,
	.runs_design = reclaim_runs_design,
	.param_names = { "pages", "flush" },
	.param_words = { NULL, reclaim_flush_words },
	.cases = reclaim_cases,
	.ncases = ARRAY_SIZE(reclaim_cases),
	.metric = BENCH_US_PER_RUN,
	.min_cpus = 2, /* the workload is readers on other CPUs */
	.idle_targets = true,
	.iters = 10,
	.warmup = 1,
	.counters = BENCH_COUNTERS(PCPU_TLB_SHOOTDOWNS, PCPU_IPI_SENT, PCPU_IPI_RECEIVED,
				   PCPU_TLB_FLUSH_ONE, PCPU_TLB_FLUSH_ALL, PCPU_SWAP_OUT_PAGES,
				   PCPU_PAGE_FAULTS),
	.setup = reclaim_setup,
	.prepare = reclaim_prepare,
	.run = reclaim_run,
	.verify = reclaim_verify,
	.report = reclaim_report,
	.teardown = reclaim_teardown,
};
BENCH_REGISTER(bench_reclaim, 27);
