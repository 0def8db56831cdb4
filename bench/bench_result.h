/*
 * Internals the harness's two halves share: bench/bench.c runs a case's
 * episodes and fills a struct variant_runs per variant; bench/bench_result.c
 * turns each into its result lines. Boot CPU only.
 */
#ifndef BENCH_BENCH_RESULT_H
#define BENCH_BENCH_RESULT_H

#include "bench/bench_ctx.h"
#include "bench/bench_design.h"

/* One variant's timed runs over the episodes of a case, in the order they ran. */
struct variant_runs {
	u64 sample[BENCH_MAX_RUNS];
	u64 sample2[BENCH_MAX_RUNS];
	u32 seq[BENCH_MAX_RUNS];	      /* each run's place in the case's episode order */
	unsigned n;
	u64 counter_sum[PCPU_COUNTER_SLOTS];    /* over the timed runs */
	u64 last_total[PCPU_COUNTER_SLOTS];     /* the last episode's counter_total, for report() */
	u64 last_runs_done;
	bool failed;
	char errmsg[160];
};

/* "target=all pages=512" style label of c's case (@sep between, @eq inside words). */
void bench_case_label(const struct bench_ctx *c, char *buf, size_t size, char sep, char eq);

/*
 * Time mode: marks in @lost[i] each run of @v[0..n) (values of @b's
 * metric) where the guest lost its CPU to the host: further from the
 * median, on the worse side, than LOST_CPU_SPREADS times the runs' median
 * absolute deviation and than LOST_CPU_PCT of the median. None in exact
 * mode. Returns how many. Boot CPU (uses the result's scratch space).
 */
unsigned bench_lost_cpu(const struct bench *b, const u64 *v, unsigned n, bool *lost);

/* Whether c's case is its benchmark's declared headline case (bench.h, headline). */
bool bench_case_is_headline(const struct bench_ctx *c);

/*
 * Prints the BENCH line of variant c->variant from @vr (at least one
 * sample), with @seed the run order's shuffle (seed=); report() sees the
 * last episode's counters. Returns the median, in thousandths of the unit.
 */
u64 bench_print_result(struct bench_ctx *c, const struct variant_runs *vr, u32 seed);

/* With format=lava, the MMLAB-LAVA line of variant c->variant (@median when @pass). */
void bench_print_lava(const struct bench_ctx *c, bool pass, u64 median, const struct options *opt);

#endif
