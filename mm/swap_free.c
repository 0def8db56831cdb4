/*
 * Freeing the swap slots of unmapped swap entries: the designs of
 * struct swap_free_ops (mm/swap.h), each a composition of the device
 * table's entry check (swap_info_get) and the cluster level's one put call
 * (swap_cluster_put_range), so a benchmark measures their lock granularity
 * and nothing else. naive drops each slot's reference on its own: one
 * cluster lock round trip, and for a slot that became free one device lock.
 * batched first offers the whole run of a folio as its slots' last
 * references, freed under one cluster lock and one device lock; when the
 * cluster level refuses (the run straddles clusters, or some slot holds more
 * than one reference or the has-cache flag) it takes the naive path.
 * cluster batches the same way under the cluster lock alone, taking the
 * device lock only when the cluster must change list (its section below).
 *
 * Locking: none here; the cluster level takes and counts every lock (order
 * in mm/swap_internal.h).
 */
#include "errno.h"
#include "mm/counters.h"
#include "kernel/percpu.h"
#include "mm/swap_internal.h"

PCPU_COUNTER(PCPU_SWAP_BATCH_FALLBACKS, "swap_batch_fallbacks");

/* ---- shared helpers ---- */

/* Drops one reference from each of @nr slots from @e, one slot at a time; reports bad slots. */
static int swap_put_each(struct swap_info *si, swp_entry_t e, unsigned nr)
{
	u64 off = swap_entry_offset(e);
	unsigned i;
	int err = 0;

	for (i = 0; i < nr; i++) {
		int r = swap_cluster_put_range(si, off + i, 1, SWAP_HOLD_REF);

		if (r && !err)
			err = r;
		if (r)
			swap_report(r, "free of a free slot", swap_entry_next(e, i));
	}
	return err;
}

/* ---- naive ---- */

static int swap_free_range_naive(swp_entry_t e, unsigned nr)
{
	struct swap_info *si = swap_info_get(e, nr);

	if (!si)
		return -EINVAL;
	return swap_put_each(si, e, nr);
}

/*
 * ---- batched and cluster ----
 * Both offer a folio's run as its slots' last references in one call and
 * take the naive path when the cluster level refuses; they differ only in
 * the locks that call holds (@hold: SWAP_HOLD_LAST or SWAP_HOLD_LAST_CL).
 */
static int swap_free_range_run(swp_entry_t e, unsigned nr, enum swap_hold hold)
{
	struct swap_info *si = swap_info_get(e, nr);

	if (!si)
		return -EINVAL;
	if (nr > 1) {
		if (!swap_cluster_put_range(si, swap_entry_offset(e), nr, hold))
			return 0;
		this_cpu_inc(PCPU_SWAP_BATCH_FALLBACKS);
	}
	return swap_put_each(si, e, nr);
}

static int swap_free_range_batched(swp_entry_t e, unsigned nr)
{
	return swap_free_range_run(e, nr, SWAP_HOLD_LAST);
}

const struct swap_free_ops swap_free_ops_naive = {
	.d = { .name = "naive", .desc = "one cluster lock per slot",
	       .source = "zap_pte_range() freeing swap entries one by one", .unit = "slot",
	       .promises = DESIGN_PROMISES({ PCPU_SWAP_CLUSTER_LOCKS, 1, 1, false, false }) },
	.free = swap_free_range_naive,
};

const struct swap_free_ops swap_free_ops_batched = {
	.d = { .name = "batched", .desc = "one cluster lock per folio's run of slots",
	       .source = "Barry Song, \"mm: attempt to batch free swap entries for "
			 "zap_pte_range()\" (2024)",
	       .unit = "folio",
	       .promises = DESIGN_PROMISES({ PCPU_SWAP_CLUSTER_LOCKS, 1, 1, false, false }) },
	.free = swap_free_range_batched,
};

/*
 * ---- cluster ----
 * Kairui Song, "mm, swap: rework of swap allocator locks" (Linux 6.14):
 * a folio's slots are freed under their cluster's lock only; the device
 * lock is taken only when the cluster must change list (it emptied, or
 * stopped being full or fragmented). The device's in-use count stays right
 * without that lock because every change to it is an atomic add
 * (mm/swap_cluster.c), and a cluster's list is changed only under both
 * locks, so the cluster lock alone tells exactly whether a move is needed.
 * Promises one cluster lock per folio and at most one device lock per folio
 * (none while the cluster keeps its list: an exact per-folio count of 0
 * cannot be promised, since the free that empties a cluster must publish it
 * on the free list). Falls back like batched.
 */
static int swap_free_range_cluster(swp_entry_t e, unsigned nr)
{
	return swap_free_range_run(e, nr, SWAP_HOLD_LAST_CL);
}

const struct swap_free_ops swap_free_ops_cluster = {
	.d = { .name = "cluster", .desc = "one cluster lock per folio, the device lock only to relist",
	       .source = "Kairui Song, \"mm, swap: rework of swap allocator locks\" (Linux 6.14)",
	       .unit = "folio",
	       .promises = DESIGN_PROMISES({ PCPU_SWAP_CLUSTER_LOCKS, 1, 1, false, false },
					   { PCPU_SWAP_DEVICE_LOCKS, 1, 1, false, true }) },
	.free = swap_free_range_cluster,
};

const struct design *const swap_free_designs[] = { &swap_free_ops_naive.d,
						   &swap_free_ops_batched.d,
						   &swap_free_ops_cluster.d, NULL };
