/*
 * swap_check_consistency() (mm/swap/swap.h): every invariant of a device's swap
 * map, clusters and lists, checked from scratch for tests and benchmark
 * verification. It takes the device lock without counting it (it is not
 * part of any operation) and no cluster lock: callers run it only while no
 * other CPU works on the device, so the counts it reads are stable. The
 * description of a fault lives in a static buffer, for the same reason.
 */
#include "errno.h"
#include "lib/format.h"
#include "mm/swap/swap_internal.h"

static char swap_check_why[128];

static __printf(1, 2) int swap_check_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(swap_check_why, sizeof(swap_check_why), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The list @ci must be on, given its count and order (frag and non-full both fit a partial one). */
static bool swap_check_list_fits(struct swap_info *si, struct swap_cluster *ci)
{
	if (ci->count == 0)
		return ci->list == SWAP_LIST_FREE && ci->order == SWAP_ORDER_NONE;
	if (ci->order >= SWAP_NR_ORDERS)
		return false;
	if (ci->count == swap_cluster_avail(si, ci))
		return ci->list == SWAP_LIST_FULL;
	return ci->list == SWAP_LIST_FRAG || ci->list == SWAP_LIST_NONFULL + ci->order;
}

/* Checks one cluster's map bytes against its count; adds its count to *@sum. */
static int swap_check_cluster(struct swap_info *si, u32 idx, u64 *sum)
{
	struct swap_cluster *ci = &si->clusters[idx];
	u64 base = (u64)idx * SWAP_CLUSTER_SLOTS;
	u32 avail = swap_cluster_avail(si, ci), used = 0, i;

	for (i = 0; i < SWAP_CLUSTER_SLOTS; i++) {
		u8 m = swap_map_get(si, base + i);
		u8 count = m & SWAP_MAP_COUNT;

		if (i >= avail && m != SWAP_MAP_BAD)
			return swap_check_fail("slot %lu past the end is not marked bad",
					       (unsigned long)(base + i));
		if (i < avail && ((m & 0x80) || count == SWAP_MAP_BAD))
			return swap_check_fail("slot %lu has a bad map byte 0x%x",
					       (unsigned long)(base + i), m);
		used += i < avail && m;
	}
	if (used != ci->count)
		return swap_check_fail("cluster %u counts %u slots, its map %u", idx, ci->count,
				       used);
	if (!swap_check_list_fits(si, ci))
		return swap_check_fail("cluster %u (count %u, order %u) is on list %u", idx,
				       ci->count, ci->order, ci->list);
	*sum += used;
	return 0;
}

/* Walks list @l: links, membership and length. Adds its length to *@total. */
static int swap_check_list(struct swap_info *si, unsigned l, u32 *total)
{
	struct swap_clist *list = &si->lists[l];
	u32 idx = list->head, prev = SWAP_NO_CLUSTER, n = 0;

	while (idx != SWAP_NO_CLUSTER) {
		struct swap_cluster *ci;

		if (idx >= si->nclusters || n >= si->nclusters)
			return swap_check_fail("list %u is broken after %u clusters", l, n);
		ci = &si->clusters[idx];
		if (ci->list != l || ci->prev != prev)
			return swap_check_fail("cluster %u is misfiled on list %u", idx, l);
		prev = idx;
		idx = ci->next;
		n++;
	}
	if (list->tail != prev || list->count != n)
		return swap_check_fail("list %u: tail %u count %u, walked %u to %u", l, list->tail,
				       list->count, n, prev);
	*total += n;
	return 0;
}

static int swap_check_locked(struct swap_info *si)
{
	u64 sum = 0;
	u32 total = 0, i;
	int err = 0;

	for (i = 0; i < si->nclusters && !err; i++)
		err = swap_check_cluster(si, i, &sum);
	for (i = 0; i < SWAP_NR_LISTS && !err; i++)
		err = swap_check_list(si, i, &total);
	if (err)
		return err;
	if (total != si->nclusters)
		return swap_check_fail("lists hold %u of %u clusters", total, si->nclusters);
	if (sum != si->inuse)
		return swap_check_fail("device counts %lu slots in use, its clusters %lu",
				       (unsigned long)si->inuse, (unsigned long)sum);
	return 0;
}

int swap_check_consistency(unsigned type, const char **why)
{
	struct swap_info *si;
	int err;

	*why = swap_check_why;
	si = swap_info_of(type);
	if (!si)
		return swap_check_fail("device %u is not in use", type);
	spin_lock(&si->lock);
	err = swap_check_locked(si);
	spin_unlock(&si->lock);
	if (!err)
		swap_check_why[0] = '\0';
	return err;
}
