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

#endif
