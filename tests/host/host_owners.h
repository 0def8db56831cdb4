/*
 * Host stand-ins for the owners of options and run modes
 * (tests/host/host_owners.c): the variables carry the kernel's names, so
 * a test reads them the same way on both.
 */
#ifndef MMLAB_TESTS_HOST_OWNERS_H
#define MMLAB_TESTS_HOST_OWNERS_H

#include "kernel/cmdline.h"

#define HOST_ITERS_MAX 1000 /* bench/bench.h BENCH_MAX_RUNS */

/* What bench= accepts on the host: the kernel's names unless a test swaps it. */
extern const char *const *host_bench_names;

extern struct opt_names bench_selected;
extern struct opt_uint_list bench_cpus;
extern u32 bench_iters;

#endif
