/*
 * The frame allocator's node tables (see mm/pmm_ranges.h): which NUMA node
 * each frame belongs to, from the ranges pmm_init() is given, and the order
 * in which other nodes are tried when one has no frame left. Written by
 * pmm_init() only (boot, one CPU); read after without locks.
 */
#include "mm/pmm_ranges.h"
#include "mm/page.h"
#include <arch/arch.h>

/* A node's frames [start, end) in pfns. */
struct pmm_node_span {
	u64 start, end;
	unsigned node;
};

static struct pmm_node_span pmm_node_spans[PMM_MAX_NODE_RANGES];
static unsigned pmm_nnode_spans;

static void pmm_node_spans_sort(void)
{
	for (unsigned i = 1; i < pmm_nnode_spans; i++) {
		struct pmm_node_span x = pmm_node_spans[i];
		unsigned j;

		for (j = i; j > 0 && pmm_node_spans[j - 1].start > x.start; j--)
			pmm_node_spans[j] = pmm_node_spans[j - 1];
		pmm_node_spans[j] = x;
	}
}

unsigned pmm_nodes_load(const struct pmm_node_range *r, unsigned n, unsigned nnodes)
{
	unsigned k = 0;

	nnodes = MIN(MAX(nnodes, 1u), (unsigned)PMM_MAX_NODES);
	for (unsigned i = 0; i < n && k < PMM_MAX_NODE_RANGES; i++) {
		u64 s = r[i].start >> PAGE_SHIFT, e = (r[i].end + PAGE_SIZE - 1) >> PAGE_SHIFT;

		if (s >= e || r[i].end < r[i].start || r[i].node >= PMM_MAX_NODES)
			continue;
		pmm_node_spans[k++] = (struct pmm_node_span){ s, e, r[i].node };
		nnodes = MAX(nnodes, r[i].node + 1);
	}
	pmm_nnode_spans = k;
	pmm_node_spans_sort();
	/* Overlaps: the lower-starting span keeps the frames both name. */
	for (unsigned i = 1; i < k; i++)
		if (pmm_node_spans[i].start < pmm_node_spans[i - 1].end)
			pmm_node_spans[i].start = MIN(pmm_node_spans[i - 1].end,
						      pmm_node_spans[i].end);
	return nnodes;
}

unsigned pmm_pfn_node(u64 pfn, u64 *seg_end, bool *listed)
{
	*seg_end = ~0ull;
	for (unsigned i = 0; i < pmm_nnode_spans; i++) {
		const struct pmm_node_span *sp = &pmm_node_spans[i];

		if (pfn >= sp->end)
			continue;
		if (pfn >= sp->start) {
			*seg_end = sp->end;
			*listed = true;
			return sp->node;
		}
		*seg_end = sp->start;
		break;
	}
	*listed = false;
	return 0;
}

/* Nearer first, then node number counted on from @home. */
static u64 pmm_node_key(unsigned home, unsigned n, unsigned nnodes)
{
	return (u64)arch_node_distance(home, n) << 32 | ((n + nnodes - home) % nnodes);
}

unsigned pmm_node_next(unsigned home, unsigned prev, unsigned nnodes)
{
	u64 after = pmm_node_key(home, prev, nnodes), best_key = ~0ull;
	unsigned best = PMM_NODE_NONE;

	for (unsigned n = 0; n < nnodes; n++) {
		u64 key = pmm_node_key(home, n, nnodes);

		if (n != home && key > after && key < best_key) {
			best_key = key;
			best = n;
		}
	}
	return best;
}
