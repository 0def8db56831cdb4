/*
 * Address spaces: a page-table root sharing the kernel half, regions of
 * anonymous memory in the lower half, and mm_cpumask (the CPUs with it
 * loaded). Lock order: mm->lock (rwlock) -> mm->pt_lock -> the frame
 * allocator's locks; faults and lookups take the read side, changes to
 * regions and removed or downgraded mappings the write side. Functions that
 * change mappings flush with IPIs: task context, interrupts on.
 */
#ifndef MM_MM_H
#define MM_MM_H

#include "mm/mm_types.h"
#include "types.h"

struct page;
struct pt_gather;
struct pt_slot;

/* What the swap subsystem (mm/swap/swap_mm.c) plugs in; see mm_swap. */
struct mm_swap_hooks {
	/*
	 * Brings back the page of swap entry @swp and maps it at s->va in @r,
	 * under @mm's read side, for a fault with @fault_flags (mm/fault.h).
	 * @s is where the fault's walk found @swp (mm/pt.h): re-check and map
	 * through it, with no walk of its own. Returns 0, -EAGAIN when another
	 * CPU is bringing the same page in or changed the entry (the access is
	 * retried), or a negative error.
	 */
	int (*swapin)(struct mm *mm, const struct mm_region *r, const struct pt_slot *s, u64 swp,
		      unsigned fault_flags);
	/*
	 * The @n swap entries of consecutive pages, in address order, are no
	 * longer mapped from @mm (unmap, destroy): drop their slots' references,
	 * the way @mm's swap-free design does.
	 */
	void (*release)(struct mm *mm, const u64 *swp, unsigned n);
	/* Swap entry @swp is being mapped once more (fork). Returns 0 or a negative error. */
	int (*dup)(u64 swp);
};

/*
 * NULL until the first swap device goes on: no swap entry exists before,
 * and a fault on one then fails with -ENOSYS.
 */
extern const struct mm_swap_hooks *mm_swap;

/*
 * Sets the kernel root every mm's kernel half comes from, and how many
 * ASIDs the MMU has besides 0, which the kernel root uses (0: none, every
 * root load flushes). Boot CPU, once, before any other mm_ call (host
 * tests: before each test).
 */
void mm_init(paddr_t kernel_root, unsigned nr_asids);

/* The kernel root set by mm_init(). */
paddr_t mm_kernel_root(void);

/*
 * Creates an empty address space. Task context. Returns 0 with *@out set,
 * or -ENOMEM. Its frames come from the calling CPU's node, others serving
 * when that one has none (mm_create_node(PMM_NODE_LOCAL, PMM_FALLBACK)).
 */
int mm_create(struct mm **out);

/*
 * mm_create() with every frame of the address space (this struct, its
 * page tables and its pages) from NUMA node @node (PMM_NODE_LOCAL: the
 * calling CPU's); other nodes serve only when @flags has PMM_FALLBACK.
 * -ENOMEM also when @node has no memory and no fallback is allowed.
 */
int mm_create_node(struct mm **out, unsigned node, unsigned flags);

/* A frame for @mm's pages: page_alloc_node() from its node, as it was created. */
struct page *mm_page_alloc(struct mm *mm, unsigned order, unsigned flags);

/*
 * Frees @mm: every page it maps (dropping the references its mappings
 * hold), its swap entries, its page tables and root, after the flush that
 * covers them. The calling CPU is switched away first if it has @mm
 * loaded. Task context, interrupts on. Returns 0, or -EBUSY (nothing
 * done) while another CPU has it loaded. A flush that does not complete
 * quarantines what it covered (mm/quarantine.h); @mm is freed all the same.
 */
int mm_destroy(struct mm *mm);

/*
 * Adds a region [start, start + len) with @flags (MM_READ required); no
 * page is mapped until touched. Returns 0, -EINVAL (misaligned, empty,
 * outside [MM_MIN_ADDR, MM_USER_TOP), bad flags), -EEXIST (overlaps a
 * region) or -ENOSPC (MM_MAX_REGIONS reached).
 */
int mm_map_region(struct mm *mm, vaddr_t start, u64 len, unsigned flags);

/*
 * Unmaps [start, start + len) as munmap does: pages are unmapped and
 * released after the flush, regions are cut back, removed or split in two;
 * holes are fine. Task context, interrupts on. Returns 0, -EINVAL,
 * -ENOSPC (a split needs a free region slot; nothing done) or -ETIMEDOUT
 * (the flush did not complete: the range is unmapped and its regions cut,
 * but its frames and tables are quarantined, never freed).
 */
int mm_unmap_region(struct mm *mm, vaddr_t start, u64 len);

/*
 * 0 when [start, start + len) is page aligned, not empty and inside
 * [MM_MIN_ADDR, MM_USER_TOP); else -EINVAL.
 */
int mm_check_range(vaddr_t start, u64 len);

/* The region holding @va, or NULL. Caller holds mm->lock (either side). */
const struct mm_region *mm_region_find_locked(struct mm *mm, vaddr_t va);

/*
 * Sets the mapping of the region that starts at @start (NULL: none) and
 * its @slot in the mapping's table, under the write side. For
 * mm/mapping/mapping.c: call mapping_attach() instead. Returns 0 or -EINVAL (no
 * region starts at @start).
 */
int mm_region_set_mapping(struct mm *mm, vaddr_t start, struct mm_mapping *mapping,
			  unsigned slot);

/* The protection a region's pages are mapped with when nothing restricts them. */
unsigned mm_region_prot(const struct mm_region *r);

/*
 * Maps @page (an order-0 frame, not necessarily from the allocator's free
 * lists; device memory too) at @va inside a region, taking a reference and
 * a map count for the mapping. Takes mm->lock's read side and, in a
 * shareable region, its mapping's lock (mapping_install_lock()), as a
 * fault would. Returns 0, -EFAULT (no region), -EEXIST
 * (something is mapped there) or -ENOMEM.
 */
int mm_map_page(struct mm *mm, vaddr_t va, struct page *page);

/*
 * Maps @page at @va with @prot if nothing is there, adding the tables it
 * needs; the mapping takes over a reference and a map count the caller
 * already added. Caller holds mm->lock (either side). Returns 0, -EEXIST
 * (someone was first: the caller drops what it added) or -ENOMEM.
 */
int mm_install_page_locked(struct mm *mm, vaddr_t va, struct page *page, unsigned prot);

/*
 * Maps a new zeroed frame at @va in region @r if nothing is there. Caller
 * holds mm->lock (either side). Returns 0, -EEXIST (something was there
 * already, perhaps just mapped by another CPU) or -ENOMEM.
 */
int mm_zero_page_locked(struct mm *mm, const struct mm_region *r, vaddr_t va);

/*
 * mm_install_page_locked() and mm_zero_page_locked() at the slot a
 * pt_slot_find() under the same hold of mm->lock found: the page tables
 * are walked once, and only resumed (under mm->pt_lock) where a table is
 * missing. Same returns.
 */
int mm_install_page_slot(struct mm *mm, struct pt_slot *s, struct page *page, unsigned prot);
int mm_zero_page_slot(struct mm *mm, const struct mm_region *r, struct pt_slot *s);

/*
 * Drops the map count and the reference a removed mapping of @page held,
 * freeing the frame with the last reference. Only once no CPU can still
 * use the mapping (after its flush).
 */
void mm_page_drop(struct page *page);

/*
 * mm_page_drop() for @n frames at once: the frames whose last reference
 * went go back to the allocator together (one trip to its cache lock).
 * @pages is scratch: reordered. Any context that may free pages.
 */
void mm_pages_drop(struct page **pages, unsigned n);

/* True for regions whose pages are copied on write: private and writable. */
static inline bool mm_region_cow(const struct mm_region *r)
{
	return (r->flags & (MM_WRITE | MM_SHARED)) == MM_WRITE;
}

/*
 * Maps a zeroed frame at every page of [start, start + len) that has
 * nothing mapped, as write faults would, without faulting (no fault is
 * counted), under the locks mm_map_page() takes. Returns 0, -EFAULT (part
 * of the range is in no region or not writable), -EINVAL or -ENOMEM (what
 * was mapped stays).
 */
int mm_populate(struct mm *mm, vaddr_t start, u64 len);

/*
 * Maps every naturally aligned block of 2^@order pages of [start, start +
 * len) that has nothing mapped with one physically contiguous block of
 * zeroed frames, as a large-folio fault would. The frames are then
 * refcounted and freed one by one (mmlab has no compound pages). @start
 * and @len must be multiples of the block size. Returns 0, -EFAULT (part
 * of the range is in no region or not writable), -EEXIST (a block is
 * partly mapped), -EINVAL or -ENOMEM (what was mapped stays).
 */
int mm_populate_folios(struct mm *mm, vaddr_t start, u64 len, unsigned order);

/*
 * A gather for removing mappings of @mm: its finish flushes every CPU that
 * has @mm loaded, then drops the removed frames (mm_page_drop()); removed
 * swap entries go to the swap subsystem.
 */
void mm_gather_init(struct pt_gather *g, struct mm *mm);

/*
 * Write-protects the pages of private writable regions in [start, start
 * + len), so the next write to each takes a write-protect fault (which
 * reuses the page if this mapping is its only user, else copies it), then
 * flushes. Task context, interrupts on. Returns 0, -EINVAL, -ENOMEM or
 * -ETIMEDOUT (the flush did not complete: a CPU out of the run may still
 * write through a writable entry).
 */
int mm_cow_protect(struct mm *mm, vaddr_t start, u64 len);

/*
 * Creates a copy of @src as fork does: the same regions; pages of private
 * regions are shared read-only by both (copy-on-write; a pinned page is
 * copied for the child at once instead), pages of shared regions are
 * shared writable. @src is flushed before this returns. Task context,
 * interrupts on. Swap entries are copied, each taking one more reference
 * on its slot. A region attached to a mapping (mm/mapping/mapping.h) is attached
 * to it in the child too: detach it there before destroying the child.
 * Returns 0 with *@out set, -ENOMEM (nothing left behind), -ENOSPC (a
 * mapping's attachment table is full), -ETIMEDOUT (the flush of @src did
 * not complete: a CPU out of the run may still write its pages, so no
 * child is made, and @src's pages are its own again) or an error of the
 * swap subsystem (-EOVERFLOW: a slot's count is full).
 */
int mm_fork(struct mm *src, struct mm **out);

/*
 * The tlb_gen mm_switch() read when this CPU loaded the mm it runs now:
 * its TLB holds no translation of that mm older than it (the load
 * flushed, or nothing changed since the CPU last did). Interrupts off.
 */
u64 mm_loaded_gen(void);

/*
 * Loads @mm's root on the calling CPU (NULL: the kernel root), with an
 * ASID where the MMU has them, and keeps mm_cpumask and this CPU's
 * current mm right: a CPU switching away clears its bit. Any context.
 */
void mm_switch(struct mm *mm);

/*
 * Flushes translations of [start, last] of @mm (start > last: all of them)
 * from every CPU that has it loaded, the caller included, and makes CPUs
 * that switch back later flush their ASID slot. Returns once done: 0, or
 * -ETIMEDOUT when a CPU did not acknowledge (the flush is not known to be
 * complete: what it covered must never be reused, see mm/quarantine.h).
 * Task or fault context, not with a lock the other CPUs may be waiting for
 * with interrupts off.
 */
int mm_flush_range(struct mm *mm, vaddr_t start, vaddr_t last);

/* mm_flush_range() of all of @mm's translations. */
static inline int mm_flush_all(struct mm *mm)
{
	return mm_flush_range(mm, ~0ul, 0);
}

#endif
