/*
 * The physical frame allocator (see mm/pmm.h): set-up (over the range
 * tables of mm/pmm_ranges.c), the buddy lists, the per-CPU order-0 caches,
 * and the checks that refuse bad frees.
 *
 * Lock order: pmm_pcps[cpu].lock, then pmm_lock. pmm_lock guards the buddy
 * lists, pmm_buddy_frames, pmm_managed and pmm_held_back; a cache's lock
 * guards its list. Both are taken with interrupts off. The range tables
 * (mm/pmm_ranges.c) are written only by pmm_init() (boot, one CPU).
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

/* Bad frees past this many are counted but no longer printed. */
#define PMM_REPORT_MAX 32

struct pmm_pcp {
	spinlock_t lock;
	struct page_list list;
} __cacheline_aligned;

static spinlock_t pmm_lock = SPINLOCK_INIT("pmm");
static struct page_list pmm_free_area[PMM_MAX_ORDER + 1];
static u64 pmm_buddy_frames, pmm_managed, pmm_held_back, pmm_memmap_frames;
static u64 pmm_limit_pfn;
/*
 * Not per-CPU data (kernel/percpu.h): the caches exist before the allocator
 * hands out the pages that hold the other CPUs' copies. 64 bytes a CPU.
 */
static struct pmm_pcp pmm_pcps[MAX_CPUS];
static bool pmm_ready;


static u64 pmm_errors, pmm_failed, pmm_reports;
static u32 pmm_inject_skip, pmm_inject_count;

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
	page_list_add(&pmm_free_area[order], p);
}

static void buddy_del_locked(struct page *p, unsigned order)
{
	page_list_del(&pmm_free_area[order], p);
	pmm_flags_locked(p, 0, PG_BUDDY);
}

/* Frees the block at @pfn, merging it with free buddies as far as they go. */
static void buddy_free_locked(u64 pfn, unsigned order)
{
	pmm_buddy_frames += 1ull << order;
	while (order < PMM_MAX_ORDER) {
		u64 buddy = pfn ^ (1ull << order);
		struct page *b;

		if (!pfn_valid(buddy))
			break;
		b = pfn_to_page(buddy);
		if (!page_test_flags(b, PG_BUDDY) || b->order != order)
			break;
		buddy_del_locked(b, order);
		pfn &= ~(1ull << order);
		order++;
	}
	buddy_add_locked(pfn_to_page(pfn), order);
}

/* Takes the smallest free block that fits and splits off what is not needed. */
static struct page *buddy_alloc_locked(unsigned order)
{
	unsigned o = order;
	struct page *p;

	while (o <= PMM_MAX_ORDER && page_list_empty(&pmm_free_area[o]))
		o++;
	if (o > PMM_MAX_ORDER)
		return NULL;
	p = container_of(pmm_free_area[o].head.next, struct page, lru);
	buddy_del_locked(p, o);
	while (o > order) {
		o--;
		buddy_add_locked(p + (1ull << o), o);
	}
	pmm_buddy_frames -= 1ull << order;
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

/* Hands every free-able frame in [lo, hi) to the buddy lists; returns how many. */
static u64 pmm_free_runs_locked(u64 lo, u64 hi)
{
	struct pmm_iter it = { 0, 0 };
	u64 s, e, pfn, total = 0;

	while (pmm_iter_next(&it, lo, hi, &s, &e)) {
		for (pfn = s; pfn < e; pfn++)
			pfn_to_page(pfn)->flags = 0;
		total += e - s;
		while (s < e) {
			unsigned order = pmm_block_order(s, e - s);

			buddy_free_locked(s, order);
			s += 1ull << order;
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
		struct page *p = buddy_alloc_locked(0);

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

static struct page *pcp_alloc(void)
{
	struct pmm_pcp *pcp = pmm_this_pcp();
	unsigned long flags = spin_lock_irqsave(&pcp->lock);
	struct page *p;

	if (page_list_empty(&pcp->list))
		pcp_refill_locked(pcp);
	p = page_list_pop(&pcp->list);
	if (p)
		pmm_flags_locked(p, 0, PG_PCP);
	spin_unlock_irqrestore(&pcp->lock, flags);
	return p;
}

static void pcp_free(struct page *p)
{
	struct pmm_pcp *pcp = pmm_this_pcp();
	unsigned long flags = spin_lock_irqsave(&pcp->lock);

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
	unsigned i;

	for (i = 0; i < n; i++)
		page_list_add(&pcp->list, pages[i]);
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

/* allocation and freeing */

static bool pmm_inject_now(void)
{
	unsigned long flags;
	bool fail = false;

	if (likely(!atomic_load_relaxed(&pmm_inject_count)))
		return false;
	flags = spin_lock_irqsave(&pmm_lock);
	if (pmm_inject_skip > 0) {
		pmm_inject_skip--;
	} else if (pmm_inject_count > 0) {
		pmm_inject_count--;
		fail = true;
	}
	spin_unlock_irqrestore(&pmm_lock, flags);
	return fail;
}

static struct page *pmm_alloc_block(unsigned order)
{
	unsigned long flags;
	struct page *p;

	if (order == 0)
		return pcp_alloc();
	flags = spin_lock_irqsave(&pmm_lock);
	p = buddy_alloc_locked(order);
	spin_unlock_irqrestore(&pmm_lock, flags);
	return p;
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
	struct page *p = NULL;

	if (order <= PMM_MAX_ORDER && READ_ONCE(pmm_ready) && !pmm_inject_now() &&
	    !torture_hook_alloc_fail(order)) {
		p = pmm_alloc_block(order);
		if (!p) {
			/* The frames may be sitting in other CPUs' caches. */
			pmm_drain_all();
			p = pmm_alloc_block(order);
		}
	}
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

static bool pmm_in_memmap(const struct page *p)
{
	uintptr_t off = (uintptr_t)p - (uintptr_t)mm_memmap;

	return mm_memmap && (uintptr_t)p >= (uintptr_t)mm_memmap &&
	       off / sizeof(struct page) < mm_memmap_end_pfn - mm_memmap_start_pfn &&
	       off % sizeof(struct page) == 0;
}

static int pmm_check_unused(const struct page *p, unsigned order, const char **why)
{
	u64 i;

	if (page_pinned(p)) {
		*why = "still pinned";
		return -EBUSY;
	}
	for (i = 0; i < (1ull << order); i++) {
		if (page_mapcount(&p[i]) > 0) {
			*why = "still mapped";
			return -EBUSY;
		}
	}
	return 0;
}

static int pmm_check_free(const struct page *p, unsigned order, const char **why)
{
	u32 f;

	*why = "not a frame of the memmap";
	if (!pmm_in_memmap(p))
		return -EINVAL;
	*why = "order above PMM_MAX_ORDER";
	if (order > PMM_MAX_ORDER)
		return -EINVAL;
	f = atomic_load_relaxed(&p->flags);
	if (f & PG_RESERVED)
		*why = "reserved frame, never allocated";
	else if (f & PG_TAIL)
		*why = "not the first frame of its block";
	else if (f & (PG_FREED | PG_BUDDY | PG_PCP))
		*why = "already free (double free)";
	else if (!(f & PG_HEAD))
		*why = "never allocated";
	else if (p->order != order)
		*why = "order differs from the allocation's";
	else
		return pmm_check_unused(p, order, why);
	return -EINVAL;
}

static int pmm_report(const struct page *p, unsigned order, int err, const char *why, void *caller)
{
	u64 n;

	atomic_inc(&pmm_errors);
	n = atomic_add_return(&pmm_reports, 1);
	if (n > PMM_REPORT_MAX)
		return err;
	warn_report(__FILE__, __LINE__, "page_free(pfn 0x%lx, order %u) from %p refused: %s (%s)%s",
		    pmm_in_memmap(p) ? page_to_pfn(p) : 0, order, caller, why, errno_name(err),
		    n == PMM_REPORT_MAX ? "; further errors are only counted" : "");
	return err;
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
	for (i = 0; i <= PMM_MAX_ORDER; i++)
		page_list_init(&pmm_free_area[i]);
	for (i = 0; i < MAX_CPUS; i++) {
		spin_lock_init(&pmm_pcps[i].lock, "pmm_pcp");
		page_list_init(&pmm_pcps[i].list);
	}
	pmm_buddy_frames = pmm_managed = pmm_held_back = pmm_memmap_frames = 0;
	pmm_errors = pmm_failed = pmm_reports = 0;
	pmm_inject_skip = pmm_inject_count = 0;
}

int pmm_init(const struct pmm_config *cfg)
{
	unsigned long flags;
	int err;

	pmm_reset();
	if (cfg->nusable > PMM_MAX_USABLE || cfg->nreserved > PMM_MAX_RESERVED)
		return -EINVAL;
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
		n = pmm_free_runs_locked(pmm_limit_pfn, ~0ull);
		pmm_managed += n;
		pmm_held_back = 0;
		pmm_limit_pfn = ~0ull;
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
	for (i = 0; i <= PMM_MAX_ORDER; i++)
		s->blocks[i] = pmm_free_area[i].count;
	s->managed = pmm_managed;
	s->held_back = pmm_held_back;
	s->memmap_frames = pmm_memmap_frames;
	s->free = pmm_buddy_frames + s->pcp;
	spin_unlock_irqrestore(&pmm_lock, flags);
	s->allocated = s->managed - s->free;
	s->errors = atomic_load_relaxed(&pmm_errors);
	s->failed = atomic_load_relaxed(&pmm_failed);
}

void pmm_inject_fail(u32 skip, u32 count)
{
	unsigned long flags = spin_lock_irqsave(&pmm_lock);

	pmm_inject_skip = skip;
	atomic_store_relaxed(&pmm_inject_count, count);
	spin_unlock_irqrestore(&pmm_lock, flags);
}

int page_split(struct page *head)
{
	unsigned order = head->order;

	if (!page_test_flags(head, PG_HEAD) || page_ref_count(head) != 1 || page_mapcount(head))
		return -EINVAL;
	/* Tails first: until the head changes, the block still reads as one. */
	for (u64 i = 1; i < (1ull << order); i++)
		head[i] = (struct page){ .flags = PG_HEAD, .refcount = 1, .order = 0 };
	head->order = 0;
	return 0;
}
