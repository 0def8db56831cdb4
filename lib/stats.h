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

/* Sorts @v[0..n) ascending (heapsort: no recursion, no allocation). */
void stats_sort(u64 *v, unsigned n);

#endif
