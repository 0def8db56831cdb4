/*
 * Self-tests of the reclaim benchmark (bench/bench_reclaim.c): at 2 CPUs
 * every design it runs passes its exact counts (pages swapped out, the
 * design's rounds and IPIs per batch of 32), lazy is left out, and its
 * verify fails a design that batches while promising a round per page.
 * Kernel only (needs the CPUs and the benchmark).
 */
#include "bench/bench.h"
#include "kernel/cmdline.h"
#include "mm/tlb/tlb.h"
#include "mm/tlb/designs/lazy.h"
#include "tests/ktest.h"

extern const struct bench bench_reclaim;

/* Runs @b at 2 CPUs, one timed run per variant, results as diagnostics. */
static void reclaim_run_bench(const struct bench *b, struct bench_outcome *out)
{
	static struct options opt;
	struct opt_uint_list saved_cpus = bench_cpus;
	u32 saved_iters = bench_iters;

	options_set_defaults(&opt);
	bench_cpus = (struct opt_uint_list){ .n = 1, .value = { 2 } };
	bench_iters = 1;
	bench_set_diagnostic_results(true);
	bench_run(b, &opt, out);
	bench_set_diagnostic_results(false);
	bench_cpus = saved_cpus;
	bench_iters = saved_iters;
}

/* Every design but lazy (and the controls), plus aa, passes verify's exact counts. */
static void test_bench_reclaim_counts_hold(struct ktest *t)
{
	struct bench_outcome out;
	unsigned nd = bench_ndesigns(&bench_reclaim);

	if (!ktest_need_second_cpu(t))
		return;
	for (unsigned v = 0; v < nd; v++)
		KEXPECT(t, bench_design(&bench_reclaim, v) != &tlb_ops_lazy.d);
	KEXPECT_EQ(t, nd, design_count(tlb_designs) - 2); /* less lazy and no-remote */
	reclaim_run_bench(&bench_reclaim, &out);
	KEXPECT_EQ(t, out.passed, bench_nvariants(&bench_reclaim));
	KEXPECT_EQ(t, out.failed, 0);
}

/* batched's flush under naive's promises: one round per batch where 32 were promised. */
static struct tlb_ops liar;

static void test_bench_reclaim_verify_fails(struct ktest *t)
{
	static const struct design *liar_table[2];
	static struct bench b;
	struct bench_outcome out;

	if (!ktest_need_second_cpu(t))
		return;
	liar = tlb_ops_batched;
	liar.d = tlb_ops_naive.d;
	liar.d.name = "liar";
	liar_table[0] = &liar.d;
	b = bench_reclaim;
	b.designs = liar_table;
	reclaim_run_bench(&b, &out);
	KEXPECT_EQ(t, out.passed, 0);
	KEXPECT_EQ(t, out.failed, bench_nvariants(&b)); /* the design and its aa */
}

static const struct ktest_case bench_reclaim_cases[] = {
	KTEST_CASE(test_bench_reclaim_counts_hold),
	KTEST_CASE(test_bench_reclaim_verify_fails),
};
KTEST_SUITE(bench_reclaim, bench_reclaim_cases);
