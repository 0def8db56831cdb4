/*
 * Page pinning (FOLL_PIN style): pin_pages_fast() walks an address space's
 * tables without its lock, interrupts off, safe only while this CPU has the
 * mm loaded; elsewhere it walks under the read side. Each pin rechecks its
 * entry; a walk that overlapped fork's write-protect is redone. Pins are
 * counted on struct page (mm/page.h). The has_pinned and pagemap lookups are
 * designs, picked by table (mm/pin/designs/); each says where it comes from.
 */
#ifndef MM_PIN_H
#define MM_PIN_H

#include "compiler.h"
#include "kernel/design.h"
#include "mm/counters.h"
#include "types.h"

struct mm;
struct page;
struct dev_pagemap;

/* pin_pages_fast() flags */
#define PIN_WRITE (1u << 0)	/* the caller will write: fault in write-protected pages */
#define PIN_FAST_ONLY (1u << 1) /* no faulting: stop at the first page not present */

/*
 * A pin design (kernel/design.h): how a call records has_pinned and how
 * it takes a large folio's refcount. Promises count PCPU_PIN_FLAG_WRITES
 * per call (or per CPU per mm) and PCPU_PIN_REF_ATOMICS per page, or per
 * folio (trait counts_folios: per run of pages of one folio in one call; an
 * order-0 page is a folio of one page).
 */
struct pin_flag_ops {
	struct design d; /* first: pin_flag_designs[] holds &ops.d */
	/* Records that @mm has pinned pages; once per pin_pages_fast() call. */
	void (*note_pinned)(struct mm *mm);
	/*
	 * Takes @nr pins on the head of large folio @head for @nr of its pages
	 * met in one call. Any context. Returns 0, or page_pin_nr()'s error
	 * with no pin left taken.
	 */
	int (*pin_large)(struct page *head, unsigned nr);
};

/*
 * A pagemap design; promises count lookups and references per page or per
 * range crossed. @get NULL (none): device pages are pinned on their own
 * refcount, with no lookup or reference at all.
 */
struct pin_pagemap_ops {
	struct design d; /* first: pin_pagemap_designs[] holds &ops.d */
	/* The pagemap of device page @pfn with a reference, given @last from the previous page. */
	struct dev_pagemap *(*get)(u64 pfn, struct dev_pagemap *last);
	/* After device page @pfn is pinned (naive drops its reference at once): what to keep. */
	struct dev_pagemap *(*after_page)(struct dev_pagemap *pgmap);
	/* At the end of the call: drops what is still held. */
	void (*done)(struct dev_pagemap *pgmap);
};

extern const struct pin_flag_ops pin_flag_ops_naive, pin_flag_ops_fixed, pin_flag_ops_folio;
extern const struct pin_pagemap_ops pin_pagemap_ops_naive, pin_pagemap_ops_cached;
extern const struct pin_pagemap_ops pin_pagemap_ops_none;

/* The designs of each choice, naive first, NULL-terminated (mm/pin/designs/). */
extern const struct design *pin_flag_designs[DESIGN_TABLE_SLOTS];
extern const struct design *pin_pagemap_designs[DESIGN_TABLE_SLOTS];

/*
 * What the designs share (mm/pin/pin.c), any context: pin_ref() is
 * page_pin_nr() counted as one PCPU_PIN_REF_ATOMICS; pin_large_per_page()
 * one of those per 4 KiB page, undone on error; note_pinned_naive() writes
 * has_pinned every call, note_pinned_fixed() tests the mm flag before it
 * sets it once (each counting PCPU_PIN_FLAG_WRITES per write);
 * pagemap_done() drops a held pagemap reference (NULL: none).
 */
int pin_ref(struct page *p, u32 nr);
int pin_large_per_page(struct page *head, unsigned nr);
void note_pinned_naive(struct mm *mm);
void note_pinned_fixed(struct mm *mm);
void pagemap_done(struct dev_pagemap *pgmap);

static inline const struct pin_flag_ops *pin_flag_ops_of(const struct design *d)
{
	return container_of(d, struct pin_flag_ops, d);
}

static inline const struct pin_pagemap_ops *pin_pagemap_ops_of(const struct design *d)
{
	return container_of(d, struct pin_pagemap_ops, d);
}

struct pin_policy {
	const struct pin_flag_ops *flag;
	const struct pin_pagemap_ops *pagemap;
};

/* The default: both fixes in. */
extern const struct pin_policy pin_policy_default;

/*
 * Pins the @nr pages from @start in @mm, storing them in @pages. Task
 * context with interrupts on, @mm's lock not held (the slow path may take
 * it, fault and flush); lockless only on a CPU with @mm loaded. Returns
 * how many were pinned from @start (fewer when a page is outside every
 * region, or PIN_FAST_ONLY stopped at one not present), or a negative
 * error when none was: -EFAULT, -ENOMEM, -EOVERFLOW (a pin count would
 * overflow), -EINVAL.
 */
int pin_pages_fast(struct mm *mm, vaddr_t start, unsigned nr, unsigned flags,
		   struct page **pages, const struct pin_policy *pol);

/*
 * Drops the pins of @pages[0..nr). Returns 0, or -EINVAL if some page was
 * not pinned (counted and reported; the others are still unpinned).
 */
int unpin_pages(struct page **pages, unsigned nr);

/* True when @page may be pinned (a refcount past PIN_BIAS can be a false positive). */
bool page_maybe_pinned(struct page *page);

/* Whether @mm has ever had a page pinned (either design's record of it). */
bool mm_has_pinned(const struct mm *mm);

#endif
