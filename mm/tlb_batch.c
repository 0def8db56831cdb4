/*
 * The unmap loop that drives a TLB design's hooks (see mm/tlb.h): a gather
 * of @mm's (mm_gather_init()) whose flush travels the design's way. Above
 * both mm/mm.c and mm/tlb.c: mm.c flushes through tlb.c, and this loop
 * needs mm.c's gather, so it lives in neither (docs/design.md, layering).
 *
 * Locking: tlb_unmap_pages() takes mm->lock's write side; tlb_batch_begin()
 * callers hold it.
 */
#include "mm/tlb.h"
#include "mm/mm.h"

/* The gather's flush during tlb_unmap_pages(): the request travels the design's way. */
static void tlb_batch_flush(struct pt_gather *g)
{
	struct tlb_batch *b = container_of(g, struct tlb_batch, g);
	struct tlb_flush_req req = { b->mm, b->ops->target_flush, g->start, g->last, g->global };
	int err = b->ops->flush(&req);

	if (err && !g->err)
		g->err = err;
}

void tlb_batch_begin(struct tlb_batch *b, struct mm *mm, const struct tlb_ops *ops)
{
	b->mm = mm;
	b->ops = ops;
	mm_gather_init(&b->g, mm); /* frame and swap-slot release as every unmap */
	b->g.flush = tlb_batch_flush;
}

int tlb_add_queued(struct tlb_batch *b, vaddr_t va)
{
	return pt_unmap(b->mm->root, va, PAGE_SIZE, &b->g);
}

int tlb_unmap_pages(struct mm *mm, vaddr_t start, unsigned nr, const struct tlb_ops *ops)
{
	struct tlb_batch b;
	int err = 0;

	write_lock(&mm->lock);
	tlb_batch_begin(&b, mm, ops);
	for (unsigned i = 0; i < nr && !err; i++)
		err = ops->add(&b, start + (vaddr_t)i * PAGE_SIZE);
	pt_gather_finish(&b.g);
	write_unlock(&mm->lock);
	return err ? err : b.g.err;
}
