/*
 * mode=selftest: every KTEST_SUITE linked into the kernel (or those ktest=
 * names), reported as KTAP through printk and tallied into the trailer.
 * Registered with RUN_MODE, so kernel/run.c knows nothing of tests/.
 */
#include "kernel/cmdline.h"
#include "kernel/printk.h"
#include "kernel/report.h"
#include "kernel/run.h"
#include "lib/string.h"
#include "tests/ktest.h"

/**
 * ktest_emit - the kernel's ktest output: the console, through printk
 */
void ktest_emit(const char *s, size_t n)
{
	printk("%.*s", (int)n, s);
}

char ktest_filter[KTEST_NAMES_MAX + 1];
OPTION_IDENT(ktest, ktest_filter, KTEST_NAMES_MAX);

static __noreturn void ktest_mode_run(const struct options *opt)
{
	/* A copy: tests of the parser reset ktest_filter while the run reads its filter. */
	static char filter[sizeof(ktest_filter)];
	struct ktest_totals tot = { 0 };
	u32 trace_on;

	/* trace=1 traces benchmarks; the trace suite makes records of its own. */
	if (options_value("trace", &trace_on) && trace_on) {
		printk("mmlab: error: trace=1: tracing records benchmarks (mode=bench), not self-tests\n");
		run_finish("usage", EXIT_USAGE, "trace=1 traces benchmarks (mode=bench), not self-tests");
	}
	memcpy(filter, ktest_filter, sizeof(filter));
	ktest_set_lava(opt->format == OPT_FORMAT_LAVA);
	ktest_run_all(filter[0] ? filter : NULL, &tot);
	report_count(tot.passed, tot.failed, tot.skipped);
	if (tot.passed + tot.failed + tot.skipped == 0) {
		printk("mmlab: error: no self-test suite matches ktest=%s\n", filter);
		run_finish("usage", EXIT_USAGE, "no self-test suite matches ktest=");
	}
	if (!run_healthy())
		run_finish("fail", EXIT_FAIL, "a CPU missed a deadline and is out of the run");
	if (tot.failed)
		run_finish("fail", EXIT_FAIL, NULL);
	run_finish("pass", EXIT_PASS, NULL);
}

RUN_MODE(selftest, ktest_mode_run, false, NULL);
