/*
 * Freeing the slots of unmapped swap entries: what the designs of struct
 * swap_free_ops (mm/swap/designs/) share, each composed of the device
 * table's entry check and the cluster level's one put call, so a benchmark
 * measures their lock granularity and nothing else; and their table.
 * Locking: none here; the cluster level takes and counts every lock.
 */
#include "errno.h"
#include "mm/counters.h"
#include "kernel/percpu.h"
#include "mm/swap/swap_internal.h"

PCPU_COUNTER(PCPU_SWAP_BATCH_FALLBACKS, "swap_batch_fallbacks");

/* Drops one reference from each of @nr slots from @e, one slot at a time; reports bad slots. */
int swap_put_each(struct swap_info *si, swp_entry_t e, unsigned nr)
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

/*
 * The free of batched and cluster: a folio's run offered as its slots'
 * last references in one call, the naive path when the cluster level
 * refuses; they differ only in the locks that call holds (@hold).
 */
int swap_free_range_run(swp_entry_t e, unsigned nr, enum swap_hold hold)
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

/* Filled from the design_set section (DESIGN_REGISTER, mm/swap/designs/). */
const struct design *swap_free_designs[DESIGN_TABLE_SLOTS];
