/*
 * Busy readers of the tlb bench (see bench/tlb_readers.h). The phase word
 * is (sequence << 3) | counted << 2 | kind; every change bumps the
 * sequence, so a reader tells two windows of the same kind apart. A reader
 * looks at it after every chunk of reads and, on a change, books the reads
 * and cycles since the last change to the window that just ended; gaps
 * between chunks too long to be reads or IPIs are booked as stolen.
 */
#include "bench/tlb_readers.h"
#include "bench/bench.h"
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/smp.h"
#include "kernel/timing.h"
#include "lib/atomic.h"
#include "lib/math.h"
#include "lib/string.h"
#include "mm/mm.h"
#include "mm/page.h"
#include <arch/arch.h>
#include <arch/layout.h>

#define TR_QUIET 0
#define TR_BASELINE 1
#define TR_TIMED 2
#define TR_STOP 3
#define TR_KIND(p) ((p) & 3u)
#define TR_COUNTED 4u
#define TR_CHUNK 16		/* reads between looks at the phase word */
#define TR_TIMEOUT_MS 30000	/* a reader's vCPU may be descheduled for long under TCG */

/*
 * A gap this long between two chunks of reads is not the reads, nor an IPI
 * (microseconds under TCG): the reader's vCPU was descheduled by the host.
 * Such time is booked as stolen, apart from the window's running cycles.
 */
#define TR_STOLEN_GAP_US 100

struct tlb_reader {
	const u64 *page[2];	/* shared working set, private one */
	unsigned npages[2];
	bool check;		/* the shared set's first words hold their own addresses */
	u64 wrong;		/* reads there that did not */
	u32 seen;		/* the last phase this reader booked */
	u32 running;
	struct read_window win[2]; /* counted baseline and timed windows */
} __cacheline_aligned;

/* Where a reader is in its working set, and what it has done since the last phase change. */
struct reader_state {
	unsigned set, i;
	u64 reads, stolen;
	u64 t0, tlast;
};

static struct {
	u32 phase __cacheline_aligned;
	unsigned nreaders;
	unsigned initiator;	/* the CPU that halts through the baseline */
	u64 base_cycles;	/* the baseline's length, on reader 1's clock */
	struct tlb_reader r[MAX_CPUS];
} trs;

/* One pass of TR_CHUNK reads, continuing where the last one stopped. */
static void reader_chunk(struct tlb_reader *r, struct reader_state *st, u64 gap)
{
	u64 t;

	for (unsigned n = 0; n < TR_CHUNK; n++) {
		const u64 *w = &r->page[st->set][(u64)st->i * (PAGE_SIZE / sizeof(u64))];
		u64 v = READ_ONCE(*w);

		if (r->check && st->set == 0 && v != (u64)(uintptr_t)w)
			atomic_store_relaxed(&r->wrong, r->wrong + 1);
		if (++st->i == r->npages[st->set]) {
			st->i = 0;
			st->set = r->npages[!st->set] ? !st->set : st->set;
		}
	}
	st->reads += TR_CHUNK;
	t = arch_tsc_read();
	if (t - st->tlast > gap)
		st->stolen += t - st->tlast;
	st->tlast = t;
}

/* Books what was done since the last change to the window that just ended (if counted). */
static void reader_book(struct tlb_reader *r, u32 phase, struct reader_state *st)
{
	struct read_window *w = NULL;
	u64 cycles = st->tlast - st->t0;

	if ((phase & TR_COUNTED) && TR_KIND(phase) == TR_BASELINE)
		w = &r->win[0];
	else if ((phase & TR_COUNTED) && TR_KIND(phase) == TR_TIMED)
		w = &r->win[1];
	if (w) {
		read_window_add(w, st->reads, cycles - MIN(st->stolen, cycles));
		w->stolen += MIN(st->stolen, cycles);
	}
	st->reads = st->stolen = 0;
	st->t0 = st->tlast;
}

/* Baselines reader 1 closed and woke the initiator for, since boot (self-tests read it). */
static u64 baselines_closed;

static void reader_wake(void *arg)
{
	(void)arg; /* the interrupt itself is the point: the initiator leaves HLT */
}

/*
 * Reader 1 keeps the baseline's time: once it has read for base_cycles
 * since it saw the window open, it closes it (unless the initiator did)
 * and wakes the initiator, which halted through it.
 */
static void reader_close_baseline(struct tlb_reader *r, u32 seen, const struct reader_state *st)
{
	if (r != &trs.r[1] || TR_KIND(seen) != TR_BASELINE || st->tlast - st->t0 < trs.base_cycles)
		return;
	if (atomic_cmpxchg(&trs.phase, seen, ((seen >> 3) + 1) << 3 | TR_QUIET) != seen)
		return;
	atomic_fetch_add(&baselines_closed, 1);
	smp_call_one(trs.initiator, reader_wake, NULL, false);
}

u64 tlb_readers_baselines_closed(void)
{
	return atomic_load_acquire(&baselines_closed);
}

static void reader_main(void *arg)
{
	struct tlb_reader *r = arg;
	u64 gap = arch_tsc_hz() / 1000000 * TR_STOLEN_GAP_US;
	u32 seen = atomic_load_acquire(&trs.phase);
	struct reader_state st = { .set = r->npages[0] ? 0 : 1 };

	st.t0 = st.tlast = arch_tsc_read();
	atomic_store_release(&r->seen, seen);
	while (TR_KIND(seen) != TR_STOP) {
		u32 now;

		reader_chunk(r, &st, gap);
		timing_yield();
		reader_close_baseline(r, seen, &st);
		now = atomic_load_acquire(&trs.phase);
		if (now == seen)
			continue;
		reader_book(r, seen, &st);
		seen = now;
		atomic_store_release(&r->seen, seen);
	}
	atomic_store_release(&r->running, 0);
}

static void set_phase(u32 kind, bool counted)
{
	u32 seq = (atomic_load_relaxed(&trs.phase) >> 3) + 1;

	atomic_store_release(&trs.phase, seq << 3 | (counted ? TR_COUNTED : 0) | kind);
}

/* Waits until every reader satisfies seen == phase (or, for @stopping, has left). */
static int wait_readers(bool stopping)
{
	u64 deadline = arch_tsc_read() + arch_tsc_hz() / 1000 * TR_TIMEOUT_MS;
	u32 phase = atomic_load_acquire(&trs.phase);

	for (unsigned k = 1; k <= trs.nreaders; k++) {
		struct tlb_reader *r = &trs.r[k];

		while (stopping ? atomic_load_acquire(&r->running)
				: atomic_load_acquire(&r->seen) != phase) {
			if (arch_tsc_read() > deadline)
				return -ETIMEDOUT;
			arch_cpu_relax();
		}
	}
	return 0;
}

vaddr_t tlb_readers_priv(const struct tlb_readers_layout *lay, unsigned idx)
{
	vaddr_t slot = lay->priv_base + idx * lay->priv_stride;

	if (lay->priv_stride < (u64)(TLB_READERS_DM_ENTRIES + lay->npriv) * PAGE_SIZE)
		return slot; /* no room to move it within its slot */
	return read_layout_colour(lay->shared, lay->nshared, slot, TLB_READERS_DM_ENTRIES);
}

/* A set that fits the TLB but evicts itself: warned at start, its rate being the layout's. */
static void warn_aliases(const struct tlb_readers_layout *lay, unsigned idx)
{
	unsigned n;

	if (lay->nshared + lay->npriv > TLB_READERS_DM_ENTRIES)
		return;
	n = read_layout_aliases(lay->shared, lay->nshared, tlb_readers_priv(lay, idx), lay->npriv,
				TLB_READERS_DM_ENTRIES);
	if (n)
		printk("# WARN tlb readers: reader %u's %u pages share entries of a %u-entry "
		       "direct-mapped TLB (%u pages)\n", idx, lay->nshared + lay->npriv,
		       TLB_READERS_DM_ENTRIES, n);
}

int tlb_readers_start(const struct bench_ctx *c, const struct tlb_readers_layout *lay)
{
	memset(&trs, 0, sizeof(trs));
	trs.initiator = c->cpu[0];
	for (unsigned idx = 1; idx < c->ncpus; idx++) {
		struct tlb_reader *r = &trs.r[idx];
		int err;

		r->page[0] = (const u64 *)lay->shared;
		r->npages[0] = lay->nshared;
		r->page[1] = (const u64 *)tlb_readers_priv(lay, idx);
		r->npages[1] = lay->npriv;
		r->check = lay->check_shared;
		warn_aliases(lay, idx);
		r->seen = ~0u; /* not a phase: start waits for the reader's first look */
		r->running = 1;
		err = smp_run_async(c->cpu[idx], reader_main, r);
		if (err) {
			r->running = 0;
			tlb_readers_stop();
			return err;
		}
		trs.nreaders = idx;
	}
	return wait_readers(false);
}

int tlb_readers_stop(void)
{
	set_phase(TR_STOP, false);
	return wait_readers(true);
}

int tlb_readers_sync(void)
{
	return wait_readers(false);
}

/* Halts, interrupts on, until the phase is no longer @phase (reader 1 closed the baseline). */
static void halt_while_phase(u32 phase)
{
	unsigned long flags = arch_irq_save();

	while (atomic_load_acquire(&trs.phase) == phase) {
		arch_idle(); /* enables interrupts and halts, losing no wake-up */
		arch_irq_save();
	}
	arch_irq_restore(flags);
}

int tlb_readers_baseline(u64 cycles, bool counted)
{
	u32 phase;

	atomic_store_relaxed(&trs.base_cycles, cycles);
	set_phase(TR_BASELINE, counted);
	phase = atomic_load_relaxed(&trs.phase);
	halt_while_phase(phase);
	return wait_readers(false);
}

/* The lone baseline's waker (tlb_readers_lone_baseline()), and its wake-ups since boot. */
static struct {
	u64 cycles;
	unsigned initiator;
	u32 done;
	u64 wakes;
} lone;

u64 tlb_readers_lone_wakes(void)
{
	return atomic_load_acquire(&lone.wakes);
}

static void lone_waker(void *arg)
{
	u64 t0 = arch_tsc_read();

	(void)arg;
	while (arch_tsc_read() - t0 < lone.cycles)
		timing_yield();
	atomic_fetch_add(&lone.wakes, 1);
	atomic_store_release(&lone.done, 1);
	smp_call_one(lone.initiator, reader_wake, NULL, false);
}

int tlb_readers_lone_baseline(unsigned initiator, u64 cycles)
{
	u64 deadline = arch_tsc_read() + arch_tsc_hz() / 1000 * TR_TIMEOUT_MS;
	unsigned long flags;
	unsigned cpu;
	int err;

	for_each_cpu(cpu, &cpu_online_mask)
		if (cpu != initiator)
			break;
	if (cpu >= MAX_CPUS)
		return 0;
	lone.cycles = cycles;
	lone.initiator = initiator;
	atomic_store_release(&lone.done, 0);
	err = smp_run_async(cpu, lone_waker, NULL);
	flags = arch_irq_save();
	while (!err && !atomic_load_acquire(&lone.done)) {
		arch_idle(); /* enables interrupts and halts, losing no wake-up */
		arch_irq_save();
	}
	arch_irq_restore(flags);
	/* Back to idle before the run, as a case of one CPU has it. */
	while (!err && smp_cpu_running_work(cpu)) {
		if (arch_tsc_read() > deadline)
			return -ETIMEDOUT;
		arch_cpu_relax();
	}
	return err;
}

void tlb_readers_timed_begin(bool counted)
{
	set_phase(TR_TIMED, counted);
}

void tlb_readers_timed_end(void)
{
	set_phase(TR_QUIET, false);
}

u64 tlb_readers_wrong(void)
{
	u64 n = 0;

	for (unsigned k = 1; k <= trs.nreaders; k++)
		n += atomic_load_relaxed(&trs.r[k].wrong);
	return n;
}

void tlb_readers_totals(struct read_window *base, struct read_window *timed)
{
	*base = (struct read_window){ 0 };
	*timed = (struct read_window){ 0 };
	for (unsigned k = 1; k <= trs.nreaders; k++) {
		read_window_add(base, trs.r[k].win[0].reads, trs.r[k].win[0].cycles);
		base->stolen += trs.r[k].win[0].stolen;
		read_window_add(timed, trs.r[k].win[1].reads, trs.r[k].win[1].cycles);
		timed->stolen += trs.r[k].win[1].stolen;
	}
}

/* ---- what the benchmarks around the readers share ---- */

static struct tlb_reader_sums tr_sums[BENCH_MAX_VARIANTS];

int tlb_readers_map_private(const struct bench_ctx *c, struct mm *mm,
			    const struct tlb_readers_layout *lay, unsigned flags)
{
	u64 len = (u64)lay->npriv * PAGE_SIZE;
	int err = 0;

	for (unsigned idx = 1; idx < c->ncpus && !err; idx++) {
		vaddr_t priv = tlb_readers_priv(lay, idx);

		err = mm_map_region(mm, priv, len, flags);
		if (!err)
			err = mm_populate(mm, priv, len);
	}
	return err;
}

u64 tlb_readers_window_cycles(u64 last_run_cycles, unsigned min_us, unsigned max_us)
{
	u64 per_us = MAX(arch_tsc_hz() / 1000000, 1ull);

	return MIN(MAX(last_run_cycles, per_us * min_us), per_us * max_us);
}

void tlb_readers_sums_reset(void)
{
	memset(tr_sums, 0, sizeof(tr_sums));
}

int tlb_readers_finish(const struct bench_ctx *c)
{
	struct tlb_reader_sums *s = &tr_sums[c->variant];
	struct read_window base, timed;

	if (tlb_readers_stop())
		return -ETIMEDOUT;
	if (c->runs_done <= c->warmup)
		return 0; /* no timed run in this episode */
	tlb_readers_totals(&base, &timed);
	if (s->nloss < TLB_READERS_MAX_EPISODES) {
		struct read_window wbase = read_window_whole(&base);
		struct read_window wtimed = read_window_whole(&timed);

		s->loss[s->nloss++] = read_loss_pct_milli(&wbase, &wtimed);
	}
	read_window_add(&s->base, base.reads, base.cycles);
	s->base.stolen += base.stolen;
	read_window_add(&s->timed, timed.reads, timed.cycles);
	s->timed.stolen += timed.stolen;
	s->episodes++;
	s->windows += c->ncpus - 1;
	return 0;
}

const struct tlb_reader_sums *tlb_readers_sums(unsigned v)
{
	return &tr_sums[v];
}
