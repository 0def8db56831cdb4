/*
 * The two run modes. Self-tests: every KTEST_SUITE linked into the kernel
 * (or the one ktest= names), reported as KTAP, tallied into the trailer.
 * Benchmarks: the harness in bench/, tallied the same way.
 */
#include "kernel/run.h"
#include "bench/bench.h"
#include "kernel/cmdline.h"
#include "kernel/crash.h"
#include "kernel/printk.h"
#include "kernel/report.h"
#include "kernel/smp.h"
#include "mm/quarantine.h"
#include "mm/tlb.h"
#include "tests/ktest.h"
#include <arch/arch.h>

const char *const *run_bench_names(void)
{
	return bench_names();
}

void ktest_emit(const char *s, size_t n)
{
	printk("%.*s", (int)n, s);
}

static __noreturn void finish(const char *status, enum arch_exit_status code, const char *why)
{
	report_trailer(status, why);
	arch_exit(code);
}

/*
 * After the run: CPUs that missed a deadline and are still out of the run,
 * and what the quarantine holds (mm/quarantine.h). Returns false when a CPU
 * is out of the run: then the run fails whatever its cases said.
 */
static bool run_healthy(void)
{
	struct quarantine_stats q;
	cpumask_t dead;
	unsigned cpu;

	quarantine_stats_get(&q);
	smp_dead_cpus(&dead);
	if (q.flushes)
		printk("mmlab: %lu flushes did not complete: %lu frames and %lu page tables quarantined (never reused)\n",
		       (unsigned long)q.flushes, (unsigned long)q.frames, (unsigned long)q.tables);
	for_each_cpu(cpu, &dead)
		printk("mmlab: error: CPU %u missed a deadline and is out of the run\n", cpu);
	return cpumask_empty(&dead);
}

static __noreturn void run_selftests(const struct options *opt)
{
	struct ktest_totals tot = { 0 };

	ktest_set_lava(opt->format == OPT_FORMAT_LAVA);
	ktest_run_all(opt->ktest[0] ? opt->ktest : NULL, &tot);
	report_count(tot.passed, tot.failed, tot.skipped);
	if (tot.passed + tot.failed + tot.skipped == 0) {
		printk("mmlab: error: no self-test suite matches ktest=%s\n", opt->ktest);
		finish("usage", EXIT_USAGE, "no self-test suite matches ktest=");
	}
	if (!run_healthy())
		finish("fail", EXIT_FAIL, "a CPU missed a deadline and is out of the run");
	if (tot.failed)
		finish("fail", EXIT_FAIL, NULL);
	finish("pass", EXIT_PASS, NULL);
}

/*
 * cpus= asking for more CPUs than came online can never be met on this
 * machine: a usage error naming the word, before anything runs.
 */
static void check_cpus_online(const struct options *opt)
{
	unsigned last;

	if (!opt->cpus.n)
		return;
	last = opt->cpus.count[opt->cpus.n - 1];
	if (last <= ncpus_online)
		return;
	printk("mmlab: error: cpus=%u: only %u CPUs are online\n", last, ncpus_online);
	finish("usage", EXIT_USAGE, "cpus= asks for more CPUs than are online");
}

/*
 * A failed result fails the run; so does a run with no result at all, or
 * one that skipped a CPU count or benchmark the command line asked for.
 */
static __noreturn void run_benchmarks(const struct options *opt)
{
	struct report_totals tot;
	unsigned skipped_asked;

	check_cpus_online(opt);
	skipped_asked = bench_run_all(opt);
	tot = report_totals();
	if (!run_healthy())
		finish("fail", EXIT_FAIL, "a CPU missed a deadline and is out of the run");
	if (tot.failed)
		finish("fail", EXIT_FAIL, NULL);
	if (!tot.passed)
		finish("fail", EXIT_FAIL, "no benchmark produced a result");
	if (skipped_asked)
		finish("fail", EXIT_FAIL, "a benchmark skipped what cpus= or bench= asked for");
	finish("pass", EXIT_PASS, NULL);
}

void run_main(const struct options *opt)
{
	crash_on_purpose(opt->crash);
	tlb_set_ceiling(opt->tlb_ceiling);
	if (opt->mode == OPT_MODE_SELFTEST)
		run_selftests(opt);
	run_benchmarks(opt);
}
