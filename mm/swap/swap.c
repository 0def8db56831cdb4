/*
 * The swap device table (see mm/swap/swap.h), sole owner of swap_infos[]:
 * swap_on/swap_off, entry checks and reports, and the public calls that name
 * a device or entry; each checks here and hands one device's work to
 * mm/swap/swap_cluster.c. Locking (order in mm/swap/swap_cluster.h):
 * swap_lock serialises swap_on and swap_off; a device's active flag is
 * published with release, read with acquire; nothing from interrupts.
 */
#include "errno.h"
#include "kernel/panic.h"
#include "mm/swap/swap_internal.h"
#include "torture_hook.h"

static struct swap_info swap_infos[SWAP_MAX_DEVS];
static spinlock_t swap_lock = SPINLOCK_INIT("swap");
static u64 swap_nr_errors;
static u32 swap_gen; /* swap_lock */

/* devices */

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
		err = swap_clusters_create(si, dev->nslots);
	if (!err) {
		si->type = (unsigned)(si - swap_infos);
		si->dev = dev;
		if (++swap_gen == 0)
			swap_gen = 1;
		si->gen = swap_gen;
		*type = si->type;
		atomic_store_release(&si->active, true);
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
	else if (swap_clusters_inuse(si))
		err = -EBUSY;
	if (!err) {
		atomic_store_release(&si->active, false);
		swap_clusters_destroy(si);
		si->dev->ops->destroy(si->dev);
		si->dev = NULL;
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

struct swap_info *swap_info_of(unsigned type)
{
	if (type >= SWAP_MAX_DEVS || !atomic_load_acquire(&swap_infos[type].active))
		return NULL;
	return &swap_infos[type];
}

struct swap_dev *swap_dev_of(unsigned type)
{
	struct swap_info *si = swap_info_of(type);

	return si ? si->dev : NULL;
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

/* allocation */

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
	struct swap_info *si = swap_info_of(type);
	int order = swap_order_of(nr);
	s64 off;

	if (!si || order < 0)
		return -EINVAL;
	off = torture_hook_fail(TORTURE_FAIL_SWAP) ? -1 : swap_cluster_alloc(si, (unsigned)order);
	if (off < 0)
		return -ENOSPC;
	*e = swap_entry_make(type, (u64)off);
	return 0;
}

/* references and the has-cache flag */

/*
 * Adds @how to each of @nr slots from @e, one cluster lock round trip per
 * slot; on the first error drops it again from the ones done.
 */
static int swap_range_get(swp_entry_t e, unsigned nr, enum swap_hold how)
{
	struct swap_info *si = swap_info_get(e, nr);
	u64 off = swap_entry_offset(e);
	unsigned done, i;
	int err = 0;

	if (!si)
		return -EINVAL;
	for (done = 0; done < nr; done++) {
		err = swap_cluster_get_range(si, off + done, 1, how);
		if (err)
			break;
	}
	if (!err)
		return 0;
	/* What we added still holds each slot, unless its other holders left meanwhile. */
	for (i = done; i > 0; i--)
		swap_cluster_put_range(si, off + i - 1, 1, how);
	if (err == -ENOENT)
		swap_report(err, "slot is free", swap_entry_next(e, done));
	return err;
}

int swap_dup(swp_entry_t e, unsigned nr)
{
	return swap_range_get(e, nr, SWAP_HOLD_REF);
}

int swap_cache_add(swp_entry_t e, unsigned nr)
{
	return swap_range_get(e, nr, SWAP_HOLD_CACHE);
}

int swap_cache_del(swp_entry_t e, unsigned nr)
{
	struct swap_info *si = swap_info_get(e, nr);
	u64 off = swap_entry_offset(e);
	unsigned i;
	int err = 0;

	if (!si)
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		int r = swap_cluster_put_range(si, off + i, 1, SWAP_HOLD_CACHE);

		if (r && !err)
			err = r;
		if (r)
			swap_report(r, "no cache flag", swap_entry_next(e, i));
	}
	return err;
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
	struct swap_info *si = swap_info_of(type);

	if (!si)
		return -EINVAL;
	swap_clusters_stats(si, s);
	return 0;
}
