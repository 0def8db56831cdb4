/*
 * The benchmark harness. A benchmark is a struct bench: its variants (the
 * designs of its mechanism's table, kernel/design.h, naive first), its
 * parameter sets, set-up/run/verify/teardown hooks and its metric. The
 * harness runs every variant of every parameter set at each CPU count of
 * the sweep, back to back in one boot: all participating CPUs are released
 * together from a barrier, each times its own part with the TSC, the
 * slowest CPU's time (less the empty-loop overhead) is the run's time, and
 * exact per-CPU event counters are read around the timed part. Results are
 * printed as BENCH {json} lines (docs/output.md).
 *
 * Context: run() executes on every participating CPU in task context with
 * interrupts on (CPU index 0 is the boot CPU); setup, verify and teardown
 * run on the boot CPU only, outside the timed part.
 */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include "kernel/cmdline.h"
#include "kernel/design.h"
#include "linker_sets.h"
#include "kernel/percpu.h"
#include "mm/counters.h"
#include "types.h"

#define BENCH_MAX_PARAMS 4
/* .counters = BENCH_COUNTERS(PCPU_X, PCPU_Y): the list, NULL-terminated, in static storage. */
#define BENCH_COUNTERS(...) PCPU_COUNTER_LIST(__VA_ARGS__)
#define BENCH_MAX_RUNS 1000 /* timed runs per result (iters= at most), all on one BENCH line */
/* Variants of a case: a table's designs (broken ones too, TEST_DESIGN=broken), aa, a null. */
#define BENCH_MAX_VARIANTS 12
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

/* Fails the case from any participating CPU; the first message wins. */
void bench_fail(struct bench_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The value of parameter @name of the running case (0 if the bench has no such parameter). */
u64 bench_param(const struct bench_ctx *c, const char *name);

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

/* The variants of @b: its table's designs less the controls. */
unsigned bench_ndesigns(const struct bench *b);

/* Variant @v of @b (v < bench_ndesigns(b)). */
const struct design *bench_design(const struct bench *b, unsigned v);

/*
 * The variants a case runs: its designs, then the A/A control "aa", the
 * reference design (bench_design(b, 0)) once more, interleaved with the
 * others like any variant; a benchmark sees it as that design (c->design)
 * under its own c->variant; then the null variant, if @b names one. 0
 * for a bench with no design.
 */
unsigned bench_nvariants(const struct bench *b);
bool bench_variant_is_aa(const struct bench *b, unsigned v);
/* Whether @v is @b's null variant (bench.null_variant), the last one when it has one. */
bool bench_variant_is_null(const struct bench *b, unsigned v);
/* The design variant @v runs (aa, null: the reference's) and the name its results carry. */
const struct design *bench_variant_design(const struct bench *b, unsigned v);
const char *bench_variant_name(const struct bench *b, unsigned v);

/*
 * verify's generic half: every promise of c->design holds over
 * c->runs_done runs of @units units each, sent to @targets CPUs. Fails @c naming the first broken
 * one and returns -EINVAL, else 0. bench.c.
 */
int bench_check_promises(struct bench_ctx *c, u64 units, u64 targets);

/*
 * The counters @b reports on every BENCH line: its own list, then each of
 * its variants' designs' own (design.counters), each once, in that order.
 * Fills @out (room for PCPU_COUNTER_SLOTS) and returns how many.
 */
unsigned bench_counters(const struct bench *b, const struct pcpu_counter **out);

/* Counter @k summed over @c's runs so far (its counter_total entry). */
static inline u64 bench_counter_total(const struct bench_ctx *c, const struct pcpu_counter *k)
{
	return c->counter_total[pcpu_counter_index(k)];
}


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
