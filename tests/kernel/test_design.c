/*
 * Tests for the design header (kernel/design.h): a design lists as many
 * promises as it makes (DESIGN_PROMISES, no cap), the helpers see every
 * one and none past the end marker; and the tables its registrations fill.
 */
#include "kernel/design.h"
#include "lib/string.h"
#include "mm/counters.h"
#include "mm/mapping/mapping.h"
#include "mm/pin/pin.h"
#include "mm/swap/swap.h"
#include "mm/tlb/tlb.h"
#include "tests/ktest.h"

/* Six promises: more than the four the old fixed array held. */
static const struct design design_six = {
	.name = "six",
	.unit = "page",
	.promises = DESIGN_PROMISES(PROMISE(PCPU_TLB_SHOOTDOWNS, 0, 1),
				    PROMISE(PCPU_IPI_SENT, 2, 4, .per_target = true),
				    PROMISE(PCPU_IPI_RECEIVED, 1, 1, .per_target = true),
				    PROMISE(PCPU_TLB_FLUSH_ONE, 1, 1, .at_most = true),
				    PROMISE(PCPU_TLB_FLUSH_ALL, 0, 1),
				    PROMISE(PCPU_PAGE_FAULTS, 3, 8)),
};

static const struct design design_none = { .name = "none", .unit = "page" };

static void test_design_promises_uncapped(struct ktest *t)
{
	const struct design_promise *p;
	unsigned n = 0;

	design_for_each_promise(p, &design_six)
		n++;
	KEXPECT_EQ(t, n, 6);
	p = design_promise(&design_six, PCPU_PAGE_FAULTS);
	KASSERT(t, p != NULL);
	KEXPECT_EQ(t, p->count, 3);
	KEXPECT_EQ(t, design_expect(p, 9, 0), 6);
	KEXPECT(t, design_promise(&design_six, PCPU_CALLS_RUN) == NULL);
	/* The first promise of some events sets the group: the second, per 4. */
	KEXPECT_EQ(t, design_group_units(&design_six), 4);
}

static void test_design_promises_none(struct ktest *t)
{
	const struct design_promise *p;
	unsigned n = 0;

	design_for_each_promise(p, &design_none)
		n++;
	KEXPECT_EQ(t, n, 0);
	KEXPECT(t, design_promise(&design_none, PCPU_IPI_SENT) == NULL);
	KEXPECT_EQ(t, design_group_units(&design_none), 0);
}

/* @table holds each design once, naive first, and ends in NULL. */
static void design_table_check(struct ktest *t, const struct design *const *table)
{
	unsigned n = design_count(table);

	KEXPECT(t, n >= 2);
	KEXPECT(t, n < DESIGN_TABLE_SLOTS);
	KEXPECT(t, table[0] && strcmp(table[0]->name, "naive") == 0);
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++)
			KEXPECT(t, strcmp(table[i]->name, table[j]->name) != 0);
}

/* Every mechanism's table, filled from DESIGN_REGISTER; filling again changes nothing. */
static void test_design_tables_filled(struct ktest *t)
{
	const struct design *before[DESIGN_TABLE_SLOTS];

	design_table_check(t, tlb_designs);
	design_table_check(t, pin_flag_designs);
	design_table_check(t, pin_pagemap_designs);
	design_table_check(t, swap_free_designs);
	design_table_check(t, fault_lock_designs);
	memcpy(before, tlb_designs, sizeof(before));
	design_tables_fill();
	KEXPECT(t, memcmp(before, tlb_designs, sizeof(before)) == 0);
}

static const struct ktest_case design_cases[] = {
	KTEST_CASE(test_design_promises_uncapped),
	KTEST_CASE(test_design_promises_none),
	KTEST_CASE(test_design_tables_filled),
};

KTEST_SUITE(design, design_cases);
