/*
 * Swap clusters: the free / non-full / frag / full lists and slot
 * allocation (see mm/swap.h). An allocation first tries this CPU's hint (the
 * slot after its last run of that size, in struct percpu), then a free
 * cluster, then a non-full one claimed for the same run size; single slots
 * may also fill holes in frag and other non-full clusters. Preferring free
 * clusters gives each CPU a cluster of its own while they last, so CPUs
 * rarely meet on one cluster lock.
 *
 * Locking (order in mm/swap_internal.h): a cluster is picked off a list
 * under the device lock alone, then locked and re-checked, since it may
 * have changed in between; its slots are taken under its lock, and the
 * device lock is taken inside it to settle the in-use count and the lists.
 */
#include "errno.h"
#include "lib/string.h"
#include "mm/swap_internal.h"

/* Gives up an allocation after this many clusters that another CPU changed under it. */
#define SWAP_PICK_RETRIES(si) (2 * (si)->nclusters + 2)

/* lists: device lock held */

static void swap_clist_add(struct swap_info *si, enum swap_list l, struct swap_cluster *ci)
{
	struct swap_clist *list = &si->lists[l];
	u32 idx = swap_cluster_index(si, ci);

	ci->list = (u8)l;
	ci->next = SWAP_NO_CLUSTER;
	ci->prev = list->tail;
	if (list->tail == SWAP_NO_CLUSTER)
		list->head = idx;
	else
		si->clusters[list->tail].next = idx;
	list->tail = idx;
	list->count++;
}

static void swap_clist_del(struct swap_info *si, struct swap_cluster *ci)
{
	struct swap_clist *list = &si->lists[ci->list];

	if (ci->prev == SWAP_NO_CLUSTER)
		list->head = ci->next;
	else
		si->clusters[ci->prev].next = ci->next;
	if (ci->next == SWAP_NO_CLUSTER)
		list->tail = ci->prev;
	else
		si->clusters[ci->next].prev = ci->prev;
	list->count--;
}

static void swap_clist_move(struct swap_info *si, struct swap_cluster *ci, enum swap_list l)
{
	if (ci->list == l)
		return;
	swap_clist_del(si, ci);
	swap_clist_add(si, l, ci);
}

void swap_clusters_init(struct swap_info *si)
{
	u32 i;

	for (i = 0; i < SWAP_NR_LISTS; i++) {
		si->lists[i].head = si->lists[i].tail = SWAP_NO_CLUSTER;
		si->lists[i].count = 0;
	}
	for (i = 0; i < si->nclusters; i++) {
		struct swap_cluster *ci = &si->clusters[i];

		spin_lock_init(&ci->lock, "swap_cluster");
		ci->count = 0;
		ci->order = SWAP_ORDER_NONE;
		swap_clist_add(si, SWAP_LIST_FREE, ci);
	}
}

void swap_cluster_relist_locked(struct swap_info *si, struct swap_cluster *ci, int delta)
{
	enum swap_list want;

	if (ci->count == 0)
		want = SWAP_LIST_FREE;
	else if (ci->count == swap_cluster_avail(si, ci))
		want = SWAP_LIST_FULL;
	else if (ci->list == SWAP_LIST_FRAG && delta > 0)
		want = SWAP_LIST_FRAG; /* taking slots cannot make room for a run */
	else
		want = SWAP_LIST_NONFULL + ci->order;
	swap_clist_move(si, ci, want);
}

/* taking slots: cluster lock held */

static bool swap_run_free(struct swap_info *si, u64 offset, unsigned nr)
{
	unsigned i;

	for (i = 0; i < nr; i++)
		if (swap_map_get(si, offset + i))
			return false;
	return true;
}

/* First naturally aligned run of @nr free slots of @ci at or after slot @from of it, or -1. */
static s64 swap_run_find(struct swap_info *si, struct swap_cluster *ci, u32 from, unsigned nr)
{
	u64 base = (u64)swap_cluster_index(si, ci) * SWAP_CLUSTER_SLOTS;
	u32 avail = swap_cluster_avail(si, ci);
	u32 o;

	for (o = ALIGN_UP(from, nr); o + nr <= avail; o += nr)
		if (swap_run_free(si, base + o, nr))
			return (s64)(base + o);
	return -1;
}

/*
 * Takes a run of 2^@order slots of @ci at or after its slot @from, with
 * count 1 each, claiming @ci for that order if it was free. Single slots may
 * go into a cluster of any order. Returns the run's offset or -1.
 */
static s64 swap_cluster_take(struct swap_info *si, struct swap_cluster *ci, unsigned order,
			     u32 from)
{
	unsigned i, nr = 1u << order;
	s64 off;

	if (ci->count && order && ci->order != order)
		return -1;
	off = swap_run_find(si, ci, from, nr);
	if (off < 0)
		return -1;
	if (ci->count == 0)
		ci->order = (u8)order;
	for (i = 0; i < nr; i++)
		swap_map_set(si, (u64)off + i, 1);
	ci->count += nr;
	swap_device_lock(si);
	atomic_store_relaxed(&si->inuse, si->inuse + nr);
	swap_cluster_relist_locked(si, ci, (int)nr);
	swap_device_unlock(si);
	return off;
}

/* No run of @order was found in @ci from its start: later searches of that order skip it. */
static void swap_cluster_mark_frag(struct swap_info *si, struct swap_cluster *ci, unsigned order)
{
	swap_device_lock(si);
	if (ci->list == SWAP_LIST_NONFULL + order)
		swap_clist_move(si, ci, SWAP_LIST_FRAG);
	swap_device_unlock(si);
}

/* picking a cluster */

/* Head of the free list that can hold a run of @nr (a short last cluster may not). */
static u32 swap_pick_free(struct swap_info *si, unsigned nr)
{
	u32 idx = si->lists[SWAP_LIST_FREE].head;

	if (idx != SWAP_NO_CLUSTER && swap_cluster_avail(si, &si->clusters[idx]) < nr)
		idx = si->clusters[idx].next; /* only the last cluster is short */
	return idx;
}

/* Single slots fit in any cluster with a free slot: frag first, then any non-full. */
static u32 swap_pick_any(struct swap_info *si)
{
	unsigned l;

	if (si->lists[SWAP_LIST_FRAG].head != SWAP_NO_CLUSTER)
		return si->lists[SWAP_LIST_FRAG].head;
	for (l = SWAP_LIST_NONFULL; l < SWAP_NR_LISTS; l++)
		if (si->lists[l].head != SWAP_NO_CLUSTER)
			return si->lists[l].head;
	return SWAP_NO_CLUSTER;
}

/* A cluster that may hold a run of 2^@order slots, or NULL. One device lock round trip. */
static struct swap_cluster *swap_cluster_pick(struct swap_info *si, unsigned order)
{
	u32 idx;

	swap_device_lock(si);
	idx = swap_pick_free(si, 1u << order);
	if (idx == SWAP_NO_CLUSTER)
		idx = si->lists[SWAP_LIST_NONFULL + order].head;
	if (idx == SWAP_NO_CLUSTER && order == 0)
		idx = swap_pick_any(si);
	swap_device_unlock(si);
	return idx == SWAP_NO_CLUSTER ? NULL : &si->clusters[idx];
}

/* allocation */

/* This CPU's hint for runs of @order on @si, after dropping those of older devices. */
static u32 *swap_hint(struct swap_info *si, unsigned order)
{
	struct pcpu_swap *ps = &this_cpu()->swap;

	if (ps->gen[si->type] != si->gen) {
		memset(ps->next[si->type], 0, sizeof(ps->next[si->type]));
		ps->gen[si->type] = si->gen;
	}
	return &ps->next[si->type][order];
}

/* Tries the run after this CPU's last one of @order. Returns an offset or -1. */
static s64 swap_alloc_hinted(struct swap_info *si, unsigned order)
{
	u32 hint = *swap_hint(si, order);
	struct swap_cluster *ci;
	s64 off;

	if (hint == 0 || hint - 1 >= si->nslots)
		return -1; /* none, or just past the end of a short last cluster */
	ci = swap_cluster_of(si, hint - 1);
	swap_cluster_lock(ci);
	off = swap_cluster_take(si, ci, order, (hint - 1) % SWAP_CLUSTER_SLOTS);
	swap_cluster_unlock(ci);
	return off;
}

static s64 swap_alloc_listed(struct swap_info *si, unsigned order)
{
	u32 tries;

	for (tries = 0; tries < SWAP_PICK_RETRIES(si); tries++) {
		struct swap_cluster *ci = swap_cluster_pick(si, order);
		s64 off;

		if (!ci)
			return -1;
		swap_cluster_lock(ci);
		off = swap_cluster_take(si, ci, order, 0);
		if (off < 0)
			swap_cluster_mark_frag(si, ci, order);
		swap_cluster_unlock(ci);
		if (off >= 0)
			return off;
	}
	return -1;
}

static int swap_order_of(unsigned nr)
{
	unsigned order;

	for (order = 0; order < SWAP_NR_ORDERS; order++)
		if (nr == 1u << order)
			return (int)order;
	return -1;
}

int swap_slot_alloc(unsigned type, unsigned nr, swp_entry_t *e)
{
	int order = swap_order_of(nr);
	struct swap_info *si;
	u32 *hint;
	s64 off;

	if (type >= SWAP_MAX_DEVS || order < 0)
		return -EINVAL;
	si = &swap_infos[type];
	if (!atomic_load_acquire(&si->active))
		return -EINVAL;
	off = swap_alloc_hinted(si, (unsigned)order);
	if (off < 0)
		off = swap_alloc_listed(si, (unsigned)order);
	hint = swap_hint(si, (unsigned)order);
	if (off < 0) {
		*hint = 0;
		return -ENOSPC;
	}
	/* Next time continue after this run; a finished cluster leaves no hint. */
	*hint = (off + nr) % SWAP_CLUSTER_SLOTS ? (u32)(off + nr + 1) : 0;
	*e = swap_entry_make(type, (u64)off);
	return 0;
}
