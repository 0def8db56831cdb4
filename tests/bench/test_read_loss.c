/*
 * Tests of the busy readers' loss arithmetic (bench/read_loss.c): rates,
 * lost cycles and the loss share, for known windows, for a reader that
 * read faster than its baseline (negative loss), for empty windows, and
 * for sums as large as a long run produces. Host and kernel.
 */
#include "bench/read_loss.h"
#include "errno.h"
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

/* One episode's loss against its null: 9000 cycles beside shootdowns, 6000 without: a third. */
static void test_read_loss_episode(struct ktest *t)
{
	KEXPECT_EQ(t, read_episode_loss_milli(9000, 6000), 33333);
	KEXPECT_EQ(t, read_episode_loss_milli(6000, 6000), 0);
	KEXPECT_EQ(t, read_episode_loss_milli(5000, 6000), -20000); /* the null slower: negative */
	KEXPECT_EQ(t, read_episode_loss_milli(0, 6000), 0);
	KEXPECT_EQ(t, read_episode_loss_milli(6000, 0), 0);
}

/*
 * Median and interval of signed per-episode values: six values give the
 * rank-1 interval (their whole range is the 95% one only from six on), an
 * A/A agrees when the intervals overlap, and fails when they do not.
 */
static void test_read_loss_series(struct ktest *t)
{
	const s64 a[6] = { -300, 500, 100, -100, 300, 700 };
	const s64 b[6] = { 800, 900, 1000, 1100, 1200, 1300 };
	u64 scratch[6];
	struct read_series sa, sb, none = { 0 };

	KEXPECT_EQ(t, read_series_summary(a, 0, scratch, &sa), -EINVAL);
	KEXPECT_EQ(t, read_series_summary(a, 6, scratch, &sa), 0);
	KEXPECT(t, sa.n == 6 && sa.median == 200 && sa.lo == -300 && sa.hi == 700);
	KEXPECT_EQ(t, read_series_summary(b, 6, scratch, &sb), 0);
	KEXPECT(t, sb.median == 1050 && sb.lo == 800 && sb.hi == 1300);
	KEXPECT(t, !read_series_agree(&sa, &sb));
	KEXPECT_EQ(t, read_series_summary(b, 3, scratch, &sb), 0); /* 800..1000 */
	KEXPECT(t, !read_series_agree(&sa, &sb));
	sb.lo = 700;
	KEXPECT(t, read_series_agree(&sa, &sb));
	KEXPECT(t, !read_series_agree(&sa, &none));
	KEXPECT(t, read_rate_within(1000000, 1001000, 1000));
	KEXPECT(t, !read_rate_within(1000000, 1001100, 1000));
	KEXPECT(t, read_rate_within(0, 0, 0));
}

/*
 * The tlb bench's readers before their sets were coloured: 32 shared pages
 * after a 512-page range at 0x40000000, 32 private at 0x48100000: in a
 * 64-entry direct-mapped TLB every page shares its entry. Coloured, none.
 */
static void test_read_layout_aliases(struct ktest *t)
{
	vaddr_t shared = 0x40000000ul + 512ul * 4096, priv = 0x48100000ul, moved;

	KEXPECT_EQ(t, read_layout_aliases(shared, 32, priv, 32, 64), 64);
	moved = read_layout_colour(shared, 32, priv, 64);
	KEXPECT_EQ(t, moved, priv + 32ul * 4096);
	KEXPECT_EQ(t, read_layout_aliases(shared, 32, moved, 32, 64), 0);
	KEXPECT_EQ(t, read_layout_aliases(shared, 32, moved, 32, 32), 64); /* too small a TLB */
	KEXPECT_EQ(t, read_layout_aliases(shared + 4096, 32, priv, 32, 64), 62);
	KEXPECT_EQ(t, read_layout_colour(shared + 4096, 32, priv, 64), priv + 33ul * 4096);
	KEXPECT_EQ(t, read_layout_aliases(shared, 32, priv, 32, 48), 0); /* not a power of two */
}

static const struct ktest_case read_loss_cases[] = {
	KTEST_CASE(test_read_loss_episode),
	KTEST_CASE(test_read_loss_series),
	KTEST_CASE(test_read_layout_aliases),
	KTEST_CASE(test_read_loss_stolen),
	KTEST_CASE(test_read_loss_rates),
	KTEST_CASE(test_read_loss_half),
	KTEST_CASE(test_read_loss_negative),
	KTEST_CASE(test_read_loss_empty),
	KTEST_CASE(test_read_loss_large),
};
KTEST_SUITE(read_loss, read_loss_cases);
