/*
 * Benchmark `faultlock`, after vm-scalability's anon-cow-seq(-hugetlb) and
 * the 2020 hugetlbfs i_mmap_rwsem regression: each of K CPUs has its own
 * address space (as separate processes do, so mm->lock is not shared)
 * whose region is attached to ONE shared mapping object (as after fork of
 * a file-backed hugetlb mapping). Each CPU write-faults its way through
 * its region (demand-zero), write-protects it with mm_cow_protect() and
 * writes it again (copy-on-write faults). Before each run (untimed) each
 * CPU zaps its region through the mapping's writer path.
 *   naive: every fault takes the shared mapping lock's read side, so its
 *          cache line bounces between the K CPUs (fault_lock_naive)
 *   fixed: only faults on shareable regions take it (fault_lock_fixed)
 * Parameter region: "private" (anonymous private: fixed takes no lock) or
 * "shareable" (MM_PT_SHAREABLE: both designs must take it). Metric: faults
 * per second over all CPUs; the BENCH line adds faults per second per CPU.
 */
#include "bench/bench.h"
#include "errno.h"
#include "kernel/json.h"
#include "kernel/smp.h"
#include "mm/mapping.h"
#include "mm/mm.h"
#include "mm/pt.h"
#include <arch/arch.h>

#define FL_BENCH_BASE 0x40000000ul
/* Each region spans one share-aligned block; the run touches its first `pages` pages. */
#define FL_BENCH_SPAN MAPPING_SHARE_ALIGN
#define FL_BENCH_PASSES 2 /* demand-zero, then copy-on-write */

enum fl_region { FL_REGION_PRIVATE, FL_REGION_SHAREABLE };

struct fl_bench {
	struct mm_mapping mapping; /* the one object every CPU's region is attached to */
	struct mm *mm[MAPPING_MAX_ATTACH];
	cpumask_t others;
	unsigned pages;
};

static struct fl_bench fb;
static const struct fault_lock_ops *const fl_bench_ops[] = { &fault_lock_naive,
							     &fault_lock_fixed };

static void fl_bench_switch_away(void *arg)
{
	(void)arg;
	mm_switch(NULL);
}

/* Returns 0 or the first error (-EBUSY: an mm still loaded, so still in use: kept). */
static int fl_bench_teardown(struct bench_ctx *c)
{
	int err = smp_call(&fb.others, fl_bench_switch_away, NULL, true);

	mm_switch(NULL);
	for (unsigned idx = 0; idx < c->ncpus; idx++) {
		int e;

		if (!fb.mm[idx])
			continue;
		mapping_detach(&fb.mapping, fb.mm[idx], FL_BENCH_BASE);
		e = mm_destroy(fb.mm[idx]);
		if (!err)
			err = e;
		fb.mm[idx] = NULL;
	}
	fault_set_lock_ops(&fault_lock_fixed);
	return err;
}

/* CPU @idx's address space: one region, attached to the shared mapping. */
static int fl_bench_mm_create(unsigned idx, unsigned flags)
{
	int err = mm_create(&fb.mm[idx]);

	if (!err)
		err = mm_map_region(fb.mm[idx], FL_BENCH_BASE, FL_BENCH_SPAN, flags);
	if (!err)
		err = mapping_attach(&fb.mapping, fb.mm[idx], FL_BENCH_BASE);
	return err;
}

static int fl_bench_setup(struct bench_ctx *c)
{
	bool shareable = bench_param(c, "region") == FL_REGION_SHAREABLE;
	unsigned flags = MM_READ | MM_WRITE | (shareable ? MM_PT_SHAREABLE : 0);
	int err = 0;

	fb.pages = (unsigned)bench_param(c, "pages");
	if (fb.pages * PT_PAGE_4K > FL_BENCH_SPAN)
		return -EINVAL;
	mapping_init(&fb.mapping, "fl_bench");
	cpumask_clear(&fb.others);
	for (unsigned idx = 1; idx < c->ncpus; idx++)
		cpumask_set_cpu(c->cpu[idx], &fb.others);
	for (unsigned idx = 0; idx < c->ncpus && !err; idx++)
		err = fl_bench_mm_create(idx, flags);
	if (err) {
		fl_bench_teardown(c); /* the setup error is the one reported */
		return err;
	}
	fault_set_lock_ops(fl_bench_ops[c->variant]);
	/* One operation is one page fault. */
	c->ops = (u64)c->ncpus * fb.pages * FL_BENCH_PASSES;
	return 0;
}

/* Untimed: load this CPU's mm and zap what the last run faulted in. */
static void fl_bench_prepare_cpu(struct bench_ctx *c, unsigned idx)
{
	int err;

	mm_switch(fb.mm[idx]);
	err = mapping_zap(&fb.mapping, fb.mm[idx]);
	if (err)
		bench_fail(c, "CPU %u: zap failed (%s)", c->cpu[idx], errno_name(err));
}

static void fl_bench_write_pass(u64 value)
{
	for (unsigned i = 0; i < fb.pages; i++)
		*(volatile u64 *)(FL_BENCH_BASE + (vaddr_t)i * PT_PAGE_4K) = value + i;
}

/* Timed: a demand-zero pass, then a copy-on-write pass, over this CPU's region. */
static void fl_bench_run(struct bench_ctx *c, unsigned idx)
{
	int err;

	fl_bench_write_pass(1);
	err = mm_cow_protect(fb.mm[idx], FL_BENCH_BASE, (u64)fb.pages * PT_PAGE_4K);
	if (err)
		bench_fail(c, "CPU %u: cow_protect failed (%s)", c->cpu[idx], errno_name(err));
	fl_bench_write_pass(2);
}

/* Exact promises: one fault per page per pass; naive one lock per fault, fixed none on private. */
static int fl_bench_verify(struct bench_ctx *c)
{
	u64 faults = c->counter_total[PCPU_PAGE_FAULTS];
	u64 locks = c->counter_total[PCPU_MAPPING_LOCKS];
	bool locked = c->variant == 0 || bench_param(c, "region") == FL_REGION_SHAREABLE;
	u64 want_locks = locked ? faults : 0;

	if (faults != c->runs_done * c->ops || locks != want_locks) {
		bench_fail(c, "%lu faults and %lu mapping locks in %lu runs; expected %lu and %lu",
			   (unsigned long)faults, (unsigned long)locks, (unsigned long)c->runs_done,
			   (unsigned long)(c->runs_done * c->ops), (unsigned long)want_locks);
		return -EINVAL;
	}
	return 0;
}

/* Per-CPU throughput: the total (in thousandths) over the CPUs. */
static void fl_bench_report(const struct bench_ctx *c, struct json *j, u64 median)
{
	json_u64(j, "faults_per_sec_per_cpu", median / 1000 / c->ncpus);
	json_u64(j, "faults_per_cpu_per_run", (u64)fb.pages * FL_BENCH_PASSES);
}

static const char *const fl_variants[] = { "naive", "fixed" };
static const char *const fl_region_words[] = { "private", "shareable" };
static const struct bench_case fl_cases[] = {
	{ { FL_REGION_PRIVATE, 256 } },
	{ { FL_REGION_SHAREABLE, 256 } },
};

const struct bench bench_faultlock = {
	.name = "faultlock",
	.metric_name = "faults_per_sec",
	.unit = "faults/s",
	.variants = fl_variants,
	.nvariants = 2,
	.param_names = { "region", "pages" },
	.param_words = { fl_region_words, NULL },
	.cases = fl_cases,
	.ncases = ARRAY_SIZE(fl_cases),
	.metric = BENCH_OPS_PER_SEC,
	.min_cpus = 1,
	.max_cpus = MAPPING_MAX_ATTACH,
	.iters = 10,
	.warmup = 2,
	.counters = { PCPU_MAPPING_LOCKS, PCPU_PAGE_FAULTS },
	.ncounters = 2,
	.setup = fl_bench_setup,
	.prepare_cpu = fl_bench_prepare_cpu,
	.run = fl_bench_run,
	.verify = fl_bench_verify,
	.report = fl_bench_report,
	.teardown = fl_bench_teardown,
};
