/*
 * Self-tests of the reclaim benchmark (bench/bench_reclaim.c): at 2 CPUs
 * every design it runs passes its exact counts and the reuse probe, lazy
 * is left out, and verify fails a design that batches while promising a
 * round per page, and one that frees before its round completed, by what
 * its reader saw. Kernel only (needs the CPUs and the benchmark).
 */
/* build: kernel only */
#include "bench/bench.h"
#include "kernel/cmdline.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "mm/mm.h"
#include "mm/tlb/tlb.h"
#include "mm/tlb/designs/lazy.h"
#include "tests/ktest.h"
#include <arch/arch.h>

extern const struct bench bench_reclaim;
u64 bench_reclaim_reuse_stale(unsigned v);

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
	KEXPECT_EQ(t, out.passed, bench_reclaim.ncases * bench_nvariants(&bench_reclaim));
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
	KEXPECT_EQ(t, out.failed, b.ncases * bench_nvariants(&b)); /* the design and its aa */
}

/* A target of the early freer: the request's own flush, as any round's. */
static void early_target(void *arg)
{
	const struct tlb_flush_req *req = arg;

	req->target(req);
}

/* batched's round, posted and not waited for: the gather frees the frames as the IPIs leave. */
static int early_flush(const struct tlb_flush_req *req)
{
	cpumask_t mask;

	atomic_fetch_add(&req->mm->tlb_gen, 1);
	cpumask_copy(&mask, mm_cpumask(req->mm));
	cpumask_clear_cpu(arch_cpu_id(), &mask);
	this_cpu_inc(PCPU_TLB_SHOOTDOWNS);
	req->target(req);
	return smp_call_copy(&mask, early_target, (void *)req, sizeof(*req), false);
}

static struct tlb_ops early;

/*
 * Its promises are batched's and it keeps them (one round, one IPI per
 * remote): only the reader's view can catch it. The reuse probe's reader
 * reads the new owner's word through its stale translation, and verify
 * fails the design and its aa for that.
 */
static void test_bench_reclaim_early_free_seen(struct ktest *t)
{
	static const struct design *early_table[2];
	static struct bench b;
	struct bench_outcome out;

	if (!ktest_need_second_cpu(t))
		return;
	early = tlb_ops_batched;
	early.d.name = "early";
	early.flush = early_flush;
	early_table[0] = &early.d;
	b = bench_reclaim;
	b.designs = early_table;
	reclaim_run_bench(&b, &out);
	KEXPECT_EQ(t, out.passed, 0);
	KEXPECT_EQ(t, out.failed, b.ncases * bench_nvariants(&b));
	for (unsigned v = 0; v < bench_nvariants(&b); v++)
		KEXPECT(t, bench_reclaim_reuse_stale(v) > 0);
}

static const struct ktest_case bench_reclaim_cases[] = {
	KTEST_CASE(test_bench_reclaim_counts_hold),
	KTEST_CASE(test_bench_reclaim_verify_fails),
	KTEST_CASE(test_bench_reclaim_early_free_seen),
};
KTEST_SUITE(bench_reclaim, bench_reclaim_cases);
