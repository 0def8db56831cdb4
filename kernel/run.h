/*
 * What a boot does once the machine is up: the run mode mode= names, which
 * ends with the trailer and the exit. kernel/ knows no mode: each module
 * that offers one (tests/ the self-tests, bench/ the benchmarks) registers
 * it with RUN_MODE into the run_modes section, and run_main() looks it up
 * by the mode= word.
 */
#ifndef KERNEL_RUN_H
#define KERNEL_RUN_H

#include "compiler.h"
#include <arch/arch.h>

struct options;

/* One run mode: the mode= word, and the run, which must end it (run_finish). */
struct run_mode {
	const char *name;
	__noreturn void (*run)(const struct options *opt);
	bool is_default; /* the mode when mode= is absent; at most one */
	/* Optional: how many CPUs the run will use, read before bring-up; NULL: all. */
	unsigned (*cpus_wanted)(void);
};

/*
 * RUN_MODE(name, run, is_default, cpus_wanted) registers mode=name. The
 * section name is a C identifier, so the host linker provides
 * __start_run_modes and __stop_run_modes; linker.ld defines them too.
 */
#define RUN_MODE(mname, run_fn, dflt, cpus_fn)                                                     \
	static const struct run_mode run_mode_##mname __used __section("run_modes")               \
		__aligned(8) = { #mname, run_fn, dflt, cpus_fn }

/*
 * RUN_REPORT(name, fn) registers fn to run after every mode's cases, before
 * the health verdict: a module reports state it keeps (mm/quarantine_report.c what
 * it holds). Returns false when that state fails the run. Same kind of
 * linker set as RUN_MODE (run_reports).
 */
struct run_report {
	const char *name;
	bool (*report)(void);
};
#define RUN_REPORT(rname, fn)                                                                      \
	static const struct run_report run_report_##rname __used __section("run_reports")         \
		__aligned(8) = { #rname, fn }

/*
 * The i-th registered mode's word, NULL past the last; i = -1: the default
 * mode's word, NULL when none is. What mode= accepts (kernel/cmdline.c).
 */
const char *run_mode_word(int i);

/* The registered mode mode= named in @opt, or NULL. */
const struct run_mode *run_mode_find(const struct options *opt);

/* Runs the mode the options select and ends the run; never returns. */
__noreturn void run_main(const struct options *opt);

/*
 * After the run: the registered reports (RUN_REPORT), then CPUs that
 * missed a deadline. Returns false when a CPU is out of the run or a report
 * says so: then the run fails whatever its cases said. Boot CPU.
 */
bool run_healthy(void);

/* Prints the trailer (@why may be NULL) and exits with @code. Boot CPU. */
__noreturn void run_finish(const char *status, enum arch_exit_status code, const char *why);

#endif
