/*
 * Self-tests of what the benchmarks time (workload fidelity): the harness
 * keeps a benchmark's timed phases apart on every CPU; the tlb pages sweep
 * holds both sides of the flush ceiling and remote= selects its half; a busy
 * tlb run keeps its readers reading through both windows; faultlock, pin and
 * pagemap pass their exact counts at every CPU count. Kernel only.
 */
/* build: kernel only */
#include "bench/bench.h"
#include "bench/tlb_readers.h"
#include "kernel/cmdline.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "mm/tlb/tlb.h"
#include "tests/ktest.h"
#include <arch/arch.h>

extern const struct bench bench_tlb, bench_pin, bench_pagemap, bench_faultlock, bench_ipi;

/* ---- the harness: phase 2 starts on no CPU before phase 1 ended on all ---- */

static struct {
	u32 phase1_done;   /* CPUs that finished phase 1 in this run */
	u32 early;	   /* phase-2 starts that saw a CPU still in phase 1 */
	u32 phase2_done;
} ph;

static int phases_setup(struct bench_ctx *c)
{
	c->ops = 1;
	return 0;
}

static int phases_prepare(struct bench_ctx *c)
{
	(void)c;
	atomic_store_release(&ph.phase1_done, 0);
	return 0;
}

/* CPU 0 is slow in phase 1 (1 ms), so any CPU let through early gets there first. */
static void phases_run(struct bench_ctx *c, unsigned idx)
{
	(void)c;
	if (idx == 0) {
		u64 end = arch_tsc_read() + arch_tsc_hz() / 1000;

		while (arch_tsc_read() < end)
			arch_cpu_relax();
	}
	atomic_add_return(&ph.phase1_done, 1);
}

static void phases_run2(struct bench_ctx *c, unsigned idx)
{
	(void)idx;
	if (atomic_load_acquire(&ph.phase1_done) != c->ncpus)
		atomic_add_return(&ph.early, 1);
	atomic_add_return(&ph.phase2_done, 1);
}

static const struct design phases_only = { .name = "only", .unit = "run" };
static const struct design *const phases_designs[] = { &phases_only, NULL };
static const struct bench_case phases_cases[] = { { { 0 } } };

static const struct bench phases_bench = {
	.name = "phases",
	.designs = phases_designs,
	.cases = phases_cases,
	.ncases = 1,
	.metric = BENCH_US_PER_RUN,
	.min_cpus = 1,
	.iters = 3,
	.warmup = 1,
	.setup = phases_setup,
	.prepare = phases_prepare,
	.run = phases_run,
	.run_phase2 = phases_run2,
	.phase2_name = "phase2_us",
};

/* Runs @b at @ncpus CPUs, @iters timed runs, results as diagnostics. */
static void run_bench(const struct bench *b, unsigned ncpus, unsigned iters,
		      enum opt_remote remote, struct bench_outcome *out)
{
	static struct options opt;
	enum opt_remote saved = tlb_bench_remote;
	struct opt_uint_list saved_cpus = bench_cpus;
	u32 saved_iters = bench_iters;

	options_set_defaults(&opt);
	bench_cpus = (struct opt_uint_list){ .n = 1, .value = { ncpus } };
	bench_iters = iters;
	tlb_bench_remote = remote;
	bench_set_diagnostic_results(true);
	bench_run(b, &opt, out);
	bench_set_diagnostic_results(false);
	tlb_bench_remote = saved;
	bench_cpus = saved_cpus;
	bench_iters = saved_iters;
}

static void test_bench_phases_apart(struct ktest *t)
{
	struct bench_outcome out;

	if (!ktest_need_second_cpu(t))
		return;
	ph.early = ph.phase2_done = 0;
	run_bench(&phases_bench, ncpus_online, 3, OPT_REMOTE_ALL, &out);
	KEXPECT_EQ(t, out.passed, 2); /* the design and its A/A control */
	/* Each timed run is an episode of its own: the warm-up run, then the timed one. */
	KEXPECT_EQ(t, ph.phase2_done, 2 * 3 * (phases_bench.warmup + 1) * ncpus_online);
	KEXPECT_EQ(t, ph.early, 0);
}

/* ---- the harness: cycles a run excludes (ipi's gaps) are not counted ---- */

static u64 excl_median;

static int excl_setup(struct bench_ctx *c)
{
	c->ops = 10;
	return 0;
}

/* Asks for more than it took: the run's time is then the harness's floor of 1 cycle. */
static void excl_run(struct bench_ctx *c, unsigned idx)
{
	if (idx == 0)
		c->excluded_cycles = 1ull << 60;
}

static void excl_report(const struct bench_ctx *c, struct json *j, u64 median)
{
	(void)c;
	(void)j;
	excl_median = median;
}

static const struct bench excl_bench = {
	.name = "excluded",
	.designs = phases_designs,
	.cases = phases_cases,
	.ncases = 1,
	.metric = BENCH_CYCLES_PER_OP,
	.min_cpus = 1,
	.iters = 2,
	.warmup = 1,
	.idle_targets = true,
	.setup = excl_setup,
	.run = excl_run,
	.report = excl_report,
};

/*
 * excluded_cycles come off the run's time: all of it here, so every run is
 * 1 cycle for 10 operations, a median of exactly 0.100 cycles per op
 * (100 thousandths). Before, the run's own time was counted.
 */
static void test_bench_excluded_cycles(struct ktest *t)
{
	struct bench_outcome out;

	excl_median = 0;
	run_bench(&excl_bench, 1, 2, OPT_REMOTE_ALL, &out);
	KEXPECT_EQ(t, out.passed, 2);
	KEXPECT_EQ(t, excl_median, 100);
}

/* ---- ipi: HLT wake-ups are counted only when the target was halted ---- */

/* bench/bench_ipi.c's own counter, found by the name its BENCH lines print. */
static const struct pcpu_counter *hlt_wakes(void)
{
	return percpu_counter_find("hlt_wakes");
}

/* IPI wake-ups and calls received over one run of @b's one case at 2 CPUs. */
static void ipi_wakes(struct ktest *t, const struct bench_case *bc, u64 *wakes, u64 *received)
{
	static struct bench b;
	struct bench_outcome out;
	u64 w0 = percpu_counter_sum(hlt_wakes());
	u64 r0 = percpu_counter_sum(PCPU_IPI_RECEIVED);

	b = bench_ipi;
	b.cases = bc;
	b.ncases = 1;
	run_bench(&b, 2, 1, OPT_REMOTE_ALL, &out);
	KEXPECT_EQ(t, out.passed, bench_nvariants(&b));
	*wakes = percpu_counter_sum(hlt_wakes()) - w0;
	*received = percpu_counter_sum(PCPU_IPI_RECEIVED) - r0;
}

/*
 * A polling target is never woken from HLT (no wake-up counted in any
 * round); a halted one is at least at each episode's first round (it sat
 * idle since the last), never more often than it took a call.
 */
static void test_bench_ipi_hlt_wakes(struct ktest *t)
{
	static const struct bench_case halted[] = { { { 0 /* one */, 0 /* halted */ } } };
	static const struct bench_case polling[] = { { { 0 /* one */, 1 /* polling */ } } };
	u64 wakes, received;

	if (!ktest_need_second_cpu(t))
		return;
	KASSERT(t, hlt_wakes() != NULL);
	ipi_wakes(t, polling, &wakes, &received);
	KEXPECT_GT(t, received, 0);
	KEXPECT_EQ(t, wakes, 0);
	ipi_wakes(t, halted, &wakes, &received);
	KEXPECT_GE(t, wakes, bench_nvariants(&bench_ipi));
	KEXPECT_LE(t, wakes, received);
}

/* Targets a polling setup returned without, before they ran their poller. */
static u32 ipi_setup_not_polling;

/* bench_ipi's setup, then a look at every target: each must be in its poller. */
static int ipi_setup_look(struct bench_ctx *c)
{
	int err = bench_ipi.setup(c);

	if (err)
		return err;
	for (unsigned idx = 1; idx < c->ncpus; idx++)
		if (!smp_cpu_running_work(c->cpu[idx]))
			ipi_setup_not_polling++;
	c->ops = 1; /* the setup is under test, not the rounds */
	return 0;
}

/*
 * target_state=polling: the setup returns only once every target runs its
 * poller, so no round (the first included) can find one in HLT. Before, it
 * returned when a target had accepted the work, still inside the IPI
 * handler that had woken it from HLT; a first round's call landing there
 * counted a wake-up (CI, UEFI at 4 CPUs: test_bench_ipi_hlt_wakes saw 1).
 */
static void test_bench_ipi_polling_setup(struct ktest *t)
{
	static const struct bench_case polling[] = { { { 1 /* all */, 1 /* polling */ } } };
	static struct bench b;
	struct bench_outcome out;

	if (!ktest_need_second_cpu(t))
		return;
	b = bench_ipi;
	b.cases = polling;
	b.ncases = 1;
	b.setup = ipi_setup_look;
	ipi_setup_not_polling = 0;
	run_bench(&b, ncpus_online, 4, OPT_REMOTE_ALL, &out);
	KEXPECT_EQ(t, out.passed, bench_nvariants(&b));
	KEXPECT_EQ(t, ipi_setup_not_polling, 0);
}

/* ---- tlb: the sweep and remote= ---- */

static bool tlb_has_case(unsigned remote, u64 pages)
{
	for (unsigned i = 0; i < bench_tlb.ncases; i++)
		if (bench_tlb.cases[i].param[0] == remote && bench_tlb.cases[i].param[1] == pages)
			return true;
	return false;
}

/*
 * Both remote modes sweep 1, 8, 32, 33, 34, 64, 256, 512: both sides of the
 * default ceiling, three points of the large regime; idle also 8194, above
 * the gather bound (two rounds).
 */
static void test_bench_tlb_sweep_ceiling(struct ktest *t)
{
	static const u64 want[] = { 1, 8, TLB_FLUSH_CEILING - 1, TLB_FLUSH_CEILING,
				    TLB_FLUSH_CEILING + 1, 64, 256, 512 };

	KEXPECT_EQ(t, bench_tlb.ncases, 2 * ARRAY_SIZE(want) + 1);
	for (unsigned remote = 0; remote < 2; remote++)
		for (unsigned i = 0; i < ARRAY_SIZE(want); i++)
			KEXPECT(t, tlb_has_case(remote, want[i]));
	KEXPECT(t, tlb_has_case(1, PT_GATHER_PAGES + 2));
	KEXPECT_STREQ(t, bench_tlb.param_names[0], "remote");
	KEXPECT_STREQ(t, bench_tlb.param_words[0][0], "busy");
	KEXPECT_STREQ(t, bench_tlb.param_words[0][1], "idle");
}

static unsigned tlb_selected(enum opt_remote remote, unsigned want_param)
{
	enum opt_remote saved = tlb_bench_remote;
	struct options opt;
	unsigned n = 0;

	options_set_defaults(&opt);
	tlb_bench_remote = remote;
	for (unsigned i = 0; i < bench_tlb.ncases; i++)
		if (bench_tlb.case_selected(&bench_tlb.cases[i], &opt))
			n += bench_tlb.cases[i].param[0] == want_param ? 1 : 1000;
	tlb_bench_remote = saved;
	return n;
}

static void test_bench_tlb_remote_option(struct ktest *t)
{
	unsigned busy = bench_tlb.ncases / 2, idle = bench_tlb.ncases - busy; /* idle has 8194 */

	KASSERT(t, bench_tlb.case_selected != NULL);
	KEXPECT_EQ(t, tlb_selected(OPT_REMOTE_BUSY, 0), busy);
	KEXPECT_EQ(t, tlb_selected(OPT_REMOTE_IDLE, 1), idle);
	KEXPECT_EQ(t, tlb_selected(OPT_REMOTE_ALL, 0), busy + 1000 * idle);
}

/*
 * remote=busy at 2 CPUs: every case passes its counts; the readers read in
 * both windows of the reference (naive, which waits on them for every page)
 * and in the null's baselines (its readers in an address space of their
 * own). Sums of the last case, 512 pages: a null's timed window may pass
 * between two of a reader's looks at the phase, so it is not asked for.
 */
static void test_bench_tlb_busy_readers(struct ktest *t)
{
	const struct tlb_reader_sums *ref, *null;
	unsigned last = bench_nvariants(&bench_tlb) - 1;
	struct bench_outcome out;

	if (!ktest_need_second_cpu(t))
		return;
	run_bench(&bench_tlb, 2, 1, OPT_REMOTE_BUSY, &out);
	KEXPECT_EQ(t, out.passed, bench_tlb.ncases / 2 * bench_nvariants(&bench_tlb));
	KEXPECT_EQ(t, out.failed, 0);
	ref = tlb_readers_sums(0);
	/* The null, then the silent control (no-remote), last. */
	null = tlb_readers_sums(last - 1);
	KEXPECT(t, bench_variant_is_null(&bench_tlb, last - 1));
	KEXPECT(t, bench_variant_is_silent(&bench_tlb, last));
	KEXPECT_STREQ(t, bench_variant_name(&bench_tlb, last), "no-remote");
	/*
	 * Counted windows only (warm-up runs' are not): a reader the host kept
	 * off its core through one has all its cycles booked as stolen.
	 */
	KEXPECT_GT(t, ref->base.reads, 0);
	KEXPECT_GT(t, ref->base.cycles + ref->base.stolen, 0);
	KEXPECT_GT(t, ref->timed.reads, 0);
	KEXPECT_GT(t, ref->timed.cycles + ref->timed.stolen, 0);
	KEXPECT_GT(t, null->base.reads, 0);
	KEXPECT_EQ(t, null->episodes, ref->episodes);
}

/*
 * The readers' figures are each variant's own, over every counted episode:
 * at 2 CPUs, busy, 512 pages, 2 timed runs each, every variant (aa too)
 * has 2 episodes of 1 reader window, with reads in its baselines. Every
 * baseline (warm-up runs' too) was closed by reader 1, which woke the
 * initiator halted through it. Before, the figures were the readers' totals
 * of the case's last episode alone, printed on every variant (n = 1), and
 * the initiator spun through the baseline.
 */
static void test_bench_tlb_readers_per_variant(struct ktest *t)
{
	static const struct bench_case one[] = { { { 0 /* busy */, 512 } } };
	static struct bench b;
	struct bench_outcome out;
	u64 closed;
	unsigned nv;

	if (!ktest_need_second_cpu(t))
		return;
	b = bench_tlb;
	b.cases = one;
	b.ncases = 1;
	nv = bench_nvariants(&b);
	closed = tlb_readers_baselines_closed();
	run_bench(&b, 2, 2, OPT_REMOTE_BUSY, &out);
	KEXPECT_EQ(t, out.passed, nv);
	KEXPECT_EQ(t, tlb_readers_baselines_closed() - closed, nv * 2 * (b.warmup + 1));
	for (unsigned v = 0; v < nv; v++) {
		const struct tlb_reader_sums *s = tlb_readers_sums(v);

		KEXPECT_EQ(t, s->episodes, 2);
		KEXPECT_EQ(t, s->windows, 2);
		KEXPECT_GT(t, s->base.reads, 0);
	}
}

/*
 * At 1 CPU of a busy case the initiator starts each run (warm-ups too) as
 * it does at N CPUs: halted through a baseline window, woken by a
 * cross-CPU call, here from a CPU outside the case. An idle case has no
 * such prologue at any CPU count.
 */
static void test_bench_tlb_lone_prologue(struct ktest *t)
{
	static const struct bench_case one[] = { { { 0 /* busy */, 8 } } };
	static struct bench b;
	struct bench_outcome out;
	u64 wakes;
	unsigned nv;

	if (!ktest_need_second_cpu(t))
		return;
	b = bench_tlb;
	b.cases = one;
	b.ncases = 1;
	nv = bench_nvariants(&b);
	wakes = tlb_readers_lone_wakes();
	run_bench(&b, 1, 2, OPT_REMOTE_BUSY, &out);
	KEXPECT_EQ(t, out.passed, nv);
	KEXPECT_EQ(t, tlb_readers_lone_wakes() - wakes, nv * 2 * (b.warmup + 1));
	wakes = tlb_readers_lone_wakes();
	run_bench(&b, 2, 2, OPT_REMOTE_BUSY, &out);
	KEXPECT_EQ(t, out.passed, nv);
	KEXPECT_EQ(t, tlb_readers_lone_wakes(), wakes);
}

/* ---- faultlock, pin, pagemap: every case's exact counts at every CPU online ---- */

/* The cases of @b that run at @ncpus: a case may need more (faultlock's writer=fork needs 2). */
static unsigned cases_at(const struct bench *b, unsigned ncpus)
{
	unsigned n = 0;

	for (unsigned c = 0; c < b->ncases; c++)
		n += !b->case_min_cpus || ncpus >= b->case_min_cpus(&b->cases[c]);
	return n;
}

static void test_bench_counts_hold(struct ktest *t)
{
	const struct bench *const benches[] = { &bench_faultlock, &bench_pin, &bench_pagemap };

	for (unsigned i = 0; i < ARRAY_SIZE(benches); i++) {
		struct bench_outcome out;

		run_bench(benches[i], ncpus_online, 1, OPT_REMOTE_ALL, &out);
		KEXPECT_EQ(t, out.passed,
			   cases_at(benches[i], ncpus_online) * bench_nvariants(benches[i]));
		KEXPECT_EQ(t, out.failed, 0);
	}
}

static const struct ktest_case bench_work_cases[] = {
	KTEST_CASE(test_bench_phases_apart),
	KTEST_CASE(test_bench_excluded_cycles),
	KTEST_CASE(test_bench_ipi_hlt_wakes),
	KTEST_CASE(test_bench_ipi_polling_setup),
	KTEST_CASE(test_bench_tlb_sweep_ceiling),
	KTEST_CASE(test_bench_tlb_remote_option),
	KTEST_CASE(test_bench_tlb_busy_readers),
	KTEST_CASE(test_bench_tlb_readers_per_variant),
	KTEST_CASE(test_bench_tlb_lone_prologue),
	KTEST_CASE(test_bench_counts_hold),
};
KTEST_SUITE(bench_work, bench_work_cases);
