/*
 * Address spaces (see mm/mm.h): creation and teardown, regions, unmapping,
 * flushes across mm_cpumask, and switching CPUs between address spaces with
 * per-CPU ASID slots. Locking as mm/mm.h says. A CPU's mm_asids copy is
 * touched only by that CPU, with interrupts off (mm_switch());
 * mm_kernel_root_pa and mm_nr_asids are written once at boot.
 */
#include "mm/mm.h"
#include "errno.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/smp.h"
#include "lib/atomic.h"
#include "mm/mm_hook.h"
#include "mm/page.h"
#include "mm/pmm.h"
#include "mm/pt.h"
#include "mm/tlb/tlb.h"
#include "torture_hook.h"
#include <arch/arch.h>

BUILD_ASSERT(sizeof(struct mm) <= PAGE_SIZE);

/* One ASID a CPU handed out: to which mm, and that mm's tlb_gen when last loaded. */
struct mm_asid_slot {
	u64 ctx_id; /* 0: unused */
	u64 gen;
};

struct mm_cpu_asids {
	struct mm_asid_slot slot[MM_ASID_SLOTS];
	unsigned next; /* the slot to hand out next when no slot holds the mm */
	u64 load_gen;  /* the loaded mm's tlb_gen when this CPU loaded it (mm_loaded_gen()) */
} __cacheline_aligned;

const struct mm_swap_hooks *mm_swap;
static paddr_t mm_kernel_root_pa;
static unsigned mm_nr_asids;
static u64 mm_next_ctx;
static struct mm_cpu_asids mm_asids __pcpu_data;
mm_hook_fn *mm_hook;

void mm_init(paddr_t kernel_root, unsigned nr_asids)
{
	mm_kernel_root_pa = kernel_root;
	mm_nr_asids = MIN(nr_asids, MM_ASID_SLOTS);
	for (unsigned cpu = 0; cpu < percpu_data_bound(); cpu++)
		*per_cpu_ptr(mm_asids, cpu) = (struct mm_cpu_asids){ .next = 0 };
}

paddr_t mm_kernel_root(void)
{
	return mm_kernel_root_pa;
}

/* regions: mm->lock held */

int mm_check_range(vaddr_t start, u64 len)
{
	if (!len || !IS_ALIGNED(start, PAGE_SIZE) || !IS_ALIGNED(len, PAGE_SIZE))
		return -EINVAL;
	if (start < MM_MIN_ADDR || start >= MM_USER_TOP || len > MM_USER_TOP - start)
		return -EINVAL;
	return 0;
}

/* Index of the first region that ends above @va (nregions when there is none). */
static unsigned mm_region_index(const struct mm *mm, vaddr_t va)
{
	unsigned lo = 0, hi = mm->nregions;

	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;

		if (mm->regions[mid].end <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct mm_region *mm_region_find_locked(struct mm *mm, vaddr_t va)
{
	unsigned i = mm_region_index(mm, va);

	if (i < mm->nregions && mm->regions[i].start <= va)
		return &mm->regions[i];
	return NULL;
}

int mm_region_set_mapping(struct mm *mm, vaddr_t start, struct mm_mapping *mapping,
			  unsigned slot)
{
	unsigned i;
	int err = -EINVAL;

	write_lock(&mm->lock);
	i = mm_region_index(mm, start);
	if (i < mm->nregions && mm->regions[i].start == start) {
		mm->regions[i].mapping = mapping;
		mm->regions[i].attach_slot = slot;
		err = 0;
	}
	write_unlock(&mm->lock);
	return err;
}

unsigned mm_region_prot(const struct mm_region *r)
{
	unsigned prot = PROT_READ;

	if (r->flags & MM_WRITE)
		prot |= PROT_WRITE;
	if (r->flags & MM_EXEC)
		prot |= PROT_EXEC;
	return prot;
}

static void mm_region_insert(struct mm *mm, unsigned i, struct mm_region r)
{
	for (unsigned k = mm->nregions; k > i; k--)
		mm->regions[k] = mm->regions[k - 1];
	mm->regions[i] = r;
	mm->nregions++;
}

static void mm_region_remove(struct mm *mm, unsigned i)
{
	for (unsigned k = i; k + 1 < mm->nregions; k++)
		mm->regions[k] = mm->regions[k + 1];
	mm->nregions--;
}

/* True when one region reaches past both ends of [start, end): unmapping splits it. */
static bool mm_regions_split(struct mm *mm, vaddr_t start, vaddr_t end)
{
	const struct mm_region *r = mm_region_find_locked(mm, start);

	return r && r->start < start && r->end > end;
}

/* Takes [start, end) out of the regions: cuts, removes or splits them. */
static void mm_regions_cut(struct mm *mm, vaddr_t start, vaddr_t end)
{
	unsigned i = mm_region_index(mm, start);

	while (i < mm->nregions && mm->regions[i].start < end) {
		struct mm_region *r = &mm->regions[i];
		struct mm_region tail = *r;

		if (r->start < start && r->end > end) {
			tail.start = end;
			r->end = start;
			mm_region_insert(mm, i + 1, tail);
			return;
		}
		if (r->start < start) {
			r->end = start;
			i++;
		} else if (r->end > end) {
			r->start = end;
			return;
		} else {
			mm_region_remove(mm, i);
		}
	}
}

int mm_map_region(struct mm *mm, vaddr_t start, u64 len, unsigned flags)
{
	int err = mm_check_range(start, len);
	unsigned i;

	if (err || !(flags & MM_READ) || (flags & ~MM_REGION_FLAGS))
		return -EINVAL;
	write_lock(&mm->lock);
	i = mm_region_index(mm, start);
	if (i < mm->nregions && mm->regions[i].start < start + len)
		err = -EEXIST;
	else if (mm->nregions == MM_MAX_REGIONS)
		err = -ENOSPC;
	else
		mm_region_insert(mm, i, (struct mm_region){ start, start + len, flags, 0, NULL });
	write_unlock(&mm->lock);
	return err;
}

/* flushes */

/* Call function, and the caller's own part: flush if @req's mm is loaded here. */
/* The shootdown itself (IPIs to mm_cpumask, the ceiling, the counts) lives in mm/tlb/tlb.c. */
int mm_flush_range(struct mm *mm, vaddr_t start, vaddr_t last)
{
	int err;

	arch_pt_publish();
	err = tlb_flush_range(mm, start, last);
	mm_hook_at(MM_HOOK_FLUSHED, &err);
	return err;
}

static void mm_flush_gather(struct pt_gather *g)
{
	int err = tlb_flush_gather(g->arg, g);

	mm_hook_at(MM_HOOK_FLUSHED, &err);

	if (err && !g->err)
		g->err = err;
}

/* unmapping */

void mm_page_drop(struct page *page)
{
	WARN_ONCE(page_map_dec(page) < 0, "mm: pfn 0x%lx map count below zero",
		  page_to_pfn(page));
	if (page_ref_dec_and_test(page))
		page_free(page, 0);
}

/*
 * The frames of one batch of a gather, after its flush: each loses its
 * mapping and its reference, and those whose last reference went back to
 * the allocator together (one trip to its cache lock). The two atomics per
 * frame are the ones the counts need: other address spaces (fork) and
 * fast pins change them concurrently. The batch's array is scratch here.
 */
void mm_pages_drop(struct page **pages, unsigned n)
{
	unsigned i, nfree = 0;

	for (i = 0; i < n; i++) {
		struct page *page = pages[i];

		WARN_ONCE(page_map_dec(page) < 0, "mm: pfn 0x%lx map count below zero",
			  page_to_pfn(page));
		if (page_ref_dec_and_test(page))
			pages[nfree++] = page;
	}
	page_free_dropped(pages, nfree);
}

static void mm_gather_release(struct pt_gather *g, struct page **pages, unsigned n)
{
	(void)g;
	mm_pages_drop(pages, n);
}

static void mm_gather_swap(struct pt_gather *g, const u64 *swp, unsigned n)
{
	/* Swap entries exist only once a device went on, which set the hooks. */
	ASSERT(mm_swap);
	mm_swap->release(g->arg, swp, n);
}

void mm_gather_init(struct pt_gather *g, struct mm *mm)
{
	pt_gather_init(g, mm_flush_gather, mm);
	g->release = mm_gather_release;
	g->swap_free = mm_gather_swap;
}

/*
 * Unmaps [start, start + len) and releases what was mapped, after the
 * flush. Write side held. Returns pt_unmap()'s error (nothing unmapped),
 * else 0 with *@flush_err set to the flush's: -ETIMEDOUT when it did not
 * complete (the mappings are gone, their frames and tables quarantined).
 */
static int mm_zap_locked(struct mm *mm, vaddr_t start, u64 len, int *flush_err)
{
	struct pt_gather g;
	int err;

	mm_gather_init(&g, mm);
	err = pt_unmap(mm->root, start, len, &g);
	pt_gather_finish(&g);
	*flush_err = g.err;
	return err;
}

int mm_unmap_region(struct mm *mm, vaddr_t start, u64 len)
{
	int err = mm_check_range(start, len), flush_err = 0;

	if (err)
		return err;
	write_lock(&mm->lock);
	if (mm_regions_split(mm, start, start + len) && mm->nregions == MM_MAX_REGIONS)
		err = -ENOSPC;
	else
		err = mm_zap_locked(mm, start, len, &flush_err);
	/* A failed flush still unmapped everything: the regions go too. */
	if (!err)
		mm_regions_cut(mm, start, start + len);
	write_unlock(&mm->lock);
	return err ? err : flush_err;
}

/* creation and teardown */

struct page *mm_page_alloc(struct mm *mm, unsigned order, unsigned flags)
{
	return page_alloc_node(order, flags | mm->node_flags, mm->node);
}

int mm_create(struct mm **out)
{
	return mm_create_node(out, PMM_NODE_LOCAL, PMM_FALLBACK);
}

int mm_create_node(struct mm **out, unsigned node, unsigned flags)
{
	struct page *p;
	struct mm *mm;

	if (node == PMM_NODE_LOCAL)
		node = pmm_local_node();
	flags &= PMM_FALLBACK;
	p = page_alloc_node(0, PMM_ZERO | flags, node);
	if (!p)
		return -ENOMEM;
	mm = page_address(p);
	mm->node = node;
	mm->node_flags = flags;
	if (pt_root_alloc_node(&mm->root, mm_kernel_root_pa, node, flags)) {
		page_free(p, 0);
		return -ENOMEM;
	}
	rwlock_init(&mm->lock, "mm");
	spin_lock_init(&mm->pt_lock, "mm_pt");
	mm->ctx_id = atomic_add_return(&mm_next_ctx, 1);
	*out = mm;
	return 0;
}

int mm_destroy(struct mm *mm)
{
	int err, flush_err = 0;

	if (mm_current() == mm)
		mm_switch(NULL);
	/*
	 * cpumask_empty() reads with acquire: a CPU that switched away last
	 * wrote the mask (its bit's clear) as it left, which must come before
	 * the free below.
	 */
	if (!cpumask_empty(mm_cpumask(mm)))
		return -EBUSY;
	write_lock(&mm->lock);
	/*
	 * The tables cannot need splitting, so the unmap cannot fail. Its
	 * flush can (a CPU out of the run): what it covered is quarantined,
	 * and the mm goes all the same, since no CPU has its root loaded.
	 */
	err = mm_zap_locked(mm, 0, MM_USER_TOP, &flush_err);
	mm->nregions = 0;
	write_unlock(&mm->lock);
	ASSERT(!err);
	ASSERT(pt_root_free(mm->root) == 0);
	page_free(phys_to_page(virt_to_phys(mm)), 0);
	return 0;
}

/* switching */

/*
 * This CPU's ASID for @mm, and whether what the CPU cached under it is
 * stale: the slot was another mm's, or @mm's translations changed since
 * this CPU last loaded it. Interrupts off; mm_cpumask bit already set.
 */
static u16 mm_asid_pick(struct mm *mm, bool *flush)
{
	struct mm_cpu_asids *c = this_cpu_ptr(mm_asids);
	u64 gen = atomic_load_acquire(&mm->tlb_gen);
	unsigned i;

	c->load_gen = gen;
	*flush = true;
	if (!mm_nr_asids)
		return 0;
	for (i = 0; i < mm_nr_asids && c->slot[i].ctx_id != mm->ctx_id; i++)
		;
	if (i == mm_nr_asids) {
		i = c->next;
		c->next = (i + 1) % mm_nr_asids;
		c->slot[i].ctx_id = mm->ctx_id;
	} else {
		*flush = c->slot[i].gen != gen;
	}
	c->slot[i].gen = gen;
	return (u16)(i + 1);
}

void mm_switch(struct mm *mm)
{
	unsigned long flags = arch_irq_save();
	struct percpu *pc = this_cpu();
	struct mm *old = pc->mm;
	unsigned cpu = arch_cpu_id();
	bool flush = false;
	u16 asid = 0;

	if (old != mm) {
		/* While @old is still loaded: what a design deferred lands in its ASID. */
		tlb_mm_switch();
		if (mm) {
			/* Set before the generation is read (mm_flush_range() relies on it). */
			cpumask_set_cpu_atomic(cpu, mm_cpumask(mm));
			asid = mm_asid_pick(mm, &flush);
		}
		arch_load_root(mm ? mm->root : mm_kernel_root_pa, asid, flush);
		pc->mm = mm;
		/* Cleared only now: until the load, flushes of @old must still reach us. */
		if (old)
			cpumask_clear_cpu_atomic(cpu, mm_cpumask(old));
	}
	arch_irq_restore(flags);
}

u64 mm_loaded_gen(void)
{
	return this_cpu_ptr(mm_asids)->load_gen;
}

/* installing pages */

int mm_install_page_slot(struct mm *mm, struct pt_slot *s, struct page *page, unsigned prot)
{
	paddr_t pa = page_to_phys(page);
	int err = pt_slot_install(s, pa, prot);

	if (err != -ENOENT)
		return err;
	/* No level-1 table yet: the walk resumes where it stopped, under the table lock. */
	mm_hook_at(MM_HOOK_FAULT_POPULATE, s);
	spin_lock(&mm->pt_lock);
	err = pt_slot_populate(s);
	spin_unlock(&mm->pt_lock);
	return err ? err : pt_slot_install(s, pa, prot);
}

int mm_install_page_locked(struct mm *mm, vaddr_t va, struct page *page, unsigned prot)
{
	struct pt_slot s;
	int err = pt_slot_find(mm->root, va, &s);

	return err ? err : mm_install_page_slot(mm, &s, page, prot);
}

int mm_zero_page_slot(struct mm *mm, const struct mm_region *r, struct pt_slot *s)
{
	struct page *p;
	int err;

	p = torture_hook_fail(TORTURE_FAIL_FRAME) ? NULL : mm_page_alloc(mm, 0, PMM_ZERO);

	if (!p)
		return -ENOMEM;
	page_map_inc(p); /* the allocation's reference becomes the mapping's */
	err = mm_install_page_slot(mm, s, p, mm_region_prot(r));
	if (err)
		mm_page_drop(p);
	return err;
}

int mm_zero_page_locked(struct mm *mm, const struct mm_region *r, vaddr_t va)
{
	struct pt_slot s;
	int err = pt_slot_find(mm->root, va, &s);

	return err ? err : mm_zero_page_slot(mm, r, &s);
}
