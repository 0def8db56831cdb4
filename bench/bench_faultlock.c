/*
 * Benchmark `faultlock`, after vm-scalability's anon-cow-seq and the
 * hugetlbfs i_mmap_rwsem regression: K CPUs fault, each in its own address
 * space, on regions attached to ONE shared mapping object; the timed part is
 * one write pass. Variants are the fault lock designs (mm/mapping/designs/);
 * parameters region, fault and writer are described at their enums.
 * Metric: faults per second over the faulting CPUs.
 */
#include "bench/bench.h"
#include "errno.h"
#include "kernel/json.h"
#include "kernel/timing.h"
#include "kernel/smp.h"
#include "lib/math.h"
#include "lib/stats.h"
#include "mm/fault.h"
#include "mm/mapping/mapping.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pt.h"
#include <arch/arch.h>

#define FL_BENCH_BASE 0x40000000ul
/* Each region spans one share-aligned block; the run touches its first `pages` pages. */
#define FL_BENCH_SPAN MAPPING_SHARE_ALIGN

#define FL_WRITER_PAGES 16 /* writer=fork: pages of the writer's region, copied by each fork */
/*
 * Exact mode, writer=fork: a vCPU keeps its turn until it yields, so a
 * writer that forks "while the faulters fault" would fork only where the
 * emulator's time slice happens to end a faulter's turn. So the writer's
 * work is defined: one fork per this many pages of a pass, and the
 * faulters yield after as many faults, which interleaves the two.
 */
#define FL_FAULTS_PER_FORK 16

/*
 * Parameters. region: "private" (only the naive design takes a lock) or
 * "shareable" (MM_PT_SHAREABLE: every design takes one). fault: demand-zero
 * (region zapped, untimed: each write maps a zeroed page), cow-copy (just
 * forked from a populated parent that keeps its pages: each write copies,
 * as in anon-cow-seq) or cow-reuse (write-protected with no other user:
 * each write only makes its page writable again). writer: "none", or
 * "fork": the last CPU, as in Kravetz's report, forks address spaces
 * attached to the same mapping while the others fault, in the same timed
 * run (detaching a child takes the mapping's write side); its rate goes on
 * the BENCH line as writer_ops_per_s, so a design that stalls the writer,
 * or that the writer stalls, shows it.
 */
enum fl_region { FL_REGION_PRIVATE, FL_REGION_SHAREABLE };
enum fl_fault { FL_FAULT_ZERO, FL_FAULT_COW_COPY, FL_FAULT_COW_REUSE };
enum fl_writer { FL_WRITER_NONE, FL_WRITER_FORK };

struct fl_bench {
	struct mm_mapping mapping; /* the one object every CPU's region is attached to */
	struct mm *mm[MAPPING_MAX_ATTACH];     /* where CPU idx faults (cow-copy: the child) */
	struct mm *parent[MAPPING_MAX_ATTACH]; /* cow-copy: the populated parent, never loaded */
	struct mm *wmm;			       /* writer=fork: what it forks, never loaded */
	cpumask_t others;
	unsigned pages, flags;
	unsigned nfaulters; /* the CPUs that fault: all, or all but the writer (the last) */
	enum fl_fault fault;
	unsigned writer_forks; /* exact mode, writer=fork: forks per run; else 0 (until done) */
	u32 faulters_done; /* this run's faulters past their pass: the writer stops */
	u64 writer_ops;	   /* forks over the episode */
	u64 events0[FAULT_NR_EVENTS]; /* fault_event_count() at setup */
};

static struct fl_bench fb;

/*
 * writer=fork: the writer's rate in each timed run, per variant, over the
 * episodes of one (case, CPU count): report() gives their median.
 */
static struct fl_writer_rates {
	const struct bench_case *bcase;
	unsigned ncpus;
	unsigned n[BENCH_MAX_VARIANTS];
	u64 rate[BENCH_MAX_VARIANTS][BENCH_MAX_RUNS];
} fw;

static void fl_bench_switch_away(void *arg)
{
	(void)arg;
	mm_switch(NULL);
}

/* Detaches and frees CPU @idx's faulting address space (not loaded anywhere). */
static int fl_bench_mm_free(unsigned idx)
{
	int err;

	if (!fb.mm[idx])
		return 0;
	mapping_detach(&fb.mapping, fb.mm[idx], FL_BENCH_BASE);
	err = mm_destroy(fb.mm[idx]);
	fb.mm[idx] = NULL;
	return err;
}

/* Returns 0 or the first error (-EBUSY: an mm still loaded, so still in use: kept). */
static int fl_bench_teardown(struct bench_ctx *c)
{
	int err = smp_call(&fb.others, fl_bench_switch_away, NULL, true);

	(void)c;
	mm_switch(NULL);
	if (fb.wmm) {
		int e;

		mapping_detach(&fb.mapping, fb.wmm, FL_BENCH_BASE);
		e = mm_destroy(fb.wmm);
		if (!err)
			err = e;
		fb.wmm = NULL;
	}
	for (unsigned idx = 0; idx < fb.nfaulters; idx++) {
		int e = fl_bench_mm_free(idx);

		if (!err)
			err = e;
		if (fb.parent[idx]) {
			e = mm_destroy(fb.parent[idx]);
			if (!err)
				err = e;
		}
		fb.parent[idx] = NULL;
	}
	return err;
}

/* A fresh address space with the bench's region. */
static int fl_bench_mm_new(struct mm **out)
{
	int err = mm_create(out);

	if (!err)
		err = mm_map_region(*out, FL_BENCH_BASE, FL_BENCH_SPAN, fb.flags);
	return err;
}

/* CPU @idx's address spaces: cow-copy a populated parent (its child comes per run), else one. */
static int fl_bench_mm_create(unsigned idx)
{
	int err;

	if (fb.fault != FL_FAULT_COW_COPY) {
		err = fl_bench_mm_new(&fb.mm[idx]);
		return err ? err : mapping_attach(&fb.mapping, fb.mm[idx], FL_BENCH_BASE);
	}
	err = fl_bench_mm_new(&fb.parent[idx]);
	return err ? err : mm_populate(fb.parent[idx], FL_BENCH_BASE, (u64)fb.pages * PT_PAGE_4K);
}

/* writer=fork: the writer's address space, its region attached and populated. */
static int fl_bench_writer_create(void)
{
	int err = fl_bench_mm_new(&fb.wmm);

	if (!err)
		err = mapping_attach(&fb.mapping, fb.wmm, FL_BENCH_BASE);
	if (!err)
		err = mm_populate(fb.wmm, FL_BENCH_BASE, FL_WRITER_PAGES * PT_PAGE_4K);
	return err;
}

/* writer=fork: a new (case, CPU count) starts with no writer rate recorded. */
static void fl_writer_rates_start(const struct bench_ctx *c)
{
	if (fw.bcase == c->bcase && fw.ncpus == c->ncpus)
		return;
	fw.bcase = c->bcase;
	fw.ncpus = c->ncpus;
	for (unsigned v = 0; v < BENCH_MAX_VARIANTS; v++)
		fw.n[v] = 0;
}

static int fl_bench_setup(struct bench_ctx *c)
{
	bool shareable = bench_param(c, "region") == FL_REGION_SHAREABLE;
	bool writer = bench_param(c, "writer") == FL_WRITER_FORK;
	int err = 0;

	fb.flags = MM_READ | MM_WRITE | (shareable ? MM_PT_SHAREABLE : 0);
	fb.fault = (enum fl_fault)bench_param(c, "fault");
	fb.pages = (unsigned)bench_param(c, "pages");
	fb.nfaulters = c->ncpus - (writer ? 1 : 0);
	fb.writer_ops = 0;
	fb.writer_forks = writer && timing_exact() ? MAX(fb.pages / FL_FAULTS_PER_FORK, 1u) : 0;
	if (fb.pages * PT_PAGE_4K > FL_BENCH_SPAN || !fb.nfaulters)
		return -EINVAL;
	fl_writer_rates_start(c);
	mapping_init(&fb.mapping, "fl_bench", fault_lock_ops_of(c->design));
	cpumask_clear(&fb.others);
	for (unsigned idx = 1; idx < c->ncpus; idx++)
		cpumask_set_cpu(c->cpu[idx], &fb.others);
	for (unsigned idx = 0; idx < fb.nfaulters && !err; idx++)
		err = fl_bench_mm_create(idx);
	if (!err && writer)
		err = fl_bench_writer_create();
	if (err) {
		fl_bench_teardown(c); /* the setup error is the one reported */
		return err;
	}
	for (unsigned ev = 0; ev < FAULT_NR_EVENTS; ev++)
		fb.events0[ev] = fault_event_count(ev);
	/* One operation is one page fault. */
	c->ops = (u64)fb.nfaulters * fb.pages;
	return 0;
}

/* Before each run: no faulter is done yet. */
static int fl_bench_prepare(struct bench_ctx *c)
{
	(void)c;
	atomic_store_release(&fb.faulters_done, 0);
	return 0;
}

static void fl_bench_write_pass(u64 value)
{
	for (unsigned i = 0; i < fb.pages; i++)
		*(volatile u64 *)(FL_BENCH_BASE + (vaddr_t)i * PT_PAGE_4K) = value + i;
}

/* cow-copy: a new child of the parent, sharing its pages read-only, attached and loaded. */
static int fl_bench_fork(unsigned idx)
{
	int err;

	mm_switch(NULL);
	err = fl_bench_mm_free(idx);
	if (!err)
		err = mm_fork(fb.parent[idx], &fb.mm[idx]);
	if (!err)
		err = mapping_attach(&fb.mapping, fb.mm[idx], FL_BENCH_BASE);
	if (!err)
		mm_switch(fb.mm[idx]);
	return err;
}

/* Untimed: leave this CPU's region as the next timed pass needs it (the writer has none). */
static void fl_bench_prepare_cpu(struct bench_ctx *c, unsigned idx)
{
	int err;

	if (idx >= fb.nfaulters)
		return;
	if (fb.fault == FL_FAULT_COW_COPY) {
		err = fl_bench_fork(idx);
	} else {
		mm_switch(fb.mm[idx]);
		err = mapping_zap(&fb.mapping, fb.mm[idx]);
	}
	if (!err && fb.fault == FL_FAULT_COW_REUSE) {
		fl_bench_write_pass(1); /* demand-zero faults, not timed */
		err = mm_cow_protect(fb.mm[idx], FL_BENCH_BASE, (u64)fb.pages * PT_PAGE_4K);
	}
	if (err)
		bench_fail(c, "CPU %u: preparing the region failed (%s)", c->cpu[idx],
			   errno_name(err));
}

/* One writer operation: fork the writer's mm (the child's region is attached), then undo it. */
static int fl_bench_fork_once(void)
{
	struct mm *child;
	int err = mm_fork(fb.wmm, &child);

	if (err)
		return err;
	err = mapping_detach(&fb.mapping, child, FL_BENCH_BASE);
	return mm_destroy(child) ?: err;
}

/* Whether the writer forks again after @n: a fixed count (exact), else until the faulters end. */
static bool fl_writer_more(u64 n)
{
	if (fb.writer_forks)
		return n < fb.writer_forks;
	return atomic_load_acquire(&fb.faulters_done) < fb.nfaulters;
}

/* Timed, on the last CPU: forks (fl_writer_more()); records the rate of a timed run. */
static void fl_bench_writer(struct bench_ctx *c, unsigned idx)
{
	u64 t0 = arch_tsc_read(), n = 0, cycles;
	int err = 0;

	while (!err && fl_writer_more(n)) {
		err = fl_bench_fork_once();
		n += !err;
		timing_yield(); /* the faulters it races run in between (exact mode) */
	}
	cycles = MAX(arch_tsc_read() - t0, 1ull);
	if (err)
		bench_fail(c, "CPU %u: the writer's fork failed (%s)", c->cpu[idx],
			   errno_name(err));
	fb.writer_ops += n;
	if (c->runs_done >= c->warmup && fw.n[c->variant] < BENCH_MAX_RUNS)
		fw.rate[c->variant][fw.n[c->variant]++] = mul_div_u64(n, arch_tsc_hz(), cycles);
}

/* Timed: the write pass; beside an exact-mode writer, it yields every FL_FAULTS_PER_FORK faults. */
static void fl_bench_fault_pass(void)
{
	for (unsigned i = 0; i < fb.pages; i++) {
		*(volatile u64 *)(FL_BENCH_BASE + (vaddr_t)i * PT_PAGE_4K) = 2 + i;
		if (fb.writer_forks && i % FL_FAULTS_PER_FORK == FL_FAULTS_PER_FORK - 1)
			timing_yield();
	}
}

/* Timed: one write pass over this CPU's region, one fault of the case's kind per page. */
static void fl_bench_run(struct bench_ctx *c, unsigned idx)
{
	if (idx >= fb.nfaulters) {
		fl_bench_writer(c, idx);
		return;
	}
	fl_bench_fault_pass();
	atomic_fetch_add(&fb.faulters_done, 1);
}

/*
 * Faults of each kind over the whole case, untimed ones included: the
 * timed passes' kind once per page per run, and cow-reuse's untimed
 * demand-zero pass as many again; nothing spurious, nothing failed.
 */
static u64 fl_bench_events_expected(const struct bench_ctx *c, enum fault_event ev)
{
	u64 per_pass = c->runs_done * c->ops;
	static const enum fault_event kind[] = {
		[FL_FAULT_ZERO] = FAULT_EV_ZERO,
		[FL_FAULT_COW_COPY] = FAULT_EV_COW_COPY,
		[FL_FAULT_COW_REUSE] = FAULT_EV_COW_REUSE,
	};

	if (ev == kind[fb.fault] || (fb.fault == FL_FAULT_COW_REUSE && ev == FAULT_EV_ZERO))
		return per_pass;
	return 0;
}

static int fl_bench_verify_events(struct bench_ctx *c)
{
	for (unsigned ev = 0; ev < FAULT_NR_EVENTS; ev++) {
		u64 got = fault_event_count(ev) - fb.events0[ev];
		u64 want = fl_bench_events_expected(c, ev);

		if (got != want) {
			bench_fail(c, "fault event %u: %lu in %lu runs, expected %lu", ev,
				   (unsigned long)got, (unsigned long)c->runs_done,
				   (unsigned long)want);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Whether design @d's faults on shareable regions take the region's own
 * lock: it promises no mapping lock ever (vma_lock).
 */
static bool fl_per_region(const struct design *d)
{
	const struct design_promise *p = design_promise(d, PCPU_MAPPING_LOCKS);

	return p && p->count == 0;
}

/* Whether design @d promises a mapping lock on every fault (naive). */
static bool fl_every_fault(const struct design *d)
{
	const struct design_promise *p = design_promise(d, PCPU_MAPPING_LOCKS);

	return p && p->count > 0;
}

/*
 * writer=fork: the writer's address space as it started (every page
 * mapped once, its only reference: the children are gone) and the
 * mapping's table back to the faulters' regions and the writer's.
 */
static int fl_bench_verify_writer(struct bench_ctx *c)
{
	unsigned attached = 0;

	if (!fb.wmm)
		return 0;
	if (fb.writer_forks && fb.writer_ops != c->runs_done * fb.writer_forks) {
		bench_fail(c, "the writer forked %lu times in %lu runs, expected %u per run",
			   (unsigned long)fb.writer_ops, (unsigned long)c->runs_done,
			   fb.writer_forks);
		return -EINVAL;
	}
	for (unsigned i = 0; i < fb.mapping.nattach; i++)
		attached += fb.mapping.attach[i].mm != NULL;
	for (unsigned i = 0; i < FL_WRITER_PAGES && attached == fb.nfaulters + 1; i++) {
		paddr_t pa;

		if (pt_lookup(fb.wmm->root, FL_BENCH_BASE + (vaddr_t)i * PT_PAGE_4K, &pa, NULL,
			      NULL) ||
		    page_ref_count(phys_to_page(pa)) != 1 || page_mapcount(phys_to_page(pa)) != 1) {
			bench_fail(c, "writer page %u not back to one mapping after %lu forks", i,
				   (unsigned long)fb.writer_ops);
			return -EINVAL;
		}
	}
	if (attached == fb.nfaulters + 1)
		return 0;
	bench_fail(c, "%u regions left attached after %lu forks, expected %u", attached,
		   (unsigned long)fb.writer_ops, fb.nfaulters + 1);
	return -EINVAL;
}

/*
 * Exact counts: one timed fault per page; a mapping lock per fault where
 * the design promises one (naive), or the region is shareable and its
 * faults do not take their region's lock instead; a vma lock per fault
 * where they do (vma_lock, shareable); else none.
 */
static int fl_bench_verify(struct bench_ctx *c)
{
	u64 faults = bench_counter_total(c, PCPU_PAGE_FAULTS);
	u64 locks = bench_counter_total(c, PCPU_MAPPING_LOCKS);
	u64 vlocks = bench_counter_total(c, PCPU_VMA_LOCKS);
	bool shareable = bench_param(c, "region") == FL_REGION_SHAREABLE;
	bool per_region = fl_per_region(c->design);
	u64 want_locks = fl_every_fault(c->design) || (shareable && !per_region) ? faults : 0;
	u64 want_vlocks = shareable && per_region ? faults : 0;

	if (faults != c->runs_done * c->ops || locks != want_locks || vlocks != want_vlocks) {
		bench_fail(c, "%lu faults, %lu mapping and %lu vma locks in %lu runs; expected %lu, "
			      "%lu and %lu", (unsigned long)faults, (unsigned long)locks,
			   (unsigned long)vlocks, (unsigned long)c->runs_done,
			   (unsigned long)(c->runs_done * c->ops), (unsigned long)want_locks,
			   (unsigned long)want_vlocks);
		return -EINVAL;
	}
	return fl_bench_verify_writer(c) ?: fl_bench_verify_events(c);
}

/* writer=fork: the median of the writer's rate over this variant's timed runs. */
static void fl_bench_report_writer(const struct bench_ctx *c, struct json *j)
{
	struct stats st;

	if (bench_param(c, "writer") != FL_WRITER_FORK)
		return;
	json_str(j, "writer", "fork");
	json_u64(j, "writer_cpus", 1);
	if (fb.writer_forks)
		json_u64(j, "writer_forks_per_run", fb.writer_forks);
	if (!stats_compute(fw.rate[c->variant], fw.n[c->variant], &st))
		json_u64(j, "writer_ops_per_s", st.median);
	fw.n[c->variant] = 0;
}

/* Per-CPU throughput: the total (in thousandths) over the faulting CPUs. */
static void fl_bench_report(const struct bench_ctx *c, struct json *j, u64 median)
{
	unsigned nfaulters = c->ncpus - (bench_param(c, "writer") == FL_WRITER_FORK ? 1 : 0);

	json_u64(j, "faults_per_sec_per_cpu", median / 1000 / MAX(nfaulters, 1u));
	json_u64(j, "faults_per_cpu_per_run", fb.pages);
	json_u64(j, "faulting_cpus", nfaulters);
	if (fb.fault == FL_FAULT_COW_COPY)
		json_str(j, "vm_scalability_case", "anon-cow-seq");
	fl_bench_report_writer(c, j);
}

/*
 * A shareable region needs the mapping lock in naive and fixed alike
 * (fixed skips it only where the mapping cannot be shared): fixed's row
 * is a control, ratio 1. vma_lock takes the region's own lock there: a
 * result, as is every design on private regions.
 */
static const char *fl_control(const struct bench_ctx *c)
{
	bool shareable = bench_param(c, "region") == FL_REGION_SHAREABLE;

	return shareable && !fl_every_fault(c->design) && !fl_per_region(c->design)
		       ? "region=shareable: naive and fixed take the mapping lock"
		       : NULL;
}

/* writer=fork needs a CPU for the writer besides one faulter. */
static unsigned fl_case_min_cpus(const struct bench_case *bc)
{
	return bc->param[3] == FL_WRITER_FORK ? 2 : 1;
}

static const char *const fl_region_words[] = { "private", "shareable" };
static const char *const fl_fault_words[] = { "demand-zero", "cow-copy", "cow-reuse" };
static const char *const fl_writer_words[] = { "none", "fork" };
/* writer=fork on demand-zero faults: Kravetz's fault load beside a forking process. */
static const struct bench_case fl_cases[] = {
	{ { FL_REGION_PRIVATE, FL_FAULT_ZERO, 256, FL_WRITER_NONE } },
	{ { FL_REGION_PRIVATE, FL_FAULT_COW_COPY, 256, FL_WRITER_NONE } },
	{ { FL_REGION_PRIVATE, FL_FAULT_COW_REUSE, 256, FL_WRITER_NONE } },
	{ { FL_REGION_SHAREABLE, FL_FAULT_ZERO, 256, FL_WRITER_NONE } },
	{ { FL_REGION_SHAREABLE, FL_FAULT_COW_COPY, 256, FL_WRITER_NONE } },
	{ { FL_REGION_SHAREABLE, FL_FAULT_COW_REUSE, 256, FL_WRITER_NONE } },
	{ { FL_REGION_PRIVATE, FL_FAULT_ZERO, 256, FL_WRITER_FORK } },
	{ { FL_REGION_SHAREABLE, FL_FAULT_ZERO, 256, FL_WRITER_FORK } },
};

const struct bench bench_faultlock = {
	.name = "faultlock",
	.title = "page faults on every CPU at once",
	.exact_metric_name = "instructions_per_fault",
	/* The private mapping that takes the shared lock for nothing. */
	.headline = { { FL_REGION_PRIVATE, FL_FAULT_ZERO, 256, FL_WRITER_NONE } },
	.metric_name = "faults_per_sec",
	.unit = "faults/s",
	.designs = fault_lock_designs,
	.param_names = { "region", "fault", "pages", "writer" },
	.param_words = { fl_region_words, fl_fault_words, NULL, fl_writer_words },
	.cases = fl_cases,
	.ncases = ARRAY_SIZE(fl_cases),
	.metric = BENCH_OPS_PER_SEC,
	.min_cpus = 1,
	.max_cpus = MAPPING_MAX_ATTACH - 2, /* writer=fork: its region and its child's */
	.case_min_cpus = fl_case_min_cpus,
	.iters = 10,
	.warmup = 2,
	.counters = BENCH_COUNTERS(PCPU_MAPPING_LOCKS, PCPU_VMA_LOCKS, PCPU_PAGE_FAULTS),
	.setup = fl_bench_setup,
	.prepare = fl_bench_prepare,
	.prepare_cpu = fl_bench_prepare_cpu,
	.run = fl_bench_run,
	.verify = fl_bench_verify,
	.report = fl_bench_report,
	.teardown = fl_bench_teardown,
	.control = fl_control,
};
BENCH_REGISTER(bench_faultlock, 50);
