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
#include "lib/string.h"

/* Bounds of the run_modes section: from the host linker or linker.ld. */
extern const struct run_mode __start_run_modes[];
extern const struct run_mode __stop_run_modes[];
extern const struct run_report __start_run_reports[] __attribute__((weak));
extern const struct run_report __stop_run_reports[] __attribute__((weak));

static const char *const no_names[] = { NULL };

const char *const *run_bench_names(void)
{
	for (const struct run_mode *m = __start_run_modes; m < __stop_run_modes; m++) {
		if (m->names)
			return m->names();
	}
	return no_names;
}

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
	const char *word = options_word("mode", opt->mode);

	crash_on_purpose(opt->crash);
	for (const struct run_mode *m = __start_run_modes; m < __stop_run_modes; m++) {
		if (word && strcmp(m->name, word) == 0)
			m->run(opt);
	}
	printk("mmlab: error: mode=%s is not built into this kernel\n", word ? word : "?");
	run_finish("usage", EXIT_USAGE, "mode= names a run mode not built in");
}
