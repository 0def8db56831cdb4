/*
 * Benchmark `faultlock`, after vm-scalability's anon-cow-seq(-hugetlb) and
 * the 2020 hugetlbfs i_mmap_rwsem regression: each of K CPUs faults in its
 * own address space (as separate processes do, so mm->lock is not shared)
 * whose region is attached to ONE shared mapping object (as after fork of
 * a file-backed hugetlb mapping). The timed part is one write pass over
 * the region, and nothing but its faults; the parameter `fault` says which:
 *   demand-zero: the region was zapped (untimed), so each write maps a new
 *                zeroed page;
 *   cow-copy:    the CPU's address space was just forked (untimed) from a
 *                populated parent that keeps its pages, so each write
 *                copies one: vm-scalability's anon-cow-seq, the case the
 *                2020 report measured (there on hugetlb pages);
 *   cow-reuse:   the region was populated and write-protected (untimed)
 *                with no other user, so each write only makes its page
 *                writable again.
 *   naive: every fault takes the shared mapping lock's read side, so its
 *          cache line bounces between the K CPUs (fault_lock_ops_naive)
 *   fixed: only faults on shareable regions take it (fault_lock_ops_fixed)
 * Parameter region: "private" (anonymous private: fixed takes no lock) or
 * "shareable" (MM_PT_SHAREABLE: both designs must take it). Metric: faults
 * per second over all CPUs; the BENCH line adds faults per second per CPU.
 */
#include "bench/bench.h"
#include "errno.h"
#include "kernel/json.h"
#include "kernel/smp.h"
#include "mm/fault.h"
#include "mm/mapping.h"
#include "mm/mm.h"
#include "mm/pt.h"
#include <arch/arch.h>

#define FL_BENCH_BASE 0x40000000ul
/* Each region spans one share-aligned block; the run touches its first `pages` pages. */
#define FL_BENCH_SPAN MAPPING_SHARE_ALIGN

enum fl_region { FL_REGION_PRIVATE, FL_REGION_SHAREABLE };
enum fl_fault { FL_FAULT_ZERO, FL_FAULT_COW_COPY, FL_FAULT_COW_REUSE };

struct fl_bench {
	struct mm_mapping mapping; /* the one object every CPU's region is attached to */
	struct mm *mm[MAPPING_MAX_ATTACH];     /* where CPU idx faults (cow-copy: the child) */
	struct mm *parent[MAPPING_MAX_ATTACH]; /* cow-copy: the populated parent, never loaded */
	cpumask_t others;
	unsigned pages, flags;
	enum fl_fault fault;
	u64 events0[FAULT_NR_EVENTS]; /* fault_event_count() at setup */
};

static struct fl_bench fb;

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

	mm_switch(NULL);
	for (unsigned idx = 0; idx < c->ncpus; idx++) {
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

static int fl_bench_setup(struct bench_ctx *c)
{
	bool shareable = bench_param(c, "region") == FL_REGION_SHAREABLE;
	int err = 0;

	fb.flags = MM_READ | MM_WRITE | (shareable ? MM_PT_SHAREABLE : 0);
	fb.fault = (enum fl_fault)bench_param(c, "fault");
	fb.pages = (unsigned)bench_param(c, "pages");
	if (fb.pages * PT_PAGE_4K > FL_BENCH_SPAN)
		return -EINVAL;
	mapping_init(&fb.mapping, "fl_bench", fault_lock_ops_of(c->design));
	cpumask_clear(&fb.others);
	for (unsigned idx = 1; idx < c->ncpus; idx++)
		cpumask_set_cpu(c->cpu[idx], &fb.others);
	for (unsigned idx = 0; idx < c->ncpus && !err; idx++)
		err = fl_bench_mm_create(idx);
	if (err) {
		fl_bench_teardown(c); /* the setup error is the one reported */
		return err;
	}
	for (unsigned ev = 0; ev < FAULT_NR_EVENTS; ev++)
		fb.events0[ev] = fault_event_count(ev);
	/* One operation is one page fault. */
	c->ops = (u64)c->ncpus * fb.pages;
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

/* Untimed: leave this CPU's region as the next timed pass needs it. */
static void fl_bench_prepare_cpu(struct bench_ctx *c, unsigned idx)
{
	int err;

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

/* Timed: one write pass over this CPU's region, one fault of the case's kind per page. */
static void fl_bench_run(struct bench_ctx *c, unsigned idx)
{
	(void)c;
	(void)idx;
	fl_bench_write_pass(2);
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
 * Exact counts: one timed fault per page; a lock per fault where the
 * design promises one (naive), or the region is shareable; else none.
 */
static int fl_bench_verify(struct bench_ctx *c)
{
	u64 faults = c->counter_total[PCPU_PAGE_FAULTS];
	u64 locks = c->counter_total[PCPU_MAPPING_LOCKS];
	bool locked = design_promise(c->design, PCPU_MAPPING_LOCKS) ||
		      bench_param(c, "region") == FL_REGION_SHAREABLE;
	u64 want_locks = locked ? faults : 0;

	if (faults != c->runs_done * c->ops || locks != want_locks) {
		bench_fail(c, "%lu faults and %lu mapping locks in %lu runs; expected %lu and %lu",
			   (unsigned long)faults, (unsigned long)locks, (unsigned long)c->runs_done,
			   (unsigned long)(c->runs_done * c->ops), (unsigned long)want_locks);
		return -EINVAL;
	}
	return fl_bench_verify_events(c);
}

/* Per-CPU throughput: the total (in thousandths) over the CPUs. */
static void fl_bench_report(const struct bench_ctx *c, struct json *j, u64 median)
{
	json_u64(j, "faults_per_sec_per_cpu", median / 1000 / c->ncpus);
	json_u64(j, "faults_per_cpu_per_run", fb.pages);
	if (fb.fault == FL_FAULT_COW_COPY)
		json_str(j, "vm_scalability_case", "anon-cow-seq");
}

/*
 * A shareable region needs the mapping lock in either design (fixed skips
 * it only where the mapping cannot be shared): a control, ratio 1.
 */
static const char *fl_control(const struct bench_ctx *c)
{
	return bench_param(c, "region") == FL_REGION_SHAREABLE
		       ? "region=shareable: both designs take the mapping lock"
		       : NULL;
}

static const char *const fl_region_words[] = { "private", "shareable" };
static const char *const fl_fault_words[] = { "demand-zero", "cow-copy", "cow-reuse" };
static const struct bench_case fl_cases[] = {
	{ { FL_REGION_PRIVATE, FL_FAULT_ZERO, 256 } },
	{ { FL_REGION_PRIVATE, FL_FAULT_COW_COPY, 256 } },
	{ { FL_REGION_PRIVATE, FL_FAULT_COW_REUSE, 256 } },
	{ { FL_REGION_SHAREABLE, FL_FAULT_ZERO, 256 } },
	{ { FL_REGION_SHAREABLE, FL_FAULT_COW_COPY, 256 } },
	{ { FL_REGION_SHAREABLE, FL_FAULT_COW_REUSE, 256 } },
};

const struct bench bench_faultlock = {
	.name = "faultlock",
	.metric_name = "faults_per_sec",
	.unit = "faults/s",
	.designs = fault_lock_designs,
	.param_names = { "region", "fault", "pages" },
	.param_words = { fl_region_words, fl_fault_words, NULL },
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
	.control = fl_control,
};
BENCH_REGISTER(bench_faultlock, 50);
