/*
 * The pfn-keyed radix tree of device pagemaps (see mm/pin/pagemap.h). Four
 * levels of 512 slots cover 36-bit pfns (256 TiB); a leaf slot points at
 * the pagemap owning that pfn, so a lookup is four dependent loads, as an
 * xarray walk is. Nodes are whole frames from the buddy allocator.
 *
 * Lock order: pagemap_tree_lock only; it is never held while calling out.
 */
#include "mm/pin/pagemap.h"
#include "mm/counters.h"
#include "errno.h"
#include "kernel/percpu.h"
#include "kernel/spinlock.h"
#include "lib/atomic.h"
#include "mm/pmm.h"

PCPU_COUNTER(PCPU_PAGEMAP_LOOKUPS, "pagemap_lookups");
PCPU_COUNTER(PCPU_PAGEMAP_REFS, "pagemap_refs");

#define PAGEMAP_LEVELS 4
#define PAGEMAP_SLOT_BITS 9
#define PAGEMAP_SLOTS (1u << PAGEMAP_SLOT_BITS)
#define PAGEMAP_MAX_PFN (1ull << (PAGEMAP_LEVELS * PAGEMAP_SLOT_BITS))

struct pagemap_node {
	void *slot[PAGEMAP_SLOTS];
};

BUILD_ASSERT(sizeof(struct pagemap_node) == 4096);

static struct pagemap_node *tree_root;
static spinlock_t pagemap_tree_lock = SPINLOCK_INIT("pagemap-tree");
static u64 tree_nodes;
static unsigned tree_users; /* registered pagemaps */

static unsigned slot_index(u64 pfn, unsigned level)
{
	return (pfn >> ((PAGEMAP_LEVELS - 1 - level) * PAGEMAP_SLOT_BITS)) & (PAGEMAP_SLOTS - 1);
}

static struct pagemap_node *node_alloc(void)
{
	struct page *p = page_alloc(0, PMM_ZERO);

	if (!p)
		return NULL;
	tree_nodes++;
	return page_address(p);
}

/* The leaf slot for @pfn, creating nodes on the way when @create. Lock held. */
static void **leaf_slot_locked(u64 pfn, bool create)
{
	struct pagemap_node **link = &tree_root;

	for (unsigned level = 0; level < PAGEMAP_LEVELS; level++) {
		if (!*link) {
			if (!create || !(*link = node_alloc()))
				return NULL;
		}
		if (level == PAGEMAP_LEVELS - 1)
			return &(*link)->slot[slot_index(pfn, level)];
		link = (struct pagemap_node **)&(*link)->slot[slot_index(pfn, level)];
	}
	return NULL;
}

static void clear_range_locked(const struct dev_pagemap *pgmap, u64 end_pfn)
{
	for (u64 pfn = pgmap->start_pfn; pfn < end_pfn; pfn++) {
		void **slot = leaf_slot_locked(pfn, false);

		if (slot && *slot == pgmap)
			atomic_store_release(slot, NULL);
	}
}

static bool range_free_locked(const struct dev_pagemap *pgmap)
{
	for (u64 pfn = pgmap->start_pfn; pfn < pgmap->end_pfn; pfn++) {
		void **slot = leaf_slot_locked(pfn, false);

		if (slot && *slot)
			return false;
	}
	return true;
}

int pagemap_register(struct dev_pagemap *pgmap)
{
	unsigned long flags;
	int err = 0;
	u64 pfn;

	if (pgmap->start_pfn >= pgmap->end_pfn || pgmap->end_pfn > PAGEMAP_MAX_PFN)
		return -EINVAL;
	flags = spin_lock_irqsave(&pagemap_tree_lock);
	if (!range_free_locked(pgmap)) {
		err = -EINVAL;
		goto out;
	}
	/* Alive again (a pagemap_unregister() before left it dead), before it is found. */
	atomic_store_release(&pgmap->ref, 0);
	for (pfn = pgmap->start_pfn; pfn < pgmap->end_pfn; pfn++) {
		void **slot = leaf_slot_locked(pfn, true);

		if (!slot) {
			clear_range_locked(pgmap, pfn);
			err = -ENOMEM;
			goto out;
		}
		atomic_store_release(slot, (void *)pgmap);
	}
	tree_users++;
out:
	spin_unlock_irqrestore(&pagemap_tree_lock, flags);
	return err;
}

int pagemap_unregister(struct dev_pagemap *pgmap)
{
	unsigned long flags;

	/*
	 * One step from "no reference" to "dead": a lookup that found @pgmap
	 * before its slots are cleared below can no longer take a reference.
	 */
	if (atomic_cmpxchg(&pgmap->ref, 0, PAGEMAP_REF_DEAD) != 0)
		return -EBUSY;
	flags = spin_lock_irqsave(&pagemap_tree_lock);
	clear_range_locked(pgmap, pgmap->end_pfn);
	tree_users--;
	spin_unlock_irqrestore(&pagemap_tree_lock, flags);
	return 0;
}

struct dev_pagemap *pagemap_lookup(u64 pfn)
{
	struct pagemap_node *node = atomic_load_acquire(&tree_root);

	this_cpu_inc(PCPU_PAGEMAP_LOOKUPS);
	if (pfn >= PAGEMAP_MAX_PFN)
		return NULL;
	for (unsigned level = 0; node && level < PAGEMAP_LEVELS - 1; level++)
		node = atomic_load_acquire(&node->slot[slot_index(pfn, level)]);
	if (!node)
		return NULL;
	return atomic_load_acquire(&node->slot[slot_index(pfn, PAGEMAP_LEVELS - 1)]);
}

bool pagemap_tryget(struct dev_pagemap *pgmap)
{
	u32 old = atomic_load_relaxed(&pgmap->ref);

	/* Never up from PAGEMAP_REF_DEAD: that word said "no reference" to unregister. */
	for (;;) {
		u32 seen;

		if (old & PAGEMAP_REF_DEAD)
			return false;
		seen = atomic_cmpxchg(&pgmap->ref, old, old + 1);
		if (seen == old)
			return true;
		old = seen;
	}
}

struct dev_pagemap *pagemap_get(u64 pfn, struct dev_pagemap *cached)
{
	struct dev_pagemap *pgmap;

	if (cached) {
		if (pagemap_contains(cached, pfn))
			return cached;
		pagemap_put(cached);
	}
	pgmap = pagemap_lookup(pfn);
	if (pgmap && !pagemap_tryget(pgmap))
		return NULL;
	if (pgmap)
		this_cpu_inc(PCPU_PAGEMAP_REFS);
	return pgmap;
}

void pagemap_put(struct dev_pagemap *pgmap)
{
	atomic_fetch_sub(&pgmap->ref, 1);
}

u64 pagemap_tree_nodes(void)
{
	return tree_nodes;
}

static void free_subtree(struct pagemap_node *node, unsigned level)
{
	if (level < PAGEMAP_LEVELS - 1) {
		for (unsigned i = 0; i < PAGEMAP_SLOTS; i++)
			if (node->slot[i])
				free_subtree(node->slot[i], level + 1);
	}
	page_free(phys_to_page(virt_to_phys(node)), 0);
	tree_nodes--;
}

int pagemap_tree_destroy(void)
{
	unsigned long flags = spin_lock_irqsave(&pagemap_tree_lock);
	int err = tree_users ? -EBUSY : 0;

	if (!err && tree_root) {
		free_subtree(tree_root, 0);
		tree_root = NULL;
	}
	spin_unlock_irqrestore(&pagemap_tree_lock, flags);
	return err;
}
