/*
 * The physical frame allocator (see mm/pmm.h): set-up over mm/pmm_ranges.c
 * and mm/pmm_node.c's tables, each node's buddy lists and the per-CPU
 * order-0 caches; refused frees are mm/pmm_check.c's. Lock order:
 * pmm_pcps[cpu].lock, then pmm_lock (one lock for all nodes' lists and
 * counts); both with interrupts off. The tables are written only by
 * pmm_init() (boot, one CPU).
 */
#include "mm/pmm.h"
#include "torture_hook.h"
#include "errno.h"
#include "kernel/cpumask.h"
#include "kernel/panic.h"
#include "kernel/spinlock.h"
#include "lib/atomic.h"
#include "lib/string.h"
#include <arch/arch.h>

/* A CPU's cache holds frames of one node only: @node, which changes only while it is empty. */
struct pmm_pcp {
	spinlock_t lock;
	struct page_list list;
	unsigned node;
} __cacheline_aligned;

/* One node's buddy lists and counts. */
struct pmm_node {
	struct page_list free_area[PMM_MAX_ORDER + 1];
	u64 buddy_frames, managed;
};

static spinlock_t pmm_lock = SPINLOCK_INIT("pmm");
static struct pmm_node pmm_nodes[PMM_MAX_NODES];
static unsigned pmm_nnodes = 1;
static u64 pmm_buddy_frames, pmm_managed, pmm_held_back, pmm_memmap_frames;
static u64 pmm_unlisted; /* frames outside every node range, given to node 0 */
static unsigned pmm_nnode_ranges;
static u64 pmm_limit_pfn;
/*
 * Not per-CPU data (kernel/percpu.h): the caches exist before the allocator
 * hands out the pages that hold the other CPUs' copies. 64 bytes a CPU.
 */
static struct pmm_pcp pmm_pcps[MAX_CPUS];
static bool pmm_ready;


static u64 pmm_failed, pmm_fallbacks;

/*
 * A free frame's flags change only under the allocator's locks, with no
 * owner to race with: a plain (single-copy atomic) store is enough where
 * page_set_flags() would take a locked operation. Readers elsewhere (a
 * check that a frame is free) load them without a lock and see the old
 * or the new word.
 */
static void pmm_flags_locked(struct page *p, u32 set, u32 clear)
{
	atomic_store_relaxed(&p->flags, (atomic_load_relaxed(&p->flags) | set) & ~clear);
}

/* buddy lists: pmm_lock held */

static void buddy_add_locked(struct page *p, unsigned order)
{
	p->order = (u8)order;
	pmm_flags_locked(p, PG_BUDDY, 0);
	page_list_add(&pmm_nodes[p->node].free_area[order], p);
}

static void buddy_del_locked(struct page *p, unsigned order)
{
	page_list_del(&pmm_nodes[p->node].free_area[order], p);
	pmm_flags_locked(p, 0, PG_BUDDY);
}

/* Frees the block at @pfn, merging it with free buddies of its node as far as they go. */
static void buddy_free_locked(u64 pfn, unsigned order)
{
	unsigned node = pfn_to_page(pfn)->node;

	pmm_buddy_frames += 1ull << order;
	pmm_nodes[node].buddy_frames += 1ull << order;
	while (order < PMM_MAX_ORDER) {
		u64 buddy = pfn ^ (1ull << order);
		struct page *b;

		if (!pfn_valid(buddy))
			break;
		b = pfn_to_page(buddy);
		if (!page_test_flags(b, PG_BUDDY) || b->order != order || b->node != node)
			break;
		buddy_del_locked(b, order);
		pfn &= ~(1ull << order);
		order++;
	}
	buddy_add_locked(pfn_to_page(pfn), order);
}

/* Takes @node's smallest free block that fits and splits off what is not needed. */
static struct page *buddy_alloc_locked(unsigned node, unsigned order)
{
	struct page_list *area = pmm_nodes[node].free_area;
	unsigned o = order;
	struct page *p;

	while (o <= PMM_MAX_ORDER && page_list_empty(&area[o]))
		o++;
	if (o > PMM_MAX_ORDER)
		return NULL;
	p = container_of(area[o].head.next, struct page, lru);
	buddy_del_locked(p, o);
	while (o > order) {
		o--;
		buddy_add_locked(p + (1ull << o), o);
	}
	pmm_buddy_frames -= 1ull << order;
	pmm_nodes[node].buddy_frames -= 1ull << order;
	return p;
}

/* Largest order of a block that starts at @pfn and fits in @n frames. */
static unsigned pmm_block_order(u64 pfn, u64 n)
{
	unsigned order = 0;

	while (order < PMM_MAX_ORDER && !(pfn & (1ull << order)) && (2ull << order) <= n)
		order++;
	return order;
}

/* Frees [s, e), frames of one node, in the largest aligned blocks that fit. */
static void pmm_free_span_locked(u64 s, u64 e, unsigned node)
{
	for (u64 pfn = s; pfn < e; pfn++) {
		pfn_to_page(pfn)->flags = 0;
		pfn_to_page(pfn)->node = (u8)node;
	}
	pmm_nodes[node].managed += e - s;
	while (s < e) {
		unsigned order = pmm_block_order(s, e - s);

		buddy_free_locked(s, order);
		s += 1ull << order;
	}
}

/* Hands every free-able frame in [lo, hi) to its node's buddy lists; returns how many. */
static u64 pmm_free_runs_locked(u64 lo, u64 hi)
{
	struct pmm_iter it = { 0, 0 };
	u64 s, e, seg, total = 0;
	bool listed;

	while (pmm_iter_next(&it, lo, hi, &s, &e)) {
		total += e - s;
		for (; s < e; s = MIN(seg, e)) {
			unsigned node = pmm_pfn_node(s, &seg, &listed);

			if (node >= pmm_nnodes)
				node = 0;
			if (!listed)
				pmm_unlisted += MIN(seg, e) - s;
			pmm_free_span_locked(s, MIN(seg, e), node);
		}
	}
	return total;
}


/* per-CPU caches */

static struct pmm_pcp *pmm_this_pcp(void)
{
	unsigned cpu = arch_cpu_id();

	ASSERT(cpu < MAX_CPUS);
	return &pmm_pcps[cpu];
}

static void pcp_refill_locked(struct pmm_pcp *pcp)
{
	unsigned n;

	spin_lock(&pmm_lock);
	for (n = 0; n < PMM_PCP_BATCH; n++) {
		struct page *p = buddy_alloc_locked(pcp->node, 0);

		if (!p)
			break;
		pmm_flags_locked(p, PG_PCP, 0);
		page_list_add(&pcp->list, p);
	}
	spin_unlock(&pmm_lock);
}

static void pcp_drain_locked(struct pmm_pcp *pcp, u64 n)
{
	struct page *p;

	spin_lock(&pmm_lock);
	while (n-- > 0 && (p = page_list_pop(&pcp->list))) {
		pmm_flags_locked(p, 0, PG_PCP);
		buddy_free_locked(page_to_pfn(p), 0);
	}
	spin_unlock(&pmm_lock);
}

/* A frame of @node: through this CPU's cache when it holds @node's frames (or none). */
static struct page *pcp_alloc(unsigned node)
{
	struct pmm_pcp *pcp = pmm_this_pcp();
	unsigned long flags = spin_lock_irqsave(&pcp->lock);
	struct page *p;

	if (page_list_empty(&pcp->list))
		pcp->node = node;
	if (pcp->node != node) {
		spin_lock(&pmm_lock);
		p = buddy_alloc_locked(node, 0);
		spin_unlock(&pmm_lock);
		spin_unlock_irqrestore(&pcp->lock, flags);
		return p;
	}
	if (page_list_empty(&pcp->list))
		pcp_refill_locked(pcp);
	p = page_list_pop(&pcp->list);
	if (p)
		pmm_flags_locked(p, 0, PG_PCP);
	spin_unlock_irqrestore(&pcp->lock, flags);
	return p;
}

/* Frames a cache of another node cannot take go straight back to their node's lists. */
static void pcp_bypass_free(struct page **pages, unsigned n)
{
	if (!n)
		return;
	spin_lock(&pmm_lock);
	for (unsigned i = 0; i < n; i++) {
		pmm_flags_locked(pages[i], 0, PG_PCP);
		buddy_free_locked(page_to_pfn(pages[i]), 0);
	}
	spin_unlock(&pmm_lock);
}

/* Whether @p may join @pcp's cache (which then takes its node); pcp lock held. */
static bool pcp_takes_locked(struct pmm_pcp *pcp, const struct page *p)
{
	if (page_list_empty(&pcp->list))
		pcp->node = p->node;
	return p->node == pcp->node;
}

static void pcp_free(struct page *p)
{
	struct pmm_pcp *pcp = pmm_this_pcp();
	unsigned long flags = spin_lock_irqsave(&pcp->lock);

	if (!pcp_takes_locked(pcp, p)) {
		pcp_bypass_free(&p, 1);
		spin_unlock_irqrestore(&pcp->lock, flags);
		return;
	}
	pmm_flags_locked(p, PG_PCP, 0);
	page_list_add(&pcp->list, p);
	if (pcp->list.count > PMM_PCP_HIGH)
		pcp_drain_locked(pcp, PMM_PCP_BATCH);
	spin_unlock_irqrestore(&pcp->lock, flags);
}

/*
 * @n frames, flagged PG_PCP already, into this CPU's cache at once; what
 * goes over the high mark goes on to the buddy lists in the same trip,
 * down to where pcp_free() leaves a cache after its drain.
 */
static void pcp_free_many(struct page **pages, unsigned n)
{
	struct pmm_pcp *pcp = pmm_this_pcp();
	unsigned long flags = spin_lock_irqsave(&pcp->lock);
	unsigned i, k = 0;

	for (i = 0; i < n; i++) {
		if (pcp_takes_locked(pcp, pages[i]))
			page_list_add(&pcp->list, pages[i]);
		else
			pages[k++] = pages[i];
	}
	pcp_bypass_free(pages, k);
	if (pcp->list.count > PMM_PCP_HIGH)
		pcp_drain_locked(pcp, pcp->list.count - (PMM_PCP_HIGH - PMM_PCP_BATCH));
	spin_unlock_irqrestore(&pcp->lock, flags);
}

void pmm_drain_cpu(unsigned cpu)
{
	struct pmm_pcp *pcp;
	unsigned long flags;

	if (cpu >= MAX_CPUS || !pmm_ready)
		return;
	pcp = &pmm_pcps[cpu];
	flags = spin_lock_irqsave(&pcp->lock);
	pcp_drain_locked(pcp, pcp->list.count);
	spin_unlock_irqrestore(&pcp->lock, flags);
}

void pmm_drain_all(void)
{
	unsigned cpu;

	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		if (atomic_load_relaxed(&pmm_pcps[cpu].list.count))
			pmm_drain_cpu(cpu);
}

/* Two chains of links (through next, NULL-ended) each in frame order, as one. */
static struct page_link *sort_merge(struct page_link *a, struct page_link *b)
{
	struct page_link head = { 0 }, *tail = &head;

	while (a && b) {
		struct page_link **lo = &b;

		if (page_to_pfn(container_of(a, struct page, lru)) <
		    page_to_pfn(container_of(b, struct page, lru)))
			lo = &a;
		tail->next = *lo;
		tail = *lo;
		*lo = (*lo)->next;
	}
	tail->next = a ? a : b;
	return head.next;
}

/* Bottom-up merge sort: bin k holds a sorted chain of 2^k links; then relinks prev. */
static void page_list_sort_locked(struct page_list *l)
{
	struct page_link *bins[64] = { NULL }, *run = NULL, *p, *next, *prev = &l->head;
	unsigned k;

	if (page_list_empty(l))
		return;
	l->head.prev->next = NULL;
	for (p = l->head.next; p; p = next) {
		next = p->next;
		p->next = NULL;
		for (k = 0; bins[k]; k++) {
			p = sort_merge(bins[k], p);
			bins[k] = NULL;
		}
		bins[k] = p;
	}
	for (k = 0; k < ARRAY_SIZE(bins); k++)
		if (bins[k])
			run = sort_merge(bins[k], run);
	for (p = run; p; p = p->next) {
		p->prev = prev;
		prev->next = p;
		prev = p;
	}
	prev->next = &l->head;
	l->head.prev = prev;
}

void pmm_sort_free_lists(void)
{
	unsigned long flags = spin_lock_irqsave(&pmm_lock);

	for (unsigned n = 0; n < pmm_nnodes; n++)
		for (unsigned o = 0; o <= PMM_MAX_ORDER; o++)
			page_list_sort_locked(&pmm_nodes[n].free_area[o]);
	spin_unlock_irqrestore(&pmm_lock, flags);
}

/* allocation and freeing */

static struct page *pmm_alloc_block(unsigned order, unsigned node)
{
	unsigned long flags;
	struct page *p;

	if (order == 0)
		return pcp_alloc(node);
	flags = spin_lock_irqsave(&pmm_lock);
	p = buddy_alloc_locked(node, order);
	spin_unlock_irqrestore(&pmm_lock, flags);
	return p;
}

/* @node's block, after draining the caches if need be; then the others, nearest first, if asked. */
static struct page *pmm_alloc_nodes(unsigned order, unsigned flags, unsigned node)
{
	struct page *p = pmm_alloc_block(order, node);
	unsigned other = node;

	if (!p) {
		/* The frames may be sitting in other CPUs' caches. */
		pmm_drain_all();
		p = pmm_alloc_block(order, node);
	}
	if (p || !(flags & PMM_FALLBACK))
		return p;
	while (!p && (other = pmm_node_next(node, other, pmm_nnodes)) != PMM_NODE_NONE)
		p = pmm_alloc_block(order, other);
	if (p)
		atomic_inc(&pmm_fallbacks);
	return p;
}

unsigned pmm_local_node(void)
{
	unsigned node = arch_cpu_node(arch_cpu_id());

	return node < pmm_nnodes ? node : 0;
}

/*
 * One frame of a block we own. Others may still read its counts and flags
 * without a lock (a neighbour's free checks them for PG_BUDDY, a lockless
 * pin its refcount), so those are stored atomically; the rest only the
 * owner reads.
 */
static void pmm_page_prep(struct page *pg, u32 flags, s32 refcount, unsigned order)
{
	pg->order = (u8)order;
	memset(pg->pad, 0, sizeof(pg->pad));
	pg->lru = (struct page_link){ NULL, NULL };
	pg->priv = 0;
	atomic_store_relaxed(&pg->mapcount, 0);
	atomic_store_relaxed(&pg->pincount, 0);
	atomic_store_relaxed(&pg->refcount, refcount);
	atomic_store_relaxed(&pg->flags, flags);
}

/* Sets up a block we own exclusively: taken from the free lists, ours alone to hand out. */
static void pmm_prep_new(struct page *p, unsigned order)
{
	u64 i;

	for (i = 1; i < (1ull << order); i++)
		pmm_page_prep(&p[i], PG_TAIL, 0, 0);
	pmm_page_prep(p, PG_HEAD, 1, order);
}

struct page *page_alloc(unsigned order, unsigned flags)
{
	return page_alloc_node(order, flags | PMM_FALLBACK, PMM_NODE_LOCAL);
}

struct page *page_alloc_node(unsigned order, unsigned flags, unsigned node)
{
	struct page *p = NULL;

	if (node == PMM_NODE_LOCAL)
		node = pmm_local_node();
	if (order <= PMM_MAX_ORDER && node < pmm_nnodes && READ_ONCE(pmm_ready) &&
	    !pmm_inject_now() && !torture_hook_alloc_fail(order))
		p = pmm_alloc_nodes(order, flags, node);
	if (!p) {
		atomic_inc(&pmm_failed);
		return NULL;
	}
	torture_hook_frame_alloc(p, order);
	pmm_prep_new(p, order);
	if (flags & PMM_ZERO)
		memset(page_address(p), 0, PAGE_SIZE << order);
	return p;
}

int page_free(struct page *p, unsigned order)
{
	void *caller = __builtin_return_address(0);
	const char *why;
	int err = pmm_check_free(p, order, &why);
	u64 i;

	if (err)
		return pmm_report(p, order, err, why, caller);
	/* Claim the block: of two racing frees of it, only one sees PG_HEAD. */
	if (!(atomic_fetch_and(&p->flags, ~PG_HEAD) & PG_HEAD))
		return pmm_report(p, order, -EINVAL, "already free (racing double free)", caller);
	for (i = 1; i < (1ull << order); i++)
		atomic_store_relaxed(&p[i].flags, PG_FREED);
	atomic_store_relaxed(&p->flags, PG_FREED);
	atomic_store_relaxed(&p->refcount, 0);
	torture_hook_frame_free(p, order);
	if (order == 0) {
		pcp_free(p);
	} else {
		unsigned long flags = spin_lock_irqsave(&pmm_lock);

		buddy_free_locked(page_to_pfn(p), order);
		spin_unlock_irqrestore(&pmm_lock, flags);
	}
	return 0;
}

/*
 * One frame of page_free_dropped(): checked as page_free() checks it, and
 * its refcount must be 0. No claim by a locked operation: the caller's
 * page_ref_dec_and_test() reaching 0 already made it the frame's only
 * freer. True when the frame is now free, flagged for a per-CPU cache.
 */
static bool pmm_take_dropped(struct page *p, void *caller)
{
	const char *why;
	int err = pmm_check_free(p, 0, &why);

	if (!err && page_ref_count(p) != 0) {
		why = "still referenced";
		err = -EBUSY;
	}
	if (err) {
		pmm_report(p, 0, err, why, caller);
		return false;
	}
	atomic_store_relaxed(&p->flags, PG_FREED | PG_PCP);
	torture_hook_frame_free(p, 0);
	return true;
}

unsigned page_free_dropped(struct page **pages, unsigned n)
{
	void *caller = __builtin_return_address(0);
	unsigned i, k = 0;

	for (i = 0; i < n; i++)
		if (pmm_take_dropped(pages[i], caller))
			pages[k++] = pages[i];
	if (k)
		pcp_free_many(pages, k);
	return k;
}

/* set-up, statistics, fault injection */

static void pmm_reset(void)
{
	unsigned i;

	WRITE_ONCE(pmm_ready, false);
	for (unsigned n = 0; n < PMM_MAX_NODES; n++) {
		pmm_nodes[n].buddy_frames = pmm_nodes[n].managed = 0;
		for (i = 0; i <= PMM_MAX_ORDER; i++)
			page_list_init(&pmm_nodes[n].free_area[i]);
	}
	for (i = 0; i < MAX_CPUS; i++) {
		spin_lock_init(&pmm_pcps[i].lock, "pmm_pcp");
		page_list_init(&pmm_pcps[i].list);
		pmm_pcps[i].node = 0;
	}
	pmm_buddy_frames = pmm_managed = pmm_held_back = pmm_memmap_frames = pmm_unlisted = 0;
	pmm_failed = pmm_fallbacks = 0;
	pmm_check_reset();
}

/* Memory the node ranges miss is not lost, but a placement test would misread it. */
static void pmm_warn_unlisted(unsigned nranges)
{
	u64 n = READ_ONCE(pmm_unlisted);

	if (nranges && n)
		warn_report(__FILE__, __LINE__,
			    "pmm: %lu frames lie outside every node's memory ranges; given to node 0",
			    (unsigned long)n);
}

int pmm_init(const struct pmm_config *cfg)
{
	unsigned long flags;
	int err;

	pmm_reset();
	if (cfg->nusable > PMM_MAX_USABLE || cfg->nreserved > PMM_MAX_RESERVED ||
	    cfg->nnode_ranges > PMM_MAX_NODE_RANGES)
		return -EINVAL;
	pmm_nnodes = pmm_nodes_load(cfg->node_ranges, cfg->nnode_ranges, cfg->nnodes);
	pmm_nnode_ranges = cfg->nnode_ranges;
	if (!pmm_ranges_load(cfg->usable, cfg->nusable, cfg->reserved, cfg->nreserved))
		return -EINVAL;
	pmm_limit_pfn = cfg->direct_limit ? cfg->direct_limit >> PAGE_SHIFT : ~0ull;
	if (!pmm_count_runs(0, ~0ull))
		return -EINVAL;
	err = pmm_memmap_place(pmm_limit_pfn, &pmm_memmap_frames);
	if (err)
		return err;
	flags = spin_lock_irqsave(&pmm_lock);
	pmm_managed = pmm_free_runs_locked(0, pmm_limit_pfn);
	pmm_held_back = pmm_count_runs(pmm_limit_pfn, ~0ull);
	spin_unlock_irqrestore(&pmm_lock, flags);
	pmm_warn_unlisted(cfg->nnode_ranges);
	WRITE_ONCE(pmm_ready, true);
	return 0;
}

u64 pmm_release_high(void)
{
	unsigned long flags;
	u64 n = 0;

	if (!pmm_ready)
		return 0;
	flags = spin_lock_irqsave(&pmm_lock);
	if (pmm_limit_pfn != ~0ull) {
		u64 unlisted = pmm_unlisted;

		n = pmm_free_runs_locked(pmm_limit_pfn, ~0ull);
		pmm_managed += n;
		pmm_held_back = 0;
		pmm_limit_pfn = ~0ull;
		unlisted = pmm_unlisted - unlisted;
		spin_unlock_irqrestore(&pmm_lock, flags);
		if (unlisted && pmm_nnode_ranges)
			warn_report(__FILE__, __LINE__,
				    "pmm: %lu frames above the boot map lie outside every node's "
				    "memory ranges; given to node 0",
				    (unsigned long)unlisted);
		return n;
	}
	spin_unlock_irqrestore(&pmm_lock, flags);
	return n;
}

void pmm_stats_get(struct pmm_stats *s)
{
	unsigned long flags;
	unsigned i;

	*s = (struct pmm_stats){ .start_pfn = mm_memmap_start_pfn, .end_pfn = mm_memmap_end_pfn };
	for (i = 0; i < MAX_CPUS; i++)
		s->pcp += atomic_load_relaxed(&pmm_pcps[i].list.count);
	flags = spin_lock_irqsave(&pmm_lock);
	for (unsigned n = 0; n < pmm_nnodes; n++)
		for (i = 0; i <= PMM_MAX_ORDER; i++)
			s->blocks[i] += pmm_nodes[n].free_area[i].count;
	s->nodes = pmm_nnodes;
	s->unlisted = pmm_unlisted;
	s->managed = pmm_managed;
	s->held_back = pmm_held_back;
	s->memmap_frames = pmm_memmap_frames;
	s->free = pmm_buddy_frames + s->pcp;
	spin_unlock_irqrestore(&pmm_lock, flags);
	s->allocated = s->managed - s->free;
	s->errors = pmm_check_errors();
	s->failed = atomic_load_relaxed(&pmm_failed);
	s->fallbacks = atomic_load_relaxed(&pmm_fallbacks);
}

int pmm_node_stats_get(unsigned node, struct pmm_node_stats *s)
{
	unsigned long flags;

	*s = (struct pmm_node_stats){ 0 };
	if (node >= pmm_nnodes)
		return -EINVAL;
	for (unsigned i = 0; i < MAX_CPUS; i++)
		if (READ_ONCE(pmm_pcps[i].node) == node)
			s->pcp += atomic_load_relaxed(&pmm_pcps[i].list.count);
	flags = spin_lock_irqsave(&pmm_lock);
	s->managed = pmm_nodes[node].managed;
	s->free = pmm_nodes[node].buddy_frames + s->pcp;
	spin_unlock_irqrestore(&pmm_lock, flags);
	return 0;
}

unsigned pmm_node_count(void)
{
	return pmm_nnodes;
}

int page_split(struct page *head)
{
	unsigned order = head->order;

	if (!page_test_flags(head, PG_HEAD) || page_ref_count(head) != 1 || page_mapcount(head))
		return -EINVAL;
	/* Tails first: until the head changes, the block still reads as one. */
	for (u64 i = 1; i < (1ull << order); i++)
		head[i] = (struct page){ .flags = PG_HEAD, .refcount = 1, .node = head[i].node };
	head->order = 0;
	return 0;
}
