/*
 * Benchmark `ipi`: the round trip of a cross-CPU call that its targets
 * acknowledge, the floor under every shootdown. CPU index 0 calls; the
 * other participating CPUs are idle (halted, interrupts on) and answer.
 * One operation is one round: every target has run the (empty) call
 * function and acknowledged.
 *   naive:   one target at a time, waiting for each acknowledgement
 *   batched: the IPIs to all targets go out first, then one wait for all
 * Both use smp_call() (kernel/smp.c), so the difference is the batching.
 * Parameter target: "one" (CPU index 1 only) or "all" (every other CPU).
 * target=one, and target=all at 2 CPUs, are controls: one target, so both
 * designs do the same work and their ratio must be 1 within noise.
 */
#include "bench/bench.h"
#include "errno.h"
#include "kernel/smp.h"

#define IPI_ROUNDS 200

enum ipi_target { IPI_TARGET_ONE, IPI_TARGET_ALL };

struct ipi_state {
	cpumask_t targets;
	unsigned ntargets;
};

static struct ipi_state ipi;

/* An ipi design: how one round reaches every target (kernel/design.h). */
struct ipi_ops {
	struct design d;
	/* One round: every target of ipi.targets ran the call and acknowledged. 0 or an error. */
	int (*round)(void);
};

static void ipi_nop(void *arg)
{
	(void)arg;
}

static int ipi_setup(struct bench_ctx *c)
{
	unsigned last = bench_param(c, "target") == IPI_TARGET_ONE ? 2 : c->ncpus;

	cpumask_clear(&ipi.targets);
	for (unsigned idx = 1; idx < last; idx++)
		cpumask_set_cpu(c->cpu[idx], &ipi.targets);
	ipi.ntargets = last - 1;
	c->ops = IPI_ROUNDS;
	return 0;
}

/* ---- naive ---- */

static int ipi_round_naive(void)
{
	unsigned cpu;
	int err;

	for_each_cpu(cpu, &ipi.targets) {
		err = smp_call_one(cpu, ipi_nop, NULL, true);
		if (err)
			return err;
	}
	return 0;
}

/* ---- batched ---- */

static int ipi_round_batched(void)
{
	return smp_call(&ipi.targets, ipi_nop, NULL, true);
}

/* ---- the table ---- */

/* Both promise one IPI per target per round, sent and received. */
#define IPI_PROMISES                                                                               \
	{ { PCPU_IPI_SENT, 1, 1, true, false }, { PCPU_IPI_RECEIVED, 1, 1, true, false } }

static const struct ipi_ops ipi_ops_naive = {
	.d = { .name = "naive", .desc = "one target at a time, each acknowledged before the next",
	       .source = "smp_call_function_single in a loop", .unit = "round",
	       .promises = IPI_PROMISES },
	.round = ipi_round_naive,
};

static const struct ipi_ops ipi_ops_batched = {
	.d = { .name = "batched", .desc = "every IPI out first, then one wait for all",
	       .source = "smp_call_function_many (Linux kernel/smp.c)", .unit = "round",
	       .promises = IPI_PROMISES },
	.round = ipi_round_batched,
};

static const struct design *const ipi_designs[] = { &ipi_ops_naive.d, &ipi_ops_batched.d, NULL };

static void ipi_run(struct bench_ctx *c, unsigned idx)
{
	int (*round)(void) = container_of(c->design, struct ipi_ops, d)->round;

	(void)idx; /* only index 0 runs: idle_targets */
	for (u64 r = 0; r < c->ops; r++) {
		int err = round();

		if (err) {
			bench_fail(c, "smp_call failed in round %lu (%s)", (unsigned long)r,
				   errno_name(err));
			return;
		}
	}
}

/* Each design's promises: IPIs per target per round, sent and received. */
static int ipi_verify(struct bench_ctx *c)
{
	return bench_check_promises(c, c->ops, ipi.ntargets);
}

/*
 * With one target the naive loop makes the one call the batched round
 * makes, so the two do the same work: a control, whose ratio must be 1.
 */
static const char *ipi_control(const struct bench_ctx *c)
{
	if (bench_param(c, "target") == IPI_TARGET_ONE)
		return "target=one: both designs call one CPU";
	if (c->ncpus == 2)
		return "2 CPUs: one target, both designs call it";
	return NULL;
}

static const char *const ipi_target_words[] = { "one", "all" };
static const struct bench_case ipi_cases[] = {
	{ { IPI_TARGET_ONE } },
	{ { IPI_TARGET_ALL } },
};

const struct bench bench_ipi = {
	.name = "ipi",
	.metric_name = "cycles_per_round",
	.designs = ipi_designs,
	.param_names = { "target" },
	.param_words = { ipi_target_words },
	.cases = ipi_cases,
	.ncases = ARRAY_SIZE(ipi_cases),
	.metric = BENCH_CYCLES_PER_OP,
	.min_cpus = 2,
	.idle_targets = true,
	.iters = 10,
	.max_iters = 60,
	.warmup = 2,
	.counters = { PCPU_IPI_SENT, PCPU_IPI_RECEIVED, PCPU_INTERRUPTS },
	.ncounters = 3,
	.setup = ipi_setup,
	.run = ipi_run,
	.verify = ipi_verify,
	.control = ipi_control,
};
BENCH_REGISTER(bench_ipi, 10);
