/*
 * Tests of the cluster level's get and put calls (mm/swap/swap_cluster.h),
 * the one primitive the freeing designs compose: all or nothing, a range
 * leaving its cluster refused with no lock taken, exact lock round trips,
 * SWAP_HOLD_LAST, and emptied slots released even when not contiguous. Each
 * case makes its own device (tests/mm/swap/test_swap_fixture.c).
 */
#include "tests/test_swap.h"
#include "errno.h"
#include "mm/swap/swap_internal.h"

#define RUN SWAP_FOLIO_SLOTS

/* Lock round trips and freed slots so far on this CPU. */
struct clocks {
	u64 cluster, device, freed;
};

static struct clocks clocks_now(void)
{
	struct clocks c = { swapt_counter(PCPU_SWAP_CLUSTER_LOCKS),
			    swapt_counter(PCPU_SWAP_DEVICE_LOCKS),
			    swapt_counter(PCPU_SWAP_SLOTS_FREED) };
	return c;
}

/* KEXPECTs the round trips and freed slots since @before. */
static void expect_delta(struct ktest *t, struct clocks before, u64 cluster, u64 device, u64 freed)
{
	struct clocks now = clocks_now();

	if (!KEXPECT(t, now.cluster - before.cluster == cluster &&
			    now.device - before.device == device &&
			    now.freed - before.freed == freed))
		ktest_log(t, "cluster %lu device %lu freed %lu, want %lu %lu %lu",
			  (unsigned long)(now.cluster - before.cluster),
			  (unsigned long)(now.device - before.device),
			  (unsigned long)(now.freed - before.freed), (unsigned long)cluster,
			  (unsigned long)device, (unsigned long)freed);
}

/* A device with one run of RUN slots allocated; *@si and *@e name it. */
static bool run_new(struct ktest *t, struct swap_info **si, swp_entry_t *e)
{
	unsigned type;

	if (!swapt_dev_new(t, 4 * SWAP_CLUSTER_SLOTS, &type) ||
	    !KEXPECT_EQ(t, swap_slot_alloc(type, RUN, e), 0))
		return false;
	*si = swap_info_of(type);
	return KEXPECT(t, *si != NULL);
}

/* KEXPECTs map byte @m on each of slots [@from, @to) of @e's run. */
static void expect_map(struct ktest *t, swp_entry_t e, unsigned from, unsigned to, int m)
{
	unsigned i;

	for (i = from; i < to; i++)
		if (!KEXPECT_EQ(t, swap_map_read(swap_entry_next(e, i)), m))
			ktest_log(t, "slot %u", i);
}

/* A range that leaves its cluster, or an empty one, is refused before any lock. */
static void test_swap_cluster_range_refused(struct ktest *t)
{
	struct swap_info *si;
	struct clocks c;
	swp_entry_t e;

	KASSERT(t, run_new(t, &si, &e));
	c = clocks_now();
	KEXPECT_EQ(t, swap_cluster_put_range(si, SWAP_CLUSTER_SLOTS - 8, RUN, SWAP_HOLD_REF),
		   -ERANGE);
	KEXPECT_EQ(t, swap_cluster_put_range(si, SWAP_CLUSTER_SLOTS - 8, RUN, SWAP_HOLD_LAST),
		   -ERANGE);
	KEXPECT_EQ(t, swap_cluster_get_range(si, SWAP_CLUSTER_SLOTS - 1, 2, SWAP_HOLD_REF),
		   -ERANGE);
	KEXPECT_EQ(t, swap_cluster_put_range(si, 0, 0, SWAP_HOLD_REF), -ERANGE);
	KEXPECT_EQ(t, swap_cluster_get_range(si, 0, 0, SWAP_HOLD_CACHE), -ERANGE);
	expect_delta(t, c, 0, 0, 0);
	expect_map(t, e, 0, RUN, 1);
	swapt_expect_consistent(t, swap_entry_type(e));
}

/* A get adds to every slot under one lock, or to none. */
static void test_swap_cluster_get_all_or_nothing(struct ktest *t)
{
	u64 off, errors = swap_errors();
	struct swap_info *si;
	struct clocks c;
	swp_entry_t e;
	unsigned i;

	KASSERT(t, run_new(t, &si, &e));
	off = swap_entry_offset(e);
	c = clocks_now();
	KEXPECT_EQ(t, swap_cluster_get_range(si, off, RUN, SWAP_HOLD_REF), 0);
	expect_delta(t, c, 1, 0, 0);
	expect_map(t, e, 0, RUN, 2);
	for (i = 2; i < SWAP_MAP_MAX; i++)
		KASSERT_EQ(t, swap_dup(swap_entry_next(e, 5), 1), 0);
	c = clocks_now();
	KEXPECT_EQ(t, swap_cluster_get_range(si, off, RUN, SWAP_HOLD_REF), -EOVERFLOW);
	KEXPECT_EQ(t, swap_cluster_get_range(si, off + 6, RUN - 5, SWAP_HOLD_REF), -ENOENT);
	expect_delta(t, c, 2, 0, 0);
	expect_map(t, e, 0, 5, 2);
	expect_map(t, e, 6, RUN, 2);
	KEXPECT_EQ(t, swap_count(swap_entry_next(e, 5)), SWAP_MAP_MAX);
	KEXPECT_EQ(t, swap_cluster_get_range(si, off, RUN, SWAP_HOLD_CACHE), 0);
	KEXPECT_EQ(t, swap_cluster_get_range(si, off + 3, 2, SWAP_HOLD_CACHE), -EEXIST);
	expect_map(t, e, 0, 5, 2 | SWAP_HAS_CACHE);
	KEXPECT_EQ(t, swap_errors(), errors); /* the cluster level reports nothing */
	swapt_expect_consistent(t, swap_entry_type(e));
}

/* A put of references frees the slots it empties, also apart, under one device lock. */
static void test_swap_cluster_put_scattered(struct ktest *t)
{
	struct swap_info *si;
	struct clocks c;
	swp_entry_t e;
	u64 off;
	unsigned i;

	KASSERT(t, run_new(t, &si, &e));
	off = swap_entry_offset(e);
	for (i = 0; i < RUN; i += 4)
		KASSERT_EQ(t, swap_dup(swap_entry_next(e, i), 1), 0);
	c = clocks_now();
	KEXPECT_EQ(t, swap_cluster_put_range(si, off, RUN, SWAP_HOLD_REF), 0);
	expect_delta(t, c, 1, 1, RUN - RUN / 4);
	for (i = 0; i < RUN; i++)
		KEXPECT_EQ(t, swap_map_read(swap_entry_next(e, i)), i % 4 ? 0 : 1);
	swapt_expect_consistent(t, swap_entry_type(e));
	c = clocks_now();
	KEXPECT_EQ(t, swap_cluster_put_range(si, off, RUN, SWAP_HOLD_REF), -ENOENT);
	expect_delta(t, c, 1, 0, 0);
	KEXPECT_EQ(t, swap_map_read(e), 1);
	KEXPECT_EQ(t, swap_cluster_put_range(si, off, 1, SWAP_HOLD_REF), 0);
	expect_delta(t, c, 2, 1, 1);
	swapt_expect_consistent(t, swap_entry_type(e));
}

/* SWAP_HOLD_LAST frees the run only when each slot holds exactly one reference. */
static void test_swap_cluster_put_last(struct ktest *t)
{
	struct swap_info *si;
	struct clocks c;
	swp_entry_t e;
	u64 off;

	KASSERT(t, run_new(t, &si, &e));
	off = swap_entry_offset(e);
	KASSERT_EQ(t, swap_dup(swap_entry_next(e, 7), 1), 0);
	c = clocks_now();
	KEXPECT_EQ(t, swap_cluster_put_range(si, off, RUN, SWAP_HOLD_LAST), -ENOENT);
	expect_delta(t, c, 1, 0, 0); /* refused under the lock */
	KEXPECT_EQ(t, swap_cluster_put_range(si, off + 7, 2, SWAP_HOLD_LAST), -ENOENT);
	expect_delta(t, c, 1, 0, 0); /* the first slot alone refused it, with no lock */
	KEXPECT_EQ(t, swap_cluster_put_range(si, off + 7, 1, SWAP_HOLD_REF), 0);
	KEXPECT_EQ(t, swap_cache_add(swap_entry_next(e, 3), 1), 0);
	KEXPECT_EQ(t, swap_cluster_put_range(si, off, RUN, SWAP_HOLD_LAST), -ENOENT);
	expect_map(t, e, 0, 3, 1);
	KEXPECT_EQ(t, swap_cache_del(swap_entry_next(e, 3), 1), 0);
	c = clocks_now();
	KEXPECT_EQ(t, swap_cluster_put_range(si, off, RUN, SWAP_HOLD_LAST), 0);
	expect_delta(t, c, 1, 1, RUN);
	expect_map(t, e, 0, RUN, 0);
	swapt_expect_consistent(t, swap_entry_type(e));
}

/* Dropping the has-cache flag releases the slots that held nothing else. */
static void test_swap_cluster_put_cache(struct ktest *t)
{
	struct swap_info *si;
	struct clocks c;
	swp_entry_t e;
	u64 off;

	KASSERT(t, run_new(t, &si, &e));
	off = swap_entry_offset(e);
	KASSERT_EQ(t, swap_cache_add(e, RUN), 0);
	KASSERT_EQ(t, swap_cluster_put_range(si, off, RUN / 2, SWAP_HOLD_REF), 0);
	expect_map(t, e, 0, RUN / 2, SWAP_HAS_CACHE);
	c = clocks_now();
	KEXPECT_EQ(t, swap_cluster_put_range(si, off, RUN, SWAP_HOLD_CACHE), 0);
	expect_delta(t, c, 1, 1, RUN / 2);
	expect_map(t, e, 0, RUN / 2, 0);
	expect_map(t, e, RUN / 2, RUN, 1);
	KEXPECT_EQ(t, swap_cluster_put_range(si, off + RUN / 2, 1, SWAP_HOLD_CACHE), -ENOENT);
	swapt_expect_consistent(t, swap_entry_type(e));
}

static const struct ktest_case swap_cluster_cases[] = {
	KTEST_CASE(test_swap_cluster_range_refused),
	KTEST_CASE(test_swap_cluster_get_all_or_nothing),
	KTEST_CASE(test_swap_cluster_put_scattered),
	KTEST_CASE(test_swap_cluster_put_last),
	KTEST_CASE(test_swap_cluster_put_cache),
};
KTEST_SUITE_EXT(swap_cluster, swap_cluster_cases, swapt_init, swapt_exit, NULL);
