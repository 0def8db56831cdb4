/*
 * The result lines of the benchmark harness (see bench/bench_result.h):
 * a BENCH {json} line per variant of a case, with its statistics, every
 * sample, the run order and the median's confidence interval, and the
 * MMLAB-LAVA line with format=lava. Boot CPU only, after a case's runs.
 */
#include "bench/bench_result.h"
#include "bench/placement.h"
#include "kernel/cmdline.h"
#include "kernel/json.h"
#include "kernel/printk.h"
#include "kernel/timing.h"
#include "lib/format.h"
#include "lib/math.h"
#include "lib/stats.h"
#include "lib/string.h"
#include <arch/arch.h>

/* A BENCH line with every sample: up to 2 x BENCH_MAX_RUNS numbers of ~20 characters. */
static char line[65536];
static u64 sorted[BENCH_MAX_RUNS];
static u64 kept[BENCH_MAX_RUNS];
static bool lost[BENCH_MAX_RUNS];

/*
 * Time mode: a run where the guest lost its CPU to the host (a deschedule)
 * lies further from the median, on the worse side, than LOST_CPU_SPREADS
 * times the runs' own spread (their median absolute deviation) and than
 * LOST_CPU_PCT of the median: no design varies like that run to run.
 */
#define LOST_CPU_SPREADS 10
#define LOST_CPU_PCT 50
static bool results_as_diagnostics;

void bench_set_diagnostic_results(bool on)
{
	results_as_diagnostics = on;
}

static const char *metric_name(const struct bench *b)
{
	if (timing_exact())
		return b->exact_metric_name ? b->exact_metric_name : "instructions_per_op";
	static const char *const names_[] = {
		[BENCH_CYCLES_PER_OP] = "cycles_per_op",
		[BENCH_US_PER_RUN] = "us_per_run",
		[BENCH_BYTES_PER_MS] = "bytes_per_ms",
		[BENCH_OPS_PER_SEC] = "ops_per_sec",
	};

	return b->metric_name ? b->metric_name : names_[b->metric];
}

static const char *metric_unit(const struct bench *b)
{
	if (timing_exact())
		return "instructions";
	static const char *const units[] = {
		[BENCH_CYCLES_PER_OP] = "cycles",
		[BENCH_US_PER_RUN] = "us",
		[BENCH_BYTES_PER_MS] = "bytes/ms",
		[BENCH_OPS_PER_SEC] = "ops/s",
	};

	return b->unit ? b->unit : units[b->metric];
}

static bool higher_is_better(const struct bench *b)
{
	if (timing_exact()) /* instructions: fewer is better */
		return false;
	return b->metric == BENCH_BYTES_PER_MS || b->metric == BENCH_OPS_PER_SEC;
}

void bench_case_label(const struct bench_ctx *c, char *buf, size_t size, char sep, char eq)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < BENCH_MAX_PARAMS && c->b->param_names[i] && n + 1 < size; i++) {
		const char *const *words = c->b->param_words[i];
		u64 v = c->bcase->param[i];

		if (i) {
			buf[n++] = sep;
			buf[n] = '\0';
		}
		if (words)
			n += fmt_snprintf(buf + n, size - n, "%s%c%s", c->b->param_names[i], eq,
					  words[v]);
		else
			n += fmt_snprintf(buf + n, size - n, "%s%c%lu", c->b->param_names[i], eq,
					  (unsigned long)v);
	}
}

bool bench_case_is_headline(const struct bench_ctx *c)
{
	for (unsigned i = 0; i < BENCH_MAX_PARAMS && c->b->param_names[i]; i++)
		if (c->bcase->param[i] != c->b->headline.param[i])
			return false;
	return true;
}

static void json_params(struct json *j, const struct bench_ctx *c)
{
	json_object_begin(j, "params");
	for (unsigned i = 0; i < BENCH_MAX_PARAMS && c->b->param_names[i]; i++) {
		const char *const *words = c->b->param_words[i];

		if (words)
			json_str(j, c->b->param_names[i], words[c->bcase->param[i]]);
		else
			json_u64(j, c->b->param_names[i], c->bcase->param[i]);
	}
	json_object_end(j);
}

/*
 * Each counter bench_counters() lists, per operation (or per counter_unit),
 * over every timed run, in thousandths.
 */
static void json_counters(struct json *j, const struct bench_ctx *c, const struct variant_runs *vr)
{
	const u64 *counter_sum = vr->counter_sum;
	unsigned runs = vr->n;
	const char *unit = c->b->counter_unit ? c->b->counter_unit : "op";
	u64 unit_ops = c->b->counter_unit ? MAX(c->b->counter_unit_ops, 1ull) : 1;
	const struct pcpu_counter *listed[PCPU_COUNTER_SLOTS];
	unsigned nlisted = bench_counters(c->b, listed);
	char key[48];

	json_object_begin(j, "counters");
	for (unsigned i = 0; i < nlisted; i++) {
		const struct pcpu_counter *k = listed[i];
		u64 sum = counter_sum[pcpu_counter_index(k)];
		u64 per_unit = mul_div_u64(sum, 1000 * unit_ops, MAX(c->ops * runs, 1ull));

		fmt_snprintf(key, sizeof(key), "%s_per_%s", percpu_counter_name(k), unit);
		json_fixed(j, key, (s64)per_unit, 3);
	}
	json_object_end(j);
}

static void json_stats(struct json *j, const struct stats *st)
{
	json_fixed(j, "median", (s64)st->median, 3);
	json_fixed(j, "min", (s64)st->min, 3);
	json_fixed(j, "max", (s64)st->max, 3);
	json_fixed(j, "mean", (s64)st->mean, 3);
	json_fixed(j, "stddev", (s64)st->stddev, 3);
}

/* @v[0..n) as an array of thousandths, in the order the runs were made. */
static void json_samples(struct json *j, const char *key, const u64 *v, unsigned n)
{
	json_array_begin(j, key);
	for (unsigned i = 0; i < n; i++)
		json_elem_fixed(j, (s64)v[i], 3);
	json_array_end(j);
}

static u64 absdiff(u64 a, u64 b)
{
	return a > b ? a - b : b - a;
}

unsigned bench_lost_cpu(const struct bench *b, const u64 *v, unsigned n, bool *out)
{
	u64 med, mad, bound;
	unsigned count = 0;
	struct stats st;

	memcpy(sorted, v, n * sizeof(*v));
	stats_compute(sorted, n, &st);
	med = st.median;
	for (unsigned i = 0; i < n; i++)
		sorted[i] = absdiff(v[i], med);
	stats_compute(sorted, n, &st);
	mad = st.median;
	bound = MAX(mad * LOST_CPU_SPREADS, med * LOST_CPU_PCT / 100);
	for (unsigned i = 0; i < n; i++) {
		bool worse = higher_is_better(b) ? v[i] < med : v[i] > med;

		out[i] = !timing_exact() && worse && absdiff(v[i], med) > bound;
		count += out[i];
	}
	return count;
}

/* bench_lost_cpu() into lost[]; the other runs into kept[]. Returns how many were kept. */
static unsigned lost_cpu_filter(const struct bench *b, const u64 *v, unsigned n)
{
	unsigned k = 0;

	bench_lost_cpu(b, v, n, lost);
	for (unsigned i = 0; i < n; i++)
		if (!lost[i])
			kept[k++] = v[i];
	return k;
}

/* The runs lost_cpu_filter() set apart: how many, and which (indices into "samples"). */
static void json_lost_cpu(struct json *j, unsigned n)
{
	unsigned count = 0;

	for (unsigned i = 0; i < n; i++)
		count += lost[i];
	json_u64(j, "lost_cpu_runs", count);
	if (!count)
		return;
	json_array_begin(j, "lost_cpu_samples");
	for (unsigned i = 0; i < n; i++)
		if (lost[i])
			json_elem_u64(j, i);
	json_array_end(j);
}

/* Statistics of @v[0..n) (into @st) and the 95% interval of its median, from a sorted copy. */
static void json_stats_ci(struct json *j, const u64 *v, unsigned n, struct stats *st)
{
	u64 lo, hi;

	memcpy(sorted, v, n * sizeof(*v));
	stats_compute(sorted, n, st);
	stats_median_ci(sorted, n, &lo, &hi);
	json_stats(j, st);
	json_array_begin(j, "median_ci");
	json_elem_fixed(j, (s64)lo, 3);
	json_elem_fixed(j, (s64)hi, 3);
	json_array_end(j);
}

/* The second phase's statistics and samples, as an object named after it. */
static void json_phase2(struct json *j, const struct bench_ctx *c, const struct variant_runs *vr)
{
	struct stats st2;

	if (!c->b->run_phase2)
		return;
	json_object_begin(j, timing_exact() && c->b->exact_phase2_name ? c->b->exact_phase2_name
								    : c->b->phase2_name);
	json_stats_ci(j, vr->sample2, vr->n, &st2);
	json_samples(j, "samples", vr->sample2, vr->n);
	json_object_end(j);
}

/*
 * How the runs were ordered; whether the row is the A/A control (the
 * reference design run again: "control":true, "control_kind":"aa"); and
 * whether the case's designs, different code doing the same work, are
 * "expected_near_1" (bench.h, control()): that is no control.
 */
static void json_design(struct json *j, struct bench_ctx *c, const struct variant_runs *vr,
			u32 seed)
{
	const char *near = c->b->control ? c->b->control(c) : NULL;
	bool aa = bench_variant_is_aa(c->b, c->variant);

	json_u64(j, "seed", seed);
	json_array_begin(j, "seq");
	for (unsigned i = 0; i < vr->n; i++)
		json_elem_u64(j, vr->seq[i]);
	json_array_end(j);
	json_bool(j, "control", aa);
	if (aa) {
		json_str(j, "control_kind", "aa");
		json_str(j, "control_why", "A/A: the reference design run again as a variant");
		json_str(j, "reference", c->design->name);
	}
	if (near)
		json_str(j, "expected_near_1", near);
}

/* "placement", then the case's CPUs in idx order and each one's [node,socket,core,thread]. */
static void json_placement(struct json *j, const struct bench_ctx *c)
{
	json_str(j, "placement", placement_name(bench_placement));
	json_array_begin(j, "cpu_list");
	for (unsigned idx = 0; idx < c->ncpus; idx++)
		json_elem_u64(j, c->cpu[idx]);
	json_array_end(j);
	json_array_begin(j, "where");
	for (unsigned idx = 0; idx < c->ncpus; idx++) {
		struct arch_cpu_pos p = arch_cpu_where(c->cpu[idx]);

		json_elem_row_begin(j);
		json_elem_u64(j, p.node);
		json_elem_u64(j, p.socket);
		json_elem_u64(j, p.core);
		json_elem_u64(j, p.thread);
		json_elem_row_end(j);
	}
	json_array_end(j);
	if (c->mem_node < 0)
		return;
	json_str(j, "mem_node_asked", bench_mem_node == MEM_NODE_REMOTE ? "remote" : "local");
	json_u64(j, "mem_node", (u64)c->mem_node);
	if (c->mem_node_alone)
		json_str(j, "mem_node_note", "remote = local: no other node has memory");
}

/* What the case is and how it ran: the fields before the statistics. */
static void json_identity(struct json *j, const struct bench_ctx *c, const struct variant_runs *vr)
{
	const struct bench *b = c->b;

	json_str(j, "bench", b->name);
	json_str(j, "variant", bench_variant_name(b, c->variant));
	json_u64(j, "cpus", c->ncpus);
	json_placement(j, c);
	json_params(j, c);
	json_str(j, "metric", metric_name(b));
	json_str(j, "unit", metric_unit(b));
	json_str(j, "better", higher_is_better(b) ? "higher" : "lower");
	json_u64(j, "runs", vr->n);
	json_u64(j, "warmup", c->warmup);
	json_u64(j, "ops_per_run", c->ops);
	json_str(j, "title", b->title);
	json_bool(j, "headline", bench_case_is_headline(c));
	if (!arch_spin_pause) /* a like-for-like row against a peer that does not pause */
		json_str(j, "spin_pause", "off");
}

u64 bench_print_result(struct bench_ctx *c, const struct variant_runs *vr, u32 seed)
{
	const struct bench *b = c->b;
	const char *tag = results_as_diagnostics ? "# result " : "BENCH ";
	size_t tag_len = strlen(tag);
	struct stats st;
	struct json j;
	int len;

	/* The tag goes in the same buffer: one console write, never split by another CPU. */
	memcpy(line, tag, tag_len);
	json_begin(&j, line + tag_len, sizeof(line) - tag_len - 1);
	json_identity(&j, c, vr);
	/* The statistics leave out runs that lost the CPU; "samples" keeps every run. */
	json_stats_ci(&j, kept, lost_cpu_filter(b, vr->sample, vr->n), &st);
	json_samples(&j, "samples", vr->sample, vr->n);
	json_lost_cpu(&j, vr->n);
	json_phase2(&j, c, vr);
	json_design(&j, c, vr, seed);
	if (b->metric == BENCH_CYCLES_PER_OP && !timing_exact())
		json_fixed(&j, "median_ns",
			   (s64)mul_div_u64(st.median, 1000000000u, arch_tsc_hz()), 3);
	json_u64(&j, "tsc_hz", arch_tsc_hz());
	/* report() reads the counters of one episode, as before interleaving. */
	memcpy(c->counter_total, vr->last_total, sizeof(c->counter_total));
	c->runs_done = vr->last_runs_done;
	if (b->report)
		b->report(c, &j, st.median);
	json_counters(&j, c, vr);
	len = json_end(&j);
	if (len < 0) {
		printk("# WARN bench: result line too long for %s\n", b->name);
		return st.median;
	}
	line[tag_len + (size_t)len] = '\n';
	printk_write(line, tag_len + (size_t)len + 1);
	return st.median;
}

void bench_print_lava(const struct bench_ctx *c, bool pass, u64 median, const struct options *opt)
{
	char label[128], value[32];

	if (opt->format != OPT_FORMAT_LAVA || results_as_diagnostics)
		return;
	bench_case_label(c, label, sizeof(label), '-', '-');
	fmt_fixed(value, sizeof(value), (s64)median, 3);
	printk("MMLAB-LAVA test_case_id=%s-%s-cpus%u%s%s result=%s measurement=%s units=%s\n",
	       c->b->name, bench_variant_name(c->b, c->variant), c->ncpus, label[0] ? "-" : "",
	       label, pass ? "pass" : "fail", pass ? value : "0", metric_unit(c->b));
}
