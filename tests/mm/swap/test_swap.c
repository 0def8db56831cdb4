/*
 * Tests of the swap slot allocator (mm/swap/swap.h): entry encoding, aligned
 * runs, cluster list transitions, each CPU's current cluster, -ENOSPC that
 * changes nothing, references and the has-cache flag with all-or-nothing
 * rollback, swap_on/swap_off, and the consistency check itself. Each case
 * makes its own devices (tests/mm/swap/test_swap_fixture.c).
 */
#include "tests/test_swap.h"
#include "errno.h"
#include "lib/string.h"
#include "mm/pmm.h"
#include "mm/swap/swap_internal.h"

#define SLOTS_4C (4 * SWAP_CLUSTER_SLOTS)
#define RUN SWAP_FOLIO_SLOTS

/* ---- helpers ---- */

static u32 cluster_of(swp_entry_t e)
{
	return (u32)(swap_entry_offset(e) / SWAP_CLUSTER_SLOTS);
}

static struct swap_stats stats_of(unsigned type)
{
	struct swap_stats s = { 0 };

	swap_stats_get(type, &s);
	return s;
}

/* KEXPECTs the device's list lengths. */
static bool expect_lists(struct ktest *t, unsigned type, u32 free, u32 nonfull, u32 frag, u32 full)
{
	struct swap_stats s = stats_of(type);
	bool ok = s.free_clusters == free && s.nonfull_clusters == nonfull &&
		  s.frag_clusters == frag && s.full_clusters == full;

	if (!KEXPECT(t, ok))
		ktest_log(t, "lists free %u nonfull %u frag %u full %u, want %u %u %u %u",
			  s.free_clusters, s.nonfull_clusters, s.frag_clusters, s.full_clusters,
			  free, nonfull, frag, full);
	return ok && swapt_expect_consistent(t, type);
}

/* Allocates runs of @nr until -ENOSPC; returns how many, storing up to @max entries. */
static unsigned fill_runs(unsigned type, unsigned nr, swp_entry_t *out, unsigned max)
{
	swp_entry_t e;
	unsigned n = 0;

	while (swap_slot_alloc(type, nr, &e) == 0) {
		if (n < max)
			out[n] = e;
		n++;
	}
	return n;
}

/* ---- cases ---- */

static void test_swap_entry_encoding(struct ktest *t)
{
	swp_entry_t e = swap_entry_make(3, 12345), d = { 0 };
	u64 w = swap_entry_to_word(e), max_off = (1ull << SWP_OFFSET_BITS) - 1;

	KEXPECT_EQ(t, swap_entry_type(e), 3);
	KEXPECT_EQ(t, swap_entry_offset(e), 12345);
	KEXPECT_EQ(t, w & 1, 0); /* never a present page-table entry */
	KEXPECT_NE(t, swap_entry_to_word(swap_entry_make(0, 0)), 0); /* never an empty one */
	KEXPECT(t, swap_entry_from_word(w, &d) && d.val == e.val);
	KEXPECT(t, !swap_entry_from_word(0, &d));
	KEXPECT(t, !swap_entry_from_word(w | 1, &d));
	KEXPECT(t, !swap_entry_from_word(w | (1ull << 63), &d));
	KEXPECT_EQ(t, swap_entry_offset(swap_entry_make(SWAP_MAX_DEVS - 1, max_off)), max_off);
	KEXPECT_EQ(t, swap_entry_type(swap_entry_make(SWAP_MAX_DEVS - 1, max_off)),
		   SWAP_MAX_DEVS - 1);
	KEXPECT_EQ(t, swap_entry_offset(swap_entry_next(e, 5)), 12350);
	KEXPECT_EQ(t, swap_entry_type(swap_entry_next(e, 5)), 3);
}

static void test_swap_alloc_bad_args(struct ktest *t)
{
	unsigned type, gone;
	swp_entry_t e;

	KASSERT(t, swapt_dev_new(t, SLOTS_4C, &type));
	KASSERT_EQ(t, swap_on_ram(SWAP_CLUSTER_SLOTS, &gone), 0);
	KASSERT_EQ(t, swap_off(gone), 0);
	KEXPECT_EQ(t, swap_slot_alloc(gone, 1, &e), -EINVAL);
	KEXPECT_EQ(t, swap_slot_alloc(SWAP_MAX_DEVS, 1, &e), -EINVAL);
	KEXPECT_EQ(t, swap_slot_alloc(type, 0, &e), -EINVAL);
	KEXPECT_EQ(t, swap_slot_alloc(type, 3, &e), -EINVAL);
	KEXPECT_EQ(t, swap_slot_alloc(type, 2 * SWAP_CLUSTER_SLOTS, &e), -EINVAL);
	KEXPECT_EQ(t, stats_of(type).inuse, 0);
}

/* Every run of every size is aligned, inside one cluster, with count 1 on each slot. */
static void test_swap_alloc_runs_aligned(struct ktest *t)
{
	unsigned type, order, i;
	swp_entry_t e;

	KASSERT(t, swapt_dev_new(t, SLOTS_4C, &type));
	for (order = 0; order < SWAP_NR_ORDERS; order++) {
		unsigned nr = 1u << order;
		u64 off;

		KASSERT_EQ(t, swap_slot_alloc(type, nr, &e), 0);
		off = swap_entry_offset(e);
		KEXPECT_EQ(t, off % nr, 0);
		KEXPECT_EQ(t, off / SWAP_CLUSTER_SLOTS, (off + nr - 1) / SWAP_CLUSTER_SLOTS);
		for (i = 0; i < nr; i++)
			KEXPECT_EQ(t, swap_map_read(swap_entry_next(e, i)), 1);
		KEXPECT_EQ(t, stats_of(type).inuse, nr);
		KEXPECT_EQ(t, swap_free_ops_naive.free(e, nr), 0);
		swapt_expect_consistent(t, type);
	}
}

/* Filling the device with 16-slot runs uses every slot once, then -ENOSPC. */
static void test_swap_alloc_fill_runs(struct ktest *t)
{
	static swp_entry_t runs[SLOTS_4C / RUN];
	static u8 seen[SLOTS_4C];
	unsigned type, i, j, n;

	KASSERT(t, swapt_dev_new(t, SLOTS_4C, &type));
	memset(seen, 0, sizeof(seen));
	n = fill_runs(type, RUN, runs, ARRAY_SIZE(runs));
	KASSERT_EQ(t, n, SLOTS_4C / RUN);
	for (i = 0; i < n; i++) {
		KEXPECT_EQ(t, swap_entry_offset(runs[i]) % RUN, 0);
		for (j = 0; j < RUN; j++)
			seen[swap_entry_offset(runs[i]) + j]++;
	}
	for (i = 0; i < SLOTS_4C; i++)
		KASSERT_EQ(t, seen[i], 1);
	expect_lists(t, type, 0, 0, 0, 4);
	for (i = 0; i < n; i++)
		KEXPECT_EQ(t, swap_free_ops_naive.free(runs[i], RUN), 0);
	expect_lists(t, type, 4, 0, 0, 0);
}

/* free -> non-full -> full -> non-full -> free, one cluster at a time. */
static void test_swap_cluster_lists(struct ktest *t)
{
	swp_entry_t runs[SWAP_CLUSTER_SLOTS / RUN];
	unsigned type, i, n = ARRAY_SIZE(runs);

	KASSERT(t, swapt_dev_new(t, SLOTS_4C, &type));
	expect_lists(t, type, 4, 0, 0, 0);
	KASSERT_EQ(t, swap_slot_alloc(type, RUN, &runs[0]), 0);
	expect_lists(t, type, 3, 1, 0, 0);
	for (i = 1; i < n; i++) {
		KASSERT_EQ(t, swap_slot_alloc(type, RUN, &runs[i]), 0);
		KEXPECT_EQ(t, cluster_of(runs[i]), cluster_of(runs[0]));
	}
	expect_lists(t, type, 3, 0, 0, 1);
	KEXPECT_EQ(t, swap_free_ops_naive.free(runs[5], RUN), 0);
	expect_lists(t, type, 3, 1, 0, 0);
	for (i = 0; i < n; i++)
		if (i != 5)
			KEXPECT_EQ(t, swap_free_ops_naive.free(runs[i], RUN), 0);
	expect_lists(t, type, 4, 0, 0, 0);
}

/*
 * A cluster with free slots but no aligned 16-slot run goes to the frag
 * list when a run is sought in it, serves single slots there, and returns
 * to its non-full list when a run of it is freed.
 */
static void test_swap_cluster_frag(struct ktest *t)
{
	swp_entry_t runs[SWAP_CLUSTER_SLOTS / RUN], e, single;
	unsigned type, i;

	KASSERT(t, swapt_dev_new(t, 2 * SWAP_CLUSTER_SLOTS, &type));
	for (i = 0; i < ARRAY_SIZE(runs); i++)
		KASSERT_EQ(t, swap_slot_alloc(type, RUN, &runs[i]), 0);
	for (i = 0; i < ARRAY_SIZE(runs); i++)
		KEXPECT_EQ(t, swap_free_ops_naive.free(runs[i], 1), 0); /* first slot of each */
	KEXPECT_EQ(t, fill_runs(type, RUN, NULL, 0), SWAP_CLUSTER_SLOTS / RUN);
	expect_lists(t, type, 0, 0, 1, 1);
	KEXPECT_EQ(t, swap_slot_alloc(type, RUN, &e), -ENOSPC);
	KASSERT_EQ(t, swap_slot_alloc(type, 1, &single), 0);
	KEXPECT_EQ(t, cluster_of(single), cluster_of(runs[0]));
	expect_lists(t, type, 0, 0, 1, 1);
	KEXPECT_EQ(t, swap_free_ops_naive.free(swap_entry_next(runs[3], 1), RUN - 1), 0);
	expect_lists(t, type, 0, 1, 0, 1);
	KEXPECT_EQ(t, swap_slot_alloc(type, RUN, &e), 0);
	KEXPECT_EQ(t, swap_entry_offset(e), swap_entry_offset(runs[3]));
}

struct alloc_as {
	unsigned who, type;
	int err;
	swp_entry_t e;
};

static void alloc_as_fn(void *arg, unsigned idx)
{
	struct alloc_as *a = arg;

	if (idx == a->who)
		a->err = swap_slot_alloc(a->type, RUN, &a->e);
}

/* Allocates a run on the @who-th CPU of swapt_run_cpus(). */
static bool alloc_as(struct ktest *t, unsigned who, unsigned type, swp_entry_t *e)
{
	struct alloc_as a = { who, type, -EINVAL, { 0 } };

	KEXPECT_EQ(t, swapt_run_cpus(2, alloc_as_fn, &a), 2);
	*e = a.e;
	return KEXPECT_EQ(t, a.err, 0);
}

/* Each CPU allocates from a cluster of its own, and keeps to it. */
static void test_swap_percpu_cluster(struct ktest *t)
{
	swp_entry_t a0, b0, a1, b1;
	unsigned type;

	if (swapt_cpus_available() < 2) {
		ktest_skip(t, "needs 2 CPUs");
		return;
	}
	KASSERT(t, swapt_dev_new(t, SLOTS_4C, &type));
	KASSERT(t, alloc_as(t, 0, type, &a0));
	KASSERT(t, alloc_as(t, 1, type, &b0));
	KASSERT(t, alloc_as(t, 0, type, &a1));
	KASSERT(t, alloc_as(t, 1, type, &b1));
	KEXPECT_NE(t, cluster_of(a0), cluster_of(b0));
	KEXPECT_EQ(t, swap_entry_offset(a1), swap_entry_offset(a0) + RUN);
	KEXPECT_EQ(t, swap_entry_offset(b1), swap_entry_offset(b0) + RUN);
	expect_lists(t, type, 2, 2, 0, 0);
}

/* Running out fails cleanly: nothing changes, and freeing makes room again. */
static void test_swap_enospc(struct ktest *t)
{
	unsigned type, i, nslots = 2 * SWAP_CLUSTER_SLOTS;
	u64 errors = swap_errors();
	swp_entry_t e;

	KASSERT(t, swapt_dev_new(t, nslots, &type));
	KASSERT_EQ(t, fill_runs(type, 1, NULL, 0), nslots);
	KEXPECT_EQ(t, swap_slot_alloc(type, 1, &e), -ENOSPC);
	KEXPECT_EQ(t, swap_slot_alloc(type, RUN, &e), -ENOSPC);
	KEXPECT_EQ(t, stats_of(type).inuse, nslots);
	expect_lists(t, type, 0, 0, 0, 2);
	for (i = 0; i < nslots; i += 2)
		KEXPECT_EQ(t, swap_free_ops_naive.free(swap_entry_make(type, i), 1), 0);
	KEXPECT_EQ(t, swap_slot_alloc(type, RUN, &e), -ENOSPC); /* no aligned run is free */
	KEXPECT_EQ(t, swap_slot_alloc(type, 1, &e), 0);
	KEXPECT_EQ(t, stats_of(type).inuse, nslots / 2 + 1);
	swapt_expect_consistent(t, type);
	KEXPECT_EQ(t, swap_errors(), errors);
}

/* A device that ends inside a cluster: slots past the end are never handed out. */
static void test_swap_short_last_cluster(struct ktest *t)
{
	unsigned type, tail = 100, nslots = SWAP_CLUSTER_SLOTS + tail;
	swp_entry_t e;

	KASSERT(t, swapt_dev_new(t, nslots, &type));
	KEXPECT_EQ(t, stats_of(type).nclusters, 2);
	KEXPECT_EQ(t, fill_runs(type, RUN, NULL, 0), (SWAP_CLUSTER_SLOTS + tail) / RUN);
	KEXPECT_EQ(t, fill_runs(type, 1, NULL, 0), tail % RUN);
	KEXPECT_EQ(t, swap_slot_alloc(type, 1, &e), -ENOSPC);
	KEXPECT_EQ(t, stats_of(type).inuse, nslots);
	expect_lists(t, type, 0, 0, 0, 2);
}

/* Extra references and the has-cache flag: all or nothing, and they keep slots. */
static void test_swap_dup_cache(struct ktest *t)
{
	unsigned type, i;
	swp_entry_t e;

	KASSERT(t, swapt_dev_new(t, SLOTS_4C, &type));
	KASSERT_EQ(t, swap_slot_alloc(type, RUN, &e), 0);
	KEXPECT_EQ(t, swap_dup(e, RUN), 0);
	KEXPECT_EQ(t, swap_count(swap_entry_next(e, RUN - 1)), 2);
	KEXPECT_EQ(t, swap_free_ops_naive.free(e, RUN), 0);
	KEXPECT_EQ(t, stats_of(type).inuse, RUN);
	for (i = 1; i < SWAP_MAP_MAX; i++)
		KASSERT_EQ(t, swap_dup(swap_entry_next(e, 3), 1), 0);
	KEXPECT_EQ(t, swap_dup(swap_entry_next(e, 3), 1), -EOVERFLOW);
	KEXPECT_EQ(t, swap_dup(e, RUN), -EOVERFLOW);
	KEXPECT_EQ(t, swap_count(e), 1); /* rolled back */
	for (i = 1; i < SWAP_MAP_MAX; i++)
		swap_free_ops_naive.free(swap_entry_next(e, 3), 1);
	KEXPECT_EQ(t, swap_cache_add(swap_entry_next(e, 10), 1), 0);
	KEXPECT_EQ(t, swap_cache_add(e, RUN), -EEXIST);
	KEXPECT_EQ(t, swap_map_read(swap_entry_next(e, 9)), 1); /* rolled back */
	KEXPECT_EQ(t, swap_free_ops_naive.free(swap_entry_next(e, 10), 1), 0);
	KEXPECT_EQ(t, swap_map_read(swap_entry_next(e, 10)), SWAP_HAS_CACHE);
	KEXPECT_EQ(t, stats_of(type).inuse, RUN);
	KEXPECT_EQ(t, swap_dup(swap_entry_next(e, 10), 1), 0); /* a cached slot mapped again */
	KEXPECT_EQ(t, swap_free_ops_naive.free(swap_entry_next(e, 10), 1), 0);
	KEXPECT_EQ(t, swap_cache_del(swap_entry_next(e, 10), 1), 0);
	KEXPECT_EQ(t, swap_map_read(swap_entry_next(e, 10)), 0);
	KEXPECT_EQ(t, stats_of(type).inuse, RUN - 1);
	KEXPECT_EQ(t, swap_cache_del(e, 1), -ENOENT);
	KEXPECT_EQ(t, swap_dup(swap_entry_next(e, 10), 1), -ENOENT);
	swapt_expect_consistent(t, type);
}

/* Bad entries are refused and counted, take no lock and change nothing. */
static void test_swap_bad_entries(struct ktest *t)
{
	unsigned type, gone;
	u64 errors = swap_errors(), locks;
	swp_entry_t e, bad[5];
	unsigned i;

	KASSERT(t, swapt_dev_new(t, SLOTS_4C, &type));
	KASSERT_EQ(t, swap_slot_alloc(type, RUN, &e), 0);
	KASSERT_EQ(t, swap_on_ram(SWAP_CLUSTER_SLOTS, &gone), 0);
	KASSERT_EQ(t, swap_off(gone), 0);
	bad[0] = swap_entry_make(31, 0);
	bad[1] = swap_entry_make(gone, 0);
	bad[2] = swap_entry_make(type, SLOTS_4C);
	bad[3] = swap_entry_make(type, SLOTS_4C - 8); /* its range of RUN runs past the end */
	bad[4].val = 0;
	locks = swapt_counter(PCPU_SWAP_CLUSTER_LOCKS);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KEXPECT_EQ(t, swap_dup(bad[i], RUN), -EINVAL);
		KEXPECT_EQ(t, swap_cache_add(bad[i], RUN), -EINVAL);
		KEXPECT_EQ(t, swap_cache_del(bad[i], RUN), -EINVAL);
	}
	KEXPECT_EQ(t, swap_read_page(bad[2], NULL), -EINVAL); /* refused before any copy */
	KEXPECT_EQ(t, swapt_counter(PCPU_SWAP_CLUSTER_LOCKS), locks);
	KEXPECT_EQ(t, swap_errors(), errors + 3 * ARRAY_SIZE(bad) + 1);
	KEXPECT_EQ(t, swap_read_page(swap_entry_next(e, RUN), NULL), -ENOENT); /* a free slot */
	KEXPECT_EQ(t, swap_errors(), errors + 3 * ARRAY_SIZE(bad) + 2);
	KEXPECT_EQ(t, stats_of(type).inuse, RUN);
	swapt_expect_consistent(t, type);
}

/* swap_off refuses a busy device; every frame a device took comes back. */
static void test_swap_on_off(struct ktest *t)
{
	unsigned types[SWAP_MAX_DEVS + 1], n = 0, type;
	u64 free = swapt_pmm_free();
	swp_entry_t e;

	KASSERT_EQ(t, swap_on_ram(SLOTS_4C, &type), 0);
	KASSERT_EQ(t, swap_slot_alloc(type, RUN, &e), 0);
	KEXPECT_EQ(t, swap_off(type), -EBUSY);
	KEXPECT_EQ(t, swap_free_ops_batched.free(e, RUN), 0);
	KEXPECT_EQ(t, swap_off(type), 0);
	KEXPECT_EQ(t, swap_off(type), -EINVAL);
	KEXPECT_EQ(t, swap_off(SWAP_MAX_DEVS), -EINVAL);
	KEXPECT_EQ(t, swapt_pmm_free(), free);
	while (n <= SWAP_MAX_DEVS && swap_on_ram(SWAP_CLUSTER_SLOTS, &types[n]) == 0)
		n++;
	KEXPECT_LE(t, n, SWAP_MAX_DEVS);
	KEXPECT_EQ(t, swap_on_ram(SWAP_CLUSTER_SLOTS, &type), -EBUSY);
	while (n)
		KEXPECT_EQ(t, swap_off(types[--n]), 0);
	KEXPECT_EQ(t, swap_on_ram(0, &type), -EINVAL);
	KEXPECT_EQ(t, swap_on_ram(SWAP_MAX_SLOTS + 1, &type), -EINVAL);
	KEXPECT_EQ(t, swapt_pmm_free(), free);
}

/*
 * Out of memory at each allocation swap_on makes: -ENOMEM, and nothing is
 * leaked. (In the kernel nothing else allocates while a suite runs.)
 */
static void test_swap_on_nomem(struct ktest *t)
{
	u64 free = swapt_pmm_free();
	unsigned skip, type;

	for (skip = 0; skip < 3; skip++) {
		pmm_inject_fail(skip, 1);
		KEXPECT_EQ(t, swap_on_ram(SLOTS_4C, &type), -ENOMEM);
		pmm_inject_fail(0, 0);
		KEXPECT_EQ(t, swapt_pmm_free(), free);
	}
}

/* The check finds each kind of damage (made by hand here) and passes once it is undone. */
static void test_swap_consistency_catches(struct ktest *t)
{
	struct swap_info *si;
	const char *why;
	unsigned type;
	swp_entry_t e;

	KASSERT(t, swapt_dev_new(t, SWAP_CLUSTER_SLOTS + 100, &type));
	KASSERT_EQ(t, swap_slot_alloc(type, RUN, &e), 0);
	si = swap_info_of(type);
	KASSERT(t, swapt_expect_consistent(t, type));
	si->map[RUN] = 1;
	KEXPECT_EQ(t, swap_check_consistency(type, &why), -EINVAL);
	KEXPECT_NE(t, why[0], '\0');
	si->map[RUN] = 0;
	si->map[SWAP_CLUSTER_SLOTS + 200] = 0;
	KEXPECT_EQ(t, swap_check_consistency(type, &why), -EINVAL);
	si->map[SWAP_CLUSTER_SLOTS + 200] = SWAP_MAP_BAD;
	si->clusters[1].list = SWAP_LIST_FULL;
	KEXPECT_EQ(t, swap_check_consistency(type, &why), -EINVAL);
	si->clusters[1].list = SWAP_LIST_FREE;
	si->inuse++;
	KEXPECT_EQ(t, swap_check_consistency(type, &why), -EINVAL);
	si->inuse--;
	swapt_expect_consistent(t, type);
	KEXPECT_EQ(t, swap_check_consistency(SWAP_MAX_DEVS, &why), -EINVAL);
}

static const struct ktest_case swap_cases[] = {
	KTEST_CASE(test_swap_entry_encoding),
	KTEST_CASE(test_swap_alloc_bad_args),
	KTEST_CASE(test_swap_alloc_runs_aligned),
	KTEST_CASE(test_swap_alloc_fill_runs),
	KTEST_CASE(test_swap_cluster_lists),
	KTEST_CASE(test_swap_cluster_frag),
	KTEST_CASE(test_swap_percpu_cluster),
	KTEST_CASE(test_swap_enospc),
	KTEST_CASE(test_swap_short_last_cluster),
	KTEST_CASE(test_swap_dup_cache),
	KTEST_CASE(test_swap_bad_entries),
	KTEST_CASE(test_swap_on_off),
	KTEST_CASE(test_swap_on_nomem),
	KTEST_CASE(test_swap_consistency_catches),
};
KTEST_SUITE_EXT(swap, swap_cases, swapt_init, swapt_exit, NULL);
