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

/* naive */

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

/* batched */

static int ipi_round_batched(void)
{
	return smp_call(&ipi.targets, ipi_nop, NULL, true);
}

static void ipi_run(struct bench_ctx *c, unsigned idx)
{
	int (*round)(void) = c->variant == 0 ? ipi_round_naive : ipi_round_batched;

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

/* Both designs send, and the targets take, exactly one IPI per target per round. */
static int ipi_verify(struct bench_ctx *c)
{
	u64 want = c->runs_done * c->ops * ipi.ntargets;
	u64 sent = c->counter_total[PCPU_IPI_SENT], recv = c->counter_total[PCPU_IPI_RECEIVED];

	if (sent != want || recv != want) {
		bench_fail(c, "%lu IPIs sent and %lu received, expected %lu", (unsigned long)sent,
			   (unsigned long)recv, (unsigned long)want);
		return -EINVAL;
	}
	return 0;
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

static const char *const ipi_variants[] = { "naive", "batched" };
static const char *const ipi_target_words[] = { "one", "all" };
static const struct bench_case ipi_cases[] = {
	{ { IPI_TARGET_ONE } },
	{ { IPI_TARGET_ALL } },
};

const struct bench bench_ipi = {
	.name = "ipi",
	.metric_name = "cycles_per_round",
	.variants = ipi_variants,
	.nvariants = 2,
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
