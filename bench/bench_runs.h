/*
 * Internals between the harness's case logic (bench/bench.c: cases,
 * episodes, rounds, sweeps) and its run machinery (bench/bench_runs.c: the
 * barrier-released runs of one episode on every participating CPU, and the
 * empty-loop calibration their times are corrected by). Boot CPU only.
 */
#ifndef BENCH_BENCH_RUNS_H
#define BENCH_BENCH_RUNS_H

#include "bench/bench_result.h"

/*
 * Measures the cost of timing nothing (the minimum of two back-to-back
 * serialised TSC reads) on this CPU, keeps it for the runs to subtract and
 * returns it in cycles.
 */
u64 bench_measure_empty_loop(void);

/* The cycles bench_measure_empty_loop() last measured; 0 before its first call. */
u64 bench_empty_loop_cycles(void);

/*
 * Runs the episode set up in @c: @warmup warm-up runs then @iters timed
 * runs, each on c->cpu[0..c->ncpus) (the boot CPU only with idle_targets),
 * released together from a barrier. Each timed run's metric, counters and
 * @seq go into @vr (up to BENCH_MAX_RUNS); c->counter_total sums the
 * counters of every run, c->runs_done counts them. A failed prepare, a CPU
 * that takes no work or a stuck barrier fails @c through bench_fail().
 */
void bench_run_case_runs(struct bench_ctx *c, struct variant_runs *vr, u32 seq, unsigned iters,
			 unsigned warmup);

#endif
