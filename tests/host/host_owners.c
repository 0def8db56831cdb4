/*
 * The kernel modules that own run modes and options, stood in for host
 * programs that parse command lines (host tests, fuzz targets): mode=,
 * bench=, cpus=, iters= and ktest= accept the kernel's words, types and
 * limits (bench= the kernel's names unless a test swaps the list). Host
 * programs never run a mode, so running one is a bug: it aborts.
 */
#include "tests/host/host_owners.h"
#include "kernel/run.h"
#include "tests/ktest.h"
#include <stdlib.h>

static __noreturn void host_mode_run(const struct options *opt)
{
	(void)opt;
	abort();
}

/*
 * The compiler emits one file's section entries last-defined first: so
 * selftest is defined first here to end up second, as in the kernel link.
 */
RUN_MODE(selftest, host_mode_run, false, NULL);
RUN_MODE(bench, host_mode_run, true, NULL);

static const char *const kernel_bench_names[] = { "ipi", "tlb", "tlbmulti", "reclaim", "migrate",
						  "pin", "pagemap", "faultlock", "swapfree", NULL };
const char *const *host_bench_names = kernel_bench_names;

static const char *const *host_names(void)
{
	return host_bench_names;
}

struct opt_names bench_selected;
OPTION_NAMES(bench, bench_selected, host_names, "benchmark");
struct opt_uint_list bench_cpus;
OPTION_UINT_LIST(cpus, bench_cpus, 1, MAX_CPUS, "cpu count");
u32 bench_iters;
OPTION_UINT(iters, bench_iters, 1, HOST_ITERS_MAX, 0);
char ktest_filter[KTEST_NAMES_MAX + 1];
OPTION_IDENT(ktest, ktest_filter, KTEST_NAMES_MAX);
