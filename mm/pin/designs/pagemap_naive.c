/*
 * pagemap naive: get_user_pages before Keith Busch's 2018 change: the
 * device page's pagemap looked up in the pfn tree and referenced for every
 * page. The baseline of pin_pagemap_designs[] (order 0).
 */
#include "mm/pin/pagemap.h"
#include "mm/pin/pin.h"

static struct dev_pagemap *pagemap_get_naive(u64 pfn, struct dev_pagemap *last)
{
	(void)last;
	return pagemap_get(pfn, NULL);
}

static struct dev_pagemap *pagemap_after_naive(struct dev_pagemap *pgmap)
{
	pagemap_put(pgmap);
	return NULL;
}

const struct pin_pagemap_ops pin_pagemap_ops_naive = {
	.d = { .name = "naive",
	       .desc = "looks the pagemap up and takes a reference per device page",
	       .source = "get_user_pages before Busch 2018", .unit = "page",
	       .promises = DESIGN_PROMISES(PROMISE(PCPU_PAGEMAP_LOOKUPS, 1, 1),
					   PROMISE(PCPU_PAGEMAP_REFS, 1, 1)) },
	.get = pagemap_get_naive,
	.after_page = pagemap_after_naive,
	.done = pagemap_done,
};
DESIGN_REGISTER(pin_pagemap_designs, pin_pagemap_ops_naive, 0);
