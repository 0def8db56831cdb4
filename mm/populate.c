/*
 * Installing pages from outside the fault path (see mm/mm.h): mm_map_page()
 * and mm_populate*(). They sit above mm/mm.c and mm/mapping/mapping.c because they
 * take a shareable region's mapping lock (mapping_install_lock()) around
 * mm.c's installers: kept in mm.c, they made mm.c and mapping.c include
 * each other's headers (the layering rule of docs/design.md).
 */
#include "errno.h"
#include "mm/mapping/mapping.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"

int mm_map_page(struct mm *mm, vaddr_t va, struct page *page)
{
	const struct mm_region *r;
	int err = -EFAULT;

	if (!IS_ALIGNED(va, PAGE_SIZE))
		return -EINVAL;
	read_lock(&mm->lock);
	r = mm_region_find_locked(mm, va);
	if (r) {
		bool held = mapping_install_lock(r);

		page_ref_inc(page);
		page_map_inc(page);
		err = mm_install_page_locked(mm, va, page, mm_region_prot(r));
		if (err)
			mm_page_drop(page);
		mapping_fault_unlock(r, held);
	}
	read_unlock(&mm->lock);
	return err;
}

/* One page of mm_populate(): read side held. */
static int mm_populate_page(struct mm *mm, vaddr_t va)
{
	const struct mm_region *r = mm_region_find_locked(mm, va);
	bool held;
	int err;

	if (!r || !(r->flags & MM_WRITE))
		return -EFAULT;
	if (!pt_lookup(mm->root, va, NULL, NULL, NULL))
		return 0;
	held = mapping_install_lock(r);
	err = mm_zero_page_locked(mm, r, va);
	mapping_fault_unlock(r, held);
	return err == -EEXIST ? 0 : err;
}

/* One block of mm_populate_folios(): read side held. */
static int mm_populate_folio(struct mm *mm, vaddr_t va, unsigned order)
{
	const struct mm_region *r = mm_region_find_locked(mm, va);
	unsigned i, n = 1u << order, used = 0;
	struct page *head;
	bool held;
	u64 swp;
	int err = 0;

	if (!r || !(r->flags & MM_WRITE) || va + ((u64)n << PAGE_SHIFT) > r->end)
		return -EFAULT;
	for (i = 0; i < n; i++) {
		struct pt_slot s;

		/* One walk per page: a mapping or a swap entry both make it used. */
		if (!pt_slot_find(mm->root, va + ((vaddr_t)i << PAGE_SHIFT), &s))
			used += pt_slot_mapped(&s, NULL, NULL) || pt_slot_swap(&s, &swp);
	}
	if (used)
		return used == n ? 0 : -EEXIST;
	head = mm_page_alloc(mm, order, PMM_ZERO);
	if (!head)
		return -ENOMEM;
	if (order && page_split(head)) {
		page_free(head, order);
		return -EINVAL;
	}
	held = mapping_install_lock(r);
	for (i = 0; i < n && !err; i++) {
		page_map_inc(head + i); /* the frame's reference becomes the mapping's */
		err = mm_install_page_locked(mm, va + ((vaddr_t)i << PAGE_SHIFT), head + i,
					     mm_region_prot(r));
		if (err)
			mm_page_drop(head + i); /* -EEXIST: a fault mapped it meanwhile */
	}
	mapping_fault_unlock(r, held);
	for (; i < n; i++)
		page_free(head + i, 0);
	return err;
}

int mm_populate_folios(struct mm *mm, vaddr_t start, u64 len, unsigned order)
{
	u64 size = PAGE_SIZE << order;
	int err;

	if (order > PMM_MAX_ORDER || !IS_ALIGNED(start, size) || !IS_ALIGNED(len, size))
		return -EINVAL;
	err = mm_check_range(start, len);
	if (err)
		return err;
	read_lock(&mm->lock);
	for (vaddr_t va = start; !err && va - start < len; va += size)
		err = mm_populate_folio(mm, va, order);
	read_unlock(&mm->lock);
	return err;
}

int mm_populate(struct mm *mm, vaddr_t start, u64 len)
{
	int err = mm_check_range(start, len);

	if (err)
		return err;
	read_lock(&mm->lock);
	for (vaddr_t va = start; !err && va - start < len; va += PAGE_SIZE)
		err = mm_populate_page(mm, va);
	read_unlock(&mm->lock);
	return err;
}
