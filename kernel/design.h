/*
 * The common header of a mechanism's designs (docs/adding-a-design.md). Each
 * mechanism has one ops type starting with a struct design, and one
 * NULL-terminated table, naive baseline first, that designs join through
 * DESIGN_REGISTER (a linker set). Benchmarks take their variants from it,
 * tests run their suites per entry, and both check each design's promises
 * (exact event counts per unit of work), stated here once. Context: any.
 */
#ifndef KERNEL_DESIGN_H
#define KERNEL_DESIGN_H

#include "compiler.h"
#include "kernel/percpu.h"
#include "linker_sets.h"
#include "types.h"

/*
 * A promise reads "@count events of @counter for every @per units, rounded
 * up, times the targets when @per_target"; @count 0 promises none at all.
 * Batched TLB shootdown, say, promises one PCPU_TLB_SHOOTDOWNS per
 * PT_GATHER_PAGES pages and one PCPU_IPI_SENT per PT_GATHER_PAGES pages per
 * remote CPU.
 */
struct design_promise {
	const struct pcpu_counter *counter;
	u32 count;	 /* may be 0: "none of these, ever" is a promise too */
	u32 per;	 /* units a group holds (0 ends a list); a last, partial group counts */
	bool per_target; /* times the CPUs the work is sent to (the remotes) */
	bool at_most;	 /* an upper bound, not an exact count (once per CPU, say) */
};

struct design {
	const char *name;   /* the BENCH line's variant, a test suite's suffix */
	const char *desc;   /* one line: what this design does differently */
	const char *source; /* the commit or paper it follows */
	const char *unit;   /* what the promises count per: "page", "call", "folio" */
	/*
	 * Wrong on purpose (a detector's control run): tests use it, the
	 * benchmarks never run it.
	 */
	bool control;
	/*
	 * Traits: what a benchmark or test needs to know about a design, so
	 * that none ever tests which design it holds (by name or by ops).
	 * completes_later: its work is complete only after the call returned
	 * (settle before reuse; the BENCH line says so); remotes_flush_at_drain:
	 * the remote CPUs' invalidations happen at their own drains, counted
	 * apart from the flush policy's; counts_ranges: its promises count per
	 * pagemap range a call crosses, not per page; counts_folios: its
	 * promises count per large folio (a call's run of pages in one folio,
	 * whole folios for swap), not per page: the unit it names is "folio".
	 */
	bool completes_later;
	bool remotes_flush_at_drain;
	bool counts_ranges;
	bool counts_folios;
	/* As many as it makes, ended by one with @per 0: DESIGN_PROMISES(). NULL: none. */
	const struct design_promise *promises;
	/*
	 * Counters of its own (DESIGN_COUNTERS(), NULL: none), defined in its
	 * file: every benchmark that runs its table reports them per
	 * operation beside its own list, on every variant's line, so that a
	 * new design's events show without a line in any benchmark.
	 */
	const struct pcpu_counter *const *counters;
};

/* .counters = DESIGN_COUNTERS(PCPU_X, PCPU_Y): the design's own counters. */
#define DESIGN_COUNTERS(...) PCPU_COUNTER_LIST(__VA_ARGS__)

/*
 * One promise: @count events of @counter per @per units, then the flags
 * that are set, by name: PROMISE(PCPU_X, 1, PT_GATHER_PAGES, .per_target = true).
 */
#define PROMISE(c, n, p, ...) { .counter = (c), .count = (n), .per = (p), __VA_ARGS__ }

/*
 * .promises = DESIGN_PROMISES(PROMISE(PCPU_X, 1, 1), ...): the list, in
 * static storage, with its end marker.
 */
#define DESIGN_PROMISES(...) ((const struct design_promise[]){ __VA_ARGS__, { 0 } })

/* Each promise @p of design @d, in order. */
#define design_for_each_promise(p, d) for (p = (d)->promises; p && p->per; p++)

/*
 * A mechanism's table: room for every design registered (the linker holds
 * their sum to DESIGN_SET_MAX), filled by design_tables_fill() in order.
 */
#define DESIGN_TABLE_SLOTS (DESIGN_SET_MAX + 1)

/* One registration: design @d joins @table at place @order. */
struct design_entry {
	const struct design **table;
	const struct design *d;
	unsigned order;
};
BUILD_ASSERT(sizeof(struct design_entry) == DESIGN_ENTRY_BYTES);

/*
 * DESIGN_REGISTER(tlb_designs, tlb_ops_mine, 70), at file scope after the
 * definition of @ops (an ops struct whose first member is a struct design
 * d): @ops joins @table, ordered by @order, smaller first (the baseline,
 * naive, is 0; equal orders keep link order). No list names it elsewhere.
 */
#define DESIGN_REGISTER(table, ops, ord)                                                           \
	static const struct design_entry design_entry_##ops __used __section("design_set")       \
		__aligned(8) = { (table), &(ops).d, (ord) }

/*
 * Fills every mechanism's table from the design_set section; the tables
 * are empty before. Once, first thing in kmain() and in each host test's
 * main(), before anything reads a table; the same result every call.
 */
void design_tables_fill(void);

/* Entries of a NULL-terminated design table. */
static inline unsigned design_count(const struct design *const *table)
{
	unsigned n = 0;

	while (table[n])
		n++;
	return n;
}

/* @d's promise about @counter, or NULL when it makes none. */
static inline const struct design_promise *design_promise(const struct design *d,
							  const struct pcpu_counter *counter)
{
	const struct design_promise *p;

	design_for_each_promise(p, d)
		if (p->counter == counter)
			return p;
	return NULL;
}

/*
 * The units one group of @d's work covers (one round, one queued entry):
 * the @per of its first promise of some events, or 0 when it promises none.
 */
static inline u32 design_group_units(const struct design *d)
{
	const struct design_promise *p;

	design_for_each_promise(p, d)
		if (p->count)
			return p->per;
	return 0;
}

/* Events @p promises for @units of work sent to @targets CPUs. */
static inline u64 design_expect(const struct design_promise *p, u64 units, u64 targets)
{
	u64 groups = (units + p->per - 1) / p->per;

	return groups * p->count * (p->per_target ? targets : 1);
}

/*
 * Whether @got keeps promise @p for @calls calls of @units units each,
 * sent to @targets CPUs (an at-most promise also holds with fewer, but
 * never with none when one was promised per call).
 */
static inline bool design_kept(const struct design_promise *p, u64 got, u64 calls, u64 units,
			       u64 targets)
{
	u64 want = calls * design_expect(p, units, targets);

	if (p->at_most)
		return got <= want && (got > 0 || want == 0);
	return got == want;
}

#endif
