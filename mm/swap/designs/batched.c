/*
 * batched: the whole run of a folio offered as its slots' last references,
 * freed under one cluster lock and one device lock; when the cluster level
 * refuses (the run straddles clusters, or a slot holds more than one
 * reference or the has-cache flag) it takes the naive path
 * (swap_free_range_run()). Locking: the cluster level's.
 */
#include "mm/swap/swap_internal.h"

static int swap_free_range_batched(swp_entry_t e, unsigned nr)
{
	return swap_free_range_run(e, nr, SWAP_HOLD_LAST);
}

const struct swap_free_ops swap_free_ops_batched = {
	.d = { .name = "batched", .desc = "one cluster lock per folio's run of slots",
	       .source = "Barry Song, \"mm: attempt to batch free swap entries for "
			 "zap_pte_range()\" (2024)",
	       .unit = "folio", .counts_folios = true,
	       .promises = DESIGN_PROMISES(PROMISE(PCPU_SWAP_CLUSTER_LOCKS, 1, 1)) },
	.free = swap_free_range_batched,
};
DESIGN_REGISTER(swap_free_designs, swap_free_ops_batched, 10);
