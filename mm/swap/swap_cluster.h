/*
 * One swap device's clusters (mm/swap/swap_cluster.c): the device's record,
 * its clusters and their lists, and the calls that allocate slots and add
 * or drop what they hold. The lock order is written once, above struct swap_cluster.
 */
#ifndef MM_SWAP_CLUSTER_H
#define MM_SWAP_CLUSTER_H

#include "kernel/percpu.h"
#include "kernel/spinlock.h"
#include "lib/atomic.h"
#include "mm/swap/swap_types.h"
#include "mm/swap/swapdev.h"

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

/*
 * The swap locks, outermost first (this is the one place the order is written):
 *   swap_lock (mm/swap/swap.c)      swap_on/swap_off: which devices are in use
 *   swap_cluster.lock          one cluster: its slots' map bytes, count, order
 *   swap_info.lock             "the device lock": in-use count and the lists
 *   mm/pmm.c locks             frames freed by the device's discard
 * A CPU holds at most one cluster lock. The device lock is taken either alone
 * (to pick a cluster off a list) or inside one cluster lock (to settle the
 * books after that cluster's count changed), never the other way round. None
 * is taken from an interrupt handler, so none disables interrupts. Only
 * mm/swap/swap_cluster.c takes the cluster and device locks, and it counts every
 * acquisition per CPU (PCPU_SWAP_CLUSTER_LOCKS, PCPU_SWAP_DEVICE_LOCKS), so
 * benchmarks can report lock round trips per page exactly; swap_check.c's
 * uncounted device lock is no operation's.
 */
struct swap_cluster {
	spinlock_t lock;
	u16 count;	/* lock: slots holding a reference or the has-cache flag */
	u8 order;	/* lock: order of the runs it was claimed for; SWAP_ORDER_NONE if free */
	u8 list;	/* device lock: enum swap_list */
	u32 next, prev; /* device lock: links on that list */
} __cacheline_aligned;

/* A swap device: one entry of the device table (mm/swap/swap.c owns the table). */
struct swap_info {
	/* The cluster level's (mm/swap/swap_cluster.c), set up by swap_clusters_create(). */
	spinlock_t lock;			/* the device lock */
	struct swap_clist lists[SWAP_NR_LISTS]; /* device lock */
	/* Atomic adds only (a cluster-only put skips the device lock). */
	u64 inuse;
	u64 nslots;
	u32 nclusters;
	u8 *map; /* byte per slot, under its cluster's lock; atomic loads outside it */
	struct swap_cluster *clusters;
	struct page *map_block, *cluster_block;
	unsigned map_order, cluster_order;
	/* The device table's (mm/swap/swap.c): set by swap_on(), constant until swap_off(). */
	bool active;
	unsigned type;
	u32 gen; /* swap_on() generation, never 0: per-CPU hints of older devices are void */
	struct swap_dev *dev;
} __cacheline_aligned;

/* Usable slots of @ci: SWAP_CLUSTER_SLOTS except in a device's short last cluster. */
static inline u32 swap_cluster_avail(struct swap_info *si, struct swap_cluster *ci)
{
	u64 first = (u64)(ci - si->clusters) * SWAP_CLUSTER_SLOTS;

	return (u32)MIN((u64)SWAP_CLUSTER_SLOTS, si->nslots - first);
}

/* A slot's map byte: it changes under its cluster's lock, and may be read without it. */
static inline u8 swap_map_get(struct swap_info *si, u64 offset)
{
	return atomic_load_relaxed(&si->map[offset]);
}

/* mm/swap/swap_cluster.c: one device's clusters; no call takes a lock the caller holds */

/*
 * Allocates @si's swap map and clusters for @nslots slots (slots past the
 * end of the last cluster are marked bad) and puts every cluster on the free
 * list. swap_on() only, before the device is published. 0 or -ENOMEM
 * (nothing allocated).
 */
int swap_clusters_create(struct swap_info *si, u64 nslots);

/* Frees what swap_clusters_create() allocated. swap_off() only, with no slot in use. */
void swap_clusters_destroy(struct swap_info *si);

/* Slots of @si holding a reference or the has-cache flag (a racy snapshot). */
u64 swap_clusters_inuse(struct swap_info *si);

/* Fills @s from @si's counts and lists (a snapshot while others run). */
void swap_clusters_stats(struct swap_info *si, struct swap_stats *s);

/*
 * Takes a naturally aligned run of 2^@order slots of @si inside one
 * cluster, each with a count of 1, as swap_slot_alloc() describes. Returns
 * the first slot's offset, or -1 when no such run is free.
 */
s64 swap_cluster_alloc(struct swap_info *si, unsigned order);

/*
 * Slots per run the cluster holding @offset hands out (1 for a free
 * cluster), read without its lock: stable while the caller's slots there
 * stay in use, and a put checks everything again under the lock.
 */
u64 swap_cluster_run_slots(struct swap_info *si, u64 offset);

/* What a get adds to, or a put drops from, each slot of a range. */
enum swap_hold {
	SWAP_HOLD_REF,	 /* one reference: a mapping of the slot */
	SWAP_HOLD_CACHE, /* the has-cache flag */
	SWAP_HOLD_LAST,	 /* put only: the one reference that is all the slot holds */
	/* put only: as SWAP_HOLD_LAST, the device lock taken only if the cluster changes list */
	SWAP_HOLD_LAST_CL,
};

/*
 * Adds @how (a reference or the has-cache flag) to each of the @nr slots
 * from @offset of @si, which must lie in one cluster, under one lock round
 * trip of that cluster. All or nothing: returns 0, -ERANGE (the range
 * leaves its cluster; no lock taken), -ENOENT (a slot holds nothing),
 * -EOVERFLOW (a count at SWAP_MAP_MAX) or -EEXIST (the flag is set already).
 */
int swap_cluster_get_range(struct swap_info *si, u64 offset, unsigned nr, enum swap_hold how);

/*
 * Drops @how from each of the @nr slots from @offset of @si, which must lie
 * in one cluster, under one lock round trip of that cluster, and releases
 * the slots left holding nothing (their contents discarded, back to the
 * cluster) under one device lock inside it. All or nothing: returns 0,
 * -ERANGE (the range leaves its cluster; no lock taken) or -ENOENT (some
 * slot does not hold @how; for SWAP_HOLD_LAST, some slot holds anything but
 * exactly one reference). SWAP_HOLD_LAST first looks at the first slot
 * without the lock and gives up with no round trip when it cannot qualify;
 * SWAP_HOLD_LAST_CL does the same and takes the device lock only when the
 * cluster changes list (the in-use count is an atomic add either way).
 */
int swap_cluster_put_range(struct swap_info *si, u64 offset, unsigned nr, enum swap_hold how);

#endif
