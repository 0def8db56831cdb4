/*
 * The benchmark harness (see bench/bench.h): the CPU-count sweep, the
 * barrier-released runs, statistics, and the BENCH/LAVA result lines.
 *
 * One case (bench, variant, parameter set, CPU count) goes: setup on the
 * boot CPU; each other participating CPU is handed bench_worker() through
 * smp_run_async(), so it runs in task context with interrupts on; then
 * every CPU loops over warm-up and timed runs. Each run: all CPUs meet at
 * barrier A, the boot CPU snapshots the counters, barrier B releases
 * everyone, each CPU times its own run() with serialised TSC reads, and
 * barrier C ends the run, after which the boot CPU takes the second
 * snapshot. Only the boot CPU touches the statistics.
 */
#include "bench/bench.h"
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
#include <arch/arch.h>

/* A barrier wait longer than this means a CPU is stuck: fail the case. */
#define BENCH_BARRIER_TIMEOUT_MS 120000
#define BENCH_EMPTY_LOOPS 1000

extern const struct bench bench_ipi, bench_tlb, bench_pin, bench_pagemap, bench_faultlock,
	bench_swapfree;

static const struct bench *const benches[] = {
	&bench_ipi,
	&bench_tlb,
	&bench_pin,
	&bench_pagemap,
	&bench_faultlock,
	&bench_swapfree,
};

static const char *names[ARRAY_SIZE(benches) + 1];

struct barrier {
	u32 arrived;
	u32 generation;
} __cacheline_aligned;

struct run_state {
	struct bench_ctx *c;
	struct barrier a, p, q, b, end;
	u32 abort;
	u32 total_runs, timed_runs;
	u32 workers_left;
	u64 elapsed[MAX_CPUS];
	u64 elapsed2[MAX_CPUS];
};

static struct run_state rs;
static u64 empty_loop_cycles;
static u64 values[BENCH_MAX_RUNS];
static u64 values2[BENCH_MAX_RUNS];
static u64 counter_sum[PCPU_NR_COUNTERS];
static char line[2048];
static bool results_as_diagnostics;

void bench_set_diagnostic_results(bool on)
{
	results_as_diagnostics = on;
}

const char *const *bench_names(void)
{
	for (unsigned i = 0; i < ARRAY_SIZE(benches); i++)
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
 * One CPU's side of every run of a case; @idx 0 is the boot CPU. Barriers:
 * A (all here; boot CPU prepares), P (all prepare), Q (boot CPU snapshots
 * counters), B (go: timed part), END (boot CPU snapshots and records).
 */
static void bench_loop(unsigned idx)
{
	struct bench_ctx *c = rs.c;
	unsigned n = c->b->idle_targets ? 1 : c->ncpus; /* CPUs in the barriers */
	static u64 before[PCPU_NR_COUNTERS], after[PCPU_NR_COUNTERS];

	for (u32 r = 0; r < rs.total_runs; r++) {
		u64 t0, t1;

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
		t0 = arch_tsc_read();
		c->b->run(c, idx);
		t1 = arch_tsc_read();
		rs.elapsed[idx] = t1 - t0;
		if (c->b->run_phase2) {
			c->b->run_phase2(c, idx);
			rs.elapsed2[idx] = arch_tsc_read() - t1;
		}
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

	c->runs_done = r + 1;
	if (r < warmup)
		return;
	values[r - warmup] = metric_value(c, run_cycles(c, rs.elapsed));
	if (c->b->run_phase2)
		values2[r - warmup] = metric_value(c, run_cycles(c, rs.elapsed2));
	for (unsigned k = 0; k < PCPU_NR_COUNTERS; k++)
		counter_sum[k] += c->counter_delta[k];
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

static const char *metric_name(const struct bench *b)
{
	static const char *const names_[] = {
		[BENCH_CYCLES_PER_OP] = "cycles_per_op",
		[BENCH_US_PER_RUN] = "us_per_run",
		[BENCH_BYTES_PER_MS] = "bytes_per_ms",
		[BENCH_OPS_PER_SEC] = "ops_per_sec",
	};

	return b->metric_name ? b->metric_name : names_[b->metric];
}

static const char *metric_unit(const struct bench *b)
{
	static const char *const units[] = {
		[BENCH_CYCLES_PER_OP] = "cycles",
		[BENCH_US_PER_RUN] = "us",
		[BENCH_BYTES_PER_MS] = "bytes/ms",
		[BENCH_OPS_PER_SEC] = "ops/s",
	};

	return b->unit ? b->unit : units[b->metric];
}

static bool higher_is_better(const struct bench *b)
{
	return b->metric == BENCH_BYTES_PER_MS || b->metric == BENCH_OPS_PER_SEC;
}

/* "target=all pages=512" style label of the case, for progress and LAVA ids. */
static void case_label(const struct bench_ctx *c, char *buf, size_t size, char sep, char eq)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < BENCH_MAX_PARAMS && c->b->param_names[i] && n + 1 < size; i++) {
		const char *const *words = c->b->param_words[i];
		u64 v = c->bcase->param[i];

		if (i) {
			buf[n++] = sep;
			buf[n] = '\0';
		}
		if (words)
			n += fmt_snprintf(buf + n, size - n, "%s%c%s", c->b->param_names[i], eq, words[v]);
		else
			n += fmt_snprintf(buf + n, size - n, "%s%c%lu", c->b->param_names[i], eq,
					  (unsigned long)v);
	}
}

static void json_params(struct json *j, const struct bench_ctx *c)
{
	json_object_begin(j, "params");
	for (unsigned i = 0; i < BENCH_MAX_PARAMS && c->b->param_names[i]; i++) {
		const char *const *words = c->b->param_words[i];

		if (words)
			json_str(j, c->b->param_names[i], words[c->bcase->param[i]]);
		else
			json_u64(j, c->b->param_names[i], c->bcase->param[i]);
	}
	json_object_end(j);
}

/* Each listed counter per operation (or per counter_unit), over every timed run, in thousandths. */
static void json_counters(struct json *j, const struct bench_ctx *c, unsigned runs)
{
	const char *unit = c->b->counter_unit ? c->b->counter_unit : "op";
	u64 unit_ops = c->b->counter_unit ? MAX(c->b->counter_unit_ops, 1ull) : 1;
	char key[48];

	json_object_begin(j, "counters");
	for (unsigned i = 0; i < c->b->ncounters; i++) {
		enum pcpu_counter k = c->b->counters[i];
		u64 per_unit = mul_div_u64(counter_sum[k], 1000 * unit_ops, MAX(c->ops * runs, 1ull));

		fmt_snprintf(key, sizeof(key), "%s_per_%s", percpu_counter_name(k), unit);
		json_fixed(j, key, (s64)per_unit, 3);
	}
	json_object_end(j);
}

static void json_stats(struct json *j, const struct stats *st)
{
	json_fixed(j, "median", (s64)st->median, 3);
	json_fixed(j, "min", (s64)st->min, 3);
	json_fixed(j, "max", (s64)st->max, 3);
	json_fixed(j, "mean", (s64)st->mean, 3);
	json_fixed(j, "stddev", (s64)st->stddev, 3);
}

/* The second phase's statistics, as an object named after it. */
static void json_phase2(struct json *j, const struct bench_ctx *c, unsigned runs)
{
	struct stats st2;

	if (!c->b->run_phase2 || stats_compute(values2, runs, &st2))
		return;
	json_object_begin(j, c->b->phase2_name);
	json_stats(j, &st2);
	json_object_end(j);
}

static void print_result(const struct bench_ctx *c, const struct stats *st)
{
	const struct bench *b = c->b;
	struct json j;

	json_begin(&j, line, sizeof(line));
	json_str(&j, "bench", b->name);
	json_str(&j, "variant", b->variants[c->variant]);
	json_u64(&j, "cpus", c->ncpus);
	json_params(&j, c);
	json_str(&j, "metric", metric_name(b));
	json_str(&j, "unit", metric_unit(b));
	json_str(&j, "better", higher_is_better(b) ? "higher" : "lower");
	json_u64(&j, "runs", st->n);
	json_u64(&j, "warmup", rs.total_runs - rs.timed_runs);
	json_u64(&j, "ops_per_run", c->ops);
	json_stats(&j, st);
	json_phase2(&j, c, st->n);
	if (b->metric == BENCH_CYCLES_PER_OP)
		json_fixed(&j, "median_ns", (s64)mul_div_u64(st->median, 1000000000u, arch_tsc_hz()), 3);
	json_u64(&j, "tsc_hz", arch_tsc_hz());
	if (b->report)
		b->report(c, &j, st->median);
	json_counters(&j, c, st->n);
	if (json_end(&j) < 0)
		printk("# WARN bench: result line too long for %s\n", b->name);
	else
		printk("%s %s\n", results_as_diagnostics ? "# result" : "BENCH", line);
}

static void print_lava(const struct bench_ctx *c, bool pass, u64 median, const struct options *opt)
{
	char label[128], value[32];

	if (opt->format != OPT_FORMAT_LAVA || results_as_diagnostics)
		return;
	case_label(c, label, sizeof(label), '-', '-');
	fmt_fixed(value, sizeof(value), (s64)median, 3);
	printk("MMLAB-LAVA test_case_id=%s-%s-cpus%u%s%s result=%s measurement=%s units=%s\n",
	       c->b->name, c->b->variants[c->variant], c->ncpus, label[0] ? "-" : "", label,
	       pass ? "pass" : "fail", pass ? value : "0", metric_unit(c->b));
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
	memset(counter_sum, 0, sizeof(counter_sum));
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

/* Runs one (bench, variant, parameter set, CPU count). Returns true when it passed. */
static bool run_case(struct bench_ctx *c, const struct options *opt)
{
	const struct bench *b = c->b;
	unsigned iters = opt->iters ? opt->iters : b->iters;
	char label[128];
	struct stats st = { 0 };
	int err;

	c->opt = opt;
	case_label(c, label, sizeof(label), ' ', '=');
	printk("# bench %s %s cpus=%u %s: %u runs after %u warm-up\n", b->name,
	       b->variants[c->variant], c->ncpus, label, iters, b->warmup);
	c->error = 0;
	c->priv = NULL;
	err = bench_teardown_failed_before(c);
	if (!err && b->setup)
		err = b->setup(c);
	if (err) {
		bench_fail(c, "setup failed (%s)", errno_name(err));
	} else {
		run_case_runs(c, iters, b->warmup);
		/* Verification runs after the timed region, never inside it. */
		if (!c->error && b->verify && (err = b->verify(c)))
			bench_fail(c, "verification failed (%s)", errno_name(err));
		bench_teardown(c);
	}
	if (!c->error && stats_compute(values, iters, &st))
		bench_fail(c, "no timed run");
	if (c->error)
		printk("# bench FAIL %s %s cpus=%u %s: %s\n", b->name, b->variants[c->variant],
		       c->ncpus, label, c->errmsg);
	else
		print_result(c, &st);
	print_lava(c, !c->error, st.median, opt);
	return !c->error;
}

/* The CPU counts to run at: cpus= if given (those online), else 1, 2, 4, ... and all. */
static unsigned sweep_counts(const struct options *opt, unsigned *counts)
{
	unsigned n = 0;

	if (opt->cpus.n) {
		for (unsigned i = 0; i < opt->cpus.n; i++)
			if (opt->cpus.count[i] <= ncpus_online)
				counts[n++] = opt->cpus.count[i];
			else
				printk("# WARN bench: cpus=%u skipped: only %u CPUs are online\n",
				       opt->cpus.count[i], ncpus_online);
		return n;
	}
	for (unsigned k = 1; k < ncpus_online; k *= 2)
		counts[n++] = k;
	counts[n++] = ncpus_online;
	return n;
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
		for (unsigned k = 0; k < ncounts; k++) {
			if (counts[k] < b->min_cpus || (b->max_cpus && counts[k] > b->max_cpus))
				continue;
			c.ncpus = counts[k];
			for (unsigned v = 0; v < b->nvariants; v++) {
				c.variant = v;
				if (run_case(&c, opt))
					out->passed++;
				else
					out->failed++;
			}
		}
	}
}

void bench_run(const struct bench *b, const struct options *opt, struct bench_outcome *out)
{
	unsigned counts[OPT_CPUS_MAX + 32];
	unsigned ncounts = sweep_counts(opt, counts);

	*out = (struct bench_outcome){ 0 };
	teardown_err = 0;
	if (!empty_loop_cycles)
		measure_empty_loop();
	if (b->min_cpus > ncpus_online) {
		printk("# bench %s: needs %u CPUs, %u online: skipped\n", b->name, b->min_cpus,
		       ncpus_online);
		out->skipped++;
		return;
	}
	run_sweep(b, counts, ncounts, opt, out);
}

void bench_run_all(const struct options *opt)
{
	measure_empty_loop();
	printk("# bench: %u CPUs online, empty timing loop %lu cycles, TSC %lu Hz\n", ncpus_online,
	       (unsigned long)empty_loop_cycles, (unsigned long)arch_tsc_hz());
	for (unsigned i = 0; i < ARRAY_SIZE(benches); i++) {
		struct bench_outcome out;

		if (!options_bench_selected(opt, benches[i]->name))
			continue;
		bench_run(benches[i], opt, &out);
		report_count(out.passed, out.failed, out.skipped);
	}
}
