/*
 * Summary statistics (lib/stats.c) used for every benchmark result: exact
 * values on small sets, even and odd medians, large values whose squares
 * overflow 64 bits, and the sort. Host and kernel.
 */
#include "errno.h"
#include "lib/stats.h"
#include "tests/ktest.h"

static void test_stats_small_set(struct ktest *t)
{
	u64 v[] = { 5, 1, 4, 2, 3 };
	struct stats s;

	KASSERT_EQ(t, stats_compute(v, 5, &s), 0);
	KEXPECT_EQ(t, s.n, 5);
	KEXPECT_EQ(t, s.min, 1);
	KEXPECT_EQ(t, s.max, 5);
	KEXPECT_EQ(t, s.median, 3);
	KEXPECT_EQ(t, s.mean, 3);
	/* sample variance of 1..5 is 2.5: isqrt gives 1 */
	KEXPECT_EQ(t, s.stddev, 1);
}

static void test_stats_even_median(struct ktest *t)
{
	u64 v[] = { 4000, 1000, 3000, 2000 };
	struct stats s;

	KASSERT_EQ(t, stats_compute(v, 4, &s), 0);
	KEXPECT_EQ(t, s.median, 2500);
	KEXPECT_EQ(t, s.mean, 2500);
	/* sample variance 1666666.67 -> stddev 1290.99 */
	KEXPECT_EQ(t, s.stddev, 1290);
}

static void test_stats_single_and_empty(struct ktest *t)
{
	u64 v[] = { 7 };
	struct stats s;

	KASSERT_EQ(t, stats_compute(v, 1, &s), 0);
	KEXPECT_EQ(t, s.median, 7);
	KEXPECT_EQ(t, s.stddev, 0);
	KEXPECT_EQ(t, stats_compute(v, 0, &s), -EINVAL);
}

static void test_stats_large_values(struct ktest *t)
{
	/* Squares of the deviations (~1e24) overflow 64 bits. */
	u64 v[] = { 1000000000000000ull, 3000000000000000ull, 2000000000000000ull };
	struct stats s;

	KASSERT_EQ(t, stats_compute(v, 3, &s), 0);
	KEXPECT_EQ(t, s.mean, 2000000000000000ull);
	KEXPECT_EQ(t, s.median, 2000000000000000ull);
	/* sample stddev is exactly 1e15; the shifted square root may lose a few low bits */
	KEXPECT_GE(t, s.stddev, 999999990000000ull);
	KEXPECT_LE(t, s.stddev, 1000000000000000ull);
}

static void test_stats_sort(struct ktest *t)
{
	u64 v[64];

	for (unsigned i = 0; i < 64; i++)
		v[i] = (i * 37) % 64;
	stats_sort(v, 64);
	for (unsigned i = 0; i < 64; i++)
		KEXPECT_EQ(t, v[i], i);
}

/*
 * Ranks of the median's 95% interval: the exact binomial values (n = 6: 1,
 * 10: 2, 20: 6, 50: 18, 100: 40, 120: 49), none below 6, and the normal
 * approximation beyond 120 (n = 200: floor(100 - 13.859) = 86).
 */
static void test_stats_median_ci(struct ktest *t)
{
	u64 v[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }, lo, hi;

	KEXPECT_EQ(t, stats_median_ci_rank(5), 0);
	KEXPECT_EQ(t, stats_median_ci_rank(6), 1);
	KEXPECT_EQ(t, stats_median_ci_rank(10), 2);
	KEXPECT_EQ(t, stats_median_ci_rank(20), 6);
	KEXPECT_EQ(t, stats_median_ci_rank(50), 18);
	KEXPECT_EQ(t, stats_median_ci_rank(100), 40);
	KEXPECT_EQ(t, stats_median_ci_rank(120), 49);
	KEXPECT_EQ(t, stats_median_ci_rank(200), 86);
	KASSERT_EQ(t, stats_median_ci(v, 10, &lo, &hi), 0);
	KEXPECT_EQ(t, lo, 2);
	KEXPECT_EQ(t, hi, 9);
	KASSERT_EQ(t, stats_median_ci(v, 3, &lo, &hi), 0);
	KEXPECT_EQ(t, lo, 1);
	KEXPECT_EQ(t, hi, 3);
	KEXPECT_EQ(t, stats_median_ci(v, 0, &lo, &hi), -EINVAL);
}

static const struct ktest_case stats_cases[] = {
	KTEST_CASE(test_stats_small_set),
	KTEST_CASE(test_stats_even_median),
	KTEST_CASE(test_stats_single_and_empty),
	KTEST_CASE(test_stats_large_values),
	KTEST_CASE(test_stats_sort),
	KTEST_CASE(test_stats_median_ci),
};
KTEST_SUITE(stats, stats_cases);
