/*
 * One swap device's clusters (see mm/swap/swap_cluster.h): the swap map, the
 * cluster lists, slot allocation and references, on a struct swap_info the
 * device table checked; errors are its callers' to report. Locking (order in
 * mm/swap/swap_cluster.h): a cluster is picked under the device lock, then
 * locked and re-checked; its slots change under its lock, and discard runs
 * under it so a slot is not handed out again before its contents are gone.
 */
#include "errno.h"
#include "mm/counters.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/trace.h"
#include "lib/string.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/swap/swap_cluster.h"
#include <arch/arch.h>

PCPU_COUNTER(PCPU_SWAP_CLUSTER_LOCKS, "swap_cluster_locks");
PCPU_COUNTER(PCPU_SWAP_DEVICE_LOCKS, "swap_device_locks");
PCPU_COUNTER(PCPU_SWAP_SLOTS_FREED, "swap_slots_freed");

static inline struct swap_cluster *swap_cluster_of(struct swap_info *si, u64 offset)
{
	return &si->clusters[offset / SWAP_CLUSTER_SLOTS];
}

static inline u32 swap_cluster_index(struct swap_info *si, struct swap_cluster *ci)
{
	return (u32)(ci - si->clusters);
}

/* Map bytes change under the cluster lock, but are read without it (a put's first look). */
static inline void swap_map_set(struct swap_info *si, u64 offset, u8 v)
{
	atomic_store_relaxed(&si->map[offset], v);
}

/* Counted lock round trips: the only way swap operations take these locks. */
static inline void swap_cluster_lock(struct swap_cluster *ci)
{
	this_cpu_inc(PCPU_SWAP_CLUSTER_LOCKS);
	spin_lock(&ci->lock);
	trace_event(TRACE_LOCK_ACQ, TRACE_LOCK_SWAP_CLUSTER, 0);
}

static inline void swap_cluster_unlock(struct swap_cluster *ci)
{
	trace_event(TRACE_LOCK_REL, TRACE_LOCK_SWAP_CLUSTER, 0);
	spin_unlock(&ci->lock);
}

static inline void swap_device_lock(struct swap_info *si)
{
	this_cpu_inc(PCPU_SWAP_DEVICE_LOCKS);
	spin_lock(&si->lock);
	trace_event(TRACE_LOCK_ACQ, TRACE_LOCK_SWAP_DEVICE, 0);
}

static inline void swap_device_unlock(struct swap_info *si)
{
	trace_event(TRACE_LOCK_REL, TRACE_LOCK_SWAP_DEVICE, 0);
	spin_unlock(&si->lock);
}

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

static void swap_clusters_init(struct swap_info *si)
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

/*
 * Cluster lock and device lock held, after @ci's count changed by @delta
 * slots: moves it to the list its count and order call for. A frag cluster
 * that just lost slots (@delta < 0) goes back to its non-full list.
 */
static enum swap_list swap_cluster_want(struct swap_info *si, struct swap_cluster *ci, int delta)
{
	if (ci->count == 0)
		return SWAP_LIST_FREE;
	if (ci->count == swap_cluster_avail(si, ci))
		return SWAP_LIST_FULL;
	if (ci->list == SWAP_LIST_FRAG && delta > 0)
		return SWAP_LIST_FRAG; /* taking slots cannot make room for a run */
	return SWAP_LIST_NONFULL + ci->order;
}

static void swap_cluster_relist_locked(struct swap_info *si, struct swap_cluster *ci, int delta)
{
	swap_clist_move(si, ci, swap_cluster_want(si, ci, delta));
}

/*
 * Cluster lock held, @ci's count to change by @delta slots: changes it, and
 * under the device lock the in-use count and @ci's list.
 */
static void swap_cluster_settle_locked(struct swap_info *si, struct swap_cluster *ci, int delta)
{
	ci->count = (u16)(ci->count + delta);
	if (ci->count == 0)
		ci->order = SWAP_ORDER_NONE;
	swap_device_lock(si);
	atomic_fetch_add(&si->inuse, (u64)(s64)delta); /* also changed without the lock */
	swap_cluster_relist_locked(si, ci, delta);
	swap_device_unlock(si);
}

/*
 * The same without the device lock while @ci keeps its list (a put of
 * SWAP_HOLD_LAST_CL): the in-use count is one atomic add, and ci->list,
 * which changes only under both locks, is stable under the cluster lock we
 * hold, so comparing it with the list the new count calls for is exact.
 */
static void swap_cluster_settle_cl_locked(struct swap_info *si, struct swap_cluster *ci,
					  int delta)
{
	ci->count = (u16)(ci->count + delta);
	if (ci->count == 0)
		ci->order = SWAP_ORDER_NONE;
	atomic_fetch_add(&si->inuse, (u64)(s64)delta);
	if (swap_cluster_want(si, ci, delta) == ci->list)
		return;
	swap_device_lock(si);
	swap_cluster_relist_locked(si, ci, delta);
	swap_device_unlock(si);
}

/* creating and destroying, statistics */

static unsigned swap_order_for(u64 bytes)
{
	unsigned order = 0;

	while (((u64)PAGE_SIZE << order) < bytes)
		order++;
	return order;
}

int swap_clusters_create(struct swap_info *si, u64 nslots)
{
	u32 nclusters = (u32)((nslots + SWAP_CLUSTER_SLOTS - 1) / SWAP_CLUSTER_SLOTS);
	u64 map_bytes = (u64)nclusters * SWAP_CLUSTER_SLOTS;

	si->map_order = swap_order_for(map_bytes);
	si->cluster_order = swap_order_for((u64)nclusters * sizeof(struct swap_cluster));
	si->map_block = page_alloc(si->map_order, PMM_ZERO);
	si->cluster_block = page_alloc(si->cluster_order, PMM_ZERO);
	if (!si->map_block || !si->cluster_block) {
		if (si->map_block)
			page_free(si->map_block, si->map_order);
		if (si->cluster_block)
			page_free(si->cluster_block, si->cluster_order);
		return -ENOMEM;
	}
	si->map = page_address(si->map_block);
	si->clusters = page_address(si->cluster_block);
	si->nslots = nslots;
	si->nclusters = nclusters;
	memset(si->map + nslots, SWAP_MAP_BAD, map_bytes - nslots);
	spin_lock_init(&si->lock, "swap_info");
	si->inuse = 0;
	swap_clusters_init(si);
	return 0;
}

void swap_clusters_destroy(struct swap_info *si)
{
	page_free(si->map_block, si->map_order);
	page_free(si->cluster_block, si->cluster_order);
	si->map = NULL;
	si->clusters = NULL;
}

u64 swap_clusters_inuse(struct swap_info *si)
{
	return atomic_load_relaxed(&si->inuse);
}

void swap_clusters_stats(struct swap_info *si, struct swap_stats *s)
{
	s->nslots = si->nslots;
	s->inuse = atomic_load_relaxed(&si->inuse);
	s->nclusters = si->nclusters;
	s->free_clusters = atomic_load_relaxed(&si->lists[SWAP_LIST_FREE].count);
	s->frag_clusters = atomic_load_relaxed(&si->lists[SWAP_LIST_FRAG].count);
	s->full_clusters = atomic_load_relaxed(&si->lists[SWAP_LIST_FULL].count);
	s->nonfull_clusters = s->nclusters - s->free_clusters - s->frag_clusters - s->full_clusters;
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
	swap_cluster_settle_locked(si, ci, (int)nr);
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

/*
 * Allocation hints, one set per CPU and written only by it: for each device
 * and run order, the slot offset + 1 where this CPU allocates next (0:
 * none), so each CPU keeps to its own cluster. A hint is only a guess,
 * checked under the cluster lock; gen drops hints left from an earlier
 * device of the same index.
 */
struct swap_cpu_hints {
	u32 next[SWAP_MAX_DEVS][SWAP_NR_ORDERS];
	u32 gen[SWAP_MAX_DEVS]; /* the swap_on() generation the hints belong to */
} __cacheline_aligned;

static struct swap_cpu_hints swap_hints __pcpu_data;

/* This CPU's hint for runs of @order on @si, after dropping those of older devices. */
static u32 *swap_hint(struct swap_info *si, unsigned order)
{
	struct swap_cpu_hints *ps = this_cpu_ptr(swap_hints);

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

s64 swap_cluster_alloc(struct swap_info *si, unsigned order)
{
	u64 nr = 1ull << order;
	u32 *hint;
	s64 off;

	off = swap_alloc_hinted(si, order);
	if (off < 0)
		off = swap_alloc_listed(si, order);
	hint = swap_hint(si, order);
	if (off < 0) {
		*hint = 0;
		return -1;
	}
	/* Next time continue after this run; a finished cluster leaves no hint. */
	*hint = (off + nr) % SWAP_CLUSTER_SLOTS ? (u32)(off + nr + 1) : 0;
	return off;
}

u64 swap_cluster_run_slots(struct swap_info *si, u64 offset)
{
	u8 order = atomic_load_relaxed(&swap_cluster_of(si, offset)->order);

	return order == SWAP_ORDER_NONE ? 1 : 1ull << order;
}

/* getting and putting what slots hold */

/* The map byte after adding @how to @m, or why it cannot be added. */
static int swap_get_step(u8 m, enum swap_hold how)
{
	u8 count = m & SWAP_MAP_COUNT;

	ASSERT(how != SWAP_HOLD_LAST);
	if (how == SWAP_HOLD_CACHE && (m & SWAP_HAS_CACHE))
		return -EEXIST;
	if (count == SWAP_MAP_BAD || (how == SWAP_HOLD_CACHE ? count == 0 : m == 0))
		return -ENOENT;
	if (how == SWAP_HOLD_CACHE)
		return m | SWAP_HAS_CACHE;
	return count == SWAP_MAP_MAX ? -EOVERFLOW : m + 1;
}

/* The map byte after dropping @how from @m, or -ENOENT if @m does not hold it. */
static int swap_put_step(u8 m, enum swap_hold how)
{
	u8 count = m & SWAP_MAP_COUNT;

	if (how == SWAP_HOLD_CACHE)
		return (m & SWAP_HAS_CACHE) ? m & ~SWAP_HAS_CACHE : -ENOENT;
	if (how == SWAP_HOLD_LAST || how == SWAP_HOLD_LAST_CL)
		return m == 1 ? 0 : -ENOENT;
	if (count == 0 || count == SWAP_MAP_BAD)
		return -ENOENT;
	return m - 1;
}

/* Cluster lock held: the first error @step gives for a slot of the range, or 0. */
static int swap_range_check_locked(struct swap_info *si, u64 offset, unsigned nr,
				   enum swap_hold how, int (*step)(u8 m, enum swap_hold how))
{
	unsigned i;

	for (i = 0; i < nr; i++) {
		int m = step(swap_map_get(si, offset + i), how);

		if (m < 0)
			return m;
	}
	return 0;
}

static bool swap_range_outside(u64 offset, unsigned nr)
{
	return nr == 0 || offset % SWAP_CLUSTER_SLOTS + nr > SWAP_CLUSTER_SLOTS;
}

int swap_cluster_get_range(struct swap_info *si, u64 offset, unsigned nr, enum swap_hold how)
{
	struct swap_cluster *ci = swap_cluster_of(si, offset);
	unsigned i;
	int err;

	if (swap_range_outside(offset, nr))
		return -ERANGE;
	swap_cluster_lock(ci);
	err = swap_range_check_locked(si, offset, nr, how, swap_get_step);
	for (i = 0; i < nr && !err; i++)
		swap_map_set(si, offset + i, (u8)swap_get_step(swap_map_get(si, offset + i), how));
	swap_cluster_unlock(ci);
	return err;
}

/* Cluster lock held: slots [@offset, @offset + @nr) hold nothing any more. */
static void swap_run_discard_locked(struct swap_info *si, u64 offset, unsigned nr)
{
	unsigned i;

	si->dev->ops->discard(si->dev, offset, nr);
	for (i = 0; i < nr; i++)
		swap_map_set(si, offset + i, 0);
}

/* Cluster lock held, the range checked: drops @how, releasing each run of emptied slots. */
static void swap_range_put_locked(struct swap_info *si, struct swap_cluster *ci, u64 offset,
				  unsigned nr, enum swap_hold how)
{
	unsigned i, run = 0, freed = 0;

	for (i = 0; i <= nr; i++) {
		int m = i < nr ? swap_put_step(swap_map_get(si, offset + i), how) : -1;

		if (m == 0) {
			run++;
			continue;
		}
		if (m > 0)
			swap_map_set(si, offset + i, (u8)m);
		if (run)
			swap_run_discard_locked(si, offset + i - run, run);
		freed += run;
		run = 0;
	}
	if (!freed)
		return;
	if (how == SWAP_HOLD_LAST_CL)
		swap_cluster_settle_cl_locked(si, ci, -(int)freed);
	else
		swap_cluster_settle_locked(si, ci, -(int)freed);
	this_cpu_add(PCPU_SWAP_SLOTS_FREED, freed);
}

int swap_cluster_put_range(struct swap_info *si, u64 offset, unsigned nr, enum swap_hold how)
{
	struct swap_cluster *ci = swap_cluster_of(si, offset);
	int err;

	if (swap_range_outside(offset, nr))
		return -ERANGE;
	/*
	 * The unlocked look may be stale; it only spares a round trip that
	 * would fail, and the check under the lock decides.
	 */
	if ((how == SWAP_HOLD_LAST || how == SWAP_HOLD_LAST_CL) && swap_map_get(si, offset) != 1)
		return -ENOENT;
	swap_cluster_lock(ci);
	err = swap_range_check_locked(si, offset, nr, how, swap_put_step);
	if (!err)
		swap_range_put_locked(si, ci, offset, nr, how);
	swap_cluster_unlock(ci);
	return err;
}
