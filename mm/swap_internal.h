/*
 * Inside the swap slot allocator (mm/swap.c: devices, entries, references;
 * mm/swap_cluster.c: cluster lists and allocation; mm/swap_free.c: the two
 * freeing designs; mm/swap_check.c: the consistency check; mm/swap_mm.c:
 * swap-out, swap-in and unmap of address spaces).
 *
 * Lock order, outermost first:
 *   swap_lock (mm/swap.c)      swap_on/swap_off: which devices are in use
 *   swap_cluster.lock          one cluster: its slots' map bytes, count, order
 *   swap_info.lock             "the device lock": in-use count and the lists
 *   mm/pmm.c locks             frames freed by the device's discard
 * A CPU holds at most one cluster lock. The device lock is taken either alone
 * (to pick a cluster off a list) or inside one cluster lock (to settle the
 * books after that cluster's count changed), never the other way round. None
 * is taken from an interrupt handler, so none disables interrupts. Every
 * acquisition made by an operation is counted per CPU, through the helpers
 * below, so benchmarks can report lock round trips per page exactly.
 */
#ifndef MM_SWAP_INTERNAL_H
#define MM_SWAP_INTERNAL_H

#include "kernel/percpu.h"
#include "kernel/spinlock.h"
#include "lib/atomic.h"
#include "mm/swap.h"
#include "mm/swapdev.h"

#define SWAP_NO_CLUSTER 0xffffffffu
#define SWAP_ORDER_NONE 0xff

/*
 * The lists a cluster can be on: free (count 0), full (every slot used),
 * frag (some slot free, but an allocation of its order found no aligned run),
 * and one non-full list per order (the runs the cluster was claimed for).
 */
enum swap_list {
	SWAP_LIST_FREE,
	SWAP_LIST_FRAG,
	SWAP_LIST_FULL,
	SWAP_LIST_NONFULL, /* + order */
	SWAP_NR_LISTS = SWAP_LIST_NONFULL + SWAP_NR_ORDERS,
};

/* A list of clusters linked by index. */
struct swap_clist {
	u32 head, tail;
	u32 count;
};

struct swap_cluster {
	spinlock_t lock;
	u16 count;	/* lock: slots holding a reference or the has-cache flag */
	u8 order;	/* lock: order of the runs it was claimed for; SWAP_ORDER_NONE if free */
	u8 list;	/* device lock: enum swap_list */
	u32 next, prev; /* device lock: links on that list */
} __cacheline_aligned;

struct swap_info {
	spinlock_t lock;			/* the device lock */
	struct swap_clist lists[SWAP_NR_LISTS]; /* device lock */
	u64 inuse;				/* device lock (atomic reads for stats) */
	/* Set by swap_on(), constant until swap_off(). */
	bool active;
	unsigned type;
	u32 gen; /* swap_on() generation, never 0: per-CPU hints of older devices are void */
	u64 nslots;
	u32 nclusters;
	u8 *map; /* byte per slot, under its cluster's lock; atomic loads outside it */
	struct swap_cluster *clusters;
	struct swap_dev *dev;
	struct page *map_block, *cluster_block;
	unsigned map_order, cluster_order;
} __cacheline_aligned;

extern struct swap_info swap_infos[SWAP_MAX_DEVS];

static inline struct swap_cluster *swap_cluster_of(struct swap_info *si, u64 offset)
{
	return &si->clusters[offset / SWAP_CLUSTER_SLOTS];
}

static inline u32 swap_cluster_index(struct swap_info *si, struct swap_cluster *ci)
{
	return (u32)(ci - si->clusters);
}

/* Usable slots of @ci: SWAP_CLUSTER_SLOTS except in a device's short last cluster. */
static inline u32 swap_cluster_avail(struct swap_info *si, struct swap_cluster *ci)
{
	u64 first = (u64)swap_cluster_index(si, ci) * SWAP_CLUSTER_SLOTS;

	return (u32)MIN((u64)SWAP_CLUSTER_SLOTS, si->nslots - first);
}

static inline u8 swap_map_get(struct swap_info *si, u64 offset)
{
	return atomic_load_relaxed(&si->map[offset]);
}

/* Map bytes change under the cluster lock, but are read without it (batched's precheck). */
static inline void swap_map_set(struct swap_info *si, u64 offset, u8 v)
{
	atomic_store_relaxed(&si->map[offset], v);
}

/* Counted lock round trips: the only way operations take swap locks. */
static inline void swap_cluster_lock(struct swap_cluster *ci)
{
	this_cpu_inc(PCPU_SWAP_CLUSTER_LOCKS);
	spin_lock(&ci->lock);
}

static inline void swap_cluster_unlock(struct swap_cluster *ci)
{
	spin_unlock(&ci->lock);
}

static inline void swap_device_lock(struct swap_info *si)
{
	this_cpu_inc(PCPU_SWAP_DEVICE_LOCKS);
	spin_lock(&si->lock);
}

static inline void swap_device_unlock(struct swap_info *si)
{
	spin_unlock(&si->lock);
}

/* mm/swap.c */

/*
 * The device of @e if @e and the @nr - 1 slots after it lie inside an active
 * device; otherwise counts and warns about a bad entry and returns NULL.
 */
struct swap_info *swap_info_get(swp_entry_t e, unsigned nr);

/* Counts a refused call and warns once per call site kind; returns @err. */
int swap_report(int err, const char *what, swp_entry_t e);

/* What mm/swap_mm.c plugs into mm/ once a device is on. */
struct mm_swap_hooks;
extern const struct mm_swap_hooks swap_mm_hooks;

/* mm/swap_cluster.c */

/* Puts every cluster of a new device on the free list. swap_on() only. */
void swap_clusters_init(struct swap_info *si);

/*
 * Cluster lock and device lock held, after @ci's count changed by @delta
 * slots: moves it to the list its count and order call for. A frag cluster
 * that just lost slots (@delta < 0) goes back to its non-full list.
 */
void swap_cluster_relist_locked(struct swap_info *si, struct swap_cluster *ci, int delta);

/* mm/swap_free.c */

/*
 * Cluster lock of @ci held: slots [@offset, @offset + @nr) of @ci hold
 * nothing any more. Discards their contents, clears their map bytes and,
 * under one device lock, takes them off the in-use count and relists @ci.
 */
void swap_range_release_locked(struct swap_info *si, struct swap_cluster *ci, u64 offset,
			       unsigned nr);

#endif
