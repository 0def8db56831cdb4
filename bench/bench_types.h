/*
 * The harness's types: a benchmark (struct bench), its cases and the
 * context a case runs in (struct bench_ctx), with their bounds. Only types,
 * constants and inlines, so the harness's files share them without
 * including each other (bench/bench.h is the benchmarks' whole face).
 */
#ifndef BENCH_BENCH_TYPES_H
#define BENCH_BENCH_TYPES_H

#include "kernel/cmdline.h"
#include "kernel/design.h"
#include "kernel/percpu.h"
#include "mm/counters.h"
#include "types.h"

#define BENCH_MAX_PARAMS 4
/* .counters = BENCH_COUNTERS(PCPU_X, PCPU_Y): the list, NULL-terminated, in static storage. */
#define BENCH_COUNTERS(...) PCPU_COUNTER_LIST(__VA_ARGS__)
#define BENCH_MAX_RUNS 1000 /* timed runs per result (iters= at most), all on one BENCH line */
/* Variants of a case: a table's designs (broken ones too, TEST_DESIGN=broken), aa, a null. */
#define BENCH_MAX_VARIANTS 16
/* The A/A control's variant name: the reference design (the table's first) run again. */
#define BENCH_AA_NAME "aa"
/* Adaptive runs stop once every variant's median is known within ±this %, 95% confidence. */
#define BENCH_CI_TARGET_PCT 5
/*
 * timing=exact: a figure repeats, so a variant needs its warm-up and runs
 * until its last BENCH_EXACT_RUNS agree within BENCH_EXACT_TOLERANCE_PPM
 * (at most BENCH_EXACT_MAX_RUNS); an A/A control further than that from
 * its reference is a harness defect and fails the run (status aa_failed).
 */
#define BENCH_EXACT_RUNS 2
#define BENCH_EXACT_MAX_RUNS 4
#define BENCH_EXACT_TOLERANCE_PPM 1000
/*
 * timing=exact: warm-up runs per episode, at most (the bench's own count
 * otherwise): one run translates the code and touches the data, and a
 * figure that repeats needs no more.
 */
#define BENCH_EXACT_WARMUP 1

/* How the elapsed time of one run becomes the metric. */
enum bench_metric {
	BENCH_CYCLES_PER_OP, /* TSC cycles per operation, lower is better */
	BENCH_US_PER_RUN,    /* microseconds per run (gup_test style), lower is better */
	BENCH_BYTES_PER_MS,  /* ops are bytes; bytes per millisecond, higher is better */
	BENCH_OPS_PER_SEC,   /* operations per second over all CPUs, higher is better */
};

/* One parameter set: values for the bench's param_names, in order. */
struct bench_case {
	u64 param[BENCH_MAX_PARAMS];
};

struct bench_ctx;
struct json;

struct bench {
	const char *name;
	const char *title;           /* what is measured, in plain words: "unmap cost per page" */
	const char *metric_name;     /* NULL: the metric's usual name, e.g. "cycles_per_op" */
	const char *unit;            /* NULL: the metric's usual unit, e.g. "cycles" */
	/*
	 * timing=exact (kernel/timing.h): the metric is instructions, named
	 * here ("instructions_per_page"; NULL: "instructions_per_op"), per
	 * operation, per run (BENCH_US_PER_RUN) or per @counter_unit
	 * (BENCH_BYTES_PER_MS); @exact_phase2_name likewise for phase 2.
	 */
	const char *exact_metric_name;
	const char *exact_phase2_name;
	/*
	 * The headline case: the parameter values of the seed's case (the
	 * Linux change the benchmark mirrors), declared, never chosen from a
	 * run's results. Its BENCH lines say "headline":true.
	 */
	struct bench_case headline;
	/*
	 * The mechanism's NULL-terminated design table (tlb_designs, say):
	 * every entry but the controls (design.control) is a variant, in
	 * table order, the naive baseline first.
	 */
	const struct design *const *designs;
	/*
	 * Optional: false for a design of the table this benchmark does not
	 * measure (its workload is outside the design's promises); the design
	 * is then no variant here, as a control is not.
	 */
	bool (*runs_design)(const struct design *d);
	/*
	 * Optional: the name of a null variant, run after aa: the reference
	 * design once more, in a setting the benchmark makes where the
	 * mechanism has nothing to act on (tlb: the remotes in another
	 * address space), so what the setting alone costs can be subtracted.
	 */
	const char *null_variant;
	/*
	 * Optional: a control design run as the last variant, one that sends
	 * the mechanism's targets nothing (tlb: no-remote, which flushes the
	 * initiator alone), measured as the designs are: what it costs beside
	 * the null must be 0, or the null leaves more than the mechanism's work.
	 */
	const struct design *silent_design;
	const char *param_names[BENCH_MAX_PARAMS];
	/* Optional words for a parameter's values (value i prints as words[i]). */
	const char *const *param_words[BENCH_MAX_PARAMS];
	const struct bench_case *cases;
	unsigned ncases;
	/* Optional: false skips a case the options left out (remote=idle, say), unreported. */
	bool (*case_selected)(const struct bench_case *bc, const struct options *opt);
	enum bench_metric metric;
	unsigned min_cpus;             /* smaller CPU counts of the sweep are skipped */
	unsigned max_cpus;             /* larger ones too (0: no limit) */
	/*
	 * Optional: the fewest CPUs parameter set @bc needs, beyond min_cpus
	 * (a case with a CPU of its own for a writer, say); smaller counts of
	 * the sweep skip that case alone, counted as skipped but never as
	 * asked for (cpus=1 still runs the bench's other cases).
	 */
	unsigned (*case_min_cpus)(const struct bench_case *bc);
	/*
	 * Only CPU index 0 runs the loop; the other participating CPUs stay in
	 * their idle loop (halted, interrupts on) and take part by answering
	 * IPIs, as an idle machine's CPUs would, unless the benchmark hands
	 * them work of its own (tlb's busy readers, started in setup).
	 */
	bool idle_targets;
	/*
	 * Timed runs per variant: at least @iters, then more, up to @max_iters
	 * (0: 3 x @iters), until every variant's median is within
	 * BENCH_CI_TARGET_PCT (iters= instead fixes the count). Each timed run
	 * is one episode: setup, @warmup discarded runs, the timed run, verify,
	 * teardown, so the variants' episodes can alternate.
	 */
	unsigned iters, max_iters, warmup;
	/* Reported per operation, as many as it lists: BENCH_COUNTERS(). NULL: none. */
	const struct pcpu_counter *const *counters;
	/*
	 * Optional: report counters per @counter_unit ("folio", say) of
	 * @counter_unit_ops operations instead, when an operation is too small
	 * a unit (a byte); the keys then end in _per_<unit> instead of _per_op.
	 */
	const char *counter_unit;
	u64 counter_unit_ops;
	/* Boot CPU: allocate, set c->ops (per run) and c->priv. Returns 0 or an error. */
	int (*setup)(struct bench_ctx *c);
	/* Boot CPU, before each run, untimed (re-map what the last run unmapped, say). Optional. */
	int (*prepare)(struct bench_ctx *c);
	/* Every participating CPU after prepare, untimed (touch pages to fill TLBs). Optional. */
	void (*prepare_cpu)(struct bench_ctx *c, unsigned idx);
	/* Every participating CPU, @idx 0..c->ncpus-1, interrupts on: the timed work. */
	void (*run)(struct bench_ctx *c, unsigned idx);
	/*
	 * Optional second timed phase right after run() on each CPU (gup_test's
	 * "put" after "get"), reported as the object named @phase2_name with
	 * its own statistics in the same metric.
	 */
	void (*run_phase2)(struct bench_ctx *c, unsigned idx);
	const char *phase2_name;
	/*
	 * Boot CPU, after each episode's runs (before teardown): check
	 * invariants (counts, contents) over c->runs_done and c->counter_total.
	 * Optional.
	 */
	int (*verify)(struct bench_ctx *c);
	/*
	 * Boot CPU, after a passed case: adds fields of its own to the BENCH
	 * line (@median: the metric's median, in thousandths). Optional.
	 */
	void (*report)(const struct bench_ctx *c, struct json *j, u64 median);
	/*
	 * Boot CPU: free what setup allocated. Optional. Returns 0, or a
	 * negative error when something could not be given back (mm_destroy()'s
	 * -EBUSY: an address space still loaded somewhere); the case then
	 * fails, and the benchmark's later cases fail without running, since
	 * what was left behind would skew them.
	 */
	int (*teardown)(struct bench_ctx *c);
	/*
	 * Optional: non-NULL (why, in a few words) when the variants do the
	 * same work in this case through different code (naive's loop of one
	 * call and batched's one call to one target, say): their ratio is
	 * expected near 1 but is no control, since the code differs; the BENCH
	 * line says "expected_near_1":"why". The controls are the aa rows.
	 */
	const char *(*control)(const struct bench_ctx *c);
};

struct bench_ctx {
	const struct bench *b;
	const struct options *opt; /* the run's options (sizes such as swapfree_mb) */
	unsigned variant;        /* index among bench_nvariants(b): a design, or the last, aa */
	u32 episode;             /* this episode's place in the case's order (0: its first) */
	unsigned warmup;         /* this episode's warm-up runs: bench_warmup() */
	const struct design *design; /* bench_variant_design(b, variant): the one running */
	const struct bench_case *bcase;
	unsigned ncpus;          /* participating CPUs */
	unsigned cpu[MAX_CPUS];  /* idx -> CPU number; cpu[0] is the boot CPU */
	u64 ops;                 /* operations per run, summed over CPUs (setup sets it) */
	/* Counts of the current episode (setup..teardown: warm-up runs and one timed run). */
	u64 runs_done;           /* timed and warm-up runs completed so far */
	/* By pcpu_counter_index(), for each of pcpu_counter_count() counters: */
	u64 counter_delta[PCPU_COUNTER_SLOTS]; /* over the last run, all online CPUs */
	u64 counter_total[PCPU_COUNTER_SLOTS]; /* over every run so far, warm-up included */
	void *priv;
	/*
	 * Cycles of the boot CPU's run() not to count (ipi's gaps between
	 * rounds, timed by run() itself): the harness subtracts them from its
	 * time. run() on CPU index 0 sets it each run (0 before each run).
	 */
	u64 excluded_cycles;
	int mem_node;            /* the node bench_mm_create() took from; -1: not called */
	bool mem_node_alone;     /* mem_node=remote found no other node with memory */
	int error;               /* a run or verify sets it (with errmsg) to fail the case */
	char errmsg[160];
};

/* Counter @k summed over @c's runs so far (its counter_total entry). */
static inline u64 bench_counter_total(const struct bench_ctx *c, const struct pcpu_counter *k)
{
	return c->counter_total[pcpu_counter_index(k)];
}

#endif
