/*
 * The benchmark harness (see bench/bench.h): registration, the CPU-count
 * sweep, and per case the rounds of episodes, each round one episode of
 * every variant in an order shuffled from seed=, so host drift hits the
 * variants alike, until every median is known within BENCH_CI_TARGET_PCT
 * or the bench's maximum. An episode is setup, bench/bench_runs.c's runs,
 * verify and teardown; bench/bench_result.c prints the result lines.
 */
#include "bench/bench.h"
#include "bench/bench_result.h"
#include "bench/bench_runs.h"
#include "bench/placement.h"
#include "errno.h"
#include "kernel/cmdline.h"
#include "machine.h"
#include "kernel/json.h"
#include "kernel/printk.h"
#include "kernel/report.h"
#include "kernel/run.h"
#include "kernel/smp.h"
#include "kernel/timing.h"
#include "kernel/trace.h"
#include "lib/atomic.h"
#include "lib/format.h"
#include "lib/math.h"
#include "lib/stats.h"
#include "lib/string.h"
#include "mm/mm.h"
#include "mm/pmm.h"
#include <arch/arch.h>

/* Bounds of the bench_set section (BENCH_REGISTER): from linker.ld. */
extern const struct bench_entry __start_bench_set[];
extern const struct bench_entry __stop_bench_set[];

/* The registered benchmarks in run order, and their names, NULL-terminated. */
static const struct bench *benches[BENCH_MAX_BENCHES];
static unsigned nbenches;
static const char *names[BENCH_MAX_BENCHES + 1];

u32 bench_seed = 1;
/* seed=: the per-round shuffle of the variants' order. */
OPTION_UINT(seed, bench_seed, 1, 1000000000, 1);

static struct variant_runs vruns[BENCH_MAX_VARIANTS];
static u64 values[BENCH_MAX_RUNS]; /* sorted copies for the statistics */
static u32 episode_seq;		   /* episodes of the current case so far */
static u64 rng_state;

/* Sorts the bench_set section by order key into benches[], once (the linker bounds its size). */
static void collect_benches(void)
{
	static unsigned order[BENCH_MAX_BENCHES];
	const struct bench_entry *e;
	unsigned i;

	if (nbenches)
		return;
	for (e = __start_bench_set; e < __stop_bench_set; e++) {
		for (i = nbenches; i > 0 && order[i - 1] > e->order; i--) {
			benches[i] = benches[i - 1];
			order[i] = order[i - 1];
		}
		benches[i] = e->b;
		order[i] = e->order;
		nbenches++;
	}
}

const char *const *bench_names(void)
{
	collect_benches();
	for (unsigned i = 0; i < nbenches; i++)
		names[i] = benches[i]->name;
	return names;
}

static void bench_switch_mm(void *mm)
{
	mm_switch(mm);
}

int bench_load_mm(const struct bench_ctx *c, struct mm *mm)
{
	cpumask_t others;

	cpumask_clear(&others);
	for (unsigned idx = 1; idx < c->ncpus; idx++)
		cpumask_set_cpu(c->cpu[idx], &others);
	mm_switch(mm);
	return smp_call(&others, bench_switch_mm, mm, true);
}

/* mem_node=remote's node from the boot CPU's, by the SLIT and which nodes have memory. */
static unsigned remote_node(unsigned local)
{
	static u32 dist[MACHINE_MAX_NODES];
	static bool has_mem[MACHINE_MAX_NODES];
	unsigned n = MIN(pmm_node_count(), (unsigned)MACHINE_MAX_NODES);

	for (unsigned k = 0; k < n; k++) {
		struct pmm_node_stats st = { 0 };

		dist[k] = arch_node_distance(local, k);
		has_mem[k] = !pmm_node_stats_get(k, &st) && st.managed > 0;
	}
	return placement_remote_node(local, n, dist, has_mem);
}

int bench_mm_create(struct bench_ctx *c, struct mm **out)
{
	unsigned node = pmm_local_node();
	int err;

	if (bench_mem_node == MEM_NODE_REMOTE) {
		unsigned far = remote_node(node);

		c->mem_node_alone = far == node;
		node = far;
	}
	c->mem_node = (int)node;
	err = mm_create_node(out, node, 0);
	if (err)
		bench_fail(c, "mem_node=%s: node %u has no room for the address space",
			   bench_mem_node == MEM_NODE_REMOTE ? "remote" : "local", node);
	return err;
}

/* ---- teardown failures: kept apart from the run loop ---- */

/* The first teardown error of the benchmark running (0: none); reset by bench_run(). */
static int teardown_err;

/* Runs @c's teardown; a failure fails the case and is remembered for the cases after it. */
static void bench_teardown(struct bench_ctx *c)
{
	int err = c->b->teardown ? c->b->teardown(c) : 0;

	if (!err)
		return;
	bench_fail(c, "teardown failed (%s): later cases of %s are not run", errno_name(err),
		   c->b->name);
	if (!teardown_err)
		teardown_err = err;
}

/* Before a case's setup: fails it (returning nonzero) when an earlier teardown failed. */
static int bench_teardown_failed_before(struct bench_ctx *c)
{
	if (!teardown_err)
		return 0;
	bench_fail(c, "not run: an earlier teardown of %s failed (%s)", c->b->name,
		   errno_name(teardown_err));
	return teardown_err;
}

/*
 * One episode of variant @v: setup, the warm-up runs and one timed run,
 * verify, teardown. A failure marks the variant failed, and it runs no
 * more episodes of this case.
 */
static void run_episode(struct bench_ctx *c, unsigned v)
{
	const struct bench *b = c->b;
	struct variant_runs *vr = &vruns[v];
	int err;

	c->variant = v;
	c->design = bench_variant_design(c->b, v);
	c->episode = episode_seq;
	c->warmup = timing_exact() ? MIN(b->warmup, (unsigned)BENCH_EXACT_WARMUP) : b->warmup;
	c->error = 0;
	c->priv = NULL;
	/*
	 * timing=exact: every episode's setup finds the frame allocator in the
	 * state its free frames alone decide, as every run's prepare does
	 * (bench_runs.c), so each episode maps the same frames.
	 */
	if (timing_exact()) {
		pmm_drain_all();
		pmm_sort_free_lists();
	}
	err = bench_teardown_failed_before(c);
	if (!err && b->setup)
		err = b->setup(c);
	if (err) {
		bench_fail(c, "setup failed (%s)", errno_name(err));
	} else {
		bench_run_case_runs(c, vr, episode_seq, 1, c->warmup);
		/* Verification runs after the timed region, never inside it. */
		if (!c->error && b->verify && (err = b->verify(c)))
			bench_fail(c, "verification failed (%s)", errno_name(err));
		memcpy(vr->last_total, c->counter_total, sizeof(vr->last_total));
		vr->last_runs_done = c->runs_done;
		bench_teardown(c);
	}
	if (c->error) {
		vr->failed = true;
		fmt_snprintf(vr->errmsg, sizeof(vr->errmsg), "%s (timed run %u)", c->errmsg,
			     vr->n + 1);
	}
	episode_seq++;
}

/* xorshift64*: the run-order shuffle needs reproducibility, not strength. */
static u64 rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* The variants still running, in a fresh random order (Fisher-Yates). */
static unsigned round_order(const struct bench *b, unsigned *order)
{
	unsigned n = 0;

	for (unsigned v = 0; v < bench_nvariants(b); v++)
		if (!vruns[v].failed)
			order[n++] = v;
	for (unsigned i = n; i > 1; i--) {
		unsigned k = (unsigned)(rng_next() % i), tmp = order[i - 1];

		order[i - 1] = order[k];
		order[k] = tmp;
	}
	return n;
}

/* True when @vr's median is known within ±BENCH_CI_TARGET_PCT at 95% confidence. */
static bool median_ci_within_target(const struct variant_runs *vr)
{
	struct stats st;
	u64 lo, hi;

	if (stats_median_ci_rank(vr->n) == 0)
		return false;
	memcpy(values, vr->sample, vr->n * sizeof(*values));
	stats_compute(values, vr->n, &st);
	stats_median_ci(values, vr->n, &lo, &hi);
	return (hi - lo) * 100 <= 2 * BENCH_CI_TARGET_PCT * st.median;
}

/* Whether @a and @b agree within BENCH_EXACT_TOLERANCE_PPM of the larger. */
static bool exact_agree(u64 a, u64 b)
{
	u64 hi = MAX(a, b), lo = MIN(a, b);

	return (hi - lo) * 1000000 <= hi * BENCH_EXACT_TOLERANCE_PPM;
}

/* timing=exact: @vr's last BENCH_EXACT_RUNS samples agree, so its figure holds. */
static bool exact_settled(const struct variant_runs *vr)
{
	if (vr->n < BENCH_EXACT_RUNS)
		return false;
	for (unsigned i = vr->n - BENCH_EXACT_RUNS + 1; i < vr->n; i++)
		if (!exact_agree(vr->sample[i], vr->sample[vr->n - BENCH_EXACT_RUNS]))
			return false;
	return true;
}

/* Whether variant @vr has run enough: its figure repeats (exact) or its median is known. */
static bool variant_done(const struct variant_runs *vr)
{
	if (vr->failed)
		return true;
	return timing_exact() ? exact_settled(vr) : median_ci_within_target(vr);
}

/*
 * timing=exact: one round of every variant first, its results discarded,
 * so the first counted episode finds the machine (the frame allocator's
 * lists above all) as a case's own episodes leave it, not as the case
 * before left it. The counted episodes then number from 0 again.
 */
static void exact_warmup_round(struct bench_ctx *c)
{
	unsigned order[BENCH_MAX_VARIANTS], n = round_order(c->b, order);

	for (unsigned i = 0; i < n; i++)
		run_episode(c, order[i]);
	for (unsigned v = 0; v < bench_nvariants(c->b); v++)
		if (!vruns[v].failed)
			memset(&vruns[v], 0, sizeof(vruns[v]));
	episode_seq = 0;
	trace_discard();
}

/* Rounds of one episode per variant, in shuffled order, until enough runs or all failed. */
static void run_rounds(struct bench_ctx *c, unsigned min_rounds, unsigned max_rounds)
{
	unsigned order[BENCH_MAX_VARIANTS];

	if (timing_exact())
		exact_warmup_round(c);

	for (unsigned r = 0; r < max_rounds; r++) {
		unsigned n = round_order(c->b, order);
		bool done = r + 1 >= min_rounds;

		if (!n)
			return;
		for (unsigned i = 0; i < n; i++)
			run_episode(c, order[i]);
		for (unsigned v = 0; v < bench_nvariants(c->b) && done; v++)
			done = variant_done(&vruns[v]);
		if (done)
			return;
	}
}

/*
 * Timed runs per variant: iters= exactly, else under timing=exact until
 * the figure repeats, else the bench's adaptive range.
 */
static void round_limits(const struct bench *b, unsigned *min, unsigned *max)
{
	if (bench_iters) {
		*min = *max = MIN(bench_iters, (u32)BENCH_MAX_RUNS);
		return;
	}
	if (timing_exact()) {
		*min = BENCH_EXACT_RUNS;
		*max = BENCH_EXACT_MAX_RUNS;
		return;
	}
	*min = MAX(b->iters, 1u);
	*max = b->max_iters ? b->max_iters : 3 * *min;
	*max = MIN(MAX(*max, *min), (unsigned)BENCH_MAX_RUNS);
}

/* The result line (or failure) of variant c->variant after the rounds. True if it passed. */
static bool finish_variant(struct bench_ctx *c, const char *label, const struct options *opt)
{
	const struct bench *b = c->b;
	struct variant_runs *vr = &vruns[c->variant];
	u64 median = 0;

	if (!vr->failed && !vr->n) {
		vr->failed = true;
		fmt_snprintf(vr->errmsg, sizeof(vr->errmsg), "no timed run");
	}
	if (vr->failed) {
		printk("# bench FAIL %s %s cpus=%u %s: %s\n", b->name,
		       bench_variant_name(b, c->variant), c->ncpus, label, vr->errmsg);
	} else {
		printk("# bench %s %s cpus=%u %s: %u timed runs, each after %u warm-up\n", b->name,
		       bench_variant_name(b, c->variant), c->ncpus, label, vr->n, c->warmup);
		median = bench_print_result(c, vr, bench_seed);
	}
	bench_print_lava(c, !vr->failed, median, opt);
	return !vr->failed;
}

static unsigned aa_failures;
static char aa_first[160];

unsigned bench_aa_failures(const char **first)
{
	*first = aa_failures ? aa_first : NULL;
	return aa_failures;
}

/* The median of @vr's samples, in thousandths. */
static u64 variant_median(const struct variant_runs *vr)
{
	struct stats st;

	memcpy(values, vr->sample, vr->n * sizeof(*values));
	stats_compute(values, vr->n, &st);
	return st.median;
}

/*
 * timing=exact: the A/A control (variant @v) must repeat its reference's
 * figure within BENCH_EXACT_TOLERANCE_PPM; a wider gap means something
 * other than the design moved between their runs. True when it holds.
 */
static bool exact_aa_holds(const struct bench_ctx *c, unsigned v, const char *label)
{
	const struct variant_runs *aa = &vruns[v], *ref = &vruns[0];
	u64 ma, mr;

	if (!timing_exact() || !bench_variant_is_aa(c->b, v) || aa->failed || ref->failed ||
	    !aa->n || !ref->n)
		return true;
	ma = variant_median(aa);
	mr = variant_median(ref);
	if (exact_agree(ma, mr))
		return true;
	printk("# bench FAIL %s aa cpus=%u %s: A/A median differs from %s's by %lu ppm "
	       "(at most %u)\n", c->b->name, c->ncpus, label, bench_variant_name(c->b, 0),
	       (unsigned long)mul_div_u64(MAX(ma, mr) - MIN(ma, mr), 1000000, MAX(ma, mr)),
	       BENCH_EXACT_TOLERANCE_PPM);
	if (!aa_failures++)
		fmt_snprintf(aa_first, sizeof(aa_first), "A/A %s cpus=%u %s", c->b->name, c->ncpus,
			     label);
	return false;
}

/* The case's trace records (trace=1), after its result lines. */
static void trace_case_dump(const struct bench_ctx *c, const char *label)
{
	const char *variants[BENCH_MAX_VARIANTS];
	unsigned n = bench_nvariants(c->b);

	for (unsigned v = 0; v < n; v++)
		variants[v] = bench_variant_name(c->b, v);
	trace_dump(c->b->name, c->ncpus, label, variants, n);
}

/* Runs every variant of one (bench, parameter set, CPU count), interleaved run by run. */
static void run_case(struct bench_ctx *c, const struct options *opt, struct bench_outcome *out)
{
	const struct bench *b = c->b;
	unsigned min, max;
	char label[128];

	c->opt = opt;
	c->mem_node = -1;
	c->mem_node_alone = false;
	round_limits(b, &min, &max);
	memset(vruns, 0, sizeof(vruns));
	episode_seq = 0;
	bench_case_label(c, label, sizeof(label), ' ', '=');
	printk("# bench %s cpus=%u %s: variants alternate run by run (order shuffled, seed %u), "
	       "%u..%u timed runs each\n", b->name, c->ncpus, label, bench_seed, min, max);
	run_rounds(c, min, max);
	for (unsigned v = 0; v < bench_nvariants(b); v++) {
		c->variant = v;
		c->design = bench_variant_design(b, v);
		if (finish_variant(c, label, opt) && exact_aa_holds(c, v, label))
			out->passed++;
		else
			out->failed++;
	}
	trace_case_dump(c, label);
}

/*
 * The CPU counts to run at: cpus= if given (those online; *@beyond counts
 * the others), else 1, 2, 4, ... and all.
 */
static unsigned sweep_counts(unsigned *counts, unsigned *beyond)
{
	unsigned n = 0;

	*beyond = 0;
	if (bench_cpus.n) {
		for (unsigned i = 0; i < bench_cpus.n; i++)
			if (bench_cpus.value[i] <= ncpus_online) {
				counts[n++] = bench_cpus.value[i];
			} else {
				printk("# WARN bench: cpus=%u skipped: only %u CPUs are online\n",
				       bench_cpus.value[i], ncpus_online);
				(*beyond)++;
			}
		return n;
	}
	for (unsigned k = 1; k < ncpus_online; k *= 2)
		counts[n++] = k;
	counts[n++] = ncpus_online;
	return n;
}

/* Counts @n skipped results, @asked when the command line named what they needed. */
static void count_skipped(struct bench_outcome *out, unsigned n, bool asked)
{
	out->skipped += n;
	if (asked)
		out->skipped_asked += n;
}

/* pages=: only the cases whose "pages" parameter is listed, in every benchmark that has one. */
static struct opt_uint_list bench_pages;
OPTION_UINT_LIST(pages, bench_pages, 1, 1u << 24, "page count");

/* Index of @b's parameter "pages", or -1 when it has none. */
static int pages_param(const struct bench *b)
{
	for (unsigned i = 0; i < BENCH_MAX_PARAMS && b->param_names[i]; i++)
		if (strcmp(b->param_names[i], "pages") == 0)
			return (int)i;
	return -1;
}

static bool pages_selected(const struct bench *b, const struct bench_case *bc)
{
	int i = pages_param(b);

	if (!bench_pages.n || i < 0)
		return true;
	for (unsigned k = 0; k < bench_pages.n; k++)
		if (bc->param[i] == bench_pages.value[k])
			return true;
	return false;
}

/*
 * pages= naming no case of a benchmark that has the parameter would run
 * nothing of it in silence: a usage error naming the benchmark instead.
 */
static bool pages_meet(const struct bench *b)
{
	if (pages_param(b) < 0)
		return true;
	for (unsigned ci = 0; ci < b->ncases; ci++)
		if (pages_selected(b, &b->cases[ci]))
			return true;
	printk("mmlab: error: pages=: no case of %s has that page count\n", b->name);
	return false;
}

/*
 * Fills c->cpu[] with the online CPUs in placement='s order from the boot
 * CPU; returns how many it names (fewer than online only for node).
 */
static unsigned place_cpus(struct bench_ctx *c)
{
	static struct place_cpu where[MAX_CPUS];
	static unsigned online[MAX_CPUS], order[MAX_CPUS];
	unsigned cpu, n = 0, first = 0, k;

	for_each_cpu(cpu, &cpu_online_mask) {
		struct arch_cpu_pos p = arch_cpu_where(cpu);

		if (cpu == arch_cpu_id())
			first = n;
		where[n] = (struct place_cpu){ p.node, p.socket, p.core, p.thread };
		online[n++] = cpu;
	}
	k = placement_order(bench_placement, where, n, first, order);
	for (unsigned i = 0; i < k; i++)
		c->cpu[i] = online[order[i]];
	return k;
}

/* A count beyond the CPUs placement=node can name is skipped, and counted. */
static bool placed_short(const struct bench *b, unsigned count, unsigned placed,
			 struct bench_outcome *out)
{
	if (count <= placed)
		return false;
	printk("# bench %s cpus=%u: placement=%s names %u CPUs (node %u): skipped\n", b->name,
	       count, placement_name(bench_placement), placed, arch_cpu_node(arch_cpu_id()));
	count_skipped(out, bench_nvariants(b), bench_cpus.n > 0);
	return true;
}

static void run_sweep(const struct bench *b, const unsigned *counts, unsigned ncounts,
		      const struct options *opt, struct bench_outcome *out)
{
	static struct bench_ctx c;
	unsigned placed;

	c.b = b;
	placed = place_cpus(&c);
	for (unsigned ci = 0; ci < b->ncases; ci++) {
		c.bcase = &b->cases[ci];
		if (b->case_selected && !b->case_selected(c.bcase, opt))
			continue;
		if (!pages_selected(b, c.bcase))
			continue;
		for (unsigned k = 0; k < ncounts; k++) {
			c.ncpus = counts[k];
			if (placed_short(b, counts[k], placed, out))
				continue;
			if (b->case_min_cpus && counts[k] < b->case_min_cpus(c.bcase)) {
				printk("# bench %s cpus=%u: this case needs %u CPUs: skipped\n",
				       b->name, counts[k], b->case_min_cpus(c.bcase));
				count_skipped(out, bench_nvariants(b), false);
				continue;
			}
			if (counts[k] >= b->min_cpus &&
			    (!b->max_cpus || counts[k] <= b->max_cpus)) {
				run_case(&c, opt, out);
				continue;
			}
			printk("# bench %s cpus=%u: outside its range %u..%u CPUs: skipped\n",
			       b->name, counts[k], b->min_cpus,
			       b->max_cpus ? b->max_cpus : ncpus_online);
			count_skipped(out, bench_nvariants(b), bench_cpus.n > 0);
		}
	}
}

void bench_run(const struct bench *b, const struct options *opt, struct bench_outcome *out)
{
	unsigned counts[OPT_LIST_MAX + 32], beyond;
	unsigned ncounts = sweep_counts(counts, &beyond);

	*out = (struct bench_outcome){ 0 };
	teardown_err = 0;
	if (!bench_empty_loop_cycles())
		bench_measure_empty_loop();
	/* Each benchmark's order depends on seed= alone, not on which others ran. */
	rng_state = 0x9e3779b97f4a7c15ull * ((u64)bench_seed + 1);
	if (bench_nvariants(b) > BENCH_MAX_VARIANTS) {
		printk("# bench FAIL %s: %u variants, the harness holds %u\n", b->name,
		       bench_nvariants(b), BENCH_MAX_VARIANTS);
		out->failed++;
		return;
	}
	count_skipped(out, beyond * b->ncases * bench_nvariants(b), true);
	if (b->min_cpus > ncpus_online) {
		printk("# bench %s: needs %u CPUs, %u online: skipped\n", b->name, b->min_cpus,
		       ncpus_online);
		count_skipped(out, 1, bench_cpus.n || bench_selected.n);
		return;
	}
	run_sweep(b, counts, ncounts, opt, out);
}

unsigned bench_run_all(const struct options *opt)
{
	u64 empty = bench_measure_empty_loop();
	unsigned asked = 0;

	printk("# bench: %u CPUs online, empty timing loop %lu cycles, TSC %lu Hz\n", ncpus_online,
	       (unsigned long)empty, (unsigned long)arch_tsc_hz());
	collect_benches();
	for (unsigned i = 0; i < nbenches; i++)
		if (options_name_listed(&bench_selected, benches[i]->name) &&
		    !pages_meet(benches[i]))
			run_finish("usage", EXIT_USAGE, "pages= selects no case of a benchmark");
	for (unsigned i = 0; i < nbenches; i++) {
		struct bench_outcome out;

		if (!options_name_listed(&bench_selected, benches[i]->name))
			continue;
		bench_run(benches[i], opt, &out);
		report_count(out.passed, out.failed, out.skipped);
		asked += out.skipped_asked;
	}
	return asked;
}
