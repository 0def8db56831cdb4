/*
 * A benchmark's variants are its mechanism's designs (kernel/design.h):
 * the table's entries less the controls, in table order; then `aa`, the
 * reference design (the table's first) run again under a name of its own,
 * an A/A control whose ratio to the reference must include 1; then the
 * bench's null variant and its silent design, if it names them. And the generic half of verify:
 * each design's promises, checked against the exact counters of its runs.
 */
#include "bench/bench_ctx.h"
#include "bench/bench_design.h"
#include "errno.h"

/* Whether @d is a variant of @b: not a control, and one @b measures. */
static bool bench_is_variant(const struct bench *b, const struct design *d)
{
	return !d->control && (!b->runs_design || b->runs_design(d));
}

unsigned bench_ndesigns(const struct bench *b)
{
	unsigned n = 0;

	for (const struct design *const *d = b->designs; *d; d++)
		n += bench_is_variant(b, *d);
	return n;
}

const struct design *bench_design(const struct bench *b, unsigned v)
{
	for (const struct design *const *d = b->designs; *d; d++)
		if (bench_is_variant(b, *d) && v-- == 0)
			return *d;
	return NULL;
}

/* Adds the counters of @list that @out[0..n) lacks; returns the new count. */
static unsigned counters_add_new(const struct pcpu_counter **out, unsigned n,
				 const struct pcpu_counter *const *list)
{
	for (; list && *list; list++) {
		unsigned i = 0;

		while (i < n && out[i] != *list)
			i++;
		if (i == n && n < PCPU_COUNTER_SLOTS)
			out[n++] = *list;
	}
	return n;
}

unsigned bench_counters(const struct bench *b, const struct pcpu_counter **out)
{
	unsigned n = counters_add_new(out, 0, b->counters);

	for (unsigned v = 0; b->designs && v < bench_ndesigns(b); v++)
		n = counters_add_new(out, n, bench_design(b, v)->counters);
	return n;
}

unsigned bench_nvariants(const struct bench *b)
{
	unsigned n = bench_ndesigns(b);

	return n ? n + 1 + (b->null_variant != NULL) + (b->silent_design != NULL) : 0;
}

bool bench_variant_is_aa(const struct bench *b, unsigned v)
{
	return v == bench_ndesigns(b);
}

bool bench_variant_is_null(const struct bench *b, unsigned v)
{
	return b->null_variant && v == bench_ndesigns(b) + 1;
}

bool bench_variant_is_silent(const struct bench *b, unsigned v)
{
	return b->silent_design && v == bench_ndesigns(b) + 1 + (b->null_variant != NULL);
}

const struct design *bench_variant_design(const struct bench *b, unsigned v)
{
	if (bench_variant_is_silent(b, v))
		return b->silent_design;
	return bench_design(b, v < bench_ndesigns(b) ? v : 0);
}

const char *bench_variant_name(const struct bench *b, unsigned v)
{
	if (bench_variant_is_null(b, v))
		return b->null_variant;
	if (bench_variant_is_silent(b, v))
		return b->silent_design->name;
	return bench_variant_is_aa(b, v) ? BENCH_AA_NAME : bench_design(b, v)->name;
}

int bench_check_promises(struct bench_ctx *c, u64 units, u64 targets)
{
	const struct design *d = c->design;
	const struct design_promise *p;

	design_for_each_promise(p, d) {
		u64 got = bench_counter_total(c, p->counter);

		if (design_kept(p, got, c->runs_done, units, targets))
			continue;
		bench_fail(c, "%s promises %s%u %s per %u %s(s)%s (%lu in %lu runs of %lu, %lu targets)",
			   d->name, p->at_most ? "at most " : "", p->count,
			   percpu_counter_name(p->counter), p->per, d->unit,
			   p->per_target ? " per target" : "", (unsigned long)got,
			   (unsigned long)c->runs_done, (unsigned long)units,
			   (unsigned long)targets);
		return -EINVAL;
	}
	return 0;
}
