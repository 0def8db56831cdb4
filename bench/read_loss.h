/*
 * What busy readers lose while another CPU unmaps pages (bench/bench_tlb.c):
 * a reader counts its reads and TSC cycles in a baseline window and in the
 * timed window; the difference of rates, turned into cycles, is the time
 * the shootdowns (the IPIs and the TLB refills after them) took from it.
 * Pure integer arithmetic, no locks: built for the kernel and the host.
 */
#ifndef BENCH_READ_LOSS_H
#define BENCH_READ_LOSS_H

#include "types.h"

/*
 * Reads done in a window of @cycles TSC cycles of running time, plus the
 * @stolen cycles the reader's CPU was not running at all (a descheduled
 * vCPU), kept apart so they count as neither reading nor loss. Sums over
 * runs and readers are fine.
 */
struct read_window {
	u64 reads;
	u64 cycles;
	u64 stolen;
};

/* Adds @reads and @cycles to @w. */
void read_window_add(struct read_window *w, u64 reads, u64 cycles);

/* Cycles per 1,000 reads in @w; 0 for an empty window. */
u64 read_cycles_per_kread(const struct read_window *w);

/* Reads per millisecond in @w at @tsc_hz; 0 for an empty window. */
u64 read_rate_per_ms(const struct read_window *w, u64 tsc_hz);

/*
 * Cycles of @timed the readers did not spend reading at @base's rate:
 * timed.cycles - timed.reads * (base.cycles / base.reads). Negative when
 * they read faster than in the baseline (noise); 0 when either window is
 * empty.
 */
s64 read_lost_cycles(const struct read_window *base, const struct read_window *timed);

/* read_lost_cycles() as thousandths of a percent of timed.cycles (12345: 12.345%). */
s64 read_loss_pct_milli(const struct read_window *base, const struct read_window *timed);

/* @w with its stolen cycles counted as running ones: the window as a wall clock saw it. */
struct read_window read_window_whole(const struct read_window *w);

/* Stolen cycles as thousandths of a percent of the whole window (running + stolen). */
u64 read_stolen_pct_milli(const struct read_window *w);

/*
 * One episode's loss: the share of @timed (the readers' cycles for their
 * fixed work beside the design's shootdowns) by which it exceeds @null
 * (the same work in the same episode where no shootdown can happen), in
 * thousandths of a percent; negative when the null took longer; 0 when
 * either is 0.
 */
s64 read_episode_loss_milli(u64 timed, u64 null);

/* A per-episode figure over a case's episodes: median and its 95% interval. */
struct read_series {
	unsigned n;
	s64 median, lo, hi; /* lo..hi: the whole range below 6 episodes (lib/stats.h) */
};

/* Summarises the signed @v[0..n) into @out, @scratch holding n values. 0, or -EINVAL for n == 0. */
int read_series_summary(const s64 *v, unsigned n, u64 *scratch, struct read_series *out);

/* Whether the intervals of @a and @b overlap: an A/A control agreeing with its reference. */
bool read_series_agree(const struct read_series *a, const struct read_series *b);

/* Whether @a and @b differ by at most @ppm millionths of the larger. */
bool read_rate_within(u64 a, u64 b, u64 ppm);

/* Largest direct-mapped TLB read_layout_aliases() models (entries). */
#define READ_LAYOUT_MAX_ENTRIES 1024

/*
 * A reader's working set, @ns pages from @shared and @np from @priv (page
 * aligned), in a direct-mapped TLB of @entries entries (a power of two up
 * to READ_LAYOUT_MAX_ENTRIES) indexed by the page number: how many of its
 * pages share their entry with another of them, so evict each other on
 * every sweep and make the readers' rate a property of the layout.
 */
unsigned read_layout_aliases(vaddr_t shared, unsigned ns, vaddr_t priv, unsigned np,
			     unsigned entries);

/*
 * Where a private set meant for @priv goes so that, in such a TLB of
 * @entries, it takes the entries right after the @ns shared pages at
 * @shared: @priv moved up by less than @entries pages.
 */
vaddr_t read_layout_colour(vaddr_t shared, unsigned ns, vaddr_t priv, unsigned entries);

#endif
