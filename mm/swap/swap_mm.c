/*
 * Swap and address spaces (see mm/swap/swap.h): swap-out of an mm's folio,
 * swap-in on a fault, and freeing the slots an unmap removed, plugged into
 * mm/mm.c and mm/fault.c through struct mm_swap_hooks. Swap-out holds the
 * write side and flushes before copying, so no CPU writes a page after its
 * copy; swap-in runs under the read side, the slot's has-cache flag keeping
 * it alive. The why of each step is at the function that takes it.
 */
#include "errno.h"
#include "mm/counters.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "mm/mm.h"
#include "mm/mm_hook.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "mm/swap/swap_internal.h"
#include "torture_hook.h"

PCPU_COUNTER(PCPU_SWAP_OUT_PAGES, "swap_out_pages");

static const struct mm_swap_hooks swap_mm_hooks;

void swap_mm_set_free(struct mm *mm, const struct swap_free_ops *ops)
{
	mm->swap_free = ops;
}

/* @mm's swap-free design: its own, else the default. */
static const struct swap_free_ops *swap_mm_free_ops(const struct mm *mm)
{
	return mm->swap_free ? mm->swap_free : &swap_free_ops_batched;
}

/* ---- swap-out ---- */

/* What swap-out keeps of one page until its copy is on the device. */
struct swap_out_page {
	struct page *page;
	unsigned prot;
};

static vaddr_t page_va(vaddr_t va, unsigned i)
{
	return va + ((vaddr_t)i << PAGE_SHIFT);
}

/*
 * Write side held: the pages of [va, va + nr pages) may be swapped out:
 * one private region holds them, and each is a 4 KiB frame that this
 * mapping alone uses (one map count, no other reference, no pin). A
 * lockless pin may still come after this: swap_out_pinned() checks again.
 */
static int swap_out_check_locked(struct mm *mm, vaddr_t va, unsigned nr,
				 struct swap_out_page *pg)
{
	const struct mm_region *r = mm_region_find_locked(mm, va);
	unsigned i;

	if (!r || page_va(va, nr) > r->end)
		return -EFAULT;
	if ((r->flags & MM_SHARED) || r->mapping)
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		u64 size;
		paddr_t pa;
		struct page *p;

		if (pt_lookup(mm->root, page_va(va, i), &pa, NULL, &size) || size != PT_PAGE_4K)
			return -ENOENT;
		if (!pfn_valid(pa >> PAGE_SHIFT))
			return -EBUSY;
		p = phys_to_page(pa);
		if (page_test_flags(p, PG_DEVICE) || page_mapcount(p) != 1 ||
		    page_ref_count(p) != 1)
			return -EBUSY;
		pg[i].page = p;
	}
	return 0;
}

/* Puts the folio's leaves back after a failed flush or copy, or a pin; they were @e's entries. */
static void swap_out_undo(struct mm *mm, vaddr_t va, unsigned nr, swp_entry_t e,
			  const struct swap_out_page *pg)
{
	unsigned i;

	for (i = 0; i < nr; i++) {
		u64 w = swap_entry_to_word(swap_entry_next(e, i));
		int err = pt_swap_to_leaf(mm->root, page_va(va, i), w, page_to_phys(pg[i].page),
					  pg[i].prot);

		ASSERT(!err); /* the write side kept everyone else away */
	}
	swap_free_ops_naive.free(e, nr);
}

/*
 * After the clear and its flush: whether a page gained a reference since
 * swap_out_check_locked(). The write side keeps out every pinner but the
 * lockless one (mm/pin/pin.c), which takes no lock: a pin it took between the
 * check and the clear is seen only here. Its walk runs with interrupts off
 * on a CPU in mm_cpumask, so the flush waited for that walk to end; and a
 * pin it took after the clear, its re-check of the entry found the swap
 * entry and dropped before the walk ended. So after the flush the count
 * is final: 1 (the mapping's) unless the page is pinned, which is then
 * kept mapped (Linux re-checks "maybe pinned" after clearing and flushing
 * the entry, and restores it, in try_to_unmap_one()).
 */
static bool swap_out_pinned(const struct swap_out_page *pg, unsigned nr)
{
	unsigned i;

	for (i = 0; i < nr; i++)
		if (page_ref_count(pg[i].page) != 1)
			return true;
	return false;
}

/*
 * Write side held, pages checked, slots [e, e + nr) allocated with count 1.
 * Before each leaf goes, @g's leaf hook (a design's add: naive flushes the
 * previous page first) runs, as in an unmap's walk (mm/pt.c).
 */
static int swap_out_locked(struct mm *mm, vaddr_t va, unsigned nr, swp_entry_t e,
			   struct swap_out_page *pg, struct pt_gather *g)
{
	unsigned i;
	int err = 0;

	mm_hook_at(MM_HOOK_SWAP_OUT_CHECKED, mm);
	for (i = 0; i < nr; i++) {
		u64 w = swap_entry_to_word(swap_entry_next(e, i));

		if (g->leaf)
			g->leaf(g, page_va(va, i));
		err = pt_leaf_to_swap(mm->root, page_va(va, i), page_to_phys(pg[i].page), w, g,
				      &pg[i].prot);
		ASSERT(!err);
	}
	mm_hook_at(MM_HOOK_SWAP_OUT_CLEARED, mm);
	/* After this flush no CPU can write the pages, nor pin them: now their copies are final. */
	pt_gather_finish(g);
	/*
	 * Unless the flush did not complete: a CPU out of the run may still
	 * write a page through its old entry, so no copy is final and no
	 * frame may be freed. The entries go back instead; that CPU's writes
	 * then land in the page the mm maps again, and nothing is lost.
	 */
	err = g->err;
	if (!err && swap_out_pinned(pg, nr))
		err = -EBUSY;
	for (i = 0; i < nr && !err; i++)
		err = swap_write_page(swap_entry_next(e, i), page_address(pg[i].page));
	if (err) {
		swap_out_undo(mm, va, nr, e, pg);
		return err;
	}
	for (i = 0; i < nr; i++)
		mm_page_drop(pg[i].page);
	this_cpu_add(PCPU_SWAP_OUT_PAGES, nr);
	return 0;
}

int swap_out_folio(struct mm *mm, vaddr_t va, unsigned nr, unsigned type)
{
	struct pt_gather g;

	mm_gather_init(&g, mm);
	return swap_out_gather(mm, va, nr, type, &g);
}

int swap_out_gather(struct mm *mm, vaddr_t va, unsigned nr, unsigned type, struct pt_gather *g)
{
	struct swap_out_page pg[SWAP_OUT_MAX_PAGES];
	swp_entry_t e;
	int err;

	if (nr == 0 || nr > SWAP_OUT_MAX_PAGES || (nr & (nr - 1)) ||
	    !IS_ALIGNED(va, (u64)nr << PAGE_SHIFT))
		return -EINVAL;
	/*
	 * Before the first swap entry exists, the mm code learns where to send
	 * them; the write side's release publishes it to whoever meets one.
	 */
	if (atomic_load_acquire(&mm_swap) != &swap_mm_hooks)
		atomic_store_release(&mm_swap, &swap_mm_hooks);
	write_lock(&mm->lock);
	err = swap_out_check_locked(mm, va, nr, pg);
	if (!err)
		err = swap_slot_alloc(type, nr, &e);
	if (!err)
		err = swap_out_locked(mm, va, nr, e, pg, g);
	write_unlock(&mm->lock);
	return err;
}

/* ---- swap-in ---- */

/* True while the entry the fault's walk found still holds swap entry @swp. */
static bool swapin_entry_unchanged(const struct pt_slot *s, u64 swp)
{
	return pt_slot_holds_swap(s, swp);
}

/* Read side held, the has-cache flag of @e set by this CPU: read, map, drop the reference. */
static int swapin_locked(struct mm *mm, const struct mm_region *r, const struct pt_slot *s,
			 u64 swp, swp_entry_t e)
{
	struct page *p = torture_hook_fail(TORTURE_FAIL_FRAME) ? NULL : mm_page_alloc(mm, 0, 0);
	int err;

	if (!p)
		return -ENOMEM;
	err = swap_read_page(e, page_address(p));
	if (err) {
		page_free(p, 0);
		return err;
	}
	/*
	 * The page is this mapping's own copy even when the slot is shared
	 * (after fork): every sharer reads its own, so it may be writable.
	 */
	page_map_inc(p);
	err = pt_slot_swap_to_leaf(s, swp, page_to_phys(p), mm_region_prot(r));
	if (err) {
		mm_page_drop(p);
		return err;
	}
	swap_mm_free_ops(mm)->free(e, 1); /* the reference the entry held */
	return 0;
}

static int swap_mm_swapin(struct mm *mm, const struct mm_region *r, const struct pt_slot *s,
			  u64 swp, unsigned fault_flags)
{
	swp_entry_t e;
	int err;

	(void)fault_flags;
	if (!swap_entry_from_word(swp, &e))
		return -EINVAL;
	err = swap_cache_add(e, 1);
	if (err == -EEXIST)
		return -EAGAIN; /* another CPU holds the flag: it is bringing the page in */
	if (err) /* no reference left: another CPU brought it in, unless the entry is still here */
		return swapin_entry_unchanged(s, swp) ? err : -EAGAIN;
	/*
	 * The flag was set first, so if the entry is still here the slot is
	 * the one it names, and it stays ours until swap_cache_del(): only we
	 * can change the entry now.
	 */
	err = swapin_entry_unchanged(s, swp) ? swapin_locked(mm, r, s, swp, e) : -EAGAIN;
	swap_cache_del(e, 1); /* frees the slot if that was its last reference */
	return err;
}

/* ---- unmap and fork ---- */

/*
 * How many of the @n entries from @swp, the first naming @e, form one run
 * of consecutive slots on @si inside one of the runs @e's cluster hands out.
 */
static unsigned swap_release_run(struct swap_info *si, const u64 *swp, unsigned n, swp_entry_t e)
{
	u64 unit = swap_cluster_run_slots(si, swap_entry_offset(e));
	unsigned len = 1;

	while (len < n && (swap_entry_offset(e) + len) % unit &&
	       swp[len] == swap_entry_to_word(swap_entry_next(e, len)))
		len++;
	return len;
}

static void swap_mm_release(struct mm *mm, const u64 *swp, unsigned n)
{
	unsigned i = 0, len;

	while (i < n) {
		swp_entry_t e = { swp[i] };
		struct swap_info *si;

		if (!swap_entry_from_word(swp[i], &e)) {
			swap_report(-EINVAL, "not a swap entry", e);
			i++;
			continue;
		}
		si = swap_info_get(e, 1);
		len = si ? swap_release_run(si, swp + i, n - i, e) : 1;
		if (si)
			swap_mm_free_ops(mm)->free(e, len);
		i += len;
	}
}

static int swap_mm_dup(u64 swp)
{
	swp_entry_t e;

	if (!swap_entry_from_word(swp, &e))
		return -EINVAL;
	return swap_dup(e, 1);
}

static const struct mm_swap_hooks swap_mm_hooks = {
	.swapin = swap_mm_swapin,
	.release = swap_mm_release,
	.dup = swap_mm_dup,
};
