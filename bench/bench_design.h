/*
 * A benchmark's variants, its mechanism's designs (bench/bench_design.c),
 * and the generic half of verify: each design's promises held against the
 * exact counters of its runs.
 */
#ifndef BENCH_BENCH_DESIGN_H
#define BENCH_BENCH_DESIGN_H

#include "bench/bench_types.h"

/* The variants of @b: its table's designs less the controls. */
unsigned bench_ndesigns(const struct bench *b);

/* Variant @v of @b (v < bench_ndesigns(b)). */
const struct design *bench_design(const struct bench *b, unsigned v);

/*
 * The variants a case runs: its designs, then the A/A control "aa", the
 * reference design (bench_design(b, 0)) once more, interleaved with the
 * others like any variant; a benchmark sees it as that design (c->design)
 * under its own c->variant; then the null variant and the silent
 * design, if @b names them. 0 for a bench with no design.
 */
unsigned bench_nvariants(const struct bench *b);
bool bench_variant_is_aa(const struct bench *b, unsigned v);
/* Whether @v is @b's null variant (bench.null_variant), after aa. */
bool bench_variant_is_null(const struct bench *b, unsigned v);
/* Whether @v is @b's silent design (bench.silent_design), the last variant when it has one. */
bool bench_variant_is_silent(const struct bench *b, unsigned v);
/* The design variant @v runs (aa, null: the reference's) and the name its results carry. */
const struct design *bench_variant_design(const struct bench *b, unsigned v);
const char *bench_variant_name(const struct bench *b, unsigned v);

/*
 * verify's generic half: every promise of c->design holds over
 * c->runs_done runs of @units units each, sent to @targets CPUs. Fails @c naming the first broken
 * one and returns -EINVAL, else 0. bench.c.
 */
int bench_check_promises(struct bench_ctx *c, u64 units, u64 targets);

/*
 * The counters @b reports on every BENCH line: its own list, then each of
 * its variants' designs' own (design.counters), each once, in that order.
 * Fills @out (room for PCPU_COUNTER_SLOTS) and returns how many.
 */
unsigned bench_counters(const struct bench *b, const struct pcpu_counter **out);

#endif
