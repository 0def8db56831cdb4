/*
 * Swap devices and slot references (see mm/swap.h): swap_on/swap_off, entry
 * checks and error reports, adding references and the has-cache flag, page
 * I/O through the backing device, and statistics. Allocation lives in
 * mm/swap_cluster.c, freeing in mm/swap_free.c.
 *
 * Locking (order in mm/swap_internal.h): swap_lock serialises swap_on and
 * swap_off; a device's active flag is published with release and read with
 * acquire. Map bytes change only under their cluster's lock. No lock is
 * taken from interrupt context.
 */
#include "errno.h"
#include "kernel/panic.h"
#include "lib/string.h"
#include "mm/mm.h"
#include "mm/pmm.h"
#include "mm/swap_internal.h"

struct swap_info swap_infos[SWAP_MAX_DEVS];
static spinlock_t swap_lock = SPINLOCK_INIT("swap");
static u64 swap_nr_errors;
static u32 swap_gen; /* swap_lock */

/* devices */

static unsigned swap_order_for(u64 bytes)
{
	unsigned order = 0;

	while (((u64)PAGE_SIZE << order) < bytes)
		order++;
	return order;
}

/* Allocates the map and clusters of @si for @nslots slots; slots past the end are bad. */
static int swap_tables_alloc(struct swap_info *si, u64 nslots)
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
	return 0;
}

int swap_on(struct swap_dev *dev, unsigned *type)
{
	struct swap_info *si = NULL;
	unsigned i;
	int err = -EBUSY;

	if (!dev || dev->nslots == 0 || dev->nslots > SWAP_MAX_SLOTS)
		return -EINVAL;
	spin_lock(&swap_lock);
	for (i = 0; i < SWAP_MAX_DEVS && !si; i++)
		if (!swap_infos[i].active)
			si = &swap_infos[i];
	if (si)
		err = swap_tables_alloc(si, dev->nslots);
	if (!err) {
		spin_lock_init(&si->lock, "swap_info");
		si->type = (unsigned)(si - swap_infos);
		si->dev = dev;
		si->inuse = 0;
		if (++swap_gen == 0)
			swap_gen = 1;
		si->gen = swap_gen;
		swap_clusters_init(si);
		*type = si->type;
		atomic_store_release(&si->active, true);
		/* Before any swap entry can exist, the mm code learns where to send them. */
		atomic_store_release(&mm_swap, &swap_mm_hooks);
	}
	spin_unlock(&swap_lock);
	return err;
}

int swap_on_ram(u64 nslots, unsigned *type)
{
	struct swap_dev *dev;
	int err;

	if (nslots == 0 || nslots > SWAP_MAX_SLOTS)
		return -EINVAL;
	err = swap_ram_create(nslots, &dev);
	if (err)
		return err;
	err = swap_on(dev, type);
	if (err)
		dev->ops->destroy(dev);
	return err;
}

int swap_off(unsigned type)
{
	struct swap_info *si = &swap_infos[type < SWAP_MAX_DEVS ? type : 0];
	int err = 0;

	if (type >= SWAP_MAX_DEVS)
		return -EINVAL;
	spin_lock(&swap_lock);
	if (!si->active)
		err = -EINVAL;
	else if (atomic_load_relaxed(&si->inuse))
		err = -EBUSY;
	if (!err) {
		atomic_store_release(&si->active, false);
		page_free(si->map_block, si->map_order);
		page_free(si->cluster_block, si->cluster_order);
		si->dev->ops->destroy(si->dev);
		si->dev = NULL;
		si->map = NULL;
		si->clusters = NULL;
	}
	spin_unlock(&swap_lock);
	return err;
}

/* entries and errors */

int swap_report(int err, const char *what, swp_entry_t e)
{
	atomic_inc(&swap_nr_errors);
	WARN_ONCE(true, "swap: %s: entry 0x%lx (type %u, offset %lu) refused (%s)", what,
		  (unsigned long)e.val, swap_entry_type(e), (unsigned long)swap_entry_offset(e),
		  errno_name(err));
	return err;
}

u64 swap_errors(void)
{
	return atomic_load_relaxed(&swap_nr_errors);
}

/* The active device of @e with @nr slots from it inside, or NULL; reports nothing. */
static struct swap_info *swap_info_find(swp_entry_t e, unsigned nr)
{
	unsigned type = swap_entry_type(e);
	struct swap_info *si;
	u64 off = swap_entry_offset(e);

	if (!(e.val & SWP_ENTRY_MARK) || type >= SWAP_MAX_DEVS || nr == 0)
		return NULL;
	si = &swap_infos[type];
	if (!atomic_load_acquire(&si->active) || off >= si->nslots || nr > si->nslots - off)
		return NULL;
	return si;
}

struct swap_info *swap_info_get(swp_entry_t e, unsigned nr)
{
	struct swap_info *si = swap_info_find(e, nr);

	if (!si)
		swap_report(-EINVAL, "bad entry or range", e);
	return si;
}

struct swap_dev *swap_dev_of(unsigned type)
{
	if (type >= SWAP_MAX_DEVS || !atomic_load_acquire(&swap_infos[type].active))
		return NULL;
	return swap_infos[type].dev;
}

int swap_map_read(swp_entry_t e)
{
	struct swap_info *si = swap_info_find(e, 1);

	return si ? swap_map_get(si, swap_entry_offset(e)) : -EINVAL;
}

unsigned swap_count(swp_entry_t e)
{
	int m = swap_map_read(e);

	return m < 0 ? 0 : (unsigned)m & SWAP_MAP_COUNT;
}

/* adding references and the has-cache flag */

/* Applies @step to one slot under its cluster lock; returns its result. */
static int swap_slot_update(struct swap_info *si, u64 off, int (*step)(u8 *m))
{
	struct swap_cluster *ci = swap_cluster_of(si, off);
	u8 m;
	int err;

	swap_cluster_lock(ci);
	m = swap_map_get(si, off);
	err = step(&m);
	if (!err)
		swap_map_set(si, off, m);
	swap_cluster_unlock(ci);
	return err;
}

static int swap_step_dup(u8 *m)
{
	u8 count = *m & SWAP_MAP_COUNT;

	if (*m == 0 || count == SWAP_MAP_BAD)
		return -ENOENT;
	if (count == SWAP_MAP_MAX)
		return -EOVERFLOW;
	(*m)++;
	return 0;
}

/* Undoes swap_step_dup: the count it raised is at least 1, so the slot stays held. */
static int swap_step_undup(u8 *m)
{
	(*m)--;
	return 0;
}

static int swap_step_cache_add(u8 *m)
{
	if (*m & SWAP_HAS_CACHE)
		return -EEXIST;
	if ((*m & SWAP_MAP_COUNT) == 0 || (*m & SWAP_MAP_COUNT) == SWAP_MAP_BAD)
		return -ENOENT;
	*m |= SWAP_HAS_CACHE;
	return 0;
}

static int swap_step_cache_undo(u8 *m)
{
	*m &= (u8)~SWAP_HAS_CACHE;
	return 0;
}

/* Applies @step to each of @nr slots; on the first error undoes the ones done. */
static int swap_range_update(swp_entry_t e, unsigned nr, int (*step)(u8 *m), int (*undo)(u8 *m))
{
	struct swap_info *si = swap_info_get(e, nr);
	u64 off = swap_entry_offset(e);
	unsigned done, i;
	int err = 0;

	if (!si)
		return -EINVAL;
	for (done = 0; done < nr; done++) {
		err = swap_slot_update(si, off + done, step);
		if (err)
			break;
	}
	if (!err)
		return 0;
	for (i = done; i > 0; i--)
		swap_slot_update(si, off + i - 1, undo);
	if (err == -ENOENT)
		swap_report(err, "slot is free", swap_entry_next(e, done));
	return err;
}

int swap_dup(swp_entry_t e, unsigned nr)
{
	return swap_range_update(e, nr, swap_step_dup, swap_step_undup);
}

int swap_cache_add(swp_entry_t e, unsigned nr)
{
	return swap_range_update(e, nr, swap_step_cache_add, swap_step_cache_undo);
}

/* I/O */

/* The device of @e if its slot is allocated; else reports and returns NULL with *@err set. */
static struct swap_info *swap_io_check(swp_entry_t e, int *err)
{
	struct swap_info *si = swap_info_get(e, 1);
	u8 m;

	*err = -EINVAL;
	if (!si)
		return NULL;
	m = swap_map_get(si, swap_entry_offset(e));
	if (m == 0 || m == SWAP_MAP_BAD) {
		*err = swap_report(-ENOENT, "I/O on a free slot", e);
		return NULL;
	}
	return si;
}

int swap_write_page(swp_entry_t e, const void *buf)
{
	int err;
	struct swap_info *si = swap_io_check(e, &err);

	if (!si)
		return err;
	return si->dev->ops->write_slot(si->dev, swap_entry_offset(e), buf);
}

int swap_read_page(swp_entry_t e, void *buf)
{
	int err;
	struct swap_info *si = swap_io_check(e, &err);

	if (!si)
		return err;
	return si->dev->ops->read_slot(si->dev, swap_entry_offset(e), buf);
}

/* statistics */

int swap_stats_get(unsigned type, struct swap_stats *s)
{
	struct swap_info *si;

	if (type >= SWAP_MAX_DEVS || !atomic_load_acquire(&swap_infos[type].active))
		return -EINVAL;
	si = &swap_infos[type];
	s->nslots = si->nslots;
	s->inuse = atomic_load_relaxed(&si->inuse);
	s->nclusters = si->nclusters;
	s->free_clusters = atomic_load_relaxed(&si->lists[SWAP_LIST_FREE].count);
	s->frag_clusters = atomic_load_relaxed(&si->lists[SWAP_LIST_FRAG].count);
	s->full_clusters = atomic_load_relaxed(&si->lists[SWAP_LIST_FULL].count);
	s->nonfull_clusters = s->nclusters - s->free_clusters - s->frag_clusters - s->full_clusters;
	return 0;
}
