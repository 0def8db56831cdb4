/*
 * The harness's run machinery (see bench/bench_runs.h): one episode's runs
 * on every participating CPU. Workers handed out through smp_run_async(),
 * the sense-free barriers that release all CPUs together, the per-CPU run
 * loop, the counter snapshots around the timed part, the slowest CPU's time
 * less the empty-loop cost, and each run's metric. The cases, rounds and
 * sweeps around it are bench/bench.c's.
 */
#include "bench/bench_runs.h"
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "kernel/timing.h"
#include "kernel/trace.h"
#include "lib/atomic.h"
#include "lib/math.h"
#include "lib/string.h"
#include "mm/pmm.h"
#include <arch/arch.h>

/* A barrier wait longer than this means a CPU is stuck: fail the case. */
#define BENCH_BARRIER_TIMEOUT_MS 120000
#define BENCH_EMPTY_LOOPS 1000

struct barrier {
	u32 arrived;
	u32 generation;
} __cacheline_aligned;

struct run_state {
	struct bench_ctx *c;
	struct variant_runs *vr; /* where the timed runs go */
	u32 seq;		 /* the episode's place in the case's order */
	struct barrier a, p, q, b, mid, end;
	u32 abort;
	u32 total_runs, timed_runs;
	u32 workers_left;
	u64 elapsed[MAX_CPUS];
	u64 elapsed2[MAX_CPUS];
	u64 clock_on[2][MAX_CPUS], clock_off[2][MAX_CPUS]; /* each phase's clock readings per CPU */
};

static struct run_state rs;
static u64 empty_loop_cycles;

/*
 * Sense-free barrier: the last arrival bumps the generation; with @lead
 * (timing=exact), CPU index 0 (@idx) does, once every other CPU waits.
 * Each waiter is then parked at its PAUSE, and the runs start the same
 * way every time: index 0 first, the others in turn when it yields,
 * whichever CPU came last. False on timeout or abort.
 */
static bool barrier_wait_lead(struct barrier *b, unsigned n, unsigned idx, bool lead)
{
	u32 gen = atomic_load_acquire(&b->generation);
	u64 deadline = arch_tsc_read() + arch_tsc_hz() / 1000 * BENCH_BARRIER_TIMEOUT_MS;
	u32 arrived = atomic_add_return(&b->arrived, 1);

	while (lead && idx == 0 && arrived != n) {
		if (atomic_load_relaxed(&rs.abort) || arch_tsc_read() > deadline) {
			atomic_store_release(&rs.abort, 1);
			return false;
		}
		arch_cpu_relax();
		arrived = atomic_load_acquire(&b->arrived);
	}
	if (arrived == n && (!lead || idx == 0)) {
		atomic_store_relaxed(&b->arrived, 0);
		atomic_store_release(&b->generation, gen + 1);
		return true;
	}
	while (atomic_load_acquire(&b->generation) == gen) {
		if (atomic_load_relaxed(&rs.abort) || arch_tsc_read() > deadline) {
			atomic_store_release(&rs.abort, 1);
			return false;
		}
		arch_cpu_relax();
	}
	return true;
}

static bool barrier_wait(struct barrier *b, unsigned n)
{
	return barrier_wait_lead(b, n, 0, false);
}

static void snapshot(u64 *out)
{
	for (unsigned k = 0; k < pcpu_counter_count(); k++)
		out[k] = percpu_counter_sum(pcpu_counter_at(k));
}

static void bench_record_run(struct bench_ctx *c, u32 r);

/*
 * The boot CPU's part between runs; false ends the loop. timing=exact:
 * the frame allocator first goes to the state its free frames alone
 * decide (caches drained, lists in frame order), so prepare maps the same
 * frames every run and the timed frees merge the same buddies.
 */
static bool boot_cpu_prepare(struct bench_ctx *c)
{
	int err;

	if (timing_exact()) {
		pmm_drain_all();
		pmm_sort_free_lists();
	}
	if (!c->b->prepare)
		return true;
	err = c->b->prepare(c);
	if (err) {
		bench_fail(c, "prepare failed (%s)", errno_name(err));
		atomic_store_release(&rs.abort, 1);
		return false;
	}
	return true;
}

/*
 * The timed part of one run on one CPU: run(), then run_phase2() once
 * every CPU has finished run(), each phase timed on its own. The barrier
 * between them is untimed, so no CPU's second phase (gup_test's put)
 * overlaps another's first (get). False when the barrier failed.
 */
static bool run_timed_phases(struct bench_ctx *c, unsigned idx, unsigned n)
{
	u64 t0;

	if (idx == 0)
		c->excluded_cycles = 0;
	t0 = rs.clock_on[0][idx] = arch_tsc_read();
	c->b->run(c, idx);
	rs.clock_off[0][idx] = arch_tsc_read();
	rs.elapsed[idx] = rs.clock_off[0][idx] - t0;
	if (idx == 0) /* gaps run() timed itself and asked not to count */
		rs.elapsed[0] -= MIN(c->excluded_cycles, rs.elapsed[0]);
	if (!c->b->run_phase2)
		return true;
	if (!barrier_wait_lead(&rs.mid, n, idx, timing_exact()))
		return false;
	t0 = rs.clock_on[1][idx] = arch_tsc_read();
	c->b->run_phase2(c, idx);
	rs.clock_off[1][idx] = arch_tsc_read();
	rs.elapsed2[idx] = rs.clock_off[1][idx] - t0;
	return true;
}

/*
 * One CPU's side of every run of a case; @idx 0 is the boot CPU. Barriers:
 * A (all here; boot CPU prepares), P (all prepare), Q (boot CPU snapshots
 * counters), B (go: timed part; MID between its two phases), END (boot CPU
 * snapshots and records).
 */
static void bench_loop(unsigned idx)
{
	struct bench_ctx *c = rs.c;
	unsigned n = c->b->idle_targets ? 1 : c->ncpus; /* CPUs in the barriers */
	static u64 before[PCPU_COUNTER_SLOTS], after[PCPU_COUNTER_SLOTS];

	for (u32 r = 0; r < rs.total_runs; r++) {
		if (!barrier_wait(&rs.a, n) || (idx == 0 && !boot_cpu_prepare(c)))
			return;
		if (!barrier_wait(&rs.p, n))
			return;
		if (c->b->prepare_cpu)
			c->b->prepare_cpu(c, idx);
		if (!barrier_wait(&rs.q, n))
			return;
		/*
		 * timing=exact: every timed run starts with the frame caches
		 * empty, so none refills or drains in one run and not the next
		 * for what earlier runs left there.
		 */
		if (idx == 0 && timing_exact())
			pmm_drain_all();
		if (idx == 0)
			snapshot(before);
		if (idx == 0 && r >= rs.total_runs - rs.timed_runs)
			trace_region_begin(c->variant);
		if (!barrier_wait_lead(&rs.b, n, idx, timing_exact()))
			return;
		if (!run_timed_phases(c, idx, n))
			return;
		if (!barrier_wait(&rs.end, n))
			return;
		if (idx == 0) {
			trace_region_end();
			snapshot(after);
			for (unsigned k = 0; k < pcpu_counter_count(); k++) {
				c->counter_delta[k] = after[k] - before[k];
				c->counter_total[k] += c->counter_delta[k];
			}
			bench_record_run(c, r);
		}
	}
}

static void bench_worker(void *arg)
{
	bench_loop((unsigned)(uintptr_t)arg);
	atomic_sub_return(&rs.workers_left, 1);
}

/*
 * A phase's time, less the cost of timing nothing: the slowest CPU's; in
 * timing=exact, the one clock from the first CPU's start to the last
 * one's end (less the gaps run() excluded): every CPU's instructions,
 * whichever order their turns came in. The slowest CPU's window there
 * misses the turns others took before it started or after it ended, and
 * where the emulator's time slice falls moves those by a whole call.
 */
static u64 run_cycles(const struct bench_ctx *c, unsigned phase)
{
	const u64 *elapsed = phase ? rs.elapsed2 : rs.elapsed;
	unsigned n = c->b->idle_targets ? 1 : c->ncpus;
	u64 slowest = 0, first = ~0ull, last = 0;

	for (unsigned i = 0; i < n; i++) {
		slowest = MAX(slowest, elapsed[i]);
		first = MIN(first, rs.clock_on[phase][i]);
		last = MAX(last, rs.clock_off[phase][i]);
	}
	if (timing_exact())
		slowest = last - first - (phase ? 0 : MIN(c->excluded_cycles, last - first));
	return slowest > empty_loop_cycles ? slowest - empty_loop_cycles : 1;
}

/*
 * timing=exact: the instructions of one run (the virtual clock's cycles),
 * in thousandths, per the unit the metric counts in (bench.h,
 * exact_metric_name): per operation, per run, or per counter_unit.
 */
static u64 exact_value(const struct bench_ctx *c, u64 cycles)
{
	u64 ops = MAX(c->ops, 1ull);

	switch (c->b->metric) {
	case BENCH_US_PER_RUN:
		return cycles * 1000;
	case BENCH_BYTES_PER_MS:
		return mul_div_u64(cycles, 1000 * MAX(c->b->counter_unit_ops, 1ull), ops);
	default:
		return mul_div_u64(cycles, 1000, ops);
	}
}

/* The metric of one run in thousandths of its unit. */
static u64 metric_value(const struct bench_ctx *c, u64 cycles)
{
	u64 ns = MAX(mul_div_u64(cycles, 1000000000u, arch_tsc_hz()), 1ull);
	u64 ops = MAX(c->ops, 1ull);

	if (timing_exact())
		return exact_value(c, cycles);

	switch (c->b->metric) {
	case BENCH_CYCLES_PER_OP:
		return mul_div_u64(cycles, 1000, ops);
	case BENCH_US_PER_RUN:
		return ns;
	case BENCH_BYTES_PER_MS:
		return mul_div_u64(ops, 1000000000u, ns);
	case BENCH_OPS_PER_SEC:
		return mul_div_u64(ops * 1000, 1000000000u, ns);
	}
	return 0;
}

static void bench_record_run(struct bench_ctx *c, u32 r)
{
	unsigned warmup = rs.total_runs - rs.timed_runs;
	struct variant_runs *vr = rs.vr;

	c->runs_done = r + 1;
	if (r < warmup || vr->n >= BENCH_MAX_RUNS)
		return;
	vr->sample[vr->n] = metric_value(c, run_cycles(c, 0));
	if (c->b->run_phase2)
		vr->sample2[vr->n] = metric_value(c, run_cycles(c, 1));
	vr->seq[vr->n++] = rs.seq;
	for (unsigned k = 0; k < pcpu_counter_count(); k++)
		vr->counter_sum[k] += c->counter_delta[k];
}

u64 bench_measure_empty_loop(void)
{
	u64 best = ~0ull;

	for (int i = 0; i < BENCH_EMPTY_LOOPS; i++) {
		u64 t0 = arch_tsc_read(), t1 = arch_tsc_read();

		best = MIN(best, t1 - t0);
	}
	empty_loop_cycles = best;
	return best;
}

u64 bench_empty_loop_cycles(void)
{
	return empty_loop_cycles;
}

/* Hands bench_loop() to every participating CPU but the boot CPU. */
static int start_workers(struct bench_ctx *c)
{
	for (unsigned idx = 1; idx < c->ncpus && !c->b->idle_targets; idx++) {
		int err = smp_run_async(c->cpu[idx], bench_worker, (void *)(uintptr_t)idx);

		if (err) {
			bench_fail(c, "CPU %u did not take the benchmark work (%s)", c->cpu[idx],
				   errno_name(err));
			atomic_store_release(&rs.abort, 1);
			return err;
		}
		atomic_add_return(&rs.workers_left, 1);
	}
	return 0;
}

/* Waits for the workers to leave bench_loop(); a stuck one fails the case. */
static void join_workers(struct bench_ctx *c)
{
	u64 deadline = arch_tsc_read() + arch_tsc_hz() / 1000 * BENCH_BARRIER_TIMEOUT_MS;

	while (atomic_load_acquire(&rs.workers_left)) {
		if (arch_tsc_read() > deadline) {
			bench_fail(c, "%u CPUs did not finish their runs", rs.workers_left);
			return;
		}
		arch_cpu_relax();
	}
	if (atomic_load_acquire(&rs.abort) && !c->error)
		bench_fail(c, "a CPU did not reach a barrier within %u ms",
			   BENCH_BARRIER_TIMEOUT_MS);
}
void bench_run_case_runs(struct bench_ctx *c, struct variant_runs *vr, u32 seq, unsigned iters,
			 unsigned warmup)
{
	memset(&rs, 0, sizeof(rs));
	memset(c->counter_total, 0, sizeof(c->counter_total));
	c->runs_done = 0; /* this episode's: prepare and run tell its warm-up runs by it */
	rs.c = c;
	rs.vr = vr;
	rs.seq = seq;
	rs.timed_runs = iters;
	rs.total_runs = iters + warmup;
	if (start_workers(c) == 0)
		bench_loop(0);
	join_workers(c);
}
