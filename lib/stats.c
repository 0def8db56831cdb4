/*
 * Summary statistics for benchmark runs (see lib/stats.h). The variance sum
 * can exceed 64 bits (a value of 10^12 thousandths squared), so it is kept
 * in 128 bits and reduced with shift-and-subtract division, since the kernel
 * has no libgcc for 128-bit division.
 */
#include "lib/stats.h"
#include "errno.h"
#include "lib/math.h"

typedef unsigned __int128 u128;

static void sift_down(u64 *v, unsigned root, unsigned n)
{
	for (;;) {
		unsigned child = 2 * root + 1;
		u64 tmp;

		if (child >= n)
			return;
		if (child + 1 < n && v[child + 1] > v[child])
			child++;
		if (v[root] >= v[child])
			return;
		tmp = v[root];
		v[root] = v[child];
		v[child] = tmp;
		root = child;
	}
}

void stats_sort(u64 *v, unsigned n)
{
	for (unsigned i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (unsigned end = n; end-- > 1;) {
		u64 tmp = v[0];

		v[0] = v[end];
		v[end] = tmp;
		sift_down(v, 0, end);
	}
}

/* 128-by-64-bit division by shift and subtract. */
static u128 div_u128(u128 num, u64 den)
{
	u128 rem = 0, q = 0;

	for (int bit = 127; bit >= 0; bit--) {
		rem = (rem << 1) | ((num >> bit) & 1);
		if (rem >= den) {
			rem -= den;
			q |= (u128)1 << bit;
		}
	}
	return q;
}

static u64 isqrt_u128(u128 x)
{
	unsigned shift = 0;

	while (x >> 64) {
		x >>= 2;
		shift++;
	}
	return isqrt_u64((u64)x) << shift;
}

int stats_compute(u64 *v, unsigned n, struct stats *s)
{
	u128 sum = 0, sq = 0;

	if (!n)
		return -EINVAL;
	stats_sort(v, n);
	s->n = n;
	s->min = v[0];
	s->max = v[n - 1];
	/* Mean of the middle two without overflowing their sum. */
	s->median = n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
	for (unsigned i = 0; i < n; i++)
		sum += v[i];
	s->mean = (u64)div_u128(sum, n);
	s->stddev = 0;
	if (n < 2)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		u64 d = v[i] > s->mean ? v[i] - s->mean : s->mean - v[i];

		sq += (u128)d * d;
	}
	s->stddev = isqrt_u128(div_u128(sq, n - 1));
	return 0;
}

/* Exact binomial tail: C(n, i) summed in 128 bits, 2^n fits for n <= 120. */
static unsigned median_ci_rank_exact(unsigned n)
{
	u128 total = (u128)1 << n, cum = 0, choose = 1;
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		cum += choose; /* 2^n * P(X <= i) */
		if (cum * 40 > total)
			break;
		k = i + 1;
		choose = div_u128(choose * (n - i), i + 1);
	}
	return k;
}

unsigned stats_median_ci_rank(unsigned n)
{
	u64 spread;

	if (n <= STATS_CI_EXACT_N)
		return median_ci_rank_exact(n);
	/* 0.98 sqrt(n) in thousandths, then n/2 less that, rounded down. */
	spread = 980 * isqrt_u64((u64)n * 1000000) / 1000;
	return (unsigned)((500 * (u64)n - spread) / 1000);
}

int stats_median_ci(const u64 *v, unsigned n, u64 *lo, u64 *hi)
{
	unsigned k;

	if (!n)
		return -EINVAL;
	k = stats_median_ci_rank(n);
	if (!k)
		k = 1;
	*lo = v[k - 1];
	*hi = v[n - k];
	return 0;
}
