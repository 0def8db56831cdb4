/*
 * Setting up copy-on-write (see mm/mm.h): mm_fork() copies an address space,
 * sharing private pages read-only; mm_cow_protect() write-protects them in
 * place. Both hold the source's write side and flush before letting go, so
 * no CPU still writes a shared page through a stale translation; if that
 * flush does not complete, both return -ETIMEDOUT and fork makes no child.
 */
#include "errno.h"
#include "kernel/panic.h"
#include "lib/string.h"
#include "mm/mapping/mapping.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"

/* What a walk over one region of the parent needs. */
struct fork_ctx {
	struct mm *src, *dst;
	const struct mm_region *r;
};

/*
 * A pinned page of a private region is not shared: whoever pinned it (for
 * DMA, say) must keep seeing the parent's writes, so the child gets a copy
 * now and the parent keeps the page writable (Linux's copy_present_page()).
 */
static int fork_copy_pinned(const struct fork_ctx *fc, const struct pt_leaf *leaf,
			    struct page *p)
{
	unsigned prot = mm_region_prot(fc->r);
	struct page *copy = mm_page_alloc(fc->dst, 0, 0);
	int err;

	if (!copy)
		return -ENOMEM;
	memcpy(page_address(copy), page_address(p), PAGE_SIZE);
	page_map_inc(copy);
	err = pt_map(fc->dst->root, leaf->va, page_to_phys(copy), PAGE_SIZE, prot, PT_PAGE_4K);
	if (err) {
		mm_page_drop(copy);
		return err;
	}
	return pt_protect(fc->src->root, leaf->va, PAGE_SIZE, prot);
}

/* A swap entry: the child maps the same slot, which takes one more reference. */
static int fork_swap(const struct fork_ctx *fc, const struct pt_leaf *leaf)
{
	int err;

	if (!mm_swap)
		return -ENOSYS; /* cannot happen: swap entries exist only with swap on */
	err = mm_swap->dup(leaf->swp);
	if (err)
		return err;
	err = pt_swap_set(fc->dst->root, leaf->va, leaf->swp);
	if (err)
		mm_swap->release(fc->dst, &leaf->swp, 1);
	return err;
}

/* pt_walk() callback: one page of the parent's region, mapped into the child. */
static int fork_leaf(void *arg, const struct pt_leaf *leaf)
{
	const struct fork_ctx *fc = arg;
	struct page *p;
	int err;

	if (leaf->swp)
		return fork_swap(fc, leaf);
	if (leaf->size != PT_PAGE_4K || !pfn_valid(leaf->pa >> PAGE_SHIFT))
		return -EINVAL; /* regions map only frames of the memmap, 4 KiB at a time */
	p = phys_to_page(leaf->pa);
	if (mm_region_cow(fc->r) && page_pinned(p))
		return fork_copy_pinned(fc, leaf, p);
	page_ref_inc(p);
	page_map_inc(p);
	/* The parent's protection: already read-only in a private writable region. */
	err = pt_map(fc->dst->root, leaf->va, leaf->pa, PAGE_SIZE, leaf->prot, PT_PAGE_4K);
	if (err)
		mm_page_drop(p);
	return err;
}

/* Copies every region and its pages into @dst (not loaded anywhere). @src's write side held. */
static int fork_copy_locked(struct mm *src, struct mm *dst)
{
	for (unsigned i = 0; i < src->nregions; i++) {
		const struct mm_region *r = &src->regions[i];
		struct fork_ctx fc = { src, dst, r };
		u64 len = r->end - r->start;
		int err = 0;

		dst->regions[i] = *r;
		dst->regions[i].mapping = NULL; /* fork_attach_locked() attaches it properly */
		dst->nregions = i + 1;
		if (mm_region_cow(r))
			err = pt_protect(src->root, r->start, len, mm_region_prot(r) & ~PROT_WRITE);
		if (!err)
			err = pt_walk(src->root, r->start, len, fork_leaf, &fc);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Attaches each of @dst's regions to the mapping its parent region is
 * attached to, so the mapping's writer zaps the child's copy too. @src's
 * write side held: a writer zaps the parent's region either before the
 * copy (the child copies nothing) or after, by which time the child's
 * entry is in the table behind the parent's.
 */
static int fork_attach_locked(struct mm *src, struct mm *dst)
{
	for (unsigned i = 0; i < src->nregions; i++) {
		struct mm_mapping *m = src->regions[i].mapping;
		int err = m ? mapping_attach(m, dst, src->regions[i].start) : 0;

		if (err)
			return err;
	}
	return 0;
}

/* Undoes fork_attach_locked() for a child that is not handed out. */
static void fork_detach(struct mm *dst)
{
	for (unsigned i = 0; i < dst->nregions; i++) {
		struct mm_mapping *m = dst->regions[i].mapping;

		if (m)
			mapping_detach(m, dst, dst->regions[i].start);
	}
}

int mm_fork(struct mm *src, struct mm **out)
{
	struct mm *dst;
	/* The child's frames come from where the parent's do, as Linux's policy is inherited. */
	int err = mm_create_node(&dst, src->node, src->node_flags), flush_err;

	if (err)
		return err;
	dst->swap_free = src->swap_free; /* the child frees its slots as the parent does */
	write_lock(&src->lock);
	/* Lockless pinners that overlap the copy undo their walk (mm/pin/pin.c). */
	mm_wp_seq_write_begin(src);
	err = fork_copy_locked(src, dst);
	mm_wp_seq_write_end(src);
	if (!err)
		err = fork_attach_locked(src, dst);
	/*
	 * A flush that did not complete leaves a CPU out of the run that may
	 * still hold writable entries to pages the child now shares: no child
	 * then. Undoing it drops its references, so each such page is the
	 * parent's alone again, and that CPU's writes reach only the parent.
	 */
	flush_err = mm_flush_all(src);
	if (!err)
		err = flush_err;
	write_unlock(&src->lock);
	if (err) {
		int busy;

		fork_detach(dst);
		busy = mm_destroy(dst);
		ASSERT(!busy); /* the child was never loaded anywhere */
		return err;
	}
	*out = dst;
	return 0;
}

int mm_cow_protect(struct mm *mm, vaddr_t start, u64 len)
{
	vaddr_t end = start + len;
	int err = 0, flush_err;

	if (!len || !IS_ALIGNED(start, PAGE_SIZE) || !IS_ALIGNED(len, PAGE_SIZE) ||
	    end > MM_USER_TOP || end < start)
		return -EINVAL;
	write_lock(&mm->lock);
	for (unsigned i = 0; !err && i < mm->nregions; i++) {
		const struct mm_region *r = &mm->regions[i];
		vaddr_t s = MAX(r->start, start), e = MIN(r->end, end);

		if (s < e && mm_region_cow(r))
			err = pt_protect(mm->root, s, e - s, mm_region_prot(r) & ~PROT_WRITE);
	}
	/* Not flushed everywhere: a CPU out of the run may still write through a writable entry. */
	flush_err = mm_flush_range(mm, start, end - 1);
	write_unlock(&mm->lock);
	return err ? err : flush_err;
}
