/*
 * The benchmark harness (see bench/bench.h): the CPU-count sweep, the
 * rounds of interleaved episodes and the barrier-released runs; the result
 * lines are bench/bench_result.c's.
 *
 * One case (bench, parameter set, CPU count) is rounds of episodes: each
 * round runs one episode of every variant, in an order shuffled from
 * seed=, so drift of the host hits the variants alike. An episode is
 * setup on the boot CPU; each other participating CPU is handed
 * bench_worker() through smp_run_async(), so it runs in task context with
 * interrupts on; then every CPU loops over the warm-up runs and one timed
 * run; then verify and teardown. Each run: all CPUs meet at barrier A, the
 * boot CPU snapshots the counters, barrier B releases everyone, each CPU
 * times its own run() with serialised TSC reads, and barrier C ends the
 * run, after which the boot CPU takes the second snapshot. Rounds go on
 * past the bench's minimum until every variant's median is known within
 * BENCH_CI_TARGET_PCT, or its maximum. Only the boot CPU touches the
 * statistics.
 */
#include "bench/bench.h"
#include "bench/bench_result.h"
#include "errno.h"
#include "kernel/cmdline.h"
#include "kernel/json.h"
#include "kernel/printk.h"
#include "kernel/report.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "lib/format.h"
#include "lib/math.h"
#include "lib/stats.h"
#include "lib/string.h"
#include "mm/mm.h"
#include <arch/arch.h>

/* A barrier wait longer than this means a CPU is stuck: fail the case. */
#define BENCH_BARRIER_TIMEOUT_MS 120000
#define BENCH_EMPTY_LOOPS 1000

/* Bounds of the bench_set section (BENCH_REGISTER): from linker.ld. */
extern const struct bench_entry __start_bench_set[];
extern const struct bench_entry __stop_bench_set[];

/* The registered benchmarks in run order, and their names, NULL-terminated. */
static const struct bench *benches[BENCH_MAX_BENCHES];
static unsigned nbenches;
static const char *names[BENCH_MAX_BENCHES + 1];

u32 bench_seed = 1;
/* seed=: the per-round shuffle of the variants' order. */
OPTION_UINT(seed, bench_seed, 1, 1000000000, 1);

struct barrier {
	u32 arrived;
	u32 generation;
} __cacheline_aligned;

struct run_state {
	struct bench_ctx *c;
	struct barrier a, p, q, b, mid, end;
	u32 abort;
	u32 total_runs, timed_runs;
	u32 workers_left;
	u64 elapsed[MAX_CPUS];
	u64 elapsed2[MAX_CPUS];
};

static struct run_state rs;
static u64 empty_loop_cycles;
static struct variant_runs vruns[BENCH_MAX_VARIANTS];
static u64 values[BENCH_MAX_RUNS]; /* sorted copies for the statistics */
static u32 episode_seq;		   /* episodes of the current case so far */
static u64 rng_state;
/* Sorts the bench_set section by order key into benches[], once. */
static void collect_benches(void)
{
	static unsigned order[BENCH_MAX_BENCHES];
	const struct bench_entry *e;
	unsigned i;

	if (nbenches)
		return;
	for (e = __start_bench_set; e < __stop_bench_set && nbenches < BENCH_MAX_BENCHES; e++) {
		for (i = nbenches; i > 0 && order[i - 1] > e->order; i--) {
			benches[i] = benches[i - 1];
			order[i] = order[i - 1];
		}
		benches[i] = e->b;
		order[i] = e->order;
		nbenches++;
	}
}

const char *const *bench_names(void)
{
	collect_benches();
	for (unsigned i = 0; i < nbenches; i++)
		names[i] = benches[i]->name;
	return names;
}

void bench_fail(struct bench_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (atomic_cmpxchg(&c->error, 0, -EINVAL) != 0)
		return;
	va_start(ap, fmt);
	fmt_vsnprintf(c->errmsg, sizeof(c->errmsg), fmt, ap);
	va_end(ap);
}

u64 bench_param(const struct bench_ctx *c, const char *name)
{
	for (unsigned i = 0; i < BENCH_MAX_PARAMS && c->b->param_names[i]; i++)
		if (strcmp(c->b->param_names[i], name) == 0)
			return c->bcase->param[i];
	return 0;
}

static void bench_switch_mm(void *mm)
{
	mm_switch(mm);
}

int bench_load_mm(const struct bench_ctx *c, struct mm *mm)
{
	cpumask_t others;

	cpumask_clear(&others);
	for (unsigned idx = 1; idx < c->ncpus; idx++)
		cpumask_set_cpu(c->cpu[idx], &others);
	mm_switch(mm);
	return smp_call(&others, bench_switch_mm, mm, true);
}

/* Sense-free barrier: the last arrival bumps the generation. False on timeout or abort. */
static bool barrier_wait(struct barrier *b, unsigned n)
{
	u32 gen = atomic_load_acquire(&b->generation);
	u64 deadline = arch_tsc_read() + arch_tsc_hz() / 1000 * BENCH_BARRIER_TIMEOUT_MS;

	if (atomic_add_return(&b->arrived, 1) == n) {
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

static void snapshot(u64 *out)
{
	for (unsigned k = 0; k < PCPU_NR_COUNTERS; k++)
		out[k] = percpu_counter_sum(k);
}

static void bench_record_run(struct bench_ctx *c, u32 r);

/* The boot CPU's part between runs; false ends the loop. */
static bool boot_cpu_prepare(struct bench_ctx *c)
{
	int err;

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
	u64 t0 = arch_tsc_read();

	c->b->run(c, idx);
	rs.elapsed[idx] = arch_tsc_read() - t0;
	if (!c->b->run_phase2)
		return true;
	if (!barrier_wait(&rs.mid, n))
		return false;
	t0 = arch_tsc_read();
	c->b->run_phase2(c, idx);
	rs.elapsed2[idx] = arch_tsc_read() - t0;
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
	static u64 before[PCPU_NR_COUNTERS], after[PCPU_NR_COUNTERS];

	for (u32 r = 0; r < rs.total_runs; r++) {
		if (!barrier_wait(&rs.a, n) || (idx == 0 && !boot_cpu_prepare(c)))
			return;
		if (!barrier_wait(&rs.p, n))
			return;
		if (c->b->prepare_cpu)
			c->b->prepare_cpu(c, idx);
		if (!barrier_wait(&rs.q, n))
			return;
		if (idx == 0)
			snapshot(before);
		if (!barrier_wait(&rs.b, n))
			return;
		if (!run_timed_phases(c, idx, n))
			return;
		if (!barrier_wait(&rs.end, n))
			return;
		if (idx == 0) {
			snapshot(after);
			for (unsigned k = 0; k < PCPU_NR_COUNTERS; k++) {
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

/* A phase's time: the slowest CPU's, less the cost of timing nothing. */
static u64 run_cycles(const struct bench_ctx *c, const u64 *elapsed)
{
	u64 slowest = 0;

	for (unsigned i = 0; i < (c->b->idle_targets ? 1 : c->ncpus); i++)
		slowest = MAX(slowest, elapsed[i]);
	return slowest > empty_loop_cycles ? slowest - empty_loop_cycles : 1;
}

/* The metric of one run in thousandths of its unit. */
static u64 metric_value(const struct bench_ctx *c, u64 cycles)
{
	u64 ns = MAX(mul_div_u64(cycles, 1000000000u, arch_tsc_hz()), 1ull);
	u64 ops = MAX(c->ops, 1ull);

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
	struct variant_runs *vr = &vruns[c->variant];

	c->runs_done = r + 1;
	if (r < warmup || vr->n >= BENCH_MAX_RUNS)
		return;
	vr->sample[vr->n] = metric_value(c, run_cycles(c, rs.elapsed));
	if (c->b->run_phase2)
		vr->sample2[vr->n] = metric_value(c, run_cycles(c, rs.elapsed2));
	vr->seq[vr->n++] = episode_seq;
	for (unsigned k = 0; k < PCPU_NR_COUNTERS; k++)
		vr->counter_sum[k] += c->counter_delta[k];
}

/* Minimum cost of two back-to-back serialised TSC reads on the boot CPU. */
static void measure_empty_loop(void)
{
	u64 best = ~0ull;

	for (int i = 0; i < BENCH_EMPTY_LOOPS; i++) {
		u64 t0 = arch_tsc_read(), t1 = arch_tsc_read();

		best = MIN(best, t1 - t0);
	}
	empty_loop_cycles = best;
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
		bench_fail(c, "a CPU did not reach a barrier within %u ms", BENCH_BARRIER_TIMEOUT_MS);
}

static void run_case_runs(struct bench_ctx *c, unsigned iters, unsigned warmup)
{
	memset(&rs, 0, sizeof(rs));
	memset(c->counter_total, 0, sizeof(c->counter_total));
	rs.c = c;
	rs.timed_runs = iters;
	rs.total_runs = iters + warmup;
	if (start_workers(c) == 0)
		bench_loop(0);
	join_workers(c);
}

/* ---- teardown failures: kept apart from the run loop ---- */

/* The first teardown error of the benchmark running (0: none); reset by bench_run(). */
static int teardown_err;

/* Runs @c's teardown; a failure fails the case and is remembered for the cases after it. */
static void bench_teardown(struct bench_ctx *c)
{
	int err = c->b->teardown ? c->b->teardown(c) : 0;

	if (!err)
		return;
	bench_fail(c, "teardown failed (%s): later cases of %s are not run", errno_name(err),
		   c->b->name);
	if (!teardown_err)
		teardown_err = err;
}

/* Before a case's setup: fails it (returning nonzero) when an earlier teardown failed. */
static int bench_teardown_failed_before(struct bench_ctx *c)
{
	if (!teardown_err)
		return 0;
	bench_fail(c, "not run: an earlier teardown of %s failed (%s)", c->b->name,
		   errno_name(teardown_err));
	return teardown_err;
}

/*
 * One episode of variant @v: setup, the warm-up runs and one timed run,
 * verify, teardown. A failure marks the variant failed, and it runs no
 * more episodes of this case.
 */
static void run_episode(struct bench_ctx *c, unsigned v)
{
	const struct bench *b = c->b;
	struct variant_runs *vr = &vruns[v];
	int err;

	c->variant = v;
	c->design = bench_design(c->b, v);
	c->error = 0;
	c->priv = NULL;
	err = bench_teardown_failed_before(c);
	if (!err && b->setup)
		err = b->setup(c);
	if (err) {
		bench_fail(c, "setup failed (%s)", errno_name(err));
	} else {
		run_case_runs(c, 1, b->warmup);
		/* Verification runs after the timed region, never inside it. */
		if (!c->error && b->verify && (err = b->verify(c)))
			bench_fail(c, "verification failed (%s)", errno_name(err));
		memcpy(vr->last_total, c->counter_total, sizeof(vr->last_total));
		vr->last_runs_done = c->runs_done;
		bench_teardown(c);
	}
	if (c->error) {
		vr->failed = true;
		fmt_snprintf(vr->errmsg, sizeof(vr->errmsg), "%s (timed run %u)", c->errmsg,
			     vr->n + 1);
	}
	episode_seq++;
}

/* xorshift64*: the run-order shuffle needs reproducibility, not strength. */
static u64 rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* The variants still running, in a fresh random order (Fisher-Yates). */
static unsigned round_order(const struct bench *b, unsigned *order)
{
	unsigned n = 0;

	for (unsigned v = 0; v < bench_ndesigns(b); v++)
		if (!vruns[v].failed)
			order[n++] = v;
	for (unsigned i = n; i > 1; i--) {
		unsigned k = (unsigned)(rng_next() % i), tmp = order[i - 1];

		order[i - 1] = order[k];
		order[k] = tmp;
	}
	return n;
}

/* True when @vr's median is known within ±BENCH_CI_TARGET_PCT at 95% confidence. */
static bool median_ci_within_target(const struct variant_runs *vr)
{
	struct stats st;
	u64 lo, hi;

	if (stats_median_ci_rank(vr->n) == 0)
		return false;
	memcpy(values, vr->sample, vr->n * sizeof(*values));
	stats_compute(values, vr->n, &st);
	stats_median_ci(values, vr->n, &lo, &hi);
	return (hi - lo) * 100 <= 2 * BENCH_CI_TARGET_PCT * st.median;
}

/* Rounds of one episode per variant, in shuffled order, until enough runs or all failed. */
static void run_rounds(struct bench_ctx *c, unsigned min_rounds, unsigned max_rounds)
{
	unsigned order[BENCH_MAX_VARIANTS];

	for (unsigned r = 0; r < max_rounds; r++) {
		unsigned n = round_order(c->b, order);
		bool done = r + 1 >= min_rounds;

		if (!n)
			return;
		for (unsigned i = 0; i < n; i++)
			run_episode(c, order[i]);
		for (unsigned v = 0; v < bench_ndesigns(c->b) && done; v++)
			done = vruns[v].failed || median_ci_within_target(&vruns[v]);
		if (done)
			return;
	}
}

/* Timed runs per variant: iters= exactly, else the bench's adaptive range. */
static void round_limits(const struct bench *b, unsigned *min, unsigned *max)
{
	if (bench_iters) {
		*min = *max = MIN(bench_iters, (u32)BENCH_MAX_RUNS);
		return;
	}
	*min = MAX(b->iters, 1u);
	*max = b->max_iters ? b->max_iters : 3 * *min;
	*max = MIN(MAX(*max, *min), (unsigned)BENCH_MAX_RUNS);
}

/* The result line (or failure) of variant c->variant after the rounds. Returns true if it passed. */
static bool finish_variant(struct bench_ctx *c, const char *label, const struct options *opt)
{
	const struct bench *b = c->b;
	struct variant_runs *vr = &vruns[c->variant];
	u64 median = 0;

	if (!vr->failed && !vr->n) {
		vr->failed = true;
		fmt_snprintf(vr->errmsg, sizeof(vr->errmsg), "no timed run");
	}
	if (vr->failed) {
		printk("# bench FAIL %s %s cpus=%u %s: %s\n", b->name, c->design->name,
		       c->ncpus, label, vr->errmsg);
	} else {
		printk("# bench %s %s cpus=%u %s: %u timed runs, each after %u warm-up\n", b->name,
		       c->design->name, c->ncpus, label, vr->n, b->warmup);
		median = bench_print_result(c, vr);
	}
	bench_print_lava(c, !vr->failed, median, opt);
	return !vr->failed;
}

/* Runs every variant of one (bench, parameter set, CPU count), interleaved run by run. */
static void run_case(struct bench_ctx *c, const struct options *opt, struct bench_outcome *out)
{
	const struct bench *b = c->b;
	unsigned min, max;
	char label[128];

	c->opt = opt;
	round_limits(b, &min, &max);
	memset(vruns, 0, sizeof(vruns));
	episode_seq = 0;
	bench_case_label(c, label, sizeof(label), ' ', '=');
	printk("# bench %s cpus=%u %s: variants alternate run by run (order shuffled, seed %u), "
	       "%u..%u timed runs each\n", b->name, c->ncpus, label, bench_seed, min, max);
	run_rounds(c, min, max);
	for (unsigned v = 0; v < bench_ndesigns(b); v++) {
		c->variant = v;
		c->design = bench_design(b, v);
		if (finish_variant(c, label, opt))
			out->passed++;
		else
			out->failed++;
	}
}

/*
 * The CPU counts to run at: cpus= if given (those online; *@beyond counts
 * the others), else 1, 2, 4, ... and all.
 */
static unsigned sweep_counts(unsigned *counts, unsigned *beyond)
{
	unsigned n = 0;

	*beyond = 0;
	if (bench_cpus.n) {
		for (unsigned i = 0; i < bench_cpus.n; i++)
			if (bench_cpus.value[i] <= ncpus_online) {
				counts[n++] = bench_cpus.value[i];
			} else {
				printk("# WARN bench: cpus=%u skipped: only %u CPUs are online\n",
				       bench_cpus.value[i], ncpus_online);
				(*beyond)++;
			}
		return n;
	}
	for (unsigned k = 1; k < ncpus_online; k *= 2)
		counts[n++] = k;
	counts[n++] = ncpus_online;
	return n;
}

/* Counts @n skipped results, @asked when the command line named what they needed. */
static void count_skipped(struct bench_outcome *out, unsigned n, bool asked)
{
	out->skipped += n;
	if (asked)
		out->skipped_asked += n;
}

static void run_sweep(const struct bench *b, const unsigned *counts, unsigned ncounts,
		      const struct options *opt, struct bench_outcome *out)
{
	static struct bench_ctx c;
	unsigned cpu, idx = 0;

	c.b = b;
	for_each_cpu(cpu, &cpu_online_mask)
		c.cpu[idx++] = cpu;
	for (unsigned ci = 0; ci < b->ncases; ci++) {
		c.bcase = &b->cases[ci];
		if (b->case_selected && !b->case_selected(c.bcase, opt))
			continue;
		for (unsigned k = 0; k < ncounts; k++) {
			c.ncpus = counts[k];
			if (counts[k] >= b->min_cpus && (!b->max_cpus || counts[k] <= b->max_cpus)) {
				run_case(&c, opt, out);
				continue;
			}
			printk("# bench %s cpus=%u: outside its range %u..%u CPUs: skipped\n", b->name,
			       counts[k], b->min_cpus, b->max_cpus ? b->max_cpus : ncpus_online);
			count_skipped(out, bench_ndesigns(b), bench_cpus.n > 0);
		}
	}
}

void bench_run(const struct bench *b, const struct options *opt, struct bench_outcome *out)
{
	unsigned counts[OPT_LIST_MAX + 32], beyond;
	unsigned ncounts = sweep_counts(counts, &beyond);

	*out = (struct bench_outcome){ 0 };
	teardown_err = 0;
	if (!empty_loop_cycles)
		measure_empty_loop();
	/* Each benchmark's order depends on seed= alone, not on which others ran. */
	rng_state = 0x9e3779b97f4a7c15ull * ((u64)bench_seed + 1);
	if (bench_ndesigns(b) > BENCH_MAX_VARIANTS) {
		printk("# bench FAIL %s: %u variants, the harness holds %u\n", b->name,
		       bench_ndesigns(b), BENCH_MAX_VARIANTS);
		out->failed++;
		return;
	}
	count_skipped(out, beyond * b->ncases * bench_ndesigns(b), true);
	if (b->min_cpus > ncpus_online) {
		printk("# bench %s: needs %u CPUs, %u online: skipped\n", b->name, b->min_cpus,
		       ncpus_online);
		count_skipped(out, 1, bench_cpus.n || bench_selected.n);
		return;
	}
	run_sweep(b, counts, ncounts, opt, out);
}

unsigned bench_run_all(const struct options *opt)
{
	unsigned asked = 0;

	measure_empty_loop();
	printk("# bench: %u CPUs online, empty timing loop %lu cycles, TSC %lu Hz\n", ncpus_online,
	       (unsigned long)empty_loop_cycles, (unsigned long)arch_tsc_hz());
	collect_benches();
	for (unsigned i = 0; i < nbenches; i++) {
		struct bench_outcome out;

		if (!options_name_listed(&bench_selected, benches[i]->name))
			continue;
		bench_run(benches[i], opt, &out);
		report_count(out.passed, out.failed, out.skipped);
		asked += out.skipped_asked;
	}
	return asked;
}
