/*
 * naive: each slot's reference dropped on its own, as zap_pte_range() did:
 * one cluster lock round trip per slot, and for a slot that became free
 * one device lock. The baseline of swap_free_designs[] (order 0).
 * Locking: the cluster level takes and counts every lock.
 */
#include "errno.h"
#include "mm/swap/swap_internal.h"

static int swap_free_range_naive(swp_entry_t e, unsigned nr)
{
	struct swap_info *si = swap_info_get(e, nr);

	if (!si)
		return -EINVAL;
	return swap_put_each(si, e, nr);
}

const struct swap_free_ops swap_free_ops_naive = {
	.d = { .name = "naive", .desc = "one cluster lock per slot",
	       .source = "zap_pte_range() freeing swap entries one by one", .unit = "slot",
	       .promises = DESIGN_PROMISES(PROMISE(PCPU_SWAP_CLUSTER_LOCKS, 1, 1)) },
	.free = swap_free_range_naive,
};
DESIGN_REGISTER(swap_free_designs, swap_free_ops_naive, 0);
