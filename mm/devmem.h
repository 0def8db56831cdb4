/*
 * "Device memory" for the pinning tests and the pagemap benchmark: RAM set
 * aside as blocks of frames, each block owned by one device pagemap
 * registered in the pfn tree (mm/pin/pagemap.h), its frames marked PG_DEVICE
 * and made order-0 pages that can be mapped and pinned one by one.
 */
#ifndef MM_DEVMEM_H
#define MM_DEVMEM_H

#include "mm/pin/pagemap.h"
#include "types.h"

#define DEVMEM_MAX_RANGES 16

struct devmem {
	unsigned nranges, order; /* each range is one block of 2^order frames */
	struct dev_pagemap pgmap[DEVMEM_MAX_RANGES];
	struct page *first[DEVMEM_MAX_RANGES];
};

/*
 * Sets aside @nranges blocks of 2^@order frames as device memory, one
 * pagemap each. Task context. Returns 0, -EINVAL or -ENOMEM (nothing kept).
 */
int devmem_create(struct devmem *d, unsigned nranges, unsigned order);

/*
 * Gives the frames back. Returns 0, or -EBUSY (nothing done) while a
 * pagemap holds references or a page is still mapped or pinned.
 */
int devmem_destroy(struct devmem *d);

/* Page @i (0 .. nranges * 2^order - 1) of the device memory. */
struct page *devmem_page(const struct devmem *d, u64 i);

#endif
