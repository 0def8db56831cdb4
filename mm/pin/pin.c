/*
 * Page pinning (see mm/pin/pin.h). The fast walk runs with interrupts off and
 * no lock, only on a CPU that has the mm loaded: nothing is freed until every
 * CPU in mm_cpumask acknowledged the flush IPI, which this CPU cannot do
 * before the walk ends. Elsewhere pages are pinned under the mm's read side.
 * What the pin designs (mm/pin/designs/) share comes first, then the walk.
 */
#include "mm/pin/pin.h"
#include "mm/counters.h"
#include "errno.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "lib/atomic.h"
#include "mm/fault.h"
#include "mm/mapping/mapping.h"
#include "mm/mm.h"
#include "mm/page.h"
#include "mm/pin/pagemap.h"
#include "mm/pt.h"
#include <arch/arch.h>

PCPU_COUNTER(PCPU_PIN_FLAG_WRITES, "pin_flag_writes");
PCPU_COUNTER(PCPU_PIN_UNLOADED, "pin_unloaded");
PCPU_COUNTER(PCPU_PIN_RETRIES, "pin_retries");
PCPU_COUNTER(PCPU_PIN_REF_ATOMICS, "pin_ref_atomics");

/* page_pin_nr(), counted: one atomic add to @p's refcount (and a large head's pincount). */
int pin_ref(struct page *p, u32 nr)
{
	this_cpu_inc(PCPU_PIN_REF_ATOMICS);
	return page_pin_nr(p, nr);
}

/* ---- large folio refcount: per page (naive, fixed) ---- */

/*
 * One add per 4 KiB page, as follow_hugetlb_page() did before Martins
 * 2021 (try_grab_page() on every subpage): the head's line takes @nr
 * atomics from this CPU, and from every other CPU pinning the folio.
 */
int pin_large_per_page(struct page *head, unsigned nr)
{
	for (unsigned i = 0; i < nr; i++) {
		int err = pin_ref(head, 1);

		if (err) {
			if (i)
				/* Not the last reference: the mapping holds one. */
				page_unpin_nr(head, i);
			return err;
		}
	}
	return 0;
}

/* ---- has_pinned: naive ---- */

void note_pinned_naive(struct mm *mm)
{
	/* Every call writes the line, even when the value is already 1. */
	atomic_store_relaxed(&mm->has_pinned, 1);
	this_cpu_inc(PCPU_PIN_FLAG_WRITES);
}

/* ---- has_pinned: fixed ---- */

void note_pinned_fixed(struct mm *mm)
{
	/* Test before set: after the first call the line stays shared, never written. */
	if (atomic_load_relaxed(&mm->flags) & (1ul << MMF_HAS_PINNED))
		return;
	atomic_fetch_or(&mm->flags, 1ul << MMF_HAS_PINNED);
	this_cpu_inc(PCPU_PIN_FLAG_WRITES);
}

void pagemap_done(struct dev_pagemap *pgmap)
{
	if (pgmap)
		pagemap_put(pgmap);
}

/* Filled from the design_set section (DESIGN_REGISTER, mm/pin/designs/). */
const struct design *pin_flag_designs[DESIGN_TABLE_SLOTS];
const struct design *pin_pagemap_designs[DESIGN_TABLE_SLOTS];

const struct pin_policy pin_policy_default = { &pin_flag_ops_fixed, &pin_pagemap_ops_cached };

/* ---- the walk ---- */

struct pin_walk {
	struct mm *mm;
	vaddr_t start;
	unsigned nr, done, flags;
	struct page **pages;
	const struct pin_policy *pol;
	struct dev_pagemap *pgmap;
	int err;
};

/* Pins the device page @p (its pagemap first). Returns 0 or an error. */
static int pin_device_page(struct pin_walk *w, struct page *p)
{
	int err;

	if (!w->pol->pagemap->get)
		return pin_ref(p, 1); /* none: the refcount alone keeps the page */
	w->pgmap = w->pol->pagemap->get(page_to_pfn(p), w->pgmap);
	if (!w->pgmap)
		return -EFAULT; /* device memory no pagemap owns */
	err = pin_ref(p, 1);
	w->pgmap = w->pol->pagemap->after_page(w->pgmap);
	return err;
}

/*
 * Pins the pages of one mapping at @va: a 4 KiB page, or every page of
 * the call inside one large page, pinned on its head as the design says
 * (per page or in one step). Returns how many pages it covered, or 0 with
 * w->err set.
 */
static unsigned pin_one_mapping(struct pin_walk *w, vaddr_t va, paddr_t pa, u64 size)
{
	struct page *p = phys_to_page(pa);
	unsigned k = 1;

	if (size > PT_PAGE_4K) {
		u64 left = (size - (va & (size - 1))) / PT_PAGE_4K;

		k = (unsigned)MIN(left, (u64)(w->nr - w->done));
		w->err = w->pol->flag->pin_large(page_block_head(p), k);
	} else if (page_test_flags(p, PG_DEVICE)) {
		w->err = pin_device_page(w, p);
	} else {
		w->err = pin_ref(p, 1);
	}
	if (w->err)
		return 0;
	for (unsigned i = 0; i < k; i++)
		w->pages[w->done + i] = p + i;
	return k;
}

/* Whether two pt_lookup() results are the same translation (A and D bits aside). */
static bool pin_same_entry(paddr_t pa, unsigned prot, u64 size, paddr_t pa2, unsigned prot2,
			   u64 size2)
{
	return pa == pa2 && prot == prot2 && size == size2;
}

/*
 * Pins the mapping at the next page and checks, as gup-fast does, that the
 * entry still says what it said when read: if it changed meanwhile (an
 * unmap, a copy-on-write break, fork's write-protect), the page pinned is
 * no longer what @mm maps there, so the pin is dropped. Returns whether
 * the walk goes on.
 */
static bool pin_walk_step(struct pin_walk *w)
{
	vaddr_t va = w->start + (vaddr_t)w->done * PT_PAGE_4K;
	paddr_t pa, pa2;
	unsigned prot, prot2, k;
	u64 size, size2;

	if (pt_lookup(w->mm->root, va, &pa, &prot, &size))
		return false;
	if ((w->flags & PIN_WRITE) && !(prot & PROT_WRITE))
		return false;
	k = pin_one_mapping(w, va, pa, size);
	if (!k)
		return false;
	if (pt_lookup(w->mm->root, va, &pa2, &prot2, &size2) ||
	    !pin_same_entry(pa, prot, size, pa2, prot2, size2)) {
		unpin_pages(&w->pages[w->done], k);
		this_cpu_inc(PCPU_PIN_RETRIES);
		return false;
	}
	w->done += k;
	return true;
}

/*
 * The lockless walk, safe only on a CPU that has @mm loaded: a table or
 * frame is freed only after every CPU in mm_cpumask acknowledged the flush
 * IPI, which this CPU cannot do with interrupts off. Elsewhere nothing
 * holds a shootdown back, so the walk is left to pin_walk_locked()
 * (counted). Pins taken while fork ran are undone (fork's sequence count).
 */
static void pin_walk_fast(struct pin_walk *w)
{
	u32 seq = mm_wp_seq_read_begin(w->mm);
	unsigned from = w->done;
	unsigned long irq;

	if (seq & 1)
		return; /* fork is write-protecting: pin_walk_locked() waits for it */
	irq = arch_irq_save();
	if (cpumask_test_cpu(arch_cpu_id(), mm_cpumask(w->mm))) {
		while (w->done < w->nr && pin_walk_step(w))
			;
	} else {
		this_cpu_inc(PCPU_PIN_UNLOADED);
	}
	arch_irq_restore(irq);
	if (w->done > from && mm_wp_seq_read_retry(w->mm, seq)) {
		unpin_pages(&w->pages[from], w->done - from);
		w->done = from;
		w->err = 0; /* the locked walk meets any error again */
		this_cpu_inc(PCPU_PIN_RETRIES);
	}
}

/*
 * The walk under @mm's read side, which keeps out fork and every unmap
 * but the shareable zap, and, in a shareable region, its mapping lock,
 * which keeps out that one. Any CPU, task context.
 */
static void pin_walk_locked(struct pin_walk *w)
{
	struct mm *mm = w->mm;

	read_lock(&mm->lock);
	while (w->done < w->nr) {
		vaddr_t va = w->start + (vaddr_t)w->done * PT_PAGE_4K;
		const struct mm_region *r = mm_region_find_locked(mm, va);
		bool held = r && mapping_install_lock(r);
		bool more = pin_walk_step(w);

		if (r)
			mapping_fault_unlock(r, held);
		if (!more)
			break;
	}
	read_unlock(&mm->lock);
}

int pin_pages_fast(struct mm *mm, vaddr_t start, unsigned nr, unsigned flags,
		   struct page **pages, const struct pin_policy *pol)
{
	struct pin_walk w = { mm, start, nr, 0, flags, pages, pol, NULL, 0 };

	if (!nr || start & (PT_PAGE_4K - 1))
		return -EINVAL;
	pol->flag->note_pinned(mm);
	pin_walk_fast(&w);
	if (w.done < nr && !w.err)
		pin_walk_locked(&w);
	while (w.done < nr && !w.err && !(flags & PIN_FAST_ONLY)) {
		vaddr_t va = start + (vaddr_t)w.done * PT_PAGE_4K;

		/* Slow path: fault the page in as an access would, then walk on. */
		w.err = fault_handle_mm(mm, va, (flags & PIN_WRITE) ? FAULT_WRITE : 0);
		if (!w.err)
			pin_walk_locked(&w);
	}
	pol->pagemap->done(w.pgmap);
	return w.done ? (int)w.done : (w.err ? w.err : -EFAULT);
}

/* Unpins the run of @pages from @i that lies in one allocated block. Returns its length. */
static unsigned unpin_run(struct page **pages, unsigned i, unsigned nr, int *err)
{
	struct page *head = page_block_head(pages[i]);
	u64 first = page_to_pfn(head), end = first + (1ull << head->order);
	unsigned k = 1;

	if (head->order == 0) {
		if (page_unpin(head))
			*err = -EINVAL;
		return 1;
	}
	while (i + k < nr && page_to_pfn(pages[i + k]) >= first && page_to_pfn(pages[i + k]) < end)
		k++;
	if (page_unpin_nr(head, k))
		*err = -EINVAL;
	return k;
}

int unpin_pages(struct page **pages, unsigned nr)
{
	int err = 0;

	for (unsigned i = 0; i < nr;)
		i += unpin_run(pages, i, nr, &err);
	WARN_ONCE(err, "unpin_pages: a page was not pinned");
	return err;
}

bool page_maybe_pinned(struct page *page)
{
	return page_pinned(page_block_head(page));
}

bool mm_has_pinned(const struct mm *mm)
{
	return atomic_load_relaxed(&mm->has_pinned) ||
	       (atomic_load_relaxed(&mm->flags) & (1ul << MMF_HAS_PINNED));
}
