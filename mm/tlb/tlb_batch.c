/*
 * The unmap loop that drives a TLB design's hooks (see mm/tlb/tlb.h): one
 * page-table walk (pt_unmap()) calls the design's add before each leaf it
 * removes, into a gather whose flush goes the design's way. It needs
 * mm/mm.c's gather and mm.c flushes through tlb.c, so it lives in neither.
 * Locking: tlb_unmap_pages() takes mm->lock's write side; tlb_batch_begin()
 * callers hold it.
 */
#include "mm/pt.h"
#include "mm/tlb/tlb.h"
#include "kernel/smp.h"
#include "mm/mm.h"

PCPU_COUNTER(PCPU_TLB_UNACKED_FREES, "tlb_unacked_frees");

/*
 * The gather's flush during tlb_unmap_pages(): the request travels the
 * design's way. The gather frees its frames as soon as this returns, so a
 * call whose acknowledgements nobody waited for then means frames freed
 * while a target may still translate to them: counted, for the tlb
 * benchmark's verify to fail (no real design may ever count one; a design
 * whose flush completes later keeps its frames itself and does not come
 * here).
 */
static void tlb_batch_flush(struct pt_gather *g)
{
	struct tlb_batch *b = container_of(g, struct tlb_batch, g);
	struct tlb_flush_req req = { b->mm, tlb_ops_target(b->ops), g->start,
				     g->last, g->global, g->nr_tables == 0 };
	int err = b->ops->flush(&req);

	if (!err && smp_call_pending())
		this_cpu_inc(PCPU_TLB_UNACKED_FREES);
	if (err && !g->err)
		g->err = err;
}

/* Before the walk removes the leaf at @va: the design's add decides whether to flush first. */
static void tlb_batch_leaf(struct pt_gather *g, vaddr_t va)
{
	struct tlb_batch *b = container_of(g, struct tlb_batch, g);
	int err = b->ops->add(b, va);

	if (err && !b->err)
		b->err = err;
}

void tlb_batch_begin(struct tlb_batch *b, struct mm *mm, const struct tlb_ops *ops)
{
	b->mm = mm;
	b->ops = ops;
	b->err = 0;
	mm_gather_init(&b->g, mm); /* frame and swap-slot release as every unmap */
	b->g.flush = ops->gather_flush ? ops->gather_flush : tlb_batch_flush;
	/* No add: the gather's own bound decides, no call per leaf. */
	b->g.leaf = ops->add ? tlb_batch_leaf : NULL;
}

int tlb_add_flush_first(struct tlb_batch *b, vaddr_t va)
{
	(void)va;
	pt_gather_cut(&b->g);
	return 0;
}

int tlb_batch_unmap(struct tlb_batch *b, vaddr_t start, unsigned nr)
{
	int err;

	if (!nr)
		return 0;
	err = pt_unmap(b->mm->root, start, (u64)nr * PAGE_SIZE, &b->g);
	return err ? err : b->err;
}

int tlb_unmap_pages(struct mm *mm, vaddr_t start, unsigned nr, const struct tlb_ops *ops)
{
	struct tlb_batch b;
	int err;

	write_lock(&mm->lock);
	tlb_batch_begin(&b, mm, ops);
	err = tlb_batch_unmap(&b, start, nr);
	pt_gather_finish(&b.g);
	write_unlock(&mm->lock);
	return err ? err : b.g.err;
}
