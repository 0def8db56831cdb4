/*
 * The kernel command line: space-separated key=value words, parsed strictly
 * into struct options (DESIGN.md, "Kernel command line"). Every key is one
 * line of the table in kernel/cmdline.c; the fields below are its results.
 * Contracts are at the definitions in kernel/cmdline.c.
 */
#ifndef MMLAB_KERNEL_CMDLINE_H
#define MMLAB_KERNEL_CMDLINE_H

#include "types.h"

/* Most CPUs the kernel supports; a -D override from the Makefile wins. */
#ifndef MAX_CPUS
#define MAX_CPUS 256
#endif

#define OPT_BENCH_MAX 16 /* names in bench= */
#define OPT_CPUS_MAX 32	 /* counts in cpus= */
#define OPT_KTEST_MAX 95 /* characters in ktest= */
#define OPT_ITERS_MAX 10000 /* timed runs per result (bench/bench.h BENCH_MAX_RUNS) */

enum opt_mode { OPT_MODE_BENCH, OPT_MODE_SELFTEST, OPT_MODE_COUNT };
enum opt_format { OPT_FORMAT_JSON, OPT_FORMAT_LAVA, OPT_FORMAT_COUNT };
enum opt_console { OPT_CONSOLE_TTYS0, OPT_CONSOLE_TTYS1, OPT_CONSOLE_COUNT };
enum opt_apic { OPT_APIC_AUTO, OPT_APIC_XAPIC, OPT_APIC_X2APIC, OPT_APIC_COUNT };
/* tsc_calibrate=: auto tries CPUID, the hypervisor leaf, the PIT, then the HPET. */
enum opt_tsc_calibrate { OPT_TSC_AUTO, OPT_TSC_PIT, OPT_TSC_HPET, OPT_TSC_COUNT };
/* crash=: a deliberate failure after the header, to test failure paths (kernel/crash.c). */
enum opt_crash {
	OPT_CRASH_NONE,
	OPT_CRASH_UD,
	OPT_CRASH_DE,
	OPT_CRASH_PF,
	OPT_CRASH_GP,
	OPT_CRASH_PANIC,
	OPT_CRASH_HANG,
	OPT_CRASH_COUNT,
};

/* bench=a,b: which benchmarks run, in command-line order. */
struct opt_names {
	unsigned n;			 /* 0: every benchmark */
	const char *name[OPT_BENCH_MAX]; /* entries of the caller's bench_names */
};

/* cpus=1,2,4: the CPU counts each benchmark runs at. */
struct opt_cpus {
	unsigned n;		 /* 0: all (1 up to every online CPU) */
	u32 count[OPT_CPUS_MAX]; /* strictly increasing, 1..MAX_CPUS */
};

struct options {
	enum opt_mode mode;	       /* mode=bench|selftest */
	struct opt_names bench;	       /* bench=NAME,...|all */
	struct opt_cpus cpus;	       /* cpus=N,...|all */
	u32 iters;		       /* iters=1..OPT_ITERS_MAX; 0: benchmark's default */
	enum opt_format format;	       /* format=json|lava */
	enum opt_console console;      /* console=ttyS0|ttyS1 */
	enum opt_apic apic;	       /* apic=auto|xapic|x2apic */
	char ktest[OPT_KTEST_MAX + 1]; /* ktest=SUITE,...; "": every suite */
	u32 timeout_ms;		       /* timeout_ms=: cross-CPU wait limit */
	u32 tlb_ceiling;	       /* tlb_ceiling=: pages flushed one by one at most */
	u32 swap_mb;		       /* swap_mb=: swap device size */
	u32 swapfree_mb;	       /* swapfree_mb=: memory the swapfree bench unmaps */
	enum opt_crash crash;	       /* crash=none|ud|de|pf|gp|panic|hang */
	enum opt_tsc_calibrate tsc_calibrate; /* tsc_calibrate=auto|pit|hpet */
	u32 ap_nostart;		       /* ap_nostart=N: the last N APs get no INIT/SIPI (test hook) */
	u32 apic_fw_off;	       /* apic_fw_off=1: disable the local APIC as firmware could (test hook) */
	u64 given;		       /* bit i: table key i was on the line */
};

void options_set_defaults(struct options *opt);
int cmdline_parse(const char *line, const char *const *bench_names, struct options *opt, char *err,
		  size_t errlen);
bool options_given(const struct options *opt, const char *key);
const char *options_word(const char *key, int value);
bool options_bench_selected(const struct options *opt, const char *name);

#endif
