/*
 * Pin accounting on struct page (declared in mm/page.h): counts change
 * atomically, a pin takes a reference only while the refcount is above zero,
 * and the unpin that drops the last reference frees the page. Apart from
 * mm/page.c because of that free: page.c calling page_free() back would make
 * it and mm/pmm.c a circle (docs/design.md, layering rules).
 */
#include "errno.h"
#include "mm/mm_hook.h"
#include "mm/page.h"
#include "mm/pmm.h"

/*
 * Adds @n to *@v unless *@v is 0 or below (the page was freed) or the sum
 * would pass @max. Returns the value it found: it added exactly when that
 * is above 0 and at most @max - @n.
 */
static s32 page_add_if_live(s32 *v, s32 n, s32 max)
{
	s32 old = atomic_load_relaxed(v);

	for (;;) {
		s32 seen;

		if (old <= 0 || old > max - n)
			return old;
		seen = atomic_cmpxchg(v, old, old + n);
		if (seen == old)
			return old;
		old = seen;
	}
}

int page_pin_nr(struct page *p, u32 nr)
{
	bool large = page_is_large_head(p);
	s32 add;
	s32 old;

	if (!page_test_flags(p, PG_HEAD) || nr == 0 || nr > PAGE_REF_MAX / PIN_BIAS)
		return -EINVAL;
	add = large ? (s32)nr : (s32)nr * PIN_BIAS;
	mm_hook_at(MM_HOOK_PIN_CHECKED, p);
	/*
	 * Add unless zero, never add and back out: the page may have been
	 * freed since the check above (a COW fault dropped the last
	 * reference), and the allocator's next owner sets refcount = 1 with a
	 * plain store; an add in flight then would meet that store, and its
	 * back-out leave the new owner at 1 - PIN_BIAS. A page freed and
	 * allocated again before the add is pinned here; the caller's
	 * re-check of the entry finds it changed and unpins (mm/pin/pin.c).
	 */
	old = page_add_if_live(&p->refcount, add, PAGE_REF_MAX);
	mm_hook_at(MM_HOOK_PIN_REF, p);
	if (old <= 0)
		return -EINVAL;
	if (old > PAGE_REF_MAX - add)
		return -EOVERFLOW;
	if (large)
		atomic_fetch_add(&p->pincount, (s32)nr);
	return 0;
}

int page_pin(struct page *p)
{
	return page_pin_nr(p, 1);
}

/*
 * Decrements *@v by @n unless that would take it below @floor. Returns the
 * value left, or -1 when it refused.
 */
static s32 page_sub_above(s32 *v, s32 n, s32 floor)
{
	s32 old = atomic_load_relaxed(v);

	for (;;) {
		s32 seen;

		if (old - n < floor)
			return -1;
		seen = atomic_cmpxchg(v, old, old - n);
		if (seen == old)
			return old - n;
		old = seen;
	}
}

int page_unpin_nr(struct page *p, u32 nr)
{
	s32 left;

	if (nr == 0 || nr > PAGE_REF_MAX / PIN_BIAS)
		return -EINVAL;
	if (!page_is_large_head(p)) {
		left = page_sub_above(&p->refcount, (s32)nr * PIN_BIAS, 0);
	} else {
		if (page_sub_above(&p->pincount, (s32)nr, 0) < 0)
			return -EINVAL;
		left = atomic_sub_return(&p->refcount, (s32)nr);
	}
	if (left < 0)
		return -EINVAL;
	/* The pin held the last reference (the page was unmapped meanwhile): free it. */
	if (left == 0)
		page_free(p, p->order);
	return 0;
}

int page_unpin(struct page *p)
{
	return page_unpin_nr(p, 1);
}

struct page *page_block_head(struct page *p)
{
	while (page_test_flags(p, PG_TAIL))
		p--;
	return p;
}

