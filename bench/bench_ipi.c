/*
 * Benchmark `ipi`: the round trip of an acknowledged cross-CPU call, the floor
 * under every shootdown. CPU index 0 calls, the others answer; one operation
 * is one round. naive waits for each target in turn, batched sends to all
 * and waits once; both use smp_call() (kernel/smp.c), so the difference is
 * the batching. Parameters target (one target is a control) and target_state
 * (halted targets pay a wake-up) are described at their enums.
 */
#include "bench/bench.h"
#include "errno.h"
#include "mm/counters.h"
#include "kernel/cmdline.h"
#include "kernel/json.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "lib/math.h"
#include "lib/string.h"
#include <arch/arch.h>

#define IPI_ROUNDS 200
/* A poller's vCPU may be descheduled for long under TCG: generous. */
#define IPI_POLL_STOP_MS 30000

/*
 * Parameters. target: "one" (CPU index 1) or "all" (every other CPU); one
 * target is a control: both designs do the same work. target_state:
 * "halted" (targets in HLT, interrupts on, as an idle machine's: each round
 * includes the wake-up) or "polling" (targets spin with interrupts on, so a
 * round is the IPI and the call alone); target_state= keeps one of them.
 */
enum ipi_target { IPI_TARGET_ONE, IPI_TARGET_ALL };
enum ipi_target_state { IPI_HALTED, IPI_POLLING };

struct ipi_state {
	cpumask_t targets;
	unsigned target_cpu[MAX_CPUS]; /* the same CPUs as a list: naive's loop walks no mask */
	unsigned ntargets;
	unsigned npollers; /* targets spinning in ipi_poll(), c->cpu[1..npollers] */
};

static struct ipi_state ipi;

/* A poller's state: handed its work, spinning in ipi_poll(), or out of it. */
enum ipi_poll_state { IPI_POLL_OUT, IPI_POLL_HANDED, IPI_POLL_SPINNING };
static u32 ipi_poll_running[MAX_CPUS]; /* enum ipi_poll_state, per CPU index */
static u32 ipi_poll_stop;

/*
 * Task-context work on a target: spins with interrupts on until told to
 * stop. It says so on entry: until then the target may still be in the IPI
 * handler that woke it from HLT to take this work.
 */
static void ipi_poll(void *arg)
{
	u32 *running = arg;

	atomic_store_release(running, IPI_POLL_SPINNING);
	while (!atomic_load_acquire(&ipi_poll_stop))
		arch_cpu_relax(); /* interrupts on: the IPI lands between two pauses */
	atomic_store_release(running, IPI_POLL_OUT);
}

/* Waits until poller @idx's state is not @from. 0 or -ETIMEDOUT at @deadline. */
static int ipi_poll_wait_leave(unsigned idx, u32 from, u64 deadline)
{
	while (atomic_load_acquire(&ipi_poll_running[idx]) == from) {
		if (arch_tsc_read() > deadline)
			return -ETIMEDOUT;
		arch_cpu_relax();
	}
	return 0;
}

static u64 ipi_poll_deadline(void)
{
	return arch_tsc_read() + arch_tsc_hz() / 1000 * IPI_POLL_STOP_MS;
}

/* Stops every poller and waits until each has left ipi_poll(). 0 or -ETIMEDOUT. */
static int ipi_polling_stop(void)
{
	u64 deadline = ipi_poll_deadline();

	atomic_store_release(&ipi_poll_stop, 1);
	for (unsigned idx = 1; idx <= ipi.npollers; idx++) {
		/* A poller handed its work but not yet in it still enters, sees stop, leaves. */
		int err = ipi_poll_wait_leave(idx, IPI_POLL_HANDED, deadline);

		if (!err)
			err = ipi_poll_wait_leave(idx, IPI_POLL_SPINNING, deadline);
		if (err)
			return err;
	}
	ipi.npollers = 0;
	return 0;
}

/*
 * Hands ipi_poll() to every target (c->cpu[1..last-1]) and returns once
 * each spins in it, so no round finds a target still on its way out of HLT
 * (test_bench_ipi_polling_setup). 0, smp_run_async()'s error or -ETIMEDOUT.
 */
static int ipi_polling_start(struct bench_ctx *c, unsigned last)
{
	u64 deadline;

	atomic_store_release(&ipi_poll_stop, 0);
	for (unsigned idx = 1; idx < last; idx++) {
		int err;

		atomic_store_release(&ipi_poll_running[idx], IPI_POLL_HANDED);
		err = smp_run_async(c->cpu[idx], ipi_poll, &ipi_poll_running[idx]);
		if (err) {
			atomic_store_release(&ipi_poll_running[idx], IPI_POLL_OUT);
			ipi_polling_stop();
			return err;
		}
		ipi.npollers = idx;
	}
	deadline = ipi_poll_deadline();
	for (unsigned idx = 1; idx < last; idx++) {
		int err = ipi_poll_wait_leave(idx, IPI_POLL_HANDED, deadline);

		if (err) {
			ipi_polling_stop();
			return err;
		}
	}
	return 0;
}

/* An ipi design: how one round reaches every target (kernel/design.h). */
struct ipi_ops {
	struct design d;
	/* One round: every target of ipi.targets ran the call and acknowledged. 0 or an error. */
	int (*round)(void);
};

/* Wake-ups from the idle loop's HLT a target's call found (per round: hlt_wakes_per_round). */
PCPU_COUNTER(PCPU_IPI_HLT_WAKES, "hlt_wakes");

static void ipi_nop(void *arg)
{
	(void)arg;
	if (smp_idle_halted())
		this_cpu_inc(PCPU_IPI_HLT_WAKES);
}

/*
 * gap_cycles=: the initiator waits this long after each round, untimed (the
 * harness subtracts it), so a halted target is back in HLT before the next
 * IPI: kvm-unit-tests ipi_halt's shape. 0 (default): back to back, its ipi.
 */
static u32 ipi_gap_cycles;
OPTION_UINT(gap_cycles, ipi_gap_cycles, 0, 100000000, 0);

/* Waits ipi_gap_cycles on the TSC, adding the wait to @c's excluded cycles. */
static void ipi_gap(struct bench_ctx *c)
{
	u64 t0 = arch_tsc_read(), t = t0;

	if (!ipi_gap_cycles)
		return;
	while (t - t0 < ipi_gap_cycles) {
		arch_cpu_relax();
		t = arch_tsc_read();
	}
	c->excluded_cycles += arch_tsc_read() - t0;
}

/*
 * round_hist=1: each timed round's cycles, rdtsc before and after the
 * round as kvm-unit-tests' ipi() reads it, counted in IPI_HIST_STEP-cycle
 * buckets per variant over a case's timed runs (the last bucket: the rest),
 * so the rounds' distribution (one mode or two) shows per boot. Off by
 * default: the reads are instructions of the timed run.
 */
static u32 ipi_round_hist;
OPTION_UINT(round_hist, ipi_round_hist, 0, 1, 0);

#define IPI_HIST_STEP 1000
#define IPI_HIST_N 128
#define IPI_HIST_VARIANTS 5 /* the designs (broken ones too) and aa */
static u32 ipi_hist[IPI_HIST_VARIANTS][IPI_HIST_N];

static int ipi_setup(struct bench_ctx *c)
{
	unsigned last = bench_param(c, "target") == IPI_TARGET_ONE ? 2 : c->ncpus;

	cpumask_clear(&ipi.targets);
	for (unsigned idx = 1; idx < last; idx++) {
		cpumask_set_cpu(c->cpu[idx], &ipi.targets);
		ipi.target_cpu[idx - 1] = c->cpu[idx];
	}
	ipi.ntargets = last - 1;
	ipi.npollers = 0;
	if (c->episode == 0) /* a new case */
		memset(ipi_hist, 0, sizeof(ipi_hist)); /* every variant's rounds start again */
	c->ops = IPI_ROUNDS;
	if (bench_param(c, "target_state") == IPI_POLLING)
		return ipi_polling_start(c, last);
	return 0;
}

static int ipi_teardown(struct bench_ctx *c)
{
	(void)c;
	return ipi.npollers ? ipi_polling_stop() : 0;
}

/*
 * Waits for acknowledgements: every design's round goes through here, one
 * wait per call, so the promises can tell naive's wait per target from
 * batched's one wait per round. A counter of this benchmark's own.
 */
PCPU_COUNTER(PCPU_IPI_ROUND_WAITS, "ipi_round_waits");

static int ipi_call_wait(const cpumask_t *mask)
{
	this_cpu_inc(PCPU_IPI_ROUND_WAITS);
	return smp_call(mask, ipi_nop, NULL, true);
}

/* ---- naive ---- */

/* One call to each target in turn, each awaited: smp_call_one() per CPU. */
static int ipi_round_naive(void)
{
	for (unsigned i = 0; i < ipi.ntargets; i++) {
		int err;

		this_cpu_inc(PCPU_IPI_ROUND_WAITS);
		err = smp_call_one(ipi.target_cpu[i], ipi_nop, NULL, true);
		if (err)
			return err;
	}
	return 0;
}

/* ---- batched ---- */

static int ipi_round_batched(void)
{
	return ipi_call_wait(&ipi.targets);
}

/* ---- the table ---- */

/*
 * Both promise one IPI per target per round, sent and received; naive one
 * wait per target per round, batched one wait per round (what tells them
 * apart beyond 1 target). The call layer's count of calls posted comes
 * first: a call's IPIs all leave before any acknowledgement is awaited, so
 * calls per round is what the targets saw, whatever the design counts.
 */
#define IPI_PROMISES(waits_per_target)                                                             \
	DESIGN_PROMISES(PROMISE(PCPU_CALLS_POSTED, 1, 1, .per_target = waits_per_target),          \
			PROMISE(PCPU_IPI_SENT, 1, 1, .per_target = true),                          \
			PROMISE(PCPU_IPI_RECEIVED, 1, 1, .per_target = true),                      \
			PROMISE(PCPU_IPI_ROUND_WAITS, 1, 1, .per_target = waits_per_target))

/* The benchmark's own design table: its designs below register themselves. */
static const struct design *ipi_designs[DESIGN_TABLE_SLOTS];

static const struct ipi_ops ipi_ops_naive = {
	.d = { .name = "naive", .desc = "one target at a time, each acknowledged before the next",
	       .source = "smp_call_function_single in a loop", .unit = "round",
	       .promises = IPI_PROMISES(true) },
	.round = ipi_round_naive,
};
DESIGN_REGISTER(ipi_designs, ipi_ops_naive, 0);

static const struct ipi_ops ipi_ops_batched = {
	.d = { .name = "batched", .desc = "every IPI out first, then one wait for all",
	       .source = "smp_call_function_many (Linux kernel/smp.c)", .unit = "round",
	       .promises = IPI_PROMISES(false) },
	.round = ipi_round_batched,
};
DESIGN_REGISTER(ipi_designs, ipi_ops_batched, 10);

#ifdef MMLAB_TEST_DESIGN_BROKEN
/*
 * make TEST_DESIGN=broken only, each with batched's promises, wrong on
 * purpose; verify must fail on the call layer's calls per round at 3 CPUs
 * or more (tests/steps/design.sh checks it does). broken_batched: naive's
 * round. broken_serial: one wait counted, but each target's call posted
 * alone, so the next post waits for its acknowledgement (serialised).
 */
static int ipi_round_serial(void)
{
	int err = 0;

	this_cpu_inc(PCPU_IPI_ROUND_WAITS); /* the one wait it claims */
	for (unsigned i = 0; i < ipi.ntargets && !err; i++)
		err = smp_call_one(ipi.target_cpu[i], ipi_nop, NULL, false);
	return err ? err : smp_call_wait();
}

static const struct ipi_ops ipi_ops_broken_batched = {
	.d = { .name = "broken_batched", .desc = "batched's promises, naive's waits: wrong on purpose",
	       .source = "tests/steps/design.sh, verify that can fail", .unit = "round",
	       .promises = IPI_PROMISES(false) },
	.round = ipi_round_naive,
};
DESIGN_REGISTER(ipi_designs, ipi_ops_broken_batched, 20);

static const struct ipi_ops ipi_ops_broken_serial = {
	.d = { .name = "broken_serial",
	       .desc = "batched's promises, one wait counted, each target polled in turn",
	       .source = "tests/steps/design.sh, verify that can fail", .unit = "round",
	       .promises = IPI_PROMISES(false) },
	.round = ipi_round_serial,
};
DESIGN_REGISTER(ipi_designs, ipi_ops_broken_serial, 30);
#endif


/* The variant's histogram (aa apart from the design it copies), or NULL when round_hist is off. */
static u32 *ipi_hist_of(const struct bench_ctx *c)
{
	return ipi_round_hist && c->variant < IPI_HIST_VARIANTS ? ipi_hist[c->variant] : NULL;
}

/*
 * round_hist=1's timed run: ipi_run() calls this in place of the design's
 * round, which it times into the variant's histogram. The round loop stays
 * the one the default run executes.
 */
static int (*ipi_hist_round)(void);
static u32 *ipi_hist_now;

static int ipi_round_hist_timed(void)
{
	u64 t0 = arch_tsc_read();
	int err = ipi_hist_round();

	ipi_hist_now[MIN((arch_tsc_read() - t0) / IPI_HIST_STEP, IPI_HIST_N - 1ull)]++;
	return err;
}

static void ipi_run(struct bench_ctx *c, unsigned idx)
{
	int (*round)(void) = container_of(c->design, struct ipi_ops, d)->round;
	u32 *hist = c->runs_done == c->warmup ? ipi_hist_of(c) : NULL; /* the timed run */

	(void)idx; /* only index 0 runs: idle_targets */
	if (hist) {
		ipi_hist_round = round;
		ipi_hist_now = hist;
		round = ipi_round_hist_timed;
	}
	for (u64 r = 0; r < c->ops; r++) {
		int err = round();

		if (err) {
			bench_fail(c, "smp_call failed in round %lu (%s)", (unsigned long)r,
				   errno_name(err));
			return;
		}
		ipi_gap(c);
	}
}

/* round_hist=1: the design's buckets, up to its last non-empty one. */
static void ipi_report_hist(const struct bench_ctx *c, struct json *j)
{
	const u32 *hist = ipi_hist_of(c);
	unsigned n = IPI_HIST_N;

	if (!hist)
		return;
	while (n > 1 && !hist[n - 1])
		n--;
	json_u64(j, "round_hist_step", IPI_HIST_STEP);
	json_array_begin(j, "round_hist");
	for (unsigned i = 0; i < n; i++)
		json_elem_u64(j, hist[i]);
	json_array_end(j);
}

/*
 * The HLT wake-ups per round (over the last episode's runs, warm-up
 * included): at most the targets; below them when a target was not yet
 * back in HLT (back to back) or polls. And the gap, when there is one.
 */
static void ipi_report(const struct bench_ctx *c, struct json *j, u64 median)
{
	u64 rounds = MAX(c->runs_done * c->ops, 1ull);

	(void)median;
	json_fixed(j, "hlt_wakes_per_round",
		   (s64)mul_div_u64(bench_counter_total(c, PCPU_IPI_HLT_WAKES), 1000, rounds), 3);
	json_u64(j, "gap_cycles", ipi_gap_cycles);
	ipi_report_hist(c, j);
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
static const char *const ipi_state_words[] = { "halted", "polling" };
static const struct bench_case ipi_cases[] = {
	{ { IPI_TARGET_ONE, IPI_HALTED } },
	{ { IPI_TARGET_ALL, IPI_HALTED } },
	{ { IPI_TARGET_ONE, IPI_POLLING } },
	{ { IPI_TARGET_ALL, IPI_POLLING } },
};

/* target_state=halted|polling on the command line keeps only those cases. */
enum opt_ipi_state { OPT_IPI_STATE_ALL, OPT_IPI_STATE_HALTED, OPT_IPI_STATE_POLLING };
static const char *const ipi_state_opt_words[] = {
	[OPT_IPI_STATE_ALL] = "all",
	[OPT_IPI_STATE_HALTED] = "halted",
	[OPT_IPI_STATE_POLLING] = "polling",
	NULL,
};
static enum opt_ipi_state ipi_state_opt;
OPTION_ENUM(target_state, ipi_state_opt, ipi_state_opt_words, OPT_IPI_STATE_ALL);

static bool ipi_case_selected(const struct bench_case *bc, const struct options *opt)
{
	(void)opt;
	return ipi_state_opt == OPT_IPI_STATE_ALL ||
	       (ipi_state_opt == OPT_IPI_STATE_POLLING) == (bc->param[1] == IPI_POLLING);
}

const struct bench bench_ipi = {
	.name = "ipi",
	.title = "cross-CPU call round trip",
	.exact_metric_name = "instructions_per_round",
	/* Every other CPU idle, as the shootdowns of an idle machine find them. */
	.headline = { { IPI_TARGET_ALL, IPI_HALTED } },
	.metric_name = "cycles_per_round",
	.designs = ipi_designs,
	.param_names = { "target", "target_state" },
	.param_words = { ipi_target_words, ipi_state_words },
	.cases = ipi_cases,
	.ncases = ARRAY_SIZE(ipi_cases),
	.case_selected = ipi_case_selected,
	.metric = BENCH_CYCLES_PER_OP,
	.min_cpus = 2,
	.idle_targets = true,
	.iters = 10,
	.max_iters = 60,
	.warmup = 2,
	.counters = BENCH_COUNTERS(PCPU_IPI_SENT, PCPU_IPI_RECEIVED, PCPU_INTERRUPTS,
				   PCPU_IPI_ROUND_WAITS, PCPU_IPI_HLT_WAKES),
	.setup = ipi_setup,
	.run = ipi_run,
	.verify = ipi_verify,
	.report = ipi_report,
	.teardown = ipi_teardown,
	.control = ipi_control,
};
BENCH_REGISTER(bench_ipi, 10);
