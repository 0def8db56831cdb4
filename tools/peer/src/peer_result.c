/*
 * BENCH lines in mmlab's contract (docs/output.md, bench/bench_result.c):
 * statistics over the timed runs, every sample and its place in the run
 * order, the median's 95% interval by the same order-statistic ranks as
 * lib/stats.c and tools/mmlab_stats.py, and "system" naming the kernel.
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

/*
 * The 1-based rank k of the median's 95% interval [x(k), x(n+1-k)]: the
 * largest k with P(Bin(n, 1/2) < k) <= 2.5%, exact up to 120 runs (in
 * long double: C(120, 60) fits its mantissa's range), the normal
 * approximation above; 0 when n < 6.
 */
int peer_median_ci_rank(int n)
{
	if (n > 120)
		return (int)floor(n / 2.0 - 0.98 * sqrt((double)n));
	long double total = powl(2.0L, n), cum = 0, choose = 1;
	int k = 0;

	for (int i = 0; i < n; i++) {
		cum += choose;
		if (cum * 40 > total)
			break;
		k = i + 1;
		choose = choose * (n - i) / (i + 1);
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
	if (c->cycles && peer_opts.tsc_hz > 0)
		printf(",\"median_ns\":%.3f",
		       peer_median_sorted(sorted, s->n) * 1e9 / peer_opts.tsc_hz);
	printf(",\"tsc_hz\":%.0f%s,\"counters\":{", peer_opts.tsc_hz, c->extra ? c->extra : "");
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
