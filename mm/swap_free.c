/*
 * Freeing swap slots when their mappings go away: the two designs of
 * struct swap_free_ops (mm/swap.h) and swap_cache_del(). naive drops each
 * slot's reference on its own: cluster lock, count update, and for a slot
 * that became free the device lock. batched first tries the whole run of a
 * folio at once: when it lies in one cluster and every slot has count 1 and
 * no has-cache flag, the run is freed under one cluster lock and one device
 * lock; otherwise it takes the naive path. Both use the same counted lock
 * helpers (mm/swap_internal.h), so a benchmark measures the batching alone.
 *
 * Locking: the cluster lock, then the device lock inside it (order in
 * mm/swap_internal.h); the device's discard runs under the cluster lock, so
 * a slot cannot be handed out again before its old contents are gone.
 */
#include "errno.h"
#include "mm/swap_internal.h"

/* What a put drops from a slot. */
enum swap_put { SWAP_PUT_REF, SWAP_PUT_CACHE };

/* ---- shared helpers ---- */

void swap_range_release_locked(struct swap_info *si, struct swap_cluster *ci, u64 offset,
			       unsigned nr)
{
	unsigned i;

	si->dev->ops->discard(si->dev, offset, nr);
	for (i = 0; i < nr; i++)
		swap_map_set(si, offset + i, 0);
	ci->count -= nr;
	if (ci->count == 0)
		ci->order = SWAP_ORDER_NONE;
	swap_device_lock(si);
	atomic_store_relaxed(&si->inuse, si->inuse - nr);
	swap_cluster_relist_locked(si, ci, -(int)nr);
	swap_device_unlock(si);
	this_cpu_add(PCPU_SWAP_SLOTS_FREED, nr);
}

/* The map byte left after dropping @what from @m, or -ENOENT if @m does not hold it. */
static int swap_put_step(u8 m, enum swap_put what)
{
	u8 count = m & SWAP_MAP_COUNT;

	if (what == SWAP_PUT_CACHE)
		return (m & SWAP_HAS_CACHE) ? m & ~SWAP_HAS_CACHE : -ENOENT;
	if (count == 0 || count == SWAP_MAP_BAD)
		return -ENOENT;
	return m - 1;
}

/* Drops @what from one slot under its cluster lock, freeing the slot if nothing is left. */
static int swap_slot_put(struct swap_info *si, u64 offset, enum swap_put what)
{
	struct swap_cluster *ci = swap_cluster_of(si, offset);
	int m;

	swap_cluster_lock(ci);
	m = swap_put_step(swap_map_get(si, offset), what);
	if (m == 0)
		swap_range_release_locked(si, ci, offset, 1);
	else if (m > 0)
		swap_map_set(si, offset, (u8)m);
	swap_cluster_unlock(ci);
	return m < 0 ? m : 0;
}

/* swap_slot_put() on each of @nr slots from @e; a slot that holds no @what is reported. */
static int swap_slots_put(struct swap_info *si, swp_entry_t e, unsigned nr, enum swap_put what)
{
	u64 off = swap_entry_offset(e);
	unsigned i;
	int err = 0;

	for (i = 0; i < nr; i++) {
		int r = swap_slot_put(si, off + i, what);

		if (r && !err)
			err = r;
		if (r)
			swap_report(r,
				    what == SWAP_PUT_REF ? "free of a free slot" : "no cache flag",
				    swap_entry_next(e, i));
	}
	return err;
}

int swap_cache_del(swp_entry_t e, unsigned nr)
{
	struct swap_info *si = swap_info_get(e, nr);

	if (!si)
		return -EINVAL;
	return swap_slots_put(si, e, nr, SWAP_PUT_CACHE);
}

/* ---- naive ---- */

static int swap_free_range_naive(swp_entry_t e, unsigned nr)
{
	struct swap_info *si = swap_info_get(e, nr);

	if (!si)
		return -EINVAL;
	return swap_slots_put(si, e, nr, SWAP_PUT_REF);
}

/* ---- batched ---- */

/* Every slot of the run holds exactly one reference and no has-cache flag. */
static bool swap_run_last_refs(struct swap_info *si, u64 offset, unsigned nr)
{
	unsigned i;

	for (i = 0; i < nr; i++)
		if (swap_map_get(si, offset + i) != 1)
			return false;
	return true;
}

/* Frees the run under one cluster lock and one device lock if it qualifies. */
static bool swap_free_try_batch(struct swap_info *si, u64 offset, unsigned nr)
{
	struct swap_cluster *ci = swap_cluster_of(si, offset);
	bool ok;

	/*
	 * A run that straddles clusters is never batched. The unlocked look at
	 * the first slot may be stale; it only spares a lock round trip that
	 * would fail, and the check under the lock decides.
	 */
	if (offset % SWAP_CLUSTER_SLOTS + nr > SWAP_CLUSTER_SLOTS || swap_map_get(si, offset) != 1)
		return false;
	swap_cluster_lock(ci);
	ok = swap_run_last_refs(si, offset, nr);
	if (ok)
		swap_range_release_locked(si, ci, offset, nr);
	swap_cluster_unlock(ci);
	return ok;
}

static int swap_free_range_batched(swp_entry_t e, unsigned nr)
{
	struct swap_info *si = swap_info_get(e, nr);

	if (!si)
		return -EINVAL;
	if (nr > 1) {
		if (swap_free_try_batch(si, swap_entry_offset(e), nr))
			return 0;
		this_cpu_inc(PCPU_SWAP_BATCH_FALLBACKS);
	}
	return swap_slots_put(si, e, nr, SWAP_PUT_REF);
}

const struct swap_free_ops swap_free_ops_naive = {
	.d = { .name = "naive", .desc = "one cluster lock per slot",
	       .source = "zap_pte_range() freeing swap entries one by one", .unit = "slot",
	       .promises = { { PCPU_SWAP_CLUSTER_LOCKS, 1, 1, false, false } } },
	.free = swap_free_range_naive,
};

const struct swap_free_ops swap_free_ops_batched = {
	.d = { .name = "batched", .desc = "one cluster lock per folio's run of slots",
	       .source = "Barry Song, \"mm: attempt to batch free swap entries for zap_pte_range()\" (2024)", .unit = "folio",
	       .promises = { { PCPU_SWAP_CLUSTER_LOCKS, 1, 1, false, false } } },
	.free = swap_free_range_batched,
};

const struct design *const swap_free_designs[] = { &swap_free_ops_naive.d,
						   &swap_free_ops_batched.d, NULL };
