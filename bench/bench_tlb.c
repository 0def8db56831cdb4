/*
 * Benchmark `tlb`, after Mel Gorman's "send one IPI per CPU to TLB flush all
 * entries after unmapping pages": CPU index 0 unmaps P pages of an address
 * space live in the TLBs of K-1 others. Variants: the designs read by traits,
 * then aa, the null and the silent control; a design that completes later is
 * settled untimed, its release counted apart. Parameter remote: busy readers
 * (bench/tlb_readers.c) or idle CPUs. Metric: the initiator's cycles per page.
 */
#include "bench/bench.h"
#include "bench/tlb_deferred.h"
#include "bench/tlb_readers.h"
#include "errno.h"
#include "kernel/json.h"
#include "kernel/smp.h"
#include "lib/math.h"
#include "lib/string.h"
#include "mm/mm.h"
#include "mm/pt.h"
#include "mm/tlb/tlb.h"
#include <arch/arch.h>

#define TLB_BENCH_BASE 0x40000000ul
/*
 * The readers' working set: the pages of the mapping right after the P
 * being unmapped (shared with the initiator, never unmapped), plus as many
 * private pages per reader. 64 translations in all: a full flush costs a
 * reader 64 refills, page-by-page invalidation none.
 */
#define TLB_BENCH_SHARED_PAGES 32
#define TLB_BENCH_PRIVATE_PAGES 32
#define TLB_BENCH_PRIVATE_BASE 0x48000000ul
#define TLB_BENCH_PRIVATE_STRIDE 0x00100000ul /* 1 MiB per reader */
/* Baseline window: as long as the last unmap took, within these bounds. */
#define TLB_BENCH_WINDOW_MIN_US 200
#define TLB_BENCH_WINDOW_MAX_US 50000
#define TLB_BENCH_WINDOW_FIRST_US 1000
/* The null variant's name: the shootdown component is each design's cost less its. */
#define TLB_BENCH_NULL_NAME "null"

enum tlb_remote { TLB_REMOTE_BUSY, TLB_REMOTE_IDLE };

struct tlb_bench {
	struct mm *mm;
	struct mm *remote_mm; /* the null variant: where the remotes live instead */
	cpumask_t remotes;
	unsigned pages;
	bool busy;	      /* readers started on the remotes */
	bool counted;	      /* this run is timed (not a warm-up) */
	u64 last_run_cycles;  /* the initiator's last unmap, sizing the baseline window */
	/* Each participating CPU's own invalidations over the episode's runs (idx order). */
	/* tlb_flush_one, tlb_flush_all, calls_acked_early: after the last prepare, over the runs */
	u64 flush_mark[MAX_CPUS][3];
	u64 flushes[MAX_CPUS][3];
	bool marked;		     /* flush_mark holds a prepare's snapshot */
};

static struct tlb_bench tb;

/* A completes_later design's settles after timed runs: the wait apart from the release. */
static struct tlb_deferred deferred;

static int tlb_bench_settle(const struct bench_ctx *c)
{
	return tlb_deferred_settle(&deferred, c, tb.mm);
}

static void switch_to_bench_mm(void *arg)
{
	mm_switch(arg);
}

/* Every remote starts each run from the same TLB: none of the last run's translations. */
static void flush_own_tlb(void *arg)
{
	(void)arg;
	arch_tlb_flush_all();
}

static void call_nothing(void *arg)
{
	(void)arg;
}

/*
 * The initiator's next call starts by checking that its last one's targets
 * let go of its descriptor (kernel/smp.c, smp_drain()), one word per word
 * of targets. prepare's calls had the remotes as targets (the lone
 * baseline's waker at 1 CPU): one with none, last, leaves the descriptor
 * the same at every CPU count, so that check is no part of the setting's cost.
 */
static int tlb_bench_call_reset(void)
{
	cpumask_t none;

	cpumask_clear(&none);
	return smp_call(&none, call_nothing, NULL, true);
}

/* Reads one word of each page, so every CPU holds their translations. */
static void touch_pages(void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < tb.pages; i++)
		(void)*(volatile u64 *)(TLB_BENCH_BASE + (vaddr_t)i * PAGE_SIZE);
}

/* Returns 0 or the first error (a remote CPU that did not switch away keeps the mm: -EBUSY). */
static int tlb_bench_teardown(struct bench_ctx *c)
{
	const struct tlb_ops *ops = tlb_ops_of(c->design);
	int err = tb.mm ? tlb_bench_settle(c) : 0, e;

	/* Readers first: they must be gone before their pages are. */
	if (tb.busy && tlb_readers_finish(c))
		bench_fail(c, "a busy reader did not stop");
	tb.busy = false;
	e = smp_call(&tb.remotes, switch_to_bench_mm, NULL, true);
	err = err ? err : e;
	e = tlb_design_enable(ops, false);
	err = err ? err : e;
	mm_switch(NULL);
	for (unsigned k = 0; k < 2; k++) {
		struct mm **m = k ? &tb.remote_mm : &tb.mm;

		e = *m ? mm_destroy(*m) : 0;
		err = err ? err : e;
		*m = NULL;
	}
	return err;
}

static vaddr_t shared_set(void)
{
	return TLB_BENCH_BASE + (vaddr_t)tb.pages * PAGE_SIZE;
}

/* The mapping (P pages, then the shared working set) and each reader's private set. */
/* Where the busy readers read: the shared pages that stay mapped, then each one's own. */
static struct tlb_readers_layout tlb_bench_layout(void)
{
	return (struct tlb_readers_layout){
		.shared = shared_set(),
		.nshared = TLB_BENCH_SHARED_PAGES,
		.priv_base = TLB_BENCH_PRIVATE_BASE,
		.priv_stride = TLB_BENCH_PRIVATE_STRIDE,
		.npriv = TLB_BENCH_PRIVATE_PAGES,
	};
}

/* In @mm; @all populates the P pages too (the null's remotes, which never unmap them). */
static int tlb_bench_map(struct bench_ctx *c, struct mm *mm, bool all)
{
	const struct tlb_readers_layout lay = tlb_bench_layout();
	u64 shared_len = TLB_BENCH_SHARED_PAGES * PAGE_SIZE;
	u64 len = (u64)tb.pages * PAGE_SIZE + shared_len;
	int err = mm_map_region(mm, TLB_BENCH_BASE, len, MM_READ | MM_WRITE);

	if (!err)
		err = mm_populate(mm, all ? TLB_BENCH_BASE : shared_set(), all ? len : shared_len);
	if (!err)
		err = tlb_readers_map_private(c, mm, &lay, MM_READ | MM_WRITE);
	return err;
}

/*
 * The null variant (bench.null_variant): the reference design, with the
 * remotes in an address space of their own laid out as the unmapped one
 * (the same readers, the same touches before each run), so the unmap has
 * no remote target and no shootdown can happen, while the initiator's
 * prologue and the host the remotes share stay as in the other variants.
 */
static bool tlb_bench_null(const struct bench_ctx *c)
{
	return bench_variant_is_null(c->b, c->variant);
}

/*
 * The silent design (bench.silent_design, no-remote): the remotes hold the
 * mm as in every design, and the unmap flushes the initiator alone, so it
 * sends them nothing and its shootdown component must be 0. It leaves their
 * translations stale on purpose: each prepare flushes the remotes' TLBs
 * before anything is mapped again, and they read none of the range between.
 */
static bool tlb_bench_silent(const struct bench_ctx *c)
{
	return bench_variant_is_silent(c->b, c->variant);
}

/* The remotes are no target: the null's live in another mm, the silent design sends nothing. */
static bool tlb_bench_no_target(const struct bench_ctx *c)
{
	return tlb_bench_null(c) || tlb_bench_silent(c);
}

/*
 * The address space the remotes load: the unmapped one, or the null's own.
 * Every variant at every CPU count maps the null's, loaded or not: the
 * frames left free are then the same in each, and so are the buddies the
 * unmap's frees merge (a cost of the setting, not of a shootdown).
 */
static int tlb_bench_remote_mm(struct bench_ctx *c, struct mm **out)
{
	int err = bench_mm_create(c, &tb.remote_mm);

	if (!err)
		err = tlb_bench_map(c, tb.remote_mm, true);
	*out = tlb_bench_null(c) ? tb.remote_mm : tb.mm;
	return err;
}

static int tlb_bench_start_readers(const struct bench_ctx *c)
{
	const struct tlb_readers_layout lay = tlb_bench_layout();
	int err = tlb_readers_start(c, &lay);

	tb.busy = !err;
	return err;
}

static int tlb_bench_setup(struct bench_ctx *c)
{
	struct mm *remote_mm = NULL;
	int err;

	tb.pages = (unsigned)bench_param(c, "pages");
	if (c->episode == 0) { /* a new case: its variants' sums start again */
		tlb_readers_sums_reset();
		tlb_deferred_reset(&deferred);
	}
	memset(tb.flushes, 0, sizeof(tb.flushes));
	tb.marked = false;
	tb.last_run_cycles = arch_tsc_hz() / 1000000 * TLB_BENCH_WINDOW_FIRST_US;
	cpumask_clear(&tb.remotes);
	for (unsigned idx = 1; idx < c->ncpus; idx++)
		cpumask_set_cpu(c->cpu[idx], &tb.remotes);
	tb.mm = tb.remote_mm = NULL;
	err = tlb_design_enable(tlb_ops_of(c->design), true);
	if (!err)
		err = bench_mm_create(c, &tb.mm);
	if (!err)
		err = tlb_bench_map(c, tb.mm, false);
	if (!err)
		err = tlb_bench_remote_mm(c, &remote_mm);
	if (!err)
		err = smp_call(&tb.remotes, switch_to_bench_mm, remote_mm, true);
	if (!err && c->ncpus > 1 && bench_param(c, "remote") == TLB_REMOTE_BUSY)
		err = tlb_bench_start_readers(c);
	if (err) {
		tlb_bench_teardown(c); /* the setup error is the one reported */
		return err;
	}
	mm_switch(tb.mm);
	c->ops = tb.pages;
	return 0;
}

/*
 * Each CPU's own invalidations since the last prepare's mark (the run
 * between them), added to tb.flushes: @mark then sets a new mark. Only
 * the runs flush: prepare maps and touches, readers read.
 */
static void tlb_bench_count_flushes(const struct bench_ctx *c, bool mark)
{
	static const struct pcpu_counter *const k[3] = { PCPU_TLB_FLUSH_ONE, PCPU_TLB_FLUSH_ALL,
							 PCPU_CALLS_ACKED_EARLY };

	for (unsigned idx = 0; idx < c->ncpus; idx++)
		for (unsigned i = 0; i < 3; i++) {
			u64 now = percpu_counter_read(c->cpu[idx], k[i]);

			if (tb.marked)
				tb.flushes[idx][i] += now - tb.flush_mark[idx][i];
			if (mark)
				tb.flush_mark[idx][i] = now;
		}
	tb.marked = mark;
}

/*
 * The initiator's prologue, the last of prepare: with busy remotes it
 * halts through the readers' baseline window until reader 1 wakes it; at
 * 1 CPU of a busy case, the same halt, woken by a CPU outside the case
 * (tlb_readers_lone_baseline()), so the reference starts its run as the
 * others do. Idle remotes: none.
 */
static int tlb_bench_prologue(struct bench_ctx *c)
{
	u64 window = tlb_readers_window_cycles(tb.last_run_cycles, TLB_BENCH_WINDOW_MIN_US,
					       TLB_BENCH_WINDOW_MAX_US);

	if (tb.busy)
		return tlb_readers_baseline(window, tb.counted);
	if (c->ncpus == 1 && bench_param(c, "remote") == TLB_REMOTE_BUSY)
		return tlb_readers_lone_baseline(c->cpu[0], window);
	return 0;
}

/* Untimed: map the pages again, load their translations on every CPU, then the prologue. */
static int tlb_bench_prepare(struct bench_ctx *c)
{
	int err = tb.busy ? tlb_readers_sync() : 0; /* the last timed window is closed */

	tlb_bench_count_flushes(c, false); /* the run just made, before anything else flushes */

	tb.counted = c->runs_done >= c->warmup;
	/*
	 * The last unmap's deferred completion (completes_later), before
	 * mapping again. A design that only keeps frames past its call
	 * is not settled: the next timed unmap releases them, as
	 * its next gather would in a run of unmaps, and pays for it.
	 */
	if (!err && c->design->completes_later)
		err = tlb_bench_settle(c);
	if (!err)
		err = smp_call(&tb.remotes, flush_own_tlb, NULL, true);
	if (!err)
		err = mm_populate(tb.mm, TLB_BENCH_BASE, (u64)tb.pages * PAGE_SIZE);
	if (!err)
		err = smp_call(&tb.remotes, touch_pages, NULL, true);
	touch_pages(NULL);
	if (!err)
		err = tlb_bench_prologue(c);
	if (!err)
		err = tlb_bench_call_reset();
	tlb_bench_count_flushes(c, true);
	return err;
}

static void tlb_bench_run(struct bench_ctx *c, unsigned idx)
{
	u64 t0 = arch_tsc_read();
	int err, qerr;

	(void)idx;
	if (tb.busy)
		tlb_readers_timed_begin(tb.counted);
	err = tlb_unmap_pages(tb.mm, TLB_BENCH_BASE, tb.pages, tlb_ops_of(c->design));
	if (tb.busy)
		tlb_readers_timed_end();
	tb.last_run_cycles = arch_tsc_read() - t0;
	/*
	 * Untimed (excluded from the figure): targets that acknowledged early
	 * finish their flushes, so their counts fall in this run's window.
	 */
	qerr = tlb_quiesce(tlb_ops_of(c->design));
	c->excluded_cycles += arch_tsc_read() - t0 - tb.last_run_cycles;
	if (err)
		bench_fail(c, "unmap failed (%s)", errno_name(err));
	else if (qerr)
		bench_fail(c, "a target did not finish its flush (%s)", errno_name(qerr));
}

/* Local flushes one round of @n pages costs each CPU that has the mm: per page or one full. */
static void round_flushes(u64 n, u64 *one, u64 *all)
{
	if (n > tlb_ceiling())
		*all += 1;
	else
		*one += n;
}

/*
 * Whether CPU index @idx did @one single-page and @all full flushes in
 * each of @runs runs; else fails @c naming the CPU (the initiator or a
 * remote: a design that skips one is caught on that one, not in a sum).
 */
static bool tlb_bench_cpu_flushes_ok(struct bench_ctx *c, unsigned idx, u64 runs, u64 one, u64 all)
{
	const u64 *f = tb.flushes[idx];

	if (f[0] == runs * one && f[1] == runs * all)
		return true;
	bench_fail(c, "%s: CPU %u (%s) did %lu invlpg, %lu full flushes in %lu runs; expected %lu, %lu",
		   c->design->name, c->cpu[idx], idx ? "remote" : "initiator", (unsigned long)f[0],
		   (unsigned long)f[1], (unsigned long)runs, (unsigned long)(runs * one),
		   (unsigned long)(runs * all));
	return false;
}

/*
 * Whether every remote acknowledged each round after its handler (its
 * flush) returned, as the call layer counted on that CPU; else fails @c
 * naming it. A design whose targets acknowledge first and flush after
 * (early_ack) says so with its quiesce hook, and keeps its frames.
 */
static bool tlb_bench_acks_ok(struct bench_ctx *c)
{
	if (tlb_ops_of(c->design)->quiesce)
		return true;
	for (unsigned idx = 1; idx < c->ncpus; idx++) {
		u64 early = tb.flushes[idx][2];

		if (!early)
			continue;
		bench_fail(c, "%s: CPU %u (remote) acknowledged %lu calls in %lu runs before its "
			   "handler returned: its flush could run after the frames were freed",
			   c->design->name, c->cpu[idx], (unsigned long)early,
			   (unsigned long)c->runs_done);
		return false;
	}
	return true;
}

/*
 * The null's and the silent design's remotes (no target: tlb_bench_no_target())
 * received no IPI and flushed nothing in the runs; else fails @c naming the CPU.
 */
static bool tlb_bench_no_target_ok(struct bench_ctx *c)
{
	u64 got = bench_counter_total(c, PCPU_IPI_RECEIVED);
	const char *why = tlb_bench_null(c) ? "another address space" : "sent nothing";

	for (unsigned idx = 1; tlb_bench_no_target(c) && idx < c->ncpus; idx++) {
		const u64 *f = tb.flushes[idx];

		if (!f[0] && !f[1] && !got)
			continue;
		bench_fail(c, "%s: CPU %u (remote, %s): %lu IPIs taken, %lu invlpg, %lu full "
			   "flushes in %lu runs; expected none",
			   bench_variant_name(c->b, c->variant), c->cpu[idx], why,
			   (unsigned long)got, (unsigned long)f[0], (unsigned long)f[1],
			   (unsigned long)c->runs_done);
		return false;
	}
	return true;
}

/*
 * The design's own promises (rounds and IPIs per page), then what every
 * design's targets do with each round: each CPU with the mm loaded (the
 * initiator and each remote, each on its own counters) flushes page by
 * page up to the ceiling and fully above it; a round holds as many pages
 * as the rounds promise covers (two rounds above PT_GATHER_PAGES).
 */
static int tlb_bench_verify(struct bench_ctx *c)
{
	u64 one = 0, all = 0;
	/* A design that promises no group (the silent one) flushes each gather whole. */
	u64 batch = design_group_units(c->design) ? design_group_units(c->design) : PT_GATHER_PAGES;
	/* Remotes that flush at their drains are counted apart: only we flush here. */
	bool one_flusher = c->design->remotes_flush_at_drain || tlb_bench_no_target(c);
	unsigned flushers = one_flusher ? 1 : c->ncpus;
	/* The null's remotes are no target: its promises hold with none. */
	u64 targets = tlb_bench_no_target(c) ? 0 : c->ncpus - 1;

	tlb_bench_count_flushes(c, false);
	if (bench_counter_total(c, PCPU_TLB_UNACKED_FREES)) {
		bench_fail(c, "%s: %lu gather flushes returned before every target acknowledged: "
			   "frames freed under live translations", c->design->name,
			   (unsigned long)bench_counter_total(c, PCPU_TLB_UNACKED_FREES));
		return -EINVAL;
	}
	if (bench_check_promises(c, tb.pages, targets) || !tlb_bench_no_target_ok(c))
		return -EINVAL;
	/*
	 * A gather cuts when a frame does not fit: the page whose frame that is
	 * is already in the range flushed, so the first round covers batch + 1
	 * pages and each later one batch (mm/pt_gather.c, pt_gather_page()).
	 */
	for (u64 left = tb.pages, n = batch > 1 ? batch + 1 : 1; left; left -= n, n = batch) {
		n = MIN(left, n);
		round_flushes(n, &one, &all);
	}
	for (unsigned idx = 0; idx < flushers; idx++)
		if (!tlb_bench_cpu_flushes_ok(c, idx, c->runs_done, one, all))
			return -EINVAL;
	return tlb_bench_acks_ok(c) ? 0 : -EINVAL;
}

/*
 * One loss per episode (its baseline window against its timed one): the
 * episodes in order, each one round of the case, so the host tools pair
 * a design's with the null's of the same round; their median and interval;
 * and on the A/A row whether its interval meets the reference's.
 */
static void report_reader_episodes(const struct bench_ctx *c, struct json *j,
				   const struct tlb_reader_sums *s)
{
	static u64 scratch[TLB_READERS_MAX_EPISODES];
	const struct tlb_reader_sums *ref = tlb_readers_sums(0);
	struct read_series ep, ref_ep;

	if (read_series_summary(s->loss, s->nloss, scratch, &ep))
		return;
	json_array_begin(j, "remote_read_loss_episodes_pct");
	for (unsigned i = 0; i < s->nloss; i++)
		json_elem_fixed(j, s->loss[i], 3);
	json_array_end(j);
	json_fixed(j, "remote_read_loss_episode_pct", ep.median, 3);
	json_fixed(j, "remote_read_loss_episode_pct_lo", ep.lo, 3);
	json_fixed(j, "remote_read_loss_episode_pct_hi", ep.hi, 3);
	if (bench_variant_is_aa(c->b, c->variant) &&
	    !read_series_summary(ref->loss, ref->nloss, scratch, &ref_ep))
		json_bool(j, "remote_read_loss_aa_agrees", read_series_agree(&ep, &ref_ep));
}

/*
 * The busy readers' loss over whole windows (a descheduled vCPU is part of
 * what TCG measures), with the stolen share of each window and the loss
 * over running time only beside it; and the cycles lost per page. This
 * variant's windows over every counted episode of the case (one timed run
 * each, the initiator halted through each baseline), with their number.
 */
static void report_readers(const struct bench_ctx *c, struct json *j, u64 median)
{
	const struct tlb_reader_sums *s = tlb_readers_sums(c->variant);
	const struct read_window *base = &s->base, *timed = &s->timed;
	u64 episodes = s->episodes, windows = s->windows;
	struct read_window wbase = read_window_whole(base), wtimed = read_window_whole(timed);
	s64 lost_per_page;

	/* Summed over the readers: what every remote together lost, per page unmapped. */
	lost_per_page = read_lost_cycles(&wbase, &wtimed) * 1000 /
			(s64)MAX(episodes * tb.pages, 1ull);
	json_u64(j, "remote_read_episodes", episodes);
	json_u64(j, "remote_read_windows", windows);
	json_u64(j, "remote_reads_per_ms_baseline", read_rate_per_ms(&wbase, arch_tsc_hz()));
	json_u64(j, "remote_reads_per_ms_timed", read_rate_per_ms(&wtimed, arch_tsc_hz()));
	json_fixed(j, "remote_read_loss_pct", read_loss_pct_milli(&wbase, &wtimed), 3);
	json_fixed(j, "remote_stolen_pct_baseline", (s64)read_stolen_pct_milli(base), 3);
	json_fixed(j, "remote_stolen_pct_timed", (s64)read_stolen_pct_milli(timed), 3);
	json_fixed(j, "remote_read_loss_pct_running", read_loss_pct_milli(base, timed), 3);
	json_fixed(j, "remote_lost_cycles_per_page", lost_per_page, 3);
	json_fixed(j, "total_cycles_per_page", (s64)median + lost_per_page, 3);
	report_reader_episodes(c, j, s);
}

/* The interrupt rate one remote CPU sees while the unmaps run. */
static void tlb_bench_report(const struct bench_ctx *c, struct json *j, u64 median)
{
	u64 remotes = c->ncpus - 1;
	u64 per_run = bench_counter_total(c, PCPU_IPI_RECEIVED) / MAX(c->runs_done, 1ull);
	u64 run_cycles = MAX(median * tb.pages / 1000, 1ull);

	json_u64(j, "remote_irqs_per_sec",
		 remotes ? mul_div_u64(per_run / remotes, arch_tsc_hz(), run_cycles) : 0);
	json_u64(j, "flush_ceiling", tlb_ceiling());
	json_u64(j, "batch_pages", PT_GATHER_PAGES);
	if (c->design->completes_later)
		json_str(j, "note", "completion deferred: the remotes drain at their tick and "
				    "the frames are freed after, outside the timed unmap call");
	tlb_deferred_report(&deferred, c, j, tb.pages);
	if (tlb_bench_silent(c)) {
		json_bool(j, "silent", true);
		json_str(j, "silent_what", "a control that flushes the initiator alone: the remotes "
					   "hold the mm and are sent nothing (its component must be 0)");
	}
	if (tlb_bench_null(c)) {
		json_bool(j, "null", true);
		json_str(j, "null_what", "the reference design with the remotes in another address "
					 "space: the same readers and prologue, no remote target");
	}
	if (tlb_ops_of(c->design)->report)
		tlb_ops_of(c->design)->report(j);
	if (remotes && bench_param(c, "remote") == TLB_REMOTE_BUSY)
		report_readers(c, j, median);
}

/* remote=busy|idle on the command line keeps only that half of the cases. */
static const char *const remote_words[] = {
	[OPT_REMOTE_ALL] = "all",
	[OPT_REMOTE_BUSY] = "busy",
	[OPT_REMOTE_IDLE] = "idle",
	[OPT_REMOTE_COUNT] = NULL,
};
enum opt_remote tlb_bench_remote;
OPTION_ENUM(remote, tlb_bench_remote, remote_words, OPT_REMOTE_ALL);

static bool tlb_bench_case_selected(const struct bench_case *bc, const struct options *opt)
{
	(void)opt;
	return tlb_bench_remote == OPT_REMOTE_ALL ||
	       (tlb_bench_remote == OPT_REMOTE_BUSY) == (bc->param[0] == TLB_REMOTE_BUSY);
}

/*
 * One page is one shootdown round in either design (naive's one round per
 * page, batched's one gather of one page): a control, whose ratio must be 1.
 */
static const char *tlb_control(const struct bench_ctx *c)
{
	const struct design_promise *rounds = design_promise(c->design, PCPU_TLB_SHOOTDOWNS);

	/* Not for a design that promises no round at all: there one page is a result. */
	if ((rounds && !rounds->count) || tlb_bench_no_target(c))
		return NULL;
	return bench_param(c, "pages") == 1 ? "pages=1: both designs send one round" : NULL;
}

static const char *const tlb_remote_words[] = { "busy", "idle" };
/*
 * Both sides of the default ceiling (33): 32 and 33 page by page, 34 a full
 * flush; 64, 256 and 512 the large regime, three points so that its per-page
 * fit can be refused (tools/mmlab/fits.py).
 */
#define TLB_PAGES_SWEEP(remote)                                                                    \
	{ { remote, 1 } }, { { remote, 8 } }, { { remote, 32 } }, { { remote, 33 } },              \
		{ { remote, 34 } }, { { remote, 64 } }, { { remote, 256 } }, { { remote, 512 } }
static const struct bench_case tlb_cases[] = {
	TLB_PAGES_SWEEP(TLB_REMOTE_BUSY),
	TLB_PAGES_SWEEP(TLB_REMOTE_IDLE),
	/*
	 * Above the gather bound, 8194 pages: two rounds for the gathering
	 * designs (a full flush over 8193 pages, then one invlpg), which a
	 * larger bound would not pass. 8193 is still one round: the cut's
	 * flush already covers the page whose frame did not fit. Idle only:
	 * naive's 8194 rounds, each waiting on a busy reader's vCPU, take
	 * minutes under TCG on a loaded host.
	 */
	{ { TLB_REMOTE_IDLE, PT_GATHER_PAGES + 2 } },
};

const struct bench bench_tlb = {
	.name = "tlb",
	.title = "unmap cost per page",
	.exact_metric_name = "instructions_per_page",
	/* Gorman's lru-file-mmap-read: remotes reading while a large range is unmapped. */
	.headline = { { TLB_REMOTE_BUSY, 512 } },
	.metric_name = "cycles_per_page",
	.designs = tlb_designs,
	.null_variant = TLB_BENCH_NULL_NAME,
	.silent_design = &tlb_ops_no_remote.d,
	.param_names = { "remote", "pages" },
	.param_words = { tlb_remote_words, NULL },
	.cases = tlb_cases,
	.ncases = ARRAY_SIZE(tlb_cases),
	.case_selected = tlb_bench_case_selected,
	.control = tlb_control,
	.metric = BENCH_CYCLES_PER_OP,
	.min_cpus = 1,
	/* The harness times CPU 0 only; busy remotes run their own readers. */
	.idle_targets = true,
	.iters = 10,
	.warmup = 2,
	/* And each design's own (design.counters): bench_counters(). */
	.counters = BENCH_COUNTERS(PCPU_IPI_SENT, PCPU_IPI_RECEIVED, PCPU_TLB_FLUSH_ONE,
				   PCPU_TLB_FLUSH_ALL, PCPU_TLB_SHOOTDOWNS),
	.setup = tlb_bench_setup,
	.prepare = tlb_bench_prepare,
	.run = tlb_bench_run,
	.verify = tlb_bench_verify,
	.report = tlb_bench_report,
	.teardown = tlb_bench_teardown,
};
BENCH_REGISTER(bench_tlb, 20);
