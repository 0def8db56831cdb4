/*
 * BENCH lines in mmlab's contract (docs/output.md, bench/bench_result.c):
 * statistics over the timed runs, every sample and its place in the run
 * order, the median's 95% interval by the same order-statistic ranks as
 * lib/stats.c and tools/mmlab/stats.py, and "system" naming the kernel.
 * Also the '# bench FAIL' and skip lines. Called from one thread only.
 */
#include "peer.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int peer_passed, peer_failed, peer_skipped;

void peer_series_init(struct peer_series *s, const char *variant)
{
	memset(s, 0, sizeof(*s));
	s->variant = variant;
}

/* Record one timed run: its value, its run-order position and counters per op. */
void peer_series_add(struct peer_series *s, double value, int seq, const double *counters)
{
	if (s->n >= PEER_MAX_RUNS)
		return;
	s->samples[s->n] = value;
	s->seq[s->n] = seq;
	for (int i = 0; i < s->ncounters && counters; i++)
		s->counter_sums[i] += counters[i];
	s->n++;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of n sorted values. */
double peer_median_sorted(const double *v, int n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* The median of v[0..n), which it sorts (0 when n is 0). */
double peer_median(double *v, int n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(double), cmp_double);
	return peer_median_sorted(v, n);
}

/* The median of a series' samples (0 with none). */
double peer_series_median(const struct peer_series *s)
{
	double sorted[PEER_MAX_RUNS];

	memcpy(sorted, s->samples, sizeof(double) * s->n);
	return peer_median(sorted, s->n);
}

/* Integer square root: the largest r with r * r <= x (lib/math.h's isqrt_u64). */
static uint64_t peer_isqrt(uint64_t x)
{
	uint64_t r = 0, bit = 1ull << 62;

	while (bit > x)
		bit >>= 2;
	for (; bit; bit >>= 2) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
	}
	return r;
}

/*
 * The 1-based rank k of the median's 95% interval [x(k), x(n+1-k)]: the
 * largest k with P(Bin(n, 1/2) < k) <= 2.5%, exact up to 120 runs, the
 * normal approximation above; 0 when n < 6. The same integer arithmetic
 * as lib/stats.c's stats_median_ci_rank, step for step: a floating-point
 * floor(n/2 - 0.98 sqrt(n)) differs from it at n = 126, 176 and 504
 * (tools/tests/test_peer_ranks.py compares the two for n = 1..1000).
 */
int peer_median_ci_rank(int n)
{
	unsigned __int128 total, cum = 0, choose = 1;
	uint64_t spread;
	int k = 0;

	if (n > 120) {
		/* 0.98 sqrt(n) in thousandths, then n/2 less that, rounded down. */
		spread = 980 * peer_isqrt((uint64_t)n * 1000000) / 1000;
		return (int)((500 * (uint64_t)n - spread) / 1000);
	}
	total = (unsigned __int128)1 << n;
	for (int i = 0; i < n; i++) {
		cum += choose; /* 2^n * P(X <= i) */
		if (cum * 40 > total)
			break;
		k = i + 1;
		choose = choose * (unsigned)(n - i) / (unsigned)(i + 1);
	}
	return k;
}

static void print_list(const char *key, const double *d, const int *iv, int n)
{
	printf(",\"%s\":[", key);
	for (int i = 0; i < n; i++) {
		if (d)
			printf("%s%.3f", i ? "," : "", d[i]);
		else
			printf("%s%d", i ? "," : "", iv[i]);
	}
	printf("]");
}

static void print_stats(const struct peer_series *s, double *sorted)
{
	double sum = 0, var = 0, mean, med;
	int n = s->n, k;

	for (int i = 0; i < n; i++)
		sum += sorted[i];
	mean = sum / n;
	for (int i = 0; i < n; i++)
		var += (sorted[i] - mean) * (sorted[i] - mean);
	med = peer_median_sorted(sorted, n);
	k = peer_median_ci_rank(n);
	k = k < 1 ? 1 : k;
	printf(",\"median\":%.3f,\"min\":%.3f,\"max\":%.3f,\"mean\":%.3f,\"stddev\":%.3f", med,
	       sorted[0], sorted[n - 1], mean, n > 1 ? sqrt(var / (n - 1)) : 0.0);
	printf(",\"median_ci\":[%.3f,%.3f]", sorted[k - 1], sorted[n - k]);
}

/* Print the BENCH line of one variant of a case; counts it passed. */
void peer_emit(const struct peer_case *c, const struct peer_series *s)
{
	double sorted[PEER_MAX_RUNS];

	memcpy(sorted, s->samples, sizeof(double) * s->n);
	qsort(sorted, s->n, sizeof(double), cmp_double);
	printf("BENCH {\"bench\":\"%s\",\"variant\":\"%s\",\"cpus\":%d,\"params\":{%s},"
	       "\"metric\":\"%s\",\"unit\":\"%s\",\"better\":\"%s\",\"runs\":%d,\"warmup\":%d,"
	       "\"ops_per_run\":%ld",
	       c->bench, s->variant, c->cpus, c->params, c->metric, c->unit, c->better, s->n,
	       peer_opts.warmup, c->ops_per_run);
	print_stats(s, sorted);
	print_list("samples", s->samples, NULL, s->n);
	print_list("seq", NULL, s->seq, s->n);
	if (c->control_why)
		printf(",\"control\":true,\"control_why\":\"%s\"", c->control_why);
	else
		printf(",\"control\":false");
	printf(",\"system\":\"%s\"", peer_opts.system);
	if (s->count_rejects)
		printf(",\"rejected_runs\":%d", s->rejected);
	if (c->cycles && peer_opts.tsc_hz > 0)
		printf(",\"median_ns\":%.3f",
		       peer_median_sorted(sorted, s->n) * 1e9 / peer_opts.tsc_hz);
	printf(",\"tsc_hz\":%.0f%s%s,\"counters\":{", peer_opts.tsc_hz, c->extra ? c->extra : "",
	       s->extra);
	for (int i = 0; i < s->ncounters; i++)
		printf("%s\"%s\":%.3f", i ? "," : "", s->counter_names[i],
		       s->counter_sums[i] / s->n);
	printf("}}\n");
	fflush(stdout);
	peer_passed++;
}

/* Print '# bench FAIL <bench> <variant> cpus=K <params>: why'; counts it failed. */
void peer_fail(const struct peer_case *c, const char *variant, const char *fmt, ...)
{
	va_list ap;

	printf("# bench FAIL %s %s cpus=%d %s: ", c->bench, variant, c->cpus, c->label);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	peer_failed++;
}

/* Print why a benchmark is not run here; counts it skipped. */
void peer_skip(const char *bench, const char *why)
{
	printf("# bench %s: skipped: %s\n", bench, why);
	fflush(stdout);
	peer_skipped++;
}
