/*
 * Page migration, after Huang Ying's migrate_pages() batching (Linux 6.4):
 * a batch of pages switched to copies on the destination node, then one
 * flush for the batch through the design's gather (naive: one per page).
 * Arch-neutral; mm->lock's write side is held per batch, and the flush
 * runs under it as every unmap's does (mm/tlb/tlb_batch.c).
 */
#include "mm/migrate.h"
#include "mm/counters.h"
#include "errno.h"
#include "lib/string.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "mm/tlb/tlb.h"

PCPU_COUNTER(PCPU_MIGRATE_COPIES, "migrate_copies");

/* One page: a frame on @node, the copy, the switch; the old frame joins the gather. */
static int migrate_page(struct tlb_batch *b, vaddr_t va, unsigned node)
{
	struct pt_slot s;
	struct page *p;
	paddr_t old;
	int err;

	if (pt_slot_find(b->mm->root, va, &s) || !pt_slot_mapped(&s, &old, NULL))
		return -EAGAIN;
	p = page_alloc_node(0, 0, node);
	if (!p)
		return -ENOMEM;
	memcpy(page_address(p), phys_to_virt(old), PAGE_SIZE);
	this_cpu_inc(PCPU_MIGRATE_COPIES);
	page_map_inc(p); /* the allocation's reference becomes the mapping's */
	err = pt_leaf_move(b->mm->root, va, old, page_to_phys(p), &b->g);
	if (err)
		mm_page_drop(p);
	return err;
}

/* One batch of up to MIGRATE_BATCH pages under one gather. */
static int migrate_batch(struct mm *mm, vaddr_t va, unsigned n, unsigned node,
			 const struct tlb_ops *ops, struct migrate_counts *c)
{
	struct tlb_batch b;
	int err = 0;

	write_lock(&mm->lock);
	tlb_batch_begin(&b, mm, ops);
	for (unsigned i = 0; i < n && !err; i++) {
		err = migrate_page(&b, va + (vaddr_t)i * PAGE_SIZE, node);
		c->moved += !err;
		c->copies += !err;
	}
	pt_gather_finish(&b.g);
	write_unlock(&mm->lock);
	c->flushes += b.g.flushes;
	err = err ? err : b.err;
	return err ? err : b.g.err;
}

int mm_migrate_range(struct mm *mm, vaddr_t va, unsigned npages, unsigned dst_node,
		     const struct tlb_ops *ops, struct migrate_counts *out)
{
	struct migrate_counts c = { 0 };
	int err = 0;

	for (unsigned done = 0; done < npages && !err; done += MIGRATE_BATCH)
		err = migrate_batch(mm, va + (vaddr_t)done * PAGE_SIZE,
				    MIN(MIGRATE_BATCH, npages - done), dst_node, ops, &c);
	if (out) {
		out->moved += c.moved;
		out->copies += c.copies;
		out->flushes += c.flushes;
	}
	return err;
}
