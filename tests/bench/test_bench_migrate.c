/*
 * Self-tests of the migrate benchmark (bench/bench_migrate.c): at 2 CPUs
 * every design passes its verify (nodes, contents, exact flush rounds, no
 * wrong read); verify fails a design that batches while promising a round
 * per page, and a run whose readers read a wrong value. Kernel only.
 */
/* build: kernel only */
#include "bench/bench.h"
#include "kernel/cmdline.h"
#include "mm/tlb/tlb.h"
#include "tests/ktest.h"

extern const struct bench bench_migrate;

/* bench_migrate.c's range: the test writes a wrong word there for the readers to find. */
#define MIGRATE_TEST_BASE 0x40000000ul

/* Runs @b at 2 CPUs, one timed run per variant, results as diagnostics. */
static void migrate_run_bench(const struct bench *b, struct bench_outcome *out)
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

/* Every design but the controls, plus aa, passes verify. */
static void test_bench_migrate_counts_hold(struct ktest *t)
{
	struct bench_outcome out;

	if (!ktest_need_second_cpu(t))
		return;
	migrate_run_bench(&bench_migrate, &out);
	KEXPECT_EQ(t, out.passed, bench_nvariants(&bench_migrate));
	KEXPECT_EQ(t, out.failed, 0);
}

/* batched's flush under naive's promises: one round per batch where one per page was promised. */
static struct tlb_ops liar;

static void test_bench_migrate_verify_fails(struct ktest *t)
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
	b = bench_migrate;
	b.designs = liar_table;
	migrate_run_bench(&b, &out);
	KEXPECT_EQ(t, out.passed, 0);
	KEXPECT_EQ(t, out.failed, bench_nvariants(&b)); /* the design and its aa */
}

/*
 * The first page's first word is wrong through the readers' baseline
 * window, right again before the run: only the readers' check can see it.
 */
static int (*migrate_prepare_real)(struct bench_ctx *c);

static int migrate_prepare_wrong_word(struct bench_ctx *c)
{
	volatile u64 *w = (volatile u64 *)MIGRATE_TEST_BASE;
	int err;

	*w = ~(u64)MIGRATE_TEST_BASE;
	err = migrate_prepare_real(c);
	*w = (u64)MIGRATE_TEST_BASE;
	return err;
}

static void test_bench_migrate_readers_check(struct ktest *t)
{
	static const struct design *naive_table[2] = { &tlb_ops_naive.d };
	static struct bench b;
	struct bench_outcome out;

	if (!ktest_need_second_cpu(t))
		return;
	b = bench_migrate;
	b.designs = naive_table;
	migrate_prepare_real = b.prepare;
	b.prepare = migrate_prepare_wrong_word;
	migrate_run_bench(&b, &out);
	KEXPECT_EQ(t, out.passed, 0);
	KEXPECT_EQ(t, out.failed, bench_nvariants(&b));
}

static const struct ktest_case bench_migrate_cases[] = {
	KTEST_CASE(test_bench_migrate_counts_hold),
	KTEST_CASE(test_bench_migrate_verify_fails),
	KTEST_CASE(test_bench_migrate_readers_check),
};
KTEST_SUITE(bench_migrate, bench_migrate_cases);
