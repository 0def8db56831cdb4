/*
 * Device pagemaps: ranges of "device memory" frames, each owned by a struct
 * dev_pagemap with its own reference count, in a radix tree keyed by pfn.
 * Pinning a device page needs a reference on its pagemap (pagemap_get()).
 * Locking: registration and removal take pagemap_tree_lock; lookups are
 * lockless, and removal marks the count PAGEMAP_REF_DEAD in one atomic step,
 * so a racing lookup either holds its reference first or gets none.
 */
#ifndef MM_PAGEMAP_H
#define MM_PAGEMAP_H

#include "mm/counters.h"
#include "compiler.h"
#include "types.h"

struct dev_pagemap {
	u64 start_pfn, end_pfn; /* [start, end) */
	unsigned id;
	u32 ref __cacheline_aligned; /* references held by pinners: its own cache line */
};

/* In dev_pagemap.ref: unregistered, no reference can be taken (until registered again). */
#define PAGEMAP_REF_DEAD (1u << 31)

/* Whether @pfn lies in @pgmap. */
static inline bool pagemap_contains(const struct dev_pagemap *pgmap, u64 pfn)
{
	return pfn >= pgmap->start_pfn && pfn < pgmap->end_pfn;
}

/*
 * Registers @pgmap over its pfn range, which must not overlap another.
 * Returns 0, -EINVAL (empty or overlapping range) or -ENOMEM (nothing
 * registered then).
 */
int pagemap_register(struct dev_pagemap *pgmap);

/*
 * Removes @pgmap from the tree; from then on no reference can be taken on
 * it. Returns 0, or -EBUSY while it has references (nothing changed).
 */
int pagemap_unregister(struct dev_pagemap *pgmap);

/* The pagemap owning @pfn, or NULL; one tree walk (counted). No reference taken. */
struct dev_pagemap *pagemap_lookup(u64 pfn);

/*
 * Returns @pfn's pagemap with a reference held. If @cached (a pagemap the
 * caller holds a reference on) covers @pfn it is returned as it is, with no
 * walk and no new reference; otherwise @cached's reference is dropped, the
 * tree is walked, and a reference is taken on the result. NULL when @pfn is
 * no device memory.
 */
struct dev_pagemap *pagemap_get(u64 pfn, struct dev_pagemap *cached);

/*
 * Takes a reference on @pgmap, a pointer pagemap_lookup() returned, unless
 * pagemap_unregister() has removed it meanwhile. Returns whether it did.
 */
bool pagemap_tryget(struct dev_pagemap *pgmap);

/* Drops a reference taken by pagemap_get() or pagemap_tryget(). */
void pagemap_put(struct dev_pagemap *pgmap);

/* Tree nodes allocated (for tests: all go back with pagemap_tree_destroy()). */
u64 pagemap_tree_nodes(void);

/* Frees every tree node; only when no pagemap is registered. Returns 0 or -EBUSY. */
int pagemap_tree_destroy(void);

#endif
