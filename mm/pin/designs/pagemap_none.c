/*
 * pagemap none: after Alistair Popple's devmap removal (2025), a device
 * page pinned on its own refcount, no pagemap lookup or reference (.get
 * NULL: the walk pins directly). Safe because a fast pin reaches only a
 * mapped page and the unmap waits for this CPU's acknowledgement (the walk
 * runs with interrupts off); devmem_destroy() refuses referenced pages.
 */
#include "mm/pin/pagemap.h"
#include "mm/pin/pin.h"

const struct pin_pagemap_ops pin_pagemap_ops_none = {
	.d = { .name = "none", .desc = "no pagemap lookup or reference: the page refcount alone",
	       .source = "Alistair Popple, devmap removal (2025)", .unit = "call",
	       .promises = DESIGN_PROMISES(PROMISE(PCPU_PAGEMAP_LOOKUPS, 0, 1),
					   PROMISE(PCPU_PAGEMAP_REFS, 0, 1)) },
	.done = pagemap_done,
};
DESIGN_REGISTER(pin_pagemap_designs, pin_pagemap_ops_none, 20);
