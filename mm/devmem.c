/*
 * Device memory set aside from RAM (see mm/devmem.h). Creation and
 * destruction run in task context on one CPU; the pages themselves are
 * then used concurrently through the mapping and pinning code.
 */
#include "mm/devmem.h"
#include "errno.h"
#include "kernel/panic.h"
#include "lib/string.h"
#include "mm/pmm.h"

/* Gives back the frames of range @r, whose pagemap is no longer registered. */
static void devmem_free_range(struct devmem *d, unsigned r)
{
	struct page *p = d->first[r];

	for (u64 i = 0; i < (1ull << d->order); i++) {
		page_clear_flags(&p[i], PG_DEVICE);
		page_free(&p[i], 0);
	}
}

/* Registers the pagemaps of ranges [0, @n) again after a refused destroy. */
static void devmem_reregister(struct devmem *d, unsigned n)
{
	while (n--) {
		/* The tree nodes for these pfns are still there: this cannot fail. */
		int err = pagemap_register(&d->pgmap[n]);

		ASSERT(!err);
	}
}

/* Unregisters every range's pagemap, or none: -EBUSY if one holds references. */
static int devmem_unregister_all(struct devmem *d)
{
	for (unsigned r = 0; r < d->nranges; r++) {
		int err = pagemap_unregister(&d->pgmap[r]);

		if (err) {
			devmem_reregister(d, r);
			return err;
		}
	}
	return 0;
}

static int devmem_add_range(struct devmem *d, unsigned r)
{
	struct page *p = page_alloc(d->order, PMM_ZERO);
	int err;

	if (!p)
		return -ENOMEM;
	page_split(p);
	for (u64 i = 0; i < (1ull << d->order); i++)
		page_set_flags(&p[i], PG_DEVICE);
	d->first[r] = p;
	d->pgmap[r] = (struct dev_pagemap){ .start_pfn = page_to_pfn(p),
					    .end_pfn = page_to_pfn(p) + (1ull << d->order),
					    .id = r };
	err = pagemap_register(&d->pgmap[r]);
	if (err) {
		for (u64 i = 0; i < (1ull << d->order); i++) {
			page_clear_flags(&p[i], PG_DEVICE);
			page_free(&p[i], 0);
		}
	}
	return err;
}

int devmem_create(struct devmem *d, unsigned nranges, unsigned order)
{
	int err = 0;

	if (!nranges || nranges > DEVMEM_MAX_RANGES || order > PMM_MAX_ORDER)
		return -EINVAL;
	memset(d, 0, sizeof(*d));
	d->order = order;
	for (unsigned r = 0; r < nranges && !err; r++) {
		err = devmem_add_range(d, r);
		if (!err)
			d->nranges++;
	}
	if (err && d->nranges) {
		/* Nothing handed out yet: no pin can hold a pagemap reference. */
		int busy = devmem_unregister_all(d);

		ASSERT(!busy);
		while (d->nranges)
			devmem_free_range(d, --d->nranges);
	}
	return err;
}

/* Whether a page of @d is still mapped or holds references besides its own. */
static bool devmem_pages_in_use(const struct devmem *d)
{
	for (unsigned r = 0; r < d->nranges; r++) {
		for (u64 i = 0; i < (1ull << d->order); i++)
			if (page_ref_count(&d->first[r][i]) != 1 || page_mapcount(&d->first[r][i]))
				return true;
	}
	return false;
}

int devmem_destroy(struct devmem *d)
{
	/*
	 * Pagemaps first: once unregistered, no pin that needs a pagemap
	 * reference can start, so the page check after it sees every such
	 * pin; a pin without one (pagemap design none) only reaches a page
	 * still mapped, which the check refuses too.
	 */
	int err = devmem_unregister_all(d);

	if (err)
		return err;
	if (devmem_pages_in_use(d)) {
		devmem_reregister(d, d->nranges);
		return -EBUSY;
	}
	while (d->nranges)
		devmem_free_range(d, --d->nranges);
	return 0;
}

struct page *devmem_page(const struct devmem *d, u64 i)
{
	return &d->first[i >> d->order][i & ((1ull << d->order) - 1)];
}
