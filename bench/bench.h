/*
 * The benchmark harness as benchmarks see it: a struct bench
 * (bench/bench_types.h) holds variants, parameter sets, hooks and metric. A
 * run's time is the slowest CPU's less the empty loop's, with exact per-CPU
 * counters read around it (BENCH lines: docs/output.md). run() runs on every
 * participating CPU, task context, interrupts on; setup, verify and teardown
 * on the boot CPU, outside the timed part.
 */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include "bench/bench_ctx.h"
#include "bench/bench_design.h"
#include "bench/bench_types.h"
#include "kernel/cmdline.h"
#include "kernel/design.h"
#include "linker_sets.h"
#include "kernel/percpu.h"
#include "mm/counters.h"
#include "types.h"

struct mm;
/*
 * mm_create_node() on the node mem_node= names for @c: the boot CPU's
 * (local) or the farthest other node with memory (remote), every frame
 * from that node; records it in c->mem_node for the BENCH line. Boot CPU,
 * from setup. Returns 0 or mm_create_node()'s error (the case fails).
 */
int bench_mm_create(struct bench_ctx *c, struct mm **out);

/*
 * Loads @mm (NULL: none) on every CPU of @c, as the threads of a program
 * using it would have it (pin_pages_fast() walks locklessly only on a CPU
 * that has the mm loaded). Boot CPU, from setup or teardown. Returns 0 or
 * the smp_call() error.
 */
int bench_load_mm(const struct bench_ctx *c, struct mm *mm);

/*
 * pin and pagemap verify: 0 when every pin call of @c's runs took the
 * lockless walk they time (none walked under the lock for want of the mm
 * loaded, none retried); else fails @c and returns -EINVAL. bench_pin.c.
 */
int pin_bench_check_lockless(struct bench_ctx *c);

/* remote=: what the tlb bench's remote CPUs do while pages are unmapped (bench/bench_tlb.c). */
enum opt_remote { OPT_REMOTE_ALL, OPT_REMOTE_BUSY, OPT_REMOTE_IDLE, OPT_REMOTE_COUNT };
extern enum opt_remote tlb_bench_remote; /* remote=, default all */
extern u32 bench_seed;			 /* seed=: the run-order shuffle, default 1 */


/*
 * One registered benchmark and its place in the run (smaller first). At
 * most BENCH_MAX_BENCHES register (include/linker_sets.h): one more is a
 * link error (kernel/sets.ld.S).
 */
struct bench_entry {
	const struct bench *b;
	unsigned order;
};
BUILD_ASSERT(sizeof(struct bench_entry) == BENCH_ENTRY_BYTES);

/*
 * BENCH_REGISTER(bench_x, order), after the definition of struct bench
 * bench_x in its own file, adds it to the bench_set section: the run and
 * bench= take their benchmarks from there, in order of @order (the
 * section's own order is the link order, which is not the run order).
 */
#define BENCH_REGISTER(bname, ord)                                                                 \
	static const struct bench_entry bench_entry_##bname __used __section("bench_set")          \
		__aligned(8) = { &bname, ord }

/* Every benchmark registered, in run order: NULL-terminated names for bench=. */
const char *const *bench_names(void);

struct options;

/*
 * The benchmark options, declared in bench/bench_mode.c: bench=NAME,...|all
 * (n == 0: every benchmark), cpus=N,...|all (n == 0: 1, 2, 4, ... all; the
 * largest also limits SMP bring-up), iters=1..BENCH_MAX_RUNS (0: each
 * benchmark's default). Set by the parse, read-only afterwards.
 */
extern struct opt_names bench_selected;
extern struct opt_uint_list bench_cpus;
extern u32 bench_iters;

/* Results of one benchmark: one per (variant, CPU count, parameter set). */
struct bench_outcome {
	unsigned passed, failed, skipped;
	/* Of @skipped, those cpus= or bench= asked for by name. */
	unsigned skipped_asked;
};

/*
 * Runs every variant and parameter set of @b at each CPU count of the sweep
 * (cpus= in @opt, else 1, 2, 4, ... all), printing a BENCH line (or the
 * failure) for each. The variants' timed runs alternate in an order
 * shuffled per round from seed= (each round runs every variant once).
 * A CPU count outside the bench's range is counted as skipped.
 * Boot CPU, interrupts on, other CPUs idle.
 */
void bench_run(const struct bench *b, const struct options *opt, struct bench_outcome *out);

/*
 * With @on, results print as "# result {json}" diagnostics instead of
 * BENCH (and no LAVA) lines: self-tests of the harness use it so their
 * probe results are not taken for benchmark results.
 */
void bench_set_diagnostic_results(bool on);

/*
 * bench_run() for every benchmark the options select, adding to the run's
 * tallies. Returns how many of the skipped results cpus= or bench= had
 * asked for explicitly (the run must not pass then).
 */
unsigned bench_run_all(const struct options *opt);

/*
 * timing=exact: how many A/A controls of the run so far differed from
 * their reference by more than BENCH_EXACT_TOLERANCE_PPM, and the first
 * one's description ("tlb cpus=2 remote=busy pages=8"); NULL when none.
 */
unsigned bench_aa_failures(const char **first);

#endif
