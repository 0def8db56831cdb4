/*
 * Swap slots: the devices, their slot allocator (clusters of
 * SWAP_CLUSTER_SLOTS slots, one lock each; a folio gets an aligned run in one
 * cluster) and the entries that name a slot. Freeing is a design of
 * swap_free_designs[]. Callers take no lock; task context, never from a
 * handler; swap_on()/swap_off() must not race other calls on that device.
 */
#ifndef MM_SWAP_H
#define MM_SWAP_H

#include "mm/counters.h"
#include "compiler.h"
#include "kernel/design.h"
#include "kernel/percpu.h"
#include "mm/pt.h"
#include "mm/swap/swap_types.h"
#include "mm/swap/swapdev.h"
#include "types.h"

/*
 * Starts using @dev (whose slots must number 1..SWAP_MAX_SLOTS) as a swap
 * device, which takes it over: swap_off() destroys it. Allocates the swap
 * map and the clusters (two blocks of frames; 64 MiB of swap takes five
 * frames). Returns 0 with *@type set, -EINVAL, -EBUSY (every device in use)
 * or -ENOMEM (then @dev is still the caller's).
 */
int swap_on(struct swap_dev *dev, unsigned *type);

/* swap_on() of a new RAM device (mm/swap/swapdev.h) of @nslots slots. */
int swap_on_ram(u64 nslots, unsigned *type);

/*
 * Stops using device @type and destroys its swap_dev. Returns 0, -EINVAL if
 * @type is not in use, or -EBUSY (and nothing changes) while a slot still
 * holds a reference or the has-cache flag.
 */
int swap_off(unsigned type);

/*
 * Allocates a naturally aligned run of @nr slots (a power of two up to
 * SWAP_CLUSTER_SLOTS) inside one cluster of device @type, each with a count
 * of 1: the one mapping the caller is about to make. It is taken from this
 * CPU's current cluster for that run size, else a free cluster, else a
 * non-full one. Returns 0 with *@e naming the first slot, -ENOSPC when no
 * such run is free (nothing changes; a caller may split the folio and ask
 * for single slots), or -EINVAL for a bad @type or @nr.
 */
int swap_slot_alloc(unsigned type, unsigned nr, swp_entry_t *e);

/*
 * Adds one reference to each of the @nr slots from @e (a mapping copied,
 * say on fork). Slots must hold a reference or the has-cache flag. All or
 * nothing: returns 0, -EINVAL (bad entry or range), -ENOENT (a free slot)
 * or -EOVERFLOW (a count at SWAP_MAP_MAX); on error nothing changes.
 */
int swap_dup(swp_entry_t e, unsigned nr);

/*
 * Sets the has-cache flag on each of the @nr slots from @e: a page in memory
 * keeps the slots until swap_cache_del(). All or nothing: returns 0,
 * -EINVAL, -ENOENT (a slot with no reference) or -EEXIST (already set).
 */
int swap_cache_add(swp_entry_t e, unsigned nr);

/*
 * Clears the has-cache flag of each of the @nr slots from @e, freeing those
 * left with no reference. Returns 0, -EINVAL (bad entry or range, nothing
 * done) or -ENOENT (some slot had no flag: it is left alone, the rest done).
 */
int swap_cache_del(swp_entry_t e, unsigned nr);

/*
 * The two designs of freeing the swap entries of an unmapped range. free()
 * drops one reference from each of the @nr slots from @e (any @nr >= 1; the
 * slots are contiguous, typically a large folio's run) and frees each slot
 * left with neither a reference nor the has-cache flag: its contents are
 * discarded and it returns to its cluster. Returns 0, -EINVAL for a bad
 * entry or range (nothing done, counted in swap_errors() and warned about),
 * or -ENOENT when some slot held no reference (that slot is left as it was
 * and counted; the others are still freed). Both designs leave the same
 * state; they differ in lock round trips (per-CPU counters
 * PCPU_SWAP_CLUSTER_LOCKS and PCPU_SWAP_DEVICE_LOCKS):
 *   naive:   per slot, one cluster lock and (when the slot is freed) one
 *            device lock;
 *   batched: when the run lies in one cluster and every slot has count 1
 *            and no has-cache flag, one cluster lock and one device lock for
 *            the whole run; otherwise the naive path (PCPU_SWAP_BATCH_FALLBACKS).
 */
struct swap_free_ops {
	struct design d; /* first: swap_free_designs[] holds &ops.d (kernel/design.h) */
	int (*free)(swp_entry_t e, unsigned nr);
};
extern const struct swap_free_ops swap_free_ops_naive, swap_free_ops_batched;
extern const struct swap_free_ops swap_free_ops_cluster;
/* Every swap-free design, naive first, NULL-terminated. */
extern const struct design *swap_free_designs[DESIGN_TABLE_SLOTS];

static inline const struct swap_free_ops *swap_free_of(const struct design *d)
{
	return container_of(d, struct swap_free_ops, d);
}

/*
 * Copies the page @buf (4 KiB) to the slot @e names / the slot's contents to
 * @buf. The slot must be allocated (hold a reference or the has-cache flag).
 * Returns 0, -EINVAL (bad entry, counted), -ENOENT (a free slot, or read of
 * a slot never written), or the device's error (-ENOMEM).
 */
int swap_write_page(swp_entry_t e, const void *buf);
int swap_read_page(swp_entry_t e, void *buf);

/*
 * The swap map byte of the slot @e names (count | SWAP_HAS_CACHE), or
 * -EINVAL for a bad entry (not counted as an error). A racy snapshot.
 */
int swap_map_read(swp_entry_t e);

/* References to the slot @e names (0 for a free slot or a bad entry). */
unsigned swap_count(swp_entry_t e);

/* Fills @s for device @type; 0 or -EINVAL. A snapshot while others run. */
int swap_stats_get(unsigned type, struct swap_stats *s);

/* The backing device of @type, or NULL. */
struct swap_dev *swap_dev_of(unsigned type);

/*
 * Checks device @type against its invariants: every cluster's count equals
 * its nonzero map bytes, map bytes are valid, slots past the end are marked
 * bad, each cluster is on the one list its count and order call for, the
 * lists are well linked and their lengths add up, and the device's in-use
 * count is the sum of the clusters'. Call only while no other CPU works on
 * the device. Returns 0, or -EINVAL with *@why describing the first fault.
 */
int swap_check_consistency(unsigned type, const char **why);

/* Swapping address spaces (mm/swap/swap_mm.c) */

struct mm;

/* Largest folio swap_out_folio() takes: 256 KiB, a run unmap never splits (mm/pt.h). */
#define SWAP_OUT_MAX_PAGES PT_GATHER_SWAPS

/*
 * Swaps out the folio of @nr pages (a power of two up to
 * SWAP_OUT_MAX_PAGES) at @va (aligned to its size) of @mm to device @type:
 * takes a run of @nr slots, turns the pages' leaves into swap entries and
 * flushes them from every CPU (one gather), copies the pages to the device
 * and frees the frames. Each page must be a private anonymous page mapped
 * by this mapping alone (one map count, no other reference or pin). Task
 * context, interrupts on; takes @mm's write side. Returns 0, -EINVAL (bad
 * arguments, a shared region), -EFAULT (not inside one region), -ENOENT (a
 * page is not present), -EBUSY (a page is shared or pinned, also when
 * pinned locklessly during the swap-out), -ENOSPC (no run of @nr slots
 * free), -ETIMEDOUT (the flush did not complete) or a device error; on
 * error the mapping is as it was.
 */
int swap_out_folio(struct mm *mm, vaddr_t va, unsigned nr, unsigned type);

struct pt_gather;
/*
 * swap_out_folio() through gather @g, fresh from mm_gather_init() or a TLB
 * design's tlb_batch_begin() (mm/tlb/tlb.h): the @nr pages' leaves go into it,
 * each after @g's leaf hook (naive's per-page flush), and it is finished
 * here, once, before the copies. Reclaim's batch of pages is one call: the
 * design decides how many shootdown rounds it costs (bench/bench_reclaim.c).
 * Pages need not be one folio, only 4 KiB frames as swap_out_folio() says.
 */
int swap_out_gather(struct mm *mm, vaddr_t va, unsigned nr, unsigned type, struct pt_gather *g);

/*
 * Chooses the freeing design unmap and swap-in use for the slots of @mm's
 * swap entries (an entry of swap_free_designs[]; NULL: the default,
 * batched). Only while no unmap or fault of @mm runs; a fork inherits it.
 */
void swap_mm_set_free(struct mm *mm, const struct swap_free_ops *ops);

/* Bad calls refused so far (bad entries, frees of free slots, ...), all devices. */
u64 swap_errors(void);

#endif
