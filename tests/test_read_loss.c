/*
 * Tests of the busy readers' loss arithmetic (bench/read_loss.c): rates,
 * lost cycles and the loss share, for known windows, for a reader that
 * read faster than its baseline (negative loss), for empty windows, and
 * for sums as large as a long run produces. Host and kernel.
 */
#include "bench/read_loss.h"
#include "tests/ktest.h"

#define HZ_2G 2000000000ull

static void test_read_loss_rates(struct ktest *t)
{
	struct read_window w = { 0 };

	KEXPECT_EQ(t, read_rate_per_ms(&w, HZ_2G), 0);
	read_window_add(&w, 1000, 2000000); /* 1000 reads in 1 ms at 2 GHz */
	KEXPECT_EQ(t, read_rate_per_ms(&w, HZ_2G), 1000);
	read_window_add(&w, 3000, 2000000); /* 4000 reads in 2 ms */
	KEXPECT_EQ(t, w.reads, 4000);
	KEXPECT_EQ(t, w.cycles, 4000000);
	KEXPECT_EQ(t, read_rate_per_ms(&w, HZ_2G), 2000);
}

/* Baseline 1 read per 100 cycles; the timed window reads half as fast: half its time lost. */
static void test_read_loss_half(struct ktest *t)
{
	struct read_window base = { 10000, 1000000, 0 }, timed = { 5000, 1000000, 0 };

	KEXPECT_EQ(t, read_lost_cycles(&base, &timed), 500000);
	KEXPECT_EQ(t, read_loss_pct_milli(&base, &timed), 50000);
	timed = (struct read_window){ 10000, 1000000, 0 };
	KEXPECT_EQ(t, read_lost_cycles(&base, &timed), 0);
	KEXPECT_EQ(t, read_loss_pct_milli(&base, &timed), 0);
	timed = (struct read_window){ 0, 1000000, 0 }; /* no read at all: everything lost */
	KEXPECT_EQ(t, read_lost_cycles(&base, &timed), 1000000);
	KEXPECT_EQ(t, read_loss_pct_milli(&base, &timed), 100000);
}

/* Faster than the baseline (noise): the loss is negative, not clamped to zero. */
static void test_read_loss_negative(struct ktest *t)
{
	struct read_window base = { 10000, 1000000, 0 }, timed = { 12000, 1000000, 0 };

	KEXPECT_EQ(t, read_lost_cycles(&base, &timed), -200000);
	KEXPECT_EQ(t, read_loss_pct_milli(&base, &timed), -20000);
}

/* No baseline or no timed window: nothing can be said, 0 rather than a division by zero. */
static void test_read_loss_empty(struct ktest *t)
{
	struct read_window none = { 0 }, some = { 100, 10000, 0 }, no_reads = { 0, 10000, 0 };

	KEXPECT_EQ(t, read_lost_cycles(&none, &some), 0);
	KEXPECT_EQ(t, read_lost_cycles(&some, &none), 0);
	KEXPECT_EQ(t, read_lost_cycles(&no_reads, &some), 0);
	KEXPECT_EQ(t, read_loss_pct_milli(&some, &none), 0);
	KEXPECT_EQ(t, read_loss_pct_milli(&none, &some), 0);
}

/* An hour at 4 GHz over 256 readers: no intermediate product overflows. */
static void test_read_loss_large(struct ktest *t)
{
	u64 cycles = 4000000000ull * 3600 * 256;
	struct read_window base = { cycles / 50, cycles, 0 }, timed = { cycles / 100, cycles, 0 };

	KEXPECT_EQ(t, read_rate_per_ms(&base, 4000000000ull), 80000); /* a read per 50 cycles */
	KEXPECT_EQ(t, read_lost_cycles(&base, &timed), (s64)(cycles / 2));
	KEXPECT_EQ(t, read_loss_pct_milli(&base, &timed), 50000);
}

/* Stolen time is its own share of the window; it changes neither rate nor loss. */
static void test_read_loss_stolen(struct ktest *t)
{
	struct read_window base = { 10000, 1000000, 3000000 }, timed = { 5000, 1000000, 0 };
	struct read_window none = { 0 }, whole;

	KEXPECT_EQ(t, read_stolen_pct_milli(&base), 75000);
	KEXPECT_EQ(t, read_stolen_pct_milli(&timed), 0);
	KEXPECT_EQ(t, read_stolen_pct_milli(&none), 0);
	KEXPECT_EQ(t, read_rate_per_ms(&base, HZ_2G), 20000);
	KEXPECT_EQ(t, read_lost_cycles(&base, &timed), 500000);
	whole = read_window_whole(&base);
	KEXPECT(t, whole.reads == 10000 && whole.cycles == 4000000 && whole.stolen == 0);
	/* A read per 400 wall-clock cycles in the baseline: the timed window looks faster. */
	KEXPECT_EQ(t, read_lost_cycles(&whole, &timed), -1000000);
}

static const struct ktest_case read_loss_cases[] = {
	KTEST_CASE(test_read_loss_stolen),
	KTEST_CASE(test_read_loss_rates),
	KTEST_CASE(test_read_loss_half),
	KTEST_CASE(test_read_loss_negative),
	KTEST_CASE(test_read_loss_empty),
	KTEST_CASE(test_read_loss_large),
};
KTEST_SUITE(read_loss, read_loss_cases);
