/*
 * Self-tests of what the harness does by timing mode (kernel/timing.h):
 * in time mode a run where the guest lost its CPU is set apart from the
 * statistics, on the worse side of the metric only, and never in exact
 * mode, where no run can lose the CPU. Kernel only, boot CPU.
 */
/* build: kernel only */
#include "bench/bench_result.h"
#include "kernel/timing.h"
#include "tests/ktest.h"

static const struct bench lower_better = { .name = "probe", .metric = BENCH_CYCLES_PER_OP };
static const struct bench higher_better = { .name = "probe", .metric = BENCH_OPS_PER_SEC };

/* Runs with spread about 1% and one far off, as a host deschedule leaves them. */
static const u64 runs_slow[] = { 100000, 101000, 99000, 100500, 5000000, 99500 };
static const u64 runs_low[] = { 100000, 101000, 99000, 100500, 2000, 99500 };

static void test_bench_lost_cpu_by_mode(struct ktest *t)
{
	enum timing_mode saved = timing_mode;
	unsigned n = ARRAY_SIZE(runs_slow);
	bool lost[ARRAY_SIZE(runs_slow)];

	timing_mode = TIMING_TIME;
	KEXPECT_EQ(t, bench_lost_cpu(&lower_better, runs_slow, n, lost), 1);
	KEXPECT(t, lost[4] && !lost[0] && !lost[5]);
	/* A slow run of a rate is better, not lost; a low rate is the lost one. */
	KEXPECT_EQ(t, bench_lost_cpu(&higher_better, runs_slow, n, lost), 0);
	KEXPECT_EQ(t, bench_lost_cpu(&higher_better, runs_low, n, lost), 1);
	KEXPECT(t, lost[4]);
	KEXPECT_EQ(t, bench_lost_cpu(&lower_better, runs_low, n, lost), 0);
	timing_mode = TIMING_EXACT;
	KEXPECT_EQ(t, bench_lost_cpu(&lower_better, runs_slow, n, lost), 0);
	timing_mode = saved;
}

static const struct ktest_case bench_exact_cases[] = {
	KTEST_CASE(test_bench_lost_cpu_by_mode),
};
KTEST_SUITE(bench_exact, bench_exact_cases);
