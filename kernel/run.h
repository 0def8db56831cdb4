/*
 * What a boot does once the machine is up: the self-tests (mode=selftest)
 * or the benchmarks (mode=bench), ending with the trailer and the exit.
 */
#ifndef KERNEL_RUN_H
#define KERNEL_RUN_H

#include "compiler.h"

struct options;

/* The benchmark names bench= accepts, NULL-terminated. */
const char *const *run_bench_names(void);

/* Runs the selected mode and ends the run; never returns. */
__noreturn void run_main(const struct options *opt);

#endif
