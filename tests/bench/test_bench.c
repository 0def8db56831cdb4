/*
 * Self-tests of the benchmark harness with a probe benchmark: each CPU runs
 * each run exactly once, the episode hooks run once per episode, a failing
 * variant stops alone, idle_targets keeps the other CPUs out, variants
 * alternate in a seeded order, CPU counts out of range are skipped, a failed
 * teardown stops the benchmark, and the A/A control "aa" reruns the
 * reference design each round. Kernel only (needs the CPUs).
 */
/* build: kernel only */
#include "bench/bench.h"
#include "errno.h"
#include "kernel/cmdline.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "lib/string.h"
#include "mm/mm.h"
#include "tests/ktest.h"
#include <arch/arch.h>

#define PROBE_ITERS 3
#define PROBE_WARMUP 1

#define PROBE_ORDER_MAX 64

struct probe_counts {
	u32 setup, prepare, verify, teardown;
	u32 counted_prepares; /* prepares that saw their episode's warm-up runs done */
	u8 order[PROBE_ORDER_MAX]; /* the variant of each setup, in order */
	const struct design *design[PROBE_ORDER_MAX]; /* the design each setup ran */
	u32 prepare_cpu[MAX_CPUS];
	u32 runs[MAX_CPUS];
};

static struct probe_counts probe;

/*
 * Leak mode: setup loads an address space on another CPU and leaves it
 * there, so the teardown's mm_destroy() fails with -EBUSY, as it does in
 * a benchmark whose switch-away did not reach a CPU.
 */
static struct mm *probe_mm;
static unsigned probe_leak_cpu; /* 0: leak mode off */

static void probe_switch(void *arg)
{
	mm_switch(arg);
}

static int probe_setup(struct bench_ctx *c)
{
	if (probe.setup < PROBE_ORDER_MAX) {
		probe.order[probe.setup] = (u8)c->variant;
		probe.design[probe.setup] = c->design;
	}
	probe.setup++;
	c->ops = 10;
	if (!probe_leak_cpu)
		return 0;
	if (mm_create(&probe_mm))
		return -ENOMEM;
	return smp_call_one(probe_leak_cpu, probe_switch, probe_mm, true);
}

static int probe_prepare(struct bench_ctx *c)
{
	probe.prepare++;
	probe.counted_prepares += c->runs_done >= c->warmup;
	return 0;
}

static void probe_prepare_cpu(struct bench_ctx *c, unsigned idx)
{
	atomic_fetch_add(&probe.prepare_cpu[c->cpu[idx]], 1);
}

static void probe_run(struct bench_ctx *c, unsigned idx)
{
	atomic_fetch_add(&probe.runs[c->cpu[idx]], 1);
}

static bool probe_breaks = true;

/* The improved variant "breaks an invariant": the harness must count it failed. */
static int probe_verify(struct bench_ctx *c)
{
	probe.verify++;
	return probe_breaks && c->variant == 1 ? -EINVAL : 0;
}

static int probe_teardown(struct bench_ctx *c)
{
	(void)c;
	probe.teardown++;
	return probe_leak_cpu ? mm_destroy(probe_mm) : 0;
}

static const struct design probe_naive = { .name = "naive", .unit = "op" };
static const struct design probe_broken = { .name = "broken", .unit = "op" };
static const struct design *const probe_designs[] = { &probe_naive, &probe_broken, NULL };
static const struct bench_case probe_cases[] = { { { 1 } } };

static struct bench probe_bench = {
	.name = "probe",
	.designs = probe_designs,
	.param_names = { "p" },
	.cases = probe_cases,
	.ncases = 1,
	.metric = BENCH_CYCLES_PER_OP,
	.min_cpus = 1,
	.iters = PROBE_ITERS,
	.warmup = PROBE_WARMUP,
	.setup = probe_setup,
	.prepare = probe_prepare,
	.prepare_cpu = probe_prepare_cpu,
	.run = probe_run,
	.verify = probe_verify,
	.teardown = probe_teardown,
};

/* Runs the probe at ncpus_online CPUs: @iters timed runs (0: adaptive), order from @seed. */
static void run_probe_with(unsigned iters, unsigned seed, struct bench_outcome *out)
{
	static struct options opt;
	u32 saved = bench_seed;
	struct opt_uint_list saved_cpus = bench_cpus;
	u32 saved_iters = bench_iters;

	options_set_defaults(&opt);
	bench_cpus = (struct opt_uint_list){ .n = 1, .value = { ncpus_online } };
	bench_iters = iters;
	bench_seed = seed;
	probe = (struct probe_counts){ 0 };
	bench_set_diagnostic_results(true);
	bench_run(&probe_bench, &opt, out);
	bench_set_diagnostic_results(false);
	bench_seed = saved;
	bench_cpus = saved_cpus;
	bench_iters = saved_iters;
}

static void run_probe(struct ktest *t, bool idle_targets, struct bench_outcome *out)
{
	probe_bench.idle_targets = idle_targets;
	run_probe_with(PROBE_ITERS, 1, out);
	probe_bench.idle_targets = false;
	KEXPECT_EQ(t, out->skipped, 0);
}

/*
 * Episodes: naive and aa PROBE_ITERS each, broken one (it fails its first
 * verify and runs no more).
 */
static void test_bench_counts_calls(struct ktest *t)
{
	struct bench_outcome out;
	u32 runs = PROBE_WARMUP + 1, episodes = 2 * PROBE_ITERS + 1;

	run_probe(t, false, &out);
	KEXPECT_EQ(t, out.passed, 2);
	KEXPECT_EQ(t, out.failed, 1); /* the "broken" variant, and the sweep went on */
	KEXPECT_EQ(t, probe.setup, episodes);
	KEXPECT_EQ(t, probe.teardown, episodes);
	KEXPECT_EQ(t, probe.verify, episodes);
	KEXPECT_EQ(t, probe.prepare, episodes * runs);
	/* runs_done is this episode's: only the timed run's prepare sees the warm-up done. */
	KEXPECT_EQ(t, probe.counted_prepares, episodes);
	for (unsigned cpu = 0; cpu < ncpus_online; cpu++) {
		KEXPECT_EQ(t, probe.runs[cpu], episodes * runs);
		KEXPECT_EQ(t, probe.prepare_cpu[cpu], episodes * runs);
	}
}

static void test_bench_idle_targets(struct ktest *t)
{
	struct bench_outcome out;
	u32 runs = PROBE_WARMUP + 1, episodes = 2 * PROBE_ITERS + 1;

	run_probe(t, true, &out);
	KEXPECT_EQ(t, out.passed + out.failed, 3);
	KEXPECT_EQ(t, probe.runs[0], episodes * runs);
	for (unsigned cpu = 1; cpu < ncpus_online; cpu++)
		KEXPECT_EQ(t, probe.runs[cpu], 0);
}

#define ORDER_ROUNDS 16
#define PROBE_VARIANTS 3 /* naive, broken, aa */

/* Whether each round (three episodes) ran every variant once; counts naive-first rounds. */
static bool rounds_interleaved(unsigned *naive_first)
{
	*naive_first = 0;
	for (unsigned r = 0; r < ORDER_ROUNDS; r++) {
		const u8 *o = &probe.order[PROBE_VARIANTS * r];

		if (o[0] == o[1] || o[1] == o[2] || o[0] == o[2])
			return false;
		*naive_first += o[0] == 0;
	}
	return true;
}

/*
 * Every round runs each variant once, in an order from seed=: both orders
 * occur, the same seed gives the same order, another seed another one.
 */
static void test_bench_interleaves_variants(struct ktest *t)
{
	u8 first[PROBE_VARIANTS * ORDER_ROUNDS];
	struct bench_outcome out;
	unsigned naive_first;

	probe_breaks = false;
	run_probe_with(ORDER_ROUNDS, 1, &out);
	KEXPECT_EQ(t, out.passed, PROBE_VARIANTS);
	KASSERT_EQ(t, probe.setup, PROBE_VARIANTS * ORDER_ROUNDS);
	KEXPECT(t, rounds_interleaved(&naive_first));
	KEXPECT(t, naive_first > 0 && naive_first < ORDER_ROUNDS);
	memcpy(first, probe.order, sizeof(first));
	run_probe_with(ORDER_ROUNDS, 1, &out);
	KEXPECT_EQ(t, memcmp(first, probe.order, sizeof(first)), 0);
	run_probe_with(ORDER_ROUNDS, 2, &out);
	KEXPECT(t, rounds_interleaved(&naive_first));
	KEXPECT_NE(t, memcmp(first, probe.order, sizeof(first)), 0);
	probe_breaks = true;
}

/* Without iters= the runs per variant stay within the bench's iters..max_iters. */
static void test_bench_adaptive_range(struct ktest *t)
{
	struct bench_outcome out;

	probe_breaks = false;
	probe_bench.max_iters = 2 * PROBE_ITERS;
	run_probe_with(0, 1, &out);
	KEXPECT_EQ(t, out.passed, PROBE_VARIANTS);
	KEXPECT_EQ(t, probe.setup % PROBE_VARIANTS, 0);
	KEXPECT_GE(t, probe.setup / PROBE_VARIANTS, PROBE_ITERS);
	KEXPECT_LE(t, probe.setup / PROBE_VARIANTS, 2 * PROBE_ITERS);
	probe_bench.max_iters = 0;
	probe_breaks = true;
}

/* A CPU count cpus= asks for outside the bench's range is skipped and counted as asked for. */
static void test_bench_counts_skips(struct ktest *t)
{
	struct bench_outcome out;

	if (!ktest_need_second_cpu(t))
		return;
	probe_bench.max_cpus = 1;
	run_probe_with(PROBE_ITERS, 1, &out);
	probe_bench.max_cpus = 0;
	KEXPECT_EQ(t, out.passed + out.failed, 0);
	KEXPECT_EQ(t, out.skipped, PROBE_VARIANTS);
	KEXPECT_EQ(t, out.skipped_asked, PROBE_VARIANTS);
	KEXPECT_EQ(t, probe.setup, 0);
}

/* A case needing one CPU more than the sweep's count. */
static unsigned probe_case_min_cpus(const struct bench_case *bc)
{
	(void)bc;
	return ncpus_online + 1;
}

/* A case needing more CPUs than the count (case_min_cpus) is skipped, not as asked for. */
static void test_bench_case_min_cpus_skips(struct ktest *t)
{
	struct bench_outcome out;

	probe_bench.case_min_cpus = probe_case_min_cpus;
	run_probe_with(PROBE_ITERS, 1, &out);
	probe_bench.case_min_cpus = NULL;
	KEXPECT_EQ(t, out.passed + out.failed, 0);
	KEXPECT_EQ(t, out.skipped, PROBE_VARIANTS);
	KEXPECT_EQ(t, out.skipped_asked, 0);
	KEXPECT_EQ(t, probe.setup, 0);
}

/* A teardown that fails fails its case, and no later case runs on what it left. */
static void test_bench_teardown_failure(struct ktest *t)
{
	struct bench_outcome out;
	unsigned cpu;

	if (ncpus_online < 2) {
		ktest_skip(t, "needs a second CPU to leave an address space on");
		return;
	}
	for_each_cpu(cpu, &cpu_online_mask)
		if (cpu != arch_cpu_id())
			break;
	probe_leak_cpu = cpu;
	run_probe(t, false, &out);
	probe_leak_cpu = 0;
	KEXPECT_EQ(t, out.passed, 0);
	/* The variant whose teardown failed, and the two whose episodes came after it. */
	KEXPECT_EQ(t, out.failed, PROBE_VARIANTS);
	KEXPECT_EQ(t, probe.setup, 1);
	KEXPECT_EQ(t, probe.teardown, 1);
	KEXPECT_EQ(t, smp_call_one(cpu, probe_switch, NULL, true), 0);
	KEXPECT_EQ(t, mm_destroy(probe_mm), 0);
}

/*
 * A bench that names a null variant runs it after aa, as the reference
 * design under the name it gave; one that names none has no such variant.
 */
static void test_bench_null_variant(struct ktest *t)
{
	struct bench b = probe_bench;

	b.null_variant = "nul";
	KEXPECT_EQ(t, bench_nvariants(&b), PROBE_VARIANTS + 1);
	KEXPECT(t, bench_variant_is_aa(&b, 2));
	KEXPECT(t, !bench_variant_is_null(&b, 2));
	KEXPECT(t, bench_variant_is_null(&b, 3));
	KEXPECT_STREQ(t, bench_variant_name(&b, 3), "nul");
	KEXPECT(t, bench_variant_design(&b, 3) == &probe_naive);
	KEXPECT_STREQ(t, bench_variant_name(&b, 1), bench_design(&b, 1)->name);
	for (unsigned v = 0; v <= PROBE_VARIANTS; v++)
		KEXPECT(t, !bench_variant_is_null(&probe_bench, v));
}

/*
 * The A/A control: every case runs the reference design (the table's first)
 * a second time as the last variant, "aa", as many episodes as the others,
 * interleaved in the same rounds. Before it, the probe ran two variants.
 */
static void test_bench_aa_variant(struct ktest *t)
{
	struct bench_outcome out;
	unsigned aa = 0, naive = 0;

	KASSERT_EQ(t, bench_nvariants(&probe_bench), PROBE_VARIANTS);
	KEXPECT(t, bench_variant_is_aa(&probe_bench, 2));
	KEXPECT(t, !bench_variant_is_aa(&probe_bench, 0));
	KEXPECT_STREQ(t, bench_variant_name(&probe_bench, 2), "aa");
	KEXPECT(t, bench_variant_design(&probe_bench, 2) == &probe_naive);
	probe_breaks = false;
	run_probe_with(PROBE_ITERS, 1, &out);
	probe_breaks = true;
	KEXPECT_EQ(t, out.passed, PROBE_VARIANTS);
	KASSERT_EQ(t, probe.setup, PROBE_VARIANTS * PROBE_ITERS);
	for (unsigned i = 0; i < probe.setup; i++) {
		aa += probe.order[i] == 2;
		naive += probe.order[i] == 0;
		if (probe.order[i] == 2 || probe.order[i] == 0)
			KEXPECT(t, probe.design[i] == &probe_naive);
	}
	KEXPECT_EQ(t, aa, PROBE_ITERS);
	KEXPECT_EQ(t, naive, PROBE_ITERS);
}

/*
 * BENCH_REGISTER's order keys, not the link order, give the run order: the
 * one the baseline's BENCH lines have. bench_names() is what bench= accepts.
 */
static void test_bench_registered_order(struct ktest *t)
{
	static const char *const want[] = { "ipi", "tlb",     "tlbmulti",  "reclaim", "migrate",
					    "pin", "pagemap", "faultlock", "swapfree" };
	const char *const *got = bench_names();
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(want) && got[i]; i++)
		KEXPECT_STREQ(t, got[i], want[i]);
	KEXPECT_EQ(t, i, ARRAY_SIZE(want));
	KEXPECT(t, got[i] == NULL);
}

static const struct ktest_case bench_cases[] = {
	KTEST_CASE(test_bench_counts_calls),
	KTEST_CASE(test_bench_idle_targets),
	KTEST_CASE(test_bench_interleaves_variants),
	KTEST_CASE(test_bench_adaptive_range),
	KTEST_CASE(test_bench_counts_skips),
	KTEST_CASE(test_bench_case_min_cpus_skips),
	KTEST_CASE(test_bench_teardown_failure),
	KTEST_CASE(test_bench_registered_order),
	KTEST_CASE(test_bench_aa_variant),
	KTEST_CASE(test_bench_null_variant),
};
KTEST_SUITE(bench, bench_cases);
