/*
 * The end of a boot: look up the run mode mode= names among those the
 * modules registered (RUN_MODE, kernel/run.h), run it, and give it the
 * services every mode ends with: the health check and the trailer.
 */
#include "kernel/run.h"
#include "kernel/cmdline.h"
#include "kernel/crash.h"
#include "kernel/printk.h"
#include "kernel/report.h"
#include "kernel/smp.h"
#include "kernel/timing.h"
#include "lib/string.h"

extern const struct run_report __start_run_reports[] __attribute__((weak));
extern const struct run_report __stop_run_reports[] __attribute__((weak));

void run_finish(const char *status, enum arch_exit_status code, const char *why)
{
	report_trailer(status, why);
	arch_exit(code);
}

bool run_healthy(void)
{
	bool ok = true;
	cpumask_t dead;
	unsigned cpu;

	for (const struct run_report *r = __start_run_reports; r < __stop_run_reports; r++)
		ok &= r->report();
	smp_dead_cpus(&dead);
	for_each_cpu(cpu, &dead)
		printk("mmlab: error: CPU %u missed a deadline and is out of the run\n", cpu);
	return ok && cpumask_empty(&dead);
}

void run_main(const struct options *opt)
{
	const struct run_mode *m = run_mode_find(opt);

	crash_on_purpose(opt->crash);
	/* Exact mode's contract (kernel/timing.c): every wait yields each turn. */
	if (timing_exact() && !arch_spin_pause) {
		printk("mmlab: error: spin_pause=off: timing=exact needs every wait to pause\n");
		run_finish("usage", EXIT_USAGE, "spin_pause=off with timing=exact");
	}
	if (m)
		m->run(opt);
	printk("mmlab: error: mode=%s is not built into this kernel\n",
	       opt->mode ? opt->mode : "?");
	run_finish("usage", EXIT_USAGE, "mode= names a run mode not built in");
}
