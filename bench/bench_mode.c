/*
 * mode=bench: every benchmark bench= selects (bench_run_all), tallied into
 * the trailer. Registered with RUN_MODE, so kernel/run.c knows nothing of
 * bench/; it also gives the command line the names bench= accepts.
 */
#include "bench/bench.h"
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/report.h"
#include "kernel/run.h"
#include "kernel/percpu.h"
#include "kernel/trace.h"
#include "mm/page.h"
#include "mm/pmm.h"

struct opt_names bench_selected;
OPTION_NAMES(bench, bench_selected, bench_names, "benchmark");
struct opt_uint_list bench_cpus;
OPTION_UINT_LIST(cpus, bench_cpus, 1, MAX_CPUS, "cpu count");
u32 bench_iters;
OPTION_UINT(iters, bench_iters, 1, BENCH_MAX_RUNS, 0);

/*
 * Read by SMP bring-up: every CPU, even when cpus= asks for fewer, as
 * placement= chooses the case's CPUs from the whole machine.
 */
static unsigned bench_cpus_wanted(void)
{
	return MAX_CPUS;
}

/*
 * cpus= asking for more CPUs than came online can never be met on this
 * machine: a usage error naming the word, before anything runs.
 */
static void check_cpus_online(void)
{
	unsigned last;

	if (!bench_cpus.n)
		return;
	last = bench_cpus.value[bench_cpus.n - 1];
	if (last <= ncpus_online)
		return;
	printk("mmlab: error: cpus=%u: only %u CPUs are online\n", last, ncpus_online);
	run_finish("usage", EXIT_USAGE, "cpus= asks for more CPUs than are online");
}

/* A trace buffer (kernel/trace.h): one block of frames, kept for the whole boot. */
static void *bench_trace_alloc(size_t bytes)
{
	unsigned order = 0;
	struct page *p;

	while ((PAGE_SIZE << order) < bytes)
		order++;
	p = page_alloc(order, 0);
	return p ? page_address(p) : NULL;
}

/*
 * A failed result fails the run; so does a run with no result at all, or
 * one that skipped a CPU count or benchmark the command line asked for.
 */
static __noreturn void bench_mode_run(const struct options *opt)
{
	struct report_totals tot;
	unsigned skipped_asked;
	const char *aa;

	check_cpus_online();
	if (trace_init(bench_trace_alloc))
		run_finish("usage", EXIT_USAGE, "trace=1 cannot be met: see the error above");
	skipped_asked = bench_run_all(opt);
	tot = report_totals();
	if (!run_healthy())
		run_finish("fail", EXIT_FAIL, "a CPU missed a deadline and is out of the run");
	if (bench_aa_failures(&aa))
		run_finish("aa_failed", EXIT_FAIL, aa);
	if (tot.failed)
		run_finish("fail", EXIT_FAIL, NULL);
	if (!tot.passed)
		run_finish("fail", EXIT_FAIL, "no benchmark produced a result");
	if (skipped_asked)
		run_finish("fail", EXIT_FAIL, "a benchmark skipped what cpus= or bench= asked for");
	run_finish("pass", EXIT_PASS, NULL);
}

RUN_MODE(bench, bench_mode_run, true, bench_cpus_wanted);
