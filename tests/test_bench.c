/*
 * Self-tests of the benchmark harness with a probe benchmark: every
 * participating CPU runs each run exactly once per run, setup/prepare/
 * verify/teardown are called the promised number of times, a failing
 * variant is counted as failed while the sweep goes on, idle_targets
 * keeps the other CPUs out of the loop, and a failed teardown fails its
 * case and stops the benchmark's later cases. Kernel only (needs the CPUs).
 */
#include "bench/bench.h"
#include "errno.h"
#include "kernel/cmdline.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "mm/mm.h"
#include "tests/ktest.h"
#include <arch/arch.h>

#define PROBE_ITERS 3
#define PROBE_WARMUP 1

struct probe_counts {
	u32 setup, prepare, verify, teardown;
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
	(void)c;
	probe.prepare++;
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

/* The improved variant "breaks an invariant": the harness must count it failed. */
static int probe_verify(struct bench_ctx *c)
{
	probe.verify++;
	return c->variant == 1 ? -EINVAL : 0;
}

static int probe_teardown(struct bench_ctx *c)
{
	(void)c;
	probe.teardown++;
	return probe_leak_cpu ? mm_destroy(probe_mm) : 0;
}

static const char *const probe_variants[] = { "naive", "broken" };
static const struct bench_case probe_cases[] = { { { 1 } } };

static struct bench probe_bench = {
	.name = "probe",
	.variants = probe_variants,
	.nvariants = 2,
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

/* Runs the probe at one CPU count: ncpus_online. */
static void run_probe(struct ktest *t, bool idle_targets, struct bench_outcome *out)
{
	static struct options opt;

	options_set_defaults(&opt);
	opt.cpus.n = 1;
	opt.cpus.count[0] = ncpus_online;
	probe = (struct probe_counts){ 0 };
	probe_bench.idle_targets = idle_targets;
	bench_set_diagnostic_results(true);
	bench_run(&probe_bench, &opt, out);
	bench_set_diagnostic_results(false);
	KEXPECT_EQ(t, out->skipped, 0);
}

static void test_bench_counts_calls(struct ktest *t)
{
	struct bench_outcome out;
	u32 runs = PROBE_ITERS + PROBE_WARMUP;

	run_probe(t, false, &out);
	KEXPECT_EQ(t, out.passed, 1);
	KEXPECT_EQ(t, out.failed, 1); /* the "broken" variant, and the sweep went on */
	KEXPECT_EQ(t, probe.setup, 2);
	KEXPECT_EQ(t, probe.teardown, 2);
	KEXPECT_EQ(t, probe.verify, 2);
	KEXPECT_EQ(t, probe.prepare, 2 * runs);
	for (unsigned cpu = 0; cpu < ncpus_online; cpu++) {
		KEXPECT_EQ(t, probe.runs[cpu], 2 * runs);
		KEXPECT_EQ(t, probe.prepare_cpu[cpu], 2 * runs);
	}
}

static void test_bench_idle_targets(struct ktest *t)
{
	struct bench_outcome out;
	u32 runs = PROBE_ITERS + PROBE_WARMUP;

	run_probe(t, true, &out);
	KEXPECT_EQ(t, out.passed + out.failed, 2);
	KEXPECT_EQ(t, probe.runs[0], 2 * runs);
	for (unsigned cpu = 1; cpu < ncpus_online; cpu++)
		KEXPECT_EQ(t, probe.runs[cpu], 0);
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
	KEXPECT_EQ(t, out.failed, 2); /* the case whose teardown failed, and the one after it */
	KEXPECT_EQ(t, probe.setup, 1);
	KEXPECT_EQ(t, probe.teardown, 1);
	KEXPECT_EQ(t, smp_call_one(cpu, probe_switch, NULL, true), 0);
	KEXPECT_EQ(t, mm_destroy(probe_mm), 0);
}

static const struct ktest_case bench_cases[] = {
	KTEST_CASE(test_bench_counts_calls),
	KTEST_CASE(test_bench_idle_targets),
	KTEST_CASE(test_bench_teardown_failure),
};
KTEST_SUITE(bench, bench_cases);
