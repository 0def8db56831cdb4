/*
 * Summary statistics over a run of measurements, in integer arithmetic (the
 * kernel has no floating point). Values are whatever fixed-point unit the
 * caller chose (benchmarks use thousandths); results are in the same unit.
 */
#ifndef MMLAB_LIB_STATS_H
#define MMLAB_LIB_STATS_H

#include "types.h"

struct stats {
	unsigned n;
	u64 min, max, median, mean;
	u64 stddev; /* sample standard deviation (n - 1); 0 when n < 2 */
};

/*
 * Summarises @v[0..n) into @s, sorting @v in place. The median of an even
 * count is the mean of the middle two. Returns 0, or -EINVAL when n == 0.
 */
int stats_compute(u64 *v, unsigned n, struct stats *s);

/*
 * The distribution-free 95% confidence interval of the median of @n
 * samples is [v(k), v(n+1-k)] (1-based order statistics) for the k this
 * returns: the largest k with P(Bin(n, 1/2) < k) <= 2.5%, exact for n up
 * to STATS_CI_EXACT_N and from the normal approximation
 * floor(n/2 - 0.98 sqrt(n)) above. 0 when n < 6: no interval of the
 * samples reaches 95% then (tools/mmlab/stats.py computes the same).
 */
#define STATS_CI_EXACT_N 120
unsigned stats_median_ci_rank(unsigned n);

/*
 * The 95% confidence interval of the median of the sorted @v[0..n) into
 * @lo and @hi (the whole range when n < 6). Returns 0, or -EINVAL when n == 0.
 */
int stats_median_ci(const u64 *v, unsigned n, u64 *lo, u64 *hi);

/* Sorts @v[0..n) ascending (heapsort: no recursion, no allocation). */
void stats_sort(u64 *v, unsigned n);

#endif
