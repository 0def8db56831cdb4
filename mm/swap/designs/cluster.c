/*
 * cluster: after Kairui Song, "mm, swap: rework of swap allocator locks"
 * (Linux 6.14): a folio's slots freed under their cluster's lock only, the
 * device lock taken only when the cluster must change list (it emptied, or
 * stopped being full or fragmented); the in-use count is an atomic add, and
 * a list changes only under both locks, so the cluster lock alone tells
 * whether a move is needed. Hence at most one device lock per folio, not 0.
 */
#include "mm/swap/swap_internal.h"

static int swap_free_range_cluster(swp_entry_t e, unsigned nr)
{
	return swap_free_range_run(e, nr, SWAP_HOLD_LAST_CL);
}

const struct swap_free_ops swap_free_ops_cluster = {
	.d = { .name = "cluster", .desc = "one cluster lock per folio, the device lock only to relist",
	       .source = "Kairui Song, \"mm, swap: rework of swap allocator locks\" (Linux 6.14)",
	       .unit = "folio", .counts_folios = true,
	       .promises = DESIGN_PROMISES(
		       PROMISE(PCPU_SWAP_CLUSTER_LOCKS, 1, 1),
		       PROMISE(PCPU_SWAP_DEVICE_LOCKS, 1, 1, .at_most = true)) },
	.free = swap_free_range_cluster,
};
DESIGN_REGISTER(swap_free_designs, swap_free_ops_cluster, 20);
