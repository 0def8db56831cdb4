/*
 * pagemap cached: Keith Busch, "mm: faster get user pages" (2018): the
 * last pagemap kept across the pages of a call while they fall in it, one
 * lookup and reference per range crossed (trait counts_ranges).
 */
#include "mm/pin/pagemap.h"
#include "mm/pin/pin.h"

static struct dev_pagemap *pagemap_get_cached(u64 pfn, struct dev_pagemap *last)
{
	return pagemap_get(pfn, last);
}

static struct dev_pagemap *pagemap_after_cached(struct dev_pagemap *pgmap)
{
	return pgmap;
}

const struct pin_pagemap_ops pin_pagemap_ops_cached = {
	.d = { .name = "cached", .desc = "keeps the last pagemap while pages fall in it",
	       .source = "Keith Busch, \"mm: faster get user pages\" (2018)", .unit = "range",
	       .counts_ranges = true,
	       .promises = DESIGN_PROMISES(PROMISE(PCPU_PAGEMAP_LOOKUPS, 1, 1),
					   PROMISE(PCPU_PAGEMAP_REFS, 1, 1)) },
	.get = pagemap_get_cached,
	.after_page = pagemap_after_cached,
	.done = pagemap_done,
};
DESIGN_REGISTER(pin_pagemap_designs, pin_pagemap_ops_cached, 10);
