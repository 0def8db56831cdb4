/*
 * Benchmark `migrate`, after Huang Ying's "migrate_pages: batch flushing TLB":
 * an address space's pages moved to another node (mm_migrate_range()) while
 * readers on the other CPUs read and check those very pages. Variants differ
 * in when the old translations are flushed; one node is a control. Each run
 * starts from the same layout (untimed move back). Metric: pages migrated per
 * second, beside the readers' read cost during the migration and without it.
 */
#include "bench/bench.h"
#include "bench/tlb_readers.h"
#include "errno.h"
#include "kernel/json.h"
#include "kernel/smp.h"
#include "lib/string.h"
#include "mm/migrate.h"
#include "mm/mm.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "mm/tlb/tlb.h"
#include <arch/arch.h>

#define MIGRATE_BASE 0x40000000ul
#define MIGRATE_WINDOW_MIN_US 200
#define MIGRATE_WINDOW_MAX_US 50000
#define MIGRATE_WINDOW_FIRST_US 1000

struct migrate_bench {
	struct mm *mm;
	cpumask_t remotes;
	unsigned pages, src, dst;
	bool busy, counted;
	struct migrate_counts counts; /* every run of the episode, warm-up included */
	u64 last_run_cycles;
};

static struct migrate_bench mb;

/* Per variant, over the case's episodes: its BENCH line's figures (report runs after them all). */
static struct migrate_variant_sums {
	u64 pages, flushes, wrong;
} mvs[BENCH_MAX_VARIANTS];

static void migrate_switch_mm(void *arg)
{
	mm_switch(arg);
}

/* The destination: another node with room for the pages, else the source itself. */
static unsigned migrate_pick_dst(unsigned src, unsigned pages)
{
	for (unsigned n = 0; n < pmm_node_count(); n++) {
		struct pmm_node_stats ns;

		if (n != src && !pmm_node_stats_get(n, &ns) && ns.free >= 4ull * pages)
			return n;
	}
	return src;
}

static int migrate_teardown(struct bench_ctx *c)
{
	int err, e;

	if (mb.busy && tlb_readers_finish(c))
		bench_fail(c, "a reader did not stop");
	mb.busy = false;
	err = smp_call(&mb.remotes, migrate_switch_mm, NULL, true);
	e = mb.mm ? tlb_settle(tlb_ops_of(c->design), mb.mm) : 0;
	err = err ? err : e;
	e = tlb_design_enable(tlb_ops_of(c->design), false);
	err = err ? err : e;
	mm_switch(NULL);
	if (mb.mm) {
		e = mm_destroy(mb.mm);
		err = err ? err : e;
	}
	mb.mm = NULL;
	return err;
}

/* Every word of the range holds its own address: what readers and verify check. */
static int migrate_fill(void)
{
	u64 len = (u64)mb.pages * PAGE_SIZE;
	int err = mm_map_region(mb.mm, MIGRATE_BASE, len, MM_READ | MM_WRITE);

	if (!err)
		err = mm_populate(mb.mm, MIGRATE_BASE, len);
	for (u64 *w = (u64 *)MIGRATE_BASE; !err && (vaddr_t)w < MIGRATE_BASE + len; w++)
		*w = (u64)(uintptr_t)w;
	return err;
}

static int migrate_setup(struct bench_ctx *c)
{
	const struct tlb_readers_layout lay = {
		.shared = MIGRATE_BASE, .nshared = (unsigned)bench_param(c, "pages"),
		.check_shared = true,
	};
	int err;

	mb.pages = lay.nshared;
	mb.src = arch_cpu_node(c->cpu[0]);
	mb.dst = migrate_pick_dst(mb.src, mb.pages);
	mb.counts = (struct migrate_counts){ 0 };
	mb.mm = NULL;
	if (c->episode == 0) {
		tlb_readers_sums_reset();
		memset(mvs, 0, sizeof(mvs));
	}
	mb.last_run_cycles = arch_tsc_hz() / 1000000 * MIGRATE_WINDOW_FIRST_US;
	cpumask_clear(&mb.remotes);
	for (unsigned idx = 1; idx < c->ncpus; idx++)
		cpumask_set_cpu(c->cpu[idx], &mb.remotes);
	err = tlb_design_enable(tlb_ops_of(c->design), true);
	if (!err)
		err = mm_create_node(&mb.mm, mb.src, 0);
	if (!err) {
		mm_switch(mb.mm);
		err = migrate_fill();
	}
	if (!err)
		err = smp_call(&mb.remotes, migrate_switch_mm, mb.mm, true);
	if (!err) {
		err = tlb_readers_start(c, &lay);
		mb.busy = !err;
	}
	if (err) {
		migrate_teardown(c); /* the setup error is the one reported */
		return err;
	}
	c->ops = mb.pages;
	return 0;
}

/* Untimed: the pages moved back to the source node, the readers' baseline window. */
static int migrate_prepare(struct bench_ctx *c)
{
	const struct tlb_ops *ops = tlb_ops_of(c->design);
	int err = tlb_readers_sync();

	mb.counted = c->runs_done >= c->warmup;
	if (!err && c->runs_done)
		err = mm_migrate_range(mb.mm, MIGRATE_BASE, mb.pages, mb.src, ops, NULL);
	if (!err)
		err = tlb_settle(ops, mb.mm);
	if (!err)
		err = tlb_quiesce(ops);
	if (!err)
		err = tlb_readers_baseline(tlb_readers_window_cycles(mb.last_run_cycles,
								   MIGRATE_WINDOW_MIN_US,
								   MIGRATE_WINDOW_MAX_US),
					   mb.counted);
	return err;
}

/* Timed: the pages moved to the destination node, MIGRATE_BATCH per gather. */
static void migrate_run(struct bench_ctx *c, unsigned idx)
{
	u64 t0 = arch_tsc_read();
	int err;

	(void)idx;
	tlb_readers_timed_begin(mb.counted);
	err = mm_migrate_range(mb.mm, MIGRATE_BASE, mb.pages, mb.dst, tlb_ops_of(c->design),
			       &mb.counts);
	tlb_readers_timed_end();
	mb.last_run_cycles = arch_tsc_read() - t0;
	if (err)
		bench_fail(c, "migration failed (%s)", errno_name(err));
}

/* Pages not on the destination node, or with a word that is not its own address. */
static unsigned migrate_bad_pages(void)
{
	unsigned bad = 0;

	for (unsigned i = 0; i < mb.pages; i++) {
		vaddr_t va = MIGRATE_BASE + (vaddr_t)i * PAGE_SIZE;
		const u64 *w;
		paddr_t pa;
		bool ok = !pt_lookup(mb.mm->root, va, &pa, NULL, NULL) &&
			  page_node(phys_to_page(pa)) == mb.dst;

		w = ok ? phys_to_virt(pa) : NULL;
		for (unsigned k = 0; ok && k < PAGE_SIZE / 8; k++)
			ok = w[k] == va + 8 * k;
		bad += !ok;
	}
	return bad;
}

/* The flush rounds naive and batched do in @runs runs, exactly (0: no exact promise). */
static u64 migrate_expected_flushes(const struct tlb_ops *ops, u64 runs)
{
	if (ops->add == tlb_add_flush_first)
		return runs * mb.pages;
	if (!ops->add && !ops->gather_flush)
		return runs * ((mb.pages + MIGRATE_BATCH - 1) / MIGRATE_BATCH);
	return 0;
}

/* What the promises and mm_migrate_range()'s own counts say of the flushes. */
static int migrate_check_flushes(struct bench_ctx *c)
{
	const struct design *d = c->design;
	u64 runs = c->runs_done, batches = mb.pages / MIGRATE_BATCH;
	u64 want = migrate_expected_flushes(tlb_ops_of(d), runs);
	const struct design_promise *p;

	if (want && mb.counts.flushes != want) {
		bench_fail(c, "%lu flush rounds in %lu runs of %u pages; %s does %lu",
			   (unsigned long)mb.counts.flushes, (unsigned long)runs, mb.pages, d->name,
			   (unsigned long)want);
		return -EINVAL;
	}
	design_for_each_promise(p, d) {
		u64 got = bench_counter_total(c, p->counter);

		if (design_kept(p, got, runs * batches, MIGRATE_BATCH, c->ncpus - 1))
			continue;
		bench_fail(c, "%s promises %s%u %s per %u %s(s) (%lu in %lu batches of %u)",
			   d->name, p->at_most ? "at most " : "", p->count,
			   percpu_counter_name(p->counter), p->per, d->unit, (unsigned long)got,
			   (unsigned long)(runs * batches), MIGRATE_BATCH);
		return -EINVAL;
	}
	return 0;
}

/*
 * After the runs: every page moved and copied once per run, now on the
 * destination node with its content, no reader ever read a wrong value,
 * and the flush rounds exact (naive: one per page; batched: one per batch).
 */
static int migrate_verify(struct bench_ctx *c)
{
	u64 runs = c->runs_done, copies = bench_counter_total(c, PCPU_MIGRATE_COPIES);
	unsigned bad = migrate_bad_pages();
	int err = tlb_readers_sync();

	if (err || tlb_readers_wrong()) {
		bench_fail(c, "readers read %lu wrong values%s", (unsigned long)tlb_readers_wrong(),
			   err ? " (and did not sync)" : "");
		return -EINVAL;
	}
	if (mb.counts.moved != runs * mb.pages || copies != runs * mb.pages || bad) {
		bench_fail(c, "%lu moved, %lu copied in %lu runs of %u pages; %u pages not on "
			   "node %u or not intact", (unsigned long)mb.counts.moved,
			   (unsigned long)copies, (unsigned long)runs, mb.pages, bad, mb.dst);
		return -EINVAL;
	}
	mvs[c->variant].pages += runs * mb.pages;
	mvs[c->variant].flushes += mb.counts.flushes;
	mvs[c->variant].wrong += tlb_readers_wrong();
	return migrate_check_flushes(c);
}

static void migrate_report(const struct bench_ctx *c, struct json *j, u64 median)
{
	const struct tlb_reader_sums *s = tlb_readers_sums(c->variant);
	const struct migrate_variant_sums *v = &mvs[c->variant];

	(void)median;
	json_u64(j, "src_node", mb.src);
	json_u64(j, "dst_node", mb.dst);
	json_bool(j, "dst_node_is_src", mb.dst == mb.src); /* one node: the control */
	json_u64(j, "batch_pages", MIGRATE_BATCH);
	json_u64(j, "flushes_per_kpage", v->pages ? v->flushes * 1000 / v->pages : 0);
	json_u64(j, "reader_cycles_per_kread", read_cycles_per_kread(&s->timed));
	json_u64(j, "reader_baseline_cycles_per_kread", read_cycles_per_kread(&s->base));
	json_s64(j, "reader_loss_pct_milli", read_loss_pct_milli(&s->base, &s->timed));
	json_u64(j, "reader_wrong_values", v->wrong);
}

static const struct bench_case migrate_cases[] = {
	{ { 256 } },
};

const struct bench bench_migrate = {
	.name = "migrate",
	.title = "pages migrated between nodes while other CPUs read them",
	.exact_metric_name = "instructions_per_page",
	.headline = { { 256 } },
	.metric_name = "pages_migrated_per_sec",
	.unit = "pages/s",
	.designs = tlb_designs,
	.param_names = { "pages" },
	.cases = migrate_cases,
	.ncases = ARRAY_SIZE(migrate_cases),
	.metric = BENCH_OPS_PER_SEC,
	.min_cpus = 2, /* the workload is readers on other CPUs */
	.idle_targets = true,
	.iters = 10,
	.warmup = 1,
	.counters = BENCH_COUNTERS(PCPU_TLB_SHOOTDOWNS, PCPU_IPI_SENT, PCPU_IPI_RECEIVED,
				   PCPU_TLB_FLUSH_ONE, PCPU_TLB_FLUSH_ALL, PCPU_MIGRATE_COPIES),
	.setup = migrate_setup,
	.prepare = migrate_prepare,
	.run = migrate_run,
	.verify = migrate_verify,
	.report = migrate_report,
	.teardown = migrate_teardown,
};
BENCH_REGISTER(bench_migrate, 28);
